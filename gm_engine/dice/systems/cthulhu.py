"""Call of Cthulhu 6th edition (クトゥルフ神話TRPG), byte-compatible with BCDice 3.16.

Commands (the ``B`` forms use the 5% rule, the others the 1% rule):

* ``CC<=n`` / ``CCB<=n`` percentile skill roll; ``CC(x)<=n`` adds a malfunction
  number x; ``n`` may be arithmetic of ``+ - * /`` (``CCB<=(12*5)-20``, whose
  parenthesis the preprocessor computes first). As in BCDice, ``CC`` alone, a target of
  0 or less, or one that is not arithmetic BCDice reads (``10.5``, ``5+``, ``2**3``, a
  division by zero) just rolls 1D100 with no verdict.
* ``RES(a-p)`` / ``RESB(a-p)`` resistance roll: the target is (a - p) * 5 + 50,
  automatic failure under 5, automatic success over 95.
* ``CBR(x,y)`` / ``CBRB(x,y)`` combined roll against two targets.

A roll at or under the target (and under 100) succeeds; at or under target/5 (at
least 1) it is a special; at or under 1 (5 for the B forms) a critical. A failure at or over 100 (96)
is a fumble. A roll at or over the malfunction number is a malfunction whatever else.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar, Literal

from gm_engine.dice.commands._arith import (
    ArithmeticFailure,
    TooComplexError,
    evaluate_arithmetic,
    parse_arithmetic,
)
from gm_engine.dice.result import Detail, Outcome, construct
from gm_engine.dice.system import GameSystem, RollContext
from gm_engine.dice.systems._bcdice import outcome

SYSTEM_ID = "Cthulhu"

CheckResult = Literal[
    "critical_special",
    "critical",
    "special",
    "success",
    "fumble_malfunction",
    "malfunction",
    "fumble",
    "failure",
    "automatic_success",
    "automatic_failure",
]
CombinedResult = Literal["success", "partial_success", "failure"]

RESULT_JA: dict[str, str] = {
    "critical_special": "決定的成功/スペシャル",
    "critical": "決定的成功",
    "special": "スペシャル",
    "success": "成功",
    "fumble_malfunction": "致命的失敗/故障",
    "malfunction": "故障",
    "fumble": "致命的失敗",
    "failure": "失敗",
    "automatic_success": "自動成功",
    "automatic_failure": "自動失敗",
    "partial_success": "部分的成功",
}
RESULT_EN: dict[str, str] = {
    "critical_special": "Critical/Special",
    "critical": "Critical",
    "special": "Special",
    "success": "Success",
    "fumble_malfunction": "Fumble/Malfunction",
    "malfunction": "Malfunction",
    "fumble": "Fumble",
    "failure": "Failure",
    "automatic_success": "Automatic success",
    "automatic_failure": "Automatic failure",
    "partial_success": "Partial success",
}

_NOTATION = re.compile(r"CCB?")
_RES = re.compile(r"(RESB?)(-?[0-9]+)", re.ASCII)
_CBR = re.compile(r"(CBRB?)\(([0-9]+),([0-9]+)\)", re.ASCII)


class CoC6CheckDetail(Detail):
    """A CC/CCB/RES/RESB roll. ``critical_range`` is 1 or 5: criticals at or under it,
    fumbles at or over 101 minus it. ``value`` is None for an automatic result and
    ``target`` None for a bare 1D100."""

    kind: Literal["coc6_check"] = "coc6_check"
    command: Literal["CC", "CCB", "RES", "RESB"]
    critical_range: int
    target: int | None
    malfunction: int | None
    value: int | None
    result: CheckResult | None


class CoC6CombinedDetail(Detail):
    """A CBR/CBRB roll: one d100 against two targets."""

    kind: Literal["coc6_combined"] = "coc6_combined"
    command: Literal["CBR", "CBRB"]
    critical_range: int
    targets: tuple[int, int]
    value: int
    results: tuple[CheckResult, CheckResult]
    result: CombinedResult


class _Check:
    """The flags of one d100 against one target, before they become text."""

    __slots__ = ("critical", "failure", "fumble", "malfunction", "special", "success")

    def __init__(self, total: int, target: int, critical_range: int, malfunction: int = 0) -> None:
        self.success = self.special = self.critical = False
        self.failure = self.fumble = self.malfunction = False
        if total <= target and total < 100:
            self.success = True
            # BCDice: (target * 20 / 100).clamp(1, 100)
            self.special = total <= min(max(target * 20 // 100, 1), 100)
            self.critical = total <= critical_range
        else:
            self.failure = True
            self.fumble = total >= 101 - critical_range
        if malfunction > 0 and total >= malfunction:
            self.malfunction = self.failure = True
            self.success = self.special = self.critical = False

    @property
    def result(self) -> CheckResult:
        if self.critical:
            return "critical_special" if self.special else "critical"
        if self.special:
            return "special"
        if self.success:
            return "success"
        if self.malfunction:
            return "fumble_malfunction" if self.fumble else "malfunction"
        return "fumble" if self.fumble else "failure"


# BCDice's %r{^CCB?(\d+)?(?:<=([+-/*\d]+))?$}i: the class "+-/" is the range from + to
# /, so the target may hold the characters + , - . / * and digits.
_SKILL_CHECK = re.compile(r"CCB?([0-9]+)?(?:<=([+,\-./*0-9]+))?", re.IGNORECASE)


@lru_cache(maxsize=4096)
def parse_skill_check(command: str) -> tuple[str, int, int] | None:
    """Read ``CC[B][x][<=target]`` as BCDice's Cthulhu does (after preprocessing).

    Returns (notation, malfunction number, target), or None when the text is not such a
    command. A missing malfunction number is 0; the target is BCDice's
    ``ArithmeticEvaluator.eval``: the arithmetic's value, 0 when it is absent, cannot
    be read (``10.5``, ``2**3``, ``5+``) or divides by zero.
    """
    match = _SKILL_CHECK.fullmatch(command)
    if match is None:
        return None
    digits, expression = match.group(1), match.group(2)
    malfunction = 0 if digits is None else _ruby_int(digits)
    target = 0 if expression is None else _ruby_arithmetic(expression)
    notation = "CCB" if command[:3].upper() == "CCB" else "CC"
    return notation, malfunction, target


def _ruby_int(digits: str) -> int:
    # Python refuses to read more than sys.get_int_max_str_digits() digits at once;
    # a malfunction number that long is in any case past every d100 roll.
    stripped = digits.lstrip("0")
    return int(stripped or "0") if len(stripped) <= 100 else 10**100


def _ruby_arithmetic(expression: str) -> int:
    """BCDice's ``ArithmeticEvaluator.eval`` with its default rounding (floor)."""
    try:
        node = parse_arithmetic(expression)
        return 0 if node is None else evaluate_arithmetic(node, "floor")
    except TooComplexError:
        raise  # nested past what the parser reads: refused with its own text
    except (ArithmeticFailure, ValueError):  # division by zero; a number too long to read
        return 0


def _judged(
    name: Literal["CC", "CCB", "RES", "RESB"],
    critical_range: int,
    target: int,
    malfunction: int | None,
    value: int,
    check: _Check,
    expr: str,
    english: bool,
) -> Outcome:
    """The outcome of a d100 judged against ``target``: ``expr > value > result``."""
    result = check.result
    detail = construct(
        CoC6CheckDetail,
        kind="coc6_check",
        command=name,
        critical_range=critical_range,
        target=target,
        malfunction=malfunction,
        value=value,
        result=result,
    )
    arrow = ">" if english else "＞"
    words = RESULT_EN if english else RESULT_JA
    return outcome(
        f"{expr} {arrow} {value} {arrow} {words[result]}",
        detail,
        success=check.success,
        failure=check.failure,
        critical=check.critical,
        fumble=check.fumble,
    )


class Cthulhu(GameSystem):
    """Call of Cthulhu 6th edition: CC, CCB, RES, RESB, CBR, CBRB."""

    id = SYSTEM_ID
    name = "クトゥルフ神話TRPG"
    sort_key = "くとうるふしんわTRPG"
    prefixes = ("CCB?", "RESB?", "CBRB?")
    help_text = (
        "CC<=n（1%ルール: 1でクリティカル、100でファンブル）と CCB<=n（5%ルール: 1〜5と96〜100）、"
        "n/5 以下でスペシャル。CC(x)<=n は故障ナンバー x つき。RES(a-p) / RESB(a-p) は抵抗ロール、"
        "CBR(x,y) / CBRB(x,y) は組み合わせロール。"
    )
    help_text_en = (
        "CC<=n (1% rule: critical 1, fumble 100) and CCB<=n (5% rule: 1-5, 96-100); special at n/5. "
        "CC(x)<=n with malfunction number x. RES(a-p) / RESB(a-p) resistance roll. "
        "CBR(x,y) / CBRB(x,y) combined roll."
    )
    command_pattern: ClassVar[re.Pattern[str] | None] = re.compile(r"CC|RES|CBR", re.IGNORECASE)

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        """Evaluate a CC, RES or CBR family command; None when ``command`` is not one."""
        if command.startswith("CC"):
            return self._skill_check(command, ctx)
        if command.startswith("RES"):
            return self._resistance(command, ctx)
        if command.startswith("CBR"):
            return self._combined(command, ctx)
        return None

    def _skill_check(self, command: str, ctx: RollContext) -> Outcome | None:
        parsed = parse_skill_check(command)
        if parsed is None:
            return None
        notation, malfunction, target = parsed
        name: Literal["CC", "CCB"] = "CCB" if notation == "CCB" else "CC"
        critical_range = 1 if name == "CC" else 5
        english = ctx.locale == "en"
        arrow = ">" if english else "＞"
        if target <= 0:
            # BCDice: a target of 0 or less (or none, or one it cannot read) is a bare d100
            value = ctx.source.roll(100)
            detail = construct(
                CoC6CheckDetail,
                kind="coc6_check",
                command=name,
                critical_range=critical_range,
                target=None,
                malfunction=malfunction or None,
                value=value,
                result=None,
            )
            return outcome(f"(1D100) {arrow} {value}", detail)
        expr = f"(1D100<={target})"
        if malfunction > 0:
            expr += f" Malfunction number[{malfunction}]" if english else f" 故障ナンバー[{malfunction}]"
        value = ctx.source.roll(100)
        check = _Check(value, target, critical_range, malfunction)
        return _judged(name, critical_range, target, malfunction or None, value, check, expr, english)

    def _resistance(self, command: str, ctx: RollContext) -> Outcome | None:
        match = _RES.fullmatch(command)
        if match is None:
            return None
        name: Literal["RES", "RESB"] = "RESB" if match.group(1) == "RESB" else "RES"
        critical_range = 1 if name == "RES" else 5
        target = int(match.group(2)) * 5 + 50
        english = ctx.locale == "en"
        arrow = ">" if english else "＞"
        words = RESULT_EN if english else RESULT_JA

        def automatic(result: CheckResult) -> Outcome:
            detail = construct(
                CoC6CheckDetail,
                kind="coc6_check",
                command=name,
                critical_range=critical_range,
                target=target,
                malfunction=None,
                value=None,
                result=result,
            )
            text = f"(1d100<={target}) {arrow} {words[result]}"
            ok = result == "automatic_success"
            return outcome(text, detail, success=ok, failure=not ok)

        if target < 5:
            return automatic("automatic_failure")
        if target > 95:
            return automatic("automatic_success")
        value = ctx.source.roll(100)
        check = _Check(value, target, critical_range)
        return _judged(name, critical_range, target, None, value, check, f"(1d100<={target})", english)

    def _combined(self, command: str, ctx: RollContext) -> Outcome | None:
        match = _CBR.fullmatch(command)
        if match is None:
            return None
        name: Literal["CBR", "CBRB"] = "CBRB" if match.group(1) == "CBRB" else "CBR"
        critical_range = 1 if name == "CBR" else 5
        first, second = int(match.group(2)), int(match.group(3))
        value = ctx.source.roll(100)
        check_1 = _Check(value, first, critical_range)
        check_2 = _Check(value, second, critical_range)
        result: CombinedResult = (
            "success"
            if check_1.success and check_2.success
            else "partial_success"
            if check_1.success or check_2.success
            else "failure"
        )
        result_1, result_2 = check_1.result, check_2.result
        detail = construct(
            CoC6CombinedDetail,
            kind="coc6_combined",
            command=name,
            critical_range=critical_range,
            targets=(first, second),
            value=value,
            results=(result_1, result_2),
            result=result,
        )
        english = ctx.locale == "en"
        arrow = ">" if english else "＞"
        words = RESULT_EN if english else RESULT_JA
        text = (
            f"(1d100<={first},{second}) {arrow} {value}[{words[result_1]},{words[result_2]}] "
            f"{arrow} {words[result]}"
        )
        # BCDice: success when either roll succeeded, critical/fumble when either was one.
        either = check_1.success or check_2.success
        return outcome(
            text,
            detail,
            success=either,
            failure=not either,
            critical=check_1.critical or check_2.critical,
            fumble=check_1.fumble or check_2.fumble,
        )
