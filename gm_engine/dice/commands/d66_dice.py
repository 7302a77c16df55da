"""D66Dice ``D66``: two d6 read as tens and units (11..66).

A suffix sets the order of the two dice: ``A`` or ``S`` ascending (``D66A``: 5 and 2
read 25), ``D`` descending, ``N`` as rolled; without one the game system's
``d66_sort_type`` decides. A system may switch the command off with
``enabled_d66 = False``.
"""

from __future__ import annotations

import re
from typing import Literal

from gm_engine.dice.commands._arith import first_word
from gm_engine.dice.commands.barabara_dice import LINE_HEAD, build_outcome
from gm_engine.dice.result import Detail, Locale, Outcome, construct
from gm_engine.dice.system import RollContext

D66Sort = Literal["no_sort", "asc", "desc"]

_COMMAND = re.compile(r"S?D66([ANSD]?)")
_SORT_BY_SUFFIX: dict[str, D66Sort] = {"A": "asc", "S": "asc", "D": "desc", "N": "no_sort"}


class D66Detail(Detail):
    """The structure of a D66 roll."""

    kind: Literal["d66_dice"] = "d66_dice"
    #: The suffix as typed (upper-cased), or None.
    suffix: str | None = None
    sort: D66Sort = "no_sort"
    #: The two dice in rolling order.
    dice: tuple[int, int]
    #: The number read: the first die after sorting is the tens.
    value: int


def render_d66(detail: D66Detail, locale: Locale) -> str:
    """The text of a D66 roll (the same in every locale)."""
    return f"(D66{detail.suffix or ''}) ＞ {detail.value}"


#: The cheap test of the engine before :func:`d66_dice` runs (matched at the line's start).
PREFIX = LINE_HEAD + "D66"


def d66_dice(command: str, ctx: RollContext) -> Outcome | None:
    """Evaluate ``D66``, ``D66A``/``D66S``, ``D66D`` or ``D66N``; None if not one.

    ``command`` is the chat line; only its first word is read.
    """
    if not ctx.system.enabled_d66:
        return None
    match = _COMMAND.fullmatch(first_word(command).upper())
    if match is None:
        return None
    suffix = match.group(1) or None
    sort: D66Sort = _SORT_BY_SUFFIX[suffix] if suffix else ctx.system.d66_sort_type
    ctx.reserve_dice(2)
    roll = ctx.source.roll
    first, second = roll(6), roll(6)
    high, low = (first, second) if first >= second else (second, first)
    if sort == "asc":
        tens, units = low, high
    elif sort == "desc":
        tens, units = high, low
    else:
        tens, units = first, second
    detail = construct(D66Detail, suffix=suffix, sort=sort, dice=(first, second), value=tens * 10 + units)
    return build_outcome(detail, render_d66(detail, ctx.locale))
