"""The ``gm`` command. Each module of this package adds its subcommands through
``register(subparsers)``; :func:`main` finds them, so areas never edit one shared file."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import cast

from gm_engine import __version__

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The full ``gm`` parser with every area's subcommands."""
    parser = argparse.ArgumentParser(
        prog="gm", description="gm_engine: tabletop games run by a rules engine, narrated by a model."
    )
    parser.add_argument("--version", action="version", version=f"gm_engine {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    package = sys.modules[__name__]
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if callable(register):
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gm`` with ``argv`` (default: the process's arguments); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = cast(Handler | None, getattr(args, "handler", None))
    if handler is None:
        parser.print_help()
        return 2
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
