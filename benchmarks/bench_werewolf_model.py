"""Figures of a werewolf game played through the real openai client against the local fake server.

    .venv/bin/python benchmarks/bench_werewolf_model.py [--games 5] [--latency-ms 100] [--seed 1]

Every model call waits a fixed latency at the fake server, so a day's wall time can be set
against its critical path: the persona turns that must run one after another (speeches, CO
answers) plus the concurrent rounds (one vote round, a runoff when there is one, one night
round; day 1 also has the 事前占い round), each costing one latency. It prints, per game day:
model calls, prompt tokens per call (mean / max, estimated from the characters sent), the
measured wall time, the critical path and their ratio. Targets: ratio <= 1.25; the mean prompt
of day 5 at most 1.5x that of day 1. Nothing leaves 127.0.0.1.

The fake server answers every call exactly the latency after its request line arrived (its own
parsing and answering included), so the wall time above the critical path is the client's: the
session, the openai client, the transport, and whatever else the machine is running (the load
average is printed; two busy cores shared with other work slow the client visibly).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import zlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import estimate_tokens
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.werewolf import play_werewolf
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.werewolf.agents import OfflineAgent

SEQUENTIAL_PHASES = ("discussion", "answer")
ROUND_PHASES = ("vote", "runoff", "night", "pre_divination")


def responder(body: dict[str, Any]) -> FakeReply:
    """A stand-in model: picks among the offered enums by a hash of the request (so games vary),
    and reports prompt tokens estimated from the characters it was sent."""
    text = json.dumps(body.get("messages", []), ensure_ascii=False)
    tools = body.get("tools") or []
    prompt = estimate_tokens(text + json.dumps(tools, ensure_ascii=False))
    if not tools:
        return FakeReply.text("さあ、続けましょう。", usage=(prompt, 12))
    calls = first_choice_calls(tools, text="うーん、少し気になる人がいるかな。")
    spread = zlib.crc32(text.encode("utf-8"))
    for name, args in calls:
        spec = next(t["function"] for t in tools if t["function"]["name"] == name)
        target = spec["parameters"].get("properties", {}).get("target", {})
        options = [o.get("enum") for o in target.get("anyOf", []) if o.get("enum")]
        enum = target.get("enum") or (options[0] if options else None)
        if enum and name in ("vote", "attack", "divine", "guard"):
            args["target"] = enum[spread % len(enum)]
    return FakeReply.tool_calls(*calls, usage=(prompt, 20))


def serve(latency_s: float) -> None:
    """Run the fake server in this process until standard input closes (``--serve``)."""
    with FakeChatServer(responder=responder, latency_s=latency_s) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


@contextlib.contextmanager
def server_process(latency_s: float) -> Iterator[str]:
    """The fake server in a child process (as a real server would be: it does not share this
    process's interpreter lock with the client); yields its base URL."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--latency-ms", str(latency_s * 1000)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)


def one_game(seed: int, latency_s: float) -> dict[str, Any]:
    """Play one game with P1 on auto; return its per-day figures."""
    with server_process(latency_s) as base_url:
        backend = OpenAIBackend(model="fake", base_url=base_url, api_key="bench", profile="vllm")
        sink = ListSink()
        io = SessionIO(
            backend=backend,
            human=AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human"))),
            sink=sink,
            show=lambda line: None,
        )
        spec = SessionSpec(kind="werewolf", seed=seed, options={"role": 2}, backend="openai", model="fake")

        async def play() -> tuple[Any, Any]:
            try:
                return await play_werewolf(spec, io)
            finally:
                await backend.aclose()

        outcome, figures = asyncio.run(play())
    sequential: dict[int, int] = defaultdict(int)
    rounds: dict[int, set[tuple[str, int]]] = defaultdict(set)
    for kind, payload in sink.payloads():
        if kind != "model_request":
            continue
        day, phase = int(payload["day"]), str(payload["phase"])
        if phase in SEQUENTIAL_PHASES:
            sequential[day] += 1
        elif phase in ROUND_PHASES:
            # one round per (phase, day); a runoff is its own round
            rounds[day].add((phase, day))
    return {
        "summary": outcome.summary,
        "calls": dict(figures.calls_by_day),
        "tokens": {d: list(v) for d, v in figures.prompt_tokens_by_day.items()},
        "seconds": dict(figures.day_seconds),
        "critical": {d: (sequential[d] + len(rounds[d])) * latency_s for d in figures.day_seconds},
        "sequential": dict(sequential),
        "rounds": {d: len(r) for d, r in rounds.items()},
        "fallbacks": figures.fallbacks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-freeze", action="store_true", help="leave gc.freeze() off (gm werewolf play switches it on)"
    )
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    if args.serve:
        serve(latency)
        return
    if not args.no_freeze:
        gc.freeze()  # as `gm werewolf play` does once its set-up is done
    by_day_tokens: dict[int, list[int]] = defaultdict(list)
    by_day_calls: dict[int, list[int]] = defaultdict(list)
    ratios: dict[int, list[float]] = defaultdict(list)
    print(f"latency per call: {args.latency_ms:.0f} ms; {args.games} games; "
          f"load average at start {os.getloadavg()[0]:.2f}\n")
    for game in range(args.games):
        seed = args.seed + game
        result = one_game(seed, latency)
        print(f"game seed {seed}: {result['summary']}, fallbacks {result['fallbacks']}")
        print("  day  calls  seq  rounds  prompt tok mean/max   wall s  critical s  ratio")
        for day in sorted(result["seconds"]):
            tokens = result["tokens"].get(day, [0])
            wall, critical = result["seconds"][day], result["critical"][day]
            ratio = wall / critical if critical else float("nan")
            by_day_tokens[day].extend(tokens)
            by_day_calls[day].append(result["calls"].get(day, 0))
            ratios[day].append(ratio)
            print(
                f"  {day:>3}  {result['calls'].get(day, 0):>5}  {result['sequential'].get(day, 0):>3}"
                f"  {result['rounds'].get(day, 0):>6}  {statistics.mean(tokens):>10.0f} / {max(tokens):<6}"
                f"  {wall:>7.2f}  {critical:>10.2f}  {ratio:>5.2f}"
            )
    print("\nall games, per day: calls per game day, prompt tokens per call, wall / critical path")
    for day in sorted(by_day_tokens):
        print(
            f"  day {day}: calls {statistics.mean(by_day_calls[day]):6.1f}   "
            f"prompt tokens mean {statistics.mean(by_day_tokens[day]):7.0f} "
            f"max {max(by_day_tokens[day]):6d}   "
            f"ratio mean {statistics.mean(ratios[day]):.2f} max {max(ratios[day]):.2f}   "
            f"({len(ratios[day])} games)"
        )
    if 1 in by_day_tokens and 5 in by_day_tokens:
        growth = statistics.mean(by_day_tokens[5]) / statistics.mean(by_day_tokens[1])
        print(f"\nprompt growth day 5 / day 1: {growth:.2f}x (target <= 1.5x)")
    worst = max(max(r) for r in ratios.values())
    print(f"worst day wall / critical path: {worst:.2f} (target <= 1.25)")
    print(f"load average at the end {os.getloadavg()[0]:.2f} (the machine's other work slows the client)")


if __name__ == "__main__":
    main()
