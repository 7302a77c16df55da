"""A solo adventure played through a shipped scenario (``options.scenario``), which the
registered runner of every adventure (:func:`~gm_engine.sessions.adventure_runner.run_adventure`)
plays when the options name one.

:class:`ScenarioAdventure` is the :class:`~gm_engine.sessions.adventure.Adventure` loop with:

- the engine's character creation before the first GM turn
  (:mod:`gm_engine.adventure.creation`: the fast-combat rules' rank, weapon, armour,
  shield and spells, or an investigator / hero from the scenario's choices), each answer
  recorded as a ``human_input`` event;
- the scenario tools (:mod:`gm_engine.tools.story`) and the combat tools of a fight the
  scenario begins, with fleeing; the GM creates no character and starts no fight itself;
- the GM's system prompt built from the scenario's GM-only brief;
- the narration guard (:mod:`gm_engine.adventure.guard`): every narration is checked
  against what the engine produced this turn and the state before it is shown; a
  mismatch goes back to the model as an error within the retry budget, and each
  narration is recorded as a ``narration`` event (shown, or held back and why);
- the offline GM :func:`~gm_engine.adventure.offline_gm.scenario_gm`, which reads the
  player's words as an intent.

The adventure ends at one of the scenario's endings. Without ``options.scenario`` the
session is the free-form :class:`Adventure` (the GM creates characters and starts fights),
and this module (its scenarios, story and offline GM) is not imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gm_engine.adventure.brief import gm_brief
from gm_engine.adventure.creation import FantasyCreation, GuidedCreation
from gm_engine.adventure.guard import TurnFacts, vet_narration
from gm_engine.adventure.offline_gm import scenario_gm
from gm_engine.adventure.scenario import GameSystem, ScenarioError, UnknownScenarioError, get_scenario
from gm_engine.adventure.story import CheckRoller, Sheet, Story, StoryError, StoryStep
from gm_engine.combat.actions import CastSpell
from gm_engine.combat.enemies import Enemy
from gm_engine.combat.state import Outcome
from gm_engine.events import (
    DiceEvent,
    EventSink,
    HumanInputEvent,
    NarrationEvent,
    SessionEvent,
    StateEvent,
    ToolResultEvent,
)
from gm_engine.llm.base import JsonDict, system_message, user_message
from gm_engine.llm.ledger import MeteredBackend
from gm_engine.llm.offline import register_offline_decider
from gm_engine.llm.prompts import render_prompt
from gm_engine.messages import render
from gm_engine.messages.texts import (
    CreationHelp,
    CreationQuitHint,
    LogFleeRoll,
    LogFleeSuccess,
    NarrationWithheld,
    NoCharacterStatus,
)
from gm_engine.sessions.adventure import (
    QUIT_WORDS,
    Adventure,
    AdventureOptions,
    GMView,
)
from gm_engine.sessions.base import SessionError, SessionIO, SessionSpec
from gm_engine.tools.base import Offer, ToolOutput, TurnResult, TurnRunner
from gm_engine.tools.combat import FLED, ShowStatus
from gm_engine.tools.story import StoryTable

#: Combat tools a scenario's GM is not given: the scenario makes the character and the fights
#: (show_status is offered as the scenario's own, which also shows the status to the player).
_NOT_OFFERED = frozenset({"create_character", "create_character_preset", "start_battle", "show_status"})

#: A skill the character does not have: Cthulhu7th's rough base chance, no success dice.
_BASE_SKILL = {GameSystem.CTHULHU7: 20, GameSystem.ONE_RING2: 0, GameSystem.FAST_COMBAT: 0}


class _FactSink:
    """Passes events on and keeps this turn's accepted tool results for the guard."""

    def __init__(self, inner: EventSink, texts: list[str]) -> None:
        self.inner = inner
        self.texts = texts

    def emit(self, event: SessionEvent) -> None:
        self.inner.emit(event)
        if isinstance(event, ToolResultEvent) and event.ok:
            self.texts.append(event.result)


class ScenarioAdventure(Adventure):
    """An adventure through a scenario (see the module docstring)."""

    offline_kind = "scenario"

    def __init__(self, spec: SessionSpec, io: SessionIO, options: AdventureOptions) -> None:
        super().__init__(spec, io, options)
        try:
            self.scenario = get_scenario(options.scenario or "", options.locale)
        except UnknownScenarioError as exc:  # the player's language, as the command line says it
            raise SessionError(render(exc.message, options.locale)) from None
        except ScenarioError as exc:
            raise SessionError(str(exc)) from None
        self.system = self.scenario.system
        self.sheet: Sheet | None = None
        roller = CheckRoller(self.system, self.source, self._skill, options.locale)
        if self.scenario.creation is not None:
            roller.target_number = self.scenario.creation.target_number
        self.story = Story(self.scenario, roller, locale=options.locale)
        self.stories = StoryTable(self.story, self._stepped)
        self.table.on_finish = self._fight_finished
        self.turn_texts: list[str] = []
        self.turn_checks: list[bool] = []
        self.turn_dice_from = 0
        self.shown_this_turn = False
        self.refused_this_turn = 0
        self.out_of_turns = False
        self.messages = [
            system_message(
                render_prompt(
                    "adventure_scenario_gm.j2",
                    title=self.scenario.title,
                    system=self.system.value,
                    brief=gm_brief(self.scenario),
                )
            )
        ]

    # -- what the GM may do now ----------------------------------------------------------------

    def offers(self) -> list[Offer[Any]]:
        """The scenario tools and the combat tools legal now."""
        offers: list[Offer[Any]] = [*self.stories.offers(), Offer.of(ShowStatus, self._show_sheet)]
        if self.system is GameSystem.FAST_COMBAT:
            offers.extend(o for o in self.table.offers() if o.name not in _NOT_OFFERED)
        return offers

    def _show_sheet(self, args: ShowStatus) -> ToolOutput:
        text = self.status_text()
        self.io.show(text)
        return ToolOutput(text=text)

    def status_text(self) -> str:
        """The character's compact status (fast combat: §13.2's line; else the sheet)."""
        if self.system is GameSystem.FAST_COMBAT:
            return self.table.status_text()
        if self.sheet is None:
            return render(NoCharacterStatus(), self.options.locale)
        return self.sheet.status_line(self.system, self.options.locale)

    def _skill(self, name: str) -> int:
        if self.sheet is None:
            return _BASE_SKILL[self.system]
        return self.sheet.skills.get(name, _BASE_SKILL[self.system])

    # -- engine callbacks ------------------------------------------------------------------------

    def _changed(self, step: str) -> None:
        history = self.source.history
        if len(history) > self._dice_seen:
            self._sink().emit(DiceEvent.of(history[self._dice_seen :]))
            self._dice_seen = len(history)
        self._sink().emit(StateEvent(hash=self.state_hash(), step=step))
        if step == "start_battle":
            self.battles_started += 1

    def state_hash(self) -> str:
        """The story's and the table's state, in one hash."""
        sheet = self.sheet.model_dump_json() if self.sheet is not None else ""
        return f"{self.story.state.state_hash()[:32]}{self.table.state_hash()[:24]}{len(sheet):08d}"

    def _stepped(self, tool: str, step: StoryStep) -> str:
        self.io.show(step.text)
        self.turn_checks.extend(check.success for check in step.checks)
        self._changed(tool)
        extra = ""
        fight = step.encounter
        if fight is not None:
            output = self.table.start_encounter(
                fight.kind.value,
                [d.value for d in fight.difficulty],
                fight.enemy,
                flee_target=fight.flee_target,
            )
            extra = output.text
        self._check_ending()
        return extra

    def _fight_finished(self, outcome: str) -> None:
        how = "flee" if outcome == FLED else "lose" if outcome == Outcome.ENEMY_VICTORY.value else "win"
        try:
            step = self.story.fight_over(how)
        except StoryError:  # a fight the scenario did not begin (none are offered)
            return
        if step.text:
            self.io.show(step.text)
            self.turn_texts.append(step.text)
        self._changed("fight_over")
        self._check_ending()

    def _check_ending(self) -> None:
        ending = self.story.state.ending
        if ending is not None:
            self.finished = True
            self.ending = self.scenario.endings[ending].title

    # -- the turn ---------------------------------------------------------------------------------

    def turn_message(self, text: str) -> JsonDict:
        """The user message of one player line, with the scene and the engine's status."""
        phase = self.table.phase
        return user_message(
            render_prompt(
                "adventure_scenario_turn.j2",
                text=text,
                scene=self.story.describe(),
                status=self.status_text(),
                phase=phase.value if phase is not None else None,
            )
        )

    def _runner(self) -> TurnRunner:
        return TurnRunner(
            MeteredBackend(self.io.backend, self.ledger),
            _FactSink(self.io.sink, self.turn_texts),
            retry_budget=self.options.retry_budget,
            faults=self.server_faults,
        )

    def _context(self) -> object:
        self.turn_texts.clear()
        self.turn_checks.clear()
        self.turn_dice_from = len(self.source.history)
        self.shown_this_turn = False
        self.refused_this_turn = 0
        return ScenarioGMView(self)

    def _status_view(self) -> GMView:
        """The table and the scenario: a screen shows an investigator's or a hero's sheet too."""
        return ScenarioGMView(self)

    def facts(self) -> TurnFacts:
        """What the engine produced this turn and the state now, for the guard."""
        party = self.table.current_party()
        enemies = self.table.battle.enemies if self.table.battle is not None else ()
        hp = {c.hp for c in party} | {c.max_hp for c in party}
        hp |= {e.hp for e in enemies} | {e.max_hp for e in enemies}
        if self.sheet is not None:
            hp.add(self.sheet.hp)
        dice = {d.value for d in self.source.history[self.turn_dice_from :]}
        return TurnFacts(
            engine_texts=tuple(self.turn_texts),
            hp=frozenset(hp),
            slots=frozenset({c.slots_left for c in party} | {c.max_slots for c in party}),
            dice=frozenset(dice),
            checks=tuple(self.turn_checks) + tuple(self._flee_verdicts()),
        )

    def _flee_verdicts(self) -> list[bool]:
        locale = self.options.locale
        rolled = render(LogFleeRoll(""), locale).strip()
        escaped = render(LogFleeSuccess(), locale)
        return [(escaped in t) for t in self.turn_texts if rolled in t]

    def _vet(self) -> Callable[[str], Sequence[str]]:
        def vet(text: str) -> Sequence[str]:
            problems = vet_narration(text, self.facts())
            self._sink().emit(NarrationEvent(actor="gm", text=text, shown=not problems, problems=problems))
            if problems:
                self.refused_this_turn += 1
            else:
                self.shown_this_turn = True
                self.io.show(f"GM: {text}")
            return problems

        return vet

    def _after_turn(self, result: TurnResult) -> None:
        if self.refused_this_turn and not self.shown_this_turn:
            self.io.show(render(NarrationWithheld(), self.options.locale))
        super()._after_turn(result)

    # -- before the first turn ---------------------------------------------------------------------

    def _begin(self) -> bool:
        self.io.show(f"=== {self.scenario.title} ===\n{self.scenario.intro}")
        made = self._create()
        if made is None:
            return False
        if not made:
            self.turn = self.options.max_turns  # the answers ran out the turns
            return True
        self.messages.append(self.turn_message("（セッション開始。プレイヤーを迎え、場面を示してください）"))
        return True

    def _create(self) -> bool | None:
        """The creation dialogue: True when made, False when the turns ran out, None on /quit."""
        wizard: FantasyCreation | GuidedCreation
        if self.system is GameSystem.FAST_COMBAT:
            wizard = FantasyCreation(self.scenario.recommended_rank, self.options.locale)
        else:
            assert self.scenario.creation is not None  # the schema requires it
            wizard = GuidedCreation(self.system, self.scenario.creation, self.options.locale)
        answers = 0
        while not wizard.done:
            if answers >= self.options.max_turns:
                return False
            self.io.show(wizard.question())
            self.io.human.observe(self._status_view(), ())
            text = self.io.human.ask(self.prompt)
            if text.strip() in QUIT_WORDS:
                return None
            self._sink().emit(HumanInputEvent(prompt=self.prompt, text=text))
            answers += 1
            if text.strip() in ("/help", "/status"):
                stop = self.options.stop_hint(CreationQuitHint())
                self.io.show(render(CreationHelp(stop), self.options.locale))
                continue
            reply = wizard.answer(text)
            if reply:
                self.io.show(reply)
        if isinstance(wizard, FantasyCreation):
            assert wizard.character is not None
            self.table.add_character(wizard.character)
        else:
            self.sheet = wizard.sheet
            self._changed("create_character")
        return True


class ScenarioGMView(GMView):
    """What the offline GM of a scenario reads: the table, as :class:`GMView` shows it, and the
    scenario (read-only; a solo adventure has no secret from its GM)."""

    offline_kind = "scenario"

    def __init__(self, adventure: ScenarioAdventure) -> None:
        super().__init__(adventure)
        self._scenario = adventure

    @property
    def story(self) -> Story:
        """The scenario in play."""
        return self._scenario.story

    @property
    def sheet(self) -> Sheet | None:
        """The character of a scenario played under other rules than fast combat (None
        before it is made, and under fast combat, whose characters are the party)."""
        return self._scenario.sheet

    @property
    def system(self) -> GameSystem:
        """The rules the scenario is played under."""
        return self._scenario.system

    @property
    def enemies(self) -> tuple[Enemy, ...]:
        """The enemies of the fight in progress."""
        battle = self._adventure.table.battle
        return battle.enemies if battle is not None else ()

    @property
    def last_line(self) -> str | None:
        """The player's line of this turn (None at the opening turn)."""
        lines = self._adventure.human_lines
        return lines[-1] if lines else None

    def legal_casts(self) -> list[CastSpell]:
        """The casts the rules allow now."""
        battle = self._adventure.table.battle
        if battle is None:
            return []
        return [a for a in battle.legal_actions() if isinstance(a, CastSpell)]


register_offline_decider("scenario", scenario_gm)
