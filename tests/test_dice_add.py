"""Add dice (``xDy`` arithmetic) and calc (``C()``), rule by rule, as BCDice 3.16."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from gm_engine.dice.commands._arith import parse_add_dice
from gm_engine.dice.commands.add_dice import AddDiceDetail
from gm_engine.dice.commands.calc import CalcDetail
from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Outcome, RollResult
from gm_engine.dice.source import Die, QueueSource
from gm_engine.dice.system import CompareOp, GameSystem, RollContext


def roll(line: str, *values: int, sides: int = 6, system: str | GameSystem = "DiceBot") -> RollResult:
    result = evaluate(line, system, source=QueueSource([(v, sides) for v in values]))
    assert result is not None, line
    return result


def text(line: str, *values: int, sides: int = 6, system: str | GameSystem = "DiceBot") -> str:
    return roll(line, *values, sides=sides, system=system).text


class CeilBot(GameSystem):
    id = "CeilTest"
    round_type = "ceil"


class RoundBot(GameSystem):
    id = "RoundTest"
    round_type = "round"


class TenSidedBot(GameSystem):
    id = "TenSidedTest"
    sides_implicit_d = 10


class SortingBot(GameSystem):
    id = "SortingTest"
    sort_add_dice = True
    d66_sort_type = "asc"


class CriticalBot(GameSystem):
    """A system that judges a double six as a critical, as game systems do."""

    id = "CriticalTest"

    def check_result(
        self, total: int, dice: Sequence[Die], op: CompareOp, target: int | None, ctx: RollContext
    ) -> Outcome | None:
        if [d.value for d in dice] == [6, 6]:
            return Outcome(text="クリティカル", success=True, critical=True)
        return super().check_result(total, dice, op, target, ctx)


# --- arithmetic and rounding --------------------------------------------------------


def test_plain_division_rounds_down_towards_negative_infinity() -> None:
    assert text("3D6/2", 1, 2, 4) == "(3D6/2) ＞ 7[1,2,4]/2 ＞ 3"
    assert text("1D6/-4", 5) == "(1D6/-4) ＞ 5[5]/-4 ＞ -2"


def test_rounding_suffix_u_and_c_round_up_and_print_as_u() -> None:
    assert text("1D6+4/3U", 1) == "(1D6+4/3U) ＞ 1[1]+4/3U ＞ 3"
    assert text("1D6+4/3C", 1) == "(1D6+4/3U) ＞ 1[1]+4/3U ＞ 3"
    assert text("1d6/-3u", 4) == "(1D6/-3U) ＞ 4[4]/-3U ＞ -1"


def test_rounding_suffix_r_rounds_half_away_from_zero() -> None:
    assert text("2D10/10R", 1, 4, sides=10) == "(2D10/10R) ＞ 5[1,4]/10R ＞ 1"
    assert text("2D10/10R", 10, 4, sides=10) == "(2D10/10R) ＞ 14[10,4]/10R ＞ 1"
    assert text("1D6/-2R", 5) == "(1D6/-2R) ＞ 5[5]/-2R ＞ -3"
    assert text("1d6/-3r", 4) == "(1D6/-3R) ＞ 4[4]/-3R ＞ -1"


def test_rounding_suffix_f_rounds_down_and_is_printed() -> None:
    assert text("1D6+3/2F", 1) == "(1D6+3/2F) ＞ 1[1]+3/2F ＞ 2"
    assert text("1D6/-4F", 5) == "(1D6/-4F) ＞ 5[5]/-4F ＞ -2"


def test_division_without_suffix_follows_the_system_round_type() -> None:
    assert text("1D6/4", 5, system=CeilBot()) == "(1D6/4) ＞ 5[5]/4 ＞ 2"
    assert text("1D6/4", 2, system=RoundBot()) == "(1D6/4) ＞ 2[2]/4 ＞ 1"
    assert text("1D6/4", 1, system=RoundBot()) == "(1D6/4) ＞ 1[1]/4 ＞ 0"
    assert text("1D6/4F", 5, system=CeilBot()) == "(1D6/4F) ＞ 5[5]/4F ＞ 1"


def test_division_by_zero_gives_one() -> None:
    assert text("1D6/0", 4) == "(1D6/0) ＞ 4[4]/0 ＞ 1"
    assert text("(1/0)D6", 3) == "(1D6) ＞ 3"


def test_precedence_parentheses_and_computed_counts() -> None:
    assert text("1D6*1D6+2", 2, 3) == "(1D6*1D6+2) ＞ 2[2]*3[3]+2 ＞ 8"
    assert text("(2+3)d6-1+1D6", 1, 1, 1, 1, 1, 2) == "(5D6-1+1D6) ＞ 5[1,1,1,1,1]-1+2[2] ＞ 6"
    source = QueueSource([(5, 6), (3, 6), (4, 4)])
    result = evaluate("(2D6+(1D4+3)*3)*2", source=source)
    assert result is not None
    assert result.text == "((2D6+(1D4+3)*3)*2) ＞ (8[5,3]+(4[4]+3)*3)*2 ＞ 58"


def test_unary_minus_folds_into_the_operator_before_it() -> None:
    assert text("2d10--3-4", 3, 5, sides=10) == "(2D10+3-4) ＞ 8[3,5]+3-4 ＞ 7"
    assert text("1D6+-2", 4) == "(1D6-2) ＞ 4[4]-2 ＞ 2"
    assert text("-1D6", 3) == "(-1D6) ＞ -3[3] ＞ -3"
    assert text("--1D6", 3) == "(1D6) ＞ 3"


def test_arithmetic_without_dice_is_not_add_dice() -> None:
    assert evaluate("1+2", seed=1) is None
    assert evaluate("(1D6)D6", seed=1) is None
    assert evaluate("1D10>=2D6", seed=1) is None


# --- dice terms -----------------------------------------------------------------------


def test_a_single_die_shows_no_breakdown_but_a_filtered_one_does() -> None:
    assert text("1D6", 5) == "(1D6) ＞ 5"
    assert text("1D6KH1", 5) == "(1D6KH1) ＞ 5[5] ＞ 5"
    assert text("1D6+1", 5) == "(1D6+1) ＞ 5[5]+1 ＞ 6"


def test_implicit_sides_follow_the_system() -> None:
    assert text("2D", 3, 4) == "(2D6) ＞ 7[3,4] ＞ 7"
    assert text("2D", 3, 9, sides=10, system=TenSidedBot()) == "(2D10) ＞ 12[3,9] ＞ 12"
    assert text("D10", 7, sides=10) == "(1D10) ＞ 7"


def test_d66_alone_is_not_add_dice_but_a_d66_term_is() -> None:
    assert parse_add_dice("D66") is None
    assert parse_add_dice("D(66)") is not None
    assert text("2D66", 6, 6, 5, 4) == "(2D66) ＞ 120[66,54] ＞ 120"
    source = QueueSource([(3, 3), (1, 6), (6, 6), (6, 6), (1, 6)])
    mixed = evaluate("1D3+2D66", source=source)
    assert mixed is not None
    assert mixed.text == "(1D3+2D66) ＞ 3[3]+77[16,61] ＞ 80"
    assert mixed.dice == (Die(3, 3), Die(1, 6), Die(6, 6), Die(6, 6), Die(1, 6))


def test_d66_values_follow_the_system_sort() -> None:
    assert text("1D66", 6, 1, system=SortingBot()) == "(1D66) ＞ 16"
    assert text("1D66", 6, 1) == "(1D66) ＞ 61"


def test_the_system_may_sort_add_dice() -> None:
    assert text("3D6", 5, 1, 3, system=SortingBot()) == "(3D6) ＞ 9[1,3,5] ＞ 9"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("5D10KH3", "(5D10KH3) ＞ 21[2,3,5,8,8] ＞ 21"),
        ("5D10KH", "(5D10KH1) ＞ 8[2,3,5,8,8] ＞ 8"),
        ("5D10KL2", "(5D10KL2) ＞ 5[2,3,5,8,8] ＞ 5"),
        ("5D10DH1", "(5D10DH1) ＞ 18[2,3,5,8,8] ＞ 18"),
        ("5D10DL3", "(5D10DL3) ＞ 16[2,3,5,8,8] ＞ 16"),
        ("5D10KH0", "(5D10KH0) ＞ 0[2,3,5,8,8] ＞ 0"),
        ("5D10KH7", "(5D10KH7) ＞ 26[2,3,5,8,8] ＞ 26"),
        ("5D10MAX", "(5D10KH1) ＞ 8[2,3,5,8,8] ＞ 8"),
        ("5D10MIN-3", "(5D10KL1-3) ＞ 2[2,3,5,8,8]-3 ＞ -1"),
    ],
)
def test_keep_and_drop_highest_and_lowest(line: str, expected: str) -> None:
    assert text(line, 8, 3, 2, 5, 8, sides=10) == expected


def test_keep_detail_names_the_kept_dice() -> None:
    result = roll("5D10KH2", 8, 3, 2, 5, 8, sides=10)
    assert isinstance(result.detail, AddDiceDetail)
    (term,) = result.detail.terms
    assert term.values == (2, 3, 5, 8, 8)
    assert term.kept == (8, 8)
    assert term.filter == "KH" and term.filter_count == 2
    assert result.dice == tuple(Die(v, 10) for v in (8, 3, 2, 5, 8))


def test_bad_filters_are_not_commands() -> None:
    for line in ("5DK", "3D6MAX2", "5D6KX"):
        assert evaluate(line, seed=1) is None, line


def test_bcdice_limits_on_counts_and_sides() -> None:
    over = evaluate("201D6", seed=1)
    assert over is not None and over.text == "(201D6) ＞ 0" and over.dice == ()
    assert len(roll("200D6", *([1] * 200)).dice) == 200
    big = evaluate("1D10001", seed=1)
    assert big is not None and big.text == "(1D10001) ＞ 0" and big.dice == ()
    assert text("1D10000", 9876, sides=10000) == "(1D10000) ＞ 9876"
    zero = evaluate("2D0", seed=1)
    assert zero is not None and zero.text == "(2D0) ＞ 0[0,0] ＞ 0"
    none = evaluate("0D6", seed=1)
    assert none is not None and none.text == "(0D6) ＞ 0"


# --- comparisons ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "shown", "success"),
    [
        ("2D6>=7", ">=7", True),
        ("2D6=>7", ">=7", True),
        ("2D6>7", ">7", False),
        ("2D6<=7", "<=7", True),
        ("2D6=<7", "<=7", True),
        ("2D6<7", "<7", False),
        ("2D6=7", "=7", True),
        ("2D6==7", "=7", True),
        ("2D6<>7", "<>7", False),
        ("2D6!=7", "<>7", False),
    ],
)
def test_comparisons_are_normalised_and_judged(line: str, shown: str, success: bool) -> None:
    result = roll(line, 3, 4)
    word = "成功" if success else "失敗"
    assert result.text == f"(2D6{shown}) ＞ 7[3,4] ＞ 7 ＞ {word}"
    assert result.success is success
    assert result.failure is not success
    assert isinstance(result.detail, AddDiceDetail)
    assert result.detail.target == 7
    assert result.detail.judgement == word


def test_the_target_is_arithmetic_and_printed_as_its_value() -> None:
    assert text("1d6>=1+2", 3) == "(1D6>=3) ＞ 3 ＞ 成功"
    assert text("1d6-(1-2)>=3+2", 3) == "(1D6-(1-2)>=5) ＞ 3[3]-(1-2) ＞ 4 ＞ 失敗"


def test_an_undecided_target_judges_nothing_under_dicebot() -> None:
    result = roll("2D6>=?", 6, 6)
    assert result.text == "(2D6>=?) ＞ 12[6,6] ＞ 12"
    assert not result.success and not result.failure
    assert isinstance(result.detail, AddDiceDetail)
    assert result.detail.target_undecided and result.detail.target is None


def test_a_system_judges_add_dice_through_check_result() -> None:
    critical = roll("2D6>=?", 6, 6, system=CriticalBot())
    assert critical.text == "(2D6>=?) ＞ 12[6,6] ＞ 12 ＞ クリティカル"
    assert critical.critical and critical.success
    plain = roll("2D6>=7", 1, 2, system=CriticalBot())
    assert plain.failure and plain.text.endswith("＞ 失敗")


def test_malformed_targets_are_not_commands() -> None:
    for line in ("2D6>", "2D6>12?a", "2D6>=7>=8", "2D6!7"):
        assert evaluate(line, seed=1) is None, line


# --- English --------------------------------------------------------------------------


def test_english_locale_changes_words_not_numbers() -> None:
    source = QueueSource([(3, 6), (4, 6)])
    result = evaluate("2D6+1>=7", source=source, locale="en")
    assert result is not None
    assert result.text == "(2D6+1>=7) ＞ 7[3,4]+1 ＞ 8 ＞ Success"
    assert result.locale == "en"
    failed = evaluate("2D6>=9", source=QueueSource([(3, 6), (4, 6)]), locale="en")
    assert failed is not None and failed.text.endswith("＞ Failure")
    zero = evaluate("C(1/0)", seed=1, locale="en")
    assert zero is not None and zero.text == "c(1/0) ＞ Cannot calculate: division by zero"


# --- calc -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("C(1+2)", "c(1+2) ＞ 3"),
        ("c1+4*3/2", "c(1+4*3/2) ＞ 7"),
        ("C(-1---1)", "c(-1---1) ＞ -2"),
        ("C(-20/-10)", "c(-20/-10) ＞ 2"),
        ("C(-7/2)", "c(-7/2) ＞ -4"),
        ("c1/2C", "c(1/2C) ＞ 1"),
        ("c1/2U", "c(1/2C) ＞ 1"),
        ("c1/2R", "c(1/2R) ＞ 1"),
        ("c-1/2R", "c(-1/2R) ＞ -1"),
        ("c1/3R", "c(1/3R) ＞ 0"),
        ("c7/2F", "c(7/2F) ＞ 3"),
        ("C((10+10)*9)", "c((10+10)*9) ＞ 180"),
    ],
)
def test_calc_arithmetic_and_rounding(line: str, expected: str) -> None:
    result = evaluate(line, seed=1)
    assert result is not None
    assert result.text == expected
    assert result.dice == ()


def test_calc_reports_division_by_zero() -> None:
    result = evaluate("C(1/0)", seed=1)
    assert result is not None
    assert result.text == "c(1/0) ＞ ゼロ除算が発生したため計算できませんでした"
    assert isinstance(result.detail, CalcDetail)
    assert result.detail.error == "zero_division" and result.detail.value is None


def test_calc_division_follows_the_system_round_type() -> None:
    result = evaluate("C(1/2)", CeilBot(), seed=1)
    assert result is not None and result.text == "c(1/2) ＞ 1"


def test_calc_refuses_what_is_not_arithmetic() -> None:
    for line in ("c1+4*", "C(1+2)>3", "C", "C(1D6)", "CX"):
        assert evaluate(line, seed=1) is None, line


def test_secret_calc() -> None:
    result = evaluate("sc1+4*3/2", seed=1)
    assert result is not None and result.secret and result.text == "c(1+4*3/2) ＞ 7"
