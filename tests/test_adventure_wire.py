"""The adventure loop over the real ``openai`` client and the fake server on 127.0.0.1.

The fake server's answers come from the offline GM (through the request body the client
actually sent), with a 429, a 500 and a malformed tool call injected on the way.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from gm_engine.llm.base import ModelRequest, ToolSpec
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.sessions.adventure import Adventure, AdventureOptions, GMView, offline_gm
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman


async def no_sleep(seconds: float) -> None:
    return None


def test_adventure_over_the_wire_with_transient_errors_and_a_broken_call() -> None:
    sink = ListSink()
    shown: list[str] = []
    human = ScriptedHuman(["ミナ 熟練 おまかせ", "進む"], when_done="次へ")
    spec = SessionSpec(kind="adventure", seed=0, backend="openai", model="fake-gm")
    holder: dict[str, Adventure] = {}

    def responder(body: dict[str, Any]) -> FakeReply:
        # the adventure loop is blocked on this very request, so reading its state is safe
        request = ModelRequest(
            actor="gm",
            messages=tuple(body["messages"]),
            tools=tuple(
                ToolSpec(
                    name=t["function"]["name"],
                    description=t["function"]["description"],
                    parameters=t["function"]["parameters"],
                )
                for t in body.get("tools", [])
            ),
        )
        answer = offline_gm(request, GMView(holder["adventure"]))
        if answer.tool_calls:
            calls = [(c.name, json.loads(c.arguments)) for c in answer.tool_calls]
            return FakeReply.tool_calls(*calls, content=answer.content)
        return FakeReply.text(answer.content or "")

    injected = [
        FakeReply.error(429, "slow down", retry_after=0.01),
        FakeReply.error(500, "boom"),
        FakeReply.tool_calls(("create_character_preset", '{"name": "ミナ", "rank": ')),  # broken JSON
    ]
    with FakeChatServer(responder=responder) as server:
        backend = OpenAIBackend(model="fake-gm", base_url=server.base_url, api_key="k", sleep=no_sleep)
        adventure = Adventure(
            spec, SessionIO(backend=backend, human=human, sink=sink, show=shown.append), AdventureOptions()
        )
        holder["adventure"] = adventure
        # the greeting is answered by the GM; the faults hit the turn after the player's first line
        original = human.ask

        def ask(prompt: str, choices: Any = None) -> str:
            if human.asked == 0:
                server.add(*injected)
            return original(prompt, choices)

        human.ask = ask  # type: ignore[method-assign]
        outcome = asyncio.run(adventure.run())
    assert outcome.summary.startswith("ミナは小鬼の頭目を退けた")
    assert backend.retries == 2
    statuses = [r.body.get("model") for r in server.requests]
    assert set(statuses) == {"fake-gm"}
    errors = [p["result"] for k, p in sink.payloads() if k == "tool_result" and not p["ok"]]
    assert len(errors) == 1 and "not valid JSON" in errors[0]
    # the request after the broken call carries the error as the tool result
    answered = [
        r for r in server.requests
        if r.body["messages"] and r.body["messages"][-1].get("content") == errors[0]
    ]
    assert len(answered) == 1 and answered[0].body["messages"][-1]["role"] == "tool"
    assert "〈BATTLE_JUDGE LOG〉" in "\n".join(shown)
    assert outcome.figures["model_calls"] == len(server.requests) - 2  # the two retried failures
    assert server.unexpected == 0


def test_the_command_stops_on_a_failing_server_and_names_the_transcript(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    """`gm adventure` against a server that refuses every call: exit 2, why on stderr, and the
    transcript (without its end line) named for `gm resume`."""
    import argparse

    from gm_engine.cli.adventure import register
    from gm_engine.transcripts.format import read_transcript

    parser = argparse.ArgumentParser(prog="gm")
    register(parser.add_subparsers())
    target = tmp_path / "adventure.jsonl"
    with FakeChatServer(responder=lambda body: FakeReply.error(403, "no access")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        args = parser.parse_args(
            ["adventure", "--backend", "openai", "--model", "m", "--seed", "2", "--scenario", "none",
                 "--record", str(target)]
        )
        status = args.handler(args)
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(
        "gm adventure: モデルのサーバーがリクエストを断りました（HTTP 403）（サーバーの返答: no access）。"
    )
    assert f"記録は保存してあります。続きは `gm resume {target}` で再開できます" in err
    assert read_transcript(target, require_end=False).end is None
