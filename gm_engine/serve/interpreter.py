"""How a ``gm serve`` process sets up the Python interpreter it shares among its tables, so
that a player's answer does not wait for the tables' sessions.

Every table's session runs on its own thread and they take turns on the processor
(:mod:`gm_engine.serve.turns`), but the web's event loop, the store's writer thread and the
table holding the run slot still share one interpreter lock. Two things of CPython made an
answer wait far longer than its own work (measured with ``benchmarks/bench_serve.py`` at
100 tables on 2 cores):

* **The lock's switch interval.** A thread that blocked (the event loop in ``epoll``, the
  writer in a SQLite statement or its ``fsync``) gets the lock back only when the running
  thread is asked to drop it, after :func:`sys.getswitchinterval` (5 ms by default). An
  answer crosses the loop, the writer and back several times, each time waiting that
  long behind a persona thinking: 5 ms is the cost of one wake-up here.
  :data:`SWITCH_INTERVAL` makes it a tenth of a millisecond; the sessions, which are the
  only threads that want the processor for long, lose little by it (they take turns
  anyway).
* **The cyclic garbage collector.** It stops every thread while it runs. With the default
  thresholds it ran about 500 times in a 100-table run (4.6 s in all); its full passes
  over the heap took 0.24–1.2 s each, every one a stall of every answer in flight. The
  objects alive when the server starts (modules, the web framework, the personas' phrase
  books: some seventy thousand) live as long as the process, so they are frozen out of
  the collector's passes; the young generation is collected after
  :data:`GC_THRESHOLDS`'s ten thousand new objects rather than 700, so a pass is rarer and
  the older generations are reached less often. Every table's garbage is still
  collected: only the thresholds change.
"""

from __future__ import annotations

import gc
import sys

__all__ = ["GC_THRESHOLDS", "SWITCH_INTERVAL", "prepare_interpreter"]

#: Seconds a thread runs before it hands the interpreter lock to a thread waiting for it.
SWITCH_INTERVAL = 0.0001
#: The collector's thresholds: young objects before a young pass, young passes before a
#: middle one, middle passes before a full one (CPython also waits for a quarter of the
#: heap to be new before a full pass).
GC_THRESHOLDS = (10_000, 10, 10)


def prepare_interpreter() -> None:
    """Set the switch interval and the collector up for a server (see the module doc): called
    once, after the server's modules are imported and before any table is driven, so that
    what is frozen is what lives as long as the process."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
