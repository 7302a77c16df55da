"""UpperDice ``xUy``: exploding dice, each die rolled again while it shows the threshold.

``4U6[6]>=10``: four d6; a die at 6 or more is rolled again and added to itself, as
often as it keeps meeting the threshold. Each die's total (plus the modifier) is then
compared with the target, counting successes; without a comparison the text gives the
highest total and the sum (``34/52(最大/合計)``). The threshold is ``[n]`` after the
dice or ``@n`` at the end, else the game system's ``upper_dice_reroll_threshold``; a
missing or impossible threshold gives BCDice's message.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.commands._arith import (
    Binary,
    ExpressionCursor,
    Negate,
    Node,
    ParseFailure,
    TooComplexError,
    command_cursor,
    first_word,
)
from gm_engine.dice.commands.barabara_dice import (
    LINE_HEAD,
    MAX_VALUES_PER_COMMAND,
    DiceRoller,
    DiceSpec,
    FailureReason,
    build_outcome,
    error_text,
    evaluate_all,
    format_comparison,
    format_modifier,
    pair_up,
    success_words,
)
from gm_engine.dice.limits import TooManyDiceError
from gm_engine.dice.result import Detail, Locale, Outcome, construct
from gm_engine.dice.system import CompareOp, RollContext, compare

_INVALID_TEXT: Final = {
    "ja": "無限ロールの条件がまちがっています",
    "en": "the exploding threshold is wrong (it must be 2 or more)",
}

UpperError = FailureReason | Literal["invalid_threshold"]


class ExplodingDie(BaseModel):
    """One die of an ``xUy`` roll: every face it showed and their total."""

    model_config = ConfigDict(frozen=True)

    sides: int
    total: int
    values: tuple[int, ...]


class UpperDiceDetail(Detail):
    """The structure of an ``xUy`` roll."""

    kind: Literal["upper_dice"] = "upper_dice"
    #: ``4U6[6]+11>=21`` as echoed; on an arithmetic error, the command word as typed.
    expression: str
    notations: tuple[DiceSpec, ...] = ()
    reroll_threshold: int = 0
    modifier: int = 0
    comparison: CompareOp | None = None
    target: int | None = None
    dice: tuple[ExplodingDie, ...] = ()
    #: Without a comparison: the highest die total plus modifier (None when no dice).
    highest: int | None = None
    #: Without a comparison: all totals plus the modifier.
    total: int | None = None
    #: With a comparison: dice whose total plus modifier meets it.
    successes: int | None = None
    error: UpperError | None = None


def render_upper(detail: UpperDiceDetail, locale: Locale) -> str:
    """The text of an ``xUy`` roll in ``locale``."""
    if detail.error == "invalid_threshold":
        return f"({detail.expression}) ＞ {_INVALID_TEXT[locale]}"
    if detail.error is not None:
        return error_text(detail.expression, detail.error, locale)
    dice = ",".join(
        str(die.total) if len(die.values) == 1 else f"{die.total}[{','.join(map(str, die.values))}]"
        for die in detail.dice
    )
    if detail.successes is not None:
        result = success_words(detail.successes, locale)
    else:
        highest = "" if detail.highest is None else str(detail.highest)
        words = "(max/total)" if locale == "en" else "(最大/合計)"
        result = f"{highest}/{detail.total}{words}"
    return f"({detail.expression}) ＞ {dice}{format_modifier(detail.modifier)} ＞ {result}"


_Parsed = tuple[list[tuple[Node, Node]], Node | None, CompareOp | None, Node | None, Node | None]


def _parse(command: str) -> _Parsed:
    """``notations [ "[" add "]" ] [modifier] target`` or ``notations [modifier] target @ add``.

    Raises:
        ParseFailure: ``command`` is not such a command.
    """
    cursor = command_cursor(command)
    notations = [_dice(cursor)]
    modifier: Node | None = None
    # After a "+", a term followed by U is one more die notation; anything else
    # starts the modifier (BCDice's LALR parser decides on the same token).
    while cursor.accept("+"):
        if cursor.starts_term():
            first = cursor.term()
            if cursor.accept("U"):
                notations.append((first, cursor.term()))
                continue
            modifier = cursor.mul(first)
        else:
            modifier = cursor.mul()
        break
    threshold: Node | None = None
    bracket = False
    if modifier is None and cursor.accept("["):
        threshold = cursor.add()
        cursor.expect("]")
        bracket = True
    if modifier is None:
        if cursor.accept("+"):
            modifier = cursor.mul()
        elif cursor.accept("-"):
            modifier = Negate(cursor.mul())
    if modifier is not None:
        while True:
            if cursor.accept("+"):
                modifier = Binary(modifier, "+", cursor.mul())
            elif cursor.accept("-"):
                modifier = Binary(modifier, "-", cursor.mul())
            else:
                break
    op, target = cursor.target()
    if not bracket and cursor.accept("@"):
        threshold = cursor.add()
    if not cursor.at_end():
        raise ParseFailure
    return notations, modifier, op, target, threshold


def _dice(cursor: ExpressionCursor) -> tuple[Node, Node]:
    times = cursor.term()
    cursor.expect("U")
    return times, cursor.term()


#: The cheap test of the engine before :func:`upper_dice` runs (matched at the line's start).
PREFIX = LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*U"


def upper_dice(command: str, ctx: RollContext) -> Outcome | None:
    """Evaluate ``xUy`` (BCDice's UpperDice); None if ``command`` is not one.

    ``command`` is the chat line; only its first word is read.
    """
    word = first_word(command)
    try:
        notations, modifier_node, op, target_node, threshold_node = _parse(word)
    except ParseFailure:
        return None
    except (TooComplexError, RecursionError):
        return _refuse(word, "too_complex", ctx.locale)
    system = ctx.system
    nodes: list[Node | None] = [node for pair in notations for node in pair]
    nodes += [modifier_node, target_node, threshold_node]
    values = evaluate_all(nodes, system.round_type)
    if isinstance(values, str):
        return _refuse(word, values, ctx.locale)
    threshold = values.pop()
    target = values.pop()
    modifier = values.pop() or 0
    if threshold is None:
        threshold = system.upper_dice_reroll_threshold
    if threshold is None:
        threshold = 0
    specs = pair_up(values)

    expression = "+".join(f"{times}U{sides}" for times, sides in specs)
    expression += f"[{threshold}]{format_modifier(modifier)}"
    expression += format_comparison(op) + ("" if target is None else str(target))
    spec_models = tuple(construct(DiceSpec, times=t, sides=s) for t, s in specs)
    if threshold <= 1:
        detail = construct(
            UpperDiceDetail,
            expression=expression,
            notations=spec_models,
            reroll_threshold=threshold,
            modifier=modifier,
            comparison=op,
            target=target,
            error="invalid_threshold",
        )
        return build_outcome(detail, render_upper(detail, ctx.locale))
    # Every die shows at least one face: refuse up front what could never finish.
    if sum(max(times, 0) for times, _ in specs) > MAX_VALUES_PER_COMMAND:
        raise TooManyDiceError(f"more than {MAX_VALUES_PER_COMMAND} dice in one command")

    roller = DiceRoller(ctx)
    sort = system.sort_barabara_dice
    dice: list[ExplodingDie] = []
    for times, sides in specs:
        group: list[ExplodingDie] = []
        for _ in range(max(times, 0)):
            faces = []
            while True:
                value = roller.roll_once(sides)
                faces.append(value)
                if value < threshold:
                    break
            group.append(construct(ExplodingDie, sides=sides, total=sum(faces), values=tuple(faces)))
        if sort:
            group.sort(key=lambda die: die.total)
        dice.extend(group)

    highest: int | None = None
    total: int | None = None
    successes: int | None = None
    if op is not None and target is not None:
        successes = sum(1 for die in dice if compare(die.total + modifier, op, target))
    else:
        total = sum(die.total for die in dice) + modifier
        highest = max((die.total + modifier for die in dice), default=None)
    detail = construct(
        UpperDiceDetail,
        expression=expression,
        notations=spec_models,
        reroll_threshold=threshold,
        modifier=modifier,
        comparison=op,
        target=target,
        dice=tuple(dice),
        highest=highest,
        total=total,
        successes=successes,
    )
    return build_outcome(detail, render_upper(detail, ctx.locale))


def _refuse(word: str, error: FailureReason, locale: Locale) -> Outcome:
    detail = construct(UpperDiceDetail, expression=word, error=error)
    return build_outcome(detail, render_upper(detail, locale))
