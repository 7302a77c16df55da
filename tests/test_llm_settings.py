"""The model server's settings: the per-read timeout, the request deadline and the number
of requests sent at once, from the profile, the environment and the command line; a
request waiting for a free slot does not spend its deadline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import BackendError, ModelRequest, user_message
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.llm.profiles import HOSTED_TIMEOUT_S, LOCAL_TIMEOUT_S, get_profile
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.werewolf.agents import OfflineAgent

REQUEST = ModelRequest(actor="P2", messages=(user_message("hello"),))


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("GM_REQUEST_DEADLINE", "GM_REQUEST_TIMEOUT", "GM_MAX_CONCURRENT", "GM_LLM_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    return monkeypatch


def test_local_profiles_wait_longer_and_send_one_request_at_a_time(clean_env: pytest.MonkeyPatch) -> None:
    hosted = OpenAIBackend.from_env(model="m", profile="openai")
    assert (hosted.timeout, hosted.request_deadline, hosted.max_concurrent) == (HOSTED_TIMEOUT_S, 120.0, None)
    for name in ("llamacpp", "ollama", "lmstudio"):
        local = OpenAIBackend.from_env(model="m", profile=name)
        assert local.timeout == LOCAL_TIMEOUT_S
        assert local.request_deadline == 2 * LOCAL_TIMEOUT_S
        assert local.max_concurrent == 1
    assert OpenAIBackend.from_env(model="m", profile="vllm").max_concurrent is None  # it batches
    assert get_profile("vllm").local


def test_the_environment_and_the_arguments_set_them(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("GM_REQUEST_TIMEOUT", "90")
    clean_env.setenv("GM_MAX_CONCURRENT", "3")
    backend = OpenAIBackend.from_env(model="m", profile="llamacpp")
    assert (backend.timeout, backend.request_deadline, backend.max_concurrent) == (90.0, 180.0, 3)
    clean_env.setenv("GM_MAX_CONCURRENT", "0")
    assert OpenAIBackend.from_env(model="m", profile="llamacpp").max_concurrent is None  # 0: no limit
    given = OpenAIBackend.from_env(model="m", profile="llamacpp", timeout=5.0, max_concurrent=2)
    assert (given.timeout, given.max_concurrent) == (5.0, 2)
    for variable, bad, message in (
        ("GM_MAX_CONCURRENT", "two", "GM_MAX_CONCURRENT must be a whole number"),
        ("GM_MAX_CONCURRENT", "-1", "GM_MAX_CONCURRENT must be a whole number"),
        ("GM_REQUEST_TIMEOUT", "0", "GM_REQUEST_TIMEOUT must be a positive number"),
    ):
        clean_env.setenv(variable, bad)
        with pytest.raises(BackendError, match=message):
            OpenAIBackend.from_env(model="m")
        clean_env.delenv(variable)


@pytest.mark.parametrize("command", [["werewolf", "play"], ["adventure"], ["resume", "x.jsonl"]])
def test_the_command_line_options(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from gm_engine.cli import build_parser
    from gm_engine.cli._play import backend_settings

    parser = build_parser()
    args = parser.parse_args([*command, "--request-timeout", "200", "--max-concurrent", "1"])
    assert backend_settings(args) == {"request_deadline": None, "request_timeout": 200.0, "max_concurrent": 1}
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--max-concurrent", "many"])
    assert "--max-concurrent: 「many」は0以上の整数ではありません" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--request-timeout", "-1"])
    assert "--request-timeout: 「-1」は秒数（正の数）ではありません" in capsys.readouterr().err


def test_waiting_for_a_slot_does_not_spend_the_deadline() -> None:
    # four requests at once on a one-slot server answering each in 0.3 s: the last is sent
    # 0.9 s after it was asked for, past its 0.75 s deadline, and must still succeed, since
    # the deadline starts when it is sent
    with FakeChatServer([FakeReply.text(f"answer {i}") for i in range(4)], latency_s=0.3) as server:
        backend = OpenAIBackend(
            model="m", base_url=server.base_url, api_key="k", request_deadline=0.75, max_concurrent=1
        )

        async def round_of_four() -> list[str | None]:
            try:
                answers = await asyncio.gather(*(backend.complete(REQUEST) for _ in range(4)))
            finally:
                await backend.aclose()
            return [a.content for a in answers]

        contents = asyncio.run(round_of_four())
        assert sorted(c or "" for c in contents) == [f"answer {i}" for i in range(4)]
        assert server.max_in_flight == 1
        assert backend.queued_s > 0.75
        assert backend.retries == 0


def test_without_a_limit_the_requests_go_at_once() -> None:
    with FakeChatServer([FakeReply.text("a") for _ in range(3)], latency_s=0.3) as server:
        backend = OpenAIBackend(model="m", base_url=server.base_url, api_key="k", max_concurrent=0)

        async def three() -> None:
            try:
                await asyncio.gather(*(backend.complete(REQUEST) for _ in range(3)))
            finally:
                await backend.aclose()

        asyncio.run(three())
        assert server.max_in_flight == 3


def test_one_slot_or_many_the_game_and_its_record_are_the_same(tmp_path: Path) -> None:
    # a vote round of eight on one slot queues; with no limit the requests race: the events
    # keep seat order either way, so the transcripts hold the same events and both replay
    spec = SessionSpec(
        kind="werewolf", seed=4, options={"deal": [2, 3, 1, 1, 2, 2, 4, 5, 6], "narrator": False},
        backend="openai", model="fake",
    )

    def events(limit: int) -> list[tuple[str, object]]:
        path = tmp_path / f"game-{limit}.jsonl"
        with FakeChatServer(responder=lambda body: FakeReply.tool_calls(
            *first_choice_calls(body.get("tools") or [], text="よろしく")), latency_s=0.02,
        ) as server:
            backend = OpenAIBackend(
                model="fake", base_url=server.base_url, api_key="k", profile="llamacpp", max_concurrent=limit
            )
            human = AutoHuman(OfflineAgent(1, SeededSource(f"{spec.seed}/human")))
            record_session(spec, SessionIO(backend=backend, human=human, show=lambda line: None), path,
                           durable=False, remember_seed=False)
            most_at_once = server.max_in_flight
        assert (most_at_once == 1) == (limit == 1)
        report = replay_transcript(read_transcript(path))
        assert report.ok, report.describe()
        return [(e.type, e.payload) for e in read_transcript(path).events]

    assert events(1) == events(0)
