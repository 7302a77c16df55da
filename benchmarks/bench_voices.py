"""The offline table's words over 50 fixed seeds, before and after (issue 13's figures).

    .venv/bin/python benchmarks/bench_voices.py [--base /work/base] [--seeds 50]

Each side plays ``gm werewolf play --auto --plain`` games (P1 played by its offline agent, the
offline model on P2..P9, seeds 1..N) in a worker process run with that side's own Python (the
base's ``.venv``), and prints, side by side:

* distinct speech lines / all lines within each game (the worst game and the mean), and with
  names, seat numbers and colours masked across all games;
* AI vote reasons (P2..P9), names masked: the share that is distinct;
* day-2-and-later speeches citing a specific public fact: structurally (the ``cites`` the
  offline persona recorded with its tool call; the old code records none) and by a text
  proxy (a seat's name next to a fact word: 黒, 白, CO, 名乗, 入れ, 投票, 票, 襲, 退席, 『);
* cited facts not in the speaker's view at that moment (checked against the observation
  the persona was asked with, by :func:`gm_engine.werewolf.citations.citation_problems`);
* addresses (a line that names a seat and calls on it or asks it something, read by
  :func:`gm_engine.werewolf.addressing.addresses`) answered on point by that seat in its next
  line: the answer names the asker, and speaks of a vote (投票 / 入れ) when asked about one,
  of a claim (CO / 占い / 霊媒 / 本物) when asked about one, of some seat otherwise;
* CPU seconds per offline game (both sides alternately, twice; the lower of each);
* ``gm werewolf simulate`` (no talk): the same wins, and its CPU seconds.

The worker imports only what both versions have (the addressing reader is this side's, used
on both sides' logs alike).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_FACT_WORDS = re.compile(r"黒|白|CO|名乗|入れ|投票|票|襲|退席|『")


def _play(seed: int, check: bool) -> dict[str, Any]:
    """One auto game: its spoken lines, vote reasons, and what the checking backend saw."""
    from gm_engine.dice.source import SeededSource
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.sessions.base import SessionIO, SessionSpec
    from gm_engine.sessions.werewolf import WerewolfSession, session_options
    from gm_engine.sessions.werewolf_offline import AutoHuman, PersonaTurnContext
    from gm_engine.werewolf.agents import OfflineAgent
    from gm_engine.werewolf.log import ClaimMade, ClaimRequested, Declined, ResultStated, Speech, VoteTally

    try:
        from gm_engine.werewolf.citations import CitedFact, citation_problems
    except ImportError:  # the old code records no citations
        CitedFact = citation_problems = None  # type: ignore[assignment,misc]

    checked: dict[str, Any] = {"speeches_day2": 0, "cited_day2": 0, "cites": 0, "problems": []}

    class Checking(OfflineBackend):
        async def complete(self, request: Any, context: object | None = None) -> Any:
            response = await super().complete(request, context)
            if check and citation_problems is not None and isinstance(context, PersonaTurnContext):
                for call in response.tool_calls:
                    args = json.loads(call.arguments)
                    cites = [CitedFact.model_validate(c) for c in args.get("cites", [])]
                    checked["cites"] += len(cites)
                    checked["problems"] += citation_problems(context.observation, cites)
                    if call.name == "speak" and context.observation.day >= 2:
                        checked["speeches_day2"] += 1
                        checked["cited_day2"] += any(c.kind != "address" for c in cites)
            return response

    spec = SessionSpec(kind="werewolf", seed=seed, options={"auto": True})
    io = SessionIO(
        backend=Checking(),
        human=AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human"))),
        show=lambda _: None,
    )
    session = WerewolfSession(spec, session_options(spec), io)
    started = time.process_time()
    asyncio.run(session.run())
    cpu = time.process_time() - started
    lines: list[tuple[int, int, str]] = []
    reasons: list[tuple[int, str]] = []
    for entry in session.game.public_log:
        if isinstance(entry, Speech | ClaimMade | ResultStated | ClaimRequested | Declined) and entry.text:
            lines.append((entry.day, entry.speaker, entry.text))
        elif isinstance(entry, VoteTally):
            reasons.extend((v.voter, v.reason) for v in entry.votes)
    return {"lines": lines, "reasons": reasons, "cpu": cpu, "checked": checked}


def _simulate(games: int) -> dict[str, Any]:
    from gm_engine.werewolf.simulate import simulate

    started = time.process_time()
    report = simulate(games, seed=1)
    return {"wins": dict(report.wins), "days": report.total_days, "cpu": time.process_time() - started}


def worker(seeds: int, mode: str) -> None:
    """Print one side's raw results as JSON (``mode``: ``figures``, ``time`` or ``simulate``)."""
    if mode == "simulate":
        print(json.dumps(_simulate(1000)))
        return
    games = [_play(seed, check=mode == "figures") for seed in range(1, seeds + 1)]
    if mode == "time":
        games = [{"cpu": g["cpu"]} for g in games]
    print(json.dumps(games, ensure_ascii=False))


def _run(python: str, seeds: int, mode: str, cwd: Path) -> Any:
    out = subprocess.run(
        [python, str(Path(__file__).resolve()), "--worker", mode, "--seeds", str(seeds)],
        check=True,
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    return json.loads(out.stdout)


def _masker(names: list[str]) -> re.Pattern[str]:
    words = sorted({n for n in names if n}, key=len, reverse=True)
    return re.compile("|".join([*map(re.escape, words), r"P[1-9]", r"[1-9]番", "白", "黒"]))


_DEFAULT_NAMES = [
    "プレイヤー",
    "トウダ",
    "ヒミヤ",
    "アオト",
    "ミスノ",
    "キウミ",
    "シセン",
    "ハイオ",
    "イスイ",
]


def _answered(games: list[dict[str, Any]]) -> tuple[int, int]:
    from gm_engine.werewolf.addressing import addresses

    names = ("", *_DEFAULT_NAMES)
    asked = answered = 0
    for game in games:
        lines = game["lines"]
        for index, (_day, speaker, text) in enumerate(lines):
            for address in addresses(text, names, speaker):
                later = [t for _d, s, t in lines[index + 1 :] if s == address.seat]
                if not later:
                    continue  # the seat never spoke again (it left the table, or the game ended)
                asked += 1
                reply = later[0]
                point = {
                    "vote": re.search(r"投票|入れ", reply),
                    "claim": re.search(r"CO|占い|霊媒|本物", reply),
                    "opinion": any(n in reply for n in _DEFAULT_NAMES if n != names[address.seat]),
                }[address.topic]
                answered += bool(names[speaker] in reply and point)
    return asked, answered


def figures(games: list[dict[str, Any]]) -> dict[str, str]:
    """The issue's figures for one side."""
    mask = _masker(_DEFAULT_NAMES)
    per_game = []
    masked_all: list[str] = []
    for game in games:
        texts = [t for _d, _s, t in game["lines"]]
        per_game.append(len(set(texts)) / max(1, len(texts)))
        masked_all.extend(mask.sub("〇", t) for t in texts)
    reasons = [mask.sub("〇", r) for g in games for seat, r in g["reasons"] if seat != 1]
    proxy_all = proxy_hit = 0
    for game in games:
        for day, _speaker, text in game["lines"]:
            if day >= 2:
                proxy_all += 1
                proxy_hit += bool(_FACT_WORDS.search(text) and mask.search(text))
    speeches = sum(g["checked"]["speeches_day2"] for g in games)
    cited = sum(g["checked"]["cited_day2"] for g in games)
    cites = sum(g["checked"]["cites"] for g in games)
    problems = [p for g in games for p in g["checked"]["problems"]]
    asked, answered = _answered(games)
    total_lines = len(masked_all)
    common = Counter(reasons).most_common(1)
    return {
        "lines (all games)": str(total_lines),
        "distinct/all per game, worst": f"{min(per_game):.3f}",
        "distinct/all per game, mean": f"{sum(per_game) / len(per_game):.3f}",
        "masked distinct/all, all games": f"{len(set(masked_all)) / max(1, total_lines):.3f}",
        "AI vote reasons": str(len(reasons)),
        "vote reasons masked distinct": f"{len(set(reasons)) / max(1, len(reasons)):.1%}",
        "commonest vote reason share": f"{common[0][1] / max(1, len(reasons)):.1%}" if common else "-",
        "day2+ speeches citing a fact (cites)": f"{cited}/{speeches}"
        + (f" = {cited / speeches:.1%}" if speeches else " (none recorded)"),
        "day2+ lines naming a fact (text proxy)": f"{proxy_hit}/{proxy_all}"
        + f" = {proxy_hit / max(1, proxy_all):.1%}",
        "facts cited / not in the speaker's view": f"{cites} / {len(problems)}",
        "addresses answered on point": f"{answered}/{asked}"
        + (f" = {answered / asked:.1%}" if asked else ""),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, default=Path("/work/base"))
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--worker", choices=("figures", "time", "simulate"))
    args = parser.parse_args()
    if args.worker:
        worker(args.seeds, args.worker)
        return
    sides = {"before": (str(args.base / ".venv/bin/python"), args.base), "after": (sys.executable, ROOT)}
    results = {side: figures(_run(py, args.seeds, "figures", cwd)) for side, (py, cwd) in sides.items()}
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    for _round in range(2):  # alternate, so that a burst of load hits both sides
        for side, (py, cwd) in sides.items():
            cpu[side].append(sum(g["cpu"] for g in _run(py, args.seeds, "time", cwd)) / args.seeds)
    sims = {side: _run(py, args.seeds, "simulate", cwd) for side, (py, cwd) in sides.items()}
    for side in sides:
        results[side]["CPU s per offline game (min of 2)"] = f"{min(cpu[side]):.4f}"
        results[side]["simulate 1000 games: CPU s"] = f"{sims[side]['cpu']:.2f}"
        results[side]["simulate 1000 games: wins"] = json.dumps(
            sims[side]["wins"], sort_keys=True, ensure_ascii=False
        )
    ratio = min(cpu["after"]) / min(cpu["before"])
    print(f"{'figure':44} {'before':>22} {'after':>22}")
    for key in results["after"]:
        print(f"{key:44} {results['before'].get(key, '-'):>22} {results['after'][key]:>22}")
    print(f"offline game time after/before: {ratio:.2f}x")
    same = sims["after"]["wins"] == sims["before"]["wins"]
    print(f"simulate unaffected: {'yes' if same else 'NO'} (same wins)")


if __name__ == "__main__":
    main()
