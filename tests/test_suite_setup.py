"""The suite's own setup: the Hypothesis profile follows CI (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

_PROBE = """
import json
from hypothesis import settings
import tests.conftest
current = settings.default
print(json.dumps({"derandomize": current.derandomize, "database": current.database is None,
                  "deadline": current.deadline is None, "max_examples": current.max_examples}))
"""


def _profile(**env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, cwd=ROOT,
        env={**clean, **env},
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def test_ci_selects_the_derandomised_profile() -> None:
    expected = {"derandomize": True, "database": True, "deadline": True, "max_examples": 100}
    assert _profile(CI="true") == expected
    assert _profile(CI="0")["derandomize"] is False
    assert _profile()["derandomize"] is False
    assert _profile(HYPOTHESIS_PROFILE="ci")["derandomize"] is True
