"""The werewolf loop over the real ``openai`` client and the fake server on 127.0.0.1.

The server answers from the tools in the request body it actually received (first choice of
every enum), after a 429, a 500 and a malformed tool call injected on the way.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from gm_engine.dice.source import SeededSource
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.werewolf import play_werewolf
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.werewolf.agents import OfflineAgent


async def no_sleep(seconds: float) -> None:
    return None


def responder(body: dict[str, Any]) -> FakeReply:
    tools = body.get("tools") or []
    if not tools:
        return FakeReply.text("さあ、続けましょう。")
    return FakeReply.tool_calls(*first_choice_calls(tools, text="よろしくね"))


def test_a_whole_game_over_the_wire() -> None:
    injected = [
        FakeReply.error(429, "slow down", retry_after=0.01),
        FakeReply.error(500, "boom"),
        FakeReply.tool_calls(("divine", '{"target": ')),  # broken JSON
    ]
    sink = ListSink()
    screen: list[str] = []
    with FakeChatServer(injected, responder=responder) as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", sleep=no_sleep)
        io = SessionIO(
            backend=backend,
            human=AutoHuman(OfflineAgent(1, SeededSource("wire/human"))),
            sink=sink,
            show=screen.append,
        )
        # P1 a 村人 and the 占い師 at P2: the first persona request is P2's 事前占い
        spec = SessionSpec(
            kind="werewolf", seed=4, options={"deal": [2, 3, 1, 1, 2, 2, 4, 5, 6], "narrator": False},
            backend="openai", model="fake",
        )
        outcome, figures = asyncio.run(play_werewolf(spec, io))
        bodies = [r.body for r in server.requests if r.path.endswith("/chat/completions")]
    assert "の勝利" in outcome.summary
    assert "【ゲーム終了】" in screen
    assert figures.fallbacks == 0
    # the broken call was answered with an error and the persona asked again
    errors = [p for k, p in sink.payloads() if k == "tool_result" and not p["ok"]]
    assert errors[0]["actor"] == "P2" and "not valid JSON" in errors[0]["result"]
    # the 429 and the 500 were retried by the client: three bodies for the first request
    assert bodies[0] == bodies[1] == bodies[2]
    # what the events recorded is what went over the wire, tools included (concurrent rounds
    # reach the server in any order; the events keep seat order)
    requests = [p for k, p in sink.payloads() if k == "model_request"]

    def key(messages: Any, tools: list[str]) -> str:
        return json.dumps([messages, tools], ensure_ascii=False, sort_keys=True)

    sent = sorted(key(b["messages"], [t["function"]["name"] for t in b["tools"]]) for b in bodies[2:])
    recorded = sorted(key(e["messages"], [t["name"] for t in e["tools"]]) for e in requests)
    assert sent == recorded
    divine = next(t for t in bodies[0]["tools"] if t["function"]["name"] == "divine")
    assert divine["function"]["parameters"]["properties"]["target"]["enum"] == [
        "P1", "P3", "P4", "P5", "P6", "P7", "P8", "P9",
    ]
