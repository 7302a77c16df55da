"""Continue a session that was cut off, from its transcript.

A session is a pure function of its spec, the model's responses and the human's
inputs, so resuming is replaying: the session is re-run from the start with the
recorded responses and inputs (every re-emitted event is checked against the
recording, strictly), and when the recording runs out the live backend and the live
human take over and the new events are appended to the same file, continuing its hash
chain. Nothing recorded is lost; a half-written last line is dropped with a message.

The seed: the file commits to it by hash and only its end line reveals it, which a
cut-off file lacks. :func:`resume_session` takes it from ``seed`` (checked against the
commitment) or from the seed file the recorder keeps in the user data directory (see
:mod:`.paths`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gm_engine.events import EventSink, NullSink, SessionEvent
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionRunner
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import (
    Transcript,
    TranscriptError,
    TranscriptWriter,
    read_transcript,
)
from gm_engine.transcripts.paths import find_seed, seed_file
from gm_engine.transcripts.record import TeeSink
from gm_engine.transcripts.replay import (
    CheckingSink,
    DivergenceLog,
    ReplayBackend,
    ReplayHuman,
    ReplayMismatch,
)


class ResumeError(TranscriptError):
    """A transcript cannot be resumed: it ended already, its seed is unknown, or the engine
    no longer reproduces what it recorded."""


@dataclass
class ResumeResult:
    """How a resumed session went: its outcome and what was replayed before going live."""

    outcome: SessionOutcome
    replayed_events: int
    new_events: int
    dropped_bytes: int


class _LazyWriter:
    """Opens the transcript for appending only when the first new event comes, so that a
    resume refused during the replayed part leaves the file untouched."""

    def __init__(self, transcript: Transcript, durable: bool) -> None:
        self.transcript = transcript
        self.durable = durable
        self.writer: TranscriptWriter | None = None
        self.count = 0

    def open(self) -> TranscriptWriter:
        if self.writer is None:
            self.writer = TranscriptWriter.continue_from(self.transcript, durable=self.durable)
        return self.writer

    def emit(self, event: SessionEvent) -> None:
        self.count += 1
        self.open().emit(event)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def resolve_seed(transcript: Transcript, seed: int | None) -> int:
    """The seed of a cut-off transcript: ``seed`` if given, else the kept seed file.

    Raises:
        ResumeError: ``seed`` does not match the header's commitment, or none is known.
    """
    commitment = transcript.header.seed_sha256
    if seed is not None:
        try:
            transcript.header.spec(seed)
        except TranscriptError as exc:
            raise ResumeError(str(exc)) from None
        return seed
    kept = find_seed(commitment)
    if kept is None:
        raise ResumeError(
            f"{transcript.path}: the seed is revealed only at the end of a session, and no kept seed "
            f"was found at {seed_file(commitment)}; give it with --seed"
        )
    return kept


def resume_session(
    path: str | Path,
    io: SessionIO,
    *,
    seed: int | None = None,
    runner: SessionRunner | None = None,
    durable: bool = True,
    shadow_backend: bool | None = None,
    shadow_human: bool = False,
) -> ResumeResult:
    """Continue the cut-off session recorded at ``path`` with ``io``'s backend and human.

    ``io.sink``, if set, also receives the new events (not the replayed ones).

    ``shadow_backend`` (default: when the backend ``keeps_state``, as the offline model does) also puts every
    replayed request to ``io.backend`` and drops the answer, so that a model with state
    of its own goes on from where it was; ``shadow_human`` does the same for an
    automatic player at ``io.human`` (never for a person at a terminal). With both, a
    resumed offline game ends exactly as the uninterrupted game would have.

    Raises:
        OSError: the file cannot be read or written.
        TranscriptError: the file is malformed or tampered with.
        ResumeError: the session already ended, its seed is unknown, or the re-run
            diverges from the recording (the file is then left as it was).
    """
    transcript = read_transcript(path, require_end=False)
    if transcript.end is not None:
        raise ResumeError(f"{transcript.path}: the session already ended ({transcript.end.summary})")
    the_seed = resolve_seed(transcript, seed)
    spec = transcript.header.spec(the_seed)
    run = runner or get_runner(spec.kind)
    dropped = len(transcript.partial_line or b"")
    if dropped:
        io.show(f"(the half-written last line of {transcript.path}, {dropped} bytes, was dropped)")
    lazy = _LazyWriter(transcript, durable)
    then: EventSink = lazy if isinstance(io.sink, NullSink) else TeeSink(lazy, io.sink)
    log = DivergenceLog()
    if shadow_backend is None:
        shadow_backend = io.backend.keeps_state
    backend = ReplayBackend(transcript.events, fallback=io.backend, shadow=shadow_backend, log=log)
    human = ReplayHuman(transcript.events, fallback=io.human, shadow=shadow_human, log=log)
    sink = CheckingSink(transcript.events, then=then, log=log)
    try:
        outcome = run(spec, SessionIO(backend=backend, human=human, sink=sink, show=io.show))
    except ReplayMismatch as exc:
        lazy.close()
        raise ResumeError(
            f"{transcript.path}: cannot resume, the session no longer replays as recorded:\n{exc}"
        ) from None
    except BaseException:
        lazy.close()
        raise
    if log.first is not None or not sink.exhausted:
        lazy.close()
        problem = log.first or sink.missing()
        raise ResumeError(
            f"{transcript.path}: cannot resume, the session no longer replays as recorded:\n{problem}"
        )
    if outcome.finished:
        lazy.open().finish(the_seed, outcome)
    else:  # stopped by the player again: still resumable, the seed still secret
        lazy.close()
    return ResumeResult(
        outcome=outcome,
        replayed_events=len(transcript.events),
        new_events=lazy.count,
        dropped_bytes=dropped,
    )
