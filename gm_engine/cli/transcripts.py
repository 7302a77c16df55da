"""``gm replay``, ``gm resume`` and ``gm roll-session``: recorded sessions and the roll session."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gm_engine.cli._errors import failed
from gm_engine.cli._play import (
    add_deadline_argument,
    backend_settings,
    how_to_go_on,
    recording_refused,
    stopped_message,
)
from gm_engine.llm.base import BackendError, ModelBackend
from gm_engine.messages import locale_from_env, render
from gm_engine.messages.texts import (
    RecordingRefused,
    Resumed,
    ResumePackedNow,
    SessionEnded,
    TranscriptAt,
)
from gm_engine.safe_text import safe_print, safe_show
from gm_engine.sessions.base import HumanInput, SessionError, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman, TerminalHuman, script_lines
from gm_engine.transcripts.format import (
    TranscriptBusy,
    TranscriptError,
    TranscriptExists,
    TranscriptHeader,
    TranscriptStream,
)
from gm_engine.transcripts.paths import default_transcript_path
from gm_engine.transcripts.record import play_session
from gm_engine.transcripts.resume import (
    ResumeError,
    pack_finished,
    refuse_a_finished_file,
    resolve_seed,
    resume_session,
)

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale


def register(subparsers: Any) -> None:
    """Add ``gm resume`` and ``gm roll-session``."""
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
    roll.add_argument(
        "--locale",
        choices=["ja", "en"],
        default=None,
        help="the session's language (default: $GM_LOCALE, or ja)",
    )
    roll.add_argument("--seed", type=int, default=None, help="seed of the dice (default: random)")
    where = roll.add_mutually_exclusive_group()
    where.add_argument("--record", metavar="FILE", default=None, help="record the transcript to FILE")
    where.add_argument("--no-record", action="store_true", help="do not record")
    roll.add_argument(
        "--script", metavar="FILE", default=None, help="read the lines from FILE, not the terminal"
    )
    roll.set_defaults(handler=_roll_session)


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
        human, show = werewolf_seat(auto=auto, seed=seed, plain=plain, locale=game_locale(header))
        return human, show, auto
    return TerminalHuman(locale=game_locale(header)), safe_show(print), False


#: The sessions that are played in a locale of their options (Japanese when none is given).
_LOCALE_SESSIONS = frozenset({"werewolf", "adventure", "roll"})


def game_locale(header: TranscriptHeader) -> Locale:
    """The language a resumed session's screen is in, every line of it: the one the game
    was recorded in (its options' locale, Japanese when they name none, as the session plays
    it), or for a session that has no locale the current one (``GM_LOCALE``)."""
    if header.kind not in _LOCALE_SESSIONS:
        return locale_from_env()
    return "en" if header.options.get("locale") == "en" else "ja"


def _resume(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        with TranscriptStream(path) as transcript:  # the header (and a sealed game's kept seed) only
            finished: ResumeError | None = None
            try:
                # a finished game: say so (once every line is verified), not that its seed is unknown
                refuse_a_finished_file(transcript)
            except ResumeError as refusal:
                finished = refusal
            else:
                seed = resolve_seed(transcript, args.seed)
        if finished is not None:
            end = transcript.end
            if end is not None and pack_finished(path):  # its recorder stopped before the packing
                packed = ResumePackedNow(str(path), str(end.summary))
                safe_print(render(packed, game_locale(transcript.header)))
                return 0
            raise finished
        backend = live_backend(transcript.header, args)
        human, show, shadow_human = live_seat(transcript.header, seed, plain=args.plain)
    except (OSError, TranscriptError, SessionError, BackendError) as exc:
        safe_print(failed("gm resume", exc), file=sys.stderr)
        return 2
    # a person at the terminal sees each replayed question with what they typed, as they
    # saw it then (an automatic P1 shows none, as in play)
    echo = human.echo if isinstance(human, TerminalHuman) else None
    io = SessionIO(backend=backend, human=human, show=show)
    ledger = None
    header = transcript.header
    locale = game_locale(header)
    if header.kind == "werewolf" and header.backend not in ("offline", "none", "replay"):
        # as gm werewolf play does: the live part's calls (the replayed ones cost nothing)
        from gm_engine.cli._metering import metered

        metered_backend, sink, ledger = metered(backend, "")
        io = SessionIO(backend=metered_backend, human=human, show=show, sink=sink)
    try:
        try:
            result = resume_session(path, io, seed=seed, shadow_human=shadow_human, echo=echo)
        finally:
            if ledger is not None and (ledger.entries or ledger.fallbacks):
                from gm_engine.messages.ledger import ledger_summary

                safe_print(ledger_summary(ledger, locale))
    except KeyboardInterrupt as exc:
        print(stopped_message("gm resume", "session", exc, path, locale), file=sys.stderr)
        return 130
    except (BackendError, OSError) as exc:  # the live part failed: what it added is kept
        print(stopped_message("gm resume", "session", exc, path, locale), file=sys.stderr)
        return 2
    except (TranscriptError, SessionError) as exc:
        print(failed("gm resume", exc, locale), file=sys.stderr)
        return 2
    if result.outcome.finished:
        safe_print(render(SessionEnded(result.outcome.summary, seed), locale))
    else:
        safe_print(how_to_go_on(result.outcome.summary, path, locale))
    safe_print(render(Resumed(result.replayed_events, result.new_events, str(args.file)), locale))
    return 0


def _roll_session(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    locale: Locale = args.locale or locale_from_env()  # one language for the whole screen
    options = {"system": args.system, "locale": locale, "prompt_in_locale": True}
    spec = SessionSpec(kind="roll", seed=seed, options=options, backend="none")
    human: ScriptedHuman | TerminalHuman
    if args.script:
        try:
            human = ScriptedHuman(script_lines(args.script))
        except (OSError, SessionError) as exc:
            print(failed("gm roll-session", exc, locale), file=sys.stderr)
            return 2
    else:
        human = TerminalHuman(locale=locale)
    from gm_engine.sessions.roll import NoModelBackend

    io = SessionIO(backend=NoModelBackend(), human=human, show=safe_show(print))
    target = None if args.no_record else Path(args.record or default_transcript_path(spec.kind, seed))
    try:
        _, path = play_session(spec, io, record=target is not None, path=target)
    except KeyboardInterrupt as exc:
        print(stopped_message("gm roll-session", "session", exc, target, locale), file=sys.stderr)
        return 130
    except (TranscriptExists, TranscriptBusy) as exc:  # nothing was rolled, and nothing saved
        print(render(RecordingRefused("gm roll-session", str(exc)), locale), file=sys.stderr)
        return 2
    except OSError as exc:
        print(recording_refused(exc, target) or failed("gm roll-session", exc, locale), file=sys.stderr)
        return 2
    except (SessionError, TranscriptError) as exc:
        print(failed("gm roll-session", exc, locale), file=sys.stderr)
        return 2
    if path is not None:  # the session showed its summary itself
        print(render(TranscriptAt(str(path)), locale))
    return 0
