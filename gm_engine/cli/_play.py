"""What the play commands (``gm werewolf play``, ``gm adventure``) share once their
session is set up: where it is recorded, running it, and what the player is told at
the end or when it stops (the player's ``/quit``, the model server failing, a full
disk, Ctrl-C): every stop message says ``gm resume PATH`` when the session can go on."""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from gm_engine.cli._errors import backend_problem, error_text, os_reason
from gm_engine.llm.base import BackendError, ConfigurationError, TransientBackendError
from gm_engine.llm.retry import parse_concurrency, parse_deadline
from gm_engine.messages import Message, locale_from_env, render
from gm_engine.messages.texts import (
    CannotRecord,
    DiskFull,
    Interrupted,
    NotACount,
    NotSeconds,
    Paused,
    PausedUnrecorded,
    PausedUnresumable,
    RecordingRefused,
    ServerMisconfigured,
    ServerRefused,
    ServerUnreachable,
    SessionEnded,
    StoppedSaved,
    StoppedUnrecorded,
    StoppedUnresumable,
    TranscriptAt,
)
from gm_engine.safe_text import printable
from gm_engine.sessions.base import SessionError, SessionIO, SessionRunner, SessionSpec
from gm_engine.transcripts.format import TranscriptBusy, TranscriptExists, TranscriptStream
from gm_engine.transcripts.paths import default_transcript_path
from gm_engine.transcripts.record import play_session

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale
    from gm_engine.llm.ledger import Ledger


def request_deadline(text: str) -> float:
    """``--request-deadline SECONDS``: a positive number.

    Raises:
        argparse.ArgumentTypeError: not a positive number of seconds.
    """
    try:
        return parse_deadline(text, "--request-deadline")
    except BackendError:
        raise argparse.ArgumentTypeError(render(NotSeconds(text), locale_from_env())) from None


def request_timeout(text: str) -> float:
    """``--request-timeout SECONDS``: a positive number.

    Raises:
        argparse.ArgumentTypeError: not a positive number of seconds.
    """
    try:
        return parse_deadline(text, "--request-timeout")
    except BackendError:
        raise argparse.ArgumentTypeError(render(NotSeconds(text), locale_from_env())) from None


def max_concurrent(text: str) -> int:
    """``--max-concurrent N``: a whole number, 0 for no limit.

    Raises:
        argparse.ArgumentTypeError: not a whole number of 0 or more.
    """
    try:
        return parse_concurrency(text, "--max-concurrent")
    except BackendError:
        raise argparse.ArgumentTypeError(render(NotACount(text), locale_from_env())) from None


def add_deadline_argument(parser: argparse.ArgumentParser) -> None:
    """Add the model server's settings: ``--request-deadline`` (the total seconds one model
    request may take), ``--request-timeout`` (seconds per read) and ``--max-concurrent``
    (requests sent to the server at once)."""
    parser.add_argument(
        "--request-deadline",
        type=request_deadline,
        default=None,
        metavar="SECONDS",
        help="seconds one model request may take in all, retries included, its wait for a free "
        "slot not counted (default: $GM_REQUEST_DEADLINE, else twice the timeout, at least 120); "
        "--backend openai only",
    )
    parser.add_argument(
        "--request-timeout",
        type=request_timeout,
        default=None,
        metavar="SECONDS",
        help="seconds the client waits for each read (default: $GM_REQUEST_TIMEOUT, else 60 for "
        "openai and 300 for a local server's profile); --backend openai only",
    )
    parser.add_argument(
        "--max-concurrent",
        type=max_concurrent,
        default=None,
        metavar="N",
        help="model requests sent to the server at once, 0 for no limit (default: "
        "$GM_MAX_CONCURRENT, else 1 for ollama, llamacpp and lmstudio, no limit otherwise); "
        "--backend openai only",
    )


class BackendSettings(TypedDict):
    """The keyword arguments of :func:`gm_engine.llm.make_backend` given on the command line."""

    request_deadline: float | None
    request_timeout: float | None
    max_concurrent: int | None


def backend_settings(args: argparse.Namespace) -> BackendSettings:
    """The model server's settings given on the command line (see :func:`add_deadline_argument`)."""
    return BackendSettings(
        request_deadline=args.request_deadline,
        request_timeout=args.request_timeout,
        max_concurrent=args.max_concurrent,
    )


def transcript_target(args: argparse.Namespace, spec: SessionSpec) -> Path | None:
    """``--record FILE``, else a new file in the user data directory, or None with
    ``--no-record``. Fixed before the session starts, so that a session stopped by a
    failing server can be named for ``gm resume``."""
    if args.no_record:
        return None
    return Path(args.record or default_transcript_path(spec.kind, spec.seed))


def resumable(path: Path | None) -> bool:
    """Whether ``path`` holds a session ``gm resume`` can continue: a readable transcript
    without its end line (a half-written last line is allowed: resume drops it)."""
    if path is None or not path.is_file():
        return False
    try:
        with TranscriptStream(path) as transcript:
            for _ in transcript:  # every line checked, one at a time
                pass
    except (OSError, ValueError):  # TranscriptError is a ValueError
        return False
    return transcript.end is None


def how_to_go_on(summary: str, path: Path | None, locale: Locale | None = None) -> str:
    """The line after a session the player stopped (``/quit``): its summary and
    ``gm resume PATH`` when it can continue there, else why it cannot."""
    where = locale or locale_from_env()
    if path is None:
        return render(PausedUnrecorded(summary), where)
    if resumable(path):
        return render(Paused(summary, str(path)), where)
    return render(PausedUnresumable(summary, str(path)), where)


def stop_reason(exc: BaseException, locale: Locale) -> str:
    """Why a session stopped, in the player's language (the backend's or the system's own
    words about the cause stay inside the parentheses)."""
    if isinstance(exc, BackendError) and backend_problem(exc) is not None:
        return error_text(exc, locale)
    if isinstance(exc, ConfigurationError):
        return render(ServerMisconfigured(str(exc)), locale)
    if isinstance(exc, TransientBackendError):
        return render(ServerUnreachable(str(exc)), locale)
    if isinstance(exc, BackendError):
        return render(ServerRefused(str(exc)), locale)
    if isinstance(exc, KeyboardInterrupt):
        return render(Interrupted(), locale)
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return render(DiskFull(exc.strerror or str(exc)), locale)
    return error_text(exc, locale)


def stopped_message(
    command: str, what: str, exc: BaseException, path: Path | None, locale: Locale | None = None
) -> str:
    """What a play command prints when the session stopped on a failure (the model
    backend, writing the transcript, Ctrl-C): why, and how to go on (``what``, the
    session's kind in words, is kept for callers; the catalogue's texts name it)."""
    where = locale or locale_from_env()
    reason = stop_reason(exc, where)
    message: Message
    if path is None:
        message = StoppedUnrecorded(command, reason)
    elif resumable(path):
        message = StoppedSaved(command, reason, str(path))
    else:
        message = StoppedUnresumable(command, reason, str(path))
    return printable(render(message, where))


def recording_refused(exc: OSError, target: Path | None) -> str | None:
    """The line for a recording that could not be created at ``target`` (its folder missing,
    not writable…), or None when ``exc`` is about something else (a full disk mid-game)."""
    if target is None or exc.filename is None or resumable(target):
        return None
    failing = Path(str(exc.filename))
    if failing != target and failing not in target.parents:
        return None
    locale = locale_from_env()
    reason = error_text(exc, locale) if failing != target else os_reason(exc, locale)
    return printable(render(CannotRecord(str(target), reason), locale))


def run_play(
    command: str,
    what: str,
    spec: SessionSpec,
    io: SessionIO,
    target: Path | None,
    *,
    runner: SessionRunner | None = None,
    ledger: Ledger | None = None,
) -> int:
    """Run the session (recorded to ``target`` unless it is None), print how it ended and
    where its transcript is; return the command's exit status.

    ``ledger``, when given, is the ledger of the session's model calls: its summary is
    printed (in the player's language) once the session ended or stopped, before the lines
    that say so, whenever a call was made or a fallback played.

    The seed is printed only when the session finished: a game stopped by ``/quit`` or
    by a failure can be resumed, and its seed would give its hidden facts away."""
    try:
        try:
            outcome, path = play_session(spec, io, record=target is not None, path=target, runner=runner)
        finally:
            if ledger is not None and (ledger.entries or ledger.fallbacks):
                from gm_engine.messages.ledger import ledger_summary

                print(printable(ledger_summary(ledger, locale_from_env())), flush=True)
    except (TranscriptExists, TranscriptBusy) as exc:  # nothing was played, and nothing of it saved
        print(printable(render(RecordingRefused(command, str(exc)), locale_from_env())), file=sys.stderr)
        return 2
    except OSError as exc:
        refused = recording_refused(exc, target)
        print(refused or stopped_message(command, what, exc, target), file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(stopped_message(command, what, exc, target), file=sys.stderr)
        return 130
    except (BackendError, SessionError, ValueError) as exc:
        print(stopped_message(command, what, exc, target), file=sys.stderr)
        return 2
    locale = locale_from_env()
    if not outcome.finished:
        print(printable(how_to_go_on(outcome.summary, path, locale)))
        return 0
    print(printable(render(SessionEnded(outcome.summary, spec.seed), locale)))
    if path is not None:
        print(render(TranscriptAt(str(path)), locale))
    return 0
