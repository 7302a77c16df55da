"""Shared fixtures: where the test data lives, the Hypothesis profiles, private data dirs.

The BCDice vectors and a synthetic table pack ship under ``tests/data/bcdice`` (see its
README.md), so a fresh clone runs every conformance test. A test whose data file is
missing is skipped with the reason, except when the ``CI`` environment variable is set:
then it fails: CI never passes by leaving the shipped data out.

With ``CI`` set, Hypothesis runs the ``ci`` profile: derandomised (each test draws the
same examples on every run and machine, so a failure in CI reproduces locally with
``CI=1``), no example database, no deadline (a verdict never depends on the machine's
load), and every test's own fixed ``max_examples`` (100 where a test sets none).
``HYPOTHESIS_PROFILE`` picks a profile by name instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.postgres_server import (
    PostgresServer,
    find_binaries,
    missing_server_user,
    postgres_required,
    running_server,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def in_ci() -> bool:
    """Whether the ``CI`` environment variable is set (to anything but empty or 0/false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


# Both profiles derive from Hypothesis's defaults, not from whatever profile Hypothesis may
# have loaded on its own when it saw a CI variable. deadline=None: the verdict of a run
# must not depend on how busy the machine is.
_DEFAULTS = settings.get_profile("default")
settings.register_profile(
    "ci", _DEFAULTS, derandomize=True, database=None, max_examples=100, deadline=None, print_blob=True
)
settings.register_profile("dev", _DEFAULTS, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if in_ci() else "dev"))


def require(path: Path, what: str, variable: str | None = None) -> Path:
    """``path`` if it exists; otherwise skip the calling test with the reason, or fail it
    when running in CI (:func:`in_ci`)."""
    if path.exists():
        return path
    hint = f" (set {variable})" if variable else ""
    message = f"{what} not found at {path}{hint}"
    if in_ci():
        pytest.fail(f"{message}; CI is set, so missing test data fails the run", pytrace=False)
    pytest.skip(message)


def bcdice_dir() -> Path:
    """The BCDice vectors: $GM_BCDICE_VECTORS, else the copy shipped in tests/data/bcdice."""
    return Path(os.environ.get("GM_BCDICE_VECTORS") or DATA / "bcdice")


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The BCDice vector directory, with its ``tables/`` pack beside the files."""
    return require(bcdice_dir(), "BCDice vectors", "GM_BCDICE_VECTORS")


@pytest.fixture(scope="session")
def placeholder_pack_dir() -> Path:
    """The shipped synthetic table pack (placeholder rows), whatever GM_BCDICE_VECTORS says:
    tests that spell out a row's text expect these placeholders."""
    return require(DATA / "bcdice" / "tables", "the synthetic table pack")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions record into the user data directory by default: keep each test's apart
    from the developer's own (subprocesses inherit the variable)."""
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path_factory.mktemp("gm_data")))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server (tests/postgres_server.py) for the session; the test
    skips when there are no PostgreSQL binaries or no psycopg, and fails instead when
    ``GM_TEST_POSTGRES=1`` (CI installed them)."""
    binaries = find_binaries()
    try:
        import psycopg  # noqa: F401
    except ImportError:
        binaries = None
        missing = "psycopg (pip install -e '.[postgres]')"
    else:
        missing = "PostgreSQL's binaries (initdb, pg_ctl; Debian's postgresql package)"
        if binaries is not None and missing_server_user():
            binaries = None
            missing = "a postgres user to run the server as (initdb refuses root)"
    if binaries is None:
        if postgres_required():
            pytest.fail(f"{missing} not found and GM_TEST_POSTGRES is set", pytrace=False)
        pytest.skip(f"{missing} not found")
    with running_server(binaries) as server:
        yield server


@pytest.fixture
def english_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's locale is English (``GM_LOCALE=en``): for tests that read the English
    catalogue's texts."""
    monkeypatch.setenv("GM_LOCALE", "en")
