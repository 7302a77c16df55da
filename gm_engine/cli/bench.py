"""``gm bench dice``: how many dice commands per second the engine evaluates."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from gm_engine.dice.engine import evaluate
from gm_engine.dice.source import SeededSource
from gm_engine.dice.system import GameSystem, UnknownSystemError
from gm_engine.dice.systems.registry import get_system
from gm_engine.messages import locale_from_env, render
from gm_engine.messages import texts as t

#: The benchmark mix: (system id, command), evaluated round-robin.
DICE_MIX: tuple[tuple[str, str], ...] = (
    ("Cthulhu7th", "CC(1)<=50"),
    ("Cthulhu7th", "CBR(50,20)"),
    ("Cthulhu7th", "FAR(30,60,98)"),
    ("TheOneRing2nd", "3RG2@10A1f"),
    ("DiceBot", "2D6+3>=7"),
    ("DiceBot", "1D100<=70"),
)

_WARM_UP = 2_000


def register(subparsers: Any) -> None:
    """Add ``gm bench``."""
    bench = subparsers.add_parser("bench", help="benchmarks that print figures")
    kinds = bench.add_subparsers(dest="bench_kind", metavar="KIND")
    dice = kinds.add_parser("dice", help="dice commands per second over a fixed mix")
    dice.add_argument("--count", type=int, default=None, help="evaluate this many commands (default: time)")
    dice.add_argument("--seconds", type=float, default=3.0, help="run for about this long (default 3)")
    dice.add_argument("--seed", type=int, default=1, help="seed of the dice (default 1)")
    dice.set_defaults(handler=_bench_dice)
    bench.set_defaults(handler=_no_kind)


def _no_kind(args: argparse.Namespace) -> int:
    print(render(t.BenchNoKind(), locale_from_env()), file=sys.stderr)
    return 2


def resolve_mix(mix: tuple[tuple[str, str], ...] = DICE_MIX) -> list[tuple[GameSystem, str]]:
    """The mix with each system resolved once; commands of unknown systems are left
    out with a notice on stderr (they join in once their system is registered)."""
    systems: dict[str, GameSystem] = {}
    resolved: list[tuple[GameSystem, str]] = []
    for system_id, command in mix:
        if system_id not in systems:
            try:
                systems[system_id] = get_system(system_id)
            except UnknownSystemError:
                print(render(t.BenchSkipped(system_id, command), locale_from_env()), file=sys.stderr)
                continue
        resolved.append((systems[system_id], command))
    return resolved


def run_dice_bench(
    mix: list[tuple[GameSystem, str]], *, count: int | None, seconds: float, seed: int
) -> tuple[int, float, float]:
    """Evaluate the mix round-robin after a warm-up.

    With ``count`` that many commands are timed; otherwise batches run until about
    ``seconds`` have passed. Returns (commands, wall seconds, CPU seconds of this
    process); the CPU figure is steadier on a machine shared with other work.
    """
    source = SeededSource(seed)
    size = len(mix)
    for i in range(_WARM_UP):
        system, command = mix[i % size]
        evaluate(command, system, source=source)
    source.history.clear()
    done = 0
    batch = 600 if count is None else count
    start = time.perf_counter()
    cpu_start = time.process_time()
    while True:
        for i in range(batch):
            system, command = mix[i % size]
            if evaluate(command, system, source=source) is None:
                raise RuntimeError(f"{command!r} is not a command under {system.id}")
        done += batch
        # the history would otherwise grow for the whole run
        source.history.clear()
        elapsed = time.perf_counter() - start
        if count is not None or elapsed >= seconds:
            return done, elapsed, time.process_time() - cpu_start


def _bench_dice(args: argparse.Namespace) -> int:
    locale = locale_from_env()
    mix = resolve_mix()
    if not mix:
        print(render(t.BenchNothingRuns(), locale), file=sys.stderr)
        return 1
    if args.count is not None and args.count < 1:
        print(render(t.BenchCountTooSmall(), locale), file=sys.stderr)
        return 2
    load_before = _load_average()
    done, elapsed, cpu = run_dice_bench(mix, count=args.count, seconds=args.seconds, seed=args.seed)
    commands = ", ".join(f"{command} [{system.id}]" for system, command in mix)
    print(render(t.BenchMix(commands), locale))
    if load_before is not None:
        # other work on the machine slows the wall-clock figure first; say how much there was
        after = _load_average() or 0.0
        print(render(t.BenchLoad(f"{load_before:.2f}", f"{after:.2f}"), locale))
    print(render(t.BenchDone(done, f"{elapsed:.3f}", f"{cpu:.3f}"), locale))
    print(render(t.BenchCpuRate(f"{done / cpu:.0f}") if cpu > 0 else t.BenchCpuTooShort(), locale))
    print(render(t.BenchWallRate(f"{done / elapsed:.0f}"), locale))
    return 0


def _load_average() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
