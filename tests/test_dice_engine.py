"""The dice pipeline: comments, the secret prefix, system commands before common ones,
non-commands, long lines, repeat and its limits, and the record of every die."""

from __future__ import annotations

import re

import pytest

from gm_engine.dice.commands.repeat import RepeatDetail
from gm_engine.dice.engine import ErrorDetail, construct, evaluate
from gm_engine.dice.limits import (
    MAX_COMMAND_LENGTH,
    MAX_DICE_PER_LINE,
    MAX_OUTPUT_PER_LINE,
    MAX_READ_PER_LINE,
    MAX_RUNS_PER_LINE,
)
from gm_engine.dice.result import Outcome, RollResult, new_outcome
from gm_engine.dice.source import DiceQueueError, Die, QueueSource, SeededSource
from gm_engine.dice.system import GameSystem, RollContext


class EchoSystem(GameSystem):
    """A system whose one command ``XX...`` echoes what the engine handed it."""

    id = "EchoTest"
    name = "EchoTest"
    command_pattern = re.compile(r"XX")

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        if command == "XXNONE":
            return None
        value = ctx.source.roll(6)
        return Outcome(text=f"[{command}] {value}", success=True)


class BrokenSystem(GameSystem):
    """A system whose command fails inside, as a bug would."""

    id = "BrokenTest"
    name = "BrokenTest"
    command_pattern = re.compile(r"BOOM")

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        ctx.source.roll(6)
        raise RuntimeError("a bug")


def queue(*values: int, sides: int = 6) -> QueueSource:
    return QueueSource([(v, sides) for v in values])


def test_text_after_the_first_space_is_a_comment() -> None:
    with_comment = evaluate("2D6+1 命中判定！", source=queue(3, 4))
    assert with_comment is not None
    assert with_comment.text == "(2D6+1) ＞ 7[3,4]+1 ＞ 8"
    assert with_comment.command == "2D6+1"


def test_a_full_width_space_does_not_start_a_comment() -> None:
    assert evaluate("2D6>=7　命中", source=queue(3, 4)) is None


def test_leading_s_makes_a_common_command_secret() -> None:
    for line in ("S2D6", "s2d6"):
        result = evaluate(line, source=queue(1, 2))
        assert result is not None
        assert result.secret
        assert result.command == line[1:]
        assert result.text == "(2D6) ＞ 3[1,2] ＞ 3"
    plain = evaluate("2D6", source=queue(1, 2))
    assert plain is not None and not plain.secret


def test_a_double_s_is_not_a_command() -> None:
    assert evaluate("SS2D6", source=queue(1, 2)) is None


NON_COMMANDS = ["", "   ", "134 数値だけ", "hello", "2D6>", "2D6>12?a", "2d6もけけ", "S", "D66X"]


@pytest.mark.parametrize("line", NON_COMMANDS)
def test_non_commands_return_none_and_roll_nothing(line: str) -> None:
    source = SeededSource(5)
    assert evaluate(line, source=source) is None
    assert source.history == []


def test_a_long_comment_is_read_as_bcdice_reads_it() -> None:
    # BCDice reads a line of any length; only the command word matters here
    result = evaluate("2D6 " + "長い説明" * 2000, source=QueueSource([(3, 6), (4, 6)]))
    assert result is not None and result.text == "(2D6) ＞ 7[3,4] ＞ 7"


def test_a_line_longer_than_the_reading_budget_is_refused_with_a_text() -> None:
    source = SeededSource(1)
    result = evaluate("2D6 " + "x" * MAX_READ_PER_LINE, source=source)
    assert result is not None and isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "too_much_reading"
    assert result.text == (
        f"コマンドが長すぎます（コマンド部分は{MAX_COMMAND_LENGTH}文字まで、繰り返しで読む分を含めて{MAX_READ_PER_LINE}文字まで）"
    )


def test_a_command_word_longer_than_the_limit_is_refused_with_a_text() -> None:
    fits = evaluate("1D6" + "+1" * ((MAX_COMMAND_LENGTH - 3) // 2), seed=1)
    assert fits is not None and not isinstance(fits.detail, ErrorDetail)
    source = SeededSource(1)
    result = evaluate("1D6" + "+1" * (MAX_COMMAND_LENGTH // 2), source=source)
    assert result is not None and isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "too_much_reading" and source.history == []
    assert result.dice == () and source.history == []


def test_repeated_runs_count_their_lines_against_the_reading_budget() -> None:
    comment = "x" * (MAX_READ_PER_LINE // 400)
    fits = evaluate(f"x100 1D6 {comment}", seed=1)
    assert fits is not None and not isinstance(fits.detail, ErrorDetail)
    over = evaluate(f"x10 REP100 1D6 {comment}", seed=1)
    assert over is not None and isinstance(over.detail, ErrorDetail)
    assert over.detail.reason == "too_much_reading"


def test_a_line_whose_result_is_too_long_is_refused_with_a_text() -> None:
    # a die of more than 10,000 sides shows 0 without a roll, as in BCDice, and a reroll
    # of every 0 runs to BCDice's 10,000 rerolls: 40,000 characters of "0 + 0 + ..."
    single = evaluate("1R10001[<=0]", seed=1)
    assert single is not None and single.text.startswith("(1R10001[<=0]) ＞ 0 + 0 + 0")
    assert single.dice == () and 40_000 < len(single.text) < MAX_OUTPUT_PER_LINE // 4
    fits = evaluate("x4 1R10001[<=0]", seed=1)
    assert fits is not None and not isinstance(fits.detail, ErrorDetail)
    source = SeededSource(1)
    result = evaluate("x6 1R10001[<=0]", source=source)
    assert result is not None and isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "too_much_output"
    assert result.text == f"結果が長すぎます（1回のコマンドで{MAX_OUTPUT_PER_LINE}文字まで）"
    assert result.dice == () and source.history == []


def test_a_command_showing_more_faces_than_the_output_budget_prints_is_refused() -> None:
    # 200 zeros, rerolled 10,000 times: BCDice prints four megabytes
    result = evaluate("200R10001[<=0]", seed=1)
    assert result is not None and isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "too_much_output"


def test_system_commands_are_preprocessed_as_bcdice_does() -> None:
    system = EchoSystem()
    result = evaluate("xx(1+2)+(4/2)d 目星", system, source=queue(5))
    assert result is not None
    assert result.text == "[XX3+2D6] 5"
    assert result.command == "XX3+2D6"
    assert not result.secret
    assert result.success


def test_the_secret_prefix_of_a_system_command() -> None:
    result = evaluate("sxx(2*3)", EchoSystem(), source=queue(2))
    assert result is not None
    assert result.secret
    assert result.text == "[XX6] 2"


def test_common_commands_follow_when_the_system_declines() -> None:
    system = EchoSystem()
    assert evaluate("XXNONE", system, source=queue()) is None
    common = evaluate("2D6", system, source=queue(6, 6))
    assert common is not None and common.text == "(2D6) ＞ 12[6,6] ＞ 12"


def test_every_die_is_in_the_result_and_in_the_source_history() -> None:
    source = SeededSource(11)
    first = evaluate("3D6+1D10", source=source)
    second = evaluate("2D20", source=source)
    assert first is not None and second is not None
    assert [d.sides for d in first.dice] == [6, 6, 6, 10]
    assert [d.sides for d in second.dice] == [20, 20]
    assert tuple(source.history) == first.dice + second.dice


def test_a_queue_is_consumed_in_order_and_leftovers_reported() -> None:
    source = QueueSource([(2, 6), (5, 6), (9, 10)])
    result = evaluate("2D6", source=source)
    assert result is not None
    assert result.dice == (Die(2, 6), Die(5, 6))
    assert source.leftovers == (Die(9, 10),)


def test_a_queue_with_the_wrong_sides_raises_and_rolls_nothing() -> None:
    source = QueueSource([(3, 6), (4, 8)])
    with pytest.raises(DiceQueueError, match="d8"):
        evaluate("2D6", source=source)
    assert source.history == []
    assert source.leftovers == (Die(3, 6), Die(4, 8))


def test_an_internal_fault_is_an_error_result_not_a_crash() -> None:
    source = SeededSource(3)
    result = evaluate("BOOM", BrokenSystem(), source=source)
    assert result is not None
    assert isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "internal"
    assert result.detail.cause == "RuntimeError: a bug"
    assert "内部エラー" in result.text
    assert result.dice == ()
    assert source.history == []


def test_repeat_joins_the_runs_and_records_each() -> None:
    result = evaluate("x3 1D6 コメント", source=queue(2, 4, 6))
    assert result is not None
    assert result.text == "#1\n(1D6) ＞ 2\n\n#2\n(1D6) ＞ 4\n\n#3\n(1D6) ＞ 6"
    assert isinstance(result.detail, RepeatDetail)
    assert result.detail.times == 3
    assert result.detail.command == "1D6 コメント"
    runs = [run.result for run in result.detail.runs]
    assert [r.dice for r in runs if r is not None] == [(Die(2, 6),), (Die(4, 6),), (Die(6, 6),)]
    assert result.dice == (Die(2, 6), Die(4, 6), Die(6, 6))


@pytest.mark.parametrize("keyword", ["x", "rep", "repeat", "X", "REP", "Repeat"])
def test_the_three_repeat_keywords_in_any_case(keyword: str) -> None:
    result = evaluate(f"{keyword}2 1D6", source=queue(1, 2))
    assert result is not None
    assert result.text == "#1\n(1D6) ＞ 1\n\n#2\n(1D6) ＞ 2"


def test_repeat_is_secret_when_prefixed_or_when_a_run_is() -> None:
    prefixed = evaluate("sx2 1D6", source=queue(1, 2))
    inner = evaluate("x2 S1D6", source=queue(1, 2))
    plain = evaluate("x2 1D6", source=queue(1, 2))
    assert prefixed is not None and prefixed.secret
    assert inner is not None and inner.secret
    assert plain is not None and not plain.secret


def test_repeat_counts_from_1_to_100() -> None:
    assert evaluate("rep100 C1", seed=1) is not None
    for line in ("rep0 1D6", "rep101 1D6"):
        refused = evaluate(line, seed=1)
        assert refused is not None
        assert refused.text == "繰り返し回数は1以上、100以下としてください"
        assert refused.dice == ()
    english = evaluate("rep0 1D6", seed=1, locale="en")
    assert english is not None and english.text == "The number of repeats must be from 1 to 100"


def test_repeat_needs_a_command_after_a_space() -> None:
    assert evaluate("rep1", seed=1) is None
    assert evaluate("x2", seed=1) is None
    nothing = evaluate("rep2 ほげ", seed=1)
    assert nothing is not None and nothing.text == "繰り返し対象のコマンドが実行できませんでした (ほげ)"


def test_a_lower_case_repeat_may_not_repeat_a_repeat() -> None:
    result = evaluate("x100 rep100 10D100", seed=1)
    assert result is not None
    assert result.text == "Repeatコマンドの重複はできません"
    assert result.dice == ()


def test_capital_nested_repeats_run_as_in_bcdice_up_to_the_run_budget() -> None:
    nested = evaluate("x2 REP2 C1", seed=1)
    assert nested is not None
    assert nested.text == "#1\n#1\nc(1) ＞ 1\n\n#2\nc(1) ＞ 1\n\n#2\n#1\nc(1) ＞ 1\n\n#2\nc(1) ＞ 1"
    source = SeededSource(1)
    most = evaluate(f"x10 REP{MAX_RUNS_PER_LINE // 10} C1", source=source)
    assert most is not None and most.text.count("c(1) ＞ 1") == MAX_RUNS_PER_LINE
    too_many = evaluate("x100 REP100 C1", source=source)
    assert too_many is not None
    assert too_many.text == f"繰り返しが多すぎます（入れ子の繰り返しを含めて{MAX_RUNS_PER_LINE}回まで）"
    assert isinstance(too_many.detail, ErrorDetail) and too_many.detail.reason == "too_many_repeats"


def test_a_line_over_the_dice_budget_is_refused_and_rolls_nothing() -> None:
    source = SeededSource(2)
    fits = evaluate("x50 200D6", source=source)
    assert fits is not None and len(fits.dice) == MAX_DICE_PER_LINE
    source = SeededSource(2)
    result = evaluate("x51 200D6", source=source)
    assert result is not None
    assert isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "too_many_dice"
    assert result.dice == ()
    assert source.history == []


def test_an_expression_nested_too_deep_is_refused_clearly() -> None:
    line = "(" * 150 + "1D6" + ")" * 150
    result = evaluate(line, seed=1)
    assert result is not None
    assert isinstance(result.detail, ErrorDetail)
    assert result.detail.reason == "too_complex"


def test_results_round_trip_through_json() -> None:
    for line in ("x2 2D6>=7", "C(1/0)", "5D10KH3", "x51 200D6"):
        result = evaluate(line, seed=9)
        assert result is not None
        assert RollResult.model_validate_json(result.model_dump_json()) == result


def test_lone_surrogates_read_as_replacement_characters() -> None:
    result = evaluate("x2 \ud800", seed=1)
    assert result is not None
    assert result.text == "繰り返し対象のコマンドが実行できませんでした (\ufffd)"
    assert RollResult.model_validate_json(result.model_dump_json()) == result


class ShadowingSystem(EchoSystem):
    """A system whose own command looks like add dice, and which rewrites lines."""

    id = "ShadowTest"
    command_pattern = re.compile(r"XX|[0-9]+D6$")

    def change_text(self, text: str) -> str:
        return text.replace("%", "D100")


def test_the_system_answers_before_the_common_commands() -> None:
    system = ShadowingSystem()
    own = evaluate("2d", system, source=queue(4))
    assert own is not None and own.text == "[2D6] 4"
    common = evaluate("2D6+1", system, source=queue(1, 2))
    assert common is not None and common.text == "(2D6+1) ＞ 3[1,2]+1 ＞ 4"


def test_change_text_rewrites_lines_for_both_kinds_of_command() -> None:
    system = ShadowingSystem()
    common = evaluate("1%", system, source=QueueSource([(42, 100)]))
    assert common is not None and common.text == "(1D100) ＞ 42"


def test_the_dice_budget_counts_dice_of_every_command_in_a_repeat() -> None:
    source = SeededSource(4)
    result = evaluate("x10 REP100 11B6", source=source)
    assert result is not None
    assert isinstance(result.detail, ErrorDetail) and result.detail.reason == "too_many_dice"
    assert source.history == []


def test_nuls_around_a_system_command_are_stripped_as_ruby_does() -> None:
    result = evaluate("\0xx(1)\0", EchoSystem(), source=queue(3))
    assert result is not None and result.text == "[XX1] 3"


def test_construct_builds_the_same_model_as_validation() -> None:
    built = construct(ErrorDetail, reason="too_many_dice", message="多すぎます")
    validated = ErrorDetail(reason="too_many_dice", message="多すぎます")
    assert built == validated
    assert built.model_dump() == validated.model_dump()
    assert built.model_fields_set == {"reason", "message"}
    assert ErrorDetail.model_validate_json(built.model_dump_json()) == validated
    # the JSON bytes too, whatever order the fields were given in
    shuffled = construct(ErrorDetail, message="多すぎます", cause=None, reason="too_many_dice")
    assert shuffled.model_dump_json() == validated.model_dump_json()


def test_a_command_outcome_is_a_plain_value_with_default_flags() -> None:
    assert new_outcome("成功", None, True) == Outcome(text="成功", success=True)
    assert Outcome(text="x") == ("x", False, False, False, False, None)
