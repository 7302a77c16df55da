"""``gm mcp``: the engine's tools for any MCP client, on stdio or the streamable HTTP transport.

On stdio the protocol owns stdout: nothing else is written there; where each session's
transcript went is said on stderr when it ends.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gm_engine.cli._errors import failed
from gm_engine.messages import locale_from_env, render
from gm_engine.messages.texts import McpServing, McpTranscript

#: The port of ``--http`` when none is given.
DEFAULT_PORT = 8765


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {port}")
    return port


def register(subparsers: Any) -> None:
    """Add ``gm mcp``."""
    parser = subparsers.add_parser(
        "mcp",
        help="serve the engine's tools to any MCP client (stdio, or --http)",
        description="Serve the engine's tools (dice under any system, character creation, every fast-combat "
        "step, spells, checks, the shipped scenarios) to an MCP client: a desktop chat app, a coding agent "
        "or an agent framework. The tools listed are those legal now; every call is checked by the rules "
        "and recorded. Without --http the server speaks on stdin/stdout (what a desktop client starts).",
    )
    parser.add_argument("--http", action="store_true", help="serve the streamable HTTP transport at /mcp")
    parser.add_argument("--host", default="127.0.0.1", help="address of --http (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port of --http (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the first session's dice (the next sessions get the next numbers; default: random)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--transcripts",
        metavar="DIR",
        type=Path,
        default=None,
        help="record each session's transcript in DIR (default: the user data directory)",
    )
    where.add_argument("--no-record", action="store_true", help="do not record the sessions")
    parser.set_defaults(handler=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    import anyio

    from gm_engine.mcp_server import GameHouse, serve_http, serve_stdio

    if args.transcripts is not None:
        try:
            args.transcripts.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(failed("gm mcp", exc), file=sys.stderr)  # the folder and why, in words
            return 2
    house = GameHouse(seed=args.seed, record=not args.no_record, transcripts=args.transcripts)
    try:
        if args.http:
            url = f"http://{args.host}:{args.port}/mcp"
            print(render(McpServing(url), locale_from_env()), file=sys.stderr)
            anyio.run(lambda: serve_http(house, host=args.host, port=args.port))
        else:
            anyio.run(serve_stdio, house)
    except OSError as exc:
        print(failed("gm mcp", exc), file=sys.stderr)
        return 1
    finally:
        for live in house.finished:
            if live.path is not None:
                print(render(McpTranscript(str(live.path)), locale_from_env()), file=sys.stderr)
    return 0
