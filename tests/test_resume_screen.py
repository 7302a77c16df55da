"""``gm resume`` re-shows the recorded part of a game as ``gm werewolf play`` showed it: each
question with what the player typed after its ``> ``, then the session's answer (the /help
text, 「何も入力されていません…」), never an answer without its question."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gm_engine.cli import main

TYPED = ["/help", ""]  # the recorded inputs: the help, an empty line


def _with_typed(screen: str, typed: list[str]) -> str:
    """``screen`` (stdin was not a terminal, so nothing typed is on it) as a terminal shows it:
    the k-th ``> `` prompt followed by the k-th typed line."""
    pieces = re.split(r"(?m)(^> )", screen)
    out, k = [], 0
    for piece in pieces:
        out.append(piece)
        if piece == "> " and k < len(typed):
            out.append(typed[k] + "\n")
            k += 1
    assert k == len(typed)
    return "".join(out)


def test_resume_shows_each_recorded_answer_after_its_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    argv = ["werewolf", "play", "--plain", "--seed", "11", "--role", "2", "--no-narrator"]
    argv += ["--record", str(path)]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in TYPED) + "/quit\n"))
    assert main(argv) == 0
    played = capsys.readouterr().out
    assert played.count("\n> ") == 3  # two recorded answers, then /quit

    monkeypatch.setattr("sys.stdin", io.StringIO("/quit\n"))
    assert main(["resume", "--plain", str(path)]) == 0
    resumed = capsys.readouterr().out
    body, last = resumed.rstrip("\n").rsplit("\n", 1)
    assert last.startswith("記録済みの")  # gm resume's own last line
    # the same screen as the game's, with each recorded answer on its prompt's line
    assert body + "\n" == _with_typed(played, TYPED)
    assert "あなたの発言の番です（/help でコマンド）\n> /help\n発言はそのまま入力してください" in resumed
    assert "あなたの発言の番です（/help でコマンド）\n> \n何も入力されていません" in resumed
