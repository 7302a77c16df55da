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

import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gm_engine.events import EventSink, NullSink, SessionEvent
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionRunner
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import (
    FORMAT_VERSION,
    Transcript,
    TranscriptError,
    TranscriptWriter,
    open_for_append,
    read_transcript,
    signing_key_for,
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
    """Starts appending to the transcript only when the first new event comes, so that a
    resume refused during the replayed part leaves the file untouched. ``fd`` is the file,
    locked since before it was read; the writer takes it over, else :meth:`close` closes it."""

    def __init__(self, transcript: Transcript, durable: bool, fd: int) -> None:
        self.transcript = transcript
        self.durable = durable
        self.signing_key: Ed25519PrivateKey | None = None
        self.fd: int | None = fd
        self.writer: TranscriptWriter | None = None
        self.count = 0

    def open(self) -> TranscriptWriter:
        if self.writer is None:
            self.writer = TranscriptWriter.continue_from(
                self.transcript, durable=self.durable, fd=self.fd, signing_key=self.signing_key
            )
            self.fd = None
        return self.writer

    def emit(self, event: SessionEvent) -> None:
        self.count += 1
        self.open().emit(event)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


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

    The file is locked (``flock``) before it is read and until the session ends, so a
    second ``gm resume`` or a recorder still running on it is refused.

    Raises:
        OSError: the file cannot be read or written.
        TranscriptError: the file is malformed or tampered with.
        TranscriptBusy: another process is recording or resuming it.
        ResumeError: the session already ended, its seed is unknown, or the re-run
            diverges from the recording (the file is then left as it was).
    """
    fd = open_for_append(path)
    lazy: _LazyWriter | None = None
    try:
        transcript = read_transcript(path, require_end=False)
        lazy = _LazyWriter(transcript, durable, fd)
        return _resume(transcript, lazy, io, seed, runner, shadow_backend, shadow_human)
    finally:
        if lazy is not None:
            lazy.close()
        else:
            os.close(fd)


def _resume(
    transcript: Transcript,
    lazy: _LazyWriter,
    io: SessionIO,
    seed: int | None,
    runner: SessionRunner | None,
    shadow_backend: bool | None,
    shadow_human: bool,
) -> ResumeResult:
    if transcript.end is not None:
        raise ResumeError(f"{transcript.path}: the session already ended ({transcript.end.summary})")
    if transcript.header.format != FORMAT_VERSION:
        raise ResumeError(
            f"{transcript.path}: a format-{transcript.header.format} transcript (from an older gm_engine) "
            f"can be replayed but not continued by this version, which writes format {FORMAT_VERSION}"
        )
    try:
        lazy.signing_key = signing_key_for(transcript.header)
    except TranscriptError as exc:
        raise ResumeError(f"{transcript.path}: cannot resume: {exc}") from None
    the_seed = resolve_seed(transcript, seed)
    spec = transcript.header.spec(the_seed)
    run = runner or get_runner(spec.kind)
    dropped = len(transcript.partial_line or b"")
    if dropped:
        io.show(f"(the half-written last line of {transcript.path}, {dropped} bytes, was dropped)")
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
