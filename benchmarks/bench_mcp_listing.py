"""How much of a client's context ``gm mcp``'s tool listing takes, phase by phase.

    .venv/bin/python benchmarks/bench_mcp_listing.py

Drives a free-form fight and two scenarios through :class:`~gm_engine.sessions.mcp.McpGame`
and, at each phase, serialises the ``tools/list`` result the server sends (the tools legal
now, their input schemas narrowed to the legal choices, output schemas and annotations:
:func:`~gm_engine.mcp_server.tool_of`), in characters and estimated tokens (the ledger's
estimate by character class). Against it: every tool the server can offer listed at once,
each with its declared (un-narrowed) schema, as a server with one fixed listing would send.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types

from gm_engine.events import ListSink
from gm_engine.llm.ledger import estimate_text_tokens
from gm_engine.mcp_server import tool_of
from gm_engine.sessions.base import SessionSpec
from gm_engine.sessions.mcp import McpGame
from gm_engine.tools.base import Offer, Tool, ToolOutput

HERO = {"name": "アリア", "rank": "駆け出し", "preset": "おまかせ"}
FIGHT = {"kind": "エリート戦", "difficulty": ["弱い"], "enemy_name": "小鬼"}


def listing(tools: list[types.Tool]) -> str:
    """The ``tools/list`` result as JSON on the wire."""
    return types.ListToolsResult(tools=tools).model_dump_json(by_alias=True, exclude_none=True)


def _unused(args: Tool) -> ToolOutput:
    raise AssertionError("never called")


async def drive() -> tuple[list[tuple[str, str, int]], dict[str, type[Tool]]]:
    """(label, listing JSON, tools) at each phase, and every tool class seen."""
    seen: dict[str, type[Tool]] = {}
    rows: list[tuple[str, str, int]] = []

    def snap(game: McpGame, label: str) -> None:
        offers = game.offers()
        for offer in offers:
            seen.setdefault(offer.name, offer.tool)
        rows.append((label, listing([tool_of(o) for o in offers]), len(offers)))

    async def call(game: McpGame, name: str, arguments: dict[str, Any]) -> None:
        outcome = await game.call(name, arguments)
        assert outcome.ok, outcome.text

    game = McpGame(SessionSpec(kind="mcp", seed=11), ListSink())
    snap(game, "start")
    await call(game, "create_character_preset", HERO)
    snap(game, "free (a character)")
    await call(game, "start_battle", FIGHT)
    while game.adventure.table.battle is not None:
        label = f"{game.phase()} r{game.adventure.table.battle.round_number}"
        if not any(label == row[0] for row in rows):
            snap(game, label)
        steps = next(o for o in game.offers() if o.name == "battle_step").spec().parameters
        legal = steps["properties"]["step"]["enum"]
        await call(game, "battle_step", {"step": next(s for s in ("end", "roll", "judge", "narrate",
                                                                  "next_round") if s in legal)})
    snap(game, "free (after the fight)")
    await call(game, "end_adventure", {"summary": "勝利"})
    snap(game, "ended")

    for scenario, answers in (
        ("goblin_shrine", ["アリア", "1", "1", "1", "1", "1", "1", "1"]),
        ("manor_diary", ["ミナ", "1", "1、2", "1", "1", "1"]),
    ):
        game = McpGame(SessionSpec(kind="mcp", seed=12), ListSink())
        await call(game, "start_scenario", {"scenario": scenario})
        snap(game, f"{scenario}: creation")
        for answer in answers:
            if game.creation is None:
                break
            await call(game, "answer_creation", {"answer": answer})
        assert game.creation is None, f"{scenario}: the creation did not finish"
        snap(game, f"{scenario}: first scene")
    return rows, seen


def main() -> int:
    rows, seen = asyncio.run(drive())
    everything = listing([tool_of(Offer(tool=cls, handler=_unused)) for cls in seen.values()])
    print(f"{'listing':34} {'tools':>5} {'chars':>7} {'~tokens':>8}")
    print(f"{'every tool at once (before)':34} {len(seen):>5} {len(everything):>7} "
          f"{estimate_text_tokens(everything):>8}")
    for label, text, count in rows:
        print(f"{label:34} {count:>5} {len(text):>7} {estimate_text_tokens(text):>8}")
    sizes = [len(text) for _, text, _ in rows]
    print(f"per phase: largest {max(sizes)} chars, mean {sum(sizes) // len(sizes)}; "
          f"every tool at once {len(everything)} ({len(seen)} tools)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
