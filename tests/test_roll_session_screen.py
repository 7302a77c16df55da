"""``gm roll-session``'s whole screen in one language: Japanese by default (its prompt too,
which was ``[DiceBot] roll>`` on the Japanese screen), English under ``GM_LOCALE=en`` (which
it did not follow: only ``--locale en`` gave English) or ``--locale en``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gm_engine.cli import main

LINES = "".join(
    f"{line}\n"
    for line in ["/help", "2d6", "S2d6", "hello", "/system", "/system Nope", "/system Cthulhu7th",
                 "CC(1)<=50",
                 "/locale fr", "/foo", "/quit"]
)
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
#: Two English words in a row (a command's argument, a system's id or BCDice's own words are not).
ENGLISH = re.compile(r"\b[A-Za-z]{2,} [A-Za-z]{2,}\b")


def _screen(env_locale: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            tmp_path: Path, *more: str) -> str:
    if env_locale is None:
        monkeypatch.delenv("GM_LOCALE", raising=False)
    else:
        monkeypatch.setenv("GM_LOCALE", env_locale)
    monkeypatch.setattr("sys.stdin", io.StringIO(LINES))
    path = tmp_path / f"roll-{env_locale}-{len(more)}.jsonl"
    assert main(["roll-session", "--seed", "3", "--record", str(path), *more]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def test_the_japanese_screen_has_a_japanese_prompt_and_no_english_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    screen = _screen(None, monkeypatch, capsys, tmp_path)
    assert screen.count("[DiceBot] ダイス> ") == 7 and screen.count("[Cthulhu7th] ダイス> ") == 4
    assert "roll>" not in screen
    # the help's command names and BCDice's result are not sentences of ours
    prose = [line for line in screen.splitlines() if ENGLISH.search(line.replace("/locale ja|en", ""))]
    assert prose == []
    assert screen.splitlines()[-1].startswith("記録: ")


@pytest.mark.parametrize("how", ["GM_LOCALE", "--locale"])
def test_the_english_screen_is_english(
    how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    if how == "GM_LOCALE":
        screen = _screen("en", monkeypatch, capsys, tmp_path)
    else:
        screen = _screen(None, monkeypatch, capsys, tmp_path, "--locale", "en")
    assert screen.startswith("roll session: DiceBot; /help for help, /quit to end\n[DiceBot] roll> ")
    assert screen.count("[Cthulhu7th] roll> ") == 4
    # the one Japanese on it: the Cthulhu7th system's own name as BCDice gives it
    lines = [line.replace("新クトゥルフ神話TRPG", "") for line in screen.splitlines()]
    assert [line for line in lines if JAPANESE.search(line)] == []
    assert screen.splitlines()[-1].startswith("transcript: ")


def test_the_command_line_locale_wins_over_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    screen = _screen("en", monkeypatch, capsys, tmp_path, "--locale", "ja")
    assert screen.startswith("ダイスセッション: DiceBot") and "roll>" not in screen
