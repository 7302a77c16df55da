"""Regenerate the shipped transcripts in ``transcripts/`` (deterministic: same code, same bytes).

    .venv/bin/python benchmarks/make_transcripts.py [--only NAME...]

Each entry below is one recorded session: its spec and the scripted human inputs (and,
for model-driven sessions, the backend it was recorded against).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.roll import NoModelBackend, ScriptedHuman
from gm_engine.transcripts.record import record_session

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "transcripts"

#: Dice lines across the four game systems, refusals included (they are recorded too).
ROLL_ALL_SYSTEMS = [
    "2d6+1",
    "3d6>=10 attack",
    "4B6>=4",
    "2R6[5]>=4",
    "3U6[6]",
    "1d100<=40",
    "D66",
    "CHOICE[north,south,east]",
    "x3 2d6",
    "S1d20",
    "(2+3)d6kh3",
    "not a command",
    "/system Cthulhu7th",
    "CC<=50",
    "CC(1)<=60",
    "CC(-2)<=40h",
    "CBR(50,70)",
    "FAR(10,50,98)",
    "/locale en",
    "CC<=65",
    "/locale ja",
    "/system TheOneRing2nd",
    "14RG3",
    "12RG2f",
    "16RG1w",
    "FD",
    "/system Cthulhu",
    "CC<=50",
    "CCB<=45",
    "RES(12-10)",
    "CBR(60,40)",
    "/system NoSuchSystem",
    "/system DiceBot",
    "1d6",
    "/quit",
]


def roll_all_systems(path: Path) -> str:
    spec = SessionSpec(kind="roll", seed=20261129, options={"system": "DiceBot"}, backend="none")
    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(ROLL_ALL_SYSTEMS), show=lambda _: None)
    return record_session(spec, io, path, durable=False, remember_seed=False).summary


SESSIONS: dict[str, Callable[[Path], str]] = {
    "roll_all_systems.jsonl": roll_all_systems,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="file names to regenerate")
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    for name, make in SESSIONS.items():
        if args.only and name not in args.only:
            continue
        summary = make(OUT / name)
        print(f"{name}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
