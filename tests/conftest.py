"""Shared fixtures: where the BCDice vectors and table packs live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def bcdice_dir() -> Path:
    """The BCDice vectors: $GM_BCDICE_VECTORS, else ../shared/bcdice beside the project."""
    return Path(os.environ.get("GM_BCDICE_VECTORS", ROOT.parent / "shared" / "bcdice"))


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    path = bcdice_dir()
    if not path.is_dir():
        pytest.skip(f"BCDice vectors not found at {path} (set GM_BCDICE_VECTORS)")
    return path


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions record into the user data directory by default: keep each test's apart
    from the developer's own (subprocesses inherit the variable)."""
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path_factory.mktemp("gm_data")))
