"""Add dice, BCDice's ``AddDice``: ``xDy`` terms in arithmetic, with an optional target.

``2D6+1>=7``, ``(2+3)D6-1D4``, ``5D10KH3`` (keep/drop highest/lowest: KH KL DH DL,
MAX = KH1, MIN = KL1), ``3D`` (the system's implicit sides), ``2D66`` (d66 values),
divisions rounded by the suffix U/C (up), R (half away from zero), F (down) or by the
system (no suffix), and the targets ``= <> < > <= >=`` with a number or ``?``.

BCDice's own limits hold: a term of over 200 dice rolls nothing (total 0), a die with
under 1 or over 10000 sides shows 0 without rolling, and a division by zero gives 1.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.commands._arith import (
    AddDiceCommand,
    ArithmeticFailure,
    Binary,
    DiceRoll,
    Divide,
    FilterKind,
    Negate,
    Node,
    Number,
    divide,
    evaluate_arithmetic,
    first_word,
    parse_add_dice,
    without_secret,
)
from gm_engine.dice.engine import error_outcome, reserve_dice
from gm_engine.dice.result import Detail, Outcome
from gm_engine.dice.source import Die
from gm_engine.dice.system import CompareOp, RollContext, register_command

#: A single ``xDy`` rolls nothing when x is over this (BCDice's UPPER_LIMIT_DICE_TIMES).
MAX_DICE_PER_TERM = 200
#: A die with more sides than this shows 0 without rolling (UPPER_LIMIT_DICE_SIDES).
MAX_SIDES = 10_000

_SEPARATOR = " ＞ "
_DISPLAY_OP: dict[CompareOp, str] = {"==": "=", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}


class DiceTerm(BaseModel):
    """One ``xDy`` term as rolled: its dice in rolling order, those that count, its sum."""

    model_config = ConfigDict(frozen=True)

    notation: str
    times: int
    sides: int
    values: tuple[int, ...]
    kept: tuple[int, ...]
    filter: FilterKind | None = None
    filter_count: int | None = None
    total: int


class AddDiceDetail(Detail):
    """Structured result of add dice.

    ``expression`` is the command as BCDice echoes it (``2D6+1``), ``terms`` every
    dice term, ``total`` the value; with a target, ``comparison`` and ``target``
    (None when undecided, ``?``) and ``judgement`` the words appended (成功/Success).
    """

    kind: Literal["add_dice"] = "add_dice"
    expression: str
    terms: tuple[DiceTerm, ...]
    total: int
    comparison: CompareOp | None = None
    target: int | None = None
    target_undecided: bool = False
    judgement: str | None = None


class _Roll:
    """One evaluation of a parsed add-dice command: rolls the dice and builds the text."""

    __slots__ = ("ctx", "dice", "round_type", "terms")

    def __init__(self, ctx: RollContext) -> None:
        self.ctx = ctx
        self.round_type = ctx.system.round_type
        self.dice: list[Die] = []
        self.terms: list[DiceTerm] = []

    def static(self, node: Node) -> int:
        return evaluate_arithmetic(node, self.round_type, zero_divisor_gives=1)

    def sides_of(self, roll: DiceRoll) -> int:
        return self.ctx.system.sides_implicit_d if roll.sides is None else self.static(roll.sides)

    def notation(self, node: Node) -> str:
        """The expression echoed in the text's first part: dice as ``xDy``, no values."""
        if isinstance(node, Number):
            return str(node.value)
        if isinstance(node, DiceRoll):
            text = f"{self.static(node.times)}D{self.sides_of(node)}"
            if node.filter is not None and node.count is not None:
                text += f"{node.filter}{self.static(node.count)}"
            return text
        if isinstance(node, Binary):
            return f"{self.notation(node.left)}{node.op}{self.notation(node.right)}"
        if isinstance(node, Divide):
            return f"{self.notation(node.left)}/{self.notation(node.right)}{node.mark}"
        if isinstance(node, Negate):
            return f"-{self.notation(node.body)}"
        return f"({self.notation(node.body)})"

    def value(self, node: Node) -> tuple[int, str]:
        """The value of an expression and its text with the dice shown."""
        if isinstance(node, Number):
            return node.value, str(node.value)
        if isinstance(node, DiceRoll):
            return self.roll(node)
        if isinstance(node, Binary):
            left, left_text = self.value(node.left)
            right, right_text = self.value(node.right)
            if node.op == "+":
                result = left + right
            elif node.op == "-":
                result = left - right
            else:
                result = left * right
            return result, f"{left_text}{node.op}{right_text}"
        if isinstance(node, Divide):
            left, left_text = self.value(node.left)
            right, right_text = self.value(node.right)
            result = 1 if right == 0 else divide(left, right, node.mode or self.round_type)
            return result, f"{left_text}/{right_text}{node.mark}"
        if isinstance(node, Negate):
            body, body_text = self.value(node.body)
            return -body, f"-{body_text}"
        body, body_text = self.value(node.body)
        return body, f"({body_text})"

    def roll(self, node: DiceRoll) -> tuple[int, str]:
        times = self.static(node.times)
        sides = self.sides_of(node)
        values = self.roll_values(times, sides)
        kept = values
        count: int | None = None
        if node.filter is not None and node.count is not None:
            values = sorted(values)
            count = self.static(node.count)
            keep = max(count, 0)
            if node.filter == "KH":
                kept = values[::-1][:keep]
            elif node.filter == "KL":
                kept = values[:keep]
            elif node.filter == "DH":
                kept = values[::-1][keep:]
            else:
                kept = values[keep:]
        total = sum(kept)
        notation = f"{times}D{sides}" if count is None else f"{times}D{sides}{node.filter}{count}"
        self.terms.append(
            DiceTerm.model_construct(
                notation=notation,
                times=times,
                sides=sides,
                values=tuple(values),
                kept=tuple(kept),
                filter=node.filter,
                filter_count=count,
                total=total,
            )
        )
        return total, f"{total}[{','.join(map(str, values))}]"

    def roll_values(self, times: int, sides: int) -> list[int]:
        """Roll as BCDice's add-dice randomizer (d66 values, limits, system sort)."""
        system = self.ctx.system
        source = self.ctx.source
        if sides == 66:
            count = max(times, 0)
            reserve_dice(self.ctx, 2 * count)
            values = [self.d66() for _ in range(count)]
        elif times <= 0 or times > MAX_DICE_PER_TERM:
            values = []
        elif sides <= 0 or sides > MAX_SIDES:
            values = [0] * times
        else:
            reserve_dice(self.ctx, times)
            values = [source.roll(sides) for _ in range(times)]
        if system.sort_add_dice:
            values.sort()
        self.dice.extend(Die(v, sides) for v in values)
        return values

    def d66(self) -> int:
        first = self.ctx.source.roll(6)
        second = self.ctx.source.roll(6)
        order = self.ctx.system.d66_sort_type
        if (order == "asc" and first > second) or (order == "desc" and first < second):
            first, second = second, first
        return first * 10 + second


def run_add_dice(command: AddDiceCommand, ctx: RollContext) -> Outcome:
    """Roll a parsed add-dice command and judge it against its target."""
    roll = _Roll(ctx)
    try:
        total, shown = roll.value(command.expression)
        expression_text = roll.notation(command.expression)
        notation = expression_text
        target: int | None = None
        if command.op is not None:
            notation += _DISPLAY_OP[command.op]
            if command.target is None:
                notation += "?"
            else:
                target = roll.static(command.target)
                notation += str(target)
    except ArithmeticFailure:
        return error_outcome("overflow", ctx.locale)

    parts = [f"({notation})"]
    expression = command.expression
    if not (len(roll.dice) <= 1 and isinstance(expression, DiceRoll) and expression.plain):
        parts.append(shown)
    parts.append(str(total))
    judged: Outcome | None = None
    if command.op is not None:
        judged = ctx.system.check_result(total, roll.dice, command.op, target, ctx)
        if judged is not None and judged.text:
            parts.append(judged.text)
    detail = AddDiceDetail.model_construct(
        expression=expression_text,
        terms=tuple(roll.terms),
        total=total,
        comparison=command.op,
        target=target,
        target_undecided=command.op is not None and command.target is None,
        judgement=judged.text if judged is not None and judged.text else None,
    )
    return Outcome.model_construct(
        text=_SEPARATOR.join(parts),
        success=judged.success if judged else False,
        failure=judged.failure if judged else False,
        critical=judged.critical if judged else False,
        fumble=judged.fumble if judged else False,
        detail=detail,
    )


@register_command("add_dice", 10, r"[ \t\n\v\f\r]*[S\u017f]?[0-9(+\-D]")
def add_dice(command: str, ctx: RollContext) -> Outcome | None:
    """``xDy`` arithmetic with an optional target; None when the line is not one."""
    parsed = parse_add_dice(without_secret(first_word(command)))
    if parsed is None:
        return None
    return run_add_dice(parsed, ctx)
