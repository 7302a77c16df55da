"""The personas' prompts: a stable prefix a server's cache can reuse, today's record folded once
it grows, and the discussion instruction of the rules document (settle on a prime suspect
first, then weigh the others' suspicions)."""

from __future__ import annotations

import itertools

from gm_engine.llm.base import ModelRequest
from gm_engine.sessions.werewolf import run_werewolf
from gm_engine.sessions.werewolf.facts import BLOCK_SEPARATOR, FOLD_BLOCK, FOLD_MARK, today_lines
from gm_engine.werewolf import Game, player_view
from gm_engine.werewolf.log import Speech
from tests.test_werewolf_session import FirstChoiceBackend, auto_io, spec


def played(seed: int) -> list[ModelRequest]:
    io, _sink, _ = auto_io(seed)
    backend = FirstChoiceBackend()
    io.backend = backend
    run_werewolf(spec(seed, role=2, narrator=False), io)
    return list(backend.requests)


def record(request: ModelRequest) -> str:
    """The public record at the head of a turn's message (everything before 【公開情報】)."""
    return str(request.messages[1]["content"]).split("【公開情報】")[0]


def folded(request: ModelRequest) -> str:
    """The line of today's folded blocks in a turn's record ("" before the first fold)."""
    lines = [line for line in record(request).splitlines(keepends=True) if line.startswith(FOLD_MARK)]
    assert len(lines) <= 1  # every folded block is on the one line
    return "".join(lines)


def test_every_persona_prompt_starts_with_the_same_rules_then_its_own_persona() -> None:
    """A persona's system message is one text per kind of turn for the whole game (a speech,
    a vote, a night choice), and the text before the persona is the same for every persona."""
    requests = [r for r in played(6) if r.phase in ("discussion", "vote", "night", "answer")]
    kinds = {"discussion": "talk", "answer": "talk", "vote": "vote", "night": "night"}
    systems: dict[tuple[str, str], set[str]] = {}
    for r in requests:
        systems.setdefault((str(r.actor), kinds[r.phase]), set()).add(str(r.messages[0]["content"]))
    assert len({actor for actor, _ in systems}) >= 6
    assert {kind for _, kind in systems} == {"talk", "vote", "night"}
    for (_actor, _kind), texts in systems.items():
        assert len(texts) == 1  # a persona's system message never changes during the game
    for kind in ("talk", "vote", "night"):
        heads = {next(iter(t)).split("【あなた】")[0] for (_, k), t in systems.items() if k == kind}
        assert len(heads) == 1  # the game's rules and roster: one text for every persona
    talk = {next(iter(t)).split("【あなた】")[0] for (_, k), t in systems.items() if k == "talk"}
    vote = {next(iter(t)).split("【あなた】")[0] for (_, k), t in systems.items() if k == "vote"}
    # each kind carries its own rules: the CO rules in a speech's, not in a vote's
    assert all("CO要求" in text for text in talk) and not any("CO要求" in text for text in vote)


def test_a_turn_prompt_starts_with_the_record_the_previous_turn_saw() -> None:
    """The public record comes first in a turn's message and only grows there (until a block
    of today's lines is folded), so consecutive turns share their prompt's head; the parts that
    change every turn (phase, the reader's own facts and notes, the task) come after it."""
    requests = [r for r in played(6) if r.phase == "discussion" and r.day == 1]
    shared = folds = 0
    for earlier, later in itertools.pairwise(requests):
        if folded(later) != folded(earlier):
            # a block was folded between the two: onto the end of the line of folded blocks,
            # so the text before it is still the earlier prompt's
            assert folded(later).startswith(folded(earlier).removesuffix("\n"))
            folds += 1
            continue
        assert record(later).startswith(record(earlier).removesuffix("（まだ発言はありません）\n"))
        shared += 1
    assert shared >= 5 and folds >= 2
    last = str(requests[-1].messages[1]["content"])
    order = ["【今日の議論】", "【公開情報】", "【自分だけの情報】"]
    assert [last.index(mark) for mark in order] == sorted(last.index(mark) for mark in order)


def test_todays_record_is_folded_block_by_block_from_its_facts() -> None:
    pub = player_view(Game.from_deal([2, 1, 1, 2, 2, 3, 4, 5, 6]), 1).public  # the names
    speeches = [Speech(day=1, speaker=2 + i % 8, text=f"発言{i}") for i in range(3 * FOLD_BLOCK - 1)]
    lines = today_lines(speeches, pub)
    # one block short of three: the first block is one summary line, the rest stay as spoken
    assert lines[0] == f"{FOLD_MARK}発言 P2,P3,P4"
    assert lines[1:] == [f"P{s.speaker}: {s.text}" for s in speeches[FOLD_BLOCK:]]
    assert today_lines(speeches[: 2 * FOLD_BLOCK - 1], pub)[0] == "P2: 発言0"
    # a further block is folded onto the same line, after the first
    more = today_lines([*speeches, Speech(day=1, speaker=3, text="もう一言")], pub)
    assert more[0] == f"{FOLD_MARK}発言 P2,P3,P4{BLOCK_SEPARATOR}発言 P5,P6,P7"
    assert more[1:] == [f"P{s.speaker}: {s.text}" for s in speeches[2 * FOLD_BLOCK :]] + ["P3: もう一言"]


def test_the_discussion_prompt_asks_for_a_prime_suspect_first() -> None:
    """CMD_議論: each settles on a prime suspect of its own first, then weighs the others'
    suspicions (in the rules of every speech turn's system message); a vote may split."""
    requests = played(6)
    discussion = [str(r.messages[0]["content"]) for r in requests if r.phase == "discussion"]
    assert discussion
    for text in discussion:
        rules = text.split("【あなた】")[0]
        assert "公開情報と自分の情報で推理" in rules  # 「公開情報と自分の役職情報だけで独立に推理」
        assert "まず一番怪しい人を心の中で決め" in rules
        assert "他の人の疑いと根拠を比べて考え直す" in rules and "割れてよい" in rules
    votes = [str(r.messages[0]["content"]) for r in requests if r.phase == "vote"]
    assert votes and all("票は割れてよい" in text.split("【あなた】")[0] for text in votes)


def test_a_vote_or_night_prompt_has_the_days_facts_not_its_talk() -> None:
    """A vote and a night choice rest on the day's facts: its claims, requests, results (and, at
    night, votes and departure) come as one summary line, as a past day's do, and none of its
    speeches (they would cost each of those prompts the whole day again; a persona's own view
    of the talk is in its notes)."""
    requests = played(6)
    decisions = [r for r in requests if r.phase in ("vote", "night")]
    assert {r.phase for r in decisions} == {"vote", "night"}
    for request in decisions:
        user = str(request.messages[1]["content"])
        assert "【今日の議論】" not in user
        assert f"{request.day}日目: " in user.split("【公開情報】")[0]  # the day's own summary
        talks = [
            str(r.messages[1]["content"])
            for r in requests
            if r.day == request.day and r.phase == "discussion"
        ]
        assert talks  # the day had talk, which the discussion prompts carried
        talk = talks[-1].split("【今日の議論】")[1].split("【公開情報】")[0]
        lines = [line for line in talk.splitlines() if ": " in line and "（要約）" not in line]
        said = [line.split(": ", 1)[1] for line in lines]
        assert said and not any(f": {text}" in user for text in said)


def test_the_fixed_parts_of_a_prompt_stay_short() -> None:
    """The system message of every kind of turn (game, roster, that kind's rules, the persona)
    stays within a budget, and a tool's fields carry no description their name and enum say:
    these parts are in every prompt of the game (issue 12: <= 1,500 tokens a call on day 1)."""
    requests = played(6)
    for request in requests:
        if request.phase == "narration":
            continue
        system = str(request.messages[0]["content"])
        assert len(system) <= 560, (request.phase, len(system))  # main had 664 (a wolf's)
        for tool in request.tools:
            fields = tool.parameters["properties"].items()
            described = [name for name, field in fields if "description" in field]
            assert described in ([], ["target"]), (tool.name, described)
