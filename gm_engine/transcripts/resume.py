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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gm_engine.events import EventSink, NullSink, SessionEvent
from gm_engine.messages import Message, locale_from_env, render
from gm_engine.messages.texts import (
    ResumeDiverged,
    ResumeEnded,
    ResumeLineDropped,
    ResumeNoSeedFile,
    ResumeNoSeedInKey,
    ResumeNoSigner,
    ResumeOldFormat,
    ResumePackedCut,
    ResumeWrongSeed,
)
from gm_engine.sessions.base import HumanInput, SessionIO, SessionOutcome, SessionRunner
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import (
    FORMAT_VERSION,
    LineOutput,
    Transcript,
    TranscriptError,
    TranscriptStream,
    TranscriptWriter,
    open_for_append,
    pack_transcript,
    signing_key_for,
)
from gm_engine.transcripts.packing import PACKED_FORMAT
from gm_engine.transcripts.paths import find_seed, seed_commitment, seed_file
from gm_engine.transcripts.record import TeeSink, with_public_points
from gm_engine.transcripts.replay import (
    CheckingSink,
    DivergenceLog,
    EventFeed,
    ReplayBackend,
    ReplayHuman,
    ReplayMismatch,
)
from gm_engine.transcripts.sealing import KeptGame


class ResumeError(TranscriptError):
    """A transcript cannot be resumed: it ended already, its seed is unknown, or the engine
    no longer reproduces what it recorded. ``message`` says which, in the catalogue's words
    (the text of the exception is it in the player's locale, ``GM_LOCALE``)."""

    def __init__(self, message: Message) -> None:
        super().__init__(render(message, locale_from_env()))
        self.message = message


def refuse_a_finished_file(stream: TranscriptStream) -> None:
    """Refuse to continue ``stream`` when it holds a finished game, or a packed one (only a
    finished game is packed) cut short. The summary of the end is said only once every line
    has been verified, so a rewritten file's claimed result is never repeated as the game's.

    Raises:
        ResumeError: the game ended (with its verified summary), or the packed file is cut.
        TranscriptError: the verification found the file rewritten or damaged (what
            ``gm replay`` says of it).
    """
    if stream.peeked_end is None and stream.header.format != PACKED_FORMAT:
        return
    for _ in stream:
        pass
    if stream.end is None:
        raise ResumeError(ResumePackedCut(str(stream.path)))
    raise ResumeError(ResumeEnded(str(stream.path), str(stream.end.summary)))


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
    locked since before it was read; the writer takes it over, else :meth:`close` closes it.

    By the time the first new event comes, the stream has read the whole file (every
    recorded event was matched); the blob packer is then set up again from the file's
    events, read once more, one at a time. ``fd`` may also be another output (a store's),
    appended to in the same way."""

    def __init__(
        self,
        stream: TranscriptStream,
        durable: bool,
        fd: int | LineOutput,
        show: Callable[[str], None],
        kept: KeptGame | None = None,
    ) -> None:
        self.stream = stream
        self.durable = durable
        self.show = show
        self.kept = kept
        self.signing_key: Ed25519PrivateKey | None = None
        self.fd: int | LineOutput | None = fd
        self.writer: TranscriptWriter | None = None
        self.count = 0
        # public points (lines shown) seen since the session started again, and how many of
        # them the file's chunk lines stand for already (format 7: one chunk per point, see
        # :meth:`public_point`); points past those owed while the stream is still read
        self.points = 0
        # (a store's writer writes each event at once, and an unsealed file has no chunks)
        self.counts_points = stream.header.sealing is not None and isinstance(fd, int)
        self.recorded_points = _whole_lines(stream) - 1 if self.counts_points else 0
        self.owed = 0

    def open(self) -> TranscriptWriter:
        if self.writer is None:
            stream = self.stream
            dropped = len(stream.partial_line or b"")
            if dropped:
                self.show(render(ResumeLineDropped(str(stream.path), dropped), locale_from_env()))
            with TranscriptStream(stream.path, data=stream.data, kept=self.kept) as again:
                self.writer = TranscriptWriter.continue_from(
                    stream.transcript(),
                    durable=self.durable,
                    fd=self.fd,
                    signing_key=self.signing_key,
                    payloads=((event.type, event.payload) for event in again),
                    events=stream.events_read,
                )
            self.fd = None
            for _ in range(self.owed):
                self.writer.public_point()
            self.owed = 0
        return self.writer

    def public_point(self) -> None:
        """A line shown again: the resumed session's public points are the first run's, in
        the same order, and the file's chunk lines already stand for the first
        :attr:`recorded_points` of them; each point after those writes its chunk, as the
        uninterrupted writer would have (a point that comes before the recorded file is read
        to its end is owed until the writer opens)."""
        if not self.counts_points:
            return
        self.points += 1
        if self.points <= self.recorded_points:
            return
        if self.writer is None and not self.stream.done:
            self.owed += 1
            return
        self.open().public_point()

    def emit(self, event: SessionEvent) -> None:
        self.count += 1
        self.open().emit(event)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if isinstance(self.fd, int):
            os.close(self.fd)
        elif self.fd is not None:
            self.fd.close()
        self.fd = None


def _whole_lines(stream: TranscriptStream) -> int:
    """How many whole lines (ending with a newline) the file or data of ``stream`` holds."""
    if stream.data is not None:
        return stream.data.count(b"\n")
    count = 0
    with stream.path.open("rb") as file:
        while block := file.read(1 << 20):
            count += block.count(b"\n")
    return count


def resolve_seed(transcript: Transcript | TranscriptStream, seed: int | None) -> int:
    """The seed of a cut-off transcript: ``seed`` if given, else the one kept in the game's
    key file (format 4) or in the seed file (older recordings).

    Raises:
        ResumeError: ``seed`` does not match the header's commitment, or none is known.
    """
    commitment = transcript.header.seed_sha256
    if seed is not None:
        try:
            transcript.header.spec(seed)
        except TranscriptError as exc:
            raise ResumeError(ResumeWrongSeed(str(exc))) from None
        return seed
    if transcript.kept_seed is not None and seed_commitment(transcript.kept_seed) == commitment:
        return transcript.kept_seed
    kept = find_seed(commitment)
    if kept is None:
        if transcript.header.sealing is not None:
            raise ResumeError(ResumeNoSeedInKey(str(transcript.path)))
        raise ResumeError(ResumeNoSeedFile(str(transcript.path), str(seed_file(commitment))))
    return kept


#: Shows a replayed question (prompt, choices) and the answer recorded for it.
Echo = Callable[[str, Sequence[str] | None, str], None]


class _EchoedHuman:
    """The recorded human of a resumed session whose replayed questions are shown with
    their answers by ``echo``, as the terminal showed them; the questions past the
    recording go to the live human, which shows its own prompts."""

    def __init__(self, replay: ReplayHuman, echo: Echo) -> None:
        self.replay = replay
        self.echo = echo

    @property
    def answers_at_once(self) -> bool:
        """As the recorded human (a recorded answer is there at once)."""
        return self.replay.answers_at_once

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """The recorded answer, shown after its question; past the recording, the live one."""
        replayed = not self.replay.exhausted
        answer = self.replay.ask(prompt, choices)
        if replayed:
            self.echo(prompt, choices, answer)
        return answer

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """Passed on to the recorded human."""
        self.replay.observe(observation, legal)


def resume_session(
    path: str | Path,
    io: SessionIO,
    *,
    seed: int | None = None,
    runner: SessionRunner | None = None,
    durable: bool = True,
    shadow_backend: bool | None = None,
    shadow_human: bool = False,
    echo: Echo | None = None,
) -> ResumeResult:
    """Continue the cut-off session recorded at ``path`` with ``io``'s backend and human.

    ``echo``, when given, is called with each replayed question and its recorded answer
    before the session takes the answer, so that the screen shows the question and what was
    typed before the session's answer to it (a person at the terminal; see
    :meth:`~gm_engine.sessions.humans.TerminalHuman.echo`).

    ``io.sink``, if set, also receives the new events (not the replayed ones).

    ``shadow_backend`` (default: when the backend ``keeps_state``, as the offline model does) also puts every
    replayed request to ``io.backend`` and drops the answer, so that a model with state
    of its own goes on from where it was; ``shadow_human`` does the same for an
    automatic player at ``io.human`` (never for a person at a terminal). With both, a
    resumed offline game ends exactly as the uninterrupted game would have.

    The file is locked (``flock``) before it is read and until the session ends, so a
    second ``gm resume`` or a recorder still running on it is refused. It is read as a
    stream while the session re-runs (see :func:`~.replay.replay_file`); a sealed one
    (format 4) with the game's key file.

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
        with TranscriptStream(path) as stream:
            lazy = _LazyWriter(stream, durable, fd, io.show)
            return _resume(stream, lazy, io, seed, runner, shadow_backend, shadow_human, echo)
    finally:
        if lazy is not None:
            lazy.close()
        else:
            os.close(fd)


def pack_finished(path: str | Path) -> bool:
    """Pack the finished transcript at ``path`` if its recorder stopped after the end line and
    before the packing (:func:`~.format.pack_transcript`: a ``kill -9`` or a power cut in
    between), and say whether it did. Other files (packed already, cut off before their end,
    of an older format) are left as they are. It takes the recording lock first, so a file a
    process is still writing or packing is refused.

    This is ``gm resume``'s job, not ``gm replay``'s: resuming is where a file of this
    installation is taken up again and written (and packing signs the packed end with this
    installation's key, which a file from elsewhere cannot be), while a replay only reads and
    checks what is there, also for someone else's file, and an unpacked finished file replays
    as it is.

    Raises:
        OSError: the file cannot be read or written.
        TranscriptBusy: another process holds its lock.
        TranscriptError: its end is signed by another installation's key.
    """
    path = Path(path)
    fd = open_for_append(path)
    try:
        with TranscriptStream(path) as stream:
            if stream.header.format != FORMAT_VERSION or not stream.ends:
                return False
            signing_key = signing_key_for(stream.header)
        return pack_transcript(path, signing_key)
    finally:
        os.close(fd)


def resume_lines(
    data: bytes,
    name: str | Path,
    out: LineOutput,
    io: SessionIO,
    *,
    kept: KeptGame,
    runner: SessionRunner | None = None,
) -> ResumeResult:
    """Continue the cut-off session whose transcript is ``data`` (the lines a ``gm serve``
    table's store holds, each followed by its newline), appending the new lines to ``out``:
    the same replay as :func:`resume_session`, with the game's key and seed from ``kept``
    (the store's secrets) instead of the key file; ``name`` names it in messages.

    Raises:
        TranscriptError: the lines are malformed or tampered with.
        ResumeError: the session already ended, or the re-run diverges from the lines
            (nothing was appended then).
    """
    lazy: _LazyWriter | None = None
    try:
        with TranscriptStream(name, data=data, kept=kept) as stream:
            lazy = _LazyWriter(stream, True, out, io.show, kept)
            return _resume(stream, lazy, io, kept.seed, runner, None, False)
    finally:
        if lazy is not None:
            lazy.close()
        else:
            out.close()


def _resume(
    stream: TranscriptStream,
    lazy: _LazyWriter,
    io: SessionIO,
    seed: int | None,
    runner: SessionRunner | None,
    shadow_backend: bool | None,
    shadow_human: bool,
    echo: Echo | None = None,
) -> ResumeResult:
    refuse_a_finished_file(stream)
    if stream.header.format != FORMAT_VERSION:
        raise ResumeError(ResumeOldFormat(str(stream.path), stream.header.format, FORMAT_VERSION))
    try:
        lazy.signing_key = signing_key_for(stream.header)
    except TranscriptError as exc:
        raise ResumeError(ResumeNoSigner(str(stream.path), str(exc))) from None
    the_seed = resolve_seed(stream, seed)
    spec = stream.header.spec(the_seed)
    run = runner or get_runner(spec.kind)
    then: EventSink = lazy if isinstance(io.sink, NullSink) else TeeSink(lazy, io.sink)
    log = DivergenceLog()
    if shadow_backend is None:
        shadow_backend = io.backend.keeps_state
    feed = EventFeed(stream)
    backend = ReplayBackend(feed, fallback=io.backend, shadow=shadow_backend, log=log)
    human = ReplayHuman(feed, fallback=io.human, shadow=shadow_human, log=log)
    asked: HumanInput = human if echo is None else _EchoedHuman(human, echo)
    checking = CheckingSink(feed, then=then, log=log)
    # the first run's public points again (the replayed part's too): the writer goes on
    # with the chunks of those past the file's
    replayed = SessionIO(backend=backend, human=asked, sink=checking, show=io.show)
    replayed = with_public_points(replayed, lazy.public_point)
    try:
        outcome = run(spec, replayed)
    except ReplayMismatch as exc:
        lazy.close()
        raise ResumeError(ResumeDiverged(str(stream.path), str(exc))) from None
    except BaseException:
        lazy.close()
        if feed.error is not None:
            raise feed.error from None
        raise
    if feed.error is not None:
        lazy.close()
        raise feed.error
    if log.first is not None or not checking.exhausted:
        lazy.close()
        problem = log.first or checking.missing()
        raise ResumeError(ResumeDiverged(str(stream.path), str(problem)))
    if stream.end is not None:  # an end line the first look missed
        lazy.close()
        raise ResumeError(ResumeEnded(str(stream.path), stream.end.summary))
    if outcome.finished:
        lazy.open().finish(the_seed, outcome)
    else:  # stopped by the player again: still resumable, the seed still secret
        lazy.close()
    return ResumeResult(
        outcome=outcome,
        replayed_events=stream.events_read,
        new_events=lazy.count,
        dropped_bytes=len(stream.partial_line or b""),
    )
