"""``gm roll``, ``gm systems`` and ``gm conformance``."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from gm_engine.cli._errors import failed
from gm_engine.dice.conformance import Report, VectorFileError, format_failure, load_cases, run_case
from gm_engine.dice.engine import ErrorDetail, evaluate
from gm_engine.dice.source import DiceError, DiceSource, QueueSource, SeededSource
from gm_engine.dice.system import UnknownSystemError
from gm_engine.dice.systems.registry import all_systems
from gm_engine.messages import locale_from_env, render
from gm_engine.messages.texts import DiceLeftOver, NotACommand, SecretRoll, UnreadableCommand
from gm_engine.safe_text import printable

#: What ``surrogateescape`` makes of argument bytes that are not in the locale's encoding.
_UNDECODABLE = re.compile("[\udc80-\udcff]")


def register(subparsers: Any) -> None:
    """Add the dice subcommands."""
    roll = subparsers.add_parser(
        "roll",
        help="evaluate one dice command",
        description="Evaluate one chat line as BCDice would: gm roll --system Cthulhu7th 'CC(1)<=50 目星'",
        epilog=(
            "A line that starts with '-' goes after '--' (gm roll -- -1+2D6). Exit status: 0 a result, "
            "1 not a command or a refused command (too many dice ...), 2 a bad system, option or --rands."
        ),
    )
    roll.add_argument("--system", default="DiceBot", help="game system id (see `gm systems`)")
    roll.add_argument("--seed", type=int, default=None, help="seed of the dice (default: random)")
    roll.add_argument(
        "--rands", default=None, help="inject dice: value/sides,... e.g. 9/10,5/10 (each value 1..sides)"
    )
    roll.add_argument("--locale", choices=["ja", "en"], default="ja")
    roll.add_argument("--json", action="store_true", help="print the structured result as JSON")
    roll.add_argument("line", nargs="+", help="the command (text after a space is a comment)")
    roll.set_defaults(handler=_roll)

    systems = subparsers.add_parser("systems", help="list the game systems and their help")
    systems.set_defaults(handler=_systems)

    conformance = subparsers.add_parser(
        "conformance",
        help="run BCDice-format TOML test vectors",
        epilog="Exit status: 0 every case passed, 1 a case failed, 2 a file could not be read "
        "(the other files still run).",
    )
    conformance.add_argument("files", nargs="+")
    conformance.add_argument(
        "--tables",
        default=None,
        help="table pack directory (default: $GM_TABLES_DIR, else a tables/ folder beside each vector file)",
    )
    conformance.set_defaults(handler=_conformance)


def _roll(args: argparse.Namespace) -> int:
    source: DiceSource
    line = " ".join(args.line)
    if _UNDECODABLE.search(line):  # bytes the locale could not decode, kept as lone surrogates
        print(render(UnreadableCommand(printable(line, newlines=False)), args.locale), file=sys.stderr)
        return 2
    try:
        source = (
            QueueSource.parse(args.rands, faces_on_the_die=True)
            if args.rands is not None
            else SeededSource(args.seed)
        )
        result = evaluate(line, args.system, source=source, locale=args.locale)
    except (DiceError, UnknownSystemError, ValueError) as exc:
        print(printable(failed("gm roll", exc, args.locale)), file=sys.stderr)
        return 2
    if result is None:
        shown = printable(line, newlines=False)  # the line goes back to a terminal: nothing in it may act
        print(render(NotACommand(args.system, shown), args.locale), file=sys.stderr)
        return 1
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(printable(result.text))
    if result.secret:
        print(render(SecretRoll(), args.locale), file=sys.stderr)
    if isinstance(source, QueueSource) and source.leftovers:
        unused = ", ".join(f"{d.value}/{d.sides}" for d in source.leftovers)
        print(render(DiceLeftOver(unused), args.locale), file=sys.stderr)
    return 1 if isinstance(result.detail, ErrorDetail) else 0


def _systems(args: argparse.Namespace) -> int:
    for cls in all_systems():
        print(f"{cls.id}  ({cls.name})")
        for line in cls.help_in(locale_from_env()).strip().splitlines():
            print(f"    {line}")
    return 0


def _conformance(args: argparse.Namespace) -> int:
    # Never dies: a case that raises is a failed case showing the error, and a file that
    # cannot be read is reported while the other files still run.
    tables = args.tables if args.tables is not None else os.environ.get("GM_TABLES_DIR")
    report = Report()
    unreadable = 0
    for path in args.files:
        try:
            cases = load_cases(path)
        except VectorFileError as exc:
            unreadable += 1
            print(failed("gm conformance", exc), file=sys.stderr)
            continue
        # BCDice's vectors come with the table pack their table commands read, in tables/
        # beside them: found there unless another pack is named.
        beside = Path(path).parent / "tables"
        pack = tables if tables is not None else (str(beside) if beside.is_dir() else None)
        for case in cases:
            result = run_case(case, tables_dir=pack)
            if result.passed:
                report.passed += 1
            else:
                report.failures.append(result)
                print(format_failure(result))
    summary = f"{report.passed} passed, {report.failed} failed"
    if unreadable:
        summary += f", {unreadable} file{'s' if unreadable > 1 else ''} unreadable"
    print(summary)
    if unreadable:
        return 2
    return 0 if report.failed == 0 else 1
