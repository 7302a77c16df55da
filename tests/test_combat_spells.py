"""Spells, slots and their costs (003 §4.5, §5, §6; NOTES Fast combat) and their rule options."""

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
    HealingWaveMode,
    IllegalActionError,
    Judge,
    Narrate,
    NextRound,
    OutOfOrderError,
    RollDice,
    SetSituationalBonus,
    Status,
    TargetCharacter,
    cast_out_of_combat,
    create_character,
    make_enemy,
    rest_party,
)
from gm_engine.combat.actions import Action
from gm_engine.combat.state import JudgeRecord
from gm_engine.dice.source import QueueSource


def q(*values: int) -> QueueSource:
    return QueueSource([(v, 6) for v in values])


def mage(name: str = "M", spells: Sequence[str] = (), rank: str = "英雄", armour: str = "布",
         shield: str = "なし") -> Character:
    return create_character(name, rank, "素手", armour, shield, spells)


def start(party: Sequence[Character], enemies: Sequence[Enemy], dice: Sequence[int] = (),
          **options: Any) -> Battle:
    encounter = Encounter(enemies=tuple(enemies))
    return Battle.start(party, encounter, source=q(*dice), options=CombatOptions(**options))


def round_(battle: Battle, before: Sequence[Action] = (), after: Sequence[Action] = ()) -> JudgeRecord:
    for action in before:
        battle.apply(action)
    battle.apply(RollDice())
    for action in after:
        battle.apply(action)
    battle.apply(Judge())
    judge = battle.state.rounds[-1].judge
    assert judge is not None
    return judge


def cast(caster: str, spell: str, **kw: Any) -> CastSpell:
    return CastSpell(caster=caster, spell=spell, **kw)


# -- slots (§5) -------------------------------------------------------------------------------------


def test_each_cast_costs_one_slot_6_1() -> None:
    battle = start([mage(spells=["雷撃"])], [make_enemy("X", "雑魚", 1, 99)], dice=[1] * 4)
    battle.apply(cast("M", "雷撃"))
    assert battle.character("M").slots_left == 4


def test_out_of_slots_costs_max_hp_once_5_2() -> None:
    caster = mage(spells=["雷撃"]).evolve(slots_left=0)
    battle = start([caster], [make_enemy("X", "雑魚", 1, 99)], dice=[1] * 8)
    step = battle.apply(cast("M", "雷撃"))
    after = battle.character("M")
    assert after.max_hp == 25 and after.hp == 25 and after.slots_left == 0
    assert after.lasting_costs[0].note == "因果の歪み（【雷撃】）: 最大HP −5"
    assert "因果の歪み" in step.events[1]
    assert battle.state.casts[-1].overcast
    with pytest.raises(IllegalActionError, match=r"§5.2"):
        battle.apply(cast("M", "雷撃"))


def test_out_of_slots_options_5_2() -> None:
    caster = mage(spells=["雷撃"]).evolve(slots_left=0)
    battle = start([caster], [make_enemy("X", "雑魚", 1, 99)], overcast_max_hp_cost=3,
                   overcasts_per_character=2)
    battle.apply(cast("M", "雷撃"))
    battle.apply(cast("M", "雷撃"))
    assert battle.character("M").max_hp == 24
    none_allowed = start([caster], [make_enemy("X", "雑魚", 1, 99)], overcasts_per_character=0)
    with pytest.raises(IllegalActionError, match=r"§5.2"):
        none_allowed.apply(cast("M", "雷撃"))


def test_unknown_spell_and_fallen_caster_are_refused() -> None:
    battle = start([mage(spells=["雷撃"]), mage("N", spells=["雷撃"]).evolve(hp=0, status=Status.DOWN)],
                   [make_enemy("X", "雑魚", 1, 99)])
    with pytest.raises(IllegalActionError, match=r"does not know"):
        battle.apply(cast("M", "火弾"))
    with pytest.raises(IllegalActionError, match=r"戦闘不能"):
        battle.apply(cast("N", "雷撃"))


def test_rest_refills_slots_5_1() -> None:
    party = rest_party([mage(spells=["雷撃"]).evolve(slots_left=1)])
    assert party[0].slots_left == 5


# -- attack spells (§6.2.1) -------------------------------------------------------------------------


def test_fireball_adds_1d6_rolled_with_the_dice() -> None:
    battle = start([mage(spells=["火弾"])], [make_enemy("X", "雑魚", 1, 99)], dice=[1, 1, 1, 1, 5])
    judge = round_(battle, before=[cast("M", "火弾")])
    assert judge.pc_ap == 4 + 5
    assert [g.purpose for g in battle.state.rounds[0].dice] == ["AP", "火弾"]


def test_lightning_adds_4() -> None:
    battle = start([mage(spells=["雷撃"])], [make_enemy("X", "雑魚", 1, 99)], dice=[1, 1, 1, 1])
    assert round_(battle, before=[cast("M", "雷撃")]).pc_ap == 4 + 4


def test_collapse_resolves_one_round_later() -> None:
    battle = start([mage(spells=["崩壊"])], [make_enemy("X", "雑魚", 1, 99)], dice=[1] * 4 + [1] * 4 + [6])
    assert round_(battle, before=[cast("M", "崩壊")]).pc_ap == 4
    battle.apply(Narrate())
    step = battle.apply(NextRound())
    assert "【崩壊】(M) 1d6+3" in step.text
    assert round_(battle).pc_ap == 4 + 6 + 3
    battle.apply(Narrate())
    battle.apply(NextRound())
    assert battle.state.pending_collapses == []


@pytest.mark.parametrize(("needs_caster", "resolved"), [(True, False), (False, True)])
def test_collapse_with_a_fallen_caster_option(needs_caster: bool, resolved: bool) -> None:
    party = [mage(spells=["崩壊"], rank="駆け出し"), mage("B", rank="英雄")]
    battle = start(party, [make_enemy("X", "ボス", 30, 99)],
                   dice=[1, 1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5, 1, 1, 1, 1, *([6] if resolved else []), 1, 1, 1],
                   collapse_needs_standing_caster=needs_caster)
    battle.apply(TargetCharacter(character="M"))
    round_(battle, before=[cast("M", "崩壊")])
    assert battle.character("M").status is Status.DOWN
    battle.apply(Narrate())
    battle.apply(NextRound())
    judge = round_(battle)
    assert any(t.label.startswith("【崩壊】") for t in judge.pc_terms) is resolved
    assert any("不発" in n for n in judge.notes) is (not resolved)


# -- support spells (§6.2.2) ------------------------------------------------------------------------


def test_slow_removes_one_enemy_die() -> None:
    battle = start([mage(spells=["鈍足"])], [make_enemy("X", "ボス", 5, 99)], dice=[1] * 4 + [6, 6])
    judge = round_(battle, before=[cast("M", "鈍足")])
    assert judge.enemy_ap == 5 + 12
    assert [len(g.values) for g in battle.state.rounds[0].dice] == [4, 2]


def test_slow_against_diceless_enemies_is_minus_4() -> None:
    battle = start([mage(spells=["鈍足"])], [make_enemy("X", "雑魚", 9, 99)], dice=[1] * 4)
    assert round_(battle, before=[cast("M", "鈍足")]).enemy_ap == 9 - 4


def test_slow_minus_one_option() -> None:
    battle = start([mage(spells=["鈍足"])], [make_enemy("X", "ボス", 5, 99)], dice=[1] * 4 + [6, 6, 6],
                   slow_effect="minus_one")
    assert round_(battle, before=[cast("M", "鈍足")]).enemy_ap == 5 + 18 - 1


@pytest.mark.parametrize(("amount", "expected"), [(6, 22 - 2), (3, 22 - 5)])
def test_mana_shield_reduces_one_characters_damage(amount: int, expected: int) -> None:
    party = [mage(spells=["魔力盾"], rank="熟練"), mage("B", rank="熟練")]
    battle = start(party, [make_enemy("X", "雑魚", 14, 99)], dice=[1] * 6, mana_shield_amount=amount)
    round_(battle, before=[cast("M", "魔力盾", target="B"), TargetCharacter(character="B")])
    assert battle.character("B").hp == expected  # difference 8


def test_mana_shield_on_another_pc_does_not_protect_the_one_hit() -> None:
    party = [mage(spells=["魔力盾"], rank="熟練"), mage("B", rank="熟練")]
    battle = start(party, [make_enemy("X", "雑魚", 14, 99)], dice=[1] * 6)
    round_(battle, before=[cast("M", "魔力盾", target="M"), TargetCharacter(character="B")])
    assert battle.character("B").hp == 22 - 8


def test_sanctuary_zeroes_damage_and_its_caster_adds_no_ap() -> None:
    party = [mage(spells=["聖域"], rank="熟練"), create_character("B", "熟練", "長剣", "布")]
    battle = start(party, [make_enemy("X", "雑魚", 30, 99)], dice=[2, 2, 2])
    judge = round_(battle, before=[cast("M", "聖域")])
    assert [g.owner for g in battle.state.rounds[0].dice] == ["B"]
    assert judge.pc_ap == 6 + 2
    assert judge.winner == "enemy" and judge.damage[0].damage == 0
    assert battle.character("M").hp == 22


# -- special spells (§4.5, §6.2.3) ------------------------------------------------------------------


def test_foresight_rerolls_the_last_roll_once_per_cast_4_5() -> None:
    battle = start([mage(spells=["予見"])], [make_enemy("X", "エリート", 5, 99)],
                   dice=[1, 1, 1, 1, 1, 6, 6, 6, 6, 2, 3, 3, 3, 3, 3])
    battle.apply(RollDice())
    step = battle.apply(cast("M", "予見"))
    assert step.label == "ROLL_LOG" and battle.phase.value == "ROLL"
    record = battle.state.rounds[0]
    assert [g.values for g in record.dice if g.discarded] == [(1, 1, 1, 1), (1,)]
    assert "破棄" in step.text
    battle.apply(cast("M", "予見"))
    judge = battle.apply(Judge())
    assert battle.state.rounds[0].rerolls == 2
    assert "PC陣営最終AP: 12" in judge.text


def test_foresight_pc_side_option() -> None:
    battle = start([mage(spells=["予見"])], [make_enemy("X", "エリート", 5, 99)],
                   dice=[1, 1, 1, 1, 4, 6, 6, 6, 6], foresight_rerolls="pc_side")
    battle.apply(RollDice())
    battle.apply(cast("M", "予見"))
    judge = battle.apply(Judge())
    assert "PC陣営最終AP: 24" in judge.text and "敵陣営最終AP: 9" in judge.text


def test_foresight_is_only_cast_after_a_roll() -> None:
    battle = start([mage(spells=["予見"])], [make_enemy("X", "雑魚", 5, 99)])
    with pytest.raises(OutOfOrderError):
        battle.apply(cast("M", "予見"))


def test_limit_break_converts_hp_to_ap() -> None:
    battle = start([mage(spells=["限界突破"])], [make_enemy("X", "雑魚", 1, 99)], dice=[1] * 4)
    with pytest.raises(IllegalActionError, match=r"below 1"):
        battle.apply(cast("M", "限界突破", amount=30))
    battle.apply(cast("M", "限界突破", amount=29))
    assert battle.character("M").hp == 1
    assert round_(battle).pc_ap == 4 + 29


# -- healing spells (§6.2.4) ------------------------------------------------------------------------


def test_heal_uses_the_targets_rank_dice_between_comparison_and_damage() -> None:
    healer = mage(spells=["治癒"], rank="熟練")
    hurt = create_character("B", "駆け出し", "素手", "布").evolve(hp=3)
    battle = start([healer, hurt], [make_enemy("X", "雑魚", 12, 99)], dice=[1] * 5 + [4, 5])
    judge = round_(battle, before=[TargetCharacter(character="B")], after=[cast("M", "治癒", target="B")])
    assert judge.heals[0].rolled == (4, 5)  # 駆け出し: 2d6
    assert judge.heals[0].hp_after == 12
    assert battle.character("B").hp == 12 - (12 - 5)  # healed first, then damaged; no check


def test_heal_is_capped_at_max_hp_and_cannot_be_cast_at_judge() -> None:
    battle = start([mage(spells=["治癒"])], [make_enemy("X", "雑魚", 1, 99)], dice=[1] * 4 + [6, 6, 6, 6])
    round_(battle, after=[cast("M", "治癒", target="M")])
    assert battle.character("M").hp == 30
    with pytest.raises(OutOfOrderError):
        battle.apply(cast("M", "治癒", target="M"))


def test_revive_ward_makes_the_check_succeed_without_dice() -> None:
    battle = start([mage(spells=["蘇生"], rank="熟練")], [make_enemy("X", "ボス", 40, 99)], dice=[1] * 6)
    judge = round_(battle, before=[cast("M", "蘇生", target="M")])
    assert judge.checks[0].result == "down" and judge.checks[0].by == "【蘇生】"
    assert battle.character("M").status is Status.DOWN
    assert len(battle.source.history) == 6


def test_revive_after_death_in_the_same_battle() -> None:
    party = [mage(spells=["蘇生"], rank="熟練"), mage("B", rank="一般人")]
    battle = start(party, [make_enemy("X", "ボス", 40, 99)], dice=[1] * 7 + [1, 1, 1])
    round_(battle, before=[TargetCharacter(character="B")])
    assert battle.character("B").status is Status.DEAD
    step = battle.apply(cast("M", "蘇生", target="B"))
    assert battle.character("B").status is Status.DOWN
    assert "蘇生" in step.text
    dead_elsewhere = mage("C", rank="一般人").evolve(hp=0, status=Status.DEAD)
    other = start([mage(spells=["蘇生"]), dead_elsewhere], [make_enemy("X", "雑魚", 1, 9)])
    with pytest.raises(IllegalActionError, match=r"did not die in this scene"):
        other.apply(cast("M", "蘇生", target="C"))


@pytest.mark.parametrize(("halves", "damage"), [("difference", 20 // 2 - 3), ("final_damage", (20 - 3) // 2)])
def test_healing_wave_halves_damage_option(halves: str, damage: int) -> None:
    party = [mage(spells=["治癒の波動"], rank="熟練", armour="板金鎧")]
    battle = start(party, [make_enemy("X", "雑魚", 23, 99)], dice=[1, 1, 1], healing_wave_halves=halves)
    judge = round_(battle, after=[cast("M", "治癒の波動", mode=HealingWaveMode.HALVE)])
    assert judge.damage[0].damage == damage


def test_healing_wave_odd_difference_rounds_down() -> None:
    party = [mage(spells=["治癒の波動"], rank="熟練")]
    battle = start(party, [make_enemy("X", "雑魚", 14, 99)], dice=[1, 1, 1])
    judge = round_(battle, after=[cast("M", "治癒の波動", mode="halve")])
    assert judge.damage[0].damage == 11 // 2


def test_healing_wave_endure_keeps_one_character_at_hp_1() -> None:
    party = [mage(spells=["治癒の波動"], rank="熟練")]
    battle = start(party, [make_enemy("X", "ボス", 40, 99)], dice=[1] * 6)
    judge = round_(battle, before=[cast("M", "治癒の波動", mode="endure", target="M")])
    assert battle.character("M").hp == 1 and battle.character("M").standing
    assert judge.checks[0].result == "endured"
    assert battle.outcome is None


def test_healing_wave_needs_a_mode() -> None:
    battle = start([mage(spells=["治癒の波動"])], [make_enemy("X", "雑魚", 1, 9)])
    with pytest.raises(IllegalActionError, match=r"mode"):
        battle.apply(cast("M", "治癒の波動"))
    with pytest.raises(IllegalActionError, match=r"target"):
        battle.apply(cast("M", "治癒の波動", mode="endure"))


# -- out of combat (§6.2.4) -------------------------------------------------------------------------


@pytest.mark.parametrize(("rank", "per_member"), [("熟練", 1), ("英雄", 2)])
def test_healing_wave_out_of_combat_heals_the_party(rank: str, per_member: int) -> None:
    party = [mage(spells=["治癒の波動"], rank=rank).evolve(hp=5), mage("B", rank="駆け出し").evolve(hp=5),
             mage("C", rank="一般人").evolve(hp=0, status=Status.DEAD)]
    source = q(*([3] * (2 * per_member)))
    result = cast_out_of_combat(party, "M", "治癒の波動", source)
    assert [c.hp for c in result.party] == [5 + 3 * per_member, 5 + 3 * per_member, 0]
    assert len(result.dice) == 2 * per_member and result.party[0].slots_left == party[0].slots_left - 1


def test_heal_out_of_combat_and_refusals() -> None:
    party = [mage(spells=["治癒", "雷撃"]).evolve(hp=2)]
    result = cast_out_of_combat(party, "M", "治癒", q(6, 6, 6, 6), target="M")
    assert result.party[0].hp == 26
    for spell in ("雷撃", "予見", "蘇生"):
        with pytest.raises(IllegalActionError, match=r"outside a battle"):
            cast_out_of_combat(party, "M", spell, q())
    source = q(1)
    with pytest.raises(IllegalActionError):
        cast_out_of_combat(party, "M", "治癒", source, target="Z")
    assert source.history == []


def test_sanctuary_caster_adds_no_ap_from_spells_or_bonuses() -> None:
    party = [mage(spells=["聖域", "雷撃", "火弾"], rank="熟練")]
    battle = start(party, [make_enemy("X", "雑魚", 30, 99)])
    battle.apply(SetSituationalBonus(character="M", bonus=2))
    step = battle.apply(cast("M", "聖域"))
    assert "取り消し" in step.events[-1]
    assert battle.state.rounds[0].declarations.situational == {}
    with pytest.raises(IllegalActionError, match="聖域"):
        battle.apply(cast("M", "雷撃"))
    with pytest.raises(IllegalActionError, match="聖域"):
        battle.apply(SetSituationalBonus(character="M", bonus=1))
    other = start(party, [make_enemy("X", "雑魚", 30, 99)])
    other.apply(cast("M", "火弾"))
    with pytest.raises(IllegalActionError, match="adds AP this round"):
        other.apply(cast("M", "聖域"))


def test_slow_no_dice_penalty_option() -> None:
    battle = start([mage(spells=["鈍足"])], [make_enemy("X", "雑魚", 9, 99)], dice=[1] * 4,
                   slow_no_dice_penalty=2)
    assert round_(battle, before=[cast("M", "鈍足")]).enemy_ap == 9 - 2


def test_foresight_at_judge_rerolls_a_life_or_death_check_4_5() -> None:
    party = [mage(spells=["予見"], rank="熟練"), mage("B", rank="一般人")]
    battle = start(party, [make_enemy("X", "ボス", 40, 99)], dice=[1] * 4 + [1, 1, 1] + [1, 2, 3] + [6, 5, 4])
    round_(battle, before=[TargetCharacter(character="B")])
    assert battle.character("B").status is Status.DEAD
    step = battle.apply(cast("M", "予見"))
    assert step.label == "BATTLE_JUDGE"
    assert battle.character("B").status is Status.DOWN
    assert battle.state.died_in_battle == []
    judge = battle.state.rounds[0].judge
    assert judge is not None and judge.checks[0].rolled == (6, 5, 4) and judge.checks[0].result == "down"
    assert "破棄" in step.text and "振り直し" in step.text
    assert battle.character("M").slots_left == 2  # one cast, one re-roll
    assert battle.state.rounds[0].rerolls == 1
    battle.apply(Narrate())
    with pytest.raises(OutOfOrderError):
        battle.apply(cast("M", "予見"))


def test_foresight_at_judge_needs_a_check_to_reroll() -> None:
    battle = start([mage(spells=["予見"], rank="熟練")], [make_enemy("X", "雑魚", 1, 99)], dice=[1, 1, 1])
    round_(battle)
    with pytest.raises(IllegalActionError, match="not one"):
        battle.apply(cast("M", "予見"))
