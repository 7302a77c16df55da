"""``gm serve --database PATH``: the SQLite file holds every running table's game key beside
its sealed lines, so it and its ``-wal``/``-shm`` files are readable by their owner only,
whatever the umask (they were created 644, and any local user could open a running game)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from gm_engine.serve.store_open import open_store


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("loose_umask")
def test_a_new_database_and_its_journal_files_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "club" / "tables.sqlite3"
    store = open_store(str(path))
    try:
        store.create_table("t1", "werewolf", "卓", "{}", 0.0, holder="a", ttl_seconds=30)
        store.put_secret("t1", "game_key", b"secret", holder="a")
        files = [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
    finally:
        store.close()


@pytest.mark.usefixtures("loose_umask")
def test_an_existing_database_readable_by_others_is_narrowed(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    open_store(str(path)).close()
    path.chmod(0o644)
    store = open_store(f"sqlite:{path}")
    try:
        assert _mode(path) == 0o600
    finally:
        store.close()
