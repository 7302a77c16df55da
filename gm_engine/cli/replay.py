"""``gm replay``: replay recorded sessions and check every rule outcome.

Kept apart from :mod:`gm_engine.cli.transcripts` (``gm resume``, ``gm roll-session``) so that
checking a transcript imports only the game it replays and the transcript reader, none of
what a live session needs (``tests/test_cli_imports.py`` holds it to that).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gm_engine.cli._errors import file_problem
from gm_engine.messages import locale_from_env, render
from gm_engine.messages.texts import (
    BadTrustKey,
    NoTranscripts,
    ReplayQuietOk,
    ReplayRefused,
    ReplaySignatureMissing,
    ReplayTotal,
    Verdict,
    VerdictWord,
)
from gm_engine.safe_text import safe_print
from gm_engine.sessions.base import SessionError
from gm_engine.transcripts.format import (
    TranscriptError,
    TranscriptSealed,
    TranscriptTampered,
    TranscriptTruncated,
)
from gm_engine.transcripts.replay import replay_file
from gm_engine.transcripts.signing import KEY_PREFIX

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale


def register(subparsers: Any) -> None:
    """Add ``gm replay``."""
    replay = subparsers.add_parser(
        "replay",
        help="replay recorded sessions and check every rule outcome",
        description="Re-run each transcript with its recorded model responses and human inputs and check "
        "every tool result, die and state hash. Exit 0 only when every file matches.",
    )
    replay.add_argument("files", nargs="+", help="transcript files or folders of *.jsonl")
    replay.add_argument(
        "--tolerant",
        action="store_true",
        help="match model calls by (actor, day, phase, turn), so reworded prompts still replay",
    )
    replay.add_argument("-q", "--quiet", action="store_true", help="print only failures and the total")
    replay.add_argument(
        "--trust-key",
        action="append",
        default=[],
        metavar="KEY",
        type=_trusted_key,
        help="a signer (ed25519:<hex>, as a header names it) trusted besides this installation's own key",
    )
    replay.add_argument(
        "--require-signature",
        action="store_true",
        help="fail a transcript that is not signed by a trusted key (unsigned, older, or another key)",
    )
    replay.set_defaults(handler=_replay)


def _trusted_key(text: str) -> str:
    """A ``--trust-key`` argument checked: the whole key as a header names it, so that a
    prefix or a typo is refused instead of silently trusting nothing."""
    key = text.strip()
    digits = key.removeprefix(KEY_PREFIX).lower()
    if key.startswith(KEY_PREFIX) and len(digits) == 64 and all(c in "0123456789abcdef" for c in digits):
        return KEY_PREFIX + digits
    raise argparse.ArgumentTypeError(render(BadTrustKey(given=text), locale_from_env()))


def _expand(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        files.extend(sorted(path.glob("*.jsonl")) if path.is_dir() else [path])
    return files


def _replay(args: argparse.Namespace) -> int:
    locale = locale_from_env()
    files = _expand(args.files)
    if not files:
        print(render(NoTranscripts(), locale), file=sys.stderr)
        return 2
    failed = 0
    verified = 0
    total_seconds = 0.0
    for path in files:
        try:
            report = replay_file(path, tolerant=args.tolerant, trusted_keys=args.trust_key)
        except (OSError, TranscriptError, SessionError) as exc:
            verdict = _verdict(exc)
            word = render(VerdictWord(verdict), locale)
            problem = _unreadable(exc, locale) if isinstance(exc, OSError) else str(exc)
            safe_print(render(ReplayRefused(path=str(path), verdict=word, problem=problem), locale))
            failed += 1
            continue
        total_seconds += report.seconds
        unverified = report.authenticity is None or not report.authenticity.verified
        verified += not unverified
        if not report.ok:
            failed += 1
            safe_print(report.describe(locale))
        elif not args.quiet or (args.require_signature and unverified):
            safe_print(report.describe(locale))
        elif unverified and report.authenticity is not None:
            ok = render(VerdictWord(Verdict.OK), locale)
            signature = report.authenticity.describe(locale)
            safe_print(render(ReplayQuietOk(path=str(path), verdict=ok, signature=signature), locale))
    matched = len(files) - failed
    total = ReplayTotal(
        matched=matched, total=len(files), verified=verified, milliseconds=f"{total_seconds * 1000:.1f}"
    )
    print(render(total, locale))
    if failed:
        return 1
    if args.require_signature and verified < len(files):
        print(render(ReplaySignatureMissing(missing=len(files) - verified), locale), file=sys.stderr)
        return 1
    return 0


def _unreadable(exc: OSError, locale: Locale) -> str:
    """Why a file cannot be read, in the player's words."""
    return file_problem(exc, locale)


def _verdict(exc: Exception) -> Verdict:
    """The word a file that could not be replayed is reported under."""
    if isinstance(exc, OSError):
        return Verdict.UNREADABLE
    if isinstance(exc, TranscriptTampered):
        return Verdict.TAMPERED
    if isinstance(exc, TranscriptTruncated):
        return Verdict.TRUNCATED
    if isinstance(exc, TranscriptSealed):  # unfinished, its key elsewhere: not a broken file
        return Verdict.SEALED
    return Verdict.INVALID
