"""Size and replay memory of a transcript whose model writes long answers.

    .venv/bin/python benchmarks/bench_replay_memory.py record FILE [--kb 100] [--session adventure]
    .venv/bin/python benchmarks/bench_replay_memory.py replay FILE

``record`` plays a session with the offline model, every answer padded with ``--kb``
KB of text that differs from call to call (a verbose or hostile model; the padding
bypasses the wire backend's answer cap, as a recording made before it would have),
and prints the file's size. In an adventure the GM's answers stay in its conversation,
so every later request quotes them all again. ``replay`` reads and replays the file
and prints the peak resident memory of the process (run it in a fresh process for
each measurement). The script uses only APIs older than transcript format 2, so the
same file runs against the code before and after it.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time
from pathlib import Path

from gm_engine.llm.base import BackendDefaults, ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman


class VerboseBackend(BackendDefaults):
    """The offline model, each answer's text padded to ``size`` characters."""

    name = "offline"
    keeps_state = True  # as the offline model it wraps

    def __init__(self, size: int) -> None:
        self.inner = OfflineBackend()
        self.size = size
        self.calls = 0

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        answer = await self.inner.complete(request, context)
        self.calls += 1
        seed = hashlib.sha256(f"call {self.calls}".encode()).digest()
        blocks: list[str] = []
        while len(blocks) * 64 < self.size:
            seed = hashlib.sha256(seed).digest()
            blocks.append(seed.hex())
        padding = "".join(blocks)[: self.size]
        return answer.model_copy(update={"content": f"{answer.content or ''}\n{padding}"})


def record(path: Path, kb: int, session: str) -> None:
    from gm_engine.transcripts.record import record_session

    path.unlink(missing_ok=True)
    backend = VerboseBackend(kb * 1000)
    if session == "adventure":
        spec = SessionSpec(kind="adventure", seed=0, options={"system": "DiceBot"}, backend="offline")
        human = ScriptedHuman(["アリア 駆け出し おまかせ", "慎重に進む"], when_done="次へ")
    else:
        from gm_engine.dice.source import SeededSource
        from gm_engine.sessions.werewolf_offline import AutoHuman
        from gm_engine.werewolf.agents import OfflineAgent

        spec = SessionSpec(kind="werewolf", seed=5, options={"auto": True, "role": 2}, backend="offline")
        human = AutoHuman(OfflineAgent(1, SeededSource("5/human")))  # type: ignore[assignment]
    io = SessionIO(backend=backend, human=human, show=lambda _: None)
    outcome = record_session(spec, io, path, durable=False, remember_seed=False)
    print(f"{path}: {path.stat().st_size:,} bytes, {backend.calls} answers of {kb} KB; {outcome.summary}")


def replay(path: Path) -> int:
    from gm_engine.transcripts.replay import replay_file

    started = time.process_time()
    report = replay_file(path)  # reads the file as it replays where the code streams it
    cpu = time.process_time() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"{path}: {'OK' if report.ok else 'FAILED'}, {report.events} events, "
        f"{path.stat().st_size:,} bytes, peak RSS {peak_kb / 1024:.1f} MB, {cpu:.2f} s CPU"
    )
    return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=["record", "replay"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--kb", type=int, default=100, help="padding per answer, in thousands of characters")
    parser.add_argument("--session", choices=["adventure", "werewolf"], default="adventure")
    args = parser.parse_args(argv)
    if args.mode == "record":
        record(args.file, args.kb, args.session)
        return 0
    return replay(args.file)


if __name__ == "__main__":
    sys.exit(main())
