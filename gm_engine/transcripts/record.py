"""Record a session: run it with a :class:`~.format.TranscriptWriter` as (part of) its event sink."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gm_engine.events import EventSink, NullSink, SessionEvent
from gm_engine.sessions.base import (
    SessionIO,
    SessionOutcome,
    SessionRunner,
    SessionSpec,
)
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import TranscriptWriter
from gm_engine.transcripts.paths import default_transcript_path
from gm_engine.transcripts.sealing import GameKey, is_public


class TeeSink:
    """An event sink that passes every event to several sinks, in order."""

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = sinks

    def emit(self, event: SessionEvent) -> None:
        """Pass the event on to every sink."""
        for sink in self.sinks:
            sink.emit(event)


def with_sink(io: SessionIO, sink: EventSink) -> SessionIO:
    """``io`` with ``sink`` added (the existing sink, if any, still gets every event)."""
    return replace(io, sink=sink if isinstance(io.sink, NullSink) else TeeSink(sink, io.sink))


class PointingSink:
    """An event sink that passes every event on to ``sink`` and, after each of P1's inputs
    (:func:`~.sealing.is_public`), calls ``point``: an answer P1 typed is a public point."""

    def __init__(self, sink: EventSink, point: Callable[[], None]) -> None:
        self.sink = sink
        self.point = point

    def emit(self, event: SessionEvent) -> None:
        """Pass the event on; a public point after an input."""
        self.sink.emit(event)
        if is_public(event.type):
            self.point()


def with_public_points(io: SessionIO, point: Callable[[], None]) -> SessionIO:
    """``io`` whose public points call ``point`` (a sealed file's writer then writes its one
    chunk, :meth:`~.format.TranscriptWriter.public_point`): each line shown, before it is
    shown, and each of P1's inputs, once ``io.sink`` has it. What P1 sees and types is
    public, so the file grows only when the screen does or P1 answers."""
    show = io.show

    def shown(text: str) -> None:
        point()
        show(text)

    return replace(io, show=shown, sink=PointingSink(io.sink, point))


def record_session(
    spec: SessionSpec,
    io: SessionIO,
    path: str | Path | None = None,
    *,
    runner: SessionRunner | None = None,
    durable: bool = True,
    remember_seed: bool = True,
    game_key: GameKey | None = None,
    pack: bool = True,
) -> SessionOutcome:
    """Run the session of ``spec`` and record it to ``path`` (default: a new file in
    :func:`~.paths.transcripts_dir`, see :func:`~.paths.default_transcript_path`).

    The header commits to the seed; the seed itself is kept in the game's key file in the
    user data directory (``remember_seed``, see :mod:`.sealing`) so that
    :func:`~.resume.resume_session` can continue the session if it is cut off, and is
    revealed in the end line once the session is over, with the key of its sealed lines. If the
    runner raises (or the process dies), or the session stops unfinished (the player's
    ``/quit``, :attr:`SessionOutcome.finished` False), the file stays without an end line:
    resumable.

    ``game_key`` seals its private lines instead of a fresh random key (for files that must
    come out the same every time, as the shipped transcripts do; see :mod:`.sealing`).
    With ``pack`` (the default) a finished session's file is rewritten packed (:mod:`.packing`);
    without it, it stays as it was written while the session ran.

    The file is created anew and locked while the session runs (see
    :meth:`~.format.TranscriptWriter.create`).

    Raises:
        OSError: the transcript cannot be written.
        TranscriptExists: a file is already at ``path``.
        TranscriptBusy: another process locked it.
        SessionError: the session kind is unknown or its spec invalid (from the runner).
    """
    target = Path(path) if path is not None else default_transcript_path(spec.kind, spec.seed)
    run = runner or get_runner(spec.kind)
    # the seed is kept in the game's key file (never on its own: it would tell the deal)
    writer = TranscriptWriter.create(
        target, spec, durable=durable, remember_seed=remember_seed, game_key=game_key, pack=pack
    )
    try:
        outcome = run(spec, with_public_points(with_sink(io, writer), writer.public_point))
    except BaseException:
        writer.close()
        raise
    if outcome.finished:
        writer.finish(spec.seed, outcome)
    else:  # stopped by the player: no end line, no seed revealed, resumable
        writer.close()
    return outcome


def play_session(
    spec: SessionSpec,
    io: SessionIO,
    *,
    record: bool = True,
    path: str | Path | None = None,
    runner: SessionRunner | None = None,
) -> tuple[SessionOutcome, Path | None]:
    """What a play command does: run the session, recorded by default.

    With ``record`` (the default) the transcript goes to ``path``, else to a new file in
    the user data directory (:func:`~.paths.default_transcript_path`); the path is
    returned so the command can print it at the end. ``record=False`` (``--no-record``)
    runs the session unrecorded and returns None for the path.

    Raises:
        OSError: the transcript cannot be written.
        SessionError: the session kind is unknown or its spec invalid.
    """
    run = runner or get_runner(spec.kind)
    if not record:
        return run(spec, io), None
    target = Path(path) if path is not None else default_transcript_path(spec.kind, spec.seed)
    return record_session(spec, io, target, runner=run), target
