"""RerollDice ``xRy``: a pool of dice where each die meeting a threshold adds a die.

``2R6>=5``: roll two d6; every die at 5 or more is rolled again (as a new die), and
so on; every die meeting the comparison is a success. The reroll threshold is written
``[n]`` or ``[>=n]`` after the dice, or ``@n`` / ``@>=n`` after the comparison;
without it the game system's default (``reroll_dice_reroll_threshold``), else the
target, is used. A threshold that would reroll forever (``2R6<=6``) is refused with
BCDice's message.
"""

from __future__ import annotations

from collections import deque
from typing import Final, Literal

from gm_engine.dice.commands._arith import (
    Node,
    ParseFailure,
    TooComplexError,
    command_cursor,
    first_word,
)
from gm_engine.dice.commands.barabara_dice import (
    LINE_HEAD,
    DiceGroup,
    DiceRoller,
    DiceSpec,
    FailureReason,
    build_outcome,
    error_text,
    evaluate_all,
    format_comparison,
    join_ints,
    pair_up,
    read_dice_terms,
    success_words,
)
from gm_engine.dice.result import Detail, Locale, Outcome, construct
from gm_engine.dice.system import COMPARISONS, CompareOp, RollContext

#: BCDice stops rolling after this many rolls of a group (its ``REROLL_LIMIT``).
REROLL_LIMIT: Final = 10000

_INVALID_TEXT: Final = {
    "ja": "条件が間違っています。2R6>=5 あるいは 2R6[5] のように振り足し目標値を指定してください。",
    "en": "the condition is wrong. Give a reroll threshold, e.g. 2R6>=5 or 2R6[5].",
}

RerollError = FailureReason | Literal["invalid_condition"]


class RerollDiceDetail(Detail):
    """The structure of an ``xRy`` roll."""

    kind: Literal["reroll_dice"] = "reroll_dice"
    #: ``2R4+2R6[>4]>=4`` as echoed; on an error, the command word as typed.
    expression: str
    notations: tuple[DiceSpec, ...] = ()
    reroll_comparison: CompareOp | None = None
    reroll_threshold: int | None = None
    comparison: CompareOp | None = None
    target: int | None = None
    #: Every roll in order: first one per notation, then the rerolls.
    rolls: tuple[DiceGroup, ...] = ()
    successes: int | None = None
    #: Dice showing 1 among the first rolls (rerolls are not counted, as in BCDice).
    ones: int = 0
    system_note: str | None = None
    error: RerollError | None = None


def render_reroll(detail: RerollDiceDetail, locale: Locale) -> str:
    """The text of an ``xRy`` roll in ``locale``."""
    if detail.error == "invalid_condition":
        return f"{detail.expression} ＞ {_INVALID_TEXT[locale]}"
    if detail.error is not None:
        return error_text(detail.expression, detail.error, locale)
    parts = [
        f"({detail.expression})",
        " + ".join(join_ints(roll.values) for roll in detail.rolls),
        success_words(detail.successes or 0, locale),
    ]
    if detail.system_note is not None:
        parts.append(detail.system_note)
    return " ＞ ".join(parts)


def _threshold_is_valid(op: CompareOp, threshold: int | None, sides: int) -> bool:
    # A threshold every face meets would reroll forever.
    if threshold is None:
        return False
    if op == "<=":
        return threshold < sides
    if op == "<":
        return threshold <= sides
    if op == ">=":
        return threshold > 1
    if op == ">":
        return threshold >= 1
    if op == "!=":
        return 1 <= threshold <= sides
    return True


_Parsed = tuple[list[tuple[Node, Node]], CompareOp | None, Node | None, CompareOp | None, Node | None]


def _parse(command: str) -> _Parsed:
    """``notations target | notations [ [CMP] add ] target | notations target @ [CMP] add``.

    Raises:
        ParseFailure: ``command`` is not such a command.
    """
    cursor = command_cursor(command)
    notations = read_dice_terms(cursor, "R")
    reroll_op: CompareOp | None = None
    reroll_node: Node | None = None
    if cursor.accept("["):
        reroll_op = cursor.comparison()
        reroll_node = cursor.add()
        cursor.expect("]")
        op, target = cursor.target()
    else:
        op, target = cursor.target()
        if cursor.accept("@"):
            reroll_op = cursor.comparison()
            reroll_node = cursor.add()
    if not cursor.at_end():
        raise ParseFailure
    return notations, op, target, reroll_op, reroll_node


#: The cheap test of the engine before :func:`reroll_dice` runs (matched at the line's start).
PREFIX = LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*R"


def reroll_dice(command: str, ctx: RollContext) -> Outcome | None:
    """Evaluate ``xRy`` (BCDice's RerollDice); None if ``command`` is not one.

    ``command`` is the chat line; only its first word is read.
    """
    word = first_word(command)
    try:
        notations, op, target_node, reroll_op, reroll_node = _parse(word)
    except ParseFailure:
        return None
    except (TooComplexError, RecursionError):
        return _refuse(word, "too_complex", ctx.locale)
    system = ctx.system
    nodes: list[Node | None] = [node for pair in notations for node in pair]
    nodes += [target_node, reroll_node]
    values = evaluate_all(nodes, system.round_type)
    if isinstance(values, str):
        return _refuse(word, values, ctx.locale)
    reroll_threshold = values.pop()
    target = values.pop()
    if op is None:
        op = system.default_cmp_op
    if target is None:
        target = system.default_target_number
    if reroll_op is None:
        reroll_op = op or ">="
    if reroll_threshold is None:
        reroll_threshold = system.reroll_dice_reroll_threshold
    if reroll_threshold is None:
        reroll_threshold = target
    specs = pair_up(values)
    if reroll_threshold is None or not all(
        _threshold_is_valid(reroll_op, reroll_threshold, sides) for _, sides in specs
    ):
        # BCDice echoes the word as typed, secret S and case included.
        return _refuse(word, "invalid_condition", ctx.locale)

    roller = DiceRoller(ctx)
    sort = system.sort_barabara_dice
    rerolls = COMPARISONS[reroll_op]
    queue = deque(specs)
    rolls: list[DiceGroup] = []
    loops = 0
    while queue and loops < REROLL_LIMIT:
        times, sides = queue.popleft()
        loops += 1
        rolled = roller.roll_many(times, sides)
        if sort:
            rolled.sort()
        rolls.append(construct(DiceGroup, times=times, sides=sides, values=tuple(rolled)))
        again = sum(1 for value in rolled if rerolls(value, reroll_threshold))
        if again:
            queue.append((again, sides))

    all_values = [value for roll in rolls for value in roll.values]
    # As in BCDice, only the first rolls count their 1s.
    ones = sum(roll.values.count(1) for roll in rolls[: len(specs)])
    successes = 0
    if op is not None and target is not None:
        succeeds = COMPARISONS[op]
        successes = sum(1 for value in all_values if succeeds(value, target))
    expression = "+".join(f"{times}R{sides}" for times, sides in specs)
    expression += f"[{'' if reroll_op == op else format_comparison(reroll_op)}{reroll_threshold}]"
    expression += format_comparison(op) + ("" if target is None else str(target))
    detail = construct(
        RerollDiceDetail,
        expression=expression,
        notations=tuple(construct(DiceSpec, times=t, sides=s) for t, s in specs),
        reroll_comparison=reroll_op,
        reroll_threshold=reroll_threshold,
        comparison=op,
        target=target,
        rolls=tuple(rolls),
        successes=successes,
        ones=ones,
        system_note=system.grich_text(ones, len(all_values), successes),
    )
    return build_outcome(detail, render_reroll(detail, ctx.locale))


def _refuse(word: str, error: RerollError, locale: Locale) -> Outcome:
    detail = construct(RerollDiceDetail, expression=word, error=error)
    return build_outcome(detail, render_reroll(detail, locale))
