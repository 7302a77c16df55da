"""``gm werewolf play --backend openai``: the ledger of the model calls, printed at the end of a
game and at a stop, in the player's language, through the fake server on a pseudo-terminal.
The ledger only reads: the requests sent and the transcript are those of an unmetered game."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import ModelRequest, ModelResponse, Usage
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply, Quirk, tool_model
from gm_engine.llm.ledger import Ledger
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.messages.ledger import ledger_summary
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.tools.base import FALLBACK_CAUSES, fallback_cause
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_file
from gm_engine.werewolf.agents import OfflineAgent
from tests.pty_run import PtyRun

#: Every seat's role, P1 a villager: the 占い師 (P3) is a persona, so the 事前占い is a model call.
DEAL = "2,1,3,1,2,2,4,5,6"

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def screen(raw: bytes) -> str:
    return ANSI.sub(b"", raw).decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.fixture
def quirky_server() -> Iterator[FakeChatServer]:
    # a template without tool support: every turn comes through the re-ask and a call in the text
    with FakeChatServer.with_quirks("drops_tools", calls=first_choice_calls) as server:
        yield server


def play(server: FakeChatServer, record: Path, *extra: str, locale: str = "ja") -> PtyRun:
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k", "GM_LOCALE": locale}
    args = ["werewolf", "play", "--seed", "3", "--deal", DEAL, "--backend", "openai", "--model", "fake",
            "--profile", "llamacpp", "--no-narrator", "--record", str(record), *extra]
    return PtyRun(args, env)


def chat_requests(server: FakeChatServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.path.endswith("/chat/completions")]


def test_a_whole_game_ends_with_the_ledger_in_japanese(quirky_server: FakeChatServer, tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    status, raw = play(quirky_server, record, "--auto").finish()
    out = screen(raw)
    assert status == 0, out[-2000:]
    calls = len(chat_requests(quirky_server))
    events = read_transcript(record).events
    assert calls == sum(1 for e in events if e.type == "model_request") > 50
    total = re.search(r"^モデルの呼び出し: (\d+)回、入力(\d+)＋出力(\d+)トークン、応答時間 [\d.]+ 秒",
                      out, re.M)
    assert total is not None, out[-2000:]
    assert int(total[1]) == calls
    reported = [e.payload["usage"] for e in events if e.type == "model_response" and e.payload.get("usage")]
    assert int(total[2]) == sum(u["prompt_tokens"] for u in reported)
    assert int(total[3]) == sum(u["completion_tokens"] for u in reported)
    assert "  トークンを数えたもの: サーバー\n" in out
    assert "  代わりにオフラインのエージェントが指した手番: 0回\n" in out
    reasks = sum(1 for e in events if e.type == "recovery" and e.payload["kind"] == "reask")
    read = sum(1 for e in events if e.type == "recovery" and e.payload["kind"] == "calls_in_text")
    assert reasks and read
    recovered = f"本文に書かれた呼び出しを読んだ {read}回、ツールを呼ぶよう一度言い直しを頼んだ {reasks}回"
    assert f"  立て直し: {recovered}\n" in out
    # after the game's end on the screen, before the line with the seed and the record's path
    assert out.index("【ゲーム終了】") < out.index("モデルの呼び出し: ") < out.index("（シード 3）")
    assert "model calls" not in out
    # the metered game replays as recorded, to the byte
    for tolerant in (False, True):
        report = replay_file(record, tolerant=tolerant)
        assert report.ok, report.describe()


def test_the_ledger_in_english(quirky_server: FakeChatServer, tmp_path: Path) -> None:
    status, raw = play(quirky_server, tmp_path / "game.jsonl", "--auto", locale="en").finish()
    out = screen(raw)
    assert status == 0, out[-2000:]
    calls = len(chat_requests(quirky_server))
    assert re.search(rf"^model calls: {calls} calls, \d+ prompt \+ \d+ completion tokens, latency", out, re.M)
    assert "  tokens counted by the server\n" in out and "  turns played by the fallback: 0\n" in out
    assert "  recoveries: calls read from the text " in out and "モデルの呼び出し" not in out


def test_the_ledger_at_a_quit(tmp_path: Path) -> None:
    """P1 at the terminal types /quit at the first question: the calls made so far (the
    persona seer's 事前占い) are summed up before the line that says how to go on."""
    record = tmp_path / "game.jsonl"
    with FakeChatServer.with_quirks(calls=first_choice_calls) as server:
        run = play(server, record, "--plain")
        run.next_prompt(0)
        run.wait_reading()
        run.send(b"/quit\n")
        status, raw = run.finish()
        calls = len(chat_requests(server))
    out = screen(raw)
    assert status == 0 and calls >= 1, out
    assert re.search(rf"^モデルの呼び出し: {calls}回、", out, re.M), out
    assert out.index("モデルの呼び出し: ") < out.index(f"gm resume {record}")
    assert "  代わりにオフラインのエージェントが指した手番: 0回" in out


def test_the_ledger_at_a_stop_by_the_server_with_fallbacks_by_cause(tmp_path: Path) -> None:
    """A model that never calls a tool (every turn goes to the fallback after its one re-ask),
    then a server that refuses the key: the ledger, with the fallbacks by cause, comes before
    the stop's reason and the way to resume."""
    answered: list[int] = []

    def answer(body: dict[str, Any]) -> FakeReply:
        answered.append(1)
        if len(answered) > 12:
            return FakeReply.error(401, "bad key")
        return FakeReply.text("考え中です。", usage=(100, 5))

    record = tmp_path / "game.jsonl"
    with FakeChatServer(responder=answer) as server:
        status, raw = play(server, record, "--auto").finish()
        calls = len(chat_requests(server))
    out = screen(raw)
    assert status == 2, out
    events = read_transcript(record, require_end=False).events
    fallbacks = [e for e in events if e.type == "fallback"]
    assert fallbacks and all(fallback_cause(e.payload["reason"]) == "text_only" for e in fallbacks)
    # the twelve answered calls were metered; the refused thirteenth never came back
    assert re.search(r"^モデルの呼び出し: 12回、入力1200＋出力60トークン", out, re.M), out
    assert calls == 13
    # every fallback by its cause; the ledger counts those of a concurrent round the stop cut
    # off too (spent, though not recorded: the resumed game plays that round again)
    line = (
        r"^  代わりにオフラインのエージェントが指した手番: (\d+)回（"
        r"言い直しを頼んでもツールを呼ばない答え (\d+)回）$"
    )
    shown = re.search(line, out, re.M)
    assert shown is not None, out
    assert shown.group(1) == shown.group(2) and int(shown.group(1)) >= len(fallbacks)
    assert out.index("モデルの呼び出し: ") < out.index("モデルのサーバーがこのゲーム向けに設定されていません")
    assert out.index("モデルの呼び出し: ") < out.index(f"gm resume {record}")


@pytest.mark.parametrize("quirks", [(), ("drops_tools",)])
def test_the_ledger_changes_no_request_and_no_event(tmp_path: Path, quirks: tuple[Quirk, ...]) -> None:
    """The metered command sends the very requests an unmetered session sends, and records the
    same events (latencies aside, which no event holds)."""
    record = tmp_path / "metered.jsonl"
    with FakeChatServer.with_quirks(*quirks, calls=first_choice_calls) as server:
        status, raw = play(server, record, "--auto").finish()
        metered = sorted(json.dumps(b, sort_keys=True, ensure_ascii=False) for b in chat_requests(server))
    assert status == 0, screen(raw)[-2000:]
    header = read_transcript(record).header
    spec = SessionSpec(kind="werewolf", seed=3, options=header.options, backend="openai", model="fake")
    plain = tmp_path / "plain.jsonl"
    with FakeChatServer.with_quirks(*quirks, calls=first_choice_calls) as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", profile="llamacpp")
        human = AutoHuman(OfflineAgent(1, SeededSource(f"{spec.seed}/human")))
        record_session(spec, SessionIO(backend=backend, human=human, show=lambda line: None), plain,
                       durable=False, remember_seed=False)
        unmetered = sorted(json.dumps(b, sort_keys=True, ensure_ascii=False) for b in chat_requests(server))
    assert metered == unmetered

    def kinds(path: Path) -> list[tuple[str, str]]:
        return [(e.type, json.dumps(e.payload, sort_keys=True, ensure_ascii=False))
                for e in read_transcript(path).events]

    assert kinds(record) == kinds(plain)


def test_every_cause_has_its_words() -> None:
    ledger = Ledger(count_fallbacks=True)
    request = ModelRequest(actor="P2", messages=({"role": "user", "content": "x"},))
    ledger.record(request, ModelResponse(content="y", usage=Usage(prompt_tokens=3, completion_tokens=1)))
    for cause in FALLBACK_CAUSES:
        ledger.note_fallback(cause)
    for locale in ("ja", "en"):
        line = ledger_summary(ledger, locale).splitlines()[-1]
        assert str(len(FALLBACK_CAUSES)) in line
        assert "cause_" not in line and "ledger." not in line
    text_only = "error: you answered without calling a tool; call exactly one of: vote"
    assert fallback_cause(text_only) == "text_only"
    assert fallback_cause("error: invalid arguments for vote: target: ...") == "invalid_arguments"
    assert fallback_cause("error: vote refused by the rules: Vote P3 is not legal now") == "refused_by_rules"
    assert fallback_cause("the turn ended without an action") == "no_action"
    assert fallback_cause("something new") == "other"


def test_gm_resume_sums_up_the_calls_of_the_part_it_played(tmp_path: Path) -> None:
    """A game stopped by a refusing server, resumed against a working one: the resumed part's
    calls are metered (the replayed ones are read from the record and cost nothing)."""
    answered: list[int] = []
    model = tool_model(calls=first_choice_calls)

    def refusing_after_ten(body: dict[str, Any]) -> FakeReply:
        answered.append(1)
        return FakeReply.error(401, "bad key") if len(answered) > 10 else model(body)

    record = tmp_path / "game.jsonl"
    with FakeChatServer(responder=refusing_after_ten) as server:
        status, raw = play(server, record, "--auto").finish()
    assert status == 2, screen(raw)
    with FakeChatServer.with_quirks(calls=first_choice_calls) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k", "GM_LOCALE": "ja"}
        status, raw = PtyRun(["resume", str(record), "--plain"], env).finish()
        live = len(chat_requests(server))
    out = screen(raw)
    assert status == 0, out[-2000:]
    assert live > 10
    assert re.search(rf"^モデルの呼び出し: {live}回、", out, re.M), out[-2000:]
    assert out.index("【ゲーム終了】") < out.index("モデルの呼び出し: ") < out.index("（シード 3）")
