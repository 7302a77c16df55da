"""BCDice's own test vectors, byte for byte: every case of every file in tests/data/bcdice.

The vectors ship with the tests under BCDice's BSD licence (tests/data/bcdice/README.md);
their table cases expect the rows of the synthetic pack beside them. GM_BCDICE_VECTORS
points the tests at another copy (with its own tables/). Without the files these tests
skip, and fail when CI is set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gm_engine.dice.conformance import format_failure, load_cases, run_case
from tests.conftest import DATA, bcdice_dir, require
from tests.data.bcdice.refresh import placeholder

VECTOR_FILES = sorted(bcdice_dir().glob("*.toml")) if bcdice_dir().is_dir() else []


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.name for p in VECTOR_FILES])
def test_every_vector_of_the_file_passes(path: Path, vectors_dir: Path) -> None:
    cases = load_cases(path)
    assert cases, f"{path} holds no cases"
    failures = [r for r in (run_case(c, str(vectors_dir / "tables")) for c in cases) if not r.passed]
    assert not failures, "\n".join(format_failure(f) for f in failures[:20]) + f"\n{len(failures)} failed"


def test_vectors_are_present_or_skipped(vectors_dir: Path) -> None:
    assert VECTOR_FILES, f"no *.toml under {vectors_dir}"


def test_the_shipped_vectors_are_all_there_with_their_licence() -> None:
    shipped = DATA / "bcdice"
    names = {p.name for p in shipped.glob("*.toml")}
    assert {"Cthulhu7th.toml", "Cthulhu.toml", "TheOneRing2nd.toml", "None.toml", "AddDice.toml"} <= names
    assert len(names) == 15
    assert "BSD 3-Clause License" in (shipped / "LICENSE-BCDice").read_text(encoding="utf-8")


def test_the_shipped_table_pack_holds_placeholders_only(placeholder_pack_dir: Path) -> None:
    """The table rows are third-party prose: the shipped pack keeps their layout, not their text."""
    pack = json.loads((placeholder_pack_dir / "Cthulhu7th.json").read_text(encoding="utf-8"))
    assert sorted(pack) == ["BMR", "BMS", "FCL", "FCM", "MA", "PH"]
    for command, table in pack.items():
        first = int(table["dice"].split("D")[0])
        assert table["rows"] == [placeholder(command, first + i) for i in range(len(table["rows"]))]
    assert [len(pack[c]["rows"]) for c in ("BMR", "PH", "FCL")] == [10, 100, 8]


def test_missing_vectors_skip_locally_and_fail_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GM_BCDICE_VECTORS", str(tmp_path / "nowhere"))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"BCDice vectors not found at .*nowhere"):
        require(bcdice_dir(), "BCDice vectors", "GM_BCDICE_VECTORS")
    for value in ("true", "1"):
        monkeypatch.setenv("CI", value)
        with pytest.raises(pytest.fail.Exception, match="CI is set, so missing test data fails the run"):
            require(bcdice_dir(), "BCDice vectors", "GM_BCDICE_VECTORS")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        require(bcdice_dir(), "BCDice vectors", "GM_BCDICE_VECTORS")


def test_conformance_command_counts_and_exits_by_failures(vectors_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[[ test ]]\ngame_system = "DiceBot"\ninput = "1D6"\noutput = "(1D6) ＞ 4"\n'
        "rands = [ { sides = 6, value = 4 } ]\n\n"
        '[[ test ]]\ngame_system = "DiceBot"\ninput = "1D6"\noutput = "(1D6) ＞ 5"\n'
        "rands = [ { sides = 6, value = 4 } ]\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "gm_engine", "conformance", str(bad)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout.rstrip().splitlines()[-1] == "1 passed, 1 failed"
    assert "bad.toml #1" in proc.stdout and "'(1D6) ＞ 5'" in proc.stdout


def test_the_readmes_conformance_command_passes_as_written(vectors_dir: Path) -> None:
    """`gm conformance tests/data/bcdice/*.toml` with nothing else set: the table commands read
    the pack beside the vectors (it once needed GM_TABLES_DIR, and 10 cases failed without)."""
    files = sorted(str(path) for path in vectors_dir.glob("*.toml"))
    environment = {name: value for name, value in os.environ.items() if name != "GM_TABLES_DIR"}
    proc = subprocess.run(
        [sys.executable, "-m", "gm_engine", "conformance", *files],
        capture_output=True, text=True, check=False, env=environment,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert proc.stdout.rstrip().splitlines()[-1].endswith(" passed, 0 failed")
