"""``gm resume`` and ``gm replay`` on a finished transcript that was rewritten or cut: a
rewritten file's claimed result is never quoted as the game's, and a packed file (only a
finished game is packed) cut short is damage, never "a session that can be continued"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.transcripts.format import TranscriptStream

SHIPPED = Path(__file__).resolve().parents[1] / "transcripts" / "werewolf_human_seer.jsonl"


def _summary() -> str:
    """The shipped game's result, as its end line says it."""
    with TranscriptStream(SHIPPED) as stream:
        assert stream.peeked_end is not None
        return str(stream.peeked_end["summary"])


def _gm(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.fixture(autouse=True)
def _japanese(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GM_LOCALE", "ja")


def test_a_finished_game_is_refused_with_its_verified_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "finished.jsonl"
    shutil.copyfile(SHIPPED, copy)
    status, out = _gm(capsys, "resume", str(copy))
    assert status == 2
    assert f"このセッションはもう終わっています（{_summary()}）" in out


def test_a_rewritten_finished_game_is_called_rewritten_not_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(SHIPPED.read_bytes())
    middle = len(data) // 2
    while data[middle] == ord("\n"):
        middle += 1
    data[middle] ^= 1  # one bit of a packed line in the middle
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(bytes(data))
    status, out = _gm(capsys, "resume", str(forged))
    assert status == 2
    assert "もう終わっています" not in out and _summary() not in out, out
    assert "書き換えられ" in out or "合いません" in out, out  # what gm replay says of it
    assert forged.read_bytes() == bytes(data)  # nothing written to it


def test_a_packed_file_cut_short_is_damage_not_a_stopped_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(SHIPPED.read_bytes()[:20_000])
    _, replayed = _gm(capsys, "replay", str(cut))
    assert "ファイルが壊れています" in replayed and "gm resume" not in replayed, replayed
    status, resumed = _gm(capsys, "resume", str(cut))
    assert status == 2
    assert "途中で切れています。ファイルが壊れているため、続きは遊べません" in resumed, resumed
    assert "--seed" not in resumed  # not told that a seed would let it go on
    assert cut.read_bytes() == SHIPPED.read_bytes()[:20_000]
