"""``gm serve --database``: from the option's value to a :class:`~gm_engine.serve.store.TableStore`.

* none given: SQLite, ``tables.sqlite3`` in ``serve/`` under the data directory;
* ``postgresql://…`` or ``postgres://…``: PostgreSQL (the ``postgres`` extra);
* ``sqlite:///absolute/path`` or ``sqlite:relative/path``, or a plain file path: SQLite there.
"""

from __future__ import annotations

from pathlib import Path

from gm_engine.messages.texts import StoreIsFolder, StoreNeedsPath, StoreNeedsPsycopg, StoreUnknownScheme
from gm_engine.serve.store import StoreError, TableStore
from gm_engine.serve.store_sqlite import SQLiteTableStore
from gm_engine.transcripts.paths import data_dir, make_private_dir

__all__ = ["default_sqlite_path", "open_store"]


def default_sqlite_path() -> Path:
    """Where ``gm serve`` keeps its tables when no ``--database`` is given."""
    return data_dir() / "serve" / "tables.sqlite3"


def open_store(database: str | None = None) -> TableStore:
    """The store ``database`` names (see the module doc).

    Raises:
        StoreError: the value names no database this program can open (another URL
            scheme, an empty path), or PostgreSQL is named and psycopg is not installed.
    """
    if database is None:
        path = default_sqlite_path()
        make_private_dir(path.parent)
        return SQLiteTableStore(path)
    if database.startswith(("postgresql://", "postgres://")):
        try:
            from gm_engine.serve.store_postgres import PostgresTableStore
        except ImportError as missing:
            raise StoreError(StoreNeedsPsycopg(str(missing.name))) from None
        return PostgresTableStore(database)
    if database.startswith("sqlite:"):
        rest = database.removeprefix("sqlite:")
        # sqlite:///tmp/x is /tmp/x (a URL's empty host), sqlite:x is ./x
        location = rest.removeprefix("//") if rest.startswith("///") else rest
    elif "://" in database:
        scheme = database.split("://", 1)[0]
        raise StoreError(StoreUnknownScheme(scheme))
    else:
        location = database
    if not location:
        raise StoreError(StoreNeedsPath())
    path = Path(location).expanduser()
    if path.is_dir():
        raise StoreError(StoreIsFolder(database, str(path)))
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteTableStore(path)
