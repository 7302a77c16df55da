"""The offline personas' words: grounded in the speaker's own view, cited, answered, never repeated.

Games are played on the offline model with P1 as its offline agent (``--auto``); a wrapper
around the offline backend checks every persona's tool call against the observation the
persona was asked with, which is exactly its view at that moment.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.voices import PhraseError, default_phrases_dir, load_book, load_clauses
from gm_engine.sessions.werewolf import WerewolfSession, session_options
from gm_engine.sessions.werewolf_offline import AutoHuman, PersonaTurnContext
from gm_engine.werewolf.addressing import addresses
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.citations import CitedFact, citation_problems
from gm_engine.werewolf.log import ClaimMade, Declined, ResultStated, Speech
from gm_engine.werewolf.records import Role
from gm_engine.werewolf.views import Observation

NAMES = ("", "プレイヤー", "トウダ", "ヒミヤ", "アオト", "ミスノ", "キウミ", "シセン", "ハイオ", "イスイ")


class Checking(OfflineBackend):
    """The offline model, keeping every persona call with the observation it was decided from."""

    def __init__(self) -> None:
        self.calls: list[tuple[Observation, str, dict[str, Any]]] = []

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        response = await super().complete(request, context)
        if isinstance(context, PersonaTurnContext):
            for call in response.tool_calls:
                self.calls.append((context.observation, call.name, json.loads(call.arguments)))
        return response


class Asking(AutoHuman):
    """P1's offline agent, except that on the given days its first speech is the given line."""

    def __init__(self, seed: int, lines: dict[int, str]) -> None:
        super().__init__(OfflineAgent(1, SeededSource(f"{seed}/human")))
        self.lines = dict(lines)

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        obs = self._observation
        if prompt.startswith("あなたの発言の番です") and obs is not None and obs.day in self.lines:
            return self.lines.pop(obs.day)
        return super().ask(prompt, choices)


def play(
    seed: int, options: dict[str, Any], human: AutoHuman | None = None
) -> tuple[Checking, WerewolfSession]:
    backend = Checking()
    spec = SessionSpec(kind="werewolf", seed=seed, options={"auto": True, "narrator": False, **options})
    io = SessionIO(
        backend=backend,
        human=human or AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human"))),
        show=lambda _line: None,
    )
    session = WerewolfSession(spec, session_options(spec), io)
    asyncio.run(session.run())
    return backend, session


@pytest.mark.parametrize("seed", [1, 4, 9, 13, 22])
def test_every_cited_fact_is_in_the_speakers_view(seed: int) -> None:
    """Each line's cited facts are confirmed against the speaker's observation at that moment;
    after day 1 almost every speech cites one."""
    backend, _session = play(seed, {"role": 1 + seed % 6})
    cited = speeches = 0
    for obs, name, args in backend.calls:
        cites = [CitedFact.model_validate(c) for c in args.get("cites", [])]
        assert citation_problems(obs, cites) == [], (name, args)
        if name == "speak" and obs.day >= 2:
            speeches += 1
            cited += bool(cites)
    assert backend.calls
    if speeches:
        assert cited / speeches >= 0.8


def test_a_wolf_cites_only_public_entries() -> None:
    """A 人狼's cited facts name public entries only; none is about its partner being a wolf."""
    seen_wolf = False
    for seed in (2, 5, 8):
        backend, _session = play(seed, {"role": 2})
        for obs, _name, args in backend.calls:
            if obs.role is not Role.WEREWOLF:
                continue
            seen_wolf = True
            for raw in args.get("cites", []):
                fact = CitedFact.model_validate(raw)
                assert fact.kind in {"silence"} or (
                    fact.entry is not None and fact.entry < len(obs.public_log)
                )
            assert citation_problems(obs, [CitedFact.model_validate(c) for c in args.get("cites", [])]) == []
    assert seen_wolf


def test_the_check_refuses_what_the_speaker_could_not_see() -> None:
    """A citation of an entry past the speaker's log, of the wrong kind, or of a silence on a
    day the seat spoke is reported (the check can fail)."""
    backend, _session = play(3, {"role": 2})
    obs = next(o for o, name, _ in backend.calls if name == "speak" and o.day >= 2)
    log = obs.public_log
    speech_at = next(i for i, e in enumerate(log) if isinstance(e, Speech) and e.text)
    speaker = log[speech_at].speaker  # type: ignore[union-attr]
    day = log[speech_at].day
    bad = [
        CitedFact(kind="speech", day=day, seat=speaker, entry=len(log)),  # not yet said
        CitedFact(kind="executed", day=day, seat=speaker, entry=speech_at),  # a speech, not an execution
        CitedFact(kind="silence", day=day, seat=speaker),  # it spoke that day
        CitedFact(kind="vote", day=day, seat=speaker, entry=speech_at),
    ]
    problems = citation_problems(obs, bad)
    assert len(problems) == 4, problems
    assert citation_problems(obs, [CitedFact(kind="speech", day=day, seat=speaker, entry=speech_at)]) == []


@pytest.mark.parametrize("seed", [6, 11])
def test_no_line_is_said_twice_in_a_game(seed: int) -> None:
    _backend, session = play(seed, {"role": 2})
    texts = [
        e.text
        for e in session.game.public_log
        if isinstance(e, Speech | ClaimMade | ResultStated | Declined) and e.text
    ]
    assert len(texts) > 20
    assert len(set(texts)) == len(texts)


def _next_line(session: WerewolfSession, after: int, seat: int) -> str:
    for entry in session.game.public_log[after + 1 :]:
        if (
            isinstance(entry, Speech | ClaimMade | ResultStated | Declined)
            and entry.speaker == seat
            and entry.text
        ):
            return entry.text
    raise AssertionError(f"P{seat} never spoke again")


def _index_of(session: WerewolfSession, text: str) -> int:
    return next(i for i, e in enumerate(session.game.public_log) if isinstance(e, Speech) and e.text == text)


def test_the_human_asked_by_name_gets_an_answer_on_the_point() -> None:
    """「キウミさんはどう思う？」 on day 1, 「P5、昨日はなんで投票したの？」 on day 2: the seat
    named answers in its next line, naming the asker and the point (a seat; its vote)."""
    seed = 1  # a game in which P1 and P5 both reach day 2, and P5 speaks after P1 asked it
    human = Asking(seed, {1: "キウミさんはどう思う？", 2: "P5、昨日はなんでその人に投票したの？"})
    _backend, session = play(seed, {"role": 2}, human)
    first = _next_line(session, _index_of(session, "キウミさんはどう思う？"), 6)
    assert first.startswith("プレイヤーに") or "プレイヤー" in first.split("。")[0]
    # the asker, and the seat it suspects (which may be the asker): two names at least
    assert sum(first.count(name) for name in NAMES[1:] if name != "キウミ") >= 2
    # the game reached day 2 with P5 at the table, and P1 asked it (else this seed tests nothing)
    second = _next_line(session, _index_of(session, "P5、昨日はなんでその人に投票したの？"), 5)
    head = second.split("。")[0]
    assert "プレイヤー" in head and re.search("投票|入れ", second)


def test_persona_questions_are_answered_by_the_seat_asked() -> None:
    """Over a few games, nine in ten addresses between seats get an answer naming the asker."""
    asked = answered = 0
    for seed in (1, 2, 3, 4):
        _backend, session = play(seed, {"role": 1 + seed % 6})
        log = session.game.public_log
        for index, entry in enumerate(log):
            if not isinstance(entry, Speech) or not entry.text:
                continue
            for address in addresses(entry.text, NAMES, entry.speaker):
                try:
                    reply = _next_line(session, index, address.seat)
                except AssertionError:
                    continue  # it left the table first
                asked += 1
                answered += NAMES[entry.speaker] in reply
    assert asked > 10
    assert answered / asked >= 0.9


def test_addresses_are_read_from_calls_and_questions() -> None:
    assert [(a.seat, a.topic) for a in addresses("キウミさんはどう思う？", NAMES, 1)] == [(6, "opinion")]
    assert [(a.seat, a.topic) for a in addresses("P5、なんで投票変えたの", NAMES, 1)] == [(5, "vote")]
    assert [(a.seat, a.topic) for a in addresses("ヒミヤさん、占いCOは本物？", NAMES, 1)] == [(3, "claim")]
    assert addresses("今はトウダさんがどうも怪しい。", NAMES, 1) == []
    assert addresses("アオトが『キウミさん、どう思う？』と言っていた。", NAMES, 4) == []  # a quotation
    assert addresses("トウダ、どう思う？", NAMES, 2) == []  # nobody addresses itself


def test_every_shipped_phrase_book_loads() -> None:
    directory = default_phrases_dir()
    load_clauses(directory)
    for book_id in ("touda", "himiya", "aoto", "misuno", "kiumi", "shisen", "haio", "isui", "player"):
        book = load_book(directory, book_id)
        # an answer names the one who asked (an unnamed answer reads as a new remark), and
        # does not call on the asker again (that would be a new question, answered in turn)
        for kind, lines in book.lines.items():
            if kind.startswith("answer"):
                assert all("{asker}" in line for line in lines), (book_id, kind)
                for line in lines:
                    said = line.format(asker="トウダさん", target="ヒミヤさん", reason="怪しい")
                    assert addresses(said, NAMES, 9) == [], (book_id, line)


def test_a_bad_phrase_book_is_refused_with_its_file_and_field(tmp_path: Path) -> None:
    good = (default_phrases_dir() / "haio.toml").read_text(encoding="utf-8")
    (tmp_path / "broken.toml").write_text(
        good.replace("{target}が一番安全", "{victim}が一番安全"), encoding="utf-8"
    )
    with pytest.raises(PhraseError, match=r"broken\.toml.*victim"):
        load_book(tmp_path, "broken")
    (tmp_path / "missing.toml").write_text(
        "honorific = 'さん'\n[lines]\nframes = ['{fact}']\n", encoding="utf-8"
    )
    with pytest.raises(PhraseError, match="missing kinds"):
        load_book(tmp_path, "missing")
    with pytest.raises(PhraseError, match="cannot read"):
        load_book(tmp_path, "absent")


def test_the_narrator_says_what_p1_sees_in_varied_words() -> None:
    """The offline narrator's morning lines name this morning's news from the public log
    (the seat attacked, or a quiet night), and differ from one another."""
    spec = SessionSpec(kind="werewolf", seed=11, options={"auto": True})
    screen: list[str] = []
    io = SessionIO(
        backend=OfflineBackend(),
        human=AutoHuman(OfflineAgent(1, SeededSource("11/human"))),
        show=screen.append,
    )
    session = WerewolfSession(spec, session_options(spec), io)
    asyncio.run(session.run())
    lines = [line for line in screen if line.startswith("GM: ")]
    assert len(lines) >= 3 and len(set(lines)) == len(lines)
    mornings = [e for e in session.game.public_log if e.kind == "morning"]
    for morning, line in zip(mornings, lines[1:], strict=False):
        victim = getattr(morning, "victim", None)
        if victim is not None:
            assert NAMES[victim] in line, line
        else:
            assert "全員" in line or "何も起きなかった" in line or "誰も欠けずに" in line, line
    steering = re.compile("怪し|疑|投票して|入れて|本物|偽")
    assert not any(steering.search(line) for line in lines)  # it never steers a vote nor judges a claim


#: How the shipped personas say "I".
FIRST_PERSONS = ("僕", "私", "俺", "あたし", "わたし", "うち", "自分", "わし", "オレ", "ボク", "わたくし")


@pytest.mark.parametrize("seed", [3, 8])
def test_no_persona_says_it_comes_at_itself(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    """A counter-claim cited by one of its two claimants is said from that claimant's side:
    never 「アオトさんの占い師COに僕がぶつかってきている」 (the speaker coming at its own rival).
    Seed 3 of ``gm werewolf play --auto`` said it before."""
    from gm_engine.cli import main

    assert main(["werewolf", "play", "--auto", "--seed", str(seed), "--no-record", "--plain"]) == 0
    shown = capsys.readouterr().out
    assert "【ゲーム終了】" in shown
    coming_at_self = re.compile(f"(?:{'|'.join(FIRST_PERSONS)})が[^、。]*てき")
    assert coming_at_self.findall(shown) == []
