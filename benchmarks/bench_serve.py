"""Figures of ``gm serve``'s storage, SQLite against PostgreSQL, printed side by side.

    .venv/bin/python benchmarks/bench_serve.py store [--appends 400] [--threads 8]

``store``: what one append costs (one transcript line in its own transaction, durable
when it returns: SQLite ``synchronous=FULL``, PostgreSQL ``synchronous_commit=on`` with
``fsync`` on), from one thread and from ``--threads`` threads each appending to its own
table: wall-clock p50/p95 per append, appends per second, and this process's CPU time
per append. PostgreSQL is a throwaway server (tests/postgres_server.py, fsync on) on
127.0.0.1; without its binaries or psycopg only SQLite is measured.

Everything runs on 127.0.0.1. The machine is shared: wall-clock figures move with its
load, so both stores are measured in the same run, alternating.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.postgres_server starts the throwaway PostgreSQL

from gm_engine.serve.store import TableStore  # noqa: E402
from gm_engine.serve.store_sqlite import SQLiteTableStore  # noqa: E402
from tests.postgres_server import find_binaries, missing_server_user, running_server  # noqa: E402

# A line the size of a werewolf speech event (about 300 bytes of JSON, Japanese text).
LINE = json.dumps(
    {"type": "speech", "seq": 0, "seat": 4, "text": "占いCOします。昨夜はP6を占って人狼でした。" * 4},
    ensure_ascii=False,
)


@dataclass(frozen=True)
class AppendFigures:
    """One store's append figures for one shape of load."""

    p50_ms: float
    p95_ms: float
    per_second: float
    cpu_ms_per_append: float


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure_appends(store: TableStore, prefix: str, appends: int, threads: int) -> AppendFigures:
    """``threads`` threads, each appending ``appends`` lines one at a time to its own table."""
    for number in range(threads):
        table_id = f"{prefix}-{number}"
        store.create_table(table_id, "werewolf", "bench", "{}", time.time())
        assert store.acquire_lease(table_id, "bench", 3600)
    latencies: list[list[float]] = [[] for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)

    def work(number: int) -> None:
        table_id = f"{prefix}-{number}"
        mine = latencies[number]
        barrier.wait()
        for index in range(appends):
            started = time.perf_counter()
            store.append_lines(table_id, index, [LINE], holder="bench")
            mine.append(time.perf_counter() - started)

    workers = [threading.Thread(target=work, args=(number,)) for number in range(threads)]
    for worker in workers:
        worker.start()
    cpu_before = time.process_time()
    barrier.wait()
    wall_before = time.perf_counter()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - wall_before
    cpu = time.process_time() - cpu_before
    every = [latency for mine in latencies for latency in mine]
    return AppendFigures(
        p50_ms=statistics.median(every) * 1000,
        p95_ms=_percentile(every, 0.95) * 1000,
        per_second=len(every) / wall,
        cpu_ms_per_append=cpu / len(every) * 1000,
    )


@contextmanager
def stores(directory: Path) -> Iterator[dict[str, Callable[[], TableStore]]]:
    """Openers of the stores to compare: SQLite always, PostgreSQL when it can be started."""
    openers: dict[str, Callable[[], TableStore]] = {
        "SQLite": lambda: SQLiteTableStore(directory / "bench.sqlite3"),
    }
    with ExitStack() as stack:
        binaries = find_binaries()
        try:
            from gm_engine.serve.store_postgres import PostgresTableStore
        except ImportError:
            print("psycopg is not installed: PostgreSQL is not measured", file=sys.stderr)
        else:
            if binaries is None or missing_server_user():
                print("no PostgreSQL binaries (or no postgres user): not measured", file=sys.stderr)
            else:
                server = stack.enter_context(running_server(binaries, fsync=True))
                url = server.create_database()
                openers["PostgreSQL"] = lambda: PostgresTableStore(url, max_connections=16)
        yield openers


def bench_store(appends: int, threads: int, rounds: int) -> None:
    """Print the append figures of every store, one thread and ``threads`` threads."""
    with tempfile.TemporaryDirectory(prefix="gm-bench-serve-") as scratch, stores(Path(scratch)) as openers:
        opened = {name: opener() for name, opener in openers.items()}
        results: dict[tuple[str, int], list[AppendFigures]] = {}
        try:
            for round_number in range(rounds):  # alternate, so both see the same load
                for name, store in opened.items():
                    for shape in (1, threads):
                        figures = measure_appends(store, f"r{round_number}-t{shape}", appends, shape)
                        results.setdefault((name, shape), []).append(figures)
        finally:
            for store in opened.values():
                store.close()
    print(f"one append = one line of {len(LINE.encode())} bytes in its own durable transaction")
    print(f"{appends} appends a thread, best of {rounds} rounds (by appends/s)")
    print(f"{'store':<12}{'threads':>8}{'p50 ms':>10}{'p95 ms':>10}{'appends/s':>12}{'CPU ms/append':>15}")
    for (name, shape), runs in results.items():
        best = max(runs, key=lambda figures: figures.per_second)
        print(
            f"{name:<12}{shape:>8}{best.p50_ms:>10.2f}{best.p95_ms:>10.2f}"
            f"{best.per_second:>12.0f}{best.cpu_ms_per_append:>15.3f}"
        )


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the chosen benchmark."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    store = commands.add_parser("store", help="append cost of each table store")
    store.add_argument("--appends", type=int, default=400)
    store.add_argument("--threads", type=int, default=8)
    store.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args(argv)
    if arguments.command == "store":
        bench_store(arguments.appends, arguments.threads, arguments.rounds)


if __name__ == "__main__":
    main()
