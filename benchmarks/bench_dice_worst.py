"""The costliest dice lines within the limits (issue 10: "no line costs more than 0.2 s").

    .venv/bin/python benchmarks/bench_dice_worst.py [--rounds N] [--limit-ms 200]

Evaluates each candidate line (the shapes that make the engine work hardest: a repeat of a
repeat at :data:`~gm_engine.dice.limits.MAX_RUNS_PER_LINE`, all the dice
:data:`~gm_engine.dice.limits.MAX_DICE_PER_LINE` allows, long sums and comparisons, each
system's heaviest command) in one process, N rounds after a warm-up, and prints per line
the best CPU time (CPU rather than wall time: the machine is shared), the dice rolled, the
characters of text and whether a limit refused it, costliest first, and the costliest line
no limit refused against the limit. Exit 1 when that line costs more than the limit.
"""

from __future__ import annotations

import argparse
import sys
import time

from gm_engine.dice.engine import evaluate
from gm_engine.dice.limits import ErrorDetail

#: (system, line): lines near a limit, each of a kind that costs the engine most.
CANDIDATES: tuple[tuple[str, str], ...] = (
    ("DiceBot", "x10 REP100 2D6+1D10>=8"),
    ("DiceBot", "x10 REP100 1D6"),
    ("DiceBot", "x100 REP10 1D6"),
    ("DiceBot", "x50 200D6"),
    ("DiceBot", "x10 REP100 10B6>=4"),
    ("DiceBot", "x10 REP100 5R6[5]>=5"),
    ("DiceBot", "x10 REP100 3U6[6]"),
    ("DiceBot", "x10 REP100 10U6[6]>=10"),
    ("DiceBot", "x10 REP100 C(" + "+".join(["1"] * 60) + ")"),
    ("DiceBot", "x100 " + "+".join(["1D6"] * 48)),
    ("DiceBot", "x100 REP10 " + "+".join(["1D6"] * 10)),
    ("DiceBot", "x10 REP100 1D6+1D6+1D6+1D6+1D6+1D6+1D6+1D6+1D6+1D6>=30"),
    ("DiceBot", "x10 REP100 (1D6+1)*(1D6+1)/(1D6+1)"),
    ("DiceBot", "x10 REP100 10D6S"),
    ("DiceBot", "x10 REP100 1D100<=50 " + "c" * 150),
    ("Cthulhu7th", "x10 REP100 CC(2)<=50"),
    ("Cthulhu7th", "x10 REP100 CBR(50,30)"),
    ("Cthulhu7th", "x10 REP100 FAR(10,50,98)"),
    ("Cthulhu7th", "x10 FAR(100,50,98,2,,1)"),
    ("Cthulhu", "x10 REP100 CCB<=50"),
    ("Cthulhu", "x10 REP100 RES(10-8)"),
    ("TheOneRing2nd", "x10 REP100 14RG6"),
    ("TheOneRing2nd", "x10 REP100 14RG6W"),
)


def _cost(system: str, line: str, rounds: int) -> tuple[float, int, int, bool]:
    best = float("inf")
    dice = chars = 0
    refused = False
    for seed in range(rounds):
        start = time.process_time()
        result = evaluate(line, system, seed=seed)
        elapsed = time.process_time() - start
        best = min(best, elapsed)
        if result is not None:
            dice, chars = len(result.dice), len(result.text)
            refused = isinstance(result.detail, ErrorDetail)
    return best, dice, chars, refused


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit-ms", type=float, default=200.0)
    args = parser.parse_args(argv)
    for system, line in CANDIDATES:  # warm-up: system modules, parsers' caches
        evaluate(line, system, seed=0)
    rows = [(system, line, *_cost(system, line, args.rounds)) for system, line in CANDIDATES]
    rows.sort(key=lambda row: -row[2])
    for system, line, seconds, dice, chars, refused in rows:
        shown = line if len(line) <= 48 else line[:45] + "..."
        state = "refused" if refused else "ok" if dice else "no dice"
        figures = f"{seconds * 1000:8.1f} ms CPU  {dice:6d} dice  {chars:7d} chars"
        print(f"{figures}  {state:7}  {system:13} {shown}")
    accepted = [row for row in rows if not row[5]]
    if not accepted:
        print("no accepted line", file=sys.stderr)
        return 1
    system, line, seconds, *_ = accepted[0]
    worst = f"{system} {line[:60]!r} {seconds * 1000:.1f} ms CPU"
    print(f"costliest accepted line: {worst} (limit {args.limit_ms:.0f} ms)")
    return 0 if seconds * 1000 <= args.limit_ms else 1


if __name__ == "__main__":
    sys.exit(main())
