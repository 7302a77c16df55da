"""``gm werewolf``: the werewolf game's commands (``simulate``; ``play`` is added by the session).

Add a subcommand with one line in :func:`add_werewolf_parsers`' caller or in another module::

    sub = add_werewolf_parsers(subparsers)   # returns the werewolf sub-subparsers
    sub.add_parser("play", ...)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from gm_engine.cli._errors import failed
from gm_engine.cli._werewolf_options import add_option_arguments, options_from_args
from gm_engine.cli._werewolf_play import add_play_command
from gm_engine.werewolf.game import DealError, Game, check_composition
from gm_engine.werewolf.records import Role

if TYPE_CHECKING:
    from gm_engine.messages import Message

__all__ = ["add_option_arguments", "add_werewolf_parsers", "options_from_args", "parse_deal", "register"]


def register(subparsers: Any) -> None:
    """Add ``gm werewolf`` and its subcommands (``simulate`` here, ``play`` from the session)."""
    add_play_command(add_werewolf_parsers(subparsers))


def add_werewolf_parsers(subparsers: Any) -> Any:
    """Create ``gm werewolf`` with its ``simulate`` subcommand; return the werewolf sub-subparsers.

    A later subcommand (``play``) is one ``add_parser`` call on the returned object.
    """
    werewolf = subparsers.add_parser("werewolf", help="the 9-player werewolf game (人狼)")
    werewolf.set_defaults(handler=lambda args: _help(werewolf))
    sub = werewolf.add_subparsers(dest="werewolf_command", metavar="SUBCOMMAND")

    simulate = sub.add_parser("simulate", help="play N full games between offline agents")
    simulate.add_argument("--games", type=_positive, default=1000, help="number of games (default 1000)")
    simulate.add_argument("--seed", default="0", help="seed of the run (game i uses seed 'S:i')")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    simulate.add_argument(
        "--deal", default=None, help="fixed deal R1,...,R9 (P1's role first) for every game"
    )
    add_option_arguments(simulate)
    simulate.set_defaults(handler=_simulate)
    return sub


def parse_deal(text: str) -> list[Role]:
    """``"3,1,1,2,2,2,4,5,6"`` -> the nine roles, P1's first.

    Raises:
        DealError: not nine role numbers forming the composition [1,1,2,2,2,3,4,5,6].
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise DealError(f"--deal takes nine role numbers 1..6 separated by commas, not {text!r}") from None
    check_composition(numbers)
    return [Role(n) for n in numbers]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _simulate(args: argparse.Namespace) -> int:
    from gm_engine.werewolf.simulate import simulate

    try:
        options = options_from_args(args)
        deal = parse_deal(args.deal) if args.deal is not None else None
    except (ValidationError, DealError) as exc:
        print(failed("gm werewolf simulate", exc), file=sys.stderr)
        return 2
    if deal is not None:
        Game.from_deal(deal, options)  # a bad deal fails here, before any game

    from gm_engine.messages import locale_from_env, render
    from gm_engine.messages import texts as t

    locale = locale_from_env()

    def progress(done: int, total: int) -> None:
        print(render(t.SimulateProgress(done, total), locale), file=sys.stderr, flush=True)

    long_run = args.games >= 5000
    report = simulate(
        args.games,
        args.seed,
        options,
        deal=deal,
        progress=progress if long_run else None,
        progress_every=max(1000, args.games // 10),
    )
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
        return 0
    lines: list[Message] = [t.SimulateGames(report.games, args.seed)]
    for team, count in report.wins.items():
        rate = count / report.games if report.games else 0.0
        lines.append(t.SimulateWins(team, count, f"{rate:.1%}"))
    lines += [
        t.SimulateDays(f"{report.average_days:.2f}"),
        t.SimulateActions(f"{report.total_actions / report.games:.1f}"),
        t.SimulateSpeed(f"{report.games_per_second:.1f}", f"{report.seconds:.2f}"),
        t.SimulateCpuSpeed(f"{report.games_per_cpu_second:.1f}", f"{report.cpu_seconds:.2f}"),
    ]
    for line in lines:
        print(render(line, locale))
    return 0
