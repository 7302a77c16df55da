"""Property tests: HP never above max, slots never below 0, phases in order, same seed same fight,
every die recorded, and no input crashes the engine or half-changes it."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gm_engine.combat import (
    Battle,
    CombatError,
    Encounter,
    Phase,
    create_auto,
    create_character,
    make_enemy,
)
from gm_engine.combat.actions import ACTION_PHASES, Action
from gm_engine.dice.source import SeededSource

PARTY = (
    create_character("戦士", "熟練", "大剣", "板金鎧"),
    create_character("術師", "英雄", "短剣", "布", spells=["火弾", "崩壊", "予見", "魔力盾", "聖域"]),
    create_character("僧侶", "駆け出し", "メイス", "革", "大盾", ["治癒", "蘇生"]).evolve(slots_left=1),
    create_auto("見習い", "一般人"),
)
HEALERS = (
    create_character(
        "癒し手", "英雄", "棍棒", "鎖帷子", "なし", ["治癒の波動", "鈍足", "限界突破", "雷撃", "治癒"]
    ),
)
ENCOUNTER = Encounter(
    enemies=(
        make_enemy("魔王", "ボス", 12, 35, [("ap", 2), ("regeneration", 3)]),
        make_enemy("騎士", "エリート", 8, 15, [("armour", 2)]),
        make_enemy("小鬼", "雑魚", 5, 6, [("hinder", 1)]),
    )
)

TRANSITIONS = {
    ("SETUP", "SETUP"), ("SETUP", "ROLL"), ("SETUP", "ENDED"), ("ROLL", "ROLL"), ("ROLL", "JUDGE"),
    ("JUDGE", "JUDGE"), ("JUDGE", "NARRATIVE"), ("NARRATIVE", "NARRATIVE"), ("NARRATIVE", "SETUP"),
    ("NARRATIVE", "ENDED"),
}
ADVANCE = {"roll", "judge", "narrate", "next_round", "end", "narrative_priority"}


def play(seed: int, picks: list[tuple[bool, int]], party: tuple[Any, ...] = PARTY) -> Battle:
    battle = Battle.start(party, ENCOUNTER, seed=seed)
    for advance, index in picks:
        legal = battle.legal_actions()
        if not legal:
            break
        pool = [a for a in legal if (a.kind in ADVANCE) == advance] or legal
        action: Action = pool[index % len(pool)]
        before = battle.phase
        battle.apply(action)
        after = battle.phase
        assert (before.value, after.value) in TRANSITIONS
        if before is not after:
            assert action.kind in ADVANCE or (action.kind == "cast" and after is before)
        for character in battle.party:
            assert 0 <= character.hp <= character.max_hp
            assert 0 <= character.slots_left <= character.max_slots
        for enemy in battle.enemies:
            assert 0 <= enemy.hp <= enemy.max_hp
    return battle


PICKS = st.lists(st.tuples(st.booleans(), st.integers(0, 10_000)), min_size=1, max_size=80)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), picks=PICKS, healers=st.booleans())
def test_invariants_hold_in_random_battles(seed: int, picks: list[tuple[bool, int]], healers: bool) -> None:
    party = PARTY + HEALERS if healers else PARTY
    battle = play(seed, picks, party)
    recorded = [v for r in battle.state.rounds for g in r.dice for v in g.values]
    assert recorded == [d.value for d in battle.source.history]
    replay = Battle.start(party, ENCOUNTER, seed=seed)
    for action in battle.state.actions:
        replay.apply(action)
    assert replay.state_hash() == battle.state_hash()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), picks=PICKS)
def test_same_seed_same_fight(seed: int, picks: list[tuple[bool, int]]) -> None:
    first, second = play(seed, picks), play(seed, picks)
    assert first.state_hash() == second.state_hash()
    assert first.current_log() == second.current_log()


NAMES = ["戦士", "術師", "僧侶", "魔王", "小鬼", "X", ""]
VALUES = st.one_of(
    st.none(), st.integers(-40, 40), st.text(max_size=6),
    st.sampled_from([*ACTION_PHASES, "火弾", "予見", "治癒", "蘇生", "halve", "endure", *NAMES]),
)
JUNK = st.one_of(
    st.text(max_size=40),
    st.dictionaries(
        st.sampled_from(["kind", "caster", "spell", "target", "amount", "mode", "character", "bonus", "enemy",
                         "reason"]),
        VALUES, max_size=6,
    ),
)


@settings(max_examples=150, deadline=None)
@given(junk=st.lists(JUNK, min_size=1, max_size=8), seed=st.integers(0, 1000))
def test_no_input_crashes_or_half_applies(junk: list[Any], seed: int) -> None:
    battle = Battle.start(PARTY, ENCOUNTER, source=SeededSource(seed))
    for item in junk:
        before, dice = battle.state_hash(), len(battle.source.history)
        try:
            battle.apply(item)
        except CombatError:
            assert battle.state_hash() == before and len(battle.source.history) == dice
        assert battle.phase in set(Phase)


ANY = st.one_of(
    st.none(), st.integers(-5, 40), st.text(max_size=8), st.lists(st.text(max_size=4), max_size=3),
    st.sampled_from(["熟練", "英雄", "長剣", "大剣", "板金鎧", "小盾", "大盾", "火弾", "治癒"]),
)


@settings(max_examples=200, deadline=None)
@given(args=st.tuples(ANY, ANY, ANY, ANY, ANY, ANY))
def test_character_creation_never_crashes(args: tuple[Any, ...]) -> None:
    from gm_engine.combat import InvalidCharacterError

    try:
        character = create_character(*args)
    except InvalidCharacterError:
        return
    assert 0 < character.hp <= character.max_hp
    assert len(character.spells) <= character.max_slots
