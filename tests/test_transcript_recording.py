"""Recording is exclusive and safe: a transcript is created anew, owner-only, and locked
while its session runs, so a second process (recorder or resumer) is refused with a
message that says what to do, and no file is ever truncated."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.roll import NoModelBackend
from gm_engine.transcripts.format import (
    TranscriptBusy,
    TranscriptExists,
    TranscriptWriter,
    open_for_append,
    read_transcript,
)
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_file
from gm_engine.transcripts.resume import resume_session

GM = [sys.executable, "-m", "gm_engine"]


def roll_spec(seed: int = 5) -> SessionSpec:
    return SessionSpec(kind="roll", seed=seed, options={"system": "DiceBot"}, backend="none")


def record(path: Path, lines: list[str], seed: int = 5) -> None:
    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(lines), show=lambda _: None)
    record_session(roll_spec(seed), io, path, durable=False)


def _step_written(data: bytes) -> bool:
    """The first step's lines are all in the file: it ends with that step's ``state`` line
    (a step writes several lines; the refusal checks compare the bytes, so none may follow)."""
    lines = data.splitlines()
    return data.endswith(b"\n") and len(lines) >= 4 and lines[-1].startswith(b'{"type":"state"')


@pytest.fixture
def running_session(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A real `gm roll-session --record F` process, waiting at its prompt with F open and locked."""
    path = tmp_path / "live.jsonl"
    proc = subprocess.Popen(
        [*GM, "roll-session", "--seed", "9", "--record", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert proc.stdin is not None
    proc.stdin.write("2d6\n")  # a first event, so the file is written past its header
    proc.stdin.flush()
    deadline = time.monotonic() + 60  # a generous bound for a loaded machine, not a timing assertion
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and _step_written(path.read_bytes()):
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    assert _step_written(path.read_bytes())
    try:
        yield proc, path
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_second_process_is_refused_while_a_session_records(
    running_session: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, path = running_session
    before = path.read_bytes()

    again = subprocess.run(
        [*GM, "roll-session", "--seed", "10", "--record", str(path), "--script", os.devnull],
        capture_output=True, text=True, env=os.environ.copy(), check=False,
    )
    assert again.returncode == 2
    assert "はすでにあります" in again.stderr and f"gm resume {path}" in again.stderr

    resumed = subprocess.run(
        [*GM, "resume", str(path), "--seed", "9"],
        capture_output=True, text=True, env=os.environ.copy(), stdin=subprocess.DEVNULL, check=False,
    )
    assert resumed.returncode == 2
    assert "別のプロセスが記録中か再開中です" in resumed.stderr
    english = subprocess.run(
        [*GM, "resume", str(path), "--seed", "9"],
        capture_output=True, text=True, env={**os.environ, "GM_LOCALE": "en"}, stdin=subprocess.DEVNULL,
        check=False,
    )
    assert english.returncode == 2 and "is in use by another process" in english.stderr

    assert path.read_bytes() == before  # neither touched the recording
    _, err = proc.communicate("1d6\n/quit\n", timeout=120)
    assert proc.returncode == 0, err
    report = replay_file(path)
    assert report.ok, report.describe()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_lock_held_by_another_process_refuses_resume_in_process(tmp_path: Path) -> None:
    """The same refusal through the API, with the lock held by a real second process."""
    path = tmp_path / "cut.jsonl"
    writer = TranscriptWriter.create(path, roll_spec(), durable=False)
    writer.write_event("state", {"hash": "a", "step": 0})
    writer.close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl,os,sys; fd=os.open(sys.argv[1], os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); "
         "print('locked', flush=True); sys.stdin.read()", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        before = path.read_bytes()
        io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(["/quit"]), show=lambda _: None)
        with pytest.raises(TranscriptBusy, match="別のプロセスが記録中か再開中です"):
            resume_session(path, io, seed=5)
        with pytest.raises(TranscriptBusy):
            open_for_append(path)
        assert path.read_bytes() == before
    finally:
        holder.communicate("")
    fd = open_for_append(path)  # free again once the holder is gone
    os.close(fd)


def test_record_never_truncates_an_existing_transcript(tmp_path: Path) -> None:
    path = tmp_path / "done.jsonl"
    record(path, ["2d6", "/quit"])
    before = path.read_bytes()
    with pytest.raises(TranscriptExists, match=r"すでにあります.*gm resume"):
        record(path, ["1d6", "/quit"], seed=6)
    assert path.read_bytes() == before
    assert read_transcript(path).end is not None


@pytest.mark.parametrize(
    ("locale", "words"),
    [(None, ("はすでにあります", "別のファイルに記録")), ("en", ("already exists", "another file"))],
)
def test_cli_record_on_an_existing_file_refuses_and_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    locale: str | None, words: tuple[str, str],
) -> None:
    from gm_engine.cli import main

    if locale is None:
        monkeypatch.delenv("GM_LOCALE", raising=False)
    else:
        monkeypatch.setenv("GM_LOCALE", locale)
    path = tmp_path / "taken.jsonl"
    path.write_bytes(b"someone else's file\n")
    script = tmp_path / "lines.txt"
    script.write_text("2d6\n/quit\n", encoding="utf-8")
    code = main(["roll-session", "--record", str(path), "--script", str(script)])
    err = capsys.readouterr().err
    assert code == 2
    assert all(word in err for word in words) and f"gm resume {path}" in err
    assert path.read_bytes() == b"someone else's file\n"


def test_transcripts_and_their_folders_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "t.jsonl"
    record(path, ["2d6", "/quit"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_resume_appends_under_the_lock_and_releases_it(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    writer = TranscriptWriter.create(path, roll_spec(), durable=False)
    writer.close()  # cut off right after the header
    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(["2d6", "/quit"]), show=lambda _: None)
    result = resume_session(path, io, seed=5, durable=False)
    assert result.new_events > 0
    assert replay_file(path).ok
    os.close(open_for_append(path))  # the lock went with the session
