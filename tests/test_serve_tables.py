"""The table runtime of ``gm serve`` without the web: tables driven on their threads, P1 answered
through :class:`~gm_engine.serve.tables.LiveTable`, lines in the store before they are shown,
resumed by another runtime, leases taken over."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from gm_engine.llm.base import (
    BackendError,
    ConfigurationError,
    ModelRequest,
    ModelResponse,
    TransientBackendError,
)
from gm_engine.llm.offline import OfflineBackend
from gm_engine.serve.store import QueuedSecrets, TableRow, TableStore
from gm_engine.serve.store_sqlite import SQLiteTableStore
from gm_engine.serve.tables import (
    PENDING_ANSWER,
    AdventureTableConfig,
    LiveTable,
    TableError,
    TableRuntime,
    WerewolfTableConfig,
    parse_config,
    token_digest,
)
from gm_engine.serve.turns import Turn, TurnTaker
from gm_engine.transcripts.replay import replay_file
from gm_engine.transcripts.sealing import keys_dir
from tests.memory_store import MemoryStore
from tests.postgres_server import PostgresServer

WAIT = 60.0  # seconds a step may take on a loaded machine before the test gives up


def fixed_seeds(first: int = 1) -> Callable[[], int]:
    """Seeds 1, 2, 3, ... for the tables a test opens: the same games on every run."""
    return itertools.count(first).__next__


def wait_question(live: LiveTable) -> dict[str, object]:
    """The view once a question is asked (or the table stopped)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        view = live.view()
        if view["question"] is not None or view["status"] not in ("starting", "running"):
            return view
        time.sleep(0.005)
    raise AssertionError("no question came")


def simple_answer(question: dict[str, object]) -> str:
    """A plain player: the first choice offered, else a pass (its last button), else a greeting."""
    buttons = question["buttons"]
    assert isinstance(buttons, list)
    if not question["free_text"]:
        return str(buttons[0]["send"])
    if buttons:
        return str(buttons[-1]["send"])
    return "次へ"


def assert_replays(runtime: TableRuntime, table_id: str, path: Path) -> None:
    """The table's finished transcript, downloaded from ``runtime`` to ``path``, replays."""
    data = runtime.transcript(table_id)
    assert data is not None
    path.write_bytes(data)
    report = replay_file(path)
    assert report.ok, report.describe()


def play(live: LiveTable, answers: int = 10_000) -> dict[str, object]:
    """Answer up to ``answers`` questions as :func:`simple_answer` does; the last view."""
    for _ in range(answers):
        view = wait_question(live)
        if view["status"] != "running":
            return view
        question = view["question"]
        assert isinstance(question, dict)
        live.submit(simple_answer(question))
    return wait_question(live)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TableStore]:
    """The runtime's tests run on the in-memory store and on SQLite, gm serve's default."""
    if request.param == "memory":
        yield MemoryStore()
        return
    sqlite = SQLiteTableStore(tmp_path / "tables.sqlite3")
    try:
        yield sqlite
    finally:
        sqlite.close()


def test_a_werewolf_table_plays_to_its_end_and_its_transcript_replays(
    store: TableStore, tmp_path: Path
) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(WerewolfTableConfig(role=1, title="テスト卓"))
        live = runtime.live(created.table_id)
        assert live is not None
        assert runtime.transcript(created.table_id) is None  # nothing before the end
        view = play(live)
        assert view["status"] == "finished", view["message"]
        lines = view["lines"]
        assert isinstance(lines, list) and "【ゲーム終了】" in lines
        row = store.get_table(created.table_id)
        assert row is not None and row.status == "finished"
        assert_replays(runtime, created.table_id, tmp_path / "table.jsonl")
        # the seed and key are the store's secrets, never a key file in the data directory
        assert not keys_dir().exists() or not any(keys_dir().iterdir())
    finally:
        runtime.close()


def test_the_token_is_kept_only_as_its_digest(store: TableStore) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(WerewolfTableConfig(role=2))
        grant = runtime.seat_of(created.token)
        assert grant is not None and (grant.table_id, grant.seat) == (created.table_id, 1)
        assert store.find_seat(created.token) is None
        assert store.find_seat(token_digest(created.token)) == grant
        assert runtime.seat_of(created.token + "x") is None
        assert runtime.seat_of("") is None
    finally:
        runtime.close()


def test_a_refused_line_is_answered_in_japanese_and_changes_nothing(store: TableStore) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(WerewolfTableConfig(role=2))
        live = runtime.live(created.table_id)
        assert live is not None
        # up to P1's first discussion turn
        while True:
            view = wait_question(live)
            question = view["question"]
            assert isinstance(question, dict)
            if question["free_text"] and any(b["send"] == "/pass" for b in question["buttons"]):
                break
            live.submit(simple_answer(question))
        lines_before = len(store.read_lines(created.table_id))
        done = live.submit("/request 狩人")
        assert done.status == "asked"
        assert any(line.startswith("使い方: /request") for line in done.lines), done.lines
        # the line is recorded as typed (a replay asks the same), no game step is
        assert len(store.read_lines(created.table_id)) == lines_before + 1
        again = wait_question(live)
        assert again["question"] is not None
        with pytest.raises(TableError, match="終了コマンド"):
            live.submit("/quit")
        with pytest.raises(TableError, match="2000文字まで"):  # the rules' limit of a speech
            live.submit("あ" * 2001)
        with pytest.raises(TableError, match="読み取れない"):
            live.submit("\ud800")
        assert len(store.read_lines(created.table_id)) == lines_before + 1
        taken = live.submit("/pass")
        assert taken.status == "taken"
    finally:
        runtime.close()


def test_nothing_is_taken_while_no_question_is_asked() -> None:
    row = TableRow("t", "werewolf", "卓", "running", 0.0, "{}", 0)
    live = LiveTable(row, WerewolfTableConfig(), epoch=1)
    with pytest.raises(TableError, match="受け付けていません"):
        live.submit("/pass")
    live.started()
    with pytest.raises(TableError, match="受け付けていません"):
        live.submit("/pass")


def test_a_choice_question_takes_only_its_buttons(store: TableStore) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(WerewolfTableConfig())  # P1 chooses the role
        live = runtime.live(created.table_id)
        assert live is not None
        view = wait_question(live)
        question = view["question"]
        assert isinstance(question, dict)
        assert not question["free_text"]
        assert [b["send"] for b in question["buttons"]] == [str(n) for n in range(1, 7)]
        before = len(store.read_lines(created.table_id))
        with pytest.raises(TableError, match="選択肢"):
            live.submit("7")
        assert len(store.read_lines(created.table_id)) == before
        assert live.submit("3").status == "taken"
        panel = wait_question(live)["panel"]
        assert isinstance(panel, dict) and panel["role"] == "占い師"
    finally:
        runtime.close()


def test_bad_options_are_refused_before_a_table_exists(store: TableStore) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        with pytest.raises(TableError):
            runtime.create_table(WerewolfTableConfig(human_name="シセン"))  # a persona's name
        with pytest.raises(TableError, match="シナリオ"):
            runtime.create_table(AdventureTableConfig(scenario="no_such_place"))
        with pytest.raises(TableError, match="rules"):
            parse_config({"kind": "werewolf", "rules": {"rounds": -1}})
        with pytest.raises(TableError):
            parse_config({"kind": "poker"})
        assert store.list_tables() == []
    finally:
        runtime.close()


def test_another_runtime_resumes_a_table_where_it_stopped(store: TableStore, tmp_path: Path) -> None:
    first = TableRuntime(store, holder="first", seeds=fixed_seeds())
    created = first.create_table(WerewolfTableConfig(role=3))
    live = first.live(created.table_id)
    assert live is not None
    play(live, answers=3)
    before = wait_question(live)
    assert before["status"] == "running" and before["question"] is not None
    first.close()  # its lease is given up; the table stays running
    row = store.get_table(created.table_id)
    assert row is not None and row.status == "running"
    second = TableRuntime(store, holder="second")
    try:
        second.start()
        again = second.live(created.table_id)
        assert again is not None
        resumed = wait_question(again)
        # the replay showed P1 the same screen, and asks the same question
        assert resumed["lines"] == before["lines"]
        asked_then, asked_now = before["question"], resumed["question"]
        assert isinstance(asked_then, dict) and isinstance(asked_now, dict)
        assert (asked_now["prompt"], asked_now["buttons"]) == (asked_then["prompt"], asked_then["buttons"])
        end = play(again)
        assert end["status"] == "finished", end["message"]
        assert_replays(second, created.table_id, tmp_path / "resumed.jsonl")
    finally:
        second.close()


def test_a_table_whose_lease_was_taken_is_no_longer_driven(store: TableStore) -> None:
    first = TableRuntime(store, holder="first", lease_seconds=0.3, tick_seconds=0.1, seeds=fixed_seeds())
    created = first.create_table(WerewolfTableConfig(role=2))
    live = first.live(created.table_id)
    assert live is not None
    wait_question(live)
    time.sleep(0.4)  # the lease runs out (first never renews: it was not started)
    second = TableRuntime(store, holder="second")
    try:
        second.tick()
        taken = second.live(created.table_id)
        assert taken is not None
        first.tick()  # the renewal fails: first lets the table go
        assert live.view()["status"] == "stopped"
        assert first.live(created.table_id) is None
        assert wait_question(taken)["status"] == "running"
        assert play(taken)["status"] == "finished"
    finally:
        second.close()
        first.close()


@pytest.fixture(params=["sqlite", "postgres"])
def shared_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TableStore]:
    """A store that processes on one machine (SQLite) or several (PostgreSQL) share."""
    opened: TableStore
    if request.param == "sqlite":
        opened = SQLiteTableStore(tmp_path / "tables.sqlite3")
    else:
        # the server first: it skips the test where psycopg or PostgreSQL is missing
        server: PostgresServer = request.getfixturevalue("postgres_server")
        from gm_engine.serve.store_postgres import PostgresTableStore

        opened = PostgresTableStore(server.create_database())
    try:
        yield opened
    finally:
        opened.close()


def test_a_process_that_lost_the_lease_stores_no_answer_for_the_table(shared_store: TableStore) -> None:
    first = TableRuntime(
        shared_store, holder="first", lease_seconds=0.3, tick_seconds=0.1, seeds=fixed_seeds()
    )
    created = first.create_table(WerewolfTableConfig(role=2))
    live = first.live(created.table_id)
    assert live is not None
    question = wait_question(live)["question"]
    assert isinstance(question, dict)
    time.sleep(0.4)  # the lease runs out (first never renews: it was not started)
    second = TableRuntime(shared_store, holder="second")
    try:
        second.tick()
        taken = second.live(created.table_id)
        assert taken is not None
        assert wait_question(taken)["status"] == "running"
        # first has not ticked yet, so it still shows the question; P1's answer reaches it
        with pytest.raises(TableError) as refused:
            live.accept(simple_answer(question))
        assert "引き継ぎました" in refused.value.describe("ja")
        assert shared_store.get_secret(created.table_id, PENDING_ANSWER) is None
        assert play(taken)["status"] == "finished"
    finally:
        second.close()
        first.close()


def test_an_adventure_table_keeps_the_party_in_view(store: TableStore) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(AdventureTableConfig())
        live = runtime.live(created.table_id)
        assert live is not None
        for line in ("アリア", "英雄", "おまかせ"):
            wait_question(live)
            live.submit(line)
        view = wait_question(live)
        panel = view["panel"]
        assert isinstance(panel, dict) and panel["kind"] == "adventure"
        (hero,) = panel["party"]
        assert hero["name"] == "アリア" and hero["ap_dice"] == "4d6" and hero["hp"] == hero["max_hp"] == 30
    finally:
        runtime.close()


def test_a_table_on_an_openai_compatible_server_sends_its_key_there_only(store: TableStore) -> None:
    from gm_engine.llm.fakeserver import FakeChatServer

    with FakeChatServer.with_quirks() as server:
        runtime = TableRuntime(store, seeds=fixed_seeds(), model_servers=[server.base_url + "/"])
        try:
            config = WerewolfTableConfig(
                role=2, backend="openai", model="fake", base_url=server.base_url, narrator=False
            )
            created = runtime.create_table(config, api_key="k-table-secret")
            live = runtime.live(created.table_id)
            assert live is not None
            view = play(live, answers=2)
            assert view["status"] == "running", view["message"]
            assert server.requests, "no request reached the table's server"
            assert {r.headers.get("authorization") for r in server.requests} == {"Bearer k-table-secret"}
            row = store.get_table(created.table_id)
            assert row is not None and "k-table-secret" not in row.config_json
        finally:
            runtime.close()


class _FailingServer(OfflineBackend):
    """The offline model behind a failing server: its first ``times`` requests (every one
    when None) raise ``failure``; ``calls`` (shared by the backends a runtime makes for one
    table, one a drive) counts the requests that failed."""

    def __init__(self, failure: BackendError, calls: list[int], times: int | None = None) -> None:
        super().__init__()
        self.failure = failure
        self.calls = calls
        self.times = times

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        if self.times is None or len(self.calls) < self.times:
            self.calls.append(1)
            raise self.failure
        return await super().complete(request, context)


def test_a_table_whose_model_server_fails_says_so_and_goes_on_later(store: TableStore) -> None:
    failures: list[int] = []
    refused = TransientBackendError("connection refused (test)")
    runtime = TableRuntime(
        store,
        seeds=fixed_seeds(),
        retry_seconds=0.0,
        backend=lambda config, key: _FailingServer(refused, failures, times=3),  # 2 fallbacks, then the stop
    )
    try:
        created = runtime.create_table(WerewolfTableConfig(role=2))
        live = runtime.live(created.table_id)
        assert live is not None
        stopped = play(live)  # P1 may be asked between the failed turns
        assert stopped["status"] == "error"
        assert "connection refused (test)" in str(stopped["message"]) and "再開" in str(stopped["message"])
        row = store.get_table(created.table_id)
        assert row is not None and row.status == "running"  # resumable, not failed
        runtime.tick()  # due at once: resumed from the store's lines
        again = runtime.live(created.table_id)
        assert again is not None and again is not live
        assert play(again)["status"] == "finished"
    finally:
        runtime.close()


def test_a_new_table_is_claimed_by_nobody_before_its_secrets_and_seat_are_stored(
    store: TableStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Both the creator's own lease ticker and another process tick at every store call that
    files the table's seed, key and seat: neither may start the table (before its seed
    exists, or a second time, which would conflict at line 0)."""
    runtime = TableRuntime(store, holder="creator", seeds=fixed_seeds())
    other = TableRuntime(store, holder="other")
    ticks: list[str] = []

    def tick_everyone(what: str) -> None:
        ticks.append(what)
        runtime.tick()
        other.tick()

    put_secret, add_seat = store.put_secret, store.add_seat

    def ticking_put_secret(table_id: str, name: str, value: bytes, *, holder: str) -> None:
        tick_everyone(name)
        put_secret(table_id, name, value, holder=holder)

    def ticking_add_seat(table_id: str, seat: int, digest: str) -> None:
        tick_everyone("seat")
        add_seat(table_id, seat, digest)

    monkeypatch.setattr(store, "put_secret", ticking_put_secret)
    monkeypatch.setattr(store, "add_seat", ticking_add_seat)
    try:
        created = runtime.create_table(WerewolfTableConfig(role=1))
        assert ticks == ["seed", "game_key", "seat"]
        assert other.live(created.table_id) is None
        runtime.tick()
        other.tick()
        assert other.live(created.table_id) is None  # the creator holds it
        live = runtime.live(created.table_id)
        assert live is not None
        view = play(live)
        assert view["status"] == "finished", view["message"]
        assert view["epoch"] == 1  # driven once
        assert_replays(runtime, created.table_id, tmp_path / "created.jsonl")
    finally:
        other.close()
        runtime.close()


def test_a_step_of_the_session_is_stored_in_one_transaction_before_it_is_shown(
    store: TableStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines are appended in a few transactions (not one per event), and whenever P1 is
    asked, every line of what came before is in the store already: the next stored line
    is P1's answer (or a blob it refers to)."""
    appends: list[int] = []
    append_lines = store.append_lines

    def counting_append(table_id: str, first_index: int, lines: Sequence[str], *, holder: str) -> None:
        append_lines(table_id, first_index, lines, holder=holder)
        appends.append(len(lines))

    monkeypatch.setattr(store, "append_lines", counting_append)
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(WerewolfTableConfig(role=1))
        live = runtime.live(created.table_id)
        assert live is not None
        stored_when_asked: list[int] = []
        while True:
            view = wait_question(live)
            if view["status"] != "running":
                break
            stored_when_asked.append(len(store.read_lines(created.table_id)))
            question = view["question"]
            assert isinstance(question, dict)
            live.submit(simple_answer(question))
        assert view["status"] == "finished", view["message"]
        lines = store.read_lines(created.table_id)
        answers = len(stored_when_asked)
        assert answers >= 5
        assert sum(appends) == len(lines)
        # one transaction per line shown (the personas' words appear as they come), per
        # answer taken, per question: a few lines each, where one commit per line was the rule
        assert len(appends) * 4 <= len(lines), (len(appends), answers, len(lines))
        for count in stored_when_asked:  # each event, P1's answers too, a sealed chunk (format 7)
            assert json.loads(lines[count])["type"] == "sealed", lines[count][:80]
    finally:
        runtime.close()


def test_a_renewal_that_fails_because_the_table_just_ended_does_not_stop_it(
    store: TableStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tick that listed the table while it ran renews its lease only after the game ended
    (and its lease may have run out): the table stays finished, not "taken over"."""

    runtime = TableRuntime(store, seeds=fixed_seeds())
    created = runtime.create_table(WerewolfTableConfig(role=1))
    live = runtime.live(created.table_id)
    assert live is not None
    renew_leases = store.renew_leases

    def late_renewal(holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        deadline = time.monotonic() + WAIT
        while live.view()["status"] != "finished" and time.monotonic() < deadline:
            time.sleep(0.005)
        for table_id in table_ids:
            store.release_lease(table_id, holder)  # as if it ran out while the process stalled
        return renew_leases(holder, table_ids, ttl_seconds)

    monkeypatch.setattr(store, "renew_leases", late_renewal)
    try:
        ticking = threading.Thread(target=runtime.tick)
        ticking.start()
        assert play(live)["status"] == "finished"
        ticking.join(WAIT)
        view = live.view()
        assert view["status"] == "finished", view["message"]
        assert runtime.live(created.table_id) is live
    finally:
        runtime.close()


def test_a_table_uses_only_a_model_server_the_operator_allowed(store: TableStore) -> None:
    allowed = "http://127.0.0.1:11434/v1"
    runtime = TableRuntime(store, seeds=fixed_seeds(), model_servers=[allowed])
    try:
        for url in ("http://169.254.169.254/latest", "http://127.0.0.1:11434/v2", "http://127.0.0.1:8080/v1"):
            config = WerewolfTableConfig(role=2, backend="openai", model="m", base_url=url)
            with pytest.raises(TableError, match="--model-server") as refused:
                runtime.create_table(config)
            assert allowed in str(refused.value)
        assert store.list_tables() == []
    finally:
        runtime.close()
    nobody = TableRuntime(store, seeds=fixed_seeds())  # no --model-server: offline tables only
    try:
        config = WerewolfTableConfig(role=2, backend="openai", model="m", base_url=allowed)
        with pytest.raises(TableError, match="許可されているもの: なし"):
            nobody.create_table(config)
        assert store.list_tables() == []
    finally:
        nobody.close()


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"kind": "werewolf", "backend": "openai", "base_url": "http://127.0.0.1:1/v1"}, "モデル名が"),
        ({"kind": "werewolf", "backend": "openai", "model": " "}, "モデル名がありません"),
        ({"kind": "adventure", "backend": "openai", "model": "m"}, "サーバーのURLがありません"),
        ({"kind": "werewolf", "model": "m"}, "オフラインの卓には"),
        ({"kind": "werewolf", "role": 3, "deal": [1, 2, 2, 2, 3, 4, 5, 6, 1]}, "P1 の役職（3）と配役"),
    ],
)
def test_options_that_disagree_are_refused_in_the_forms_words(config: dict[str, object], words: str) -> None:
    with pytest.raises(TableError, match="卓の設定が正しくありません") as refused:
        parse_config(config)
    text = str(refused.value)
    assert words in text
    assert "--" not in text and "Value error" not in text  # no command-line flags, no pydantic English


def test_a_speech_as_long_as_the_rules_allow_is_taken(store: TableStore) -> None:
    runtime = TableRuntime(store, seeds=fixed_seeds())
    try:
        created = runtime.create_table(WerewolfTableConfig(role=2, narrator=False))
        live = runtime.live(created.table_id)
        assert live is not None
        while True:
            view = wait_question(live)
            question = view["question"]
            assert isinstance(question, dict)
            if question["free_text"]:
                break
            live.submit(simple_answer(question))
        assert view["input_limit"] == 2000
        # 1,000 characters: refused at 500 before
        assert live.submit("よろしく。" + "あ" * 995).status == "taken"
    finally:
        runtime.close()


def test_a_table_whose_model_server_is_misconfigured_fails_and_is_not_retried(store: TableStore) -> None:
    calls: list[int] = []
    no_jinja = ConfigurationError(
        "the server was started without --jinja (test)", kind="no_jinja", status=500
    )
    runtime = TableRuntime(
        store,
        seeds=fixed_seeds(),
        retry_seconds=0.0,
        backend=lambda config, key: _FailingServer(no_jinja, calls),
    )
    try:
        created = runtime.create_table(WerewolfTableConfig(role=2))
        live = runtime.live(created.table_id)
        assert live is not None
        stopped = wait_question(live)
        assert stopped["status"] == "failed", stopped
        assert "続けられません" in str(stopped["message"]) and "再開" not in str(stopped["message"])
        row = store.get_table(created.table_id)
        assert row is not None and row.status == "failed"
        made = len(calls)
        runtime.tick()  # a retry would be due at once (retry_seconds=0): none is made
        runtime.tick()
        assert runtime.live(created.table_id) is live and len(calls) == made
    finally:
        runtime.close()


def test_a_tick_renews_every_lease_of_the_process_in_one_call(
    store: TableStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many tables a process drives, a tick is one renewal (it cannot fall behind
    them), and a table whose lease another process took is let go."""
    calls: list[tuple[str, ...]] = []
    renew_leases = store.renew_leases

    def counted(holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        calls.append(tuple(table_ids))
        return renew_leases(holder, table_ids, ttl_seconds)

    def one_at_a_time(table_id: str, holder: str, ttl_seconds: float) -> bool:
        raise AssertionError("a lease renewed on its own")

    monkeypatch.setattr(store, "renew_leases", counted)
    monkeypatch.setattr(store, "renew_lease", one_at_a_time)
    runtime = TableRuntime(store, holder="here", seeds=fixed_seeds())
    try:
        created = [runtime.create_table(WerewolfTableConfig(role=2)) for _ in range(4)]
        for table in created:
            live = runtime.live(table.table_id)
            assert live is not None
            wait_question(live)
        store.release_lease(created[0].table_id, "here")
        assert store.acquire_lease(created[0].table_id, "elsewhere", 60)
        runtime.tick()
        assert calls == [tuple(table.table_id for table in created)]
        taken = runtime.live(created[0].table_id)
        assert taken is None
        for table in created[1:]:
            live = runtime.live(table.table_id)
            assert live is not None and live.view()["status"] == "running"
            assert store.lease_holder(table.table_id) == "here"
    finally:
        runtime.close()


def test_a_table_whose_player_answered_runs_before_the_busy_tables(store: TableStore) -> None:
    """The one run slot is held (here) and two busy tables wait for it; P1 answers at a
    table: when the slot is free, that table gets it first, ahead of those that asked before."""
    taker = TurnTaker(slots=1, slice_seconds=3600)
    runtime = TableRuntime(store, seeds=fixed_seeds(), turns=taker)
    granted: list[Turn] = []
    busy: list[Turn] = []
    grant = taker._grant

    def recorded(turn: Turn) -> None:
        granted.append(turn)
        grant(turn)

    try:
        asking = runtime.live(runtime.create_table(WerewolfTableConfig(role=2)).table_id)
        assert asking is not None
        question = wait_question(asking)["question"]
        assert isinstance(question, dict)
        here = taker.turn()
        taker.checkpoint(here)  # the slot is the test's
        busy.extend(taker.turn() for _ in range(2))  # two busy tables' threads queue for it
        for turn in busy:
            threading.Thread(target=taker.checkpoint, args=(turn,), daemon=True).start()
            deadline = time.monotonic() + WAIT
            while not turn.queued and time.monotonic() < deadline:
                time.sleep(0.005)
            assert turn.queued
        answered: list[str] = []
        answering = threading.Thread(
            target=lambda: answered.append(asking.submit(simple_answer(question)).status)
        )
        answering.start()
        deadline = time.monotonic() + WAIT
        while not asking.turn.queued and time.monotonic() < deadline:
            time.sleep(0.005)
        assert asking.turn.queued and asking.turn.urgent
        taker._grant = recorded  # type: ignore[method-assign]
        taker.release(here)
        answering.join(WAIT)
        assert answered and answered[0] in ("taken", "asked")
        assert granted[0] is asking.turn
    finally:
        for turn in busy:
            taker.leave(turn)
        runtime.close()


def test_a_game_is_the_same_alone_and_among_busy_tables(store: TableStore) -> None:
    """Which table runs when changes nothing in a game: the same seed and answers show the
    same screen and store the same kinds of lines, alone or while four other tables run."""

    def screens(tables: int) -> list[tuple[list[str], list[str]]]:
        runtime = TableRuntime(store, seeds=lambda: 77, lease_seconds=3600)  # never ticked: no renewal
        try:
            opened = [runtime.create_table(WerewolfTableConfig(role=3)) for _ in range(tables)]
            lives = [runtime.live(table.table_id) for table in opened]
            players = []
            for live in lives:
                assert live is not None
                players.append(threading.Thread(target=play, args=(live,)))
                players[-1].start()
            for player in players:
                player.join(WAIT * 5)
            shown = []
            for table, live in zip(opened, lives, strict=True):
                assert live is not None
                view = live.view()
                assert view["status"] == "finished", view["message"]
                kinds = [json.loads(line)["type"] for line in store.read_lines(table.table_id)]
                shown.append((list(view["lines"]), kinds))
            return shown
        finally:
            runtime.close()

    alone = screens(1)[0]
    for among in screens(5):
        assert among == alone


@pytest.mark.parametrize("lease, tick", [(5.0, 3.0), (1.0, 0.0), (float("nan"), 1.0), (10.0, float("inf"))])
def test_a_lease_shorter_than_two_ticks_is_refused(lease: float, tick: float) -> None:
    with pytest.raises(ValueError, match="two ticks"):
        TableRuntime(MemoryStore(), lease_seconds=lease, tick_seconds=tick)


def _inputs(store: TableStore, table_id: str) -> int:
    """How many answers of P1's the table's stored lines record (opened with the table's key:
    format 7 seals P1's answers too)."""
    from gm_engine.transcripts.format import TranscriptStream
    from gm_engine.transcripts.sealing import GameKey, KeptGame

    key_text = store.get_secret(table_id, "game_key")
    assert key_text is not None
    key_obj = json.loads(key_text.decode("ascii"))
    kept = KeptGame(key=GameKey.from_hex(str(key_obj["key_id"]), key_obj["key"]), seed=None)
    data = b"".join(line.encode("utf-8") + b"\n" for line in store.read_lines(table_id))
    with TranscriptStream(f"table-{table_id}.jsonl", data=data, kept=kept) as stream:
        return sum(event.type == "human_input" for event in stream)


@pytest.mark.parametrize("way", ["accept", "accept_soon", "submit"])
def test_an_answer_stored_and_not_yet_taken_is_taken_by_the_resumed_table(
    store: TableStore, tmp_path: Path, way: str
) -> None:
    """P1's answer is stored before it is acknowledged: the process stops (its one run slot
    held here, so its session never records the answer) and another runtime resumes the
    table, which takes the stored answer at that very question instead of asking it again."""
    taker = TurnTaker(slots=1, slice_seconds=3600)
    first = TableRuntime(store, holder="first", seeds=fixed_seeds(5), turns=taker)
    here = taker.turn()
    second: TableRuntime | None = None
    try:
        created = first.create_table(WerewolfTableConfig(role=3))
        live = first.live(created.table_id)
        assert live is not None
        play(live, answers=2)
        question = wait_question(live)["question"]
        assert isinstance(question, dict)
        answered = _inputs(store, created.table_id)
        taker.checkpoint(here)  # the slot is the test's: the session cannot go on with the answer
        if way == "accept":
            done = live.accept(simple_answer(question))
        elif way == "accept_soon":  # as the web's event loop takes it (SQLite: the writer calls back)
            done = asyncio.run(live.accept_soon(simple_answer(question)))
        else:
            done = live.submit(simple_answer(question), timeout=0.2)
        assert done.status == "recorded"
        if way != "submit":  # the acknowledgement's phases: the store, and the way back
            # (a store that queues no writes of its own is written from a worker thread,
            # whose wait is a phase of its own)
            threaded = way == "accept_soon" and not isinstance(store, QueuedSecrets)
            expected = ["thread", "store", "reply"] if threaded else ["store", "reply"]
            assert [name for name, _seconds in done.timings] == expected
        assert _inputs(store, created.table_id) == answered  # not taken: stored aside
        first.close(timeout=0.2)  # its lease is given up; its session is still stuck
        second = TableRuntime(store, holder="second")
        second.start()
        again = second.live(created.table_id)
        assert again is not None
        wait_question(again)
        assert _inputs(store, created.table_id) == answered + 1  # taken, not asked again
        end = play(again)
        assert end["status"] == "finished", end["message"]
        assert_replays(second, created.table_id, tmp_path / "resumed.jsonl")
    finally:
        taker.leave(here)  # the first session goes on, and finds its lease gone
        if second is not None:
            second.close()


def test_an_event_streams_frame_is_the_view_as_json(store: TableStore) -> None:
    """What the event stream sends (``LiveTable.frame``, its texts kept between messages) is
    the view itself, at every question of a game and from any line on."""
    runtime = TableRuntime(store, seeds=fixed_seeds(3))
    try:
        live = runtime.live(runtime.create_table(WerewolfTableConfig(role=2)).table_id)
        assert live is not None
        compared = 0
        while True:
            view = wait_question(live)
            for after in (0, 3, int(str(view["line_count"])), 10**6):
                frame = live.frame(after)
                again = live.view(after)
                if frame.version == again["version"]:  # else the table moved meanwhile
                    assert json.loads(frame.text) == again
                    assert (frame.line_count, frame.status) == (again["line_count"], again["status"])
                    compared += 1
            if view["status"] != "running":
                break
            question = view["question"]
            assert isinstance(question, dict)
            live.submit(simple_answer(question))
        assert compared > 20
        assert json.loads(live.frame().text)["status"] == "finished"
    finally:
        runtime.close()
