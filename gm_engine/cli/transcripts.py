"""``gm replay``, ``gm resume`` and ``gm roll-session``: recorded sessions and the roll session."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gm_engine.cli._play import add_deadline_argument, backend_settings, how_to_go_on, stopped_message
from gm_engine.llm.base import BackendError, ModelBackend
from gm_engine.messages import locale_from_env, render
from gm_engine.messages.texts import (
    BadTrustKey,
    Fault,
    NoTranscripts,
    Problem,
    ReplayQuietOk,
    ReplayRefused,
    ReplaySignatureMissing,
    ReplayTotal,
    Resumed,
    ResumeEnded,
    SessionEnded,
    TranscriptAt,
    Verdict,
    VerdictWord,
)
from gm_engine.safe_text import safe_print, safe_show
from gm_engine.sessions.base import HumanInput, SessionError, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman, TerminalHuman, script_lines
from gm_engine.transcripts.format import (
    TranscriptError,
    TranscriptHeader,
    TranscriptStream,
    TranscriptTampered,
    TranscriptTruncated,
)
from gm_engine.transcripts.paths import default_transcript_path
from gm_engine.transcripts.record import play_session
from gm_engine.transcripts.replay import replay_file
from gm_engine.transcripts.resume import ResumeError, resolve_seed, resume_session
from gm_engine.transcripts.signing import KEY_PREFIX

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale


def register(subparsers: Any) -> None:
    """Add the transcript subcommands and the roll session."""
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

    resume = subparsers.add_parser(
        "resume",
        help="continue a session that was cut off, from its transcript",
        description="Re-run the recorded part of the session, then go on live, appending to the same file.",
    )
    resume.add_argument("file")
    resume.add_argument("--seed", type=int, default=None, help="the session's seed, if it was not kept")
    resume.add_argument("--profile", default=None, help="server profile of an openai-backend session")
    add_deadline_argument(resume)
    resume.add_argument("--plain", action="store_true", help="plain text output (no colours)")
    resume.set_defaults(handler=_resume)

    roll = subparsers.add_parser(
        "roll-session",
        help="an interactive, recorded dice session (/system NAME switches systems)",
        description="Type dice commands; /system NAME switches game systems, /locale ja|en, /help, /quit. "
        "The session is recorded (by default into the user data directory).",
    )
    roll.add_argument("--system", default="DiceBot", help="starting game system (see `gm systems`)")
    roll.add_argument("--locale", choices=["ja", "en"], default="ja")
    roll.add_argument("--seed", type=int, default=None, help="seed of the dice (default: random)")
    where = roll.add_mutually_exclusive_group()
    where.add_argument("--record", metavar="FILE", default=None, help="record the transcript to FILE")
    where.add_argument("--no-record", action="store_true", help="do not record")
    roll.add_argument(
        "--script", metavar="FILE", default=None, help="read the lines from FILE, not the terminal"
    )
    roll.set_defaults(handler=_roll_session)


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
    """Why a file cannot be read, in the player's words where the catalogue has them (the
    system's own words, which follow its locale, otherwise)."""
    faults = {
        FileNotFoundError: Fault.FILE_NOT_FOUND,
        PermissionError: Fault.FILE_FORBIDDEN,
        IsADirectoryError: Fault.FILE_IS_FOLDER,
    }
    fault = faults.get(type(exc))
    return render(Problem(fault), locale) if fault is not None else exc.strerror or str(exc)


def _verdict(exc: Exception) -> Verdict:
    """The word a file that could not be replayed is reported under."""
    if isinstance(exc, OSError):
        return Verdict.UNREADABLE
    if isinstance(exc, TranscriptTampered):
        return Verdict.TAMPERED
    if isinstance(exc, TranscriptTruncated):
        return Verdict.TRUNCATED
    return Verdict.INVALID


def live_backend(header: TranscriptHeader, args: argparse.Namespace) -> ModelBackend:
    """The backend a resumed session goes on with, rebuilt from the header (and, for a
    server, the environment: OPENAI_BASE_URL, OPENAI_API_KEY, or ``--profile``).

    Raises:
        BackendError: the header names a backend that cannot be built here.
    """
    if header.backend in ("none", "replay"):
        from gm_engine.sessions.roll import NoModelBackend

        return NoModelBackend()
    from gm_engine.llm import make_backend

    return make_backend(header.backend, model=header.model, profile=args.profile, **backend_settings(args))


def live_seat(
    header: TranscriptHeader, seed: int, *, plain: bool = True
) -> tuple[HumanInput, Callable[[str], None], bool]:
    """Who answers for the human once the recorded part is replayed, the screen, and whether
    the human must be shown the replayed part too. A werewolf game gets what ``gm werewolf
    play`` gives it (:func:`~gm_engine.cli._werewolf_play.werewolf_seat`: the same terminal
    human and prompts, or the automatic P1 of a ``--auto`` game, which follows the replay);
    any other session the person at the terminal."""
    if header.kind == "werewolf":
        from gm_engine.cli._werewolf_play import werewolf_seat

        auto = bool(header.options.get("auto"))
        locale: Locale = "en" if header.options.get("locale") == "en" else "ja"
        human, show = werewolf_seat(auto=auto, seed=seed, plain=plain, locale=locale)
        return human, show, auto
    return TerminalHuman(locale=locale_from_env()), safe_show(print), False


def _resume(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        with TranscriptStream(path) as transcript:  # the header (and a sealed game's kept seed) only
            if transcript.peeked_end is not None:  # a finished game: say so, not that its seed is unknown
                summary = str(transcript.peeked_end.get("summary"))
                raise ResumeError(ResumeEnded(str(path), summary))
            seed = resolve_seed(transcript, args.seed)
        backend = live_backend(transcript.header, args)
        human, show, shadow_human = live_seat(transcript.header, seed, plain=args.plain)
    except (OSError, TranscriptError, SessionError, BackendError) as exc:
        safe_print(f"gm resume: {exc}", file=sys.stderr)
        return 2
    try:
        result = resume_session(
            path,
            SessionIO(backend=backend, human=human, show=show),
            seed=seed,
            shadow_human=shadow_human,
        )
    except KeyboardInterrupt as exc:
        print(stopped_message("gm resume", "session", exc, path), file=sys.stderr)
        return 130
    except (BackendError, OSError) as exc:  # the live part failed: what it added is kept
        print(stopped_message("gm resume", "session", exc, path), file=sys.stderr)
        return 2
    except (TranscriptError, SessionError) as exc:
        safe_print(f"gm resume: {exc}", file=sys.stderr)
        return 2
    locale = locale_from_env()
    if result.outcome.finished:
        safe_print(render(SessionEnded(result.outcome.summary, seed), locale))
    else:
        safe_print(how_to_go_on(result.outcome.summary, path, locale))
    safe_print(render(Resumed(result.replayed_events, result.new_events, str(args.file)), locale))
    return 0


def _roll_session(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    spec = SessionSpec(
        kind="roll", seed=seed, options={"system": args.system, "locale": args.locale}, backend="none"
    )
    human: ScriptedHuman | TerminalHuman
    if args.script:
        try:
            human = ScriptedHuman(script_lines(args.script))
        except (OSError, SessionError) as exc:
            print(f"gm roll-session: {exc}", file=sys.stderr)
            return 2
    else:
        human = TerminalHuman(locale=args.locale)
    from gm_engine.sessions.roll import NoModelBackend

    io = SessionIO(backend=NoModelBackend(), human=human, show=safe_show(print))
    target = None if args.no_record else Path(args.record or default_transcript_path(spec.kind, seed))
    try:
        _, path = play_session(spec, io, record=target is not None, path=target)
    except KeyboardInterrupt as exc:
        print(stopped_message("gm roll-session", "session", exc, target, args.locale), file=sys.stderr)
        return 130
    except (SessionError, TranscriptError, OSError) as exc:
        print(f"gm roll-session: {exc}", file=sys.stderr)
        return 2
    if path is not None:  # the session showed its summary itself
        print(render(TranscriptAt(str(path)), args.locale))
    return 0
