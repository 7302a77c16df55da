"""The One Ring 2nd edition: nRG skill rolls and FD feat dice as BCDice 3.16 answers them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.dice.conformance import load_cases, run_case
from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import QueueSource, SeededSource
from gm_engine.dice.system import RollContext
from gm_engine.dice.systems.the_one_ring2 import TheOneRing2nd, TORFeatDetail, TORSkillDetail

SYSTEM = "TheOneRing2nd"


def roll(line: str, feat: list[int], success: list[int] | None = None, locale: Locale = "ja") -> RollResult:
    dice = [(v, 12) for v in feat] + [(v, 6) for v in success or []]
    result = evaluate(line, SYSTEM, source=QueueSource(dice), locale=locale)
    assert result is not None, line
    return result


def skill_detail(result: RollResult) -> TORSkillDetail:
    assert isinstance(result.detail, TORSkillDetail)
    return result.detail


def test_all_bcdice_vectors_pass(vectors_dir: Path) -> None:
    failures = [
        (case.index, case.input, result.got_output)
        for case in load_cases(vectors_dir / "TheOneRing2nd.toml")
        if not (result := run_case(case)).passed
    ]
    assert failures == []


def test_rg_total_of_feat_and_success_dice_against_target_number() -> None:
    result = roll("14RG2", [9], [3, 2])
    assert result.text == "(1D12+2D6) ＞ [9]+[3, 2] 難易度 14 達成値 14：成功[成功度 0]"
    detail = skill_detail(result)
    assert (detail.kept_feat, detail.success_dice, detail.total, detail.result) == (9, (3, 2), 14, "success")
    assert roll("15RG2", [9], [3, 2]).failure


def test_rg_eye_of_sauron_counts_zero() -> None:
    result = roll("5RG2", [11], [3, 1])
    assert result.text == "(1D12+2D6) ＞ [サウロンの目]+[3, 1] 難易度 5 達成値 4：失敗"


def test_rg_gandalf_rune_succeeds_whatever_the_target() -> None:
    result = roll("40RG1", [12], [2])
    assert result.text == "(1D12+1D6) ＞ [ガンダルフ・ルーン]+[2]：自動成功[成功度 0]"
    assert result.success and skill_detail(result).result == "automatic_success"


def test_rg_two_success_icons_on_a_success_is_critical() -> None:
    result = roll("10RG3", [5], [6, 6, 1])
    assert "成功[成功度 2]" in result.text
    assert result.success and result.critical
    failed = roll("30RG3", [5], [6, 6, 1])
    assert failed.failure and not failed.critical


def test_rg_piercing_blow_when_feat_die_reaches_the_threshold() -> None:
    assert roll("9RG@10", [10]).text.endswith("成功[成功度 0] 痛打発生！")
    assert "痛打" not in roll("9RG@10", [9]).text
    assert skill_detail(roll("9RG", [10])).piercing is None
    assert skill_detail(roll("9RG@", [10])).piercing is False  # a bare @ never pierces


def test_rg_modifier_adds_to_the_total_but_not_below_zero() -> None:
    assert roll("9RGA2", [8]).text == "(1D12+2) ＞ [8]+2 難易度 9 達成値 10：成功[成功度 0]"
    assert "達成値 0" in roll("9RGA-5", [2]).text


def test_rg_weary_makes_success_dice_1_to_3_count_zero() -> None:
    result = roll("10RG3w", [4], [3, 4, 6])
    assert result.text == "(1D12+3D6) ＞ [4]+[3, 4, 6] 難易度 10 達成値 14：成功[成功度 1]\n状態：疲労"


def test_rg_miserable_eye_of_sauron_is_an_automatic_failure_not_a_fumble() -> None:
    result = roll("1RG1m", [11], [6])
    assert result.text == "(1D12+1D6) ＞ [サウロンの目]+[6]：自動失敗\n状態：絶望"
    assert result.failure and not result.fumble


def test_rg_favoured_keeps_the_best_and_ill_favoured_the_worst() -> None:
    favoured = roll("9RGf", [3, 11])
    assert favoured.text.startswith("(2D12) ＞ [◎3, サウロンの目] 難易度 9 達成値 3")
    ill = roll("9RGi", [12, 4])
    assert ill.text.startswith("(2D12) ＞ [ガンダルフ・ルーン, ◎4] 難易度 9 達成値 4")
    assert skill_detail(ill).favour == "ill_favoured"


def test_rg_favoured_and_ill_favoured_cancel_and_switches_turn_options_off() -> None:
    assert roll("9RGfi", [9]).text == "(1D12) ＞ [9] 難易度 9 達成値 9：成功[成功度 0]"
    assert roll("9RGf1f0", [9]).text == "(1D12) ＞ [9] 難易度 9 達成値 9：成功[成功度 0]"
    assert roll("9RGif0", [9, 2]).text.endswith("\n状態：不利")
    assert roll("9RGw-1", [9]).text == "(1D12) ＞ [9] 難易度 9 達成値 9：成功[成功度 0]"


def test_fd_modifier_clamps_to_1_and_10_and_leaves_the_runes_alone() -> None:
    assert roll("FD3", [9]).text == "(1D12+3) ＞ [9]+3 ＞ [10]"
    assert roll("FD-3", [2]).text == "(1D12-3) ＞ [2]-3 ＞ [1]"
    assert roll("FD5", [11]).text == "(1D12+5) ＞ [サウロンの目]+5 ＞ [サウロンの目]"
    plain = roll("FD", [7])
    assert plain.text == "(1D12) ＞ [7]" and not any(plain.flags.values())
    detail = plain.detail
    assert isinstance(detail, TORFeatDetail) and detail.result == 7


@pytest.mark.parametrize("line", ["9RG@123", "RG", "9RGx", "FD1f1i1f", "9RG1A1@10", "FDx"])
def test_malformed_commands_are_not_commands(line: str) -> None:
    assert evaluate(line, SYSTEM, source=QueueSource([])) is None


def test_absurd_success_dice_count_is_refused_without_rolling() -> None:
    result = evaluate("9RG99999999", SYSTEM, source=QueueSource([]))
    assert result is not None and result.dice == ()
    assert not any(result.flags.values())


def test_english_locale() -> None:
    result = roll("19RG6@10A1fmw", [9, 10], [4, 2, 2, 3, 2, 6], locale="en")
    assert result.text == (
        "(2D12+6D6+1) > [9, ◎10]+[4, 2, 2, 3, 2, 6]+1 TN 19 Total 21: Success[1 success icon] "
        "Piercing blow!\nCondition: Favoured Weary Miserable"
    )
    rune = roll("9RG", [12], locale="en")
    assert rune.text == "(1D12) > [Gandalf rune]: Automatic success[0 success icons]"
    assert roll("FD", [11], locale="en").text == "(1D12) > [Eye of Sauron]"


@pytest.mark.parametrize(
    "line,feat,success", [("19RG6@10A1fmw", [9, 10], [4, 2, 2, 3, 2, 6]), ("FDf", [3, 4], [])]
)
def test_json_round_trip(line: str, feat: list[int], success: list[int]) -> None:
    result = roll(line, feat, success)
    again = RollResult.model_validate_json(result.model_dump_json())
    assert again == result and type(again.detail) is type(result.detail)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789RGFDAWFIMwfim@- ", max_size=20))
def test_no_command_string_raises(text: str) -> None:
    ctx = RollContext(source=SeededSource(5), system=TheOneRing2nd())
    command = text.strip().split(" ")[0] if text.strip() else ""
    outcome = TheOneRing2nd().eval_system_command(command, ctx)
    assert outcome is None or isinstance(outcome.text, str)
