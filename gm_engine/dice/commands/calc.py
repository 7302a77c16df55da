"""Calc, BCDice's ``C(...)``: whole-number arithmetic without dice.

``C(1+2*3)`` or ``c1+2*3``; ``+ - * /`` and parentheses, a division rounded by the
suffix C/U (up), R (half away from zero), F (down) or by the system. The text echoes
the expression as BCDice does (``c(1/2C) ＞ 1``); a division by zero is reported.
"""

from __future__ import annotations

from typing import Literal

from gm_engine.dice.commands._arith import (
    ArithmeticFailure,
    Paren,
    evaluate_arithmetic,
    first_word,
    parse_calc,
    render_arithmetic,
    without_secret,
)
from gm_engine.dice.limits import error_outcome
from gm_engine.dice.result import Detail, Outcome, construct
from gm_engine.dice.system import RollContext

_ZERO_DIVISION = {
    "ja": "ゼロ除算が発生したため計算できませんでした",
    "en": "Cannot calculate: division by zero",
}


class CalcDetail(Detail):
    """Structured result of ``C()``: the expression as echoed and its value, or the
    reason there is none (``"zero_division"``)."""

    kind: Literal["calc"] = "calc"
    expression: str
    value: int | None = None
    error: Literal["zero_division"] | None = None


#: The cheap test of the engine before :func:`calc` runs (matched at the line's start).
PREFIX = r"[ \t\n\v\f\r]*[S\u017f]?C"


def calc(command: str, ctx: RollContext) -> Outcome | None:
    """``C`` followed by arithmetic; None when the line is not one."""
    parsed = parse_calc(without_secret(first_word(command)))
    if parsed is None:
        return None
    expression = parsed.expression
    shown = render_arithmetic(expression)
    if not isinstance(expression, Paren):
        shown = f"({shown})"
    try:
        value = evaluate_arithmetic(expression, ctx.system.round_type)
    except ArithmeticFailure as failure:
        if failure.reason == "overflow":
            return error_outcome("overflow", ctx.locale)
        message = _ZERO_DIVISION.get(ctx.locale, _ZERO_DIVISION["ja"])
        detail = construct(CalcDetail, expression=shown, error="zero_division")
        return Outcome(text=f"c{shown} ＞ {message}", detail=detail)
    detail = construct(CalcDetail, expression=shown, value=value)
    return Outcome(text=f"c{shown} ＞ {value}", detail=detail)
