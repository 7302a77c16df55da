"""The offline GM of a scenario: the player's line read as an intent, turned into tool calls.

:func:`scenario_gm` is a deterministic decider (registered by the session as the offline
model of kind ``"scenario"``). It reads the player's last line with
:func:`~gm_engine.adventure.intent.read_intent` against what is in reach, and calls the
tool that does exactly that — or, when the line does not say what to do, which thing, or
which of several ways, it asks back and calls nothing. It never acts for the player: it
takes no decision, casts no spell, grants no bonus and names no target that the line did
not ask for. A missing target is filled in only when there is exactly one candidate
(「話す」 with one person present); the rules' own consequences (a failed flight means the
round is fought; a round that has begun is judged) are the engine's, not its choices.

After a tool's result it narrates from that result: the facts of a battle's NARRATIVE
step, the end of a fight as it actually ended (won, lost, fled), the scene it led to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from gm_engine.adventure.intent import Intent, IntentKind, read_intent
from gm_engine.adventure.story import Story, vocabulary
from gm_engine.combat.actions import CastSpell
from gm_engine.combat.characters import Character
from gm_engine.combat.enemies import Enemy
from gm_engine.combat.spells import HealingWaveMode, Spell
from gm_engine.combat.state import Outcome, Phase
from gm_engine.llm.base import ModelRequest, ModelResponse
from gm_engine.llm.offline import offline_calls
from gm_engine.messages import Message
from gm_engine.messages.texts import (
    GmAskWithOptions,
    GmBattleHelp,
    GmBladesClash,
    GmCanBe,
    GmCannotHere,
    GmCannotNow,
    GmDeclarationTaken,
    GmEnemiesStanding,
    GmFact,
    GmFightFled,
    GmFightLost,
    GmFightWon,
    GmFleeTooLate,
    GmHelp,
    GmNoMagic,
    GmNoOneToFight,
    GmNoOneToFlee,
    GmNoOptions,
    GmNotAmong,
    GmNothingToRestFor,
    GmNotInBattle,
    GmNpcLooks,
    GmOptionChoose,
    GmOptionExamine,
    GmOptionExits,
    GmOptionSeparator,
    GmOptionTake,
    GmOptionTalk,
    GmRests,
    GmSpellHow,
    GmSpellHowMuch,
    GmSpellNotNow,
    GmSpellNotOutside,
    GmSpellOnWhom,
    GmStatusHint,
    GmStoryClosed,
    GmThenClosed,
    GmThenWhat,
    GmUnclear,
    GmUnclearInBattle,
    GmWhatAbout,
    GmWhatDoYouDo,
    GmWhatNow,
    GmWhich,
    GmWhichEnemy,
    GmWhichOf,
    GmWhichSpellCastable,
    GmWhichSpellNone,
    GmWhichSpellOutside,
    GmWhoToHeal,
    LogBullet,
    LogNarrateWord,
    ThingKind,
)


class ScenarioView(Protocol):
    """What the offline GM reads: the story, the fight and the player's last line."""

    @property
    def story(self) -> Story:
        """The scenario in play."""
        ...

    @property
    def party(self) -> tuple[Character, ...]:
        """The fast-combat party (empty under other systems)."""
        ...

    @property
    def enemies(self) -> tuple[Enemy, ...]:
        """The enemies of the fight in progress (empty outside one)."""
        ...

    @property
    def phase(self) -> Phase | None:
        """The fight's pause, or None outside a fight."""
        ...

    @property
    def battle_decided(self) -> bool:
        """Whether the fight in progress has an outcome."""
        ...

    @property
    def outcomes(self) -> tuple[str, ...]:
        """How the finished fights ended (逃走 for a flight)."""
        ...

    @property
    def last_line(self) -> str | None:
        """The player's last line this turn (None at the opening)."""
        ...

    def legal_casts(self) -> list[CastSpell]:
        """The casts the rules allow now."""
        ...


def _say(request: ModelRequest, text: str, *calls: tuple[str, Mapping[str, Any]]) -> ModelResponse:
    return ModelResponse(content=text or None, tool_calls=offline_calls(request, list(calls)))


def _last_call(request: ModelRequest) -> tuple[str | None, str]:
    """The tool whose result is the last message, and that result."""
    last = request.messages[-1] if request.messages else {}
    if last.get("role") != "tool":
        return None, ""
    for message in reversed(request.messages):
        for call in message.get("tool_calls") or ():
            if call.get("id") == last.get("tool_call_id"):
                return str(call["function"]["name"]), str(last.get("content") or "")
    return None, str(last.get("content") or "")


def _offered(request: ModelRequest) -> set[str]:
    return {t.name for t in request.tools}


def _battle_words(view: ScenarioView) -> dict[str, Sequence[str]]:
    words: dict[str, Sequence[str]] = {}
    for enemy in view.enemies:
        if enemy.hp > 0:
            words[f"enemy:{enemy.name}"] = (enemy.name,)
    for pc in view.party:
        words[f"pc:{pc.name}"] = (pc.name, "自分", "myself", "me")
    return words


def options_text(story: Story) -> str:
    """What can be done here, as a short list (in the story's locale)."""
    parts = []
    if story.exits():
        parts.append(story.say(GmOptionExits(story.join([e.label for e in story.exits()]))))
    if story.features():
        parts.append(story.say(GmOptionExamine(story.join([f.label for f in story.features()]))))
    if story.npcs():
        parts.append(story.say(GmOptionTalk(story.join([n.name for n in story.npcs()]))))
    if story.items_here():
        parts.append(story.say(GmOptionTake(story.join([story.item_name(i) for i in story.items_here()]))))
    if story.choices():
        parts.append(story.say(GmOptionChoose(story.join([c.label for c in story.choices()]))))
    return story.say(GmOptionSeparator()).join(parts) or story.say(GmNoOptions())


def scenario_gm(request: ModelRequest, context: object | None) -> ModelResponse:
    """The offline GM (see the module docstring). ``context`` is the session's view."""
    view: ScenarioView = context  # type: ignore[assignment]
    name, result = _last_call(request)
    if name is not None:
        return _follow_up(request, view, name, result)
    line = view.last_line
    if line is None:
        return _say(request, "", ("look_around", {}))
    if view.phase is not None:
        return _battle(request, view, line)
    return _explore(request, view, line)


# -- outside a fight -------------------------------------------------------------------------------


def _ask(story: Story, question: Message | str) -> str:
    """``question`` and, below it, what can be done here."""
    text = question if isinstance(question, str) else story.say(question)
    return story.say(GmAskWithOptions(text, options_text(story)))


def _names(story: Story, keys: Sequence[str]) -> str:
    words = vocabulary(story)
    return story.join([str(words[k][0]) for k in keys if k in words])


def _explore(request: ModelRequest, view: ScenarioView, line: str) -> ModelResponse:
    story = view.story
    intent = read_intent(line, vocabulary(story))
    kind = intent.kind
    offered = _offered(request)
    if kind is IntentKind.HELP:
        return _say(request, _ask(story, GmHelp()))
    if kind is IntentKind.STATUS:
        return (
            _say(request, "", ("show_status", {}))
            if "show_status" in offered
            else _say(request, story.say(GmStatusHint()))
        )
    if kind is IntentKind.LOOK:
        return _say(request, "", ("look_around", {}))
    if kind is IntentKind.REST:
        if "rest" in offered:
            return _say(request, story.say(GmRests()), ("rest", {}))
        return _say(request, _ask(story, GmNothingToRestFor()))
    if kind in (IntentKind.ATTACK, IntentKind.FLEE):
        return _say(request, _ask(story, GmNoOneToFight() if kind is IntentKind.ATTACK else GmNoOneToFlee()))
    if kind is IntentKind.CAST:
        return _cast_outside(request, view, intent)
    if kind is IntentKind.PROCEED:
        return _say(request, _ask(story, GmWhatNow()))
    tool = {
        IntentKind.MOVE: ("move_to", "exit", ThingKind.EXIT),
        IntentKind.EXAMINE: ("examine", "thing", ThingKind.THING),
        IntentKind.TALK: ("talk_to", "npc", ThingKind.PERSON),
        IntentKind.TAKE: ("take_item", "item", ThingKind.ITEM),
        IntentKind.USE: ("use_item", "item", ThingKind.HELD),
        IntentKind.CHOOSE: ("make_choice", "choice", ThingKind.CHOICE),
    }.get(kind)
    if tool is None:  # UNCLEAR
        if intent.candidates:
            return _say(request, _ask(story, GmWhatAbout(_names(story, intent.candidates))))
        return _say(request, _ask(story, GmUnclear(line)))
    name, field, thing_kind = tool
    target = intent.target
    if kind is IntentKind.EXAMINE and target is not None and not target.startswith("feature:"):
        return _examine_other(request, story, target)
    if target is None and not intent.candidates and intent.unknown:
        # The player named something that is not here: never swap in the one thing that is.
        return _say(request, _ask(story, GmNotAmong(intent.unknown, GmCanBe(thing_kind))))
    if target is None and not intent.candidates:
        pool = _pool(story, kind)
        if len(pool) == 1:
            target = pool[0]
        elif not pool:
            return _say(request, _ask(story, GmCannotHere()))
    if target is None:
        names = _names(story, intent.candidates or _pool(story, kind))
        return _say(request, _ask(story, GmWhichOf(GmWhich(thing_kind), names)))
    value = target.split(":", 1)[1]
    args: dict[str, Any] = {field: value}
    if name == "talk_to":
        args["about"] = line
    if name == "use_item":
        args["on"] = line
    if name not in offered:
        return _say(request, _ask(story, GmCannotNow()))
    return _say(request, "", (name, args))


def _pool(story: Story, kind: IntentKind) -> list[str]:
    prefix = {
        IntentKind.MOVE: "exit:",
        IntentKind.EXAMINE: "feature:",
        IntentKind.TALK: "npc:",
        IntentKind.TAKE: "item:",
        IntentKind.USE: "held:",
        IntentKind.CHOOSE: "choice:",
    }[kind]
    return [k for k in vocabulary(story) if k.startswith(prefix)]


def _examine_other(request: ModelRequest, story: Story, target: str) -> ModelResponse:
    kind, key = target.split(":", 1)
    if kind in ("item", "held"):
        item = story.scenario.items[key]
        return _say(request, _ask(story, f"{item.name}: {item.text}"))
    npc = next(n for n in story.npcs() if n.id == key)
    return _say(request, _ask(story, GmNpcLooks(npc.name)))


def _cast_outside(request: ModelRequest, view: ScenarioView, intent: Intent) -> ModelResponse:
    story = view.story
    if not view.party:
        return _say(request, _ask(story, GmNoMagic()))
    if intent.spell is None:
        return _say(request, _ask(story, GmWhichSpellOutside()))
    if "cast_out_of_combat" not in _offered(request) or intent.spell not in ("治癒", "治癒の波動"):
        return _say(request, _ask(story, GmSpellNotOutside(intent.spell)))
    caster = view.party[0].name
    if intent.spell == "治癒":
        named = [p.name for p in view.party if p.name in intent.text]
        targets = named or ([caster] if len(view.party) == 1 else [])
        if len(targets) != 1:
            return _say(request, _ask(story, GmWhoToHeal()))
        return _say(
            request, "", ("cast_out_of_combat", {"caster": caster, "spell": "治癒", "target": targets[0]})
        )
    return _say(request, "", ("cast_out_of_combat", {"caster": caster, "spell": "治癒の波動"}))


# -- in a fight ------------------------------------------------------------------------------------


def _battle(request: ModelRequest, view: ScenarioView, line: str) -> ModelResponse:
    intent = read_intent(line, _battle_words(view), in_battle=True)
    kind = intent.kind
    phase = view.phase
    offered = _offered(request)
    say = view.story.say
    battle_help = say(GmBattleHelp())
    if kind is IntentKind.HELP:
        return _say(request, battle_help)
    if kind in (IntentKind.STATUS, IntentKind.LOOK):
        return _say(request, "", ("show_status", {}))
    if kind is IntentKind.CAST:
        return _cast_in_battle(request, view, intent)
    if kind is IntentKind.FLEE:
        if "flee" in offered:
            return _say(request, "", ("flee", {}))
        if phase is Phase.ROLL:
            return _say(
                request,
                say(GmFleeTooLate()),
                ("battle_step", {"step": "judge"}),
            )
        if phase is Phase.JUDGE:
            return _say(request, "", ("battle_step", {"step": "narrate"}))
    if kind in (IntentKind.ATTACK, IntentKind.PROCEED):
        if phase is Phase.SETUP:
            if intent.target is not None and intent.target.startswith("enemy:") and "target_enemy" in offered:
                return _say(request, "", ("target_enemy", {"enemy": intent.target.split(":", 1)[1]}))
            if intent.candidates:
                names = view.story.join([c.split(":", 1)[1] for c in intent.candidates])
                return _say(request, say(GmWhichEnemy(names)))
            return _say(request, "", ("battle_step", {"step": "roll"}))
        if phase is Phase.ROLL:
            return _say(request, "", ("battle_step", {"step": "judge"}))
        if phase is Phase.JUDGE:
            return _say(request, "", ("battle_step", {"step": "narrate"}))
    if kind in (
        IntentKind.MOVE,
        IntentKind.TAKE,
        IntentKind.TALK,
        IntentKind.USE,
        IntentKind.REST,
        IntentKind.EXAMINE,
        IntentKind.CHOOSE,
    ):
        return _say(request, f"{say(GmNotInBattle())}\n{battle_help}")
    return _say(request, f"{say(GmUnclearInBattle(line))}\n{battle_help}")


def _cast_in_battle(request: ModelRequest, view: ScenarioView, intent: Intent) -> ModelResponse:
    casts = view.legal_casts()
    story = view.story
    if intent.spell is None:
        known = sorted({c.spell.value for c in casts})
        return _say(
            request, story.say(GmWhichSpellCastable(story.join(known)) if known else GmWhichSpellNone())
        )
    matching = [c for c in casts if c.spell.value == intent.spell]
    if not matching:
        return _say(request, f"{story.say(GmSpellNotNow(intent.spell))}\n{story.say(GmBattleHelp())}")
    named = [p.name for p in view.party if p.name in intent.text]
    if any(c.target is not None for c in matching) and named:
        matching = [c for c in matching if c.target in named] or matching
    if any(c.caster for c in matching) and len({c.caster for c in matching}) > 1:
        casters = [p.name for p in view.party if p.name in intent.text]
        matching = [c for c in matching if c.caster in casters] or matching
    modes = {c.mode for c in matching if c.mode is not None}
    if len(modes) > 1:
        want = (
            HealingWaveMode.HALVE
            if re.search(r"半減|halve|half", intent.text, re.I)
            else (
                HealingWaveMode.ENDURE if re.search(r"耐え|残す|endure|survive", intent.text, re.I) else None
            )
        )
        if want is None:
            return _say(
                request, story.say(GmSpellHow(intent.spell, story.join(sorted(m.value for m in modes))))
            )
        matching = [c for c in matching if c.mode is want]
    amounts = {c.amount for c in matching if c.amount is not None}
    if len(amounts) > 1:
        numbers = [int(n) for n in re.findall(r"\d+", intent.text)]
        chosen = [c for c in matching if c.amount in numbers]
        if not chosen:
            return _say(request, story.say(GmSpellHowMuch(intent.spell, min(amounts), max(amounts))))
        matching = chosen
    if len(matching) != 1:
        targets = sorted({c.target for c in matching if c.target is not None})
        return _say(request, story.say(GmSpellOnWhom(intent.spell, story.join(targets))))
    cast = matching[0]
    args: dict[str, Any] = {"caster": cast.caster, "spell": cast.spell.value}
    if cast.target is not None:
        args["target"] = cast.target
    if cast.amount is not None:
        args["amount"] = cast.amount
    if cast.mode is not None:
        args["mode"] = cast.mode.value
    return _say(request, "", ("cast_spell", args))


# -- after a tool -----------------------------------------------------------------------------------


def _follow_up(request: ModelRequest, view: ScenarioView, name: str, result: str) -> ModelResponse:
    story = view.story
    if name == "battle_step" and view.phase is Phase.NARRATIVE:
        # the brief's facts are its bulleted lines; its instructions name the narration
        bullet, narrate = story.say(LogBullet()), story.say(LogNarrateWord())
        facts = [
            line.removeprefix(bullet).rstrip("。.")
            for line in result.splitlines()
            if line.startswith(bullet) and narrate not in line and "[MODE" not in line
        ]
        # the English texts end in a space before the next sentence; the last one is trimmed
        sentences = [story.say(GmBladesClash()), *(story.say(GmFact(fact)) for fact in facts)]
        story_text = "".join(sentences).rstrip()
        step = "end" if view.battle_decided else "next_round"
        return _say(request, story_text, ("battle_step", {"step": step}))
    if name in ("battle_step", "flee") and view.phase is None:
        return _say(request, _after_fight(view))
    if view.phase is Phase.SETUP and name in ("target_enemy", "cast_spell"):
        line = view.last_line or ""
        intent = read_intent(line, _battle_words(view), in_battle=True)
        if name == "target_enemy" and intent.kind is IntentKind.ATTACK:
            return _say(request, "", ("battle_step", {"step": "roll"}))
        return _say(request, story.say(GmDeclarationTaken()))
    if view.phase is not None:
        if name == "show_status":
            standing = [e.name for e in view.enemies if e.hp > 0]
            return _say(request, story.say(GmEnemiesStanding(story.join(standing))))
        return _say(request, story.say(GmWhatDoYouDo()))
    if story.over:
        return _say(request, story.say(GmStoryClosed()))
    return _say(request, story.say(GmWhatDoYouDo()))


def _after_fight(view: ScenarioView) -> str:
    """The closing line of a fight, as it actually ended."""
    outcome = view.outcomes[-1] if view.outcomes else ""
    ending: Message
    if outcome in (Outcome.PC_VICTORY.value, Outcome.NARRATIVE_VICTORY.value):
        ending = GmFightWon()
    elif outcome == Outcome.ENEMY_VICTORY.value:
        ending = GmFightLost()
    else:
        ending = GmFightFled()
    story = view.story
    text = story.say(ending)
    return story.say(GmThenClosed(text) if story.over else GmThenWhat(text))


def spell_names() -> list[str]:
    """The rules' spell names (for help texts and tests)."""
    return [s.value for s in Spell]
