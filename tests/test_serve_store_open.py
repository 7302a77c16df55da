"""``gm serve --database``: which store a value opens, and the clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.serve.store import StoreError
from gm_engine.serve.store_open import default_sqlite_path, open_store
from gm_engine.serve.store_sqlite import SQLiteTableStore
from tests.postgres_server import PostgresServer


def _is_sqlite_at(value: str | None, expected: Path) -> None:
    store = open_store(value)
    try:
        assert isinstance(store, SQLiteTableStore)
        store.create_table("t", "werewolf", "卓", "{}", 1.0)
    finally:
        store.close()
    assert expected.is_file()
    reopened = SQLiteTableStore(expected)
    try:
        assert [row.table_id for row in reopened.list_tables()] == ["t"]
    finally:
        reopened.close()


def test_no_database_is_sqlite_in_the_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "data"))
    assert default_sqlite_path() == tmp_path / "data" / "serve" / "tables.sqlite3"
    _is_sqlite_at(None, tmp_path / "data" / "serve" / "tables.sqlite3")


def test_sqlite_urls_and_plain_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _is_sqlite_at(f"sqlite://{tmp_path}/a.db", tmp_path / "a.db")
    _is_sqlite_at(str(tmp_path / "sub" / "b.db"), tmp_path / "sub" / "b.db")
    monkeypatch.chdir(tmp_path)
    _is_sqlite_at("sqlite:c.db", tmp_path / "c.db")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("mysql://localhost/x", "mysql://… is not a database gm serve knows"),
        ("sqlite:", "needs a file path"),
    ],
)
def test_a_value_that_names_no_database_is_refused(value: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        open_store(value)


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        open_store(str(tmp_path))


def test_a_postgresql_url_opens_the_postgresql_store(postgres_server: PostgresServer) -> None:
    from gm_engine.serve.store_postgres import PostgresTableStore

    url = postgres_server.create_database()
    store = open_store(url)
    try:
        assert isinstance(store, PostgresTableStore)
        store.create_table("t", "werewolf", "卓", "{}", 1.0)
        assert [row.table_id for row in store.list_tables()] == ["t"]
    finally:
        store.close()


def test_an_unreachable_postgresql_server_is_a_clear_error(postgres_server: PostgresServer) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database"):
        open_store(f"postgresql://gm@127.0.0.1:{port}/postgres")
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database"):
        open_store(postgres_server.url("no_such_database"))
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database"):
        open_store("postgresql://gm@127.0.0.1:notaport/x")


def test_a_postgresql_url_without_psycopg_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.delitem(sys.modules, "gm_engine.serve.store_postgres", raising=False)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    with pytest.raises(StoreError, match=r"psycopg is not installed.*gm_engine\[postgres\]"):
        open_store("postgresql://gm@127.0.0.1:1/x")


@pytest.mark.parametrize(
    ("value", "japanese", "english"),
    [
        ("mysql://localhost/x", "--database mysql://… は gm serve が扱えるデータベースではありません",
         "--database mysql://… is not a database gm serve knows"),
        ("sqlite:", "--database sqlite: にはファイルのパスが必要です",
         "--database sqlite: needs a file path"),
        ("{tmp}", "はフォルダーで、データベースのファイルではありません",
         "is a directory, not a database file"),
    ],
)
def test_gm_serve_says_why_the_database_cannot_be_opened_in_the_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    value: str, japanese: str, english: str,
) -> None:
    from gm_engine.cli import main

    database = value.format(tmp=tmp_path)
    for locale, expected in (("ja", japanese), ("en", english)):
        monkeypatch.setenv("GM_LOCALE", locale)
        assert main(["serve", "--database", database]) == 2
        shown = capsys.readouterr().err
        assert shown.startswith("gm serve: ") and expected in shown, shown


def test_a_database_of_another_schema_is_refused_in_the_players_language(tmp_path: Path) -> None:
    import sqlite3

    from gm_engine.cli._errors import error_text

    old = sqlite3.connect(tmp_path / "old.db")
    old.execute("PRAGMA user_version = 99")
    old.close()
    with pytest.raises(StoreError) as refused:
        open_store(str(tmp_path / "old.db")).close()
    assert "このデータベースは卓の保存形式99のものです" in error_text(refused.value, "ja")
    assert "table store schema version 99, this program reads" in error_text(refused.value, "en")
    assert str(refused.value) == error_text(refused.value, "en")


@pytest.mark.parametrize(
    ("argv", "japanese", "english"),
    [
        (["--port", "0"], "gm serve: --port 0 はポート番号ではありません（1～65535）",
         "gm serve: --port 0 is not a port (1..65535)"),
        (["--advertise", "ftp://x"],
         "gm serve: --advertise ftp://x は http:// か https:// の URL ではありません",
         "gm serve: --advertise ftp://x is not an http:// or https:// URL"),
        (["--lease-seconds", "4", "--tick-seconds", "3"],
         "gm serve: リース（4 秒）はティック（3 秒）の2回分以上にしてください",
         "gm serve: a lease (4 s) must last at least two ticks (3 s)"),
        (["--seed", "-1"], "gm serve: --seed -1 --seed-step 1: シードは0以上、ステップは1以上にしてください",
         "gm serve: --seed -1 --seed-step 1: a seed is 0 or more and the step 1 or more"),
        (["--seed", "3", "--seed-step", "0"],
         "gm serve: --seed 3 --seed-step 0: シードは0以上、ステップは1以上にしてください",
         "gm serve: --seed 3 --seed-step 0: a seed is 0 or more and the step 1 or more"),
    ],
)
def test_gm_serves_own_argument_errors_are_in_the_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: list[str], japanese: str, english: str,
) -> None:
    from gm_engine.cli import main

    for locale, expected in (("ja", japanese), ("en", english)):
        monkeypatch.setenv("GM_LOCALE", locale)
        assert main(["serve", "--database", str(tmp_path / "t.db"), *argv]) == 2
        shown = capsys.readouterr().err
        assert shown.startswith(expected), shown
