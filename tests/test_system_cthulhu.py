"""Call of Cthulhu 6th edition: CC/CCB, RES/RESB, CBR/CBRB as BCDice 3.16 answers them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.dice.conformance import load_cases, run_case
from gm_engine.dice.engine import ErrorDetail, evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import QueueSource, SeededSource
from gm_engine.dice.system import RollContext
from gm_engine.dice.systems.cthulhu import CoC6CheckDetail, CoC6CombinedDetail, Cthulhu, parse_skill_check

SYSTEM = "Cthulhu"


def roll(line: str, *values: int, locale: Locale = "ja") -> RollResult:
    result = evaluate(line, SYSTEM, source=QueueSource([(v, 100) for v in values]), locale=locale)
    assert result is not None, line
    return result


def test_all_bcdice_vectors_pass(vectors_dir: Path) -> None:
    failures = [
        (case.index, case.input, result.got_output)
        for case in load_cases(vectors_dir / "Cthulhu.toml")
        if not (result := run_case(case)).passed
    ]
    assert failures == []


@pytest.mark.parametrize(
    "value,text,critical,fumble",
    [
        (1, "決定的成功/スペシャル", True, False),
        (2, "スペシャル", False, False),
        (5, "スペシャル", False, False),
        (99, "失敗", False, False),
        (100, "致命的失敗", False, True),
    ],
)
def test_cc_one_percent_rule_critical_1_fumble_100(
    value: int, text: str, critical: bool, fumble: bool
) -> None:
    result = roll("CC<=60", value)
    assert result.text == f"(1D100<=60) ＞ {value} ＞ {text}"
    assert (result.critical, result.fumble) == (critical, fumble)


@pytest.mark.parametrize(
    "value,text,critical,fumble",
    [
        (5, "決定的成功/スペシャル", True, False),
        (6, "スペシャル", False, False),
        (95, "失敗", False, False),
        (96, "致命的失敗", False, True),
    ],
)
def test_ccb_five_percent_rule_critical_1_to_5_fumble_96_to_100(
    value: int, text: str, critical: bool, fumble: bool
) -> None:
    result = roll("CCB<=60", value)
    assert result.text.endswith(f"＞ {text}")
    assert (result.critical, result.fumble) == (critical, fumble)


def test_special_is_a_fifth_of_the_target_rounded_down() -> None:
    assert roll("CC<=59", 11).text.endswith("スペシャル")
    assert roll("CC<=59", 12).text.endswith("＞ 成功")


def test_critical_without_special_when_the_target_is_small() -> None:
    result = roll("CCB<=10", 4)  # 4 <= 5 (critical) but 4 > 10/5 (no special)
    assert result.text == "(1D100<=10) ＞ 4 ＞ 決定的成功"
    detail = result.detail
    assert isinstance(detail, CoC6CheckDetail) and detail.result == "critical"


def test_100_always_fails_even_against_100_or_more() -> None:
    result = roll("CC<=120", 100)
    assert result.text.endswith("致命的失敗") and result.failure


def test_malfunction_number_overrides_success_and_keeps_the_fumble() -> None:
    assert roll("CC(94)<=98", 97).text == "(1D100<=98) 故障ナンバー[94] ＞ 97 ＞ 故障"
    both = roll("CC(94)<=98", 100)
    assert both.text.endswith("致命的失敗/故障") and both.fumble and both.failure
    assert roll("CC94<=98", 50).text.endswith("＞ 成功")


def test_target_may_be_arithmetic_without_rounding_letters() -> None:
    assert roll("CCB<=(12*5)-20", 37).text == "(1D100<=40) ＞ 37 ＞ 成功"
    # the parenthesis is folded by the preprocessor, rounding letter included
    assert roll("CC<=(50/3U)", 17).text == "(1D100<=17) ＞ 17 ＞ 成功"
    # outside one, a rounding letter is not in BCDice's pattern; nor is a modifier
    assert evaluate("CC<=50/3U", SYSTEM, source=QueueSource([])) is None
    assert evaluate("CC+10<=50", SYSTEM, source=QueueSource([])) is None


def test_bare_cc_rolls_d100_without_judgement() -> None:
    result = roll("CC", 42)
    assert result.text == "(1D100) ＞ 42"
    assert not any(result.flags.values())


@pytest.mark.parametrize(
    "line",
    [
        "CC>=50", "CC<50", "CCX", "CC<=", "RES18-11", "CBR(1)",
        # BCDice's pattern has no room for these (^CCB?(\d+)?(?:<=([+-/*\d]+))?$)
        "CCB(-1)<=70", "CC-1<=5", "CCB+1<=50", "CC1+4/0<=50", "CC=<7", "CC<==50", "CC<<=50",
        "CCB<=49/2R", "CC<=(50)U", "CC1<=50!", "CC1!50",
        "CCB<=(5/0)",  # the preprocessor leaves a parenthesis it cannot compute
    ],
)
def test_unreadable_commands_are_not_commands(line: str) -> None:
    assert evaluate(line, SYSTEM, source=QueueSource([])) is None


@pytest.mark.parametrize(
    "line",
    [
        "CCB<=30-30", "CC<=0", "CC<=-5", "CC(95)<=0",  # a target of 0 or less
        "CC<=10.5", "CC<=2**3", "CC<=8//2", "CC<=5+", "CC<=1,2",  # arithmetic BCDice cannot read
        "CC<=50/0", "CCB<=5/0*2",  # a division by zero reads as 0
    ],
)
def test_a_target_bcdice_reads_as_0_rolls_a_bare_d100(line: str) -> None:
    result = roll(line, 42)
    assert result.text == "(1D100) ＞ 42"
    assert not any(result.flags.values())
    assert isinstance(result.detail, CoC6CheckDetail) and result.detail.result is None


@pytest.mark.parametrize(
    ("command", "parsed"),
    [
        ("CCB5<=10+2*3", ("CCB", 5, 16)),
        ("CC", ("CC", 0, 0)),
        ("CC007<=7", ("CC", 7, 7)),
        ("CC1<=20*4", ("CC", 1, 80)),
        ("CC1<=-5/2", ("CC", 1, -3)),  # floor division, as ArithmeticEvaluator
        ("CC1<=7/2*2", ("CC", 1, 6)),
        ("CC<=7R", None),
        ("CC-1<=5", None),
    ],
)
def test_parse_skill_check_reads_like_bcdice(command: str, parsed: tuple[str, int, int] | None) -> None:
    assert parse_skill_check(command) == parsed


def test_parenthesised_arithmetic_is_folded_before_the_pattern_reads_it() -> None:
    assert roll("CC(1+1)<=(2+3)*4", 2).text == "(1D100<=20) 故障ナンバー[2] ＞ 2 ＞ 故障"
    # (-1) folds to -1, which the pattern does not allow after CC
    assert evaluate("CC(-1)<=50", SYSTEM, source=QueueSource([])) is None


def test_the_special_threshold_is_at_least_1() -> None:
    # BCDice: (target * 20 / 100).clamp(1, 100); a target of 4 has a special on 1
    assert roll("CC<=4", 1).text == "(1D100<=4) ＞ 1 ＞ 決定的成功/スペシャル"
    combined = roll("CBR(60,1)", 1)
    assert combined.text == "(1d100<=60,1) ＞ 1[決定的成功/スペシャル,決定的成功/スペシャル] ＞ 成功"
    assert roll("CCB<=4", 2).text == "(1D100<=4) ＞ 2 ＞ 決定的成功"
    assert roll("CCB<=5", 1).text == "(1D100<=5) ＞ 1 ＞ 決定的成功/スペシャル"
    assert roll("CC<=9", 2).text == "(1D100<=9) ＞ 2 ＞ 成功"
    assert roll("CC<=10", 2).text == "(1D100<=10) ＞ 2 ＞ スペシャル"


def test_signs_past_the_nesting_limit_are_refused_clearly() -> None:
    assert roll("CC<=" + "-" * 20 + "5", 3).text == "(1D100<=5) ＞ 3 ＞ 成功"
    # BCDice reads any number of them; gm's parser refuses past its nesting limit
    result = evaluate("CC<=" + "-" * 600 + "5", SYSTEM, source=QueueSource([]))
    assert result is not None and result.dice == ()
    assert isinstance(result.detail, ErrorDetail) and result.detail.reason == "too_complex"


def test_resistance_target_is_difference_times_5_plus_50_with_automatic_ends() -> None:
    assert roll("RES(12-10)", 60).text == "(1d100<=60) ＞ 60 ＞ 成功"
    assert roll("RES(10-15)", 26).text == "(1d100<=25) ＞ 26 ＞ 失敗"
    auto_fail = roll("RES(11-30)")
    assert auto_fail.text == "(1d100<=-45) ＞ 自動失敗" and auto_fail.failure and auto_fail.dice == ()
    auto_win = roll("RESB(25-10)")
    assert auto_win.text == "(1d100<=125) ＞ 自動成功" and auto_win.success
    detail = auto_win.detail
    assert isinstance(detail, CoC6CheckDetail) and detail.value is None


def test_combined_roll_success_partial_failure_and_either_flags() -> None:
    partial = roll("CBRB(98,50)", 96)
    assert partial.text == "(1d100<=98,50) ＞ 96[成功,致命的失敗] ＞ 部分的成功"
    assert (partial.success, partial.failure, partial.fumble) == (True, False, True)
    detail = partial.detail
    assert isinstance(detail, CoC6CombinedDetail)
    assert detail.results == ("success", "fumble") and detail.result == "partial_success"
    assert roll("CBR(70,30)", 71).failure


def test_secret_prefix_is_reported() -> None:
    result = roll("SCCB<=50", 30)
    assert result.secret and result.text == "(1D100<=50) ＞ 30 ＞ 成功"


def test_english_locale() -> None:
    assert roll("CC<=60", 1, locale="en").text == "(1D100<=60) > 1 > Critical/Special"
    assert roll("CC(94)<=98", 100, locale="en").text == (
        "(1D100<=98) Malfunction number[94] > 100 > Fumble/Malfunction"
    )
    assert roll("RES(11-30)", locale="en").text == "(1d100<=-45) > Automatic failure"
    combined = roll("CBR(70,30)", 50, locale="en")
    assert combined.text == "(1d100<=70,30) > 50[Success,Failure] > Partial success"


@pytest.mark.parametrize("line,values", [("CCB(98)<=80", (99,)), ("RES(12-10)", (12,)), ("CBRB(70,2)", (3,))])
def test_json_round_trip(line: str, values: tuple[int, ...]) -> None:
    result = roll(line, *values)
    again = RollResult.model_validate_json(result.model_dump_json())
    assert again == result and type(again.detail) is type(result.detail)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="CBRES0123456789()<=>!,+-*/UF ", max_size=24))
def test_no_command_string_raises(text: str) -> None:
    ctx = RollContext(source=SeededSource(3), system=Cthulhu())
    command = text.strip().split(" ")[0] if text.strip() else ""
    outcome = Cthulhu().eval_system_command(command, ctx)
    assert outcome is None or isinstance(outcome.text, str)
