"""Readings of issue 14 where the engine used to read the rules differently from their words
(003 §0, §1.1, §4.3, §5.1, §6.2.2, §6.2.4, §14.1), each with its named option."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from gm_engine.combat import (
    Battle,
    CastSpell,
    Character,
    CombatOptions,
    Encounter,
    Enemy,
    FightItOut,
    HealingWaveMode,
    IllegalActionError,
    Judge,
    OutOfOrderError,
    Rank,
    ResolveByNarrative,
    RollDice,
    TargetEnemy,
    create_auto,
    create_character,
    make_enemy,
)
from gm_engine.dice.source import QueueSource


def start(party: Sequence[Character], enemies: Sequence[Enemy], dice: Sequence[int] = (),
          **options: Any) -> Battle:
    source = QueueSource([(v, 6) for v in dice])
    encounter = Encounter(enemies=tuple(enemies))
    return Battle.start(party, encounter, source=source, options=CombatOptions(**options))


def three_mobs() -> list[Enemy]:
    return [make_enemy(f"M{i}", "雑魚", 3, 5) for i in range(3)]


# -- §0 ナラティブ優先の原則 -------------------------------------------------------------------------


@pytest.mark.parametrize("rank", ["熟練", "英雄"])
def test_narrative_priority_accepts_the_rules_own_example_0(rank: str) -> None:
    battle = start([create_auto("A", rank)], three_mobs())
    battle.apply(ResolveByNarrative(reason="格の違い"))
    assert battle.is_over


def test_narrative_priority_ratio_alone_is_an_option_0() -> None:
    battle = start([create_auto("A", "熟練")], three_mobs(), narrative_priority_test="expected_ratio")
    with pytest.raises(IllegalActionError, match="not overwhelming"):
        battle.apply(ResolveByNarrative())


def test_narrative_priority_example_is_mobs_only_and_few_0() -> None:
    many = start([create_auto("A", "英雄")], [make_enemy(f"M{i}", "雑魚", 3, 5) for i in range(4)])
    with pytest.raises(IllegalActionError, match="熟練 or 英雄"):
        many.apply(ResolveByNarrative())
    novice = start([create_auto("A", "駆け出し")], three_mobs())
    with pytest.raises(IllegalActionError, match="not overwhelming"):
        novice.apply(ResolveByNarrative())


def test_a_player_who_wants_the_fight_gets_dice_0() -> None:
    battle = start([create_auto("A", "英雄")], three_mobs(), dice=[1] * 8)
    assert FightItOut() in battle.legal_actions()
    step = battle.apply(FightItOut())
    assert battle.state.fight_requested and "戦闘描写" in step.events[0]
    before = battle.state_hash()
    with pytest.raises(IllegalActionError, match="played out"):
        battle.apply(ResolveByNarrative())
    assert battle.state_hash() == before
    assert ResolveByNarrative() not in battle.legal_actions()
    with pytest.raises(IllegalActionError, match="already recorded"):
        battle.apply(FightItOut())
    battle.apply(RollDice())
    with pytest.raises(OutOfOrderError):
        battle.apply(FightItOut())


# -- §1.1 / §4.3 damage overflow ---------------------------------------------------------------------


def test_damage_overflows_to_the_next_enemy_1_1() -> None:
    party = [create_character("A", "英雄", "伝説武器", "布")]
    enemies = [make_enemy("M1", "雑魚", 0, 3), make_enemy("M2", "雑魚", 0, 4, [("armour", 1)]),
               make_enemy("M3", "雑魚", 0, 9)]
    battle = start(party, enemies, dice=[6, 6, 6, 6])
    battle.apply(TargetEnemy(enemy="M2"))
    battle.apply(RollDice())
    battle.apply(Judge())
    judge = battle.state.rounds[-1].judge
    assert judge is not None
    # PC 29, enemies 0 + 群れ補正 3 → 26: M2 first (armour 1, HP 4 → 5 used), then M1 (3), then M3 18
    assert [(d.target, d.difference, d.damage, d.hp_after) for d in judge.damage] == [
        ("M2", 26, 4, 0), ("M1", 21, 3, 0), ("M3", 18, 9, 0)
    ]
    assert battle.outcome is not None


def test_no_overflow_option_stops_at_the_target_1_1() -> None:
    party = [create_character("A", "英雄", "伝説武器", "布")]
    battle = start(party, [make_enemy("M1", "雑魚", 0, 3), make_enemy("M2", "雑魚", 0, 9)],
                   dice=[6, 6, 6, 6], damage_overflow=False)
    battle.apply(RollDice())
    battle.apply(Judge())
    assert [e.hp for e in battle.enemies] == [0, 9]


# -- §6.2.4 治癒の波動 halves this round's damage after armour -----------------------------------------


def test_healing_wave_halves_the_damage_after_armour_by_default_6_2_4() -> None:
    healer = create_character("H", "英雄", "素手", "鎖帷子", "小盾", ["治癒の波動"])
    battle = start([healer], [make_enemy("X", "雑魚", 23, 99)], dice=[1, 1, 1, 1])
    battle.apply(CastSpell(caster="H", spell="治癒の波動", mode=HealingWaveMode.HALVE))
    battle.apply(RollDice())
    battle.apply(Judge())
    judge = battle.state.rounds[-1].judge
    assert judge is not None
    # difference 23 − 4 = 19, minus armour 2 and shield 1 = 16, halved = 8
    assert judge.damage[0].damage == 8
    assert [s.label for s in judge.damage[0].steps][-1] == "【治癒の波動】半減"


# -- §6.2.2 鈍足 never spends a slot for nothing ---------------------------------------------------------


@pytest.mark.parametrize("effect", ["one_die_fewer", "minus_one"])
def test_slow_beyond_the_enemy_dice_is_refused_6_2_2(effect: str) -> None:
    caster = create_character("S", "英雄", "素手", "布", spells=["鈍足"])
    battle = start([caster], [make_enemy("E", "エリート", 5, 20)], slow_effect=effect)
    battle.apply(CastSpell(caster="S", spell="鈍足"))
    before = battle.state_hash()
    with pytest.raises(IllegalActionError, match="鈍足"):
        battle.apply(CastSpell(caster="S", spell="鈍足"))
    assert battle.state_hash() == before and battle.character("S").slots_left == 4


def test_slow_against_a_boss_takes_one_die_per_cast_6_2_2() -> None:
    caster = create_character("S", "英雄", "素手", "布", spells=["鈍足"])
    battle = start([caster], [make_enemy("B", "ボス", 5, 20)], dice=[1] * 5)
    for _ in range(3):
        battle.apply(CastSpell(caster="S", spell="鈍足"))
    with pytest.raises(IllegalActionError, match="all 3"):
        battle.apply(CastSpell(caster="S", spell="鈍足"))
    battle.apply(RollDice())
    assert not [g for g in battle.state.rounds[-1].dice if g.side == "enemy"]


def test_slow_against_diceless_enemies_always_does_something_6_2_2() -> None:
    caster = create_character("S", "英雄", "素手", "布", spells=["鈍足"])
    battle = start([caster], [make_enemy("M", "雑魚", 12, 20)], dice=[1] * 4)
    battle.apply(CastSpell(caster="S", spell="鈍足"))
    battle.apply(CastSpell(caster="S", spell="鈍足"))
    battle.apply(RollDice())
    battle.apply(Judge())
    judge = battle.state.rounds[-1].judge
    assert judge is not None and judge.enemy_ap == 12 - 8


# -- §5.1 / §14.1 rank aliases ------------------------------------------------------------------------


ALIASES = [("熟練者", Rank.VETERAN), ("騎士", Rank.VETERAN), ("伝説", Rank.HERO)]


@pytest.mark.parametrize(("alias", "rank"), ALIASES)
def test_rank_aliases_of_the_document_5_1_14_1(alias: str, rank: Rank) -> None:
    assert create_auto("A", alias).rank is rank
    assert create_character("B", alias, "長剣", "革").rank is rank
