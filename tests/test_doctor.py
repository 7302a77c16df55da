"""``gm doctor`` against the fake server in each quirk mode: it names the quirk, recommends
the profile that fits, and explains each configuration error with its fix."""

from __future__ import annotations

import asyncio
import re
import socket

import pytest

from gm_engine.cli import main
from gm_engine.cli._doctor_report import report
from gm_engine.llm.doctor import found_quirks, probe_server, report_lines
from gm_engine.llm.fakeserver import QUIRKS, FakeChatServer, Quirk
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.llm.profiles import get_profile


def doctor(server: FakeChatServer, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    status = main(["doctor", "--base-url", server.base_url, *extra])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GM_MODEL", "OPENAI_MODEL", "GM_LLM_PROFILE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    # the probes' readings are checked in the report's English; the Japanese one is the
    # same report line for line (test_the_report_in_each_language)
    monkeypatch.setenv("GM_LOCALE", "en")


#: Each quirk mode, the line naming the quirk, and the profile recommended (None: any).
CASES: list[tuple[tuple[Quirk, ...], tuple[str, ...], str | None]] = [
    ((), (), "openai"),
    (
        ("text_before_call", "parallel_by_default"),
        (
            "free text before the call under tool_choice=required (llama.cpp)",
            "several calls when parallel_tool_calls is left out (llama.cpp): send false explicitly",
        ),
        "llamacpp",
    ),
    (("ignores_tool_choice",), ("tool_choice ignored (Ollama)",), "ollama"),
    (
        ("empty_on_required", "rejects_named_choice"),
        (
            "tool_choice=required answered with an empty reply (LM Studio)",
            "a tool_choice naming a function refused (LM Studio)",
        ),
        "lmstudio",
    ),
    (("loose_without_strict",), ("argument schemas enforced only with strict (vLLM)",), "vllm"),
    (("drops_tools",), ("tools dropped silently (HTTP 200, plain text)",), None),
    (("calls_in_content",), ("calls written in the text",), None),
    (("calls_in_code_block",), ("calls written in the text",), None),
    (("pads_strings",), ("free strings padded with white space",), "openai"),
]


def test_every_quirk_has_a_case() -> None:
    covered = {q for quirks, _, _ in CASES for q in quirks}
    assert covered | {"needs_jinja"} == set(QUIRKS)


@pytest.mark.parametrize(("quirks", "named", "profile"), CASES)
def test_doctor_names_each_quirk_and_the_profile(
    quirks: tuple[Quirk, ...], named: tuple[str, ...], profile: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeChatServer.with_quirks(*quirks, context_length=4096) as server:
        status, out = doctor(server, capsys)
    assert status == 0, out
    assert "context length: 4096 tokens" in out
    assert "models listed: fake" in out and "latency: median" in out
    found = [line.removeprefix("quirk: ") for line in out.splitlines() if line.startswith("quirk: ")]
    for line in named:
        assert any(f.startswith(line) for f in found), (line, found)
    if not quirks:
        assert found == []
    if profile is not None:
        assert f"recommended profile: {profile} " in out


def test_the_configured_profile_is_held_against_what_was_measured(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer.with_quirks("text_before_call", "parallel_by_default") as server:
        _, out = doctor(server, capsys, "--profile", "openai")
    assert "configured profile openai: parallel_calls_unless_disabled=False, measured True" in out


@pytest.mark.parametrize(
    ("quirks", "options", "fix"),
    [
        (("needs_jinja",), {}, "restart it with --jinja"),
        ((), {"api_key": "the-right-one"}, "set OPENAI_API_KEY to a key it accepts"),
        ((), {"models": ["qwen2.5:7b"]}, "the server has no model 'llama3'"),
        ((), {"context_length": 30}, "longer than the server's context window"),
    ],
)
def test_doctor_explains_configuration_errors_in_one_line(
    quirks: tuple[Quirk, ...], options: dict[str, object], fix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeChatServer.with_quirks(*quirks, **options) as server:  # type: ignore[arg-type]
        status, out = doctor(server, capsys, "--model", "llama3")
    assert status == 1
    problems = [line for line in out.splitlines() if line.startswith("problem: ")]
    assert len(problems) == 1 and fix in problems[0], out
    assert "recommended profile" not in out


def test_doctor_says_when_nothing_listens(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    status = main(["doctor", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m"])
    out = capsys.readouterr().out
    assert status == 2
    assert "unreachable: connection failed" in out and "is the server running" in out


def test_doctor_reads_llamacpp_props_for_its_slots_and_context(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer.with_quirks("text_before_call", context_length=8192, slots=1) as server:
        status, out = doctor(server, capsys, "--model", "fake")
        props = [r for r in server.requests if r.path == "/props"]
    assert status == 0 and len(props) == 1
    assert "context length: 8192 tokens" in out
    assert "slots: 1 (requests it serves at once: --max-concurrent 1" in out


ENGLISH = re.compile(
    r"\b(?:calls?|server|model|tool_choice required|answer|latency|profile|quirk|problem)\b: "
)


@pytest.mark.parametrize(("quirks", "named", "profile"), CASES)
def test_the_report_in_each_language(
    quirks: tuple[Quirk, ...], named: tuple[str, ...], profile: str | None
) -> None:
    with FakeChatServer.with_quirks(*quirks, context_length=4096, slots=2) as server:
        backend = OpenAIBackend(
            model="fake", base_url=server.base_url, profile=get_profile("openai"), max_attempts=1
        )
        findings = asyncio.run(probe_server(backend))
        url = server.base_url
    chosen = get_profile("openai")
    # the English report is the probes' own, word for word
    assert report(findings, chosen, "en") == report_lines(findings, chosen)
    japanese = report(findings, chosen, "ja")
    assert len(japanese) == len(report_lines(findings, chosen))
    assert not [line for line in japanese if ENGLISH.search(line)], japanese
    assert japanese[0] == f"サーバー: {url}" and "コンテキスト長: 4096トークン" in japanese
    assert sum(line.startswith("癖: ") for line in japanese) == len(found_quirks(findings))


def test_a_configuration_error_in_japanese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GM_LOCALE", "ja")
    with FakeChatServer.with_quirks("needs_jinja") as server:
        status, out = doctor(server, capsys, "--model", "llama3")
    assert status == 1
    problems = [line for line in out.splitlines() if line.startswith("問題: ")]
    assert len(problems) == 1
    assert problems[0].startswith("問題: llama.cpp のサーバーが --jinja なしで起動されているため")
    assert "（サーバーの返答: " in problems[0] and "restart it" not in out


def test_a_refusal_quotes_the_server_inside_the_players_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GM_LOCALE", "ja")
    with FakeChatServer.with_quirks("rejects_named_choice") as server:
        status, out = doctor(server, capsys)
    assert status == 0, out
    named = next(line for line in out.splitlines() if line.startswith("ツールを名指しした tool_choice: "))
    expected = "ツールを名指しした tool_choice: 断られました（HTTP 400）: Invalid tool_choice"
    assert named.startswith(expected), named
    assert "request refused" not in out  # the client's English is not shown


NO_CALL_AT_ALL = "the server never sent a tool call as a call, so no probe could show it"
DROPPED = "the server dropped the tools, so no probe could show it"
ALL_FLAGS = (
    "supports_tool_choice_required", "supports_named_tool_choice", "honours_tool_choice", "text_before_call",
    "supports_parallel_tool_calls", "parallel_calls_unless_disabled", "supports_strict_schema",
    "strict_any_schema",
)

#: One case per quirk of the issue: the quirk line gm doctor prints, flags it must have
#: measured (name -> value), flags it must call unknown (name -> why), the profile it
#: recommends (None: it says none can be told).
QUIRK_CASES: dict[Quirk, tuple[str, dict[str, bool], dict[str, str], str | None]] = {
    "drops_tools": (
        "tools dropped silently (HTTP 200, plain text)", {}, dict.fromkeys(ALL_FLAGS, DROPPED), None,
    ),
    "calls_in_content": (
        "calls written in the text (<tool_call> tags or JSON)", {},
        dict.fromkeys(ALL_FLAGS, NO_CALL_AT_ALL), None,
    ),
    "calls_in_code_block": (
        "calls written in the text (<tool_call> tags or JSON)", {},
        dict.fromkeys(ALL_FLAGS, NO_CALL_AT_ALL), None,
    ),
    "text_before_call": (
        "free text before the call under tool_choice=required (llama.cpp)",
        {"text_before_call": True, "supports_tool_choice_required": True}, {}, "openai",
    ),
    "parallel_by_default": (
        "several calls when parallel_tool_calls is left out (llama.cpp)",
        {"parallel_calls_unless_disabled": True, "supports_parallel_tool_calls": True}, {}, "openai",
    ),
    "ignores_tool_choice": (
        "tool_choice ignored (Ollama)",
        {"honours_tool_choice": False, "supports_parallel_tool_calls": True},
        {"text_before_call": "its probe got no tool call back"}, "ollama",
    ),
    "empty_on_required": (
        "tool_choice=required answered with an empty reply (LM Studio)",
        {"supports_tool_choice_required": False, "supports_strict_schema": True},
        {"text_before_call": "its probe got no tool call back"}, "openai",
    ),
    "rejects_named_choice": (
        "a tool_choice naming a function refused (LM Studio)",
        {"supports_named_tool_choice": False}, {}, "openai",
    ),
    "loose_without_strict": (
        "argument schemas enforced only with strict (vLLM)",
        {"strict_any_schema": True, "supports_strict_schema": True}, {}, "vllm",
    ),
    "pads_strings": (
        "free strings padded with white space (a grammar built from a schema without a pattern)",
        {"supports_tool_choice_required": True}, {}, "openai",
    ),
}


def test_every_quirk_of_the_issue_has_its_own_doctor_case() -> None:
    assert set(QUIRK_CASES) | {"needs_jinja"} == set(QUIRKS)


@pytest.mark.parametrize("quirk", sorted(QUIRK_CASES))
def test_gm_doctor_names_the_quirk_and_only_what_was_shown(
    quirk: Quirk, capsys: pytest.CaptureFixture[str]
) -> None:
    named, measured, unknown, profile = QUIRK_CASES[quirk]
    with FakeChatServer.with_quirks(quirk) as server:
        status, out = doctor(server, capsys)
    assert status == 0, out
    lines = out.splitlines()
    quirks = [line.removeprefix("quirk: ") for line in lines if line.startswith("quirk: ")]
    assert any(q.startswith(named) for q in quirks), (named, quirks)
    shown = next((line.removeprefix("measured: ") for line in lines if line.startswith("measured: ")), "")
    shown_flags = dict(pair.split("=") for pair in shown.split(", ")) if shown else {}
    for flag, value in measured.items():
        assert shown_flags.get(flag) == str(value), (flag, shown)
    said_unknown = {
        line.removeprefix("unknown: ").split(" (")[0]: line.split(" (", 1)[1].rstrip(")")
        for line in lines if line.startswith("unknown: ")
    }
    assert not set(said_unknown) & set(shown_flags), out  # a flag is measured or unknown, never both
    for flag, why in unknown.items():
        assert said_unknown.get(flag) == why, (flag, said_unknown)
    if profile is None:
        # no setting could be measured, and the calls in the text are read under every profile
        assert (
            "recommended profile: none can be told from these answers; the calls come written in the "
            "text, which gm reads under every profile: choose the one of your server "
            "(llamacpp, lmstudio, ollama, openai, vllm)"
        ) in lines
        assert not shown_flags  # nothing a server-side setting shapes was seen
    else:
        assert any(line.startswith(f"recommended profile: {profile} ") for line in lines), out


def test_gm_doctor_names_a_missing_jinja(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer.with_quirks("needs_jinja") as server:
        status, out = doctor(server, capsys)
    assert status == 1
    assert [line for line in out.splitlines() if line.startswith("problem: ")] == [
        "problem: the llama.cpp server was started without --jinja, so it refuses tools: restart it with "
        "--jinja (llama-server --jinja -m MODEL.gguf) (the server said: tools param requires --jinja flag)"
    ]


def test_unknown_flags_in_japanese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GM_LOCALE", "ja")
    with FakeChatServer.with_quirks("drops_tools") as server:
        status, out = doctor(server, capsys)
    assert status == 0
    unknown = [line for line in out.splitlines() if line.startswith("判定できません: ")]
    assert len(unknown) == len(ALL_FLAGS)
    why = "サーバーがツールを捨てたため、どの問い合わせでも確かめられません"
    assert f"判定できません: supports_parallel_tool_calls（{why}）" in unknown
    assert "おすすめのプロファイル: この答えからは決められません" in out and "unknown" not in out
