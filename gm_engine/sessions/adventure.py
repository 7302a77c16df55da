"""The solo adventure: a model plays the GM, the player answers, the engine owns every number.

The GM model talks with the player and reaches the engine only through tools
(:mod:`gm_engine.tools.dice` and :mod:`gm_engine.tools.combat`): any dice command of the
session's game system, the 3d6 check, character creation and status, every step of a
battle, spells, and ``end_adventure``. A GM turn runs tools until the model answers with
text or a tool reaches a pause of the battle (BATTLE_SETUP, ROLL_LOG, BATTLE_JUDGE);
then the turn goes back to the player. The engine's logs are shown to the player as
the engine wrote them, so a number the player sees never passed through the model.

With the offline backend the GM is :func:`offline_gm`, a short scripted adventure:
it greets, creates the player's character from the player's answer, changes its spells
when the player asks for others in words (``change_spells``), rolls a check, starts a
fight, drives each step (casting 【火弾】 when the player's line names it), narrates from
the engine's facts, rests the party when slots were spent (``rest``) and ends.

The player's own commands are answered by the engine without a GM turn: ``/status``
(the compact §13.2 status), ``/help``, ``/rest`` and the meta instruction ``[魔法変更:
…]`` (§5.2); every GM turn ends with the 【セッション状況】 footer and its 【魔法スロットの
残り】.

When the GM's retry budget runs out, :meth:`Adventure.fallback` decides: in a battle the
step that moves it on, elsewhere nothing; either way a ``fallback`` event is recorded and
the turn goes back to the player. A backend failure (:class:`~gm_engine.llm.base.BackendError`,
a transient one included once the retry policy gave up) is not the model's mistake: the
session stops and raises it between two engine steps, so a recorded session is left
resumable (``gm resume``).

Events: everything the turn runner emits (model_request, model_response, tool_result,
fallback), plus ``human_input``, ``dice`` (the dice of each engine step) and ``state``
(the adventure's state hash after each engine step).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gm_engine.combat.actions import CastSpell
from gm_engine.combat.characters import Character, Status
from gm_engine.combat.errors import CombatError, IllegalActionError
from gm_engine.combat.ranks import Rank
from gm_engine.combat.render import word
from gm_engine.combat.spells import Spell
from gm_engine.combat.state import Phase
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import SeededSource
from gm_engine.dice.systems.registry import get_system
from gm_engine.events import (
    DiceEvent,
    EventSink,
    HumanInputEvent,
    ModelResponseEvent,
    SessionEvent,
    StateEvent,
)
from gm_engine.llm.base import (
    JsonDict,
    ModelRequest,
    ModelResponse,
    system_message,
    user_message,
)
from gm_engine.llm.ledger import Ledger, MeteredBackend
from gm_engine.llm.offline import offline_calls, register_offline_decider
from gm_engine.llm.prompts import render_prompt
from gm_engine.messages import Message, render
from gm_engine.messages.ledger import ledger_summary
from gm_engine.messages.texts import (
    AdventureEmptyLine,
    AdventureHelp,
    AdventureLeft,
    AdventureOutOfTurns,
    AdventurePrompt,
    AdventureQuitLine,
    CannotChangeSpells,
    CannotRest,
    CharacterDead,
    FreeBladesAndFire,
    FreeBoss,
    FreeCharges,
    FreeCheckReason,
    FreeClash,
    FreeFireball,
    FreeLost,
    FreeLostSummary,
    FreeNameless,
    FreeRests,
    FreeSetsOut,
    FreeSpotted,
    FreeSurprised,
    FreeSwapSpells,
    FreeWelcome,
    FreeWon,
    FreeWonSummary,
    GmFact,
    GmThenWhat,
    HelpLeaveThePage,
    LogBullet,
    LogNarrateWord,
    MoreSpellsThanSlots,
    NoCharacterYet,
    SpellsUnknown,
    SpellTwice,
)
from gm_engine.sessions.base import (
    SessionError,
    SessionIO,
    SessionOutcome,
    SessionSpec,
)
from gm_engine.tools.base import Offer, ServerFaults, Tool, ToolOutput, TurnRunner
from gm_engine.tools.combat import BattleStep, CombatTable
from gm_engine.tools.dice import check_offer, dice_offer

#: What the player types to stop.
QUIT_WORDS = frozenset({"/quit", "/exit", "/end", "終了"})

#: The meta instruction of §5.2: ``[魔法変更: 魔法名, 魔法名...]`` (full-width brackets and colon too).
SPELL_CHANGE = re.compile(r"^[\[［]\s*魔法変更\s*[:：]\s*(.*?)\s*[\]］]$")

#: Example commands shown in the GM prompt per game system.
_EXAMPLES: dict[str, list[str]] = {
    "DiceBot": ["2D6", "3D6>=10", "1D100"],
    "Cthulhu7th": ["CC<=50", "CC(1)<=60", "1D100"],
    "Cthulhu": ["CCB<=50", "1D100"],
    "TheOneRing2nd": ["3RG>=14", "2D6"],
}


class AdventureOptions(BaseModel):
    """Options of an adventure: the dice system of ``roll_dice``, bounds on its length, the GM's
    retry budget per turn, and how many player turns of conversation the GM is sent (the
    engine's status is in every player message, so older turns are not needed for the rules)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str = "DiceBot"
    scenario: str | None = None
    max_turns: int = Field(default=80, ge=1, le=10_000)
    retry_budget: int = Field(default=3, ge=0, le=20)
    max_tool_calls_per_turn: int = Field(default=24, ge=1, le=200)
    history_turns: int = Field(default=12, ge=1, le=1000)
    locale: Locale = "ja"
    """The language of everything the engine itself tells the player: its refusals, the
    scene's frame, the combat logs and status, the offline GM's words, the dice results; and
    the scenario's texts where its file gives them an English form (its ``en`` table). The
    rules' terms (spells, ranks, equipment) stay as written; a model GM speaks as it is
    prompted."""
    web: bool = False
    """The player is on a web page (``gm serve``), which is closed instead of ``/quit``: the
    helps say so. Recorded with the options, so a replay shows the same helps."""

    def stop_hint(self, at_terminal: Message) -> str:
        """How the player stops, as a help says it: ``at_terminal`` at a terminal, and on a
        web page that the page is closed (the table waits at its question)."""
        return render(HelpLeaveThePage() if self.web else at_terminal, self.locale)

    @field_validator("system")
    @classmethod
    def _known_system(cls, value: str) -> str:
        get_system(value)  # raises UnknownSystemError (a ValueError) naming the known ids
        return value


class EndAdventure(Tool):
    """End the adventure with a one-line summary, after the closing narration."""

    tool_name: ClassVar[str] = "end_adventure"
    destructive: ClassVar[bool] = True
    summary: str = Field(min_length=1, max_length=300)


class _ShowingSink:
    """Passes events on, and shows the GM's words to the player as they arrive."""

    def __init__(self, inner: EventSink, show: Any) -> None:
        self.inner = inner
        self.show = show

    def emit(self, event: SessionEvent) -> None:
        self.inner.emit(event)
        if isinstance(event, ModelResponseEvent) and event.content:
            self.show(f"GM: {event.content}")


class Adventure:
    """One adventure's state and loop; its registered runner is
    :func:`~gm_engine.sessions.adventure_runner.run_adventure`."""

    offline_kind = "adventure"

    def __init__(self, spec: SessionSpec, io: SessionIO, options: AdventureOptions) -> None:
        self.spec = spec
        self.io = io
        self.options = options
        self.source = SeededSource(spec.seed)
        self.table = CombatTable(
            self.source, on_log=self._show_log, on_change=self._changed, locale=options.locale
        )
        self.server_faults = ServerFaults()  # a server failing now and then costs turns, not the session
        self.ledger = Ledger(game="adventure")  # not the seed: it is shown when the player quits too
        self.finished = False
        self.ending = ""
        self.turn = 0
        self.human_lines: list[str] = []
        self.checks: list[RollResult] = []
        self.battles_started = 0
        self._dice_seen = 0
        #: What the player is asked with, in the session's locale.
        self.prompt = render(AdventurePrompt(), options.locale)
        game = get_system(options.system)
        self.messages: list[JsonDict] = [
            system_message(
                render_prompt(
                    "adventure_gm.j2",
                    system_id=game.id,
                    system_name=game.name,
                    examples=_EXAMPLES.get(game.id, ["2D6", "1D100"]),
                )
            )
        ]

    # -- what the GM may do now --------------------------------------------------------------

    def offers(self) -> list[Offer[Any]]:
        """The GM's tools legal now."""
        offers: list[Offer[Any]] = [
            dice_offer(self.options.system, self.source, self._rolled, self.options.locale)
        ]
        names = [c.name for c in self.table.current_party() if c.standing]
        if names and self.table.battle is None:
            offers.append(check_offer(names, self.source, self._checked, self.options.locale))
        offers.extend(self.table.offers())
        if self.table.battle is None:
            offers.append(Offer.of(EndAdventure, self._end))
        return offers

    # -- engine callbacks ----------------------------------------------------------------------

    def _sink(self) -> EventSink:
        return self.io.sink

    def _changed(self, step: str) -> None:
        history = self.source.history
        if len(history) > self._dice_seen:
            self._sink().emit(DiceEvent.of(history[self._dice_seen :]))
            self._dice_seen = len(history)
        self._sink().emit(StateEvent(hash=self.table.state_hash(), step=step))
        if step == "start_battle":
            self.battles_started += 1

    def _rolled(self, result: RollResult, reason: str) -> None:
        self.io.show(f"🎲 {reason}: {result.text}")
        self._changed("roll_dice")

    def _checked(self, result: RollResult, reason: str) -> None:
        self.checks.append(result)
        self.io.show(f"🎲 {reason}: {result.text}")
        self._changed("skill_check")

    def _show_log(self, label: str, text: str) -> None:
        self.io.show(text)

    def _end(self, args: EndAdventure) -> ToolOutput:
        self.finished = True
        self.ending = args.summary
        self._changed("end_adventure")
        return ToolOutput(text="the adventure is over", ends_turn=True)

    # -- the loop ---------------------------------------------------------------------------------

    def turn_message(self, text: str) -> JsonDict:
        """The user message of one player line, with the engine's status."""
        phase = self.table.phase
        return user_message(
            render_prompt(
                "adventure_turn.j2",
                text=text,
                status=self.table.status_text(),
                phase=phase.value if phase is not None else None,
            )
        )

    def _ask(self) -> str:
        """The player's next line for the GM; ``/status`` and ``/help`` are answered by the
        engine itself, without a GM turn."""
        while True:
            self.io.human.observe(self._status_view(), ())  # for a screen that keeps the party in view
            text = self.io.human.ask(self.prompt)
            command = text.strip()
            if command in QUIT_WORDS:
                return text  # not recorded: resuming the transcript asks again from here
            if not command:  # an accidental Enter is not a turn: with a model GM it would cost one
                self.io.show(render(AdventureEmptyLine(), self.options.locale))
                continue
            self._sink().emit(HumanInputEvent(prompt=self.prompt, text=text))
            spell_change = SPELL_CHANGE.match(command)
            if command == "/status":
                self.io.show(self.status_text())
            elif command == "/help":
                stop = self.options.stop_hint(AdventureQuitLine())
                self.io.show(render(AdventureHelp(stop), self.options.locale))
            elif command == "/rest":
                self._player_rest()
            elif spell_change is not None:
                self._player_spell_change(spell_change.group(1))
            else:
                return text

    def status_text(self) -> str:
        """What ``/status`` shows: the engine's compact status."""
        return self.table.status_text()

    def _player_rest(self) -> None:
        """``/rest``: the engine rests the party itself (its log is shown), or says why not
        (the engine's refusal, in the player's language)."""
        try:
            self.table.rest()
        except IllegalActionError as exc:  # in a battle, or no character yet
            self.io.show(render(CannotRest(exc.reason), self.options.locale))

    def _player_spell_change(self, body: str) -> None:
        """``[魔法変更: …]``: the engine changes the spells known (the new sheet is shown), or
        says why not; the party is then exactly as before."""
        party = self.table.party
        locale = self.options.locale
        items = [w for w in re.split(r"[\s、，,]+", body) if w]
        if not party:
            self.io.show(render(CannotChangeSpells(NoCharacterYet()), locale))
            return
        if self.table.battle is not None:
            try:  # the engine refuses it, in its own words
                self.table.change_spells(party[0].name, [])
            except IllegalActionError as exc:
                self.io.show(render(CannotChangeSpells(exc.reason), locale))
            return
        names = {c.name for c in party}
        name = items.pop(0) if items and items[0] in names else party[0].name
        spells = [w.strip("【】") for w in items]
        known = [s.value for s in Spell]
        unknown = [w for w in spells if w not in known]
        character = next(c for c in party if c.name == name)
        why: Message | None = None
        if character.status is Status.DEAD:
            why = CharacterDead(name)
        elif unknown:
            why = SpellsUnknown("、".join(unknown), "、".join(known))
        elif len(set(spells)) != len(spells):
            why = SpellTwice()
        elif len(spells) > character.max_slots:
            why = MoreSpellsThanSlots(name, character.max_slots, len(spells))
        if why is not None:
            self.io.show(render(CannotChangeSpells(why), locale))
            return
        try:
            self.table.change_spells(name, spells)
        except IllegalActionError as exc:
            self.io.show(render(CannotChangeSpells(exc.reason), locale))
        except CombatError as exc:  # a rule of §5.1/§6.2 the checks above do not cover
            self.io.show(render(CannotChangeSpells(exc.explanation()), locale))

    def window(self) -> list[JsonDict]:
        """The conversation sent to the GM: the system prompt, then everything since the start
        of the last ``history_turns`` player messages (a player message is a safe cut: no tool
        call is left without its result)."""
        starts = [i for i, m in enumerate(self.messages) if i > 0 and m.get("role") == "user"]
        keep = starts[-self.options.history_turns :] if starts else []
        if not keep or keep[0] <= 1:
            return list(self.messages)
        return [self.messages[0], *self.messages[keep[0] :]]

    def fallback(self) -> Tool | None:
        """What is done when the GM's retry budget runs out: in a battle the step that moves
        it on (as the offline GM would), elsewhere nothing (the turn goes back to the player)."""
        battle = self.table.battle
        if battle is None:
            return None
        step = {
            Phase.SETUP: "roll",
            Phase.ROLL: "judge",
            Phase.JUDGE: "narrate",
            Phase.NARRATIVE: "end" if battle.outcome is not None else "next_round",
        }.get(battle.phase)
        return BattleStep(step=step) if step is not None else None

    async def run(self) -> SessionOutcome:
        """Play until the GM ends the adventure, the player quits, or ``max_turns``.

        Raises:
            BackendError: the model's server failed (after the retry policy gave up).
        """
        try:
            return await self._play()
        finally:
            await self.io.backend.aclose()  # the client's connections belong to this event loop

    # -- hooks a scenario's adventure fills in -----------------------------------------------------

    def _runner(self) -> TurnRunner:
        """The GM's turn runner (its sink shows the GM's words as they arrive)."""
        return TurnRunner(
            MeteredBackend(self.io.backend, self.ledger),
            _ShowingSink(self.io.sink, self.io.show),
            retry_budget=self.options.retry_budget,
            faults=self.server_faults,
        )

    def _begin(self) -> bool:
        """Before the first GM turn; False when the player quit."""
        self.messages.append(self.turn_message("（セッション開始。プレイヤーを迎えてください）"))
        return True

    def _context(self) -> object:
        """What the offline GM reads."""
        return GMView(self)

    def _status_view(self) -> GMView:
        """What the human is handed before each line (a screen shows the party from it)."""
        return GMView(self)

    def _vet(self) -> Any:
        """The narration guard of a GM turn (None: narration is shown unchecked)."""
        return None

    def _after_turn(self, result: Any) -> None:
        """After each GM turn (the footer of §5.2)."""
        footer = self.table.session_footer()
        if footer:
            self.io.show(footer)  # §5.2: every reply ends with the slots left

    async def _play(self) -> SessionOutcome:
        runner = self._runner()
        quit_early = not self._begin()
        while not quit_early and self.turn < self.options.max_turns and not self.finished:
            phase = self.table.phase
            result = await runner.run(
                actor="gm",
                messages=self.window(),
                offers=self.offers,
                fallback=self.fallback,
                context=self._context(),
                require_action=False,
                max_actions=self.options.max_tool_calls_per_turn,
                turn=self.turn,
                phase=phase.value if phase is not None else "story",
                vet=self._vet(),
            )
            self.messages = list(result.messages)
            self.turn += 1
            self._after_turn(result)
            if self.finished:
                break
            text = self._ask()
            if text.strip() in QUIT_WORDS:
                quit_early = True
                break
            self.human_lines.append(text)
            self.messages.append(self.turn_message(text))
        locale = self.options.locale
        stopped = render(AdventureLeft() if quit_early else AdventureOutOfTurns(), locale)
        summary = self.ending or stopped
        self.io.show(ledger_summary(self.ledger, locale))
        figures: dict[str, float] = {
            "turns": float(self.turn),
            "battles": float(self.battles_started),
            "dice": float(len(self.source.history)),
            **self.ledger.figures(),
        }
        return SessionOutcome(summary=summary, figures=figures, finished=not quit_early)


class GMView:
    """What the GM (and so the offline GM) may know: everything on the table, read live.

    A solo adventure has no secret from its GM; the view is read-only.
    """

    offline_kind = "adventure"

    def __init__(self, adventure: Adventure) -> None:
        self._adventure = adventure

    @property
    def locale(self) -> Locale:
        """The language the engine speaks to the player in (the offline GM's too)."""
        return self._adventure.options.locale

    @property
    def party(self) -> tuple[Character, ...]:
        """The party as it is now."""
        return self._adventure.table.current_party()

    @property
    def phase(self) -> Phase | None:
        """The battle's pause, or None outside a battle."""
        return self._adventure.table.phase

    @property
    def battle_round(self) -> int:
        """The battle's round (0 outside a battle)."""
        battle = self._adventure.table.battle
        return battle.round_number if battle is not None else 0

    @property
    def battle_decided(self) -> bool:
        """Whether the battle in progress has an outcome."""
        battle = self._adventure.table.battle
        return battle is not None and battle.outcome is not None

    @property
    def outcomes(self) -> tuple[str, ...]:
        """How the finished battles ended."""
        return tuple(self._adventure.table.outcomes)

    @property
    def human_lines(self) -> tuple[str, ...]:
        """What the player said so far."""
        return tuple(self._adventure.human_lines)

    @property
    def checks(self) -> tuple[RollResult, ...]:
        """The skill checks rolled so far."""
        return tuple(self._adventure.checks)

    @property
    def battles_started(self) -> int:
        """How many battles were started."""
        return self._adventure.battles_started

    def castable(self, spell: Spell) -> list[str]:
        """The PCs who may cast ``spell`` now (from the battle's legal actions)."""
        battle = self._adventure.table.battle
        if battle is None:
            return []
        return [a.caster for a in battle.legal_actions() if isinstance(a, CastSpell) and a.spell is spell]


def adventure_options(spec: SessionSpec) -> AdventureOptions:
    """The adventure options of ``spec``.

    Raises:
        SessionError: the options are invalid (e.g. an unknown dice system).
    """
    try:
        return AdventureOptions.model_validate(spec.options)
    except (ValidationError, ValueError) as exc:
        raise SessionError(f"bad adventure options: {exc}") from None


# ------------------------------------------------------------------------------ the offline GM

_RANK_WORDS = {r.value: r for r in Rank}
#: The offline adventure's foe.
BOSS = "小鬼の頭目"
_PRESETS = ("おまかせ", "未選択")
#: The presets as an English answer names them (the greeting under GM_LOCALE=en offers them).
_PRESET_WORDS = {"おまかせ": "おまかせ", "未選択": "未選択", "auto": "おまかせ", "unselected": "未選択"}


def parse_character_answer(text: str, locale: Locale = "ja") -> tuple[str, str, str]:
    """(name, rank, preset) from the player's answer, e.g. ``"アリア 駆け出し おまかせ"``;
    the rank defaults to 駆け出し, the preset to おまかせ and the name to a nameless
    traveller's in ``locale``."""
    words = [w for w in re.split(r"[\s、，,。/／]+", text.strip()) if w]
    rank = next((w for w in words if w in _RANK_WORDS), Rank.NOVICE.value)
    preset = next((_PRESET_WORDS[w.lower()] for w in words if w.lower() in _PRESET_WORDS), "おまかせ")
    names = [w for w in words if w not in _RANK_WORDS and w.lower() not in _PRESET_WORDS]
    name = names[0][:40] if names else render(FreeNameless(), locale)
    return name, rank, preset


_SPELL_WORDS = re.compile("|".join(sorted((s.value for s in Spell), key=len, reverse=True)))


def spells_asked_for(text: str) -> list[str]:
    """The spells a player's line asks to know, in the order named, when it speaks of 魔法
    (e.g. ``"魔法を雷撃と治癒にしたい"`` → ``["雷撃", "治癒"]``); else none."""
    if "魔法" not in text:
        return []
    found: list[str] = []
    for match in _SPELL_WORDS.finditer(text):
        if match.group() not in found:
            found.append(match.group())
    return found


def _last_tool_text(request: ModelRequest) -> str:
    last = request.messages[-1] if request.messages else {}
    return str(last.get("content") or "") if last.get("role") == "tool" else ""


def _last_call_name(request: ModelRequest) -> str | None:
    """The tool whose result is the last message (None when the last message is not one)."""
    last = request.messages[-1] if request.messages else {}
    if last.get("role") != "tool":
        return None
    for message in reversed(request.messages):
        for call in message.get("tool_calls") or ():
            if call.get("id") == last.get("tool_call_id"):
                return str(call["function"]["name"])
    return None


def _say(request: ModelRequest, text: str, *calls: tuple[str, Mapping[str, Any]]) -> ModelResponse:
    return ModelResponse(content=text or None, tool_calls=offline_calls(request, list(calls)))


def offline_gm(request: ModelRequest, context: object | None) -> ModelResponse:
    """The offline GM: a short scripted adventure decided from the table's state (see the
    module docstring). It only calls tools the request offers."""
    if not isinstance(context, GMView):
        raise SessionError("the offline GM needs the adventure's GMView as its context")
    view = context
    locale = view.locale

    def say(message: Message) -> str:
        return render(message, locale)

    offered = {t.name for t in request.tools}
    after_tool = bool(request.messages) and request.messages[-1].get("role") == "tool"
    party = view.party
    hero = party[0].name if party else ""

    if not party:
        if not view.human_lines:
            return _say(request, say(FreeWelcome()))
        name, rank, preset = parse_character_answer(view.human_lines[-1], locale)
        return _say(request, "", ("create_character_preset", {"name": name, "rank": rank, "preset": preset}))

    wanted = spells_asked_for(view.human_lines[-1]) if view.human_lines else []
    first = party[0]
    if (
        view.phase is None
        and "change_spells" in offered
        and wanted
        and list(wanted) != [s.value for s in first.spells]
        and len(wanted) <= first.max_slots
    ):
        return _say(
            request,
            say(FreeSwapSpells(hero)),
            ("change_spells", {"character": hero, "spells": wanted}),
        )

    if not view.checks and view.battles_started == 0:
        return _say(
            request,
            say(FreeSetsOut(hero)),
            ("skill_check", {"character": hero, "target": 10, "reason": say(FreeCheckReason())}),
        )

    if view.battles_started == 0:
        if after_tool:
            check = view.checks[-1]
            line = say(FreeSpotted() if check.success else FreeSurprised())
            return _say(request, say(GmThenWhat(line)))
        boss = BOSS if locale == "ja" else say(FreeBoss())
        return _say(
            request,
            say(FreeCharges()),
            ("start_battle", {"kind": "エリート戦", "difficulty": ["弱い", "長引く"], "enemy_name": boss}),
        )

    phase = view.phase
    if phase is Phase.SETUP:
        # only what the player asked for: 【火弾】 when their line names it, no bonus of its own
        last = _last_call_name(request) if after_tool else None
        casters = view.castable(Spell.FIREBALL)
        asked = bool(view.human_lines) and Spell.FIREBALL.value in view.human_lines[-1]
        if last is None and asked and hero in casters:
            return _say(
                request,
                say(FreeFireball(hero)),
                ("cast_spell", {"caster": hero, "spell": Spell.FIREBALL.value}),
            )
        return _say(request, say(FreeClash()), ("battle_step", {"step": "roll"}))
    if phase is Phase.ROLL:
        return _say(request, "", ("battle_step", {"step": "judge"}))
    if phase is Phase.JUDGE:
        return _say(request, "", ("battle_step", {"step": "narrate"}))
    if phase is Phase.NARRATIVE:
        if after_tool:
            # the brief's facts are its bulleted lines; its instructions name the narration
            bullet, narrate = say(LogBullet()), say(LogNarrateWord())
            facts = [
                line.removeprefix(bullet)
                for line in _last_tool_text(request).splitlines()
                if line.startswith(bullet) and narrate not in line and "[MODE" not in line
            ]
            sentences = [say(FreeBladesAndFire()), *(say(GmFact(fact.rstrip("。."))) for fact in facts)]
            return _say(request, "".join(sentences).rstrip())
        step = "end" if view.battle_decided else "next_round"
        return _say(request, "", ("battle_step", {"step": step}))

    # the battle is over
    outcome = word(view.outcomes[-1], locale) if view.outcomes else ""
    standing = [c for c in party if c.standing]
    if standing and "rest" in offered:
        return _say(request, say(FreeRests(hero)), ("rest", {}))
    if standing:
        closing = say(FreeWon(hero))
        summary = say(FreeWonSummary(hero, outcome))
    else:
        closing = say(FreeLost(hero))
        summary = say(FreeLostSummary(hero, outcome))
    if "end_adventure" in offered:
        return _say(request, closing, ("end_adventure", {"summary": summary}))
    return _say(request, closing)


register_offline_decider("adventure", offline_gm)
