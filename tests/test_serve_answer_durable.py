"""An answer acknowledged is an answer stored: a process killed with ``kill -9`` the moment
P1's answer was acknowledged leaves it in the SQLite store, and the table resumed from the
store takes it.

The answer goes to the store's writer thread, which commits every waiting write in one
transaction (group commit) and calls the web back after that commit. In the child process
below every commit of the writer waits half a second before it runs, from the moment the
question is asked: an acknowledgement sent before its commit reached the disk would be
read by this test, and the process killed, while the commit still waits, and the answer
would be missing from the store.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from gm_engine.serve.store_sqlite import SQLiteTableStore
from gm_engine.serve.tables import PENDING_ANSWER, KeptAnswer, TableRuntime
from tests.test_serve_tables import _inputs, wait_question

ROOT = Path(__file__).resolve().parent.parent

# The child: a runtime on SQLite whose writer's commits are slowed once the question is asked;
# the session's one run slot is held (the session cannot take the answer and record it), the
# answer is accepted as the web's event loop accepts it, and the acknowledgement is printed.
CHILD = """
import asyncio, json, sys, threading, time
from gm_engine.serve.store_sqlite import SQLiteTableStore
from gm_engine.serve.tables import TableRuntime, WerewolfTableConfig
from gm_engine.serve.turns import TurnTaker
from tests.test_serve_tables import simple_answer, wait_question

store = SQLiteTableStore(sys.argv[1])
slow = threading.Event()

def before_statement(statement):
    if slow.is_set() and statement == "COMMIT":
        time.sleep(0.5)

store._writer_db.set_trace_callback(before_statement)
taker = TurnTaker(slots=1, slice_seconds=3600)
runtime = TableRuntime(
    store, holder="killed", seeds=lambda: 5, turns=taker, lease_seconds=1.0, tick_seconds=0.5
)
created = runtime.create_table(WerewolfTableConfig(role=3))
live = runtime.live(created.table_id)
question = wait_question(live)["question"]
here = taker.turn()
taker.checkpoint(here)
text = simple_answer(question)
slow.set()

async def answer():
    done = await live.accept_soon(text)
    print(json.dumps({"table_id": created.table_id, "text": text, "status": done.status}), flush=True)
    await asyncio.sleep(3600)

asyncio.run(answer())
"""


def test_an_acknowledged_answer_is_in_the_store_after_a_kill(tmp_path: Path) -> None:
    """Killed at the acknowledgement: the answer is the table's pending answer in the store,
    and a runtime started on the store takes it at that question instead of asking again."""
    database = tmp_path / "tables.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(database)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 180)
        assert ready, "the child acknowledged no answer"
        acknowledged = json.loads(child.stdout.readline())
        os.kill(child.pid, signal.SIGKILL)  # at once: the next slowed commit has not run
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(30)
    assert acknowledged["status"] == "recorded"
    table_id = acknowledged["table_id"]
    store = SQLiteTableStore(database)
    runtime: TableRuntime | None = None
    try:
        pending = store.get_secret(table_id, PENDING_ANSWER)
        assert pending is not None, "an acknowledged answer was lost"
        kept = KeptAnswer.from_bytes(pending)
        assert kept is not None and kept.text == acknowledged["text"]
        answered = _inputs(store, table_id)
        runtime = TableRuntime(store, holder="resumed", lease_seconds=0.4, tick_seconds=0.2)
        deadline = time.monotonic() + 60
        while runtime.live(table_id) is None and time.monotonic() < deadline:
            runtime.tick()  # the killed holder's lease runs out, then this one claims it
            time.sleep(0.1)
        live = runtime.live(table_id)
        assert live is not None
        wait_question(live)
        assert _inputs(store, table_id) == answered + 1  # taken, not asked again
    finally:
        if runtime is not None:
            runtime.close()
        store.close()


def test_a_queued_secret_is_kept_or_refused_and_its_caller_told_once(tmp_path: Path) -> None:
    """``put_secret_then``: a bad argument is refused at once (no callback); a secret of an
    unknown table, or under a lease its holder does not hold, is refused through the
    callback, nothing kept; a good one is readable by the time its callback runs."""
    import threading

    from gm_engine.serve.store import LeaseLost, StoreError

    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    try:
        store.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
        told: list[tuple[BaseException | None, bytes | None]] = []
        called = threading.Event()

        def then(error: BaseException | None) -> None:
            told.append((error, store.get_secret("t1", "answer")))
            called.set()

        bad: list[tuple[str, str, object]] = [("t1", "", b"x"), ("t1", "a", "text"), ("t\x00", "a", b"x")]
        for table_id, name, value in bad:
            try:
                store.put_secret_then(table_id, name, value, then, holder="a")  # type: ignore[arg-type]
            except StoreError:
                pass
            else:
                raise AssertionError(f"{(table_id, name, value)!r} was taken")
        store.put_secret_then("nope", "answer", b"x", then, holder="a")
        assert called.wait(30)
        assert isinstance(told[0][0], StoreError) and store.get_secret("nope", "answer") is None
        called.clear()
        store.put_secret_then("t1", "answer", b"b's", then, holder="b")  # not b's lease
        assert called.wait(30)
        assert isinstance(told[1][0], LeaseLost) and told[1][1] is None
        called.clear()
        store.put_secret_then("t1", "answer", "答え".encode(), then, holder="a")
        assert called.wait(30)
        assert told[2] == (None, "答え".encode())  # committed before the caller was told
        assert len(told) == 3
    finally:
        store.close()
