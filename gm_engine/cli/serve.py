"""``gm serve``: the werewolf tables and solo adventures in the browser (see :mod:`gm_engine.serve`).

It opens the table store (``--database``: SQLite in the data directory by default, or
``postgresql://…``), builds the app of :mod:`gm_engine.serve.app` over a
:class:`~gm_engine.serve.tables.TableRuntime` and serves it with uvicorn, after printing
the address to open.
"""

from __future__ import annotations

import argparse
import itertools
import socket
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from gm_engine.cli._errors import failed

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale

__all__ = ["register", "seed_sequence", "serve_command"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``gm serve``."""
    parser = subparsers.add_parser(
        "serve",
        help="werewolf tables and solo adventures in the browser",
        description="Serve the lobby and the tables on HTTP: open a table in the lobby, join it with "
        "the link it gives, play in the browser. Unfinished tables are kept in the database and go on "
        "where they stopped when the server starts again.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--database",
        default=None,
        metavar="URL",
        help="where the tables are kept: a SQLite file (default: serve/tables.sqlite3 in the data "
        "directory; sqlite:PATH or a path) or postgresql://… (the postgres extra)",
    )
    parser.add_argument(
        "--advertise",
        default=None,
        metavar="URL",
        help="the base URL at which the other gm serve processes on the same database reach this one "
        "(default http://HOST:PORT, this machine's name for 0.0.0.0): a table's requests that reach a "
        "process not driving it are passed on to the one that does, so any load balancer works",
    )
    parser.add_argument(
        "--model-server",
        action="append",
        default=[],
        metavar="URL",
        help="an OpenAI-compatible server (its base URL, e.g. http://127.0.0.1:11434/v1) that a table "
        "opened in the lobby may use; repeat for several. Without it every table plays on the offline "
        "model: a lobby visitor never makes this server send requests to a host of their choosing",
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a table stays this process's without a renewal: another process on the same "
        "database takes it over that long after this one died (default 15); a gm serve started again "
        "at this one's address takes its tables over at once",
    )
    parser.add_argument(
        "--tick-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how often the leases are renewed and the free tables claimed (default 3; the lease "
        "must last at least two ticks)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="the first new table's seed, then +STEP for each next one (default: fresh entropy for "
        "each table). For benchmarks and demos that must play the same games again: whoever knows it "
        "knows every table's deal",
    )
    parser.add_argument(
        "--seed-step",
        type=int,
        default=1,
        metavar="STEP",
        help="what --seed grows by from one table to the next (default 1; two processes on one "
        "database given --seed 1 and --seed 2 with --seed-step 2 open the tables one process given "
        "--seed 1 would)",
    )
    parser.add_argument(
        "--locale",
        choices=("ja", "en"),
        default=None,
        help="the language of the lobby and of a new table whose form names none (default: GM_LOCALE, "
        "else ja); each table plays in the language chosen when it was opened",
    )
    parser.set_defaults(handler=serve_command)


def seed_sequence(first: int, step: int) -> Callable[[], int]:
    """The seeds ``first``, ``first + step``, … (``--seed``), one per call, from any thread."""
    drawn = itertools.count(first, step)
    lock = threading.Lock()

    def next_seed() -> int:
        with lock:
            return next(drawn)

    return next_seed


def serve_command(args: argparse.Namespace) -> int:
    """Run ``gm serve`` until it is interrupted."""
    import uvicorn

    from gm_engine.messages import locale_from_env, render
    from gm_engine.messages.texts import (
        CommandFailed,
        ServeBadAdvertise,
        ServeBadPort,
        ServeBadSeeds,
        ServeLeaseTooShort,
        ServeOpenInBrowser,
    )
    from gm_engine.serve.app import create_app
    from gm_engine.serve.bcdice_api import bcdice_api_routes
    from gm_engine.serve.interpreter import prepare_interpreter
    from gm_engine.serve.store import StoreError
    from gm_engine.serve.store_open import open_store
    from gm_engine.serve.tables import LEASE_SECONDS, TICK_SECONDS, TableRuntime

    locale = locale_from_env()
    tables_locale: Locale = "en" if args.locale == "en" else "ja" if args.locale == "ja" else locale

    if not 0 < args.port < 65536:
        problem = render(ServeBadPort(args.port), locale)
        print(render(CommandFailed("gm serve", problem), locale), file=sys.stderr)
        return 2
    if (args.seed is not None and args.seed < 0) or args.seed_step < 1:
        problem = render(ServeBadSeeds(args.seed if args.seed is not None else 0, args.seed_step), locale)
        print(render(CommandFailed("gm serve", problem), locale), file=sys.stderr)
        return 2
    try:
        store = open_store(args.database)
    except (StoreError, OSError) as exc:  # a folder that cannot be made, a file that cannot be opened
        print(failed("gm serve", exc), file=sys.stderr)
        return 2
    try:
        # The port is bound before the tables are: the runtime takes over at once the tables of
        # an earlier process at this address (killed, restarted), which is only right once this
        # process is the one listening there (a second server started on a taken port stops here).
        listener = _listen(args.host, args.port)
    except OSError as exc:
        store.close()
        print(failed("gm serve", exc), file=sys.stderr)
        return 2
    try:
        host = f"[{args.host}]" if ":" in args.host else args.host
        advertise = args.advertise or (
            f"http://{socket.gethostname() if args.host in ('0.0.0.0', '::') else host}:{args.port}"
        )
        if not advertise.startswith(("http://", "https://")) or "#" in advertise:
            problem = render(ServeBadAdvertise(advertise), locale)
            print(render(CommandFailed("gm serve", problem), locale), file=sys.stderr)
            return 2
        # the tables and, beside them, a BCDice-API (v2) that dice bots and table tools can use
        timing = {
            name: value
            for name, value in (("lease_seconds", args.lease_seconds), ("tick_seconds", args.tick_seconds))
            if value is not None
        }
        lease = timing.get("lease_seconds", LEASE_SECONDS)
        tick = timing.get("tick_seconds", TICK_SECONDS)
        if not 0 < tick < float("inf") or not lease >= 2 * tick:  # TableRuntime's own rule, said here
            problem = render(ServeLeaseTooShort(f"{lease:g}", f"{tick:g}"), locale)
            print(render(CommandFailed("gm serve", problem), locale), file=sys.stderr)
            return 2
        seeds = None if args.seed is None else seed_sequence(args.seed, args.seed_step)
        runtime = TableRuntime(
            store,
            advertise=advertise,
            model_servers=args.model_server,
            seeds=seeds,
            locale=tables_locale,
            **timing,
        )
        app = create_app(runtime, extra_routes=bcdice_api_routes())
        shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else host
        print(render(ServeOpenInBrowser(f"http://{shown}:{args.port}/"), tables_locale), flush=True)
        # an open event stream lasts as long as its table: a stop does not wait for them long
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
        server = uvicorn.Server(config)
        # after the last import, before the first table: what is frozen lives as long as we do
        prepare_interpreter()
        server.run(sockets=[listener])
    except OSError as exc:
        print(failed("gm serve", exc), file=sys.stderr)
        return 2
    finally:
        listener.close()
        store.close()
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (uvicorn listens on it). ``SO_REUSEADDR`` as
    uvicorn sets it: a server started again at once after a kill binds its port although
    connections of the killed one linger in TIME_WAIT."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
    except OSError:
        listener.close()
        raise
    return listener
