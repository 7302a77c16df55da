"""TallyDice ``xTYy`` / ``xTZy``: roll dice and count how many show each face.

``20TY6`` lists the faces and then ``[1]×2, [2]×2, ...`` for the faces that came up;
``20TZ6`` also lists the faces that did not (``[3]×0``). Counts and sides may be
arithmetic (``(1+2*3)TZ(1+5/2C)``). A count or sides below 1 is not a command; more
than 20 sides gives BCDice's message.
"""

from __future__ import annotations

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
    DiceRoller,
    FailureReason,
    build_outcome,
    error_text,
    evaluate_all,
    join_ints,
)
from gm_engine.dice.limits import SECRET_FLAG
from gm_engine.dice.result import Detail, Locale, Outcome, construct
from gm_engine.dice.system import RollContext

#: The most sides a tallied die may have.
MAX_TALLY_SIDES: Final = 20

_SIDES_TEXT: Final = {
    "ja": f"面数は1以上、{MAX_TALLY_SIDES}以下としてください",
    "en": f"the dice must have between 1 and {MAX_TALLY_SIDES} sides",
}

TallyError = FailureReason | Literal["too_many_sides"]


class TallyDiceDetail(Detail):
    """The structure of an ``xTYy`` / ``xTZy`` roll."""

    kind: Literal["tally_dice"] = "tally_dice"
    #: ``20TY6`` as echoed; on an arithmetic error, the command word as typed.
    expression: str
    times: int = 0
    sides: int = 0
    #: ``Z``: faces nobody rolled are listed too.
    show_zeros: bool = False
    #: The faces in the order shown (sorted when the game system sorts such dice).
    values: tuple[int, ...] = ()
    #: How many dice showed each face: ``counts[0]`` for face 1, up to face ``sides``
    #: (zeros included whatever ``show_zeros`` says).
    counts: tuple[int, ...] = ()
    error: TallyError | None = None


def render_tally(detail: TallyDiceDetail, locale: Locale) -> str:
    """The text of a tally roll in ``locale``."""
    if detail.error == "too_many_sides":
        return f"({detail.expression}) ＞ {_SIDES_TEXT[locale]}"
    if detail.error is not None:
        return error_text(detail.expression, detail.error, locale)
    counts = ", ".join(
        f"[{face}]×{count}" for face, count in enumerate(detail.counts, start=1) if count or detail.show_zeros
    )
    return f"({detail.expression}) ＞ {join_ints(detail.values)} ＞ {counts}"


def _parse(command: str) -> tuple[Node, bool, Node]:
    """``term T (Y|Z) term``.

    Raises:
        ParseFailure: ``command`` is not such a command.
    """
    cursor = command_cursor(command)
    times = cursor.term()
    cursor.expect("T")
    if cursor.accept("Z"):
        show_zeros = True
    else:
        cursor.expect("Y")
        show_zeros = False
    sides = cursor.term()
    if not cursor.at_end():
        raise ParseFailure
    return times, show_zeros, sides


#: The cheap test of the engine before :func:`tally_dice` runs (matched at the line's start).
PREFIX = LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*T[YZ]"


def tally_dice(command: str, ctx: RollContext) -> Outcome | None:
    """Evaluate ``xTYy`` / ``xTZy`` (BCDice's TallyDice); None if ``command`` is not one.

    ``command`` is the chat line; only its first word is read.
    """
    word = first_word(command)
    try:
        times_node, show_zeros, sides_node = _parse(word)
    except ParseFailure:
        return None
    except (TooComplexError, RecursionError):
        return _refuse(word, "too_complex", ctx.locale)
    values = evaluate_all([times_node, sides_node], ctx.system.round_type)
    if isinstance(values, str):
        return _refuse(word, values, ctx.locale)
    times, sides = values
    assert times is not None and sides is not None
    if times <= 0 or sides <= 0:
        return None
    expression = f"{times}T{'Z' if show_zeros else 'Y'}{sides}"
    if sides > MAX_TALLY_SIDES:
        detail = construct(
            TallyDiceDetail,
            expression=expression,
            times=times,
            sides=sides,
            show_zeros=show_zeros,
            error="too_many_sides",
        )
        ctx.extras[SECRET_FLAG] = False  # BCDice's message is a plain Result: never secret
        return build_outcome(detail, render_tally(detail, ctx.locale))
    rolled = DiceRoller(ctx).roll_many(times, sides)
    counts = [0] * (sides + 1)
    for value in rolled:
        if 1 <= value <= sides:
            counts[value] += 1
    if ctx.system.sort_barabara_dice:
        rolled.sort()
    detail = construct(
        TallyDiceDetail,
        expression=expression,
        times=times,
        sides=sides,
        show_zeros=show_zeros,
        values=tuple(rolled),
        counts=tuple(counts[1:]),
    )
    return build_outcome(detail, render_tally(detail, ctx.locale))


def _refuse(word: str, error: FailureReason, locale: Locale) -> Outcome:
    detail = construct(TallyDiceDetail, expression=word, error=error)
    return build_outcome(detail, render_tally(detail, locale))
