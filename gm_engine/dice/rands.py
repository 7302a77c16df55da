"""BCDice's detailed rands: every die of a result with the kind of roll that drew it.

The source records each die as ``Die(value, sides)``, the face shown. BCDice reports its
dice a second way as well (``detailed_rands``, which BCDice-API sends as ``rands``): a
d10 read as a tens digit is kind ``tens_d10`` with the value it stands for (10 reads
0, 3 reads 30), and every other die is kind ``normal`` with its face. (BCDice's third
kind, ``d9``, a d10 read as 0-9, belongs to systems with ``enabled_d9``, of which gm
has none.)

Which dice were tens dice is known to the command that rolled them: its detail says so
through :class:`DiceKinds`; a detail that does not is all normal dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from gm_engine.dice.result import RollResult
from gm_engine.dice.source import Die

RandKind = Literal["normal", "tens_d10", "d9"]

__all__ = ["DetailedRand", "DiceKinds", "RandKind", "detailed_rands", "kinds_of", "tens_then_ones"]

_TENS: tuple[RandKind, ...] = ("tens_d10",)
_NORMAL: tuple[RandKind, ...] = ("normal",)


class DetailedRand(NamedTuple):
    """One die as BCDice's ``detailed_rands`` gives it."""

    kind: RandKind
    sides: int
    value: int


@runtime_checkable
class DiceKinds(Protocol):
    """A command detail whose dice are not all normal dice (a d100 read as tens and ones)."""

    def rand_kinds(self) -> tuple[RandKind, ...]:
        """The kind of each die the command rolled, in rolling order."""
        ...


def kinds_of(result: RollResult) -> tuple[RandKind, ...]:
    """The kind of each of ``result.dice``, in order (normal unless its detail says otherwise)."""
    detail = result.detail
    kinds = detail.rand_kinds() if isinstance(detail, DiceKinds) else ()
    count = len(result.dice)
    if len(kinds) >= count:
        return kinds[:count]
    return kinds + _NORMAL * (count - len(kinds))


def detailed_rands(result: RollResult) -> list[DetailedRand]:
    """``result``'s dice as BCDice's detailed rands."""
    return [_detailed(die, kind) for die, kind in zip(result.dice, kinds_of(result), strict=True)]


def _detailed(die: Die, kind: RandKind) -> DetailedRand:
    value, sides = die
    if kind == "tens_d10":
        # BCDice's roll_tens_d10: the face 10 is the digit 0
        return DetailedRand(kind, sides, 0 if value == 10 else value * 10)
    if kind == "d9":
        return DetailedRand(kind, sides, value - 1)
    return DetailedRand(kind, sides, value)


def tens_then_ones(tens: Sequence[object]) -> tuple[RandKind, ...]:
    """The kinds of a d100 rolled as ``len(tens)`` tens dice and then one ones die."""
    return _TENS * len(tens) + _NORMAL
