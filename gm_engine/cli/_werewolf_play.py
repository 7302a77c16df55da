"""``gm werewolf play``: the human at P1 against the eight AI personas.

:func:`add_play_command` adds the ``play`` subcommand to the ``gm werewolf`` subparsers
(the ``gm werewolf`` module wires it in). The session itself is
:mod:`gm_engine.sessions.werewolf`; this module only turns arguments into a spec, picks
the human (the terminal, or an offline agent with ``--auto``) and the screen.
"""

from __future__ import annotations

import argparse
import gc
import secrets
import sys
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from gm_engine.cli._errors import failed
from gm_engine.cli._play import add_deadline_argument, backend_settings, run_play, transcript_target
from gm_engine.cli._werewolf_options import add_option_arguments, options_from_args
from gm_engine.dice.result import Locale
from gm_engine.messages import locale_from_env
from gm_engine.safe_text import printable, safe_show
from gm_engine.sessions.base import HumanInput, SessionError, SessionIO, SessionSpec
from gm_engine.sessions.humans import werewolf_table_human

# How the screen colours a line, by how the line starts (plain text stays the source of truth).
_STYLES: tuple[tuple[str, str], ...] = (
    ("【ゲーム終了】", "bold magenta"),
    ("【CMD_", "dim"),
    ("【", "bold"),
    ("GM:", "italic green"),
    ("（", "cyan"),
    ("あなたの役職", "bold cyan"),
    ("仲間の人狼", "bold cyan"),
    ("── ", "bold yellow"),
)


def style_of(line: str) -> str | None:
    """The rich style of a screen line, or None for plain text."""
    for start, style in _STYLES:
        if line.startswith(start):
            return style
    return None


def rich_show() -> Callable[[str], None]:
    """A ``show`` that prints through rich, styling the engine's fixed texts."""
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)

    def show(line: str) -> None:
        # a Text is never parsed as markup, and printable() disarms escape sequences
        console.print(Text(printable(line), style=style_of(line) or ""))

    return show


def werewolf_seat(
    *, auto: bool, seed: int, plain: bool, locale: Locale
) -> tuple[HumanInput, Callable[[str], None]]:
    """Who plays P1 and the screen it sees, the one builder of ``gm werewolf play`` and of
    ``gm resume`` of a werewolf game (so that a resumed game looks and reads exactly like
    the game it continues): the person at the terminal, or with ``auto`` the offline agent
    (with the dice it draws in every game of this seed); rich colours unless ``plain``."""
    human: HumanInput
    if auto:
        from gm_engine.dice.source import SeededSource
        from gm_engine.sessions.werewolf_offline import AutoHuman
        from gm_engine.werewolf.agents import OfflineAgent

        human = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))
    else:
        human = werewolf_table_human(locale)
    return human, safe_show(print) if plain else rich_show()


def parse_deal(text: str) -> list[int]:
    """``"3,1,1,2,2,2,4,5,6"`` -> the list of role numbers (P1 first).

    Raises:
        argparse.ArgumentTypeError: not nine comma-separated numbers.
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) != 9 or not all(p.isdigit() for p in parts):
        from gm_engine.messages import render
        from gm_engine.messages.texts import NotADeal

        raise argparse.ArgumentTypeError(render(NotADeal(text), locale_from_env()))
    return [int(p) for p in parts]


def add_play_command(werewolf_subparsers: Any) -> argparse.ArgumentParser:
    """Add ``play`` to the ``gm werewolf`` subparsers and return its parser."""
    parser: argparse.ArgumentParser = werewolf_subparsers.add_parser(
        "play",
        help="play werewolf at P1 against the eight AI personas",
        description="A 9-player werewolf game: you are P1, the eight personas of the rules document "
        "are P2..P9. The engine owns roles, votes and the night; the model only voices the personas. "
        "`--backend offline` (the default) needs no key. Type /help at your turn, /quit to leave.",
    )
    parser.add_argument("--auto", action="store_true", help="P1 is played by an offline agent (no input)")
    parser.add_argument(
        "--role",
        type=int,
        choices=range(1, 7),
        metavar="N",
        help="P1's role: 1 人狼, 2 村人, 3 占い師, 4 狩人, 5 霊媒師, 6 狂人",
    )
    parser.add_argument(
        "--deal",
        type=parse_deal,
        default=None,
        metavar="R1,...,R9",
        help="every seat's role, P1 first (a fixed deal)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deal and the agents (default: random)"
    )
    parser.add_argument("--backend", choices=["offline", "openai"], default="offline")
    parser.add_argument("--model", default=None, help="model name for --backend openai (default: $GM_MODEL)")
    parser.add_argument("--profile", default=None, help="server profile for --backend openai")
    add_deadline_argument(parser)
    parser.add_argument(
        "--name", default=None, help="your name at the table (default: プレイヤー; Player with GM_LOCALE=en)"
    )
    parser.add_argument("--no-narrator", action="store_true", help="no GM narrator lines")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--record",
        metavar="FILE",
        default=None,
        help="record the transcript to FILE (default: a new file in the user data directory)",
    )
    where.add_argument("--no-record", action="store_true", help="do not record the game")
    parser.add_argument("--plain", action="store_true", help="plain text output (no colours)")
    add_option_arguments(parser)
    parser.set_defaults(handler=play_command)
    return parser


#: P1's name at the table when ``--name`` is not given, by the player's locale.
DEFAULT_NAMES: dict[Locale, str] = {"ja": "プレイヤー", "en": "Player"}


def spec_from_args(args: argparse.Namespace, seed: int) -> SessionSpec:
    """The session spec the arguments describe."""
    locale = locale_from_env()
    options: dict[str, Any] = {
        "auto": bool(args.auto),
        "human_name": args.name or DEFAULT_NAMES[locale],
        "narrator": not args.no_narrator,
        "rules": options_from_args(args).model_dump(mode="json"),
    }
    if args.role is not None:
        options["role"] = args.role
    if args.deal is not None:
        options["deal"] = list(args.deal)
    if locale != "ja":  # the default is not written, so that a Japanese game's header stays as it was
        options["locale"] = locale
    return SessionSpec(kind="werewolf", seed=seed, options=options, backend=args.backend, model=args.model)


def play_command(args: argparse.Namespace) -> int:
    """Run ``gm werewolf play``."""
    from gm_engine.llm import make_backend
    from gm_engine.llm.base import BackendError
    from gm_engine.sessions.werewolf import run_werewolf, session_options

    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    try:
        spec = spec_from_args(args, seed)
    except ValidationError as exc:  # a rule option out of range
        from gm_engine.messages import render
        from gm_engine.messages.texts import OptionsInvalid
        from gm_engine.messages.validation import validation_message

        locale = locale_from_env()
        problems = render(validation_message(exc), locale)
        print(f"gm werewolf play: {render(OptionsInvalid(problems), locale)}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(failed("gm werewolf play", exc), file=sys.stderr)
        return 2
    try:
        options = session_options(spec)
        backend = make_backend(args.backend, model=args.model, profile=args.profile, **backend_settings(args))
        human, show = werewolf_seat(
            auto=bool(args.auto), seed=seed, plain=bool(args.plain), locale=options.locale
        )
        ledger = None
        if args.backend != "offline":
            # a model server's calls are metered and summed up at the end or at a stop; the
            # offline model's are the engine's own (nothing is spent)
            from gm_engine.cli._metering import metered

            backend, sink, ledger = metered(backend, "")
            io = SessionIO(backend=backend, human=human, show=show, sink=sink)
        else:
            io = SessionIO(backend=backend, human=human, show=show)
        target = transcript_target(args, spec)
    except (SessionError, BackendError, OSError, ValueError) as exc:
        print(failed("gm werewolf play", exc), file=sys.stderr)
        return 2
    # The objects alive now (modules, the client library, templates, personas: some hundred
    # thousand) stay for the whole game; left out of the collector's full passes, they no
    # longer stall a round of model calls for tens of milliseconds (this process ends with
    # the game, so nothing is handed back).
    gc.freeze()
    return run_play("gm werewolf play", "game", spec, io, target, runner=run_werewolf, ledger=ledger)
