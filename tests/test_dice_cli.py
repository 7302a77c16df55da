"""``gm roll`` and ``gm systems`` as a user meets them: output, notices and exit status."""

from __future__ import annotations

import json

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
    status, out, _ = run(capsys, "roll", "--system", "Cthulhu7th", "--json", "--locale", "en",
                         "--rands", "9/10,5/10,2/10", "CC(1)<=50")
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
    assert err == "gm roll: not a command under DiceBot: 'hello there'\n"


def test_a_refused_command_prints_why_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "roll", "10001B6")
    assert status == 1 and "10000" in out


def test_an_unknown_system_is_named_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "roll", "--system", "cthulhu7th", "CC<=50")
    assert (status, out) == (2, "")
    assert "unknown game system 'cthulhu7th' (did you mean 'Cthulhu7th'?)" in err
    assert "known: Cthulhu, Cthulhu7th, DiceBot, TheOneRing2nd" in err
    status, _, err = run(capsys, "roll", "--system", "Nope", "2D6")
    assert status == 2 and "did you mean" not in err


def test_injected_dice_faults_and_leftovers(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "roll", "--rands", "9/6x", "2D6")
    assert status == 2 and "bad die '9/6x'" in err
    status, _, err = run(capsys, "roll", "--rands", "3/6", "2D6")
    assert status == 2 and "ran out" in err
    status, out, err = run(capsys, "roll", "--rands", "3/6,4/6,1/20", "2D6")
    assert (status, out) == (0, "(2D6) ＞ 7[3,4] ＞ 7\n")
    assert err == "(injected dice left unused: 1/20)\n"


def test_a_secret_roll_says_so_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "roll", "--rands", "3/6,4/6", "S2D6")
    assert (status, out) == (0, "(2D6) ＞ 7[3,4] ＞ 7\n")
    assert "secret" in err


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
    assert "CC(x)<=n" in out


def test_bench_dice_prints_its_figures_without_judging_them(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bench", "dice", "--count", "60")
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith("mix: CC(1)<=50 [Cthulhu7th]")
    assert any(line.startswith("60 commands in ") for line in lines)
    assert lines[-1].endswith(" commands/s")
    status, _, err = run(capsys, "bench", "dice", "--count", "0")
    assert status == 2 and "--count" in err
