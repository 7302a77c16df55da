"""The werewolf session loop: whole games on the offline, scripted and misbehaving backends."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import BackendDefaults, BackendError, ModelRequest, ModelResponse, ToolCall
from gm_engine.llm.offline import OfflineBackend
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.base import ListSink, SessionError, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner
from gm_engine.sessions.werewolf import (
    WerewolfSession,
    parse_discussion,
    run_werewolf,
    session_options,
)
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.tools.base import response_with_calls
from gm_engine.werewolf import Claim, Role, Speak
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import CastVote, VoteTally


def auto_io(seed: int, backend: Any = None) -> tuple[SessionIO, ListSink, list[str]]:
    sink = ListSink()
    screen: list[str] = []
    human = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))
    io = SessionIO(backend=backend or OfflineBackend(), human=human, sink=sink, show=screen.append)
    return io, sink, screen


def spec(seed: int, **options: Any) -> SessionSpec:
    return SessionSpec(kind="werewolf", seed=seed, options=options)


class FirstChoiceBackend(BackendDefaults):
    """A model that answers from the offered tools alone (first enum value of every field)."""

    name = "first-choice"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        self.requests.append(request)
        if not request.tools:
            return ModelResponse(content="進行します。")
        tools = [t.model_dump() for t in request.tools]
        return response_with_calls(*first_choice_calls(tools), id_prefix=f"c{request.actor}_{request.turn}")


@pytest.mark.parametrize("role", [1, 2, 3, 4, 5, 6])
def test_offline_game_runs_to_the_end(role: int) -> None:
    io, sink, screen = auto_io(role)
    outcome = run_werewolf(spec(role, role=role), io)
    assert outcome.summary.endswith("日目）")
    assert "の勝利" in outcome.summary
    assert outcome.figures["fallbacks"] == 0
    kinds = [kind for kind, _ in sink.payloads()]
    assert kinds.count("model_request") == kinds.count("model_response") == outcome.figures["model_calls"]
    assert kinds.count("dice") == 1  # the deal
    assert screen.count("【ゲーム終了】") == 1
    assert screen[-5] == "【ゲーム終了】" and screen[-1].startswith("最終役職一覧：")
    assert f"あなたの役職は {Role(role).label} です" in screen
    # the rules' fixed formats reach the screen
    assert any(line == "【投票結果】" for line in screen)
    assert any(line.endswith("が退席しました】") for line in screen)
    assert any(line.startswith("【公開情報】") for line in screen)


def test_same_seed_same_game_byte_for_byte() -> None:
    runs = []
    for _ in range(2):
        io, sink, screen = auto_io(11)
        run_werewolf(spec(11), io)  # P1's role is chosen by its agent and recorded as human input
        runs.append((json.dumps(sink.payloads(), ensure_ascii=False, sort_keys=True), screen))
    assert runs[0] == runs[1]
    io, sink, _ = auto_io(12)
    run_werewolf(spec(12), io)
    assert json.dumps(sink.payloads(), ensure_ascii=False, sort_keys=True) != runs[0][0]


def test_registered_runner_and_bad_options() -> None:
    assert get_runner("werewolf") is run_werewolf
    with pytest.raises(SessionError, match="role"):
        session_options(spec(1, role=9))
    with pytest.raises(SessionError, match="配布確認"):
        session_options(spec(1, deal=[1, 1, 1, 2, 2, 3, 4, 5, 6]))
    with pytest.raises(SessionError, match="食い違っています"):
        session_options(spec(1, role=2, deal=[3, 1, 1, 2, 2, 2, 4, 5, 6]))
    with pytest.raises(SessionError, match="colour"):
        session_options(spec(1, colour="red"))
    for bad_name in ("トウダ", "  ", "P(1)"):
        with pytest.raises(SessionError, match="human_name"):
            session_options(spec(1, human_name=bad_name))


def test_scripted_backend_plays_a_whole_game() -> None:
    """ScriptedBackend answering each request from its tools: the loop needs nothing else."""

    def reply(request: ModelRequest) -> ModelResponse:
        if not request.tools:
            return ModelResponse(content="さあ、続けましょう。")
        calls = first_choice_calls([t.model_dump() for t in request.tools])
        return response_with_calls(*calls)

    backend = ScriptedBackend([(None, reply)] * 2000)
    io, sink, _screen = auto_io(5, backend)
    outcome = run_werewolf(spec(5, deal=[2, 1, 1, 2, 2, 3, 4, 5, 6]), io)
    assert "の勝利" in outcome.summary
    assert outcome.figures["fallbacks"] == 0
    assert backend.leftovers == 2000 - len(backend.requests)
    # every vote round asked every living persona once, concurrently, and the events are in seat order
    requests = [p for k, p in sink.payloads() if k == "model_request"]
    votes = [p["actor"] for p in requests if p["phase"] in ("vote", "runoff")]
    first_day = votes[:8]
    assert first_day == [f"P{seat}" for seat in range(2, 10)]


def test_broken_and_illegal_calls_are_answered_then_fall_back() -> None:
    """A model that sends broken JSON, an unknown tool, an illegal target: each gets an error
    as the tool result, the state does not move, and after the budget the fallback plays."""

    class Stubborn(BackendDefaults):
        name = "stubborn"

        def __init__(self) -> None:
            self.n = 0

        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            self.n += 1
            if not request.tools:
                return ModelResponse(content="…")
            name, arguments = [
                ("speak", '{"text": "unterminated'),
                ("fly", "{}"),
                ("vote", json.dumps({"target": "P0", "reason": "x"})),
            ][self.n % 3]
            return ModelResponse(tool_calls=(ToolCall(id=f"s{self.n}", name=name, arguments=arguments),))

    io, sink, _screen = auto_io(3, Stubborn())
    outcome = run_werewolf(spec(3, role=2, retry_budget=1), io)
    assert "の勝利" in outcome.summary
    results = [p for k, p in sink.payloads() if k == "tool_result"]
    errors = [p["result"] for p in results if not p["ok"]]
    assert any("not valid JSON" in e for e in errors)
    assert any("unknown tool 'fly'" in e for e in errors)
    fallbacks = [p for k, p in sink.payloads() if k == "fallback"]
    assert fallbacks and outcome.figures["fallbacks"] == len(fallbacks)
    # a refused call moves nothing: the only state change after one is the fallback's own action
    for i, (kind, payload) in enumerate(sink.payloads()[:-1]):
        if kind == "tool_result" and not payload["ok"]:
            following = sink.payloads()[i + 1][0]
            assert following in ("model_request", "fallback", "tool_result", "state")
            if following == "state":
                assert sink.payloads()[i + 2][0] == "fallback"


def test_illegal_claim_is_refused_with_the_rule() -> None:
    """A 村人 persona trying to claim 占い師 is told the club rule; nothing is applied."""

    class Claimer(BackendDefaults):
        name = "claimer"

        def __init__(self) -> None:
            self.refused: list[str] = []

        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            if not request.tools:
                return ModelResponse(content="…")
            for message in request.messages:
                if message.get("role") == "tool" and "refused" in str(message.get("content")):
                    self.refused.append(str(message["content"]))
                    break
            else:
                if request.actor == "P2" and request.phase == "discussion":
                    return response_with_calls(("claim", {"role": "占い師"}), id_prefix="x")
            return response_with_calls(*first_choice_calls([t.model_dump() for t in request.tools]))

    backend = Claimer()
    io, sink, _ = auto_io(4, backend)
    # P2 is a 村人: the claim tool is not even offered, so the call is an unknown tool
    run_werewolf(spec(4, deal=[3, 2, 1, 1, 2, 2, 4, 5, 6]), io)
    first_error = next(p for k, p in sink.payloads() if k == "tool_result" and not p["ok"])
    assert first_error["actor"] == "P2"
    assert "unknown tool 'claim'" in first_error["result"]


def test_human_commands_errors_and_quit() -> None:
    sink = ListSink()
    screen: list[str] = []
    lines = [
        "/co 人狼",  # asked for the 事前占い target: not a seat, asked again
        "P2",
        "/co 人狼",  # not claimable: refused with the usage
        "/co 村人",  # still refused
        "/request 占い師 占い師は名乗り出て！",
        "/co 占い師",  # as the real seer answering, the result is required: refused by the rules
        "/bogus",
        "/quit",
    ]
    io = SessionIO(backend=OfflineBackend(), human=ScriptedHuman(lines, when_done=None), sink=sink,
                   show=screen.append)
    outcome = run_werewolf(spec(9, deal=[3, 1, 1, 2, 2, 2, 4, 5, 6], narrator=False), io)
    # the seer at P1 chooses its 事前占い target first: the first line is not a seat, so it is asked again
    assert outcome.summary.startswith("中断") and not outcome.finished
    asked = [p["text"] for k, p in sink.payloads() if k == "human_input"]
    assert asked == lines[:-1]  # /quit is not recorded: resuming asks that question again
    # a command at the 事前占い's choice: named, with what the question takes
    assert screen[3].startswith("「/co」はこの質問では使えません。相手を P番号・番号・名前・よみ のどれかで")
    # the real seer's claim without its result: asked for it by the example of its own
    example = "（例: 「占い師です。トウダは黒でした」または /co 占い師 P2 黒）。"
    assert "占い師のCOには結果を添えてください" + example in screen
    assert "（CO要求：占い師）" in screen
    assert not any(line == "【ゲーム終了】" for line in screen)
    assert not any("最終役職一覧" in line for line in screen)
    # P1 is the 占い師 and never learned a 黒: no line but its own typing mentions a 人狼
    assert not any("人狼" in line for line in screen if not line.startswith(("「/co 人狼」", "できません")))


def test_parse_discussion() -> None:
    assert parse_discussion("  こんにちは  みんな ", 1) == Speak(1, "こんにちは みんな")
    assert parse_discussion("/pass", 1) == Speak(1, "")
    from gm_engine.werewolf import Colour

    assert parse_discussion("/co 占い師 P3 黒 見えた", 1) == Claim(1, Role.SEER, 3, Colour.BLACK, "見えた")
    assert parse_discussion("/co 狩人", 1) == Claim(1, Role.BODYGUARD)
    for bad in ("/co", "/co 魔法使い", "/result P3", "/result X9 白", "/request 狩人", "/nope"):
        with pytest.raises(ValueError):
            parse_discussion(bad, 1)


def test_notes_are_capped_and_fed_back() -> None:
    """update_notes with six lines is refused; five are kept and shown in the next prompt."""

    class Noter(BackendDefaults):
        name = "noter"

        def __init__(self) -> None:
            self.requests: list[ModelRequest] = []

        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            self.requests.append(request)
            if not request.tools:
                return ModelResponse(content="…")
            calls = first_choice_calls([t.model_dump() for t in request.tools])
            if request.actor == "P6" and any(t.name == "update_notes" for t in request.tools):
                earlier = [r for r in self.requests[:-1] if r.actor == "P6"]
                first = not any(t.name == "update_notes" for r in earlier for t in r.tools)
                size = 6 if first else 5
                lines = [f"メモ{request.turn}-{i}" for i in range(size)]
                return response_with_calls(("update_notes", {"lines": lines}), *calls, id_prefix="n")
            return response_with_calls(*calls)

    backend = Noter()
    io, sink, _ = auto_io(20, backend)  # a game in which P6 gets a turn after its kept notes
    run_werewolf(spec(20, deal=[2, 1, 1, 2, 2, 3, 4, 5, 6]), io)
    results = [p for k, p in sink.payloads() if k == "tool_result" and p["tool"] == "update_notes"]
    refused = [p for p in results if not p["ok"]]
    assert refused and "at most 5" in refused[0]["result"]
    p6 = [r for r in backend.requests if r.actor == "P6"]
    offered = [r for r in p6 if any(t.name == "update_notes" for t in r.tools)]
    kept_turn = offered[1].turn  # the first notes (six lines) were refused, the second kept
    later = [r for r in p6 if r.turn > kept_turn]
    assert later
    user = later[0].messages[1]["content"]
    assert f"メモ{kept_turn}-4" in user and f"メモ{kept_turn}-5" not in user


def test_notes_are_offered_where_a_persona_forms_its_view() -> None:
    """update_notes comes with a discussion turn of the day's last round (the day's talk heard;
    one round once six seats or fewer live), not with an earlier turn, a CO要求 answer, a vote
    or a night choice (its schema would cost each such prompt for notes rewritten or kept)."""
    backend = FirstChoiceBackend()
    io, _sink, _ = auto_io(21, backend)
    run_werewolf(spec(21, deal=[2, 1, 1, 2, 2, 3, 4, 5, 6]), io)
    offered: dict[tuple[str, bool], set[bool]] = {}
    for request in backend.requests:
        if request.tools:
            notes = any(t.name == "update_notes" for t in request.tools)
            text = str(request.messages[1]["content"])
            last = "議論2巡目" in text or ("議論1巡目" in text and "【生存者】全員" not in text
                                          and text.split("【生存者】")[1].split("\n")[0].count(",") < 6)
            offered.setdefault((request.phase, last), set()).add(notes)
    assert offered[("discussion", True)] == {True}
    assert offered[("discussion", False)] == {False}
    others = {notes for (phase, _), seen in offered.items() if phase != "discussion" for notes in seen}
    assert others == {False}


def test_concurrent_rounds_emit_in_seat_order_whatever_the_latency() -> None:
    """Later seats answer first; the event stream is the same as with no latency."""

    class Slow(FirstChoiceBackend):
        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            if request.phase in ("vote", "runoff", "night"):
                await asyncio.sleep(0.001 * (10 - int(request.actor[1:])))
            return await super().complete(request, context)

    streams = []
    for backend in (FirstChoiceBackend(), Slow()):
        io, sink, _ = auto_io(8, backend)
        run_werewolf(spec(8, deal=[2, 1, 1, 2, 2, 3, 4, 5, 6], narrator=False), io)
        streams.append(json.dumps(sink.payloads(), ensure_ascii=False, sort_keys=True))
    assert streams[0] == streams[1]


def test_an_agent_at_p1_answers_on_the_loop_with_the_same_game_as_on_a_thread() -> None:
    """An agent at P1 (``answers_at_once``) is asked on the event loop once the personas'
    turns have started; a person is asked on a worker thread. Same seed, same events."""

    class ThreadedAgent(AutoHuman):
        answers_at_once = False

    streams = []
    for human_type in (AutoHuman, ThreadedAgent):
        sink = ListSink()
        human = human_type(OfflineAgent(1, SeededSource("31/human")))
        io = SessionIO(backend=FirstChoiceBackend(), human=human, sink=sink, show=lambda line: None)
        run_werewolf(spec(31, role=2), io)
        streams.append(json.dumps(sink.payloads(), ensure_ascii=False))
    assert '"human_input"' in streams[0] and "投票先を選んでください" in streams[0]
    assert streams[0] == streams[1]


def test_past_days_are_summaries_not_transcripts() -> None:
    io, _sink, _ = auto_io(2)
    backend = FirstChoiceBackend()
    io.backend = backend
    run_werewolf(spec(2, deal=[2, 1, 1, 2, 2, 3, 4, 5, 6], narrator=False), io)
    days = sorted({r.day for r in backend.requests})
    assert len(days) >= 2
    later = [r for r in backend.requests if r.day == days[-1] and r.phase == "discussion"]
    assert later
    user = later[0].messages[1]["content"]
    assert "【これまでの経過】" in user and "1日目: " in user
    # day 1's speeches (all the same words here) are gone; their votes are summarised
    day1 = user.split("【今日の議論】")[0]
    assert "うーん、まだ様子見かな。" not in day1
    assert "投票 " in day1


def test_session_builds_from_a_deal_and_shows_only_p1s_role() -> None:
    io, _, screen = auto_io(1)
    table = spec(1, deal=[4, 1, 1, 2, 2, 2, 3, 5, 6])
    session = WerewolfSession(table, session_options(table), io)
    session._show_new()
    assert screen[-1] == "あなたの役職は 狩人 です"
    assert "【CMD_事前占い】" in screen and len(screen) == 3



def test_rule_options_reach_the_engine_and_the_prompts() -> None:
    backend = FirstChoiceBackend()
    io, _, _ = auto_io(6, backend)
    rules = {"discussion_rounds": 1, "madman_claims": "none", "attack_needs_execution": False}
    run_werewolf(spec(6, deal=[2, 1, 1, 2, 2, 3, 4, 5, 6], narrator=False, rules=rules), io)
    day1 = [r for r in backend.requests if r.day == 1 and r.phase == "discussion"]
    assert len(day1) == 8  # one turn per persona
    system = day1[0].messages[0]["content"]
    assert "狂人は騙れない" in system
    # the wolves attack on the first night, before any execution could matter
    assert any(r.day == 1 and r.phase == "night" and r.tools[0].name == "attack" for r in backend.requests)
    with pytest.raises(SessionError, match="discussion_rounds"):
        session_options(spec(1, rules={"discussion_rounds": 0}))
    with pytest.raises(SessionError, match="bogus"):
        session_options(spec(1, rules={"bogus": 1}))


def test_a_dead_backend_stops_the_game() -> None:
    """A backend that always fails is the program's problem, not the model's: the session
    raises the BackendError at the first call and no fallback agent plays in its place."""

    class Dead(BackendDefaults):
        name = "dead"

        def __init__(self) -> None:
            self.calls = 0

        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            self.calls += 1
            raise BackendError("connection refused")

    for narrator in (True, False):
        dead = Dead()
        io, sink, screen = auto_io(13, dead)
        with pytest.raises(BackendError, match="connection refused"):
            run_werewolf(spec(13, role=5, narrator=narrator), io)
        kinds = [k for k, _ in sink.payloads()]
        assert dead.calls >= 1
        assert "fallback" not in kinds and "model_response" not in kinds
        assert "【ゲーム終了】" not in screen and not any(line.startswith("GM:") for line in screen)


def test_a_backend_failing_mid_round_applies_none_of_the_round() -> None:
    """One persona's call fails in a concurrent vote: the session stops and the game is still
    at the vote, with no vote of the round applied (the others' answers are dropped)."""

    class FailsAtTheVote(FirstChoiceBackend):
        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            if request.phase == "vote" and request.actor == "P5":
                raise BackendError("server gone")
            return await super().complete(request, context)

    io, sink, _ = auto_io(5, FailsAtTheVote())
    the_spec = spec(5, role=2, narrator=False)
    session = WerewolfSession(the_spec, session_options(the_spec), io)
    with pytest.raises(BackendError, match="server gone"):
        asyncio.run(session.run())
    assert session.game.stage.value == "vote"
    assert session.game.phase.day == 1
    assert not [e for e in session.game.public_log if isinstance(e, CastVote | VoteTally)]
    states = [p for k, p in sink.payloads() if k == "state"]
    assert not any(p["step"].startswith("vote") for p in states)
    # the game is exactly as the last recorded step left it
    assert session.game.state_hash() == states[-1]["hash"]
    assert not [p for k, p in sink.payloads() if k == "model_request" and p["phase"] == "vote"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=12))
def test_no_human_line_crashes_the_session(lines: list[str]) -> None:
    human = ScriptedHuman(["2", *lines, "/quit"], when_done="/quit")  # a 村人, then anything
    io = SessionIO(backend=OfflineBackend(), human=human, sink=ListSink(), show=lambda line: None)
    outcome = run_werewolf(spec(17, narrator=False), io)
    assert outcome.summary  # the game ended or the human left; nothing raised


def test_offline_personas_talk_about_their_suspicion_after_day_one() -> None:
    """From day 2 on, an offline persona's free talk names whom it suspects (its agent's would-be
    vote), in its own voice, never a day-1 greeting."""
    from gm_engine.sessions.personas import load_personas
    from gm_engine.werewolf.log import Speech

    personas = {p.seat: p for p in load_personas()}
    io, _, _ = auto_io(21)
    session = WerewolfSession(spec(21, narrator=False), session_options(spec(21, narrator=False)), io)
    asyncio.run(session.run())
    later = [e for e in session.game.public_log if isinstance(e, Speech) and e.day >= 2 and e.speaker != 1]
    assert later
    for speech in later:
        voice = personas[speech.speaker].voice
        assert speech.text not in voice.opening, speech
    names = [p.name for p in personas.values()] + ["プレイヤー"]
    assert sum(any(name in s.text for name in names) for s in later) >= len(later) // 2


def test_a_claim_without_words_shows_no_bare_name_line() -> None:
    human = ScriptedHuman(["/co 占い師 P4 白", "/quit"], when_done="/quit")  # role 6: a 狂人 may claim
    screen: list[str] = []
    io = SessionIO(backend=OfflineBackend(), human=human, sink=ListSink(), show=screen.append)
    run_werewolf(spec(3, role=6, narrator=False), io)
    at = screen.index("（プレイヤーが占い師CO 結果：アオトは白）")
    assert screen[at - 1] == "【CMD_議論】"  # no line holding only the name
    assert "プレイヤー" not in screen


def test_the_narrators_first_line_opens_the_game() -> None:
    """The offline narrator welcomes the table at the start; "continue" lines come later."""
    io, sink, screen = auto_io(8)
    run_werewolf(spec(8, role=2), io)
    lines = [line for line in screen if line.startswith("GM:")]
    assert len(lines) >= 2
    assert "続けましょう" not in lines[0] and ("ようこそ" in lines[0] or "始まり" in lines[0])
    first = next(p for k, p in sink.payloads() if k == "model_request" and p["actor"] == "GM")
    assert "ゲーム開始" in first["messages"][0]["content"]
    assert "参加者を迎えて" in first["messages"][0]["content"]


def test_the_library_leaves_the_garbage_collector_alone() -> None:
    """gc.freeze is the CLI's choice (``gm werewolf play``), never switched on by a session."""
    import gc

    frozen_during: list[int] = []
    io, _, _ = auto_io(4)
    io.show = lambda line: frozen_during.append(gc.get_freeze_count())
    before = gc.get_freeze_count()
    run_werewolf(spec(4, narrator=False), io)
    assert frozen_during and set(frozen_during) == {before}


def test_a_day_with_six_seats_or_fewer_left_has_one_discussion_round() -> None:
    """WerewolfOptions.one_round_at: a day that starts with six living seats or fewer has one
    discussion round (the default two before), so each persona speaks once that day."""
    backend = FirstChoiceBackend()
    io, _, _ = auto_io(6, backend)
    run_werewolf(spec(6, role=2, narrator=False), io)
    seen: dict[tuple[int, int], int] = {}
    for day in sorted({r.day for r in backend.requests}):
        talks = [r for r in backend.requests if r.day == day and r.phase in ("discussion", "answer")]
        if not talks:
            continue
        living = str(talks[0].messages[1]["content"]).split("【生存者】")[1].splitlines()[0]
        count = 9 if living == "全員" else len(living.split(","))
        turns = Counter(r.actor for r in talks)
        seen[(day, count)] = max(turns.values())
    assert any(count <= 6 for _, count in seen) and any(count > 6 for _, count in seen), seen
    # and from day 3 on (one_round_from) every day has one round too
    assert all(most == (1 if count <= 6 or day >= 3 else 2) for (day, count), most in seen.items()), seen


def test_the_rounds_of_a_day_follow_from_its_number_and_living_seats() -> None:
    """WerewolfOptions.rounds_on: one round once six seats or fewer live (one_round_at) and from
    day 3 on (one_round_from); 0 switches either off."""
    from gm_engine.werewolf import WerewolfOptions

    rules = WerewolfOptions()
    assert [rules.rounds_on(day, 9) for day in (1, 2, 3, 4)] == [2, 2, 1, 1]
    assert rules.rounds_on(2, 7) == 2 and rules.rounds_on(2, 6) == 1
    assert WerewolfOptions(one_round_from=0).rounds_on(5, 7) == 2
    assert WerewolfOptions(one_round_from=0, one_round_at=0).rounds_on(5, 3) == 2
    assert WerewolfOptions(discussion_rounds=3).rounds_on(2, 8) == 3
