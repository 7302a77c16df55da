"""How a game that stops before its end is left: no seed printed or written, and a stop
message that names ``gm resume PATH`` whenever the session can go on from there (the
player's /quit, a full disk while writing the transcript, Ctrl-C)."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.cli._play import run_play
from gm_engine.events import HumanInputEvent
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.transcripts.format import read_transcript

SEED = 86420975
SEED_TEXT = str(SEED)


def test_quit_prints_no_seed_and_names_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("こんにちは\n/quit\n"))
    code = main(["werewolf", "play", "--plain", "--seed", SEED_TEXT, "--role", "2", "--no-narrator",
                 "--record", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "ゲームを中断しました（役職は公開されません）" in out
    assert SEED_TEXT not in out + err and "(seed" not in out and "シード" not in out
    assert f"gm resume {path}" in out
    # the file tells no more: no end line, so no seed in it
    assert read_transcript(path, require_end=False).end is None
    assert SEED_TEXT not in path.read_text(encoding="utf-8")

    # resumed and quit again: the same
    monkeypatch.setattr("sys.stdin", io.StringIO("/quit\n"))
    code = main(["resume", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert SEED_TEXT not in out + err
    assert f"gm resume {path}" in out
    assert read_transcript(path, require_end=False).end is None


def test_adventure_quit_prints_no_seed_and_names_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, script = tmp_path / "adventure.jsonl", tmp_path / "lines.txt"
    script.write_text("アリア 駆け出し おまかせ\n/quit\n", encoding="utf-8")
    code = main(["adventure", "--seed", SEED_TEXT, "--record", str(path), "--script", str(script)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert SEED_TEXT not in out + err
    assert f"gm resume {path}" in out
    assert read_transcript(path, require_end=False).end is None


def test_a_finished_game_still_reveals_its_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.jsonl"
    code = main(["werewolf", "play", "--auto", "--plain", "--seed", SEED_TEXT, "--record", str(path)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert f"（シード {SEED}）" in out and "gm resume" not in out
    end = read_transcript(path).end
    assert end is not None and end.seed == SEED


def test_a_full_disk_names_resume_and_the_game_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills up while the transcript is written (a short write, then ENOSPC): the
    message says so and names ``gm resume``, and once there is room the game resumes."""
    path = tmp_path / "game.jsonl"
    real_write = os.write
    room = [30_000]

    def write(fd: int, data: bytes) -> int:
        if fd > 2 and os.readlink(f"/proc/self/fd/{fd}") == str(path):
            if room[0] <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            data = bytes(data[: room[0]])
            room[0] -= len(data)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    code = main(["werewolf", "play", "--auto", "--plain", "--seed", SEED_TEXT, "--record", str(path)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "ディスクがいっぱいです" in err and f"gm resume {path}" in err
    assert SEED_TEXT not in out + err
    cut = read_transcript(path, require_end=False)
    assert cut.end is None and cut.partial_line  # the last line was cut by the full disk

    monkeypatch.setattr(os, "write", real_write)
    code = main(["resume", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "の勝利" in out
    assert read_transcript(path).end is not None


def test_ctrl_c_names_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(spec: SessionSpec, session_io: SessionIO) -> SessionOutcome:
        session_io.sink.emit(HumanInputEvent(prompt="?", text="x"))
        raise KeyboardInterrupt

    spec = SessionSpec(kind="werewolf", seed=SEED, options={"role": 2})
    path = tmp_path / "game.jsonl"
    session_io = SessionIO(backend=OfflineBackend(), human=ScriptedHuman([]))
    assert run_play("gm werewolf play", "game", spec, session_io, path, runner=interrupted) == 130
    _, err = capsys.readouterr()
    assert "中断しました" in err and f"gm resume {path}" in err


def test_resuming_a_finished_game_says_it_ended_not_that_its_seed_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "data"))  # no key file of that game here
    monkeypatch.delenv("GM_LOCALE", raising=False)
    shipped = Path(__file__).resolve().parent.parent / "transcripts" / "werewolf_human_seer.jsonl"
    assert main(["resume", str(shipped)]) == 2
    err = capsys.readouterr().err
    assert "このセッションはもう終わっています" in err and "シード" not in err
