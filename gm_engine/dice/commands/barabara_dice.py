"""BarabaraDice ``xBy``: dice shown side by side, with an optional success count.

``2B6``, ``2B6+4B10>3``, ``(1*2)B(2+4)<=3``: each term rolls its dice, the faces are
listed in order and, with a comparison, every die that meets it is one success
(成功数). The module also holds what BCDice's dice-pool family (xBy, xRy, xUy, xTYy)
shares beyond syntax: the dice limits of BCDice's randomizer, the comparison table and
its printing, the error texts and the detail models. The syntax itself (first word,
lexer, arithmetic with the ``/U /C /R /F`` suffixes, comparisons) is the one of
:mod:`gm_engine.dice.commands._arith`, read through its :class:`ExpressionCursor`.
:mod:`reroll_dice`, :mod:`upper_dice` and :mod:`tally_dice` import both.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.commands._arith import (
    ArithmeticFailure,
    ExpressionCursor,
    Node,
    ParseFailure,
    TooComplexError,
    command_cursor,
    evaluate_arithmetic,
    first_word,
)
from gm_engine.dice.limits import MAX_OUTPUT_PER_LINE, TooMuchOutputError
from gm_engine.dice.result import Detail, Locale, Outcome, construct
from gm_engine.dice.system import (
    COMPARISONS,
    CompareOp,
    RollContext,
    RoundType,
)

# --------------------------------------------------------------------------------------
# What the dice-pool family shares
# --------------------------------------------------------------------------------------

#: How BCDice prints a comparison: ``==`` as ``=`` and ``!=`` as ``<>``.
_COMPARISON_TEXT: Final[dict[str | None, str]] = {
    None: "",
    "==": "=",
    "!=": "<>",
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
}

MAX_TIMES_PER_ROLL: Final = 200
"""More dice than this in one roll of a term give no dice at all, as in BCDice."""
MAX_SIDES: Final = 10000
"""A die with more sides than this (or fewer than one) shows 0 and is not rolled."""
#: Most faces one command may show: each prints at least a digit and a separator.
MAX_VALUES_PER_COMMAND: Final = MAX_OUTPUT_PER_LINE // 2
"""Faces, rolled or shown as 0, one command may list; BCDice has no such cap, but a
reroll loop over 0-sided dice would otherwise print millions of zeros."""


def format_comparison(op: CompareOp | None) -> str:
    """A comparison as BCDice prints it (``=``, ``<>``, ``>=`` ...; empty for none)."""
    return _COMPARISON_TEXT[op]


def format_modifier(number: int) -> str:
    """A modifier as BCDice prints it: ``+3``, ``-3``, or nothing for 0."""
    if number == 0:
        return ""
    return f"+{number}" if number > 0 else str(number)


FailureReason = Literal["division_by_zero", "number_too_large", "too_complex"]

_ERROR_TEXT: Final[dict[str, dict[str, str]]] = {
    "division_by_zero": {"ja": "0で割ることはできません", "en": "division by zero"},
    "number_too_large": {
        "ja": "数値が大きすぎるため計算できませんでした",
        "en": "the numbers are too large to compute",
    },
    "too_complex": {
        "ja": "式の入れ子が深すぎるため計算できませんでした",
        "en": "the expression is nested too deeply to compute",
    },
}


def error_text(source: str, error: str, locale: Locale) -> str:
    """The text of a command whose numbers cannot be computed (BCDice raises there)."""
    return f"{source} ＞ {_ERROR_TEXT[error][locale]}"


def evaluate_all(nodes: list[Node | None], round_type: RoundType) -> list[int | None] | FailureReason:
    """Evaluate several expressions (None stays None), or name the arithmetic error."""
    try:
        return [None if node is None else evaluate_arithmetic(node, round_type) for node in nodes]
    except ArithmeticFailure as failure:
        return "division_by_zero" if failure.reason == "zero_division" else "number_too_large"
    except RecursionError:
        return "too_complex"


#: What the common commands' prefixes allow before the command itself: BCDice hands
#: them the line as typed, leading whitespace and secret ``S`` included.
LINE_HEAD = r"[ \t\n\v\f\r]*S?"


class DiceRoller:
    """Rolls one command's dice with the limits of BCDice's randomizer.

    A die whose sides are out of 1..:data:`MAX_SIDES` shows 0 without being rolled; a roll
    of more than :data:`MAX_TIMES_PER_ROLL` dice (or fewer than one) gives none. The
    line's dice budget is the engine's (:meth:`RollContext.reserve_dice`),
    checked, as BCDice does, before the per-roll cap.

    Raises (from its methods):
        TooManyDiceError: the line's dice budget is spent.
        TooMuchOutputError: more than :data:`MAX_VALUES_PER_COMMAND` faces.
    """

    __slots__ = ("_roll", "ctx", "values")

    def __init__(self, ctx: RollContext) -> None:
        self.ctx = ctx
        self._roll = ctx.source.roll
        self.values = 0

    def _count(self, values: int) -> None:
        self.values += values
        if self.values > MAX_VALUES_PER_COMMAND:
            # faces shown without a roll (0 for a die of too many sides) cost no dice,
            # but each is printed: past this many the text is over the output budget
            raise TooMuchOutputError(f"more than {MAX_VALUES_PER_COMMAND} faces in one command")

    def roll_once(self, sides: int) -> int:
        """One die; 0 without rolling when ``sides`` is out of range."""
        self._count(1)
        if sides <= 0 or sides > MAX_SIDES:
            return 0
        self.ctx.reserve_dice(1)
        return self._roll(sides)

    def roll_many(self, times: int, sides: int) -> list[int]:
        """``times`` dice as BCDice's ``roll_barabara``: none when ``times`` is out of range."""
        self.ctx.reserve_dice(times)
        if times <= 0 or times > MAX_TIMES_PER_ROLL:
            return []
        self._count(times)
        if sides <= 0 or sides > MAX_SIDES:
            return [0] * times
        roll = self._roll
        return [roll(sides) for _ in range(times)]


def join_ints(values: tuple[int, ...] | list[int]) -> str:
    """Faces joined by commas, as BCDice lists them."""
    return ",".join(map(str, values))


class DiceGroup(BaseModel):
    """The dice of one term: how many were asked for, their sides, the faces shown."""

    model_config = ConfigDict(frozen=True)

    times: int
    sides: int
    values: tuple[int, ...] = ()


class DiceSpec(BaseModel):
    """One term of a command, evaluated: ``times`` dice of ``sides`` sides."""

    model_config = ConfigDict(frozen=True)

    times: int
    sides: int


def success_words(count: int, locale: Locale) -> str:
    """``成功数N`` or ``N successes``."""
    if locale == "en":
        return f"{count} success" if count == 1 else f"{count} successes"
    return f"成功数{count}"


# --------------------------------------------------------------------------------------
# BarabaraDice
# --------------------------------------------------------------------------------------


class BarabaraDiceDetail(Detail):
    """The structure of an ``xBy`` roll."""

    kind: Literal["barabara_dice"] = "barabara_dice"
    #: The command as BCDice echoes it inside the parentheses, e.g. ``2B6+4B10>3``.
    expression: str
    groups: tuple[DiceGroup, ...] = ()
    comparison: CompareOp | None = None
    target: int | None = None
    #: Dice meeting the comparison; None without a comparison.
    successes: int | None = None
    #: Dice showing 1.
    ones: int = 0
    #: The game system's note on the pool (BCDice's grich text), if any.
    system_note: str | None = None
    #: Why the numbers could not be computed; the text then says so after the word.
    error: FailureReason | None = None


def render_barabara(detail: BarabaraDiceDetail, locale: Locale) -> str:
    """The text of an ``xBy`` roll in ``locale``."""
    if detail.error is not None:
        return error_text(detail.expression, detail.error, locale)
    parts = [
        f"({detail.expression})",
        ",".join(join_ints(group.values) for group in detail.groups if group.values),
    ]
    if detail.successes is not None:
        parts.append(success_words(detail.successes, locale))
    if detail.system_note is not None:
        parts.append(detail.system_note)
    return " ＞ ".join(parts)


def read_dice_terms(cursor: ExpressionCursor, letter: str) -> list[tuple[Node, Node]]:
    """``notations: notations + dice | dice`` with ``dice: term <letter> term``."""
    notations = [_dice_term(cursor, letter)]
    while cursor.accept("+"):
        notations.append(_dice_term(cursor, letter))
    return notations


def _dice_term(cursor: ExpressionCursor, letter: str) -> tuple[Node, Node]:
    times = cursor.term()
    cursor.expect(letter)
    return times, cursor.term()


def pair_up(values: list[int | None]) -> list[tuple[int, int]]:
    """Evaluated ``times, sides, times, sides, ...`` as pairs."""
    pairs: list[tuple[int, int]] = []
    for i in range(0, len(values), 2):
        times, sides = values[i], values[i + 1]
        assert times is not None and sides is not None
        pairs.append((times, sides))
    return pairs


def build_outcome(detail: Detail, text: str) -> Outcome:
    """An :class:`Outcome` (no flags) carrying ``detail``, built without re-validation."""
    return Outcome(text=text, detail=detail)


#: The cheap test of the engine before :func:`barabara_dice` runs (matched at the line's start).
PREFIX = LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*B"


def barabara_dice(command: str, ctx: RollContext) -> Outcome | None:
    """Evaluate ``xBy`` (BCDice's BarabaraDice); None if ``command`` is not one.

    ``command`` is the chat line; only its first word is read.
    """
    word = first_word(command)
    try:
        cursor = command_cursor(word)
        notations = read_dice_terms(cursor, "B")
        op, target_node = cursor.target()
        if not cursor.at_end():
            return None
    except ParseFailure:
        return None
    except (TooComplexError, RecursionError):
        return _refuse(word, "too_complex", ctx.locale)
    system = ctx.system
    nodes: list[Node | None] = [node for pair in notations for node in pair]
    nodes.append(target_node)
    values = evaluate_all(nodes, system.round_type)
    if isinstance(values, str):
        return _refuse(word, values, ctx.locale)
    target = values.pop()
    if op is None:
        op, target = system.default_cmp_op, system.default_target_number
    specs = pair_up(values)

    roller = DiceRoller(ctx)
    sort = system.sort_barabara_dice
    groups: list[DiceGroup] = []
    all_values: list[int] = []
    for times, sides in specs:
        rolled = roller.roll_many(times, sides)
        if sort:
            rolled.sort()
        all_values.extend(rolled)
        groups.append(construct(DiceGroup, times=times, sides=sides, values=tuple(rolled)))

    ones = all_values.count(1)
    successes: int | None = None
    if op is not None:
        successes = 0
        if target is not None:
            check = COMPARISONS[op]
            successes = sum(1 for value in all_values if check(value, target))
    expression = "+".join(f"{times}B{sides}" for times, sides in specs)
    expression += format_comparison(op) + ("" if target is None else str(target))
    detail = construct(
        BarabaraDiceDetail,
        expression=expression,
        groups=tuple(groups),
        comparison=op,
        target=target,
        successes=successes,
        ones=ones,
        system_note=system.grich_text(ones, len(all_values), successes or 0),
    )
    return build_outcome(detail, render_barabara(detail, ctx.locale))


def _refuse(word: str, error: FailureReason, locale: Locale) -> Outcome:
    detail = construct(BarabaraDiceDetail, expression=word, error=error)
    return build_outcome(detail, error_text(word, error, locale))
