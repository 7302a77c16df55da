"""BCDice's common commands xBy, xRy, xUy, xTY/xTZ, choice and D66.

Rules are checked through :func:`gm_engine.dice.engine.evaluate` with injected dice, against
BCDice 3.16's texts; the vectors of these commands (tests/data/bcdice) run in full.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import ClassVar, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.dice.commands.barabara_dice import BarabaraDiceDetail, barabara_dice
from gm_engine.dice.commands.choice import ChoiceDetail, choice
from gm_engine.dice.commands.d66_dice import D66Detail, d66_dice
from gm_engine.dice.commands.registry import COMMON_COMMANDS
from gm_engine.dice.commands.reroll_dice import RerollDiceDetail, reroll_dice
from gm_engine.dice.commands.tally_dice import TallyDiceDetail, tally_dice
from gm_engine.dice.commands.upper_dice import UpperDiceDetail, upper_dice
from gm_engine.dice.conformance import format_failure, load_cases, run_case
from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import QueueSource, SeededSource
from gm_engine.dice.system import GameSystem, RollContext
from gm_engine.dice.systems.registry import get_system

HANDLERS = (barabara_dice, reroll_dice, upper_dice, tally_dice, choice, d66_dice)


def roll(line: str, dice: list[tuple[int, int]], system: str | GameSystem = "DiceBot",
         locale: Locale = "ja") -> RollResult | None:
    """Evaluate ``line`` with the dice ``(value, sides)`` injected; all must be used."""
    source = QueueSource(dice)
    result = evaluate(line, system, source=source, locale=locale)
    assert source.leftovers == (), f"dice left unused: {source.leftovers}"
    return result


def text(line: str, dice: list[tuple[int, int]], system: str | GameSystem = "DiceBot",
         locale: Locale = "ja") -> str | None:
    result = roll(line, dice, system, locale)
    return None if result is None else result.text


def d(sides: int, *values: int) -> list[tuple[int, int]]:
    return [(value, sides) for value in values]


class SortingSystem(GameSystem):
    """A system that sorts side-by-side dice (BCDice's sort_barabara_dice)."""

    id: ClassVar[str] = "TestSorting"
    sort_barabara_dice: ClassVar[bool] = True


class ThresholdSystem(GameSystem):
    """A system with default reroll thresholds and ascending D66."""

    id: ClassVar[str] = "TestThresholds"
    upper_dice_reroll_threshold: ClassVar[int | None] = 10
    reroll_dice_reroll_threshold: ClassVar[int | None] = 6
    d66_sort_type: ClassVar[Literal["no_sort", "asc", "desc"]] = "asc"


class NoD66System(GameSystem):
    id: ClassVar[str] = "TestNoD66"
    enabled_d66: ClassVar[bool] = False


# --------------------------------------------------------------------------------------
# The vectors
# --------------------------------------------------------------------------------------

OWN_FILES = ("UpperDice.toml", "choice.toml", "D66Dice.toml", "tally_ty.toml", "tally_tz.toml")
#: xBy / xRy cases inside the add-dice files: a first word of numbers, B or R, no D.
OWN_CASE = re.compile(r"(?i)^s?[0-9(][^\sd]*[br][^\sd]*(\s|$)")


@pytest.mark.parametrize("name", OWN_FILES)
def test_vectors_of_the_command_files_all_pass(name: str, vectors_dir: Path) -> None:
    cases = load_cases(vectors_dir / name)
    assert cases
    failures = [r for r in map(run_case, cases) if not r.passed]
    assert not failures, "\n".join(map(format_failure, failures))


def test_barabara_and_reroll_vectors_in_the_add_dice_files_all_pass(vectors_dir: Path) -> None:
    cases = [
        case
        for path in sorted(vectors_dir.glob("*.toml"))
        if path.name not in OWN_FILES
        for case in load_cases(path)
        if OWN_CASE.match(case.input)
    ]
    assert len(cases) >= 40  # None.toml alone has 40 of them
    failures = [r for r in map(run_case, cases) if not r.passed]
    assert not failures, "\n".join(map(format_failure, failures))


def test_commands_are_tried_in_bcdice_order() -> None:
    names = [command.name for command in COMMON_COMMANDS]
    # BCDice::CommonCommand::COMMANDS
    assert names == [
        "AddDice", "BarabaraDice", "TallyDice", "Calc", "Choice", "D66Dice",
        "Repeat", "RerollDice", "UpperDice", "Version",
    ]


# --------------------------------------------------------------------------------------
# BarabaraDice
# --------------------------------------------------------------------------------------


def test_barabara_dice_lists_faces_of_every_term_in_order() -> None:
    result = roll("2b6+1B10", d(6, 3, 4) + d(10, 10))
    assert result is not None
    assert result.text == "(2B6+1B10) ＞ 3,4,10"
    assert isinstance(result.detail, BarabaraDiceDetail)
    assert [(g.times, g.sides, g.values) for g in result.detail.groups] == [(2, 6, (3, 4)), (1, 10, (10,))]
    assert result.detail.successes is None


def test_barabara_dice_counts_dice_meeting_the_comparison() -> None:
    result = roll("3B6>=4 comment", d(6, 5, 2, 4))
    assert result is not None and result.text == "(3B6>=4) ＞ 5,2,4 ＞ 成功数2"
    detail = result.detail
    assert isinstance(detail, BarabaraDiceDetail)
    assert (detail.comparison, detail.target, detail.successes, detail.ones) == (">=", 4, 2, 0)
    assert text("2B6<>3", d(6, 3, 1)) == "(2B6<>3) ＞ 3,1 ＞ 成功数1"
    assert text("2B6==3", d(6, 3, 1)) == "(2B6=3) ＞ 3,1 ＞ 成功数1"


def test_barabara_dice_computes_arithmetic_in_counts_sides_and_target() -> None:
    assert text("(1*2)b(2+4)>(5+1)/2", d(6, 4, 3)) == "(2B6>3) ＞ 4,3 ＞ 成功数1"
    assert text("2B6>5/2U", d(6, 3, 2)) == "(2B6>3) ＞ 3,2 ＞ 成功数0"
    assert text("2B6>5/2", d(6, 3, 2)) == "(2B6>2) ＞ 3,2 ＞ 成功数1"


def test_barabara_dice_sorts_each_term_when_the_system_sorts() -> None:
    assert text("3B6+2B4", d(6, 5, 2, 4) + d(4, 3, 1), SortingSystem()) == "(3B6+2B4) ＞ 2,4,5,1,3"


def test_barabara_dice_over_200_dice_in_a_term_rolls_none() -> None:
    assert text("201B6", []) == "(201B6) ＞ "
    assert text("1B6+201B6", d(6, 4)) == "(1B6+201B6) ＞ 4"


def test_barabara_dice_sides_out_of_range_show_zero_without_rolling() -> None:
    assert text("2B0", []) == "(2B0) ＞ 0,0"
    assert text("1B10001+1B10000", d(10000, 9999)) == "(1B10001+1B10000) ＞ 0,9999"


def test_barabara_dice_division_by_zero_is_an_error_text() -> None:
    source = SeededSource(1)
    result = evaluate("2B6>1/0", source=source)
    assert result is not None and result.text == "2B6>1/0 ＞ 0で割ることはできません"
    assert source.history == [] and result.dice == ()
    assert isinstance(result.detail, BarabaraDiceDetail) and result.detail.error == "division_by_zero"


# --------------------------------------------------------------------------------------
# RerollDice
# --------------------------------------------------------------------------------------


def test_reroll_dice_rerolls_each_die_meeting_the_threshold() -> None:
    result = roll("3R6>=5", d(6, 5, 6, 1) + d(6, 5, 2) + d(6, 3))
    assert result is not None
    assert result.text == "(3R6[5]>=5) ＞ 5,6,1 + 5,2 + 3 ＞ 成功数3"
    detail = result.detail
    assert isinstance(detail, RerollDiceDetail)
    assert [(g.times, g.values) for g in detail.rolls] == [(3, (5, 6, 1)), (2, (5, 2)), (1, (3,))]
    assert (detail.reroll_comparison, detail.reroll_threshold, detail.successes) == (">=", 5, 3)


def test_reroll_dice_threshold_in_brackets_or_after_at_is_the_same() -> None:
    dice = d(4, 4, 2) + d(6, 3, 5) + d(4, 2) + d(4, 4)
    expected = "(2R4+2R6[<=2]>=4) ＞ 4,2 + 3,5 + 2 + 4 ＞ 成功数3"
    assert text("2R4+2R6[<=2]>=4", dice) == expected
    assert text("2R4+2R6>=4@<=2", dice) == expected
    assert text("2R6[3]", d(6, 3, 2) + d(6, 1)) == "(2R6[>=3]) ＞ 3,2 + 1 ＞ 成功数0"
    assert text("2R6>=4@3", d(6, 3, 2) + d(6, 1)) == "(2R6[3]>=4) ＞ 3,2 + 1 ＞ 成功数0"


def test_reroll_dice_with_both_bracket_and_at_is_not_a_command() -> None:
    assert text("2R6[3]>=4@2", []) is None


def test_reroll_dice_without_threshold_gives_bcdice_error_text() -> None:
    message = "条件が間違っています。2R6>=5 あるいは 2R6[5] のように振り足し目標値を指定してください。"
    assert text("2R6", []) == f"2R6 ＞ {message}"
    assert text("S2r6 secret", []) == f"S2r6 ＞ {message}"


@pytest.mark.parametrize("line", ["2R6<=6", "2R6[1]", "2R6[>0]", "2R6[<7]", "2R6[<>7]", "2R6>=1"])
def test_reroll_dice_refuses_threshold_that_rerolls_forever(line: str) -> None:
    result = roll(line, [])
    assert result is not None and result.text.startswith(f"{line} ＞ 条件が間違っています")
    assert isinstance(result.detail, RerollDiceDetail) and result.detail.error == "invalid_condition"


def test_reroll_dice_uses_the_system_default_threshold() -> None:
    assert text("2R6", d(6, 6, 1) + d(6, 2), ThresholdSystem()) == "(2R6[>=6]) ＞ 6,1 + 2 ＞ 成功数0"
    assert text("2R6>=5", d(6, 6, 5) + d(6, 3), ThresholdSystem()) == "(2R6[6]>=5) ＞ 6,5 + 3 ＞ 成功数2"


def test_reroll_dice_counts_ones_of_the_first_roll_only() -> None:
    result = roll("2R6>=6", d(6, 6, 1) + d(6, 1))
    assert result is not None and isinstance(result.detail, RerollDiceDetail)
    assert result.detail.ones == 1


# --------------------------------------------------------------------------------------
# UpperDice
# --------------------------------------------------------------------------------------


def test_upper_dice_rerolls_at_threshold_and_adds_up() -> None:
    result = roll("4U6[6]>=10", d(6, 5, 2, 6, 5, 6, 6, 6, 5))
    assert result is not None
    assert result.text == "(4U6[6]>=10) ＞ 5,2,11[6,5],23[6,6,6,5] ＞ 成功数2"
    detail = result.detail
    assert isinstance(detail, UpperDiceDetail)
    assert [(die.total, die.values) for die in detail.dice] == [
        (5, (5,)), (2, (2,)), (11, (6, 5)), (23, (6, 6, 6, 5))
    ]
    assert (detail.successes, detail.highest, detail.total) == (2, None, None)


def test_upper_dice_without_comparison_shows_highest_and_total() -> None:
    result = roll("2U6[5]-1+2", d(6, 5, 3, 4))
    assert result is not None and result.text == "(2U6[5]+1) ＞ 8[5,3],4+1 ＞ 9/13(最大/合計)"
    assert isinstance(result.detail, UpperDiceDetail)
    assert (result.detail.highest, result.detail.total, result.detail.modifier) == (9, 13, 1)


def test_upper_dice_threshold_after_at_and_from_the_system() -> None:
    assert text("1U6>=5@6", d(6, 6, 1)) == "(1U6[6]>=5) ＞ 7[6,1] ＞ 成功数1"
    assert text("1U10", d(10, 10, 3), ThresholdSystem()) == "(1U10[10]) ＞ 13[10,3] ＞ 13/13(最大/合計)"


def test_upper_dice_with_bracket_and_at_is_not_a_command() -> None:
    assert text("4U6[6]+11>=21@4", []) is None


@pytest.mark.parametrize(("line", "echo"), [("2U6", "2U6[0]"), ("2U6[1]", "2U6[1]"), ("2U6>3@1", "2U6[1]>3")])
def test_upper_dice_without_a_valid_threshold_gives_bcdice_error_text(line: str, echo: str) -> None:
    assert text(line, []) == f"({echo}) ＞ 無限ロールの条件がまちがっています"


# --------------------------------------------------------------------------------------
# TallyDice
# --------------------------------------------------------------------------------------


def test_tally_dice_counts_each_face_and_lists_zeros_only_with_z() -> None:
    dice = d(4, 1, 4, 4)
    assert text("3TY4", dice) == "(3TY4) ＞ 1,4,4 ＞ [1]×1, [4]×2"
    assert text("3tz4", dice) == "(3TZ4) ＞ 1,4,4 ＞ [1]×1, [2]×0, [3]×0, [4]×2"
    result = roll("3TY4", dice)
    assert result is not None and isinstance(result.detail, TallyDiceDetail)
    assert result.detail.counts == (1, 0, 0, 2)


def test_tally_dice_refuses_more_than_20_sides_and_ignores_empty_pools() -> None:
    assert text("2TY21", []) == "(2TY21) ＞ 面数は1以上、20以下としてください"
    assert text("0TY6", []) is None
    assert text("2TY(1-1)", []) is None


def test_tally_dice_sorts_faces_when_the_system_sorts() -> None:
    assert text("3TY4", d(4, 4, 1, 3), SortingSystem()) == "(3TY4) ＞ 1,3,4 ＞ [1]×1, [3]×1, [4]×1"


# --------------------------------------------------------------------------------------
# Choice
# --------------------------------------------------------------------------------------


def test_choice_picks_one_item_of_each_form() -> None:
    assert text("choice[a, b ,,c] 理由", d(3, 2)) == "(choice[a,b,c]) ＞ b"
    assert text("Choice(x[1], y[2])", d(2, 1)) == "(choice(x[1],y[2])) ＞ x[1]"
    assert text("choice A,B  P,J", d(2, 2)) == "(choice A,B P,J) ＞ P,J"


def test_choice_picks_several_different_items() -> None:
    result = roll("choice2[a,b,c]", d(3, 2) + d(2, 2))
    assert result is not None and result.text == "(choice2[a,b,c]) ＞ b, c"
    assert isinstance(result.detail, ChoiceDetail)
    assert result.detail.chosen == ("b", "c") and result.detail.items == ("a", "b", "c")
    assert text("choice2 a b c", d(3, 1) + d(2, 1)) == "(choice2 a b c) ＞ a b"
    assert text("choice4[a,b,c]", []) is None
    assert text("choice0[a,b]", []) is None


def test_choice_expands_a_single_range_item() -> None:
    assert text("choice[B-D]", d(3, 3)) == "(choice[B,C,D]) ＞ D"
    assert text("choice[08-10]", d(3, 1)) == "(choice[8,9,10]) ＞ 8"
    assert text("choice[a-C]", []) is None
    assert text("choice[only]", []) is None


def test_choice_over_100_items_gives_bcdice_error_text() -> None:
    assert text("choice[1-101]", []) == "項目数は100以下としてください"
    assert text("choice[1-100]", d(100, 100)) is not None
    # A range far too long to spell out is answered without building it.
    result = roll("choice[1-99999999999999999999999]", [])
    assert result is not None and isinstance(result.detail, ChoiceDetail)
    assert result.detail.item_count == 99999999999999999999999 and result.detail.items == ()


def test_choice_reads_commas_past_the_bracket_as_bcdice_does() -> None:
    # BCDice splits on every comma of the line first, so a comma in the comment breaks it.
    assert text("choice[a,b] x,y", []) is None


# --------------------------------------------------------------------------------------
# D66
# --------------------------------------------------------------------------------------


def test_d66_suffix_orders_the_two_dice() -> None:
    assert text("D66", d(6, 5, 2)) == "(D66) ＞ 52"
    assert text("d66a", d(6, 5, 2)) == "(D66A) ＞ 25"
    assert text("D66S", d(6, 5, 2)) == "(D66S) ＞ 25"
    assert text("D66D", d(6, 2, 5)) == "(D66D) ＞ 52"
    assert text("D66N", d(6, 5, 2), ThresholdSystem()) == "(D66N) ＞ 52"
    result = roll("D66A", d(6, 5, 2))
    assert result is not None and isinstance(result.detail, D66Detail)
    assert (result.detail.dice, result.detail.value, result.detail.sort) == ((5, 2), 25, "asc")


def test_d66_follows_the_system_sort_type_and_switch() -> None:
    assert text("D66", d(6, 5, 2), ThresholdSystem()) == "(D66) ＞ 25"
    assert text("D66", [], NoD66System()) is None
    assert text("D66X", []) is None
    assert text("2D66X", []) is None


# --------------------------------------------------------------------------------------
# English, structure, robustness
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "dice", "english"),
    [
        ("3B6>=4", d(6, 5, 2, 4), "(3B6>=4) ＞ 5,2,4 ＞ 2 successes"),
        ("2R6>=3", d(6, 3, 1) + d(6, 2), "(2R6[3]>=3) ＞ 3,1 + 2 ＞ 1 success"),
        ("2U6[6]", d(6, 6, 1, 3), "(2U6[6]) ＞ 7[6,1],3 ＞ 7/10(max/total)"),
        ("2TY21", [], "(2TY21) ＞ the dice must have between 1 and 20 sides"),
        ("choice[1-101]", [], "a choice may list at most 100 items"),
        ("2U6", [], "(2U6[0]) ＞ the exploding threshold is wrong (it must be 2 or more)"),
        ("D66A", d(6, 5, 2), "(D66A) ＞ 25"),
    ],
)
def test_english_locale_uses_english_words_and_the_same_numbers(
    line: str, dice: list[tuple[int, int]], english: str
) -> None:
    assert text(line, dice, locale="en") == english


def test_english_reroll_error_names_the_fix() -> None:
    english = text("2R6", [], locale="en")
    assert english == "2R6 ＞ the condition is wrong. Give a reroll threshold, e.g. 2R6>=5 or 2R6[5]."


@pytest.mark.parametrize(
    "line",
    ["2B6+4B10>3", "12R6>=6", "2R4+2R6[<>4]>=4", "2U6+2U4[4]+6>=8", "20TZ6", "choice3[A-F]",
     "choice a b", "D66D", "2R6", "2U6", "2TY21", "choice[1-101]", "2B6>1/0"],
)
@pytest.mark.parametrize("locale", ["ja", "en"])
def test_detail_survives_a_json_round_trip(line: str, locale: Locale) -> None:
    result = evaluate(line, source=SeededSource(7), locale=locale)
    assert result is not None and result.detail is not None
    again = RollResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert type(again.detail) is type(result.detail)


@pytest.mark.parametrize("line", ["2B6+4B10>3", "12R6>=6", "2U6+2U4[4]+6", "20TZ6", "D66"])
def test_detail_holds_exactly_the_dice_rolled(line: str) -> None:
    result = evaluate(line, source=SeededSource(3))
    assert result is not None
    rolled = [die.value for die in result.dice]
    detail = result.detail
    if isinstance(detail, BarabaraDiceDetail):
        listed = [v for group in detail.groups for v in group.values]
    elif isinstance(detail, RerollDiceDetail):
        listed = [v for group in detail.rolls for v in group.values]
    elif isinstance(detail, UpperDiceDetail):
        listed = [v for die in detail.dice for v in die.values]
    elif isinstance(detail, TallyDiceDetail):
        listed = list(detail.values)
        assert sum(detail.counts) == len(rolled)
    else:
        assert isinstance(detail, D66Detail)
        listed = list(detail.dice)
    assert listed == rolled


def test_too_many_dice_are_refused_without_leaving_dice_behind() -> None:
    source = SeededSource(5)
    result = evaluate("10001B6", source=source)
    assert result is not None and result.dice == () and source.history == []
    assert "10000" in result.text
    # An exploding die that nearly always explodes runs into the same limit.
    result = evaluate("10U10000[2]", source=source)
    assert result is not None and result.dice == () and source.history == []


def test_deep_nesting_never_raises() -> None:
    deep = "(" * 400 + "2" + ")" * 400
    for line in (f"{deep}B6", f"2R6>={deep}", f"1U6[{deep}]", f"{deep}TY6", "-" * 900 + "2B6"):
        evaluate(line, source=SeededSource(1))


MALFORMED = [
    "2B", "B6", "2B6+", "2B6+1", "2B6>", "2B6!3", "2B6>=3)", "(2B6", "2B6[3]", "2B6@3",
    "2R6[", "2R6[>=]", "2R6[!3]", "2R6@", "2R6>=3@", "2R6[3", "2R6]3", "R6>=3",
    "2U6[", "2U6[6", "2U6+[6]", "2U6[>=6]", "2U6+2U", "U6[6]", "2U6[6]@6",
    "TY6", "2TY", "2TX6", "2T6", "2TY6>3", "2TYZ6",
    "choice", "choice[", "choice(", "choice[]", "choice[,]", "choice{a,b}", "choicex[a,b]",
    "D66AA", "D6", "SD", "S", "", " ", "\u3000", "２B６", "2Ｂ6", "2b6\u30002b6",
]


@pytest.mark.parametrize("line", MALFORMED)
def test_malformed_lines_are_not_commands_and_never_raise(line: str) -> None:
    result = evaluate(line, source=SeededSource(2))
    if result is not None:  # a few are other commands (2B6[3] is not one of ours)
        assert result.text
    context = RollContext(source=SeededSource(2), system=get_system("DiceBot"))
    for handler in HANDLERS:
        outcome = handler(line, context)
        assert outcome is None, f"{handler.__name__} answered {line!r}: {outcome}"


ALPHABET = "0123456789bBrRuUtTyYzZsS+-*/()[]<>=!@ ,dD6C choice"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=24))
def test_any_line_of_command_characters_never_raises(line: str) -> None:
    source = SeededSource(11)
    context = RollContext(source=source, system=get_system("DiceBot"))
    for handler in HANDLERS:
        outcome = handler(line, context)
        if outcome is not None:
            assert outcome.text and outcome.detail is not None
    evaluate(line, source=SeededSource(11))


# --------------------------------------------------------------------------------------
# The game-system hooks the pool commands read
# --------------------------------------------------------------------------------------


class PoolSystem(GameSystem):
    """A system with BCDice's pool hooks: a default comparison and a glitch note."""

    id: ClassVar[str] = "TestPool"
    default_cmp_op: ClassVar[Literal["==", "!=", "<", ">", "<=", ">="] | None] = ">="
    default_target_number: ClassVar[int | None] = 5

    def grich_text(self, ones: int, dice_count: int, successes: int) -> str | None:
        return f"ones={ones} dice={dice_count} successes={successes}"


def test_pool_commands_use_the_system_default_comparison_and_note() -> None:
    system = PoolSystem()
    assert text("3B6", d(6, 1, 5, 6), system) == "(3B6>=5) ＞ 1,5,6 ＞ 成功数2 ＞ ones=1 dice=3 successes=2"
    # an explicit comparison wins over the default
    assert text("3B6>=6", d(6, 1, 5, 6), system) == (
        "(3B6>=6) ＞ 1,5,6 ＞ 成功数1 ＞ ones=1 dice=3 successes=1"
    )
    # the reroll threshold defaults to the target; a rerolled 1 is not counted as a one
    assert text("2R6", d(6, 5, 2) + d(6, 1), system) == (
        "(2R6[5]>=5) ＞ 5,2 + 1 ＞ 成功数1 ＞ ones=0 dice=3 successes=1"
    )


def test_the_base_system_declares_the_hooks_with_neutral_defaults() -> None:
    system = GameSystem()
    assert system.grich_text(3, 5, 0) is None
    assert (system.default_cmp_op, system.default_target_number, system.enabled_d66) == (None, None, True)
    assert text("3B6", d(6, 1, 5, 6)) == "(3B6) ＞ 1,5,6"


def test_reserve_dice_refuses_past_the_budget_before_any_die() -> None:
    from gm_engine.dice.system import TooManyDiceError

    source = SeededSource(1)
    ctx = RollContext(source=source, system=GameSystem(), dice_limit=3)
    ctx.reserve_dice(3)
    source.roll(6)
    with pytest.raises(TooManyDiceError):
        ctx.reserve_dice(3)
    RollContext(source=source, system=GameSystem()).reserve_dice(10**9)  # no budget: no limit


def test_pool_commands_share_the_arithmetic_of_calc() -> None:
    deep = "(" * 200 + "6" + ")" * 200
    assert text(f"2B{deep}", d(6, 2, 5)) == "(2B6) ＞ 2,5"
    too_deep = "(" * 201 + "6" + ")" * 201
    assert text(f"2B{too_deep}", []) == f"2B{too_deep} ＞ 式の入れ子が深すぎるため計算できませんでした"
    # 1 divided by a number past a float's range rounds to 0, as Ruby's Float division does,
    # the same for the pools as for C()
    huge = "9" * 400
    assert text(f"(1/{huge}U)B6", []) == "(0B6) ＞ "
    assert text(f"C(1/{huge}U)", []) == f"c(1/{huge}C) ＞ 0"


def test_the_registry_repeats_each_command_modules_prefix() -> None:
    """The registry tests a line against a command's prefix before importing its module,
    so its copy must be the module's own ``PREFIX``."""
    import importlib

    for command in COMMON_COMMANDS:
        module = importlib.import_module(f"gm_engine.dice.commands.{command.evaluate.__name__.lstrip('_')}")
        assert command.prefix.pattern == module.PREFIX, command.name
        assert command.prefix.flags & re.IGNORECASE


def test_a_common_command_module_is_imported_when_a_line_first_needs_it() -> None:
    probe = (
        "import sys; from gm_engine.dice.engine import evaluate\n"
        "assert evaluate('1D6+2', seed=1) is not None\n"
        "print(sorted(m for m in sys.modules if m.startswith('gm_engine.dice.commands.')))\n"
        "assert evaluate('2B6', seed=1) is not None\n"
        "print('gm_engine.dice.commands.barabara_dice' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded, barabara = out.strip().splitlines()
    assert loaded == str(["gm_engine.dice.commands._arith", "gm_engine.dice.commands.add_dice",
                          "gm_engine.dice.commands.registry"])
    assert barabara == "True"
