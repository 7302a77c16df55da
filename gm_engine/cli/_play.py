"""What the play commands (``gm werewolf play``, ``gm adventure``) share once their
session is set up: where it is recorded, running it, and what the player is told at
the end or when the model server fails."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gm_engine.llm.base import BackendError, TransientBackendError
from gm_engine.llm.retry import parse_deadline
from gm_engine.sessions.base import SessionError, SessionIO, SessionRunner, SessionSpec
from gm_engine.transcripts.paths import default_transcript_path
from gm_engine.transcripts.record import play_session


def request_deadline(text: str) -> float:
    """``--request-deadline SECONDS``: a positive number.

    Raises:
        argparse.ArgumentTypeError: not a positive number of seconds.
    """
    try:
        return parse_deadline(text, "--request-deadline")
    except BackendError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_deadline_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--request-deadline`` (the total seconds one model request may take)."""
    parser.add_argument(
        "--request-deadline", type=request_deadline, default=None, metavar="SECONDS",
        help="seconds one model request may take in all, retries included "
        "(default: $GM_REQUEST_DEADLINE, else 120); --backend openai only",
    )


def transcript_target(args: argparse.Namespace, spec: SessionSpec) -> Path | None:
    """``--record FILE``, else a new file in the user data directory, or None with
    ``--no-record``. Fixed before the session starts, so that a session stopped by a
    failing server can be named for ``gm resume``."""
    if args.no_record:
        return None
    return Path(args.record or default_transcript_path(spec.kind, spec.seed))


def stopped_message(command: str, what: str, exc: Exception, path: Path | None) -> str:
    """What a play command prints when the model backend failed mid-session: why, and
    how to go on (``gm resume PATH``) or that nothing was recorded."""
    if isinstance(exc, TransientBackendError):
        cause = f"cannot reach the model server ({exc})"
    else:
        cause = f"the model server refused the request ({exc})"
    if path is None:
        return f"{command}: {cause}: the {what} stopped and was not recorded (--no-record)"
    return f"{command}: {cause}: the {what} is saved; continue it with `gm resume {path}`"


def run_play(
    command: str,
    what: str,
    spec: SessionSpec,
    io: SessionIO,
    target: Path | None,
    *,
    runner: SessionRunner | None = None,
) -> int:
    """Run the session (recorded to ``target`` unless it is None), print how it ended and
    where its transcript is; return the command's exit status."""
    try:
        outcome, path = play_session(spec, io, record=target is not None, path=target, runner=runner)
    except BackendError as exc:
        print(stopped_message(command, what, exc, target), file=sys.stderr)
        return 2
    except (SessionError, OSError, ValueError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    print(f"— {outcome.summary} (seed {spec.seed})")
    if path is not None:
        print(f"transcript: {path}")
    return 0
