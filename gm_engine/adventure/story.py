"""A scenario in play: where the character is, what is known and held, and how it ends.

:class:`Story` applies the player's moves to a :class:`~gm_engine.adventure.scenario.Scenario`
(move, look, examine, talk, take, use, choose) and returns a :class:`StoryStep`: the display
text the engine wrote, the checks it rolled, whether a fight begins, and whether the
adventure ended. Conditions are checked first; a move that is not legal now raises
:class:`StoryError` and changes nothing. Checks are rolled by a :class:`CheckRoller`,
which turns a scenario check into the dice command of the scenario's system (3d6 行為判定,
CC / CBR, nRGx) and rolls it through the dice engine on the session's one source.

The state is a frozen :class:`StoryState`; its hash goes into the session's state events.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from gm_engine.adventure.scenario import (
    Check,
    Choice,
    Condition,
    Encounter,
    Exit,
    Feature,
    GameSystem,
    Npc,
    Outcome,
    Scenario,
    Scene,
    Talk,
    Use,
)
from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import DiceSource
from gm_engine.dice.systems.registry import get_system
from gm_engine.messages import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import (
    CheckRolled,
    EndingReached,
    ItemGiven,
    ItemTaken,
    ItemUseless,
    ListSeparator,
    NpcSays,
    SceneChoices,
    SceneExits,
    SceneFeatures,
    SceneHeld,
    SceneItems,
    SceneMovedTo,
    ScenePeople,
    SceneTitle,
    SheetLine,
)


class StoryError(ValueError):
    """A move that the scenario does not allow now (no such exit, thing, person or item)."""


class Sheet(BaseModel):
    """A non-fantasy character: an investigator (skills in percent) or a hero (skills in
    success dice), with hit points."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    occupation: str
    skills: dict[str, int]
    hp: int
    target_number: int = 14

    def status_line(self, system: GameSystem, locale: Locale = DEFAULT_LOCALE) -> str:
        """One compact line: name, occupation, HP and the skills."""
        unit = "%" if system is GameSystem.CTHULHU7 else "d"
        skills = " ".join(f"{k}{v}{unit}" for k, v in self.skills.items())
        tn = f" TN{self.target_number}" if system is GameSystem.ONE_RING2 else ""
        return render(SheetLine(self.name, self.occupation, self.hp, tn, skills), locale)


class StoryState(BaseModel):
    """Where the character is, the flags set, the items held and the ending (if over)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scene: str
    flags: frozenset[str] = frozenset()
    items: tuple[str, ...] = ()
    ending: str | None = None

    def state_hash(self) -> str:
        """SHA-256 of the state."""
        data = {
            "scene": self.scene,
            "flags": sorted(self.flags),
            "items": list(self.items),
            "ending": self.ending,
        }
        return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class CheckResult:
    """A check the engine rolled: the scenario's label, the dice result and the verdict."""

    label: str
    result: RollResult
    success: bool


@dataclass(frozen=True)
class StoryStep:
    """What one move did: the text shown, the checks rolled, a fight that begins (the
    scene's encounter) and whether the adventure ended."""

    text: str
    checks: tuple[CheckResult, ...] = ()
    encounter: Encounter | None = None
    ended: bool = False


SkillOf = Callable[[str], int]


class CheckRoller:
    """Turns a scenario check into its system's dice command and rolls it on ``source``;
    ``skill_of(name)`` gives the character's skill (percent or success dice)."""

    def __init__(
        self, system: GameSystem, source: DiceSource, skill_of: SkillOf, locale: Locale = DEFAULT_LOCALE
    ) -> None:
        self.system = system
        self.source = source
        self.skill_of = skill_of
        self.locale = locale  # of the dice result's text
        self.target_number = 14

    def command(self, check: Check) -> str:
        """The dice command of ``check`` for this character."""
        if self.system is GameSystem.FAST_COMBAT:
            return f"3D6>={check.target}"
        skill = self.skill_of(check.skill or "")
        if self.system is GameSystem.CTHULHU7:
            divisor = {"レギュラー": 1, "ハード": 2, "イクストリーム": 5}[check.difficulty]
            if check.second_skill is not None:
                return f"CBR({skill // divisor},{self.skill_of(check.second_skill) // divisor})"
            return f"CC<={max(1, skill // divisor)}"
        target = check.target if check.target is not None else self.target_number
        return f"{target}RG{skill}"

    def roll(self, check: Check) -> CheckResult:
        """Roll ``check`` through the dice engine."""
        command = self.command(check)
        result = evaluate(
            command, get_system(self.system.dice_system), source=self.source, locale=self.locale
        )
        if result is None:  # the commands above are all the system's own
            raise StoryError(f"the dice engine did not read {command!r}")
        return CheckResult(label=check.label, result=result, success=result.success)


@dataclass
class _Turn:
    texts: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    encounter: Encounter | None = None


class Story:
    """One scenario in play (see the module docstring). The engine's frame around the
    scenario's prose (the headings, the lists of what is in reach, 'you take …') is in
    ``locale``; the scenario's own words stay in its language."""

    def __init__(
        self,
        scenario: Scenario,
        roller: CheckRoller,
        state: StoryState | None = None,
        locale: Locale = DEFAULT_LOCALE,
    ) -> None:
        self.scenario = scenario
        self.roller = roller
        self.locale = locale
        self.state = state or StoryState(scene=scenario.start)
        self.fight: str | None = None  # the scene whose encounter is being fought

    # -- reading --------------------------------------------------------------------------------

    @property
    def scene(self) -> Scene:
        """The scene the character is in."""
        return self.scenario.scenes[self.state.scene]

    @property
    def over(self) -> bool:
        """Whether an ending was reached."""
        return self.state.ending is not None

    def holds(self, condition: Condition) -> bool:
        """Whether ``condition`` holds now."""
        flags = self.state.flags
        return (
            all(f in flags for f in condition.requires)
            and not any(f in flags for f in condition.unless)
            and all(i in self.state.items for i in condition.needs_item)
        )

    def exits(self) -> tuple[Exit, ...]:
        """The exits shown now (a blocked one too, trying it says why; not a hidden one)."""
        return tuple(e for e in self.scene.exits if not e.hidden or self.holds(e))

    def features(self) -> tuple[Feature, ...]:
        """The things to examine now."""
        return tuple(f for f in self.scene.features if self.holds(f))

    def npcs(self) -> tuple[Npc, ...]:
        """The people here."""
        return self.scene.npcs

    def items_here(self) -> tuple[str, ...]:
        """The items lying here, not yet taken."""
        return tuple(i for i in self.scene.items if f"_taken:{i}" not in self.state.flags)

    def choices(self) -> tuple[Choice, ...]:
        """The decisions the scene offers now."""
        return tuple(
            c for c in self.scene.choices if self.holds(c) and f"_chose:{c.id}" not in self.state.flags
        )

    def usable(self) -> tuple[str, ...]:
        """The items held."""
        return self.state.items

    def item_name(self, item: str) -> str:
        """The display name of an item."""
        return self.scenario.items[item].name

    def say(self, message: Message) -> str:
        """``message`` in the story's locale."""
        return render(message, self.locale)

    def join(self, names: Sequence[str]) -> str:
        """Names on one line, as the locale lists them."""
        return self.say(ListSeparator()).join(names)

    def describe(self) -> str:
        """The scene as the engine shows it: its text and what can be done here."""
        scene = self.scene
        lines = [self.say(SceneTitle(scene.title)), scene.text]
        if self.exits():
            lines.append(self.say(SceneExits(self.join([e.label for e in self.exits()]))))
        if self.features():
            lines.append(self.say(SceneFeatures(self.join([f.label for f in self.features()]))))
        if self.npcs():
            lines.append(self.say(ScenePeople(self.join([n.name for n in self.npcs()]))))
        if self.items_here():
            lines.append(self.say(SceneItems(self.join([self.item_name(i) for i in self.items_here()]))))
        if self.choices():
            lines.append(self.say(SceneChoices(self.join([c.label for c in self.choices()]))))
        if self.state.items:
            lines.append(self.say(SceneHeld(self.join([self.item_name(i) for i in self.state.items]))))
        return "\n".join(lines)

    # -- moves -------------------------------------------------------------------------------------

    def look(self) -> StoryStep:
        """Describe the scene again."""
        self._live()
        return StoryStep(text=self.describe())

    def move(self, to: str) -> StoryStep:
        """Take the exit to scene ``to``.

        Raises:
            StoryError: no such exit here.
        """
        self._live()
        exit_ = next((e for e in self.exits() if e.to == to), None)
        if exit_ is None:
            raise StoryError(f"no exit to {to!r} here; exits: {', '.join(e.to for e in self.exits())}")
        if not self.holds(exit_):
            return StoryStep(text=exit_.blocked)
        turn = _Turn()
        if exit_.check is not None and not self._roll(exit_.check, turn):
            return self._step(turn)
        turn.texts.append(self.say(SceneMovedTo(exit_.label)))
        self._enter(to, turn)
        return self._step(turn)

    def examine(self, feature_id: str) -> StoryStep:
        """Examine a thing here (its check is rolled the first time).

        Raises:
            StoryError: no such thing here now.
        """
        self._live()
        feature = next((f for f in self.features() if f.id == feature_id), None)
        if feature is None:
            raise StoryError(f"nothing called {feature_id!r} to examine here")
        turn = _Turn(texts=[feature.text])
        marker = f"_seen:{self.state.scene}:{feature.id}"
        if marker not in self.state.flags:
            self._mark(marker)
            if feature.check is not None:
                self._roll(feature.check, turn)
            elif feature.outcome is not None:
                self._apply(feature.outcome, turn)
        return self._step(turn)

    def talk(self, npc_id: str, about: str = "") -> StoryStep:
        """Talk to someone here; ``about`` is the player's words (a topic may match them).

        Raises:
            StoryError: nobody of that id here.
        """
        self._live()
        npc = next((n for n in self.npcs() if n.id == npc_id), None)
        if npc is None:
            raise StoryError(f"nobody called {npc_id!r} here")
        said = self.state.flags
        open_talks = [(i, t) for i, t in enumerate(npc.talks) if self.holds(t)]
        chosen: tuple[int, Talk] | None = None
        if about:
            chosen = next(((i, t) for i, t in open_talks if any(w in about for w in t.about)), None)
        if chosen is None:
            chosen = next(((i, t) for i, t in open_talks if f"_said:{npc.id}:{i}" not in said), None)
        if chosen is None:
            return StoryStep(text=self.say(NpcSays(npc.name, npc.idle)))
        index, talk = chosen
        turn = _Turn(texts=[self.say(NpcSays(npc.name, talk.text))])
        marker = f"_said:{npc.id}:{index}"
        first = marker not in said
        self._mark(marker)
        if first and talk.check is not None:
            self._roll(talk.check, turn)
        elif first and talk.outcome is not None:
            self._apply(talk.outcome, turn)
        return self._step(turn)

    def take(self, item: str) -> StoryStep:
        """Pick up an item lying here.

        Raises:
            StoryError: no such item here.
        """
        self._live()
        if item not in self.items_here():
            raise StoryError(f"no {item!r} lying here")
        self._mark(f"_taken:{item}")
        self.state = self.state.model_copy(update={"items": (*self.state.items, item)})
        data = self.scenario.items[item]
        return StoryStep(text=self.say(ItemTaken(data.name, data.text)))

    def use(self, item: str, on: str = "") -> StoryStep:
        """Use a held item here (``on``: the player's words of what it is used on).

        Raises:
            StoryError: the item is not held.
        """
        self._live()
        if item not in self.state.items:
            raise StoryError(f"{item!r} is not held")
        rule = next(
            (
                u
                for u in self.scene.uses
                if u.item == item and self.holds(u) and (not u.on or not on or any(w in on for w in u.on))
            ),
            None,
        )
        if rule is None or f"_used:{self.state.scene}:{item}" in self.state.flags:
            return StoryStep(text=self.say(ItemUseless(self.item_name(item))))
        self._mark(f"_used:{self.state.scene}:{item}")
        return self._resolve(rule, rule.outcome)

    def choose(self, choice_id: str) -> StoryStep:
        """Take one of the scene's decisions.

        Raises:
            StoryError: no such decision open now.
        """
        self._live()
        choice = next((c for c in self.choices() if c.id == choice_id), None)
        if choice is None:
            raise StoryError(f"no decision {choice_id!r} open here")
        self._mark(f"_chose:{choice.id}")
        return self._resolve(choice, choice.outcome)

    def fight_over(self, how: str) -> StoryStep:
        """The fight of the current scene ended: ``how`` is win, lose or flee.

        Raises:
            StoryError: no fight is going on, or ``how`` is none of the three.
        """
        if self.fight is None:
            raise StoryError("no fight is going on")
        scene = self.scenario.scenes[self.fight]
        fight = scene.encounter
        if fight is None or how not in ("win", "lose", "flee"):
            raise StoryError(f"a fight ends in win, lose or flee, not {how!r}")
        turn = _Turn()
        if how == "win":
            self._mark(f"_won:{self.fight}")
        self.fight = None
        self._apply({"win": fight.win, "lose": fight.lose, "flee": fight.flee}[how], turn)
        return self._step(turn)

    # -- inner workings --------------------------------------------------------------------------

    def _live(self) -> None:
        if self.over:
            raise StoryError("the adventure is over")
        if self.fight is not None:
            raise StoryError("a fight is going on")

    def _resolve(self, holder: Choice | Use, outcome: Outcome) -> StoryStep:
        turn = _Turn()
        if holder.check is not None:
            self._roll(holder.check, turn)
        else:
            self._apply(outcome, turn)
        return self._step(turn)

    def _mark(self, flag: str) -> None:
        self.state = self.state.model_copy(update={"flags": self.state.flags | {flag}})

    def _roll(self, check: Check, turn: _Turn) -> bool:
        result = self.roller.roll(check)
        turn.checks.append(result)
        turn.texts.append(self.say(CheckRolled(check.label, result.result.text)))
        self._apply(check.success if result.success else check.failure, turn)
        return result.success

    def _apply(self, outcome: Outcome, turn: _Turn) -> None:
        if outcome.text:
            turn.texts.append(outcome.text)
        if outcome.set:
            self.state = self.state.model_copy(update={"flags": self.state.flags | set(outcome.set)})
        for item in outcome.give:
            if item not in self.state.items:
                self.state = self.state.model_copy(update={"items": (*self.state.items, item)})
                turn.texts.append(self.say(ItemGiven(self.item_name(item))))
        if outcome.ending is not None:
            self._end(outcome.ending, turn)
        elif outcome.goto is not None:
            self._enter(outcome.goto, turn)

    def _enter(self, scene_id: str, turn: _Turn) -> None:
        self.state = self.state.model_copy(update={"scene": scene_id})
        scene = self.scene
        if scene.ending is not None:
            turn.texts.append(f"{self.say(SceneTitle(scene.title))}\n{scene.text}")
            self._end(scene.ending, turn)
            return
        turn.texts.append(self.describe())
        if scene.encounter is not None and f"_won:{scene_id}" not in self.state.flags:
            self.fight = scene_id
            turn.encounter = scene.encounter
            turn.texts.append(scene.encounter.intro)

    def _end(self, ending: str, turn: _Turn) -> None:
        self.state = self.state.model_copy(update={"ending": ending})
        data = self.scenario.endings[ending]
        turn.texts.append(self.say(EndingReached(data.title, data.text)))

    def _step(self, turn: _Turn) -> StoryStep:
        return StoryStep(
            text="\n".join(turn.texts),
            checks=tuple(turn.checks),
            encounter=turn.encounter,
            ended=self.over,
        )


def vocabulary(story: Story) -> dict[str, Sequence[str]]:
    """Words of each thing in reach, keyed ``kind:id`` (exit, feature, npc, item, held, choice)."""
    words: dict[str, Sequence[str]] = {}
    for e in story.exits():
        target = story.scenario.scenes[e.to]
        words[f"exit:{e.to}"] = (e.label, *e.words, target.title)
    for f in story.features():
        words[f"feature:{f.id}"] = (f.label, *f.words)
    for n in story.npcs():
        words[f"npc:{n.id}"] = (n.name, *n.words)
    for i in story.items_here():
        item = story.scenario.items[i]
        words[f"item:{i}"] = (item.name, *item.words)
    for i in story.usable():
        item = story.scenario.items[i]
        words[f"held:{i}"] = (item.name, *item.words)
    for c in story.choices():
        words[f"choice:{c.id}"] = (c.label, *c.words)
    for u in story.scene.uses:
        if u.on:
            words.setdefault(f"use_on:{u.item}", u.on)
    return words


__all__ = [
    "CheckResult",
    "CheckRoller",
    "Sheet",
    "Story",
    "StoryError",
    "StoryState",
    "StoryStep",
    "vocabulary",
]
