"""Figures of ``gm serve``, SQLite against PostgreSQL, one server process against two,
printed side by side.

    .venv/bin/python benchmarks/bench_serve.py tables [--tables 100] [--databases sqlite postgres]
                                                      [--processes 1 2] [--rounds 1] [--seed 1]
    .venv/bin/python benchmarks/bench_serve.py store [--appends 400] [--threads 8]

``tables``: ``--tables`` werewolf tables at once (offline personas; P1 the seer), each
played by a scripted P1 (tests/serve_client.py's player) over HTTP: it follows the seat's
server-sent events and posts an answer whenever a question is asked. One or two
``gm serve`` processes on one database (with two, the tables are opened on each in turn,
and each drives those it opened). Every configuration plays the same games: the servers
are given ``gm serve --seed`` so that the tables' seeds are ``--seed`` … ``--seed`` +
tables - 1 however many processes open them (two processes: odd seeds on one, even on the
other); ``--fresh-seeds`` for a server without that option. Printed: tables finished per
minute (wall clock, from the first table opened to the last finished), the p50/p95
latency of a human action (an
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

Under each configuration, where its time and processor went: the load average as it began,
when the last table was opened, the first ended and each server's last ended (the run
waits for the slower server); the CPU seconds (user/system) of each server, of the
database server (PostgreSQL: its postmaster and every backend, ended ones included) and
of the benchmark, per table; and the share of the machine's cores the run got. Then one
process against two, round by round (``--rounds`` alternates the configurations): tables
a minute, CPU seconds a table, and the *ceiling*, the tables a minute those CPU figures
allow with every core free (one server process runs Python on one core at a time). On a
machine shared with other work the wall clock follows the share the run got; the CPU a
table and the ceiling do not.

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
from tests.postgres_server import (  # noqa: E402
    PostgresServer,
    find_binaries,
    missing_server_user,
    running_server,
)
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
    server: int = 0
    """Which of the servers drove it (the one it was opened on)."""
    opened_at: float = 0.0
    ended_at: float = 0.0
    """``time.perf_counter()`` when its creation was answered, and when its last view came."""


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
    return sum(_user_system_seconds(pid))


def _user_system_seconds(pid: int, *, with_children: bool = False) -> tuple[float, float]:
    """A process's CPU seconds in user and system mode (with its reaped children's when asked:
    PostgreSQL's postmaster reaps every backend that has ended)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    user, system = int(fields[11]), int(fields[12])
    if with_children:
        user, system = user + int(fields[13]), system + int(fields[14])
    tick = os.sysconf("SC_CLK_TCK")
    return user / tick, system / tick


def _postgres_seconds(server: PostgresServer) -> tuple[float, float]:
    """The CPU seconds (user, system) of the PostgreSQL server: its postmaster, every backend
    that ended (reaped by it) and every one still running."""
    postmaster = int((server.directory / "data" / "postmaster.pid").read_text().split()[0])
    user, system = _user_system_seconds(postmaster, with_children=True)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            with open(entry / "stat", encoding="ascii") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            if parent == postmaster:
                child_user, child_system = _user_system_seconds(int(entry.name))
                user, system = user + child_user, system + child_system
        except (OSError, ValueError, IndexError):  # it ended meanwhile: the postmaster counts it
            continue
    return user, system


def _machine_seconds() -> tuple[float, float, float]:
    """The whole machine's CPU seconds since boot, summed over its cores: busy (every process's,
    this benchmark's and everyone else's), idle (with I/O wait) and stolen by the hypervisor."""
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(value) for value in stat.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (values + [0] * 8)[:8]
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, (idle + iowait) / tick, steal / tick


@dataclass(frozen=True)
class WorkFigures:
    """Where one run's time and processor went: what says whether two server processes did
    more work than one, or only the same work spread differently."""

    load_average: float
    """The machine's one-minute load average as the run began (other users' work in it)."""
    wall: float
    """Seconds from the first table opened to the last finished."""
    opening: float
    """Seconds until the last table's creation was answered."""
    first_end: float
    """Seconds until the first table finished."""
    server_ends: tuple[float, ...]
    """Each server's last finished table, in seconds from the start (the run waits for the last)."""
    server_tables: tuple[int, ...]
    """How many finished tables each server drove."""
    server_cpu: tuple[tuple[float, float], ...]
    """Each server's CPU seconds, user and system."""
    database_cpu: tuple[float, float] | None
    """The database server's CPU seconds (PostgreSQL: its backends), user and system; None for SQLite."""
    client_cpu: tuple[float, float]
    """This benchmark's CPU seconds (the scripted players), user and system."""
    machine_busy: float
    machine_idle: float
    machine_steal: float
    """The whole machine's CPU seconds over the run, summed over its cores: busy (anyone's),
    idle and stolen by the hypervisor."""


    def ours(self) -> float:
        """The run's CPU seconds: the servers', the database's and the benchmark's."""
        return sum(map(sum, self.server_cpu)) + sum(self.database_cpu or ()) + sum(self.client_cpu)

    def ceiling(self, finished: int, cores: int) -> float:
        """Tables a minute that the run's processor figures allow on ``cores`` cores with
        nothing else running: the run needs its CPU seconds spread over the cores, and each
        server at least its own CPU seconds of wall (a server runs Python on one core at a
        time: one run slot, one interpreter lock)."""
        busiest = max((user + system for user, system in self.server_cpu), default=0.0)
        needed = max(self.ours() / cores, busiest)
        return 60 * finished / needed if needed > 0 else float("nan")


LOGGED = {
    "log_lock_waits": "on",
    "deadlock_timeout": "5ms",
    "log_min_duration_statement": "20",
    "log_checkpoints": "on",
    "log_autovacuum_min_duration": "0",
}
"""What the benchmark's PostgreSQL logs (:class:`DatabaseLog` counts it): every lock waited
for over 5 ms (``deadlock_timeout`` is when the wait is logged; a real deadlock among these
statements cannot happen, each locks one table's row), every statement over 20 ms of the
server's own time, checkpoints and autovacuum runs."""

#: The store's statements, told apart by a piece of their text (the first that matches).
_STATEMENT_KINDS = (
    ("gm_append_lines_v2", "append"),
    ("INSERT INTO table_secrets", "secret"),
    ("table_id = ANY(", "renew"),
    ("WHERE status = 'running' AND", "claim"),
    ("lease_holder = NULL", "release"),
    ("SET lease_holder", "take"),
    ("SET status", "status"),
    ("SELECT lease_holder", "holder"),
    ("FROM table_lines", "read lines"),
    ("INSERT INTO game_tables", "create"),
    ("INSERT INTO seats", "seat"),
    ("FROM seats", "find seat"),
    ("FROM table_secrets", "read secret"),
    ("FROM game_tables", "read table"),
)


def _statement_kind(text: str) -> str:
    return next((kind for piece, kind in _STATEMENT_KINDS if piece in text), "other")


class DatabaseLog:
    """What PostgreSQL logged (see :data:`LOGGED`) from its creation to :meth:`summary`."""

    def __init__(self, server: PostgresServer) -> None:
        self.path = server.log
        self.start = self.path.stat().st_size if self.path.exists() else 0

    def summary(self) -> str:
        """Lock waits and slow statements by statement, checkpoints and autovacuum runs."""
        with open(self.path, encoding="utf-8", errors="replace") as log:
            log.seek(self.start)
            lines = log.read().splitlines()
        waits: dict[str, int] = {}
        slow: dict[str, list[float]] = {}
        checkpoints = vacuums = 0
        for number, line in enumerate(lines):
            if "still waiting for" in line:
                after = lines[number + 1 : number + 6]
                statement = next((later for later in after if "STATEMENT:" in later), "")
                kind = _statement_kind(statement)
                waits[kind] = waits.get(kind, 0) + 1
            elif "LOG:  duration: " in line:
                milliseconds = float(line.split("duration: ", 1)[1].split(" ", 1)[0])
                slow.setdefault(_statement_kind(line), []).append(milliseconds)
            elif "checkpoint starting" in line:
                checkpoints += 1
            elif "automatic vacuum" in line or "automatic analyze" in line:
                vacuums += 1
        waited = ", ".join(f"{kind} {count}" for kind, count in sorted(waits.items())) or "none"
        over = (
            ", ".join(
                f"{kind} {len(values)} (max {max(values):.0f} ms)" for kind, values in sorted(slow.items())
            )
            or "none"
        )
        return (
            f"lock waits over 5 ms: {waited}; statements over 20 ms (server time): {over};"
            f" checkpoints {checkpoints}, autovacuum/analyze {vacuums}"
        )


class WorkMeter:
    """Reads the processor counters of the servers, the database and the machine at the start
    of a run and again at its end (see :class:`WorkFigures`)."""

    def __init__(self, pids: list[int], database: PostgresServer | None) -> None:
        self.pids = pids
        self.database = database
        self.load_average = os.getloadavg()[0]
        self.servers = [_user_system_seconds(pid) for pid in pids]
        self.database_before = None if database is None else _postgres_seconds(database)
        self.machine = _machine_seconds()
        times = os.times()
        self.client = (times.user, times.system)
        self.started = time.perf_counter()

    def figures(self, runs: list[TableRun]) -> WorkFigures:
        """The run's figures, read now (call it once every table ended)."""
        wall = time.perf_counter() - self.started
        servers = [_user_system_seconds(pid) for pid in self.pids]
        machine = _machine_seconds()
        times = os.times()
        database = None
        if self.database is not None and self.database_before is not None:
            user, system = _postgres_seconds(self.database)
            database = (user - self.database_before[0], system - self.database_before[1])
        finished = [run for run in runs if run.finished]
        ends = [run.ended_at - self.started for run in finished]
        return WorkFigures(
            load_average=self.load_average,
            wall=wall,
            opening=max((run.opened_at - self.started for run in runs), default=0.0),
            first_end=min(ends, default=wall),
            server_ends=tuple(
                max((run.ended_at - self.started for run in finished if run.server == number), default=0.0)
                for number in range(len(self.pids))
            ),
            server_tables=tuple(
                sum(run.server == number for run in finished) for number in range(len(self.pids))
            ),
            server_cpu=tuple(
                (after[0] - before[0], after[1] - before[1])
                for before, after in zip(self.servers, servers, strict=True)
            ),
            database_cpu=database,
            client_cpu=(times.user - self.client[0], times.system - self.client[1]),
            machine_busy=machine[0] - self.machine[0],
            machine_idle=machine[1] - self.machine[1],
            machine_steal=machine[2] - self.machine[2],
        )


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
    work: WorkFigures | None = None
    database_log: str | None = None
    """What PostgreSQL logged over the run (:meth:`DatabaseLog.summary`); None for SQLite."""
    """Where the run's time and processor went (the two-process comparison)."""


def run_tables(
    database: str,
    label: str,
    processes: int,
    tables: int,
    log_dir: Path,
    postgres: PostgresServer | None = None,
    seed: int | None = None,
    pass_on: bool = False,
) -> TablesFigures:
    """Open ``tables`` tables on ``processes`` servers sharing ``database`` (served by
    ``postgres`` when it is PostgreSQL's) and play them all: with ``seed``, the tables' seeds
    are ``seed`` … ``seed + tables - 1`` however many processes open them (the same games);
    with ``pass_on``, half the tables are played through a server that does not drive them,
    which passes their requests on (as behind a load balancer that knows nothing of tables)."""
    servers: list[ServeProcess] = []
    load_before = os.getloadavg()[0]
    try:
        for number in range(processes):
            seeds = [] if seed is None else ["--seed", str(seed + number), "--seed-step", str(processes)]
            servers.append(
                start_serve(database, log_dir / f"{label}-{processes}-{number}.log", options=seeds)
            )
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
        meter = WorkMeter(pids, postgres)
        database_log = None if postgres is None else DatabaseLog(postgres)
        started = time.perf_counter()
        client_cpu_before = time.process_time()
        deadline = time.monotonic() + 3600
        runs: list[TableRun] = []
        lock = threading.Lock()

        def play(number: int) -> None:
            client = servers[number % processes].client
            # passed on: every other table of a server is played through the next server
            player = servers[(number + number // processes) % processes].client if pass_on else client
            opened = time.perf_counter()
            try:
                seat = client.create_table(dict(TABLE_CONFIG))
                opened = time.perf_counter()
                run = _follow(player, seat, deadline)
            except Exception as failure:  # counted and shown, not raised: the other tables go on
                run = TableRun([], False, f"{type(failure).__name__}: {failure}"[:200])
            run.server, run.opened_at, run.ended_at = number % processes, opened, time.perf_counter()
            with lock:
                runs.append(run)

        players = [threading.Thread(target=play, args=(number,)) for number in range(tables)]
        for player in players:
            player.start()
        for player in players:
            player.join()
        wall = time.perf_counter() - started
        work = meter.figures(runs)
        logged = None if database_log is None else database_log.summary()
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
        work=work,
        database_log=logged,
        load=(load_before, os.getloadavg()[0]),
    )


def bench_tables(
    tables: int,
    databases: list[str],
    processes: list[int],
    seed: int | None = 1,
    rounds: int = 1,
    pass_on: bool = False,
) -> None:
    """Print the figures of every (database, processes) pair, side by side: ``rounds`` times,
    alternating, so that every configuration sees the same moments of the machine's load."""
    results: list[TablesFigures] = []
    with tempfile.TemporaryDirectory(prefix="gm-bench-serve-") as scratch, ExitStack() as stack:
        directory = Path(scratch)
        targets: dict[str, Callable[[], str]] = {}
        postgres: PostgresServer | None = None
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
                postgres = stack.enter_context(running_server(binaries, fsync=True, settings=LOGGED))
                targets["PostgreSQL"] = postgres.create_database
        for round_number in range(rounds):
            for label, target in targets.items():
                for count in processes:
                    served_by = postgres if label == "PostgreSQL" else None
                    figures = run_tables(target(), label, count, tables, directory, served_by, seed, pass_on)
                    results.append(figures)
                    print(
                        f"  done: round {round_number + 1}, {label}, {count} process(es):"
                        f" {figures.finished}/{tables} finished, load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
    print(f"{tables} werewolf tables at once, offline personas, a scripted P1 over HTTP (SSE + POST)")
    if pass_on:
        print("with several servers, half the tables are played through one that passes their requests on")
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
        if figures.work is not None:
            _print_work(figures.work, figures.finished)
        if figures.database_log is not None:
            print(f"    PostgreSQL: {figures.database_log}")
    _print_processes(results, seed)


def _print_work(work: WorkFigures, finished: int) -> None:
    """Where one run's time and processor went, under its figures line."""
    servers = " + ".join(f"{user:.1f}u/{system:.1f}s" for user, system in work.server_cpu)
    database = "-"
    if work.database_cpu is not None:
        database = f"{work.database_cpu[0]:.1f}u/{work.database_cpu[1]:.1f}s"
    total = max(work.machine_busy + work.machine_idle + work.machine_steal, 1e-9)
    ends = "/".join(f"{end:.1f}" for end in work.server_ends)
    split = "/".join(str(count) for count in work.server_tables)
    print(
        f"    load {work.load_average:.1f} at the start; wall {work.wall:.1f} s: all opened by"
        f" {work.opening:.1f} s, first end {work.first_end:.1f} s, last end of each server {ends} s"
        f" (tables {split})"
    )
    print(
        f"    CPU s: servers {servers}, database {database}, client {work.client_cpu[0]:.1f}u/"
        f"{work.client_cpu[1]:.1f}s; all {work.ours():.1f} s = {work.ours() / max(1, finished):.2f} s/table;"
        f" the machine was {work.machine_busy / total:.0%} busy, {work.ours() / total:.0%} of it this run,"
        f" {work.machine_steal / total:.0%} stolen"
    )


def _print_processes(results: list[TablesFigures], seed: int | None) -> None:
    """One process against more, round by round: wall clock, CPU per table and the ceiling."""
    cores = os.cpu_count() or 1
    for database in dict.fromkeys(figures.database for figures in results):
        mine = [figures for figures in results if figures.database == database and figures.work is not None]
        ones = [figures for figures in mine if figures.processes == 1]
        others = sorted({figures.processes for figures in mine} - {1})
        if not ones or not others:
            continue
        games = (
            f"the same games in every run (seeds {seed}..{seed + ones[0].tables - 1})"
            if seed is not None
            else "other games in every run (fresh seeds: the runs do not compare exactly)"
        )
        against = ", ".join(map(str, others))
        print(f"\n{database}: one server process against {against}, round by round, {games}")
        for count in others:
            runs = [figures for figures in mine if figures.processes == count]
            wall_wins = cpu_wins = 0
            for number, (one, more) in enumerate(zip(ones, runs, strict=False), start=1):
                assert one.work is not None and more.work is not None
                one_cpu = one.work.ours() / max(1, one.finished)
                more_cpu = more.work.ours() / max(1, more.finished)
                wall_wins += more.tables_per_minute >= one.tables_per_minute
                cpu_wins += more_cpu <= one_cpu * 1.02
                print(
                    f"  round {number} (load {one.work.load_average:.1f}/{more.work.load_average:.1f}):"
                    f" tables/min {one.tables_per_minute:.1f} -> {more.tables_per_minute:.1f}"
                    f" (x{more.tables_per_minute / max(one.tables_per_minute, 1e-9):.2f});"
                    f" CPU s/table {one_cpu:.2f} -> {more_cpu:.2f} (x{more_cpu / max(one_cpu, 1e-9):.2f});"
                    f" ceiling on {cores} cores {one.work.ceiling(one.finished, cores):.0f}"
                    f" -> {more.work.ceiling(more.finished, cores):.0f} tables/min;"
                    f" share of the machine {_share(one.work):.0%} -> {_share(more.work):.0%}"
                )
            rounds = min(len(ones), len(runs))
            print(
                f"  {count} processes >= one in {wall_wins} of {rounds} rounds by tables/min, and spend"
                f" no more CPU a table (within 2%) in {cpu_wins} of {rounds}"
            )
    print(
        "  tables/min is the wall clock from the first table opened to the last finished. On a shared"
        " machine it follows the share of the cores the run got (the share column) more than the"
        " server: compare it in rounds whose load was low. CPU s/table (servers, database and"
        " client) says whether more processes do more work for the same games. The ceiling is"
        " what those CPU figures allow with every core free: a server process runs Python on one"
        " core at a time, so one process is bound by its own CPU seconds, more by all of them"
        " spread over the cores."
    )


def _share(work: WorkFigures) -> float:
    total = work.machine_busy + work.machine_idle + work.machine_steal
    return work.ours() / total if total > 0 else float("nan")


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
    tables.add_argument(
        "--seed",
        type=int,
        default=1,
        help="the tables' seeds are SEED, SEED+1, …: every configuration plays the same games (default 1)",
    )
    tables.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every configuration this many times, alternating (default 1)",
    )
    tables.add_argument(
        "--pass-on",
        action="store_true",
        help="with several servers, play half the tables through a server that does not drive them"
        " (their requests are passed on, as behind a load balancer that knows nothing of tables)",
    )
    tables.add_argument(
        "--fresh-seeds",
        action="store_true",
        help="fresh entropy for each table (a server without gm serve --seed: another checkout's)",
    )
    arguments = parser.parse_args(argv)
    # The scripted players are a hundred threads of this process: each answer's reply wakes
    # one of them, which waited up to the 5 ms switch interval for the interpreter lock
    # behind the others reading their event streams (several times a request). That is the
    # client's delay, not the server's: it is made as small as gm serve makes its own.
    sys.setswitchinterval(0.0001)
    if arguments.command == "store":
        bench_store(arguments.appends, arguments.threads, arguments.rounds)
    else:
        seed = None if arguments.fresh_seeds else arguments.seed
        bench_tables(
            arguments.tables,
            arguments.databases,
            arguments.processes,
            seed,
            arguments.rounds,
            arguments.pass_on,
        )


if __name__ == "__main__":
    main()
