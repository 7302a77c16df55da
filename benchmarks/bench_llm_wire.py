"""Figures of the model layer: the openai client's round trip against the fake server, the turn
runner's own cost, and whole offline adventures.

    .venv/bin/python benchmarks/bench_llm_wire.py [--calls 200] [--latency-ms 20]

Everything runs on 127.0.0.1; nothing reaches the network.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import ClassVar

from pydantic import Field

from gm_engine.llm.base import ModelRequest, user_message
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.offline import OfflineBackend
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner
from gm_engine.tools.base import Offer, Tool, TurnRunner, response_with_calls


class Vote(Tool):
    """Vote for a player."""

    tool_name: ClassVar[str] = "vote"
    target: str = Field(description="seat")


SEATS = [f"P{i}" for i in range(2, 10)]


def wire(calls: int, latency_s: float) -> list[float]:
    """Milliseconds per call of OpenAIBackend.complete against the fake server."""
    request = ModelRequest(
        actor="P2", messages=(user_message("vote"),), tools=(Vote.narrowed(target=SEATS).spec(),)
    )

    def responder(body: object) -> FakeReply:
        return FakeReply.tool_calls(("vote", {"target": "P3"}))

    async def run(backend: OpenAIBackend) -> list[float]:
        await backend.complete(request)  # connection and client warm-up
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            await backend.complete(request)
            times.append((time.perf_counter() - start) * 1000)
        await backend.aclose()
        return times

    with FakeChatServer(responder=responder, latency_s=latency_s) as server:
        return asyncio.run(run(OpenAIBackend(model="fake", base_url=server.base_url, api_key="k")))


def runner_cost(turns: int) -> float:
    """Microseconds per turn of the turn runner (one broken call, then a valid one) on the
    scripted backend: schema generation, validation, events, no I/O."""
    broken = response_with_calls(("vote", {"target": "P1"}))
    good = response_with_calls(("vote", {"target": "P3"}))

    async def run() -> float:
        backend = ScriptedBackend([(None, r) for _ in range(turns) for r in (broken, good)])
        runner = TurnRunner(backend)
        start = time.perf_counter()
        for _ in range(turns):
            offers = [Offer.of(Vote, lambda v: f"vote {v.target}", target=SEATS)]
            await runner.run(actor="P2", messages=[user_message("vote")], offers=offers)
        return (time.perf_counter() - start) / turns * 1e6

    return asyncio.run(run())


def adventures(count: int) -> tuple[float, float]:
    """Seconds per whole offline adventure, and model calls per adventure."""
    calls = 0.0
    start = time.perf_counter()
    for seed in range(count):
        io = SessionIO(
            backend=OfflineBackend(), human=ScriptedHuman(["アリア 駆け出し おまかせ"], when_done="次へ"),
            show=lambda text: None,
        )
        outcome = get_runner("adventure")(SessionSpec(kind="adventure", seed=seed), io)
        calls += outcome.figures["model_calls"]
    return (time.perf_counter() - start) / count, calls / count


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--adventures", type=int, default=20)
    args = parser.parse_args()
    for latency in (0.0, args.latency_ms / 1000):
        times = wire(args.calls, latency)
        p95 = statistics.quantiles(times, n=20)[18]
        print(
            f"openai client -> fake server (latency {latency * 1000:.0f} ms), {args.calls} calls: "
            f"mean {statistics.mean(times):.2f} ms, median {statistics.median(times):.2f} ms, "
            f"p95 {p95:.2f} ms; "
            f"overhead over the server's latency {statistics.mean(times) - latency * 1000:.2f} ms"
        )
    print(f"turn runner (broken call + valid call, scripted backend): {runner_cost(500):.0f} µs per turn")
    seconds, calls = adventures(args.adventures)
    print(f"offline adventure: {seconds * 1000:.0f} ms per adventure, {calls:.1f} model calls per adventure")


if __name__ == "__main__":
    main()
