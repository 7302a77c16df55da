"""A finished table's last screen seen through a process that did not finish it: a server
started again on the same SQLite file, a process whose lease on the table ran out, and a
second ``gm serve`` process on one PostgreSQL. Each rebuilds the screen from the store (the
whole record, the final role list, the outcome) for every seat token of the table, streams
it, lists the table among the lobby's finished ones, and serves the same transcript."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gm_engine.serve.finished import UNREPLAYABLE, FinishedTables, rebuild_screen
from gm_engine.serve.store import TableStore
from gm_engine.serve.store_open import open_store
from gm_engine.serve.store_sqlite import SQLiteTableStore
from gm_engine.serve.tables import TableRuntime, token_digest
from gm_engine.transcripts.format import dumps
from tests.forge_chain import opened, written
from tests.memory_store import MemoryStore
from tests.postgres_server import PostgresServer
from tests.serve_client import ServeClient, TableSeat
from tests.serve_process import ServeProcess, start_serve
from tests.serve_server import running_server
from tests.test_serve_restart import CONFIG, WAIT
from tests.test_serve_tables import fixed_seeds

#: A short adventure: the hero is made and turns the elder down (the 「通りすがりの旅人」 ending).
DECLINED = ["アリア", "英雄", "おまかせ", "依頼を断って村を去る"]


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def screen(view: dict[str, Any]) -> dict[str, Any]:
    """What a seat sees of a finished table (not its counters). The model-usage report an
    adventure shows at its end holds the latency its calls took, which the rebuild measures
    anew: that figure is left out."""
    seen = {key: view[key] for key in ("status", "message", "panel", "question", "title", "kind")}
    latency = r"latency [0-9.]+ s \(mean [0-9.]+ s\)|応答時間 [0-9.]+ 秒（平均 [0-9.]+ 秒）"
    seen["lines"] = [re.sub(latency, "latency …", line) for line in view["lines"]]
    return seen


def first_event(base: str, table_id: str, token: str) -> dict[str, Any]:
    """The first message of the table's event stream at ``base``."""
    request = urllib.request.Request(f"{base}/api/tables/{table_id}/events")
    request.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        for raw in response:
            line = raw.decode("utf-8").strip()
            if line.startswith("data: "):
                event: dict[str, Any] = json.loads(line[len("data: ") :])
                return event
    raise AssertionError("the stream ended without a message")


def play_adventure(url: str) -> tuple[str, str, dict[str, Any], bytes]:
    """Open an adventure at ``url`` and play :data:`DECLINED` to its end over HTTP; the table,
    P1's token, the final view and the transcript."""
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        created = client.post("/api/tables", json={"config": {"kind": "adventure", "title": "旅"}}).json()
        table_id, token = created["table_id"], created["token"]
        for line in DECLINED:
            deadline = time.monotonic() + WAIT
            while (view := client.get(f"/api/tables/{table_id}/view", headers=bearer(token)).json())[
                "question"
            ] is None:
                assert time.monotonic() < deadline, view
                time.sleep(0.01)
            sent = client.post(f"/api/tables/{table_id}/answer", headers=bearer(token), json={"text": line})
            assert sent.status_code == 200, sent.text
        deadline = time.monotonic() + WAIT
        while (view := client.get(f"/api/tables/{table_id}/view", headers=bearer(token)).json())[
            "status"
        ] != "finished":
            assert time.monotonic() < deadline, view
            time.sleep(0.01)
        transcript = client.get(f"/api/tables/{table_id}/transcript", headers=bearer(token))
        assert transcript.status_code == 200
        return table_id, token, view, transcript.content


def check_finished_screen(
    url: str, table_id: str, tokens: list[str], final: dict[str, Any], data: bytes
) -> None:
    """Every token of the table gets the final screen at ``url``, by view and by stream; the
    lobby lists the table as finished with its outcome; the transcript is the same."""
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        for token in tokens:
            view = client.get(f"/api/tables/{table_id}/view", headers=bearer(token))
            assert view.status_code == 200, view.text
            assert screen(view.json()) == screen(final)
            assert screen(first_event(url, table_id, token)) == screen(final)
            transcript = client.get(f"/api/tables/{table_id}/transcript", headers=bearer(token))
            assert transcript.content == data
            refused = client.post(
                f"/api/tables/{table_id}/answer", headers=bearer(token), json={"text": "次へ"}
            )
            assert refused.json() == {"error": "このゲームは終了しました。入力は受け付けていません。"}
            assert refused.status_code == 409
        stranger = client.get(f"/api/tables/{table_id}/view", headers=bearer("not-a-token"))
        assert stranger.status_code == 403 and "招待のリンク" in stranger.json()["error"]
        lobby = client.get("/api/tables").json()
        assert table_id not in {t["table_id"] for t in lobby["tables"]}
        listed = {t["table_id"]: t for t in lobby["finished"]}
        assert listed[table_id]["summary"] == final["message"]


def test_a_server_started_again_on_sqlite_shows_a_finished_adventures_last_screen(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    store = SQLiteTableStore(path)
    with running_server(TableRuntime(store, seeds=fixed_seeds(3))) as url:
        table_id, token, final, data = play_adventure(url)
    store.close()
    assert final["message"] == "通りすがりの旅人" and final["panel"]["party"][0]["name"] == "アリア"
    assert any("あなたは村を後にした" in line for line in final["lines"])

    again = SQLiteTableStore(path)
    # a second seat of the table (as a spectator's or an agent's token would be): the same screen
    again.add_seat(table_id, 2, token_digest("second-seat-token"))
    try:
        with running_server(TableRuntime(again)) as url:
            check_finished_screen(url, table_id, [token, "second-seat-token"], final, data)
    finally:
        again.close()


def test_a_process_whose_lease_on_the_finished_table_ran_out_rebuilds_its_screen() -> None:
    store = MemoryStore()
    short = 0.5  # the lease of the finished table runs out soon
    # renewed often while the game runs, so that it is not taken over before its end
    tick = short / 5
    holder = TableRuntime(
        store, seeds=fixed_seeds(3), lease_seconds=short, tick_seconds=tick, holder="holder"
    )
    other = TableRuntime(store, lease_seconds=short, tick_seconds=tick, holder="other")
    with running_server(holder) as holder_url, running_server(other) as other_url:
        table_id, token, final, data = play_adventure(holder_url)
        deadline = time.monotonic() + WAIT
        while store.lease_holder(table_id) is not None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert other.live(table_id) is None  # nothing of it in the other process's memory
        check_finished_screen(other_url, table_id, [token], final, data)


def test_lines_that_no_longer_replay_give_a_screen_that_says_so(tmp_path: Path) -> None:
    store = MemoryStore()
    with running_server(TableRuntime(store, seeds=fixed_seeds(3))) as url:
        table_id, _token, final, _data = play_adventure(url)
    row = store.get_table(table_id)
    assert row is not None
    lines = store.read_lines(table_id)
    assert screen(rebuild_screen(row, lines).view()) == screen(final)
    # one recorded answer of P1 changed (in its sealed chunk, opened with the key the end line
    # reveals, sealed again): the replay no longer matches, the end is still known
    copy = tmp_path / "lines.jsonl"
    copy.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    objs = [json.loads(dumps(obj).replace("依頼を断って村を去る", "長老と話す")) for obj in opened(copy)]
    broken = written(objs).decode("utf-8").splitlines()
    assert broken != lines
    rebuilt = rebuild_screen(row, broken).view()
    assert rebuilt["status"] == "finished" and rebuilt["lines"] == []
    assert rebuilt["message"].startswith(UNREPLAYABLE)
    assert FinishedTables(store).summary(table_id) == "通りすがりの旅人"


@pytest.fixture
def servers() -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    yield started
    for server in started:
        server.kill()


def test_a_second_process_on_postgresql_shows_a_finished_werewolf_games_last_screen(
    postgres_server: PostgresServer, servers: list[ServeProcess], tmp_path: Path
) -> None:
    database = postgres_server.create_database()
    left = start_serve(database, tmp_path / "left.log")
    right = start_serve(database, tmp_path / "right.log")
    servers.extend([left, right])
    seat = left.client.create_table(CONFIG)
    final = seat.play(left.client, timeout=WAIT)
    assert final["status"] == "finished", final["message"]
    final = {**final, "lines": list(seat.lines)}
    assert any(line.startswith("【ゲーム終了】") for line in seat.lines)
    assert any("最終役職一覧" in line for line in seat.lines)
    status, data = left.client.request("GET", f"/api/tables/{seat.table_id}/transcript", token=seat.token)
    assert status == 200
    store: TableStore = open_store(database)
    try:
        deadline = time.monotonic() + WAIT
        while store.lease_holder(seat.table_id) is not None:  # the finished table's lease runs out
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        store.close()
    left.kill()  # nothing of the game is left in any process's memory
    check_finished_screen(right.client.base, seat.table_id, [seat.token], final, data)
    # and through the scripted client, as a player coming back would read it
    again = TableSeat(table_id=seat.table_id, token=seat.token)
    view = again.view(ServeClient(right.client.base))
    assert view is not None and again.lines == seat.lines


def test_a_restarted_process_on_sqlite_shows_a_finished_werewolf_games_last_screen(
    servers: list[ServeProcess], tmp_path: Path
) -> None:
    database = str(tmp_path / "tables.sqlite3")
    first = start_serve(database, tmp_path / "first.log")
    servers.append(first)
    seat = first.client.create_table(CONFIG)
    final = seat.play(first.client, timeout=WAIT)
    assert final["status"] == "finished", final["message"]
    final = {**final, "lines": list(seat.lines)}
    status, data = first.client.request("GET", f"/api/tables/{seat.table_id}/transcript", token=seat.token)
    assert status == 200
    first.stop()  # Ctrl-C: the leases are given up
    second = start_serve(database, tmp_path / "second.log")
    servers.append(second)
    check_finished_screen(second.client.base, seat.table_id, [seat.token], final, data)
