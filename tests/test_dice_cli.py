"""``gm roll`` and ``gm systems`` as a user meets them: output, notices and exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gm_engine.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_roll_prints_bcdice_text_and_the_comment_is_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "roll", "--system", "Cthulhu7th", "--rands", "9/10,5/10,2/10", "CC(1)<=50 目星"
    )
    assert (status, err) == (0, "")
    assert out == "(1D100<=50) ボーナス・ペナルティダイス[1] ＞ 92, 52 ＞ 52 ＞ 失敗\n"


def test_json_and_english(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "roll",
        "--system",
        "Cthulhu7th",
        "--json",
        "--locale",
        "en",
        "--rands",
        "9/10,5/10,2/10",
        "CC(1)<=50",
    )
    data = json.loads(out)
    assert status == 0
    assert data["command"] == "CC1<=50" and data["failure"] is True and data["locale"] == "en"
    assert data["text"] == "(1D100<=50) Bonus/Penalty Dice[1] > 92, 52 > 52 > Failure"
    assert data["dice"] == [[9, 10], [5, 10], [2, 10]]


def test_the_same_seed_gives_the_same_roll(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "roll", "--seed", "11", "4D6+2")
    assert first == run(capsys, "roll", "--seed", "11", "4D6+2") and first[0] == 0


def test_a_non_command_is_a_short_notice_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "roll", "hello", "there")
    assert (status, out) == (1, "")
    assert err == "gm roll: DiceBot のダイスコマンドではありません: 「hello there」\n"
    status, out, err = run(capsys, "roll", "--locale", "en", "hello", "there")
    assert (status, out, err) == (1, "", "gm roll: not a command under DiceBot: 'hello there'\n")


def test_a_refused_command_prints_why_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "roll", "10001B6")
    assert status == 1 and "10000" in out


def test_an_unknown_system_is_named_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "roll", "--system", "cthulhu7th", "CC<=50")
    assert (status, out) == (2, "")
    assert err == (
        "gm roll: ゲームシステム「cthulhu7th」はありません。"
        "名前は大文字と小文字を区別します:「Cthulhu7th」のことですか？\n"
    )
    status, _, err = run(capsys, "roll", "--system", "Nope", "2D6")
    assert status == 2
    assert err == (
        "gm roll: ゲームシステム「Nope」はありません（あるもの: Cthulhu, Cthulhu7th, DiceBot, TheOneRing2nd。"
        "`gm systems` で一覧）\n"
    )
    status, _, err = run(capsys, "roll", "--locale", "en", "--system", "Nope", "2D6")
    assert err == (
        "gm roll: there is no game system 'Nope' (known: Cthulhu, Cthulhu7th, DiceBot, TheOneRing2nd; "
        "`gm systems` lists them)\n"
    )


def test_injected_dice_faults_and_leftovers(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "roll", "--rands", "9/6x", "2D6")
    assert status == 2 and "bad die '9/6x'" in err
    status, _, err = run(capsys, "roll", "--rands", "3/6", "2D6")
    assert status == 2 and "ran out" in err
    status, out, err = run(capsys, "roll", "--rands", "3/6,4/6,1/20", "2D6")
    assert (status, out) == (0, "(2D6) ＞ 7[3,4] ＞ 7\n")
    assert err == "（指定したダイスのうち使われなかったもの: 1/20）\n"


def test_a_secret_roll_says_so_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "roll", "--rands", "3/6,4/6", "S2D6")
    assert (status, out) == (0, "(2D6) ＞ 7[3,4] ＞ 7\n")
    assert err == "（シークレットダイス: 結果は振った本人にだけ見えます）\n"
    status, _, err = run(capsys, "roll", "--locale", "en", "--rands", "3/6,4/6", "S2D6")
    assert status == 0 and "secret" in err


def test_a_long_comment_is_answered_and_a_huge_line_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "roll", "--rands", "3/6,4/6", "2D6", "x" * 1200)
    assert (status, out) == (0, "(2D6) ＞ 7[3,4] ＞ 7\n")
    status, out, _ = run(capsys, "roll", "2D6", "x" * 300_000)
    assert status == 1 and out.startswith("コマンドが長すぎます")


def test_systems_lists_every_system_with_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "systems")
    assert status == 0
    heads = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert heads == ["DiceBot", "Cthulhu", "Cthulhu7th", "TheOneRing2nd"]
    assert "CC(x)<=n 技能ロール" in out and "skill roll" not in out  # the player's language


def test_systems_help_is_english_under_the_english_locale(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GM_LOCALE", "en")
    status, out, _ = run(capsys, "systems")
    assert status == 0 and "CC(x)<=n skill roll" in out and "技能ロール" not in out


def test_bench_dice_prints_its_figures_without_judging_them(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bench", "dice", "--count", "60")
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith("コマンド: CC(1)<=50 [Cthulhu7th]")
    assert any(line.startswith("60 コマンド: 実時間 ") for line in lines)
    assert lines[-1].startswith("実時間あたり: 毎秒 ") and lines[-1].endswith(" コマンド")
    status, _, err = run(capsys, "bench", "dice", "--count", "0")
    assert status == 2 and err.strip() == "gm bench: --count は1以上にしてください"


def test_rands_refuse_a_value_that_is_not_a_face_of_its_die(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "roll", "--rands", "7/6", "1D6")
    assert (status, out) == (2, "") and "bad die '7/6': a d6 shows 1 to 6" in err
    status, out, err = run(capsys, "roll", "--rands", "0/10", "1D10")
    assert (status, out) == (2, "") and "a d10 shows 1 to 10" in err
    status, _, err = run(capsys, "roll", "--rands", "1/0", "1D6")
    assert status == 2 and "'1/0'" in err
    status, out, _ = run(capsys, "roll", "--rands", "6/6", "1D6")
    assert (status, out) == (0, "(1D6) ＞ 6\n")


_VECTOR = '[[ test ]]\ngame_system = "{system}"\ninput = "{line}"\noutput = "{output}"\nrands = [{rands}]\n\n'


def test_conformance_keeps_bcdice_runners_leniency_on_faces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # BCDice's own vectors put 0 on a d10, which the tens/ones logic reads like 10
    vector = tmp_path / "zero.toml"
    vector.write_text(
        _VECTOR.format(
            system="DiceBot", line="1D10", output="(1D10) ＞ 0", rands="{ sides = 10, value = 0 }"
        ),
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "conformance", str(vector))
    assert (status, out) == (0, "1 passed, 0 failed\n")


def test_conformance_reports_an_unreadable_file_and_runs_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[[ test ]\nnot toml", encoding="utf-8")
    shapeless = tmp_path / "shapeless.toml"
    shapeless.write_text("test = [1, 2]\n", encoding="utf-8")
    good = tmp_path / "good.toml"
    good.write_text(
        _VECTOR.format(system="DiceBot", line="1D6", output="(1D6) ＞ 4", rands="{ sides = 6, value = 4 }"),
        encoding="utf-8",
    )
    status, out, err = run(
        capsys, "conformance", str(broken), str(tmp_path / "missing.toml"), str(shapeless), str(good)
    )
    assert status == 2
    assert out == "1 passed, 0 failed, 3 files unreadable\n"
    assert "broken.toml" in err and "missing.toml" in err and "shapeless.toml" in err


def test_conformance_shows_an_error_on_a_vector_as_a_failed_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    long_line = "2D6 " + "x" * 1200  # BCDice answers it; gm used to raise on it
    vectors = tmp_path / "v.toml"
    vectors.write_text(
        _VECTOR.format(
            system="DiceBot",
            line=long_line,
            output="(2D6) ＞ 7[3,4] ＞ 7",
            rands="{ sides = 6, value = 3 }, { sides = 6, value = 4 }",
        )
        + _VECTOR.format(
            system="NoSuchSystem", line="1D6", output="(1D6) ＞ 4", rands="{ sides = 6, value = 4 }"
        )
        + _VECTOR.format(system="DiceBot", line="1D6", output="(1D6) ＞ 4", rands=""),
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "conformance", str(vectors))
    assert status == 1
    assert out.endswith("1 passed, 2 failed\n")
    assert "unknown game system 'NoSuchSystem'" in out and "ran out" in out

    import gm_engine.dice.conformance as conformance

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("engine fault")

    monkeypatch.setattr(conformance, "evaluate", broken)
    status, out, _ = run(capsys, "conformance", str(vectors))
    assert status == 1 and out.endswith("0 passed, 3 failed\n")
    assert out.count("error: RuntimeError: engine fault") == 3
