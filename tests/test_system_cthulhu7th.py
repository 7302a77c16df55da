"""Call of Cthulhu 7th edition: CC, CBR, FAR and the tables, as BCDice 3.16 answers them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.dice.conformance import load_cases, run_case
from gm_engine.dice.engine import construct, evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import QueueSource, SeededSource
from gm_engine.dice.system import RollContext
from gm_engine.dice.systems._bcdice import SystemRefusalDetail
from gm_engine.dice.systems.cthulhu7th import (
    CoC7CombinedDetail,
    CoC7FullAutoDetail,
    CoC7SkillDetail,
    CoC7Volley,
    Cthulhu7th,
    level_of,
)
from gm_engine.dice.systems.tables import TableRollDetail

SYSTEM = "Cthulhu7th"


def d10(*values: int) -> list[tuple[int, int]]:
    return [(v, 10) for v in values]


def roll(
    line: str, dice: list[tuple[int, int]], locale: Locale = "ja", tables_dir: str | None = None
) -> RollResult:
    result = evaluate(line, SYSTEM, source=QueueSource(dice), locale=locale, tables_dir=tables_dir)
    assert result is not None, line
    return result


def percentile(value: int) -> list[tuple[int, int]]:
    """The tens and ones d10 that make ``value`` (100 is 10, 10)."""
    tens, ones = divmod(value % 100, 10)
    return d10(tens or 10, ones or 10)


# -- vectors ---------------------------------------------------------------------------


def test_all_bcdice_vectors_pass(vectors_dir: Path) -> None:
    tables = str(vectors_dir / "tables")
    failures = [
        (case.index, case.input, result.got_output)
        for case in load_cases(vectors_dir / "Cthulhu7th.toml")
        if not (result := run_case(case, tables)).passed
    ]
    assert failures == []


# -- CC --------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [96, 97, 98, 99, 100])
def test_cc_fumble_is_96_to_100_below_50(value: int) -> None:
    result = roll("CC<=49", percentile(value))
    assert result.text.endswith("＞ ファンブル")
    assert (result.fumble, result.failure, result.success) == (True, True, False)


@pytest.mark.parametrize("value,fumble", [(96, False), (99, False), (100, True)])
def test_cc_fumble_is_only_100_from_50(value: int, fumble: bool) -> None:
    result = roll("CC<=50", percentile(value))
    assert result.fumble is fumble
    assert result.text.endswith("ファンブル" if fumble else "失敗")


@pytest.mark.parametrize(
    "value,level",
    [
        (1, "クリティカル"),
        (10, "イクストリーム成功"),
        (11, "ハード成功"),
        (25, "ハード成功"),
        (26, "レギュラー成功"),
        (50, "レギュラー成功"),
        (51, "失敗"),
    ],
)
def test_cc_extreme_is_a_fifth_hard_is_a_half(value: int, level: str) -> None:
    result = roll("CC<=50", percentile(value))
    assert result.text == f"(1D100<=50) ボーナス・ペナルティダイス[0] ＞ {value} ＞ {value} ＞ {level}"
    assert result.critical is (value == 1)
    assert result.success is (value <= 50)


def test_cc_bonus_die_keeps_the_lowest_and_penalty_die_the_highest() -> None:
    bonus = roll("CC(1)<=60", d10(7, 2, 5))
    assert bonus.text == "(1D100<=60) ボーナス・ペナルティダイス[1] ＞ 75, 25 ＞ 25 ＞ ハード成功"
    penalty = roll("CC(-1)<=60", d10(7, 2, 5))
    assert penalty.text == "(1D100<=60) ボーナス・ペナルティダイス[-1] ＞ 75, 25 ＞ 75 ＞ 失敗"
    detail = bonus.detail
    assert isinstance(detail, CoC7SkillDetail)
    assert (detail.tens, detail.ones, detail.candidates, detail.value) == ((70, 20), 5, (75, 25), 25)
    assert (detail.target, detail.bonus_dice, detail.level) == (60, 1, "hard_success")


def test_cc_tens_and_ones_both_zero_read_100() -> None:
    result = roll("CC<=70", d10(10, 10))
    assert "＞ 100 ＞ 100 ＞ ファンブル" in result.text


def test_cc_bonus_dice_beyond_two_roll_more_tens_dice() -> None:
    result = roll("CC(3)<=50", d10(2, 10, 5, 3, 10))
    assert result.text == (
        "(1D100<=50) ボーナス・ペナルティダイス[3] ＞ 20, 100, 50, 30 ＞ 20 ＞ ハード成功"
    )
    assert len(result.dice) == 5


@pytest.mark.parametrize(
    "line,target",
    [("CC<=60r", 60), ("CC<=60h", 30), ("CC<=60e", 12), ("CC<=60c", 0), ("CC<=60H", 30)],
)
def test_cc_difficulty_letter_divides_the_target_and_reports_plain_success(line: str, target: int) -> None:
    result = roll(line, percentile(12))
    assert result.text.startswith(f"(1D100<={target}) ")
    assert result.text.endswith("成功" if target >= 12 else "失敗")
    assert not result.text.endswith("ハード成功")


def test_cc_without_a_target_only_rolls_d100() -> None:
    assert roll("CC", [(42, 100)]).text == "(1D100) ＞ 42"
    assert roll("CC<=0", [(42, 100)]).text == "(1D100) ＞ 42"
    with_bonus = roll("CC(1)", d10(4, 1, 2))
    assert with_bonus.text == "(1D100) ボーナス・ペナルティダイス[1] ＞ 42, 12 ＞ 12"
    assert not (with_bonus.success or with_bonus.failure)


def test_cc_arithmetic_in_parentheses_is_computed_first() -> None:
    result = roll("CC(3-1)<=50", d10(2, 1, 5, 4))
    assert result.text.startswith("(1D100<=50) ボーナス・ペナルティダイス[2] ＞ 24, 14, 54 ＞ 14")


def test_cc_bonus_dice_over_100_are_refused_without_rolling() -> None:
    result = roll("CC(101)<=50", [])
    assert result.text == "ボーナス・ペナルティダイスの値は-100以上、100以下としてください"
    assert result.dice == ()
    assert isinstance(result.detail, SystemRefusalDetail)
    assert not any(result.flags.values())


@pytest.mark.parametrize("line", ["CC<=50x", "CC(1,2)<=50", "CCC", "CC<=", "CC<=５０", "CBR(1)", "FAR(1,2)"])
def test_malformed_commands_are_not_commands(line: str) -> None:
    assert evaluate(line, SYSTEM, source=QueueSource([])) is None


# -- CBR -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,text,success,failure",
    [
        (16, "(1d100<=70,30) ＞ 16[ハード成功,レギュラー成功] ＞ 成功", True, False),
        (50, "(1d100<=70,30) ＞ 50[レギュラー成功,失敗] ＞ 部分的成功", False, False),
        (99, "(1d100<=70,30) ＞ 99[失敗,ファンブル] ＞ 失敗", False, True),
    ],
)
def test_cbr_succeeds_only_when_both_targets_succeed(
    value: int, text: str, success: bool, failure: bool
) -> None:
    result = roll("CBR(70,30)", [(value, 100)])
    assert result.text == text
    flags = (result.success, result.failure, result.critical, result.fumble)
    assert flags == (success, failure, False, False)
    detail = result.detail
    assert isinstance(detail, CoC7CombinedDetail)
    assert detail.targets == (70, 30) and detail.value == value


# -- FAR -------------------------------------------------------------------------------


def test_far_each_volley_adds_a_penalty_die_then_raises_the_difficulty() -> None:
    dice = d10(6, 7, 2, 1, 8, 7, 10, 6, 5, 1, 8, 5, 4, 1, 7, 4, 2, 8, 7, 8, 8, 3, 3, 3, 6, 4, 6, 8)
    result = roll("FAR(72,82,97,2)", dice)
    detail = result.detail
    assert isinstance(detail, CoC7FullAutoDetail)
    assert [v.bonus_dice for v in detail.volleys] == [2, 1, 0, -1, -2, -2, -2, -2]
    assert [v.difficulty for v in detail.volleys] == ["regular"] * 5 + ["hard", "extreme", "critical"]
    assert (detail.hits, detail.impales, detail.bullets_left) == (16, 0, 8)
    assert detail.stop_reason == "no_harder_difficulty"
    assert "【難易度がハードに変更】" in result.text and "【難易度がクリティカルに変更】" in result.text
    assert not any(result.flags.values())


def test_far_jam_ends_the_burst_without_spending_its_bullets() -> None:
    result = roll("FAR(7,99,98)", d10(9, 8))
    assert result.text == (
        "ボーナス・ペナルティダイス[0]\n1回目: ＞ 98 ＞ レギュラー成功\u3000ジャム\n"
        "＞ 0発が通常命中、0発が貫通、残弾7発"
    )
    detail = result.detail
    assert isinstance(detail, CoC7FullAutoDetail)
    assert detail.stop_reason == "jam" and detail.volleys[0].jammed and detail.bullets_left == 7


def test_far_extreme_success_impales_half_the_volley() -> None:
    result = roll("FAR(6,62,98)", d10(1, 2))  # 12 <= 62/5: extreme
    detail = result.detail
    assert isinstance(detail, CoC7FullAutoDetail)
    first = detail.volleys[0]
    assert (first.level, first.hits, first.impales) == ("extreme_success", 3, 3)


def test_far_last_short_volley_hits_half_of_the_bullets_left() -> None:
    result = roll("FAR(7,80,98)", d10(5, 10))
    assert "（3発が命中、0発が貫通）" in result.text
    assert result.text.endswith("残弾0発")


def test_far_critical_difficulty_only_hits_never_impales() -> None:
    dice = d10(6, 7, 2, 1, 9, 7, 10, 6, 5, 1, 9, 5, 4, 1, 7, 4, 2, 3, 1, 8, 1, 10, 1, 3, 10, 10, 10, 1)
    detail = roll("FAR(72,82,97,2)", dice).detail
    assert isinstance(detail, CoC7FullAutoDetail)
    last = detail.volleys[-1]
    assert (last.difficulty, last.level, last.hits, last.impales) == ("critical", "critical", 4, 0)


def test_far_stop_letter_ends_the_burst_at_that_difficulty() -> None:
    result = roll("FAR(60,50,99,,r)", d10(1, 9, 8, 4, 4, 4, 9, 3, 7))
    assert result.text.endswith(
        "【指定の難易度となったので、処理を終了します。】\n＞ 2発が通常命中、0発が貫通、残弾45発"
    )
    detail = result.detail
    assert isinstance(detail, CoC7FullAutoDetail)
    assert (detail.stop_reason, detail.stop_at) == ("difficulty_reached", "regular")


def test_far_corrects_arguments_with_warnings() -> None:
    result = roll("FAR(120,82,97,-2)", d10(6, 10, 2, 10))
    assert result.text.startswith("弾薬が多すぎます。装填された弾薬を100発に変更します。\n")
    over = roll("FAR(20,50,99,-2,r,9)", d10(10, 10, 10, 7))
    assert over.text.startswith(
        "ボレーの弾丸の数の上限は[技能値÷10（切り捨て）]発なので、それより高い数を指定できません。"
        "ボレーの弾丸の数を5発に変更します。\n"
    )
    low = roll("FAR(20,30,50,,,5)", d10(7, 10))
    assert low.text.startswith("技能値が39以下ではボレーの弾丸の数の上限および下限は3発です。")
    sign = roll("FAR(1,99,-98)", d10(10, 8))
    assert sign.text.startswith("故障ナンバーは正の数です。マイナス記号を外します。\n")
    detail = sign.detail
    assert isinstance(detail, CoC7FullAutoDetail)
    assert detail.warnings == ("malfunction_sign",) and detail.malfunction == 98


@pytest.mark.parametrize(
    "line,text",
    [
        ("FAR(0,50,98)", "弾薬は正の数です。"),
        ("FAR(10,0,98)", "目標値は正の数です。"),
        ("FAR(10,50,98,3)", "エラー。ボーナス・ペナルティダイスの値は-2～2です。"),
        ("FAR(10,50,98,,,0)", "ボレーの弾丸の数は正の数です。"),
    ],
)
def test_far_bad_arguments_are_answered_not_raised(line: str, text: str) -> None:
    result = roll(line, [])
    assert result.text == text
    assert result.dice == () and not any(result.flags.values())
    assert isinstance(result.detail, SystemRefusalDetail)


# -- English ---------------------------------------------------------------------------


def test_english_locale_uses_the_glossary_terms() -> None:
    cc = roll("CC(1)<=53", d10(9, 5, 2), locale="en")
    assert cc.text == "(1D100<=53) Bonus/Penalty Dice[1] > 92, 52 > 52 > Regular success"
    assert roll("CC(-1)<=53", d10(9, 6, 7), locale="en").text.endswith("> Failure")
    assert roll("CC<=49", percentile(97), locale="en").text.endswith("> Fumble")
    assert roll("CC<=50", percentile(5), locale="en").text.endswith("> Extreme success")
    assert roll("CC<=50", percentile(1), locale="en").text.endswith("> Critical success")
    cbr = roll("CBR(70,30)", [(50, 100)], locale="en")
    assert cbr.text == "(1d100<=70,30) > 50[Regular success,Failure] > Partial success"
    far = roll("FAR(30,62,98)", d10(1, 2, 9, 8, 8), locale="en")
    assert far.text.startswith("Bonus/Penalty Dice[0]\nVolley 1: > 12 > Extreme success (3 hits, 3 impales)")
    assert "\nVolley 2: > 98, 88 > Failure, Malfunction (jammed)\n" in far.text
    assert far.text.endswith("> 3 regular hits, 3 impales, 24 bullets left")


def test_english_and_japanese_share_the_same_structure() -> None:
    dice = d10(5, 2, 1, 8, 1, 10, 10, 10, 2, 9, 8, 7, 8)
    ja, en = roll("FAR(30,62,98)", dice), roll("FAR(30,62,98)", dice, locale="en")
    assert ja.detail == en.detail and ja.dice == en.dice and ja.flags == en.flags


# -- structure -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line,dice",
    [
        ("CC(1)<=53", d10(9, 5, 2)),
        ("CC", [(19, 100)]),
        ("CBR(70,30)", [(30, 100)]),
        ("FAR(30,62,98)", d10(5, 2, 1, 8, 1, 10, 10, 10, 2, 9, 8, 7, 8)),
        ("FAR(0,0,98)", []),
        ("BMS", d10(7, 7)),
    ],
)
def test_roll_result_json_round_trip_keeps_the_detail(
    line: str, dice: list[tuple[int, int]], vectors_dir: Path
) -> None:
    result = roll(line, dice, tables_dir=str(vectors_dir / "tables"))
    again = RollResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert type(again.detail) is type(result.detail)


def test_unvalidated_construction_equals_validation() -> None:
    volley = {
        "number": 1, "difficulty": "regular", "bonus_dice": 0, "tens": (50,), "ones": 2,
        "candidates": (52,), "value": 52, "level": "regular_success", "jammed": False, "hits": 3,
        "impales": 0, "bullets_left": 27,
    }
    assert construct(CoC7Volley, **volley) == CoC7Volley.model_validate(volley)
    skill = {
        "kind": "coc7_skill", "skill": 50, "difficulty": None, "target": 50, "bonus_dice": 0,
        "tens": (50,), "ones": 2, "candidates": (52,), "value": 52, "level": "failure",
    }
    built = construct(CoC7SkillDetail, **skill)
    assert built == CoC7SkillDetail.model_validate(skill)
    assert built.model_dump_json() == CoC7SkillDetail.model_validate(skill).model_dump_json()
    assert set(skill) == set(CoC7SkillDetail.model_fields)


def test_level_of_matches_the_rule_table() -> None:
    assert [level_of(v, 60) for v in (1, 12, 13, 30, 31, 60, 61, 99, 100)] == [
        "critical", "extreme_success", "hard_success", "hard_success", "regular_success",
        "regular_success", "failure", "failure", "fumble",
    ]
    assert level_of(96, 60, fumble_below_50=True) == "fumble"


def test_tables_roll_the_row_and_the_duration(placeholder_pack_dir: Path) -> None:
    result = roll("BMR", d10(6, 4), tables_dir=str(placeholder_pack_dir))
    assert result.text == "狂気の発作（リアルタイム）(6) ＞ BMR row 6 (placeholder)(1D10＞4ラウンド)"
    detail = result.detail
    assert isinstance(detail, TableRollDetail)
    assert detail.follow_up is not None and detail.follow_up.value == 4


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="CBRFAMSHPL0123456789()<=,+-rhecx ", max_size=24))
def test_no_command_string_raises(text: str) -> None:
    ctx = RollContext(source=SeededSource(7), system=Cthulhu7th(), tables_dir=None)
    command = text.strip().split(" ")[0] if text.strip() else ""
    outcome = Cthulhu7th().eval_system_command(command, ctx)
    assert outcome is None or isinstance(outcome.text, str)


@settings(max_examples=200, deadline=None)
@given(
    bullets=st.integers(1, 120),
    skill=st.integers(1, 120),
    malfunction=st.integers(0, 100),
    bonus=st.integers(-2, 2),
    stop=st.sampled_from(["", "r", "h", "e", "x"]),
    volley=st.one_of(st.just(""), st.integers(1, 12).map(str)),
    seed=st.integers(0, 10_000),
)
def test_far_invariants_hold_for_any_burst(
    bullets: int, skill: int, malfunction: int, bonus: int, stop: str, volley: str, seed: int
) -> None:
    line = f"FAR({bullets},{skill},{malfunction},{bonus},{stop},{volley})"
    result = evaluate(line, SYSTEM, source=SeededSource(seed))
    assert result is not None
    detail = result.detail
    assert isinstance(detail, CoC7FullAutoDetail)
    fired = detail.bullets - detail.bullets_left
    assert 0 <= detail.bullets_left <= detail.bullets == min(bullets, 100)
    assert detail.hits + detail.impales <= fired
    assert 1 <= len(detail.volleys) <= 8
    assert len(result.dice) == sum(len(v.tens) + 1 for v in detail.volleys)
    assert all(not v.jammed for v in detail.volleys[:-1])
    last = detail.volleys[-1]
    assert (detail.stop_reason == "jam") == last.jammed
    if detail.stop_reason == "out_of_bullets":
        assert detail.bullets_left == 0
    assert all(v.impales == 0 for v in detail.volleys if v.difficulty == "critical")
    english = evaluate(line, SYSTEM, source=SeededSource(seed), locale="en")
    assert english is not None and english.detail == detail
