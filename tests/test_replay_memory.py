"""Replay memory grows with the largest event, not with the file (issue 10, item 6).

A werewolf game whose model pads every answer with text that differs from call to call
(a verbose or hostile model) makes a transcript tens of megabytes long. Replaying it used
to hold every event and every blob at once (the issue saw 1.1 GB for a 400 MB file).
Replay now reads the file as a stream and lets each event go once the session is past
it; a long text blob is read again when referred to. The figure checked is the peak of
the memory Python allocates during the replay (``tracemalloc``: a count of bytes, the
same on every run and machine, not a time), against the file's size.
"""

from __future__ import annotations

import base64
import random
import tracemalloc
from pathlib import Path

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import BackendDefaults, ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_file
from gm_engine.werewolf.agents import OfflineAgent

PADDING = 300_000
SHIPPED = Path(__file__).resolve().parent.parent / "transcripts" / "werewolf_human_seer.jsonl"


class VerboseModel(BackendDefaults):
    """The offline model, each answer padded with ``PADDING`` characters of its own."""

    name = "offline"
    keeps_state = True

    def __init__(self) -> None:
        self.inner = OfflineBackend()
        self.calls = 0

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        answer = await self.inner.complete(request, context)
        self.calls += 1
        # random text, which deflate cannot shrink much: the file packed at the end stays large
        noise = random.Random(f"call {self.calls}").randbytes(PADDING)
        padding = base64.b64encode(noise).decode("ascii")[:PADDING]
        return answer.model_copy(update={"content": f"{answer.content or ''}\n{padding}"})


@pytest.mark.parametrize("pack", [False, True], ids=["as written while it ran", "packed at its end"])
def test_replaying_a_large_transcript_holds_a_small_part_of_it(tmp_path: Path, pack: bool) -> None:
    path = tmp_path / "verbose.jsonl"
    # a long game (118 model calls): the peak is a few events and long texts whatever the
    # length, so the game must be long enough for that to be a small part of the file
    spec = SessionSpec(kind="werewolf", seed=7, options={"auto": True, "role": 2}, backend="offline")
    human = AutoHuman(OfflineAgent(1, SeededSource("7/human")))
    model = VerboseModel()
    io = SessionIO(backend=model, human=human, show=lambda _: None)
    record_session(spec, io, path, durable=False, remember_seed=False, pack=pack)
    size = path.stat().st_size
    answers = model.calls * PADDING
    assert model.calls > 50 and size > answers * 0.9  # the answers are in the file (random: packed little)

    assert replay_file(SHIPPED).ok  # the modules and templates a replay loads, loaded before measuring
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        report = replay_file(path)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert report.ok, report.describe()
    # held at once: a few events and the last few long texts, whatever the file's length
    # (the code before held it all: 14.7 MB at the peak for a file of 10.9 MB)
    assert peak < answers / 3, f"the replay held {peak:,} bytes at its peak for {answers:,} answer characters"


def test_long_text_blobs_read_again_come_back_whole(tmp_path: Path) -> None:
    """The long answers are not kept by the reader (see above) but read again from the
    file when referred to: each comes back whole, and its own."""
    from gm_engine.transcripts.format import TranscriptStream

    path = tmp_path / "verbose.jsonl"
    spec = SessionSpec(kind="werewolf", seed=5, options={"auto": True, "role": 2}, backend="offline")
    human = AutoHuman(OfflineAgent(1, SeededSource("5/human")))
    io = SessionIO(backend=VerboseModel(), human=human, show=lambda _: None)
    record_session(spec, io, path, durable=False, remember_seed=False)
    with TranscriptStream(path) as stream:
        answers = [e.payload["content"] for e in stream if e.type == "model_response"]
    assert len(answers) > 50 and all(text and len(text) > PADDING for text in answers)
    assert len({text[-64:] for text in answers}) == len(answers)  # each read back whole, its own
