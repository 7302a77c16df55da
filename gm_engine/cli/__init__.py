"""The ``gm`` command.

:data:`COMMANDS` names every subcommand, the module of this package that adds it (through
its ``register(subparsers)``) and its one-line help. :func:`main` imports only the module of
the command being run, so ``gm roll 1D6`` starts without loading the werewolf, combat,
session or model packages; the other commands appear in ``gm --help`` from the table alone.
A new command is one row here plus its module (``tests/test_cli_imports.py`` checks that the
rows and the modules agree).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import NamedTuple, NoReturn, cast

from gm_engine import __version__

Handler = Callable[[argparse.Namespace], int]


class Command(NamedTuple):
    """One ``gm`` subcommand: its name, the module under :mod:`gm_engine.cli` that adds it
    with ``register(subparsers)``, and the help line ``gm --help`` prints for it."""

    name: str
    module: str
    help: str


#: Every subcommand, in the order ``gm --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("aiwolf", "aiwolf", "AIWolf (人狼知能): host its agents, join its servers, write its logs"),
    Command("adventure", "adventure", "a solo adventure: a model plays the GM, the engine owns every number"),
    Command("bench", "bench", "benchmarks that print figures"),
    Command("combat", "combat", "fast party-vs-party combat (高速戦闘ルール)"),
    Command("doctor", "doctor", "probe a model server: what it supports, the profile to use, fixes"),
    Command("mcp", "mcp", "serve the engine's tools to any MCP client (stdio, or --http)"),
    Command("roll", "dice", "evaluate one dice command"),
    Command("systems", "dice", "list the game systems and their help"),
    Command("conformance", "dice", "run BCDice-format TOML test vectors"),
    Command("replay", "replay", "replay recorded sessions and check every rule outcome"),
    Command("resume", "transcripts", "continue a session that was cut off, from its transcript"),
    Command(
        "roll-session", "transcripts", "an interactive, recorded dice session (/system NAME switches systems)"
    ),
    Command("serve", "serve", "werewolf tables and solo adventures in the browser"),
    Command("werewolf", "werewolf", "the 9-player werewolf game (人狼)"),
)


def selected_command(argv: Sequence[str]) -> Command | None:
    """The command ``argv`` runs (its first word that is not an option), or None."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return next((c for c in COMMANDS if c.name == word), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``gm`` parser. The module of the command ``argv`` runs adds its real parsers;
    every other command is a stub carrying only its help line. Without ``argv`` every
    module adds its parsers (the whole parser, e.g. for documentation)."""
    from gm_engine.cli._errors import CliParser

    parser = CliParser(
        prog="gm", description="gm_engine: tabletop games run by a rules engine, narrated by a model."
    )
    parser.add_argument("--version", action="version", version=f"gm_engine {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = selected_command(argv) if argv is not None else None
    registered: set[str] = set()
    for command in COMMANDS:
        if argv is None or (chosen is not None and command.module == chosen.module):
            if command.module not in registered:
                registered.add(command.module)
                importlib.import_module(f"{__name__}.{command.module}").register(subparsers)
        else:
            subparsers.add_parser(command.name, help=command.help, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gm`` with ``argv`` (default: the process's arguments); return the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments)
    args = parser.parse_args(arguments)
    handler = cast(Handler | None, getattr(args, "handler", None))
    if handler is None:
        parser.print_help()
        return 2
    try:
        return handler(args)
    except KeyboardInterrupt:  # outside a session (which says where it stopped itself)
        from gm_engine.messages import locale_from_env, render
        from gm_engine.messages.texts import Interrupted

        print("\n" + render(Interrupted(), locale_from_env()), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


#: The cycle collector's thresholds for the ``gm`` program (see :func:`run`).
PROGRAM_GC_THRESHOLDS = (10_000, 10, 10)


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``gm`` program (its console script and ``python -m gm_engine``): :func:`main`,
    then the process exits with its status.

    A command's start loads some hundred thousand objects that live as long as the process
    (modules, classes, pydantic schemas) and makes little cyclic garbage, so the cycle
    collector runs less often than Python's default (a young collection every 10,000 net
    allocations, not 700): about 1% of a ``gm replay`` of one transcript. Whatever the
    command leaves is freed with the process, so it is moved out of the collector's sight
    at the end (:func:`gc.freeze`): the interpreter's shutdown would otherwise walk every
    object the command loaded, to find nothing worth finding (4%). Neither is part of
    :func:`main`, which tests call in a process that goes on.
    """
    gc.set_threshold(*PROGRAM_GC_THRESHOLDS)
    try:
        status = main(argv)
    finally:
        gc.freeze()
    raise SystemExit(status)


if __name__ == "__main__":
    run()
