"""``gm serve``'s interpreter settings (gm_engine.serve.interpreter), checked in a child
process so that this one keeps its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gm_engine.serve.interpreter import GC_THRESHOLDS, SWITCH_INTERVAL

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import gc, json, sys
def now():
    frozen = gc.get_freeze_count()
    return {"switch": sys.getswitchinterval(), "thresholds": gc.get_threshold(), "frozen": frozen}
before = now()
from gm_engine.serve.interpreter import prepare_interpreter
prepare_interpreter()
after = now()
class Cycle:
    pass
collected = []
gc.callbacks.append(lambda phase, info: collected.append(info["collected"]) if phase == "stop" else None)
for _ in range(50_000):  # garbage in cycles, collected by the automatic passes all the same
    cycle = Cycle()
    cycle.me = cycle
print(json.dumps({"before": before, "after": after, "collected": sum(collected)}))
"""


def test_the_server_hands_the_lock_over_sooner_and_freezes_what_lives_as_long_as_it() -> None:
    """The switch interval and the thresholds are the module's, the objects alive at the
    start are frozen out of the collector's passes; before, the interpreter's defaults."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    figures = json.loads(done.stdout)
    before, after = figures["before"], figures["after"]
    assert before["switch"] != pytest.approx(SWITCH_INTERVAL) and before["frozen"] == 0
    assert after["switch"] == pytest.approx(SWITCH_INTERVAL)  # kept in microseconds
    assert tuple(after["thresholds"]) == GC_THRESHOLDS
    assert after["frozen"] > 1000  # the modules imported so far, at least
    assert figures["collected"] >= 40_000  # the collector still runs by itself
