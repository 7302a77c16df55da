"""Replay speed: every transcript in ``transcripts/`` (or the files given), strictly, N rounds.

    .venv/bin/python benchmarks/bench_replay.py [--rounds N] [FILE...]

Prints the CPU time per file (best round; CPU rather than wall time, since the machine
is shared) and the transcripts replayed per second overall, as ``gm replay`` replays
them (:func:`replay_file`: reading and verifying the hash chain, the blobs, the sealed
lines and the signature is counted in).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gm_engine.transcripts.replay import replay_file

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tolerant", action="store_true")
    args = parser.parse_args(argv)
    files = args.files or sorted((ROOT / "transcripts").glob("*.jsonl"))
    if not files:
        print("no transcripts", file=sys.stderr)
        return 2
    for path in files:  # warm-up: imports, registries, caches
        replay_file(path, tolerant=args.tolerant)
    best: dict[Path, float] = {}
    events: dict[Path, int] = {}
    started = time.perf_counter()
    replayed = 0
    failed = 0
    for _ in range(args.rounds):
        for path in files:
            t0 = time.process_time()
            report = replay_file(path, tolerant=args.tolerant)
            elapsed = time.process_time() - t0
            best[path] = min(best.get(path, elapsed), elapsed)
            events[path] = report.events
            replayed += 1
            failed += not report.ok
    total = time.perf_counter() - started
    for path in files:
        print(f"{path.name:40} {events[path]:6d} events  {best[path] * 1000:8.1f} ms CPU")
    print(f"{replayed} replays in {total:.2f} s: {replayed / total:.1f} transcripts/s ({failed} failed)")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
