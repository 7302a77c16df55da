"""Scenarios as data: the typed form of a ``scenarios/*.toml`` file and its loader.

A :class:`Scenario` names its game system and holds scenes (descriptions, exits,
choices, things to examine, NPCs, items to take, items to use), checks, encounters
(fast-combat enemies, under the fast-combat rules only), flags and endings. Every
player-facing text is display text (Japanese first); every reference is checked when
the file is loaded (:func:`load_scenario`): exits lead to existing scenes, outcomes name
existing scenes, items and endings, every flag a condition reads is set somewhere, and
every scene and ending can be reached from the start. A broken file is refused with a
:class:`ScenarioError` that says which file, which place and what is wrong.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gm_engine.combat.enemies import Difficulty, EncounterKind
from gm_engine.dice.result import Locale
from gm_engine.messages import DEFAULT_LOCALE
from gm_engine.messages.texts import NoSuchScenario


class ScenarioError(ValueError):
    """A scenario file cannot be read, or it breaks the schema or one of its references."""


class UnknownScenarioError(ScenarioError):
    """No shipped scenario has the id ``scenario_id``; ``known`` are the ids there are;
    ``message`` says it in the player's language (the text of the exception is English)."""

    def __init__(self, scenario_id: str, known: tuple[str, ...]) -> None:
        super().__init__(f"no scenario {scenario_id!r}; known: {', '.join(known)}")
        self.scenario_id = scenario_id
        self.known = known
        self.message = NoSuchScenario(scenario_id, ", ".join(known))


class GameSystem(StrEnum):
    """The rules a scenario is played under; the value is the dice system of its checks."""

    FAST_COMBAT = "FastCombat"  # 高速戦闘ルール: 3d6 行為判定, fights with the combat engine
    CTHULHU7 = "Cthulhu7th"  # CC / CBR against an investigator's skills
    ONE_RING2 = "TheOneRing2nd"  # nRGx against a target number with a skill's success dice

    @property
    def dice_system(self) -> str:
        """The dice engine's system id for this game's checks."""
        return "DiceBot" if self is GameSystem.FAST_COMBAT else self.value


class _Data(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Outcome(_Data):
    """What happens: a text shown, flags set, items given, a scene moved to or an ending."""

    text: str = ""
    set: tuple[str, ...] = ()
    give: tuple[str, ...] = ()
    goto: str | None = None
    ending: str | None = None


class Check(_Data):
    """A roll the engine makes: 3d6 >= ``target`` (fast combat), CC <= the skill (or CBR
    against two skills; ``difficulty`` ハード or イクストリーム asks that level), or the
    skill's success dice against ``target`` as TN (The One Ring)."""

    label: str = Field(min_length=1)
    skill: str | None = None
    second_skill: str | None = None
    target: int | None = Field(default=None, ge=3, le=30)
    difficulty: str = "レギュラー"
    success: Outcome
    failure: Outcome

    @model_validator(mode="after")
    def _known_difficulty(self) -> Check:
        if self.difficulty not in ("レギュラー", "ハード", "イクストリーム"):
            raise ValueError(
                f"difficulty must be レギュラー, ハード or イクストリーム, not {self.difficulty!r}"
            )
        return self


class Condition(_Data):
    """Flags that must be set (``requires``), flags that must not (``unless``), items held."""

    requires: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    needs_item: tuple[str, ...] = ()


class Exit(Condition):
    """A way out of a scene; ``blocked`` is shown when the condition fails (a ``hidden`` exit
    is not shown at all until it holds); a ``check`` must pass to get through (its failure
    outcome applies instead)."""

    to: str
    label: str = Field(min_length=1)
    words: tuple[str, ...] = ()
    hidden: bool = False
    blocked: str = "今はそちらへは行けない。"
    check: Check | None = None


class Feature(Condition):
    """A thing to examine: its text, or a check when it has one (rolled once; later looks
    repeat the text); ``outcome`` applies on the first look without a check."""

    id: str
    label: str = Field(min_length=1)
    words: tuple[str, ...] = ()
    text: str = Field(min_length=1)
    check: Check | None = None
    outcome: Outcome | None = None


class Talk(Condition):
    """One thing an NPC says: the first whose condition holds and that is not yet said
    (or whose ``about`` words the player used)."""

    about: tuple[str, ...] = ()
    text: str = Field(min_length=1)
    outcome: Outcome | None = None
    check: Check | None = None


class Npc(_Data):
    """Someone to talk to."""

    id: str
    name: str = Field(min_length=1)
    words: tuple[str, ...] = ()
    idle: str = Field(min_length=1, description="what is said when there is nothing new")
    talks: tuple[Talk, ...] = ()


class Choice(Condition):
    """A decision the scene offers (e.g. 取引に応じる); taken only when the player names it."""

    id: str
    label: str = Field(min_length=1)
    words: tuple[str, ...] = ()
    outcome: Outcome = Outcome()
    check: Check | None = None


class Use(Condition):
    """Using an item in this scene (``on``: words of what it is used on, optional)."""

    item: str
    on: tuple[str, ...] = ()
    outcome: Outcome = Outcome()
    check: Check | None = None


class Encounter(_Data):
    """A fight when the scene is first entered (fast-combat rules only): the helper's kind,
    the enemies' name, §3.3 adjustments, and what follows a win, a loss or a flight."""

    kind: EncounterKind
    enemy: str = Field(min_length=1, max_length=16)
    difficulty: tuple[Difficulty, ...] = ()
    intro: str = Field(min_length=1)
    flee_target: int = Field(default=10, ge=3, le=18)
    win: Outcome
    lose: Outcome
    flee: Outcome


class Scene(_Data):
    """A place: its description, what is there, and the ways on."""

    title: str = Field(min_length=1)
    text: str = Field(min_length=1)
    rest: bool = False
    ending: str | None = None
    exits: tuple[Exit, ...] = ()
    features: tuple[Feature, ...] = ()
    npcs: tuple[Npc, ...] = ()
    items: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()
    uses: tuple[Use, ...] = ()
    encounter: Encounter | None = None


class Item(_Data):
    """Something the character can carry."""

    name: str = Field(min_length=1)
    words: tuple[str, ...] = ()
    text: str = Field(min_length=1)


class Ending(_Data):
    """One way the adventure ends."""

    title: str = Field(min_length=1)
    text: str = Field(min_length=1)


class Occupation(_Data):
    """A guided choice of character (an investigator's occupation, a hero's calling): its
    skills (percentages for Cthulhu7th, success dice for The One Ring) and hit points."""

    name: str = Field(min_length=1)
    text: str = Field(min_length=1)
    skills: dict[str, int]
    hp: int = Field(ge=1, le=99)


class Creation(_Data):
    """The guided creation of a non-fantasy character: occupations to choose from, then
    ``picks`` extra skills from ``extras``, each set to ``extra_value`` (if higher)."""

    occupations: tuple[Occupation, ...] = Field(min_length=1)
    extras: tuple[str, ...] = ()
    picks: int = Field(default=0, ge=0, le=5)
    extra_value: int = Field(default=0, ge=0, le=99)
    target_number: int = Field(default=14, ge=1, le=30, description="The One Ring: the TN of every check")


class Scenario(_Data):
    """A whole scenario (see the module docstring)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str = Field(min_length=1)
    system: GameSystem
    intro: str = Field(min_length=1)
    brief: str = Field(min_length=1, description="GM-only notes: what is going on behind the scenes")
    start: str
    recommended_rank: str = "駆け出し"
    creation: Creation | None = None
    scenes: dict[str, Scene]
    items: dict[str, Item] = {}
    endings: dict[str, Ending]
    en: dict[str, str] = Field(
        default={},
        description="English for the player's screen under GM_LOCALE=en: each display text "
        "of the file (a title, a name, a skill, a line) to its English form",
    )

    @model_validator(mode="after")
    def _references(self) -> Scenario:
        problems = list(_reference_problems(self)) + list(_translation_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def checks(self) -> Iterator[tuple[str, Check]]:
        """Every check, with where it is."""
        for where, holder in _holders(self):
            check = holder.check if isinstance(holder, Exit | Feature | Talk | Choice | Use) else None
            if check is not None:
                yield where, check


def _holders(scenario: Scenario) -> Iterator[tuple[str, Exit | Feature | Talk | Choice | Use]]:
    for sid, scene in scenario.scenes.items():
        for exit_ in scene.exits:
            yield f"scenes.{sid}.exits({exit_.to})", exit_
        for feature in scene.features:
            yield f"scenes.{sid}.features({feature.id})", feature
        for npc in scene.npcs:
            for i, talk in enumerate(npc.talks):
                yield f"scenes.{sid}.npcs({npc.id}).talks[{i}]", talk
        for choice in scene.choices:
            yield f"scenes.{sid}.choices({choice.id})", choice
        for use in scene.uses:
            yield f"scenes.{sid}.uses({use.item})", use


def outcomes(scenario: Scenario) -> Iterator[tuple[str, str, Outcome]]:
    """Every outcome: (scene it happens in, where, outcome)."""
    for sid, scene in scenario.scenes.items():
        fight = scene.encounter
        if fight is not None:
            for name, outcome in (("win", fight.win), ("lose", fight.lose), ("flee", fight.flee)):
                yield sid, f"scenes.{sid}.encounter.{name}", outcome
    for where, holder in _holders(scenario):
        sid = where.split(".")[1]
        check = holder.check
        if check is not None:
            yield sid, f"{where}.check.success", check.success
            yield sid, f"{where}.check.failure", check.failure
        own = holder.outcome if isinstance(holder, Feature | Talk | Choice | Use) else None
        if own is not None:
            yield sid, f"{where}.outcome", own


def _reference_problems(scenario: Scenario) -> Iterator[str]:
    scenes, endings, items = scenario.scenes, scenario.endings, scenario.items
    if scenario.start not in scenes:
        yield f"start: no scene {scenario.start!r}"
    fast = scenario.system is GameSystem.FAST_COMBAT
    if not fast and scenario.creation is None:
        yield f"creation: a {scenario.system.value} scenario needs its [creation] choices"
    flags_set: set[str] = set()
    for _, where, outcome in outcomes(scenario):
        flags_set.update(outcome.set)
        if outcome.goto is not None and outcome.goto not in scenes:
            yield f"{where}.goto: no scene {outcome.goto!r}"
        if outcome.ending is not None and outcome.ending not in endings:
            yield f"{where}.ending: no ending {outcome.ending!r}"
        yield from (f"{where}.give: no item {i!r}" for i in outcome.give if i not in items)
    for sid, scene in scenes.items():
        if scene.ending is not None and scene.ending not in endings:
            yield f"scenes.{sid}.ending: no ending {scene.ending!r}"
        if scene.encounter is not None and not fast:
            yield f"scenes.{sid}.encounter: fights need the fast-combat rules, not {scenario.system.value}"
        if scene.encounter is not None and scene.encounter.lose.ending is None:
            yield f"scenes.{sid}.encounter.lose: a lost fight leaves the party fallen; it must name an ending"
        yield from (f"scenes.{sid}.items: no item {i!r}" for i in scene.items if i not in items)
        for exit_ in scene.exits:
            if exit_.to not in scenes:
                yield f"scenes.{sid}.exits: no scene {exit_.to!r}"
        for use in scene.uses:
            if use.item not in items:
                yield f"scenes.{sid}.uses: no item {use.item!r}"
    for where, holder in _holders(scenario):
        for flag in (*holder.requires, *holder.unless):
            if flag not in flags_set:
                yield f"{where}: the flag {flag!r} is never set"
        yield from (f"{where}.needs_item: no item {i!r}" for i in holder.needs_item if i not in items)
        check = holder.check
        if check is not None:
            yield from _check_problems(scenario, where, check)
    if scenario.start in scenes:
        reached_scenes, reached_endings = reachable(scenario)
        yield from (
            f"scenes.{s}: cannot be reached from {scenario.start!r}"
            for s in scenes
            if s not in reached_scenes
        )
        yield from (f"endings.{e}: cannot be reached" for e in endings if e not in reached_endings)


def _check_problems(scenario: Scenario, where: str, check: Check) -> Iterator[str]:
    system = scenario.system
    if system is GameSystem.FAST_COMBAT:
        if check.target is None or check.skill is not None:
            yield f"{where}.check: a 3d6 行為判定 has a target (3-18) and no skill"
        return
    if check.skill is None:
        yield f"{where}.check: a {system.value} check names a skill"
        return
    creation = scenario.creation
    known = {s for o in creation.occupations for s in o.skills} | set(creation.extras) if creation else set()
    for skill in (check.skill, check.second_skill):
        if skill is not None and skill not in known:
            yield f"{where}.check: no occupation or extra has the skill {skill!r}"
    if system is GameSystem.ONE_RING2 and check.second_skill is not None:
        yield f"{where}.check: a The One Ring check has one skill"


#: The fields whose text the player reads (and the skills' names, which the checks name
#: too); ids, flags, the words a line is matched by and the rules' own values are not.
DISPLAY_FIELDS = frozenset(
    {"title", "text", "intro", "blocked", "label", "name", "idle", "enemy", "skill", "second_skill", "extras"}
)


def display_texts(data: object, field: str = "") -> Iterator[str]:
    """Every display text in ``data`` (a scenario as plain data, as ``model_dump`` gives it),
    the skills' names included, the ``en`` table's not."""
    if isinstance(data, str):
        if field in DISPLAY_FIELDS:
            yield data
    elif isinstance(data, dict):
        for name, value in data.items():
            if field == "skills":
                yield str(name)
            if name != "en":
                yield from display_texts(value, str(name))
    elif isinstance(data, list | tuple):
        for value in data:
            yield from display_texts(value, field)


def _translated(data: object, english: dict[str, str], field: str = "") -> object:
    if isinstance(data, str):
        return english.get(data, data) if field in DISPLAY_FIELDS else data
    if isinstance(data, dict):
        return {
            (english.get(name, name) if field == "skills" else name): _translated(value, english, str(name))
            for name, value in data.items()
        }
    if isinstance(data, list | tuple):
        return [_translated(value, english, field) for value in data]
    return data


def _translation_problems(scenario: Scenario) -> Iterator[str]:
    if not scenario.en:
        return
    texts = set(display_texts(scenario.model_dump(mode="json")))
    for japanese, english in scenario.en.items():
        if japanese not in texts:
            yield f"en: {japanese!r} is no display text of the scenario"
        elif not english.strip():
            yield f"en: {japanese!r} has an empty English text"


def localized(scenario: Scenario, locale: Locale) -> Scenario:
    """``scenario`` as the player of ``locale`` reads it: under ``en`` every display text
    that the file's ``en`` table gives an English form has it (the skills in the checks and
    the sheets alike); the words lines are matched by stay as they are."""
    if locale == DEFAULT_LOCALE or not scenario.en:
        return scenario
    data = scenario.model_dump(mode="json")
    english = dict(data.pop("en"))
    return Scenario.model_validate(_translated(data, english))


def reachable(scenario: Scenario) -> tuple[set[str], set[str]]:
    """The scenes and endings reachable from the start, conditions aside."""
    seen: set[str] = set()
    endings: set[str] = set()
    by_scene: dict[str, list[Outcome]] = {}
    for sid, _, outcome in outcomes(scenario):
        by_scene.setdefault(sid, []).append(outcome)
    todo = [scenario.start]
    while todo:
        sid = todo.pop()
        if sid in seen or sid not in scenario.scenes:
            continue
        seen.add(sid)
        scene = scenario.scenes[sid]
        if scene.ending is not None:
            endings.add(scene.ending)
        todo.extend(e.to for e in scene.exits)
        for outcome in by_scene.get(sid, []):
            if outcome.goto is not None:
                todo.append(outcome.goto)
            if outcome.ending is not None:
                endings.add(outcome.ending)
    return seen, endings


def scenarios_dir() -> Path:
    """Where the shipped scenarios are: ``scenarios/`` beside the package in a checkout,
    else the wheel's ``gm_engine/scenarios``."""
    source = Path(__file__).resolve().parents[2] / "scenarios"
    if source.is_dir():
        return source
    packaged = importlib.resources.files("gm_engine").joinpath("scenarios")
    return Path(str(packaged))


def load_scenario(path: Path) -> Scenario:
    """Read and check one scenario file.

    Raises:
        ScenarioError: the file is unreadable, not TOML, or breaks the schema or a reference.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"{path.name}: cannot read the scenario: {exc}") from None
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'scenario'}: {err['msg']}" for err in exc.errors()
        )
        raise ScenarioError(f"{path.name}: {problems}") from None


def shipped_scenarios() -> dict[str, Scenario]:
    """Every shipped scenario by id.

    Raises:
        ScenarioError: a shipped file is broken.
    """
    found = {}
    for path in sorted(scenarios_dir().glob("*.toml")):
        scenario = load_scenario(path)
        found[scenario.id] = scenario
    return found


def get_scenario(scenario_id: str, locale: Locale = DEFAULT_LOCALE) -> Scenario:
    """The shipped scenario ``scenario_id``, its texts in ``locale`` (:func:`localized`).

    Raises:
        UnknownScenarioError: no such scenario (it lists the known ones).
    """
    known = shipped_scenarios()
    if scenario_id not in known:
        raise UnknownScenarioError(scenario_id, tuple(sorted(known)))
    return localized(known[scenario_id], locale)
