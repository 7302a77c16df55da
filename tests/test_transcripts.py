"""Every shipped transcript in ``transcripts/`` is a regression test: it must replay exactly.

Each file is its own test case (id = the file name), replayed strictly (every model
request byte for byte, every tool result, die and state hash) and tolerantly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gm_engine.events import ModelRequestEvent, SessionEvent
from gm_engine.llm.base import BackendDefaults
from gm_engine.messages.texts import AssetsChanged
from gm_engine.sessions.base import HumanDefaults
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.replay import replay_transcript
from tests.forge_chain import content

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "transcripts"
FILES = sorted(TRANSCRIPTS.glob("*.jsonl"))


def test_transcripts_are_shipped() -> None:
    assert FILES, f"no transcripts in {TRANSCRIPTS}"


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_transcript_replays(path: Path) -> None:
    transcript = read_transcript(path)
    assert transcript.end is not None
    strict = replay_transcript(transcript)
    assert strict.ok, strict.describe()
    tolerant = replay_transcript(transcript, tolerant=True)
    assert tolerant.ok, tolerant.describe()


# ------------------------------------------------ a persona's prompts hold only what it may know

#: Two deals (P1 first) that differ only in roles P4, a 村人, cannot observe: the 占い師 and the
#: 狩人 trade seats (P6 <-> P7), and so do the 霊媒師 and the 狂人 (P8 <-> P9).
DEAL_A = [2, 1, 1, 2, 2, 3, 4, 5, 6]
DEAL_B = [2, 1, 1, 2, 2, 4, 3, 6, 5]


class _Enough(BaseException):
    """Stops a recorded game once the requests under test are in the file."""


class _StopAfter:
    """An event sink that stops the session once every seat in ``seats`` made a request."""

    def __init__(self, seats: set[str]) -> None:
        self.waiting = set(seats)

    def emit(self, event: SessionEvent) -> None:
        if isinstance(event, ModelRequestEvent):
            self.waiting.discard(event.actor)
            if not self.waiting:
                raise _Enough


def _first_requests(path: Path, deal: list[int], seats: set[str]) -> dict[str, str]:
    from gm_engine.dice.source import SeededSource
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.sessions.base import SessionIO, SessionSpec
    from gm_engine.sessions.werewolf_offline import AutoHuman
    from gm_engine.transcripts.format import dumps
    from gm_engine.transcripts.record import record_session
    from gm_engine.werewolf.agents import OfflineAgent

    spec = SessionSpec(kind="werewolf", seed=77, options={"deal": deal}, backend="offline")
    human = AutoHuman(OfflineAgent(1, SeededSource("77/human")))
    io = SessionIO(backend=OfflineBackend(), human=human, sink=_StopAfter(seats), show=lambda _: None)
    with pytest.raises(_Enough):
        record_session(spec, io, path, durable=False, remember_seed=False)
    firsts: dict[str, str] = {}
    for event in read_transcript(path, require_end=False).events:
        actor = str(event.payload.get("actor"))
        if event.type == "model_request" and actor in seats and actor not in firsts:
            firsts[actor] = dumps({k: event.payload.get(k) for k in ("messages", "tools")})
    return firsts


def test_a_persona_prompt_depends_only_on_what_it_can_know(tmp_path: Path) -> None:
    seats = {"P4", "P6"}
    a = _first_requests(tmp_path / "a.jsonl", DEAL_A, seats)
    b = _first_requests(tmp_path / "b.jsonl", DEAL_B, seats)
    assert set(a) == set(b) == seats
    assert a["P4"] == b["P4"]  # byte-identical: P4 cannot tell the two deals apart
    assert "占い師" in a["P4"]  # the prompt does speak of the roles, just not of who holds them
    # the control: P6 holds another role in each deal, and its own prompt says so
    assert a["P6"] != b["P6"]


# ------------------------------------------------ resuming a werewolf game cut off mid-call


class _Killed(BaseException):
    """The process dies (an exception no handler in the session catches)."""


class _KilledAt(BackendDefaults):
    """A backend that dies (as a killed process would) at its ``at``-th request."""

    name = "offline"
    keeps_state = True  # the offline model it wraps does

    def __init__(self, inner: Any, at: int) -> None:
        self.inner = inner
        self.at = at
        self.calls = 0

    async def complete(self, request: Any, context: object | None = None) -> Any:
        self.calls += 1
        if self.calls == self.at:
            raise _Killed
        return await self.inner.complete(request, context)


def _auto_io(seed: int, backend: Any) -> Any:
    from gm_engine.dice.source import SeededSource
    from gm_engine.sessions.base import SessionIO
    from gm_engine.sessions.werewolf_offline import AutoHuman
    from gm_engine.werewolf.agents import OfflineAgent

    human = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))
    return SessionIO(backend=backend, human=human, show=lambda _: None)


def test_a_werewolf_game_cut_off_mid_call_resumes_to_the_same_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.sessions.base import SessionSpec
    from gm_engine.transcripts.record import record_session
    from gm_engine.transcripts.resume import resume_session

    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "data"))
    spec = SessionSpec(kind="werewolf", seed=31, options={"role": 5}, backend="offline")
    whole = tmp_path / "whole.jsonl"
    record_session(spec, _auto_io(31, OfflineBackend()), whole, durable=False)
    cut = tmp_path / "cut.jsonl"
    with pytest.raises(_Killed):
        record_session(spec, _auto_io(31, _KilledAt(OfflineBackend(), 40)), cut, durable=False)
    before = read_transcript(cut, require_end=False)
    assert before.end is None
    assert 0 < len(before.events) < len(read_transcript(whole).events)
    result = resume_session(cut, _auto_io(31, OfflineBackend()), shadow_human=True, durable=False)
    after = read_transcript(cut).events  # finished, and packed
    assert [(e.type, e.payload) for e in after[: len(before.events)]] == [
        (e.type, e.payload) for e in before.events
    ]  # nothing recorded was lost
    assert result.new_events > 0
    # and the game went on exactly as it would have (the two recordings have keys of their own)
    assert content(cut) == content(whole)
    assert replay_transcript(read_transcript(cut)).ok


# ------------------------------------------------ a reworded prompt: strict fails, tolerant passes


def test_a_reworded_template_fails_strict_replay_and_passes_tolerant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project_prompts = Path(__file__).resolve().parent.parent / "prompts"
    original = (project_prompts / "discussion.j2").read_text(encoding="utf-8")
    (tmp_path / "discussion.j2").write_text(original + "\n（落ち着いて話してください。）\n", encoding="utf-8")
    monkeypatch.setenv("GM_PROMPTS_DIR", str(tmp_path))
    path = TRANSCRIPTS / "werewolf_human_villager.jsonl"
    transcript = read_transcript(path)
    strict = replay_transcript(transcript)
    assert not strict.ok and strict.divergence is not None
    assert strict.divergence.event_type == "model_request"
    assert strict.divergence.closest is not None and strict.divergence.closest.phase == "'discussion'"
    assert "+" in strict.divergence.diff and "落ち着いて話してください" in strict.divergence.diff
    changed = [note.names for note in strict.notes if isinstance(note, AssetsChanged)]
    assert any("prompts/discussion.j2" in names for names in changed)
    tolerant = replay_transcript(transcript, tolerant=True)
    assert tolerant.ok, tolerant.describe()


# ------------------------------------------------ /quit in the middle of a concurrent round


class _QuitAtVote(HumanDefaults):
    """P1's agent, who walks away (``/quit``) when asked for a vote, while the personas'
    vote requests are already out."""

    def __init__(self, seed: int) -> None:
        from gm_engine.dice.source import SeededSource
        from gm_engine.sessions.werewolf_offline import AutoHuman
        from gm_engine.werewolf.agents import OfflineAgent

        self.auto = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))

    def observe(self, observation: Any, legal: Any) -> None:
        self.auto.observe(observation, legal)

    def ask(self, prompt: str, choices: Any = None) -> str:
        return "/quit" if prompt.startswith("投票先") else self.auto.ask(prompt, choices)


def test_a_game_quit_during_a_vote_resumes_and_replays(tmp_path: Path) -> None:
    """/quit while the personas' votes are out: the transcript stops at the last complete
    step, with no end line and no seed in it; resuming asks the vote again and plays on to
    the end the uninterrupted game reaches, and the finished file replays."""
    from gm_engine.dice.source import SeededSource
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.sessions.base import SessionIO, SessionSpec
    from gm_engine.sessions.werewolf_offline import AutoHuman
    from gm_engine.transcripts.record import record_session
    from gm_engine.transcripts.resume import resume_session
    from gm_engine.werewolf.agents import OfflineAgent

    spec = SessionSpec(kind="werewolf", seed=5, options={"role": 2}, backend="offline")
    whole = tmp_path / "whole.jsonl"
    auto = AutoHuman(OfflineAgent(1, SeededSource("5/human")))
    expected = record_session(spec, SessionIO(backend=OfflineBackend(), human=auto, show=lambda _: None),
                              whole, durable=False, remember_seed=False)
    io = SessionIO(backend=OfflineBackend(), human=_QuitAtVote(5), show=lambda _: None)
    path = tmp_path / "quit.jsonl"
    outcome = record_session(spec, io, path, durable=False)
    assert outcome.summary.startswith("中断") and not outcome.finished
    cut = read_transcript(path, require_end=False)
    assert cut.end is None
    assert not [e for e in cut.events if e.type == "human_input" and e.payload["text"] == "/quit"]
    again = AutoHuman(OfflineAgent(1, SeededSource("5/human")))
    result = resume_session(path, SessionIO(backend=OfflineBackend(), human=again, show=lambda _: None),
                            durable=False, shadow_human=True)
    assert result.outcome.summary == expected.summary
    for tolerant in (False, True):
        report = replay_transcript(read_transcript(path), tolerant=tolerant)
        assert report.ok, report.describe()


# ------------------------------------------------ the running file tells P1 nothing the screen does not

#: Pairs of deals (P1 first) that P1 cannot tell apart: P1 holds the same role in both
#: (and, a 人狼, the same partner), the other seats hold other roles.
INDISTINGUISHABLE = [
    # P1 a 村人: the 狩人 and a 村人 trade seats (no screen tells them apart in the whole game)
    pytest.param([2, 1, 1, 2, 2, 3, 4, 5, 6], [2, 1, 1, 2, 4, 3, 2, 5, 6], id="hunter-villager"),
    # P1 a 村人: the 霊媒師 and the 狩人 trade seats
    pytest.param([2, 1, 1, 2, 2, 3, 4, 5, 6], [2, 1, 1, 2, 2, 3, 5, 4, 6], id="medium-hunter"),
    # P1 a 人狼 (P4 its partner in both): the 霊媒師 and a 村人 trade seats
    pytest.param([1, 2, 2, 1, 2, 3, 4, 5, 6], [1, 2, 5, 1, 2, 3, 4, 2, 6], id="p1-wolf-medium-villager"),
]


class _TypingHuman(HumanDefaults):
    """P1 as a person types (asked on a worker thread): a greeting in the discussion, the
    first choice offered at every vote or night question, a reason when one is asked for;
    a question asked again (the greeting did not answer it) gets ``/decline``, then ``/pass``."""

    def __init__(self) -> None:
        self.last = ""
        self.again = 0
        self.asked = 0

    def ask(self, prompt: str, choices: Any = None) -> str:
        self.asked += 1
        self.again = self.again + 1 if prompt == self.last else 0
        self.last = prompt
        if self.asked > 2000:  # a test that went astray stops rather than hangs
            return "/quit"
        if "理由" in prompt:
            return "なんとなく"
        if choices:
            return str(choices[0])
        return ["よろしくお願いします", "/decline", "/pass"][min(self.again, 2)]


class _Watcher(HumanDefaults):
    """Wraps P1 and, at every public step (each question to P1, and each answer once it is
    in the file), notes what P1 has seen and typed so far and how the file looks then."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.answers_at_once = inner.answers_at_once
        self.view: list[str] = []
        self.steps: list[tuple[tuple[str, ...], list[tuple[str, int]]]] = []

    def show(self, text: str) -> None:
        self.view.append(text)

    def snapshot(self) -> None:
        rows = self.path.read_bytes().split(b"\n")
        assert rows[-1] == b""  # never half a line between two public steps
        layout: list[tuple[str, int]] = []
        for row in rows[:-1]:
            # a line P1 may read is compared whole (but for its checkpoint, a digest of the
            # bytes before it, which P1 sees anyway), any other by its kind and length alone
            if row.startswith(b'{"type":"human_input"'):
                shown = json.loads(row)
                shown.pop("chain", None)
                layout.append((json.dumps(shown, ensure_ascii=False), len(row)))
            else:
                layout.append((row[:16].decode(), len(row)))
        self.steps.append((tuple(self.view), layout))

    def observe(self, observation: object, legal: Any) -> None:
        self.inner.observe(observation, legal)

    def ask(self, prompt: str, choices: Any = None) -> str:
        self.view.append(f"? {prompt} {choices}")
        self.snapshot()
        answer = str(self.inner.ask(prompt, choices))
        self.view.append(f"> {answer}")
        return answer

    def emit(self, event: SessionEvent) -> None:  # after the writer: the answer is in the file
        if event.type == "human_input":
            self.snapshot()


def _watched_game(path: Path, deal: list[int], auto: bool) -> _Watcher:
    from gm_engine.dice.source import SeededSource
    from gm_engine.llm.offline import OfflineBackend
    from gm_engine.sessions.base import SessionIO, SessionSpec
    from gm_engine.sessions.werewolf_offline import AutoHuman
    from gm_engine.transcripts.record import record_session
    from gm_engine.werewolf.agents import OfflineAgent

    spec = SessionSpec(kind="werewolf", seed=77, options={"deal": deal}, backend="offline")
    inner = AutoHuman(OfflineAgent(1, SeededSource("77/human"))) if auto else _TypingHuman()
    watcher = _Watcher(inner, path)
    io = SessionIO(backend=OfflineBackend(), human=watcher, sink=watcher, show=watcher.show)
    record_session(spec, io, path, durable=False, remember_seed=False, pack=False)
    return watcher


@pytest.mark.parametrize("auto", [False, True], ids=["human", "auto"])
@pytest.mark.parametrize(("deal_a", "deal_b"), INDISTINGUISHABLE)
def test_the_sealed_file_is_laid_out_alike_for_deals_p1_cannot_tell_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deal_a: list[int], deal_b: list[int], auto: bool
) -> None:
    """While P1's screen and answers are the same in two games whose deals P1 cannot tell
    apart, the transcript file is too (line count, order, which lines P1 may read and what
    they say, every sealed line's length, and so the file's size), at every public step."""
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "data"))
    a = _watched_game(tmp_path / "a.jsonl", deal_a, auto)
    b = _watched_game(tmp_path / "b.jsonl", deal_b, auto)
    alike = 0
    for (view_a, layout_a), (view_b, layout_b) in zip(a.steps, b.steps, strict=False):
        if view_a != view_b:
            break  # from here on P1 can tell the games apart from the screen itself
        assert len(layout_a[0]) == len(layout_b[0])  # the headers (each names its own key)
        assert layout_a[1:] == layout_b[1:], f"the files differ at public step {alike + 1}"
        alike += 1
    # the check means something: many steps compared, a day and a night of private lines among them
    assert alike >= 10, alike
    compared = a.steps[alike - 1][1]
    assert sum(kind.startswith('{"type":"sealed"') for kind, _ in compared) >= 60
    assert sum(kind.startswith('{"type": "human_input"') for kind, _ in compared) >= 5
