"""The personas' prompts: a stable prefix a server's cache can reuse, today's record folded once
it grows, and the discussion instruction of the rules document (settle on a prime suspect
first, then weigh the others' suspicions)."""

from __future__ import annotations

import itertools

from gm_engine.llm.base import ModelRequest
from gm_engine.sessions.werewolf import run_werewolf
from gm_engine.sessions.werewolf.facts import FOLD_BLOCK, today_lines
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


def test_every_persona_prompt_starts_with_the_same_rules_then_its_own_persona() -> None:
    requests = [r for r in played(6) if r.phase in ("discussion", "vote", "night", "answer")]
    systems = {r.actor: str(r.messages[0]["content"]) for r in requests}
    assert len(systems) >= 6
    heads = {text.split("【あなた】")[0] for text in systems.values()}
    assert len(heads) == 1  # the game's rules and roster: one text for every persona
    for actor, text in systems.items():
        # a persona's system message never changes during the game
        assert {str(r.messages[0]["content"]) for r in requests if r.actor == actor} == {text}


def test_a_turn_prompt_starts_with_the_record_the_previous_turn_saw() -> None:
    """The public record comes first in a turn's message and only grows there (until a block
    of today's lines is folded), so consecutive turns share their prompt's head; the parts that
    change every turn (phase, the reader's own facts and notes, the task) come after it."""
    requests = [r for r in played(6) if r.phase == "discussion" and r.day == 1]
    shared = 0
    for earlier, later in itertools.pairwise(requests):
        if "（要約）" in record(later) and "（要約）" not in record(earlier):
            continue  # a block was folded between the two
        assert record(later).startswith(record(earlier).removesuffix("（まだ発言はありません）\n"))
        shared += 1
    assert shared >= 5
    last = str(requests[-1].messages[1]["content"])
    order = ["【今日の議論】", "【公開情報】", "【あなただけが知っていること】"]
    assert [last.index(mark) for mark in order] == sorted(last.index(mark) for mark in order)


def test_todays_record_is_folded_block_by_block_from_its_facts() -> None:
    pub = player_view(Game.from_deal([2, 1, 1, 2, 2, 3, 4, 5, 6]), 1).public  # the names
    speeches = [Speech(day=1, speaker=2 + i % 8, text=f"発言{i}") for i in range(2 * FOLD_BLOCK + 3)]
    lines = today_lines(speeches, pub)
    # 21 lines: the first block is one summary line, the newest 12 lines stay as spoken
    assert lines[0].startswith("（要約）発言 ")
    assert lines[1:] == [f"{pub.name(s.speaker)}: {s.text}" for s in speeches[FOLD_BLOCK:]]
    assert today_lines(speeches[: 2 * FOLD_BLOCK - 1], pub)[0] == f"{pub.name(2)}: 発言0"


def test_the_discussion_prompt_asks_for_a_prime_suspect_first() -> None:
    requests = played(6)
    discussion = [str(r.messages[1]["content"]) for r in requests if r.phase == "discussion"]
    assert discussion
    for text in discussion:
        task = text.split("【指示】")[1]
        assert "まず自分ひとりで一番怪しい人を心の中で決め" in task
        assert "他の人の疑いと根拠を比べて" in task and "割れてもよい" in task
    votes = [str(r.messages[1]["content"]) for r in requests if r.phase == "vote"]
    assert votes and all("票は割れてもよい" in text.split("【指示】")[1] for text in votes)
