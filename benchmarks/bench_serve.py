"""Figures of ``gm serve``, SQLite against PostgreSQL, one server process against two,
printed side by side.

    .venv/bin/python benchmarks/bench_serve.py tables [--tables 100] [--databases sqlite postgres]
                                                      [--processes 1 2]
    .venv/bin/python benchmarks/bench_serve.py store [--appends 400] [--threads 8]

``tables``: ``--tables`` werewolf tables at once (offline personas; P1 the seer), each
played by a scripted P1 (tests/serve_client.py's player) over HTTP: it follows the seat's
server-sent events and posts an answer whenever a question is asked. One or two
``gm serve`` processes on one database (with two, the tables are opened on each in turn,
and each drives those it opened). Printed: tables finished per minute (wall clock, from
the first table opened to the last finished), the p50/p95 latency of a human action (an
answer's POST until the server replies: it replies once the answer is stored, before the
session takes it), the servers' resident memory per table (peak while every table is
open, less the servers' memory before the first one, divided by the tables), the servers'
CPU seconds per table and the benchmark's own (the scripted clients'), how many views
a table's event stream pushed, and the machine's load average as the run began → ended
(the machine is shared: compare runs only at a similar load). Below, where an answer's time went: the server's
``Server-Timing`` phases (see gm_engine.serve.app), the client's share (its time less the
server's total: the request's way in and out, the event loop's delay before the handler
runs), and "next view", from the POST to the first pushed view with new lines, a new
question or the end (what comes of the answer, the game's own work in it). The client is
cheap beside the server (its CPU is printed), so its threads are not what is measured;
run against another checkout's server by starting this file with that checkout's Python
(``/path/.venv/bin/python benchmarks/bench_serve.py``: the server is the ``gm`` beside it),
so that two servers are measured by the same client. The client's threads hand the
interpreter lock over every 0.1 ms (as ``gm serve`` does), so that a reply is not kept
waiting in the client behind its other players.

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
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.postgres_server starts the throwaway PostgreSQL

from gm_engine.serve.store import TableStore  # noqa: E402
from gm_engine.serve.store_sqlite import SQLiteTableStore  # noqa: E402
from tests.postgres_server import find_binaries, missing_server_user, running_server  # noqa: E402
from tests.serve_client import ServeClient, TableSeat  # noqa: E402
from tests.serve_process import ServeProcess, start_serve  # noqa: E402

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


# --------------------------------------------------------------------------- whole tables over HTTP

TABLE_CONFIG = {"kind": "werewolf", "title": "ベンチ卓", "role": 3}


@dataclass
class TableRun:
    """What one scripted P1 measured at its table."""

    answer_seconds: list[float]
    finished: bool
    error: str = ""
    server_timings: list[dict[str, float]] = field(default_factory=list)
    next_seconds: list[float] = field(default_factory=list)
    """From sending each answer to the first pushed view after it with new screen lines, a
    new question or the end (what comes of the answer; with the game's own work in it)."""
    frames: int = 0
    """How many views the event stream pushed."""


def _follow(client: ServeClient, seat: TableSeat, deadline: float) -> TableRun:
    """Play ``seat`` to its end: read the seat's server-sent events, answer each new question."""
    answered_version = -1
    nexts: list[float] = []
    frames = 0
    waiting: tuple[float, int] | None = None  # an answer's sending time, and the line count then
    request = urllib.request.Request(
        f"{client.base}/api/tables/{seat.table_id}/events", headers={"authorization": f"Bearer {seat.token}"}
    )
    status = "starting"
    message = ""
    with urllib.request.urlopen(request, timeout=120) as stream:
        data: list[str] = []
        for raw in stream:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("data: "):
                data.append(line.removeprefix("data: "))
                continue
            if line or not data:
                continue
            view = json.loads("\n".join(data))
            data = []
            frames += 1
            status = view["status"]
            message = str(view.get("message", ""))
            if waiting is not None and (
                view["line_count"] > waiting[1]
                or view["question"] is not None
                or status not in ("starting", "running")
            ):
                nexts.append(time.perf_counter() - waiting[0])
                waiting = None
            if status not in ("starting", "running"):
                break
            if view["question"] is not None and view["version"] > answered_version:
                answered_version = view["version"]
                sent = time.perf_counter()
                if seat.answer(client, view["question"]) != "refused":
                    waiting = (sent, int(view["line_count"]))
            if time.monotonic() > deadline:
                return TableRun(seat.answer_seconds, False, "out of time", seat.server_timings, nexts, frames)
    failed = "" if status == "finished" else f"{status}: {message}"
    return TableRun(seat.answer_seconds, status == "finished", failed, seat.server_timings, nexts, frames)


def _rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class TablesFigures:
    """One configuration's figures."""

    database: str
    processes: int
    tables: int
    finished: int
    tables_per_minute: float
    p50_ms: float
    p95_ms: float
    answers: int
    mb_per_table: float
    server_cpu_per_table: float
    client_cpu_per_table: float
    frames_per_table: float
    phases: tuple[tuple[str, float, float], ...]
    """Each ``Server-Timing`` phase of an answer, and the client's share (its time less the
    server's total): name, p50 ms, p95 ms."""
    errors: tuple[str, ...]
    load: tuple[float, float]
    """The machine's 1-minute load average when the run began and when it ended (its other
    users' work shows here: the figures above are only comparable at a similar load)."""


def run_tables(database: str, label: str, processes: int, tables: int, log_dir: Path) -> TablesFigures:
    """Open ``tables`` tables on ``processes`` servers sharing ``database`` and play them all."""
    servers: list[ServeProcess] = []
    load_before = os.getloadavg()[0]
    try:
        for number in range(processes):
            servers.append(start_serve(database, log_dir / f"{label}-{processes}-{number}.log"))
        pids = [server.process.pid for server in servers]
        baseline = sum(_rss_bytes(pid) for pid in pids)
        cpu_before = sum(_cpu_seconds(pid) for pid in pids)
        peak = baseline
        sampling = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not sampling.wait(0.25):
                peak = max(peak, sum(_rss_bytes(pid) for pid in pids))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.perf_counter()
        client_cpu_before = time.process_time()
        deadline = time.monotonic() + 3600
        runs: list[TableRun] = []
        lock = threading.Lock()

        def play(number: int) -> None:
            client = servers[number % processes].client
            try:
                seat = client.create_table(dict(TABLE_CONFIG))
                run = _follow(client, seat, deadline)
            except Exception as failure:  # counted and shown, not raised: the other tables go on
                run = TableRun([], False, f"{type(failure).__name__}: {failure}"[:200])
            with lock:
                runs.append(run)

        players = [threading.Thread(target=play, args=(number,)) for number in range(tables)]
        for player in players:
            player.start()
        for player in players:
            player.join()
        wall = time.perf_counter() - started
        sampling.set()
        sampler.join()
        cpu = sum(_cpu_seconds(pid) for pid in pids) - cpu_before
        client_cpu = time.process_time() - client_cpu_before
    finally:
        for server in servers:
            server.stop()
    latencies = [seconds for run in runs for seconds in run.answer_seconds]
    finished = sum(run.finished for run in runs)
    by_phase: dict[str, list[float]] = {}
    for run in runs:
        for seconds, timing in zip(run.answer_seconds, run.server_timings, strict=True):
            for name, value in timing.items():
                by_phase.setdefault(name, []).append(value)
            if "total" in timing:
                by_phase.setdefault("client", []).append(seconds - timing["total"])
    nexts = [seconds for run in runs for seconds in run.next_seconds]
    if nexts:
        by_phase["next view"] = nexts
    phases = tuple(
        (name, statistics.median(values) * 1000, _percentile(values, 0.95) * 1000)
        for name, values in by_phase.items()
    )
    return TablesFigures(
        database=label,
        processes=processes,
        tables=tables,
        finished=finished,
        tables_per_minute=finished / wall * 60,
        p50_ms=statistics.median(latencies) * 1000 if latencies else float("nan"),
        p95_ms=_percentile(latencies, 0.95) * 1000 if latencies else float("nan"),
        answers=len(latencies),
        mb_per_table=(peak - baseline) / tables / 2**20,
        server_cpu_per_table=cpu / max(1, finished),
        client_cpu_per_table=client_cpu / max(1, finished),
        frames_per_table=sum(run.frames for run in runs) / max(1, len(runs)),
        phases=phases,
        errors=tuple(sorted({run.error for run in runs if run.error})),
        load=(load_before, os.getloadavg()[0]),
    )


def bench_tables(tables: int, databases: list[str], processes: list[int]) -> None:
    """Print the figures of every (database, processes) pair, side by side."""
    results: list[TablesFigures] = []
    with tempfile.TemporaryDirectory(prefix="gm-bench-serve-") as scratch, ExitStack() as stack:
        directory = Path(scratch)
        targets: dict[str, Callable[[], str]] = {}
        if "sqlite" in databases:
            counter = iter(range(1_000_000))
            targets["SQLite"] = lambda: str(directory / f"tables-{next(counter)}.sqlite3")
        if "postgres" in databases:
            binaries = find_binaries()
            if binaries is None or missing_server_user():
                print(
                    "no PostgreSQL binaries (or no postgres user): PostgreSQL is not measured",
                    file=sys.stderr,
                )
            else:
                server = stack.enter_context(running_server(binaries, fsync=True))
                targets["PostgreSQL"] = server.create_database
        for label, target in targets.items():
            for count in processes:
                figures = run_tables(target(), label, count, tables, directory)
                results.append(figures)
                print(
                    f"  done: {label}, {count} process(es): {figures.finished}/{tables} finished", flush=True
                )
    print(f"{tables} werewolf tables at once, offline personas, a scripted P1 over HTTP (SSE + POST)")
    print(f"server: {Path(sys.executable).with_name('gm')} ({ROOT}), {os.cpu_count()} processors")
    print("p50/p95: an answer's POST until the server replies (it replies once the answer is stored)")
    print(
        f"{'database':<12}{'procs':>6}{'finished':>10}{'tables/min':>12}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'answers':>9}{'MB/table':>10}{'CPU s/table':>13}{'client CPU':>12}{'frames':>8}{'load':>12}"
    )
    for figures in results:
        print(
            f"{figures.database:<12}{figures.processes:>6}{figures.finished:>10}{figures.tables_per_minute:>12.1f}"
            f"{figures.p50_ms:>9.1f}{figures.p95_ms:>9.1f}{figures.answers:>9}{figures.mb_per_table:>10.2f}"
            f"{figures.server_cpu_per_table:>13.2f}{figures.client_cpu_per_table:>12.2f}"
            f"{figures.frames_per_table:>8.0f}{figures.load[0]:>6.1f}→{figures.load[1]:<5.1f}"
        )
        print(
            "    an answer's time (p50/p95 ms): "
            + ", ".join(f"{name} {p50:.1f}/{p95:.1f}" for name, p50, p95 in figures.phases)
        )
        for error in figures.errors:
            print(f"    error: {error}")


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
    tables = commands.add_parser("tables", help="whole tables played over HTTP")
    tables.add_argument("--tables", type=int, default=100)
    tables.add_argument(
        "--databases", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"]
    )
    tables.add_argument("--processes", nargs="+", type=int, default=[1, 2])
    arguments = parser.parse_args(argv)
    # The scripted players are a hundred threads of this process: each answer's reply wakes
    # one of them, which waited up to the 5 ms switch interval for the interpreter lock
    # behind the others reading their event streams (several times a request). That is the
    # client's delay, not the server's: it is made as small as gm serve makes its own.
    sys.setswitchinterval(0.0001)
    if arguments.command == "store":
        bench_store(arguments.appends, arguments.threads, arguments.rounds)
    else:
        bench_tables(arguments.tables, arguments.databases, arguments.processes)


if __name__ == "__main__":
    main()
