"""Nothing lost at a stop: what a format-7 writer holds back (:mod:`gm_engine.transcripts.journal`)
survives ``/quit``, Ctrl-C and ``kill -9``, and a kill during the final packing leaves a file
``gm resume`` packs.

The live-like model is the fake server answering with its request count in every speech, so
a turn the resumed game asks again says something else: what P1 saw before the stop is in
the finished transcript only if the recording kept it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.sessions.base import HumanDefaults, SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.werewolf_offline import first_choice_calls
from gm_engine.transcripts.format import (
    TranscriptStream,
    TranscriptWriter,
    read_transcript,
)
from gm_engine.transcripts.journal import journal_file
from gm_engine.transcripts.packing import PACKED_FORMAT
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.transcripts.resume import resume_session
from gm_engine.transcripts.sealing import CHUNK_ROOM
from tests.tail_driver import answer_key, auto_p1, backend_for, spec_for

ROOT = Path(__file__).resolve().parent.parent


class CountingModel:
    """The fake server's model: every answer carries the number of the request it answers,
    so no two answers are alike and a re-asked turn answers otherwise."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> FakeReply:
        with self._lock:
            self.count += 1
            number = self.count
        tools = body.get("tools") or []
        if not tools:
            return FakeReply.text(f"語り{number}")
        return FakeReply.tool_calls(*first_choice_calls(tools, text=f"発言その{number}です"))


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(responder=CountingModel()) as running:
        yield running


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("GM_DATA_DIR", str(folder))
    return folder


def _resumed_screen(path: Path, seed: int, url: str) -> list[str]:
    """``gm resume`` of the cut-off game at ``path`` to its end, with the same model: the
    screen it shows, the replayed part (made from the record) first."""
    screen: list[str] = []
    io = SessionIO(backend=backend_for(url), human=auto_p1(seed), show=screen.append)
    result = resume_session(path, io, shadow_human=True, durable=False)
    assert result.outcome.finished
    return screen


def _finished_and_checked(path: Path) -> None:
    transcript = read_transcript(path)
    assert transcript.header.format == PACKED_FORMAT  # packed at its end
    report = replay_transcript(transcript)
    assert report.ok, report.describe()


# ------------------------------------------------ the writer: a stop keeps what is held back


def test_what_a_stop_holds_back_is_read_back_and_the_file_keeps_its_shape(data: Path) -> None:
    """Three events larger than a chunk, one public point, then a stop: the file has the
    header and one chunk (as at any single point), and every event reads back from it and
    the journal beside the key; once the game ends, the journal is gone."""
    spec = SessionSpec(kind="werewolf", seed=3, backend="offline")
    path = data.parent / "stop.jsonl"
    writer = TranscriptWriter.create(path, spec, durable=False, remember_seed=False, pack=False)
    texts = ["あ" * (CHUNK_ROOM // 2), "い" * CHUNK_ROOM, "う" * 10]
    for text in texts:
        writer.write_event("tool_result", {"actor": "P2", "text": text})
    writer.public_point()
    writer.close()  # the stop: /quit, Ctrl-C or an error
    rows = path.read_bytes().split(b"\n")
    assert len(rows) == 3 and rows[-1] == b""  # the header, one chunk, nothing else
    cut = read_transcript(path, require_end=False)
    assert [event.payload["text"] for event in cut.events] == texts
    with TranscriptStream(path) as stream:
        key_id = stream.header.sealing.key_id if stream.header.sealing else ""
    assert journal_file(key_id).is_file()
    assert oct(journal_file(key_id).stat().st_mode & 0o777) == "0o600"


def test_a_journal_that_does_not_continue_the_file_is_refused(data: Path) -> None:
    """The journal's first event must begin with the bytes of it the file's chunks hold: a
    journal of other text is refused, with the line it stops at."""
    from gm_engine.transcripts.format import TranscriptTampered
    from gm_engine.transcripts.journal import TailJournal

    spec = SessionSpec(kind="werewolf", seed=3, backend="offline")
    path = data.parent / "stop.jsonl"
    writer = TranscriptWriter.create(path, spec, durable=False, remember_seed=False, pack=False)
    writer.write_event("tool_result", {"actor": "P2", "text": "あ" * CHUNK_ROOM})
    writer.public_point()
    writer.close()
    with TranscriptStream(path) as stream:
        key = stream.key
        commitment = stream.header.seed_sha256
    assert key is not None
    journal_file(key.key_id).unlink()
    other = TailJournal.open(key, commitment, durable=False, new=True)
    other.add(1, b'{"type":"tool_result","actor":"P3","text":"x"}\n')
    other.close()
    with pytest.raises(TranscriptTampered, match=r"tail|控え"):
        read_transcript(path, require_end=False)


# ------------------------------------------------ Ctrl-C at a prompt, the model live


class _CtrlCAt(HumanDefaults):
    """P1's agent, whose person presses Ctrl-C at the ``at``-th question."""

    def __init__(self, seed: int, at: int) -> None:
        self.auto = auto_p1(seed)
        self.at = at
        self.asked = 0
        self.answers_at_once = self.auto.answers_at_once

    def observe(self, observation: Any, legal: Any) -> None:
        self.auto.observe(observation, legal)

    def ask(self, prompt: str, choices: Any = None) -> str:
        self.asked += 1
        if self.asked == self.at:
            raise KeyboardInterrupt
        return str(self.auto.ask(prompt, choices))


#: Where Ctrl-C is pressed: at P1's n-th question, or as the n-th line reaches the screen
#: (the 10th and 32nd come while the writer holds back a model answer: measured with
#: ``CountingModel``, seed 4, as for the kill points below).
CTRL_C = [("question", 2), ("question", 5), ("line", 10), ("line", 32)]


@pytest.mark.parametrize(("where", "at"), CTRL_C, ids=[f"{where}-{at}" for where, at in CTRL_C])
def test_ctrl_c_keeps_every_answer_p1_saw(server: FakeChatServer, data: Path, where: str, at: int) -> None:
    """Ctrl-C in a game against the live-like model, then ``gm resume`` with the same server:
    the resumed game's replayed screen, made from the record, is the screen P1 saw before
    the stop, line for line (a turn the record lost would be asked again and say something
    else), and the finished file replays."""
    from gm_engine.transcripts.record import record_session

    seed = 4
    path = data.parent / "game.jsonl"
    seen: list[str] = []

    def show(text: str) -> None:
        seen.append(text)
        if where == "line" and len(seen) == at:
            raise KeyboardInterrupt

    human = _CtrlCAt(seed, at if where == "question" else 0)
    io = SessionIO(backend=backend_for(server.base_url), human=human, show=show)
    with pytest.raises(KeyboardInterrupt):
        record_session(spec_for(seed, server.base_url), io, path, durable=False)
    assert len(seen) >= 10
    again = _resumed_screen(path, seed, server.base_url)
    assert again[: len(seen)] == seen
    _finished_and_checked(path)


# ------------------------------------------------ kill -9, a process of its own


def _killed_game(
    path: Path, seed: int, url: str, mode: str, at: int, data: Path
) -> tuple[list[str], list[list[Any]]]:
    """Run the driver (:mod:`tests.tail_driver`) to its kill; the lines it showed and the
    model answers it had received."""
    env = {**os.environ, "GM_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.tail_driver", str(path), str(seed), url, mode, str(at)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    return [p["shown"] for p in printed if "shown" in p], [p["answer"] for p in printed if "answer" in p]


def _recorded_answers(path: Path) -> list[list[Any]]:
    """The model answers a finished transcript holds, as the driver prints them."""
    return [
        answer_key(event.payload.get("content"),
                   [(call["name"], call["arguments"]) for call in event.payload.get("tool_calls") or []])
        for event in read_transcript(path).events
        if event.type == "model_response"
    ]


@pytest.mark.parametrize("url", ["offline", "fake server"])
@pytest.mark.parametrize("at", [10, 32, 75])
def test_kill_9_after_a_line_is_shown_loses_nothing_p1_saw(
    server: FakeChatServer, data: Path, url: str, at: int
) -> None:
    """``kill -9`` right after the ``at``-th line of a game reached the screen, then ``gm
    resume``: the record holds every line P1 saw, with the offline model and with the
    live-like one (whose answers differ when a turn is asked again), and every model answer
    the killed process had received. With the live-like model, at each of these lines the
    writer holds back a model answer (measured: lines 9, 10, 30-33, 48, 49, 74-76, 90, 107,
    108 and 136 of the game's 150)."""
    address = "offline" if url == "offline" else server.base_url
    seed = 4
    path = data.parent / "game.jsonl"
    seen, answers = _killed_game(path, seed, address, "show", at, data)
    assert len(seen) == at and answers
    again = _resumed_screen(path, seed, address)
    assert again[:at] == seen
    recorded = _recorded_answers(path)
    missing = [answer for answer in answers if answer not in recorded]
    assert not missing, f"{len(missing)} of the {len(answers)} answers received before the kill are lost"
    _finished_and_checked(path)


# ------------------------------------------------ kill -9 during the final packing


def test_a_kill_before_the_packed_copy_is_moved_over_leaves_a_file_resume_packs(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Killed after the end line and before the rename of the packed copy: the file is
    finished (its end line signed) but unpacked, the half-written copy beside it; ``gm
    resume`` says the game ended, packs the file and deletes the copy; the file replays."""
    from gm_engine.cli import main

    path = data.parent / "game.jsonl"
    _killed_game(path, 4, "offline", "pack", 0, data)  # the game ended: no line or answer is at stake
    with TranscriptStream(path) as stream:
        assert stream.header.format == 7 and stream.ends  # finished, not packed
        key_id = stream.header.sealing.key_id if stream.header.sealing else ""
    assert list(path.parent.glob(f".{path.name}.*.packing"))  # the copy the kill left
    unpacked = path.stat().st_size
    capsys.readouterr()
    assert main(["resume", str(path)]) == 0
    out = capsys.readouterr().out
    assert str(path) in out and ("まとめ" in out or "packed" in out)
    assert read_transcript(path).header.format == PACKED_FORMAT
    assert path.stat().st_size < unpacked / 2
    assert not list(path.parent.glob(f".{path.name}.*.packing"))
    assert not journal_file(key_id).exists()
    _finished_and_checked(path)
    assert main(["resume", str(path)]) == 2  # packed now: nothing more to do, as for any finished game


def test_packing_syncs_the_folder_after_the_rename(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rename that puts the packed copy over the file is made durable: the folder is
    synced after it (the new file's own bytes are synced as they are written)."""
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.transcripts import format as transcript_format
    from gm_engine.transcripts.record import record_session

    order: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            order.append("folder " + os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def replace(source: Any, target: Any) -> None:
        order.append("rename")
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    real_pack = transcript_format.pack_transcript
    monkeypatch.setattr(transcript_format, "pack_transcript",
                        lambda *a, **k: real_pack(*a, **k, replace=replace))
    path = data.parent / "game.jsonl"
    io = SessionIO(backend=OfflineBackend(), human=auto_p1(4), show=lambda _: None)
    outcome = record_session(spec_for(4, "offline"), io, path)
    assert outcome.finished
    assert order[-2:] == ["rename", f"folder {path.parent}"]


def test_the_end_of_a_game_removes_its_journal(data: Path) -> None:
    """A finished game leaves no journal (the end line holds everything)."""
    spec = SessionSpec(kind="werewolf", seed=3, backend="offline")
    path = data.parent / "end.jsonl"
    writer = TranscriptWriter.create(path, spec, durable=False, remember_seed=False)
    writer.write_event("tool_result", {"actor": "P2", "text": "あ" * CHUNK_ROOM})
    writer.public_point()
    with TranscriptStream(path) as stream:
        key_id = stream.header.sealing.key_id if stream.header.sealing else ""
    assert journal_file(key_id).is_file()
    writer.finish(3, SessionOutcome(summary="done"))
    assert not journal_file(key_id).exists()
    assert [event.type for event in read_transcript(path).events] == ["tool_result"]


# ------------------------------------------------ gm adventure records in format 7 too


@pytest.mark.parametrize("at", [3, 8, 15])
def test_an_adventure_stopped_keeps_every_event_it_made(data: Path, at: int) -> None:
    """``gm adventure`` is sealed the same way (format 7, a chunk a public point): Ctrl-C as
    its ``at``-th line reaches the screen, and every event the session had made reads back
    from the cut-off file and its journal, in order, as the session emitted it."""
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.sessions.base import ListSink
    from gm_engine.sessions.humans import ScriptedHuman
    from gm_engine.transcripts.format import normalize
    from gm_engine.transcripts.record import record_session

    shown: list[str] = []

    def show(text: str) -> None:
        shown.append(text)
        if len(shown) == at:
            raise KeyboardInterrupt

    sink = ListSink()
    human = ScriptedHuman(["レン 熟練 おまかせ"], when_done="次へ")
    io = SessionIO(backend=OfflineBackend(), human=human, sink=sink, show=show)
    path = data.parent / "adventure.jsonl"
    with pytest.raises(KeyboardInterrupt):
        record_session(SessionSpec(kind="adventure", seed=4), io, path, durable=False)
    made = [(kind, normalize(payload)) for kind, payload in sink.payloads()]
    assert made
    assert [(event.type, event.payload) for event in read_transcript(path, require_end=False).events] == made


def test_a_game_stopped_twice_keeps_what_both_runs_showed(server: FakeChatServer, data: Path) -> None:
    """``kill -9`` at the 32nd line, ``gm resume`` stopped by Ctrl-C at the 75th (its live
    part held back answers too, in the same journal), then ``gm resume`` to the end: the last
    run's replayed screen is what the first two showed."""
    seed = 4
    path = data.parent / "game.jsonl"
    first, _ = _killed_game(path, seed, server.base_url, "show", 32, data)
    second: list[str] = []

    def show(text: str) -> None:
        second.append(text)
        if len(second) == 75:
            raise KeyboardInterrupt

    io = SessionIO(backend=backend_for(server.base_url), human=auto_p1(seed), show=show)
    with pytest.raises(KeyboardInterrupt):
        resume_session(path, io, shadow_human=True, durable=False)
    assert second[:32] == first
    again = _resumed_screen(path, seed, server.base_url)
    assert again[:75] == second
    _finished_and_checked(path)
