"""The lines the combat engine writes about a battle: a spell declared, a slot spent, an
enemy's 再生 at SETUP, a note of the judge (【蘇生】, 【崩壊】, 【予見】 …).

Each line is a message of the catalogue's ``combat.engine`` table. The engine writes it in
Japanese (:func:`written`) into the battle's state and a step's events, as the rules
document words them, so that a state's JSON, its hash and a recorded transcript never
depend on the player's locale. :func:`read_line` reads such a line back into its message
(by the Japanese text's own shape), so that the screen can show it in another locale;
:func:`gm_engine.combat.render.engine_line` does that.
"""

from __future__ import annotations

import re
import string
import typing

from gm_engine.messages import DEFAULT_LOCALE, Message, catalogue, render
from gm_engine.messages import texts as t

#: Every line the engine writes into a state or an event, in the order they are tried.
ENGINE_LINES: tuple[type[Message], ...] = (
    t.EngineSituational,
    t.EngineTarget,
    t.EngineEnemyTarget,
    t.EngineRolled,
    t.EngineJudged,
    t.EngineRoundBegins,
    t.EngineBattleEnded,
    t.EngineFightRequested,
    t.EngineNarrativeResolved,
    t.EngineRegeneration,
    t.EngineSlotSpent,
    t.EngineOvercast,
    t.EngineLimitBreak,
    t.EngineCastAt,
    t.EngineCast,
    t.EngineSanctuaryDropsBonus,
    t.EngineCollapseChannelled,
    t.EngineForesightRerolled,
    t.EngineReviveOverturns,
    t.EngineReviveOverturned,
    t.EngineReviveWard,
    t.EngineCheckRerollSurvived,
    t.EngineCheckRerollDied,
    t.EngineCollapseFizzled,
    t.EngineHealOnDead,
)


def written(message: Message) -> str:
    """``message`` as the engine writes it (Japanese, the rules document's words)."""
    return render(message, DEFAULT_LOCALE)


#: Each line's pattern (made at its first reading) by the message's key.
_SHAPES: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {}


def _shape(kind: type[Message]) -> tuple[re.Pattern[str], frozenset[str]]:
    """The Japanese text of ``kind`` as a pattern with a group per parameter, and the
    parameters that are whole numbers."""
    known = _SHAPES.get(kind.key)
    if known is not None:
        return known
    hints = typing.get_type_hints(kind)
    numbers = frozenset(name for name in kind.field_names if hints.get(name) is int)
    pattern: list[str] = []
    seen: set[str] = set()
    for literal, name, _spec, _conversion in string.Formatter().parse(catalogue(DEFAULT_LOCALE)[kind.key]):
        pattern.append(re.escape(literal))
        if not name:
            continue
        if name in seen:  # the same value written twice (【限界突破】's amount)
            pattern.append(f"(?P={name})")
        else:
            seen.add(name)
            pattern.append(f"(?P<{name}>-?[0-9]+)" if name in numbers else f"(?P<{name}>.*?)")
    shape = re.compile("".join(pattern), re.DOTALL), numbers
    _SHAPES[kind.key] = shape
    return shape


def read_line(text: str) -> Message | None:
    """The engine's line ``text`` as its message, or None for any other text.

    A line is read as a message only when that message, written again, gives ``text``
    exactly (a name that happens to hold a line's own words cannot be misread into
    another line)."""
    for kind in ENGINE_LINES:
        pattern, numbers = _shape(kind)
        found = pattern.fullmatch(text)
        if found is None:
            continue
        values = {name: int(value) if name in numbers else value for name, value in found.groupdict().items()}
        message = kind(**values)
        if written(message) == text:
            return message
    return None
