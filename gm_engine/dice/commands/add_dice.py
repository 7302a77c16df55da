"""Add dice, BCDice's ``AddDice``: ``xDy`` terms in arithmetic, with an optional target.

``2D6+1>=7``, ``(2+3)D6-1D4``, ``5D10KH3`` (keep/drop highest/lowest: KH KL DH DL,
MAX = KH1, MIN = KL1), ``3D`` (the system's implicit sides), ``2D66`` (d66 values),
divisions rounded by the suffix U/C (up), R (half away from zero), F (down) or by the
system (no suffix), and the targets ``= <> < > <= >=`` with a number or ``?``.

BCDice's own limits hold: a term of over 200 dice rolls nothing (total 0), a die with
under 1 or over 10000 sides shows 0 without rolling, and a division by zero gives 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.commands._arith import (
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
from gm_engine.dice.result import Detail, Outcome, model_builder, new_outcome
from gm_engine.dice.source import SHARED_FACES_UP_TO, Die, die_faces
from gm_engine.dice.system import CompareOp, RollContext, RoundType

#: A single ``xDy`` rolls nothing when x is over this (BCDice's UPPER_LIMIT_DICE_TIMES).
MAX_DICE_PER_TERM = 200
#: A die with more sides than this shows 0 without rolling (UPPER_LIMIT_DICE_SIDES).
MAX_SIDES = 10_000

_SEPARATOR = " ＞ "
_DISPLAY_OP: dict[CompareOp, str] = {"==": "=", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}


class DiceTerm(BaseModel):
    """One ``xDy`` term as rolled.

    ``values`` are its dice as BCDice shows them (in rolling order, sorted when the
    term keeps or drops some, or when the system sorts add dice; a die with sides out
    of range shows 0), ``kept`` those that count, ``total`` their sum. The dice in
    rolling order are in :attr:`RollResult.dice`.
    """

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
    """The dice of one evaluation: every die as BCDice's add-dice randomizer records
    it (a d66 is one die of 66 sides), and every term for the detail."""

    __slots__ = ("ctx", "dice", "terms")

    def __init__(self, ctx: RollContext) -> None:
        self.ctx = ctx
        self.dice: list[Die] = []
        self.terms: list[DiceTerm] = []

    def term(self, spec: _TermSpec) -> tuple[int, str]:
        values = self.roll_values(spec.times, spec.sides)
        kept = values
        if spec.filter is not None:
            values = sorted(values)
            keep = max(spec.count, 0)
            if spec.filter == "KH":
                kept = values[::-1][:keep]
            elif spec.filter == "KL":
                kept = values[:keep]
            elif spec.filter == "DH":
                kept = values[::-1][keep:]
            else:
                kept = values[keep:]
        total = sum(kept)
        self.terms.append(
            _new_dice_term(
                notation=spec.notation,
                times=spec.times,
                sides=spec.sides,
                values=tuple(values),
                kept=tuple(kept),
                filter=spec.filter,
                filter_count=spec.count if spec.filter is not None else None,
                total=total,
            )
        )
        return total, f"{total}[{','.join(map(str, values))}]"

    def roll_values(self, times: int, sides: int) -> list[int]:
        """Roll as BCDice's add-dice randomizer (d66 values, limits, system sort)."""
        ctx = self.ctx
        if 0 < sides <= MAX_SIDES and 0 < times <= MAX_DICE_PER_TERM and sides != 66:
            # the common case first: ordinary dice within BCDice's limits
            ctx.reserve_dice(times)
            source = ctx.source
            values = [source.roll(sides)] if times == 1 else source.roll_many(times, sides)
        elif sides == 66:
            count = max(times, 0)
            ctx.reserve_dice(2 * count)
            values = [self.d66() for _ in range(count)]
        elif times <= 0 or times > MAX_DICE_PER_TERM:
            values = []
        else:
            values = [0] * times  # sides out of range: BCDice shows 0 without rolling
        if ctx.system.sort_add_dice:
            values.sort()
        if 0 < sides <= SHARED_FACES_UP_TO:
            # values are faces of such a die here (d66 values 11..66 included)
            self.dice.extend(map(die_faces(sides).__getitem__, values))
        else:
            self.dice.extend([Die(v, sides) for v in values])
        return values

    def d66(self) -> int:
        first = self.ctx.source.roll(6)
        second = self.ctx.source.roll(6)
        order = self.ctx.system.d66_sort_type
        if (order == "asc" and first > second) or (order == "desc" and first < second):
            first, second = second, first
        return first * 10 + second


#: Evaluates (part of) an expression: its value and its text with the dice shown.
_Evaluator = Callable[[_Roll], tuple[int, str]]


@dataclass(frozen=True, slots=True)
class _TermSpec:
    """A dice term with its numbers worked out (they never depend on the dice)."""

    notation: str
    times: int
    sides: int
    filter: FilterKind | None
    count: int


@dataclass(frozen=True, slots=True)
class _Plan:
    """A parsed command compiled for one system's settings: its echo, its target and
    the evaluator of its expression. Cached, so a repeated command is not re-parsed."""

    notation: str
    expression: str
    op: CompareOp | None
    target: int | None
    evaluate: _Evaluator
    single_plain_roll: bool


class _Compiler:
    """Turns a tree into an evaluator, folding what does not depend on the dice."""

    def __init__(self, round_type: RoundType, implicit_sides: int) -> None:
        self.round_type = round_type
        self.implicit_sides = implicit_sides

    def static(self, node: Node) -> int:
        return evaluate_arithmetic(node, self.round_type, zero_divisor_gives=1)

    def notation(self, node: Node) -> str:
        """The expression as echoed in the text's first part: dice as ``xDy``."""
        if isinstance(node, Number):
            return str(node.value)
        if isinstance(node, DiceRoll):
            return self.term_spec(node).notation
        if isinstance(node, Binary):
            return f"{self.notation(node.left)}{node.op}{self.notation(node.right)}"
        if isinstance(node, Divide):
            return f"{self.notation(node.left)}/{self.notation(node.right)}{node.mark}"
        if isinstance(node, Negate):
            return f"-{self.notation(node.body)}"
        return f"({self.notation(node.body)})"

    def term_spec(self, node: DiceRoll) -> _TermSpec:
        times = self.static(node.times)
        sides = self.implicit_sides if node.sides is None else self.static(node.sides)
        if node.filter is None or node.count is None:
            return _TermSpec(f"{times}D{sides}", times, sides, None, 0)
        count = self.static(node.count)
        return _TermSpec(f"{times}D{sides}{node.filter}{count}", times, sides, node.filter, count)

    def compile(self, node: Node) -> _Evaluator:
        if isinstance(node, Number):
            constant = (node.value, str(node.value))
            return lambda roll: constant
        if isinstance(node, DiceRoll):
            spec = self.term_spec(node)
            return lambda roll: roll.term(spec)
        if isinstance(node, Binary):
            return self.binary(self.compile(node.left), node.op, self.compile(node.right))
        if isinstance(node, Divide):
            return self.division(self.compile(node.left), self.compile(node.right), node)
        body = self.compile(node.body)
        if isinstance(node, Negate):

            def negate(roll: _Roll) -> tuple[int, str]:
                value, text = body(roll)
                return -value, f"-{text}"

            return negate

        def paren(roll: _Roll) -> tuple[int, str]:
            value, text = body(roll)
            return value, f"({text})"

        return paren

    @staticmethod
    def binary(left: _Evaluator, op: Literal["+", "-", "*"], right: _Evaluator) -> _Evaluator:
        def evaluate(roll: _Roll) -> tuple[int, str]:
            a, a_text = left(roll)
            b, b_text = right(roll)
            value = a + b if op == "+" else a - b if op == "-" else a * b
            return value, f"{a_text}{op}{b_text}"

        return evaluate

    def division(self, left: _Evaluator, right: _Evaluator, node: Divide) -> _Evaluator:
        mode = node.mode or self.round_type
        mark = node.mark

        def evaluate(roll: _Roll) -> tuple[int, str]:
            a, a_text = left(roll)
            b, b_text = right(roll)
            # BCDice's add dice answer 1 to any division by zero.
            value = 1 if b == 0 else divide(a, b, mode)
            return value, f"{a_text}/{b_text}{mark}"

        return evaluate


@lru_cache(maxsize=4096)
def compile_add_dice(word: str, round_type: RoundType, implicit_sides: int) -> _Plan | None:
    """Parse and compile the command word (secret ``S`` removed), or None when it is
    not add dice.

    Raises:
        TooComplexError: the expression nests too deeply.
        ArithmeticFailure: a count or side number cannot be computed (too large).
    """
    command = parse_add_dice(word)
    if command is None:
        return None
    compiler = _Compiler(round_type, implicit_sides)
    expression = compiler.notation(command.expression)
    notation = expression
    target: int | None = None
    if command.op is not None:
        notation += _DISPLAY_OP[command.op]
        if command.target is None:
            notation += "?"
        else:
            target = compiler.static(command.target)
            notation += str(target)
    root = command.expression
    return _Plan(
        notation=notation,
        expression=expression,
        op=command.op,
        target=target,
        evaluate=compiler.compile(root),
        single_plain_roll=isinstance(root, DiceRoll) and root.plain,
    )


def run_add_dice(plan: _Plan, ctx: RollContext) -> Outcome:
    """Roll a compiled add-dice command and judge it against its target.

    Raises:
        ArithmeticFailure: a division the engine cannot round (numbers too large).
    """
    roll = _Roll(ctx)
    total, shown = plan.evaluate(roll)
    if plan.single_plain_roll and len(roll.dice) <= 1:
        text = f"({plan.notation}){_SEPARATOR}{total}"
    else:
        text = f"({plan.notation}){_SEPARATOR}{shown}{_SEPARATOR}{total}"
    judged: Outcome | None = None
    judgement: str | None = None
    if plan.op is not None:
        judged = ctx.system.check_result(total, roll.dice, plan.op, plan.target, ctx)
        if judged is not None and judged.text:
            judgement = judged.text
            text = f"{text}{_SEPARATOR}{judgement}"
    detail = _new_add_dice_detail(
        kind="add_dice",
        expression=plan.expression,
        terms=tuple(roll.terms),
        total=total,
        comparison=plan.op,
        target=plan.target,
        target_undecided=plan.op is not None and plan.target is None,
        judgement=judgement,
    )
    if judged is None:
        return new_outcome(text, detail)
    return new_outcome(text, detail, judged.success, judged.failure, judged.critical, judged.fumble)


#: The cheap test of the engine before :func:`add_dice` runs (matched at the line's start).
PREFIX = r"[ \t\n\v\f\r]*[S\u017f]?[0-9(+\-D]"


def add_dice(command: str, ctx: RollContext) -> Outcome | None:
    """``xDy`` arithmetic with an optional target; None when the line is not one."""
    system = ctx.system
    plan = compile_add_dice(without_secret(first_word(command)), system.round_type, system.sides_implicit_d)
    if plan is None:
        return None
    return run_add_dice(plan, ctx)


# Builders of the models this module makes on every roll (see model_builder).
_new_dice_term = model_builder(DiceTerm)
_new_add_dice_detail = model_builder(AddDiceDetail)
