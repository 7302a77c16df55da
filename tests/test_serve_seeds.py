"""``gm serve --seed N --seed-step STEP``: the tables' seeds are N, N + STEP, … (the benchmark
plays the same games on one process and on two), instead of fresh entropy."""

from __future__ import annotations

import threading
from pathlib import Path

from gm_engine.cli.serve import seed_sequence
from gm_engine.serve.store_sqlite import SQLiteTableStore
from tests.serve_process import start_serve


def test_a_seed_sequence_gives_each_seed_once_from_any_thread() -> None:
    draw = seed_sequence(7, 3)
    drawn: list[int] = []
    lock = threading.Lock()

    def take() -> None:
        for _ in range(200):
            seed = draw()
            with lock:
                drawn.append(seed)

    workers = [threading.Thread(target=take) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(drawn) == list(range(7, 7 + 3 * 800, 3))


def test_two_servers_given_interleaved_seeds_open_the_tables_of_one(tmp_path: Path) -> None:
    database = str(tmp_path / "tables.sqlite3")
    servers = [
        start_serve(
            database,
            tmp_path / f"serve-{number}.log",
            options=["--seed", str(5 + number), "--seed-step", "2"],
        )
        for number in range(2)
    ]
    try:
        opened = [
            server.client.create_table({"kind": "werewolf", "role": 1}) for server in (*servers, *servers)
        ]
    finally:
        for server in servers:
            server.stop()
    store = SQLiteTableStore(database)
    try:
        seeds = [store.get_secret(seat.table_id, "seed") for seat in opened]
    finally:
        store.close()
    assert seeds == [b"5", b"6", b"7", b"8"]
