"""BCDice's own test vectors, byte for byte: every case of every file in ../shared/bcdice.

The vectors are read where they lie (GM_BCDICE_VECTORS, default ../shared/bcdice), with
GM_TABLES_DIR pointing at their tables/; they are never copied into the project.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gm_engine.dice.conformance import format_failure, load_cases, run_case
from tests.conftest import bcdice_dir

VECTOR_FILES = sorted(bcdice_dir().glob("*.toml")) if bcdice_dir().is_dir() else []


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.name for p in VECTOR_FILES])
def test_every_vector_of_the_file_passes(path: Path, vectors_dir: Path) -> None:
    cases = load_cases(path)
    assert cases, f"{path} holds no cases"
    failures = [r for r in (run_case(c, str(vectors_dir / "tables")) for c in cases) if not r.passed]
    assert not failures, "\n".join(format_failure(f) for f in failures[:20]) + f"\n{len(failures)} failed"


def test_vectors_are_present_or_skipped(vectors_dir: Path) -> None:
    assert VECTOR_FILES, f"no *.toml under {vectors_dir}"


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
