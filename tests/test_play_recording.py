"""Play commands record by default into the user data directory and print the path."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.transcripts.replay import replay_file
from gm_engine.transcripts.sealing import keys_dir
from gm_engine.transcripts.signing import load_or_create_key, sign_end
from tests.forge_chain import as_recorded, keep_key_as_while_running


def _printed_transcript(out: str) -> Path:
    lines = [line for line in out.splitlines() if line.startswith("記録: ")]
    assert len(lines) == 1, out[-2000:]
    return Path(lines[0].removeprefix("記録: "))


def test_werewolf_play_records_by_default_and_the_recording_replays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["werewolf", "play", "--auto", "--plain", "--seed", "4", "--role", "3"]) == 0
    path = _printed_transcript(capsys.readouterr().out)
    assert path.is_relative_to(Path(os.environ["GM_DATA_DIR"]))
    report = replay_file(path)
    assert report.ok, report


def test_adventure_records_by_default(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "player.txt"
    script.write_text("剣士のアリアで行きます\n", encoding="utf-8")
    assert main(["adventure", "--seed", "2", "--script", str(script)]) == 0
    path = _printed_transcript(capsys.readouterr().out)
    assert path.is_relative_to(Path(os.environ["GM_DATA_DIR"]))
    assert replay_file(path).ok


def test_no_record_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["werewolf", "play", "--auto", "--plain", "--seed", "4", "--no-record"]) == 0
    assert "記録: " not in capsys.readouterr().out
    assert not list(Path(os.environ["GM_DATA_DIR"]).rglob("*.jsonl"))


def test_resume_of_an_auto_game_goes_on_with_the_automatic_player(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = tmp_path / "whole.jsonl"
    assert main(["werewolf", "play", "--auto", "--plain", "--seed", "6", "--record", str(whole)]) == 0
    assert keys_dir().is_dir() and not list(keys_dir().iterdir())  # its end line reveals what they held
    # the file as it was while the game ran (a finished one is packed)
    lines = as_recorded(whole, partial(sign_end, load_or_create_key())).splitlines(keepends=True)
    keep_key_as_while_running(whole)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:40])  # killed mid-write
    capsys.readouterr()

    def no_terminal(*_: object) -> str:
        raise AssertionError("the automatic P1 must answer, not the terminal")

    monkeypatch.setattr("builtins.input", no_terminal)
    assert main(["resume", str(cut)]) == 0
    out = capsys.readouterr().out
    assert "書きかけの最後の行" in out
    assert f"件を {cut} に追記しました" in out and "resumed after" not in out  # the player's language
    assert cut.read_bytes() == whole.read_bytes()  # the same game, byte for byte
