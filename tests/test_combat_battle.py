"""The combat round as a state machine (003 §1, §3, §4, §8, §12; NOTES Fast combat)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from gm_engine.combat import (
    Battle,
    CastSpell,
    Character,
    CombatOptions,
    Difficulty,
    Encounter,
    EndBattle,
    Enemy,
    IllegalActionError,
    InvalidCharacterError,
    Judge,
    Narrate,
    NextRound,
    Outcome,
    OutOfOrderError,
    Phase,
    ResolveByNarrative,
    RollDice,
    SetSituationalBonus,
    Status,
    TargetCharacter,
    TargetEnemy,
    create_character,
    make_enemy,
    parse_action,
)
from gm_engine.combat.actions import Action
from gm_engine.combat.state import JudgeRecord
from gm_engine.dice.source import QueueSource, SeededSource


def q(*values: int) -> QueueSource:
    return QueueSource([(v, 6) for v in values])


def pc(name: str = "A", rank: str = "熟練", weapon: str = "長剣", armour: str = "鎖帷子",
       shield: str = "なし", spells: Sequence[str] = ()) -> Character:
    return create_character(name, rank, weapon, armour, shield, spells)


def start(party: Sequence[Character], enemies: Sequence[Enemy], dice: Sequence[int] = (),
          difficulty: Sequence[Difficulty] = (), **options: Any) -> Battle:
    encounter = Encounter(enemies=tuple(enemies), difficulty=tuple(difficulty))
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


# -- phases and pauses (§4, NOTES: no phase skipped or repeated) ---------------------------------


def test_round_phases_in_order_4() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 5, 30)], dice=[1, 1, 1] * 2)
    assert battle.phase is Phase.SETUP and battle.current_log().label == "BATTLE_SETUP"
    rolled = battle.apply(RollDice())
    assert (rolled.label, rolled.phase) == ("ROLL_LOG", Phase.ROLL)
    assert battle.apply(Judge()).label == "BATTLE_JUDGE"
    assert battle.apply(Narrate()).label == "NARRATIVE"
    step = battle.apply(NextRound())
    assert (step.label, step.round, battle.phase) == ("BATTLE_SETUP", 2, Phase.SETUP)


ORDER: dict[Phase, list[Action]] = {
    Phase.SETUP: [Judge(), Narrate(), NextRound(), EndBattle()],
    Phase.ROLL: [RollDice(), Narrate(), NextRound(), EndBattle(), SetSituationalBonus(character="A", bonus=1),
                 ResolveByNarrative()],
    Phase.JUDGE: [RollDice(), Judge(), NextRound(), EndBattle(), TargetEnemy(enemy="X"),
                  TargetCharacter(character="A"), SetSituationalBonus(character="A", bonus=1)],
    Phase.NARRATIVE: [RollDice(), Judge(), Narrate(), EndBattle(), TargetEnemy(enemy="X")],
}


@pytest.mark.parametrize("phase", list(ORDER))
def test_out_of_order_calls_are_refused_without_change_4(phase: Phase) -> None:
    battle = start([pc(spells=["火弾", "予見"])], [make_enemy("X", "雑魚", 5, 30)], dice=[1, 1, 1])
    path: list[Action] = [RollDice(), Judge(), Narrate()]
    for action in path[: list(ORDER).index(phase)]:
        battle.apply(action)
    assert battle.phase is phase
    wrong_spells = {Phase.SETUP: "予見", Phase.ROLL: "火弾", Phase.JUDGE: "火弾", Phase.NARRATIVE: "予見"}
    for action in [*ORDER[phase], CastSpell(caster="A", spell=wrong_spells[phase])]:
        before, dice = battle.state_hash(), len(battle.source.history)
        with pytest.raises(OutOfOrderError) as info:
            battle.apply(action)
        assert phase.value in str(info.value)
        assert battle.state_hash() == before and len(battle.source.history) == dice


def test_ended_battle_accepts_nothing() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 1, 1)], dice=[6, 6, 6])
    round_(battle)
    assert battle.outcome is Outcome.PC_VICTORY
    battle.apply(Narrate())
    with pytest.raises(OutOfOrderError, match=r"decided"):
        battle.apply(NextRound())
    assert battle.apply(EndBattle()).label == "BATTLE_END"
    assert battle.is_over and battle.legal_actions() == []
    with pytest.raises(OutOfOrderError, match=r"over"):
        battle.apply(RollDice())


def test_end_refused_while_both_sides_stand() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 1, 30)], dice=[1, 1, 1])
    round_(battle)
    battle.apply(Narrate())
    with pytest.raises(OutOfOrderError, match=r"next_round"):
        battle.apply(EndBattle())


# -- AP (§2, §3, §9.1, §12) ------------------------------------------------------------------------


def test_pc_side_ap_is_dice_plus_equipment_plus_capped_situational_2_1_9_1() -> None:
    party = [pc("A"), pc("B", rank="駆け出し", weapon="大剣", armour="革")]
    battle = start(party, [make_enemy("X", "雑魚", 5, 50)], dice=[3, 4, 5, 2, 6])
    judge = round_(battle, before=[SetSituationalBonus(character="A", bonus=4),
                                   SetSituationalBonus(character="B", bonus=3)])
    assert judge.pc_ap == (3 + 4 + 5 + 2 + 6) + (2 + 3) + (4 + 3)


def test_situational_bonus_is_capped_by_rank_14_1() -> None:
    battle = start([pc("A", rank="駆け出し")], [make_enemy("X", "雑魚", 5, 50)])
    with pytest.raises(IllegalActionError, match=r"§9.1"):
        battle.apply(SetSituationalBonus(character="A", bonus=4))
    battle.apply(SetSituationalBonus(character="A", bonus=-3))
    with pytest.raises(IllegalActionError):
        battle.apply(SetSituationalBonus(character="A", bonus=-4))


def test_negative_situational_option() -> None:
    battle = start([pc("A")], [make_enemy("X", "雑魚", 5, 50)], allow_negative_situational=False)
    with pytest.raises(IllegalActionError):
        battle.apply(SetSituationalBonus(character="A", bonus=-1))


def test_enemy_side_ap_fixed_dice_abilities_swarm_1_2_3_2_12() -> None:
    enemies = [
        make_enemy("ボス", "ボス", 10, 30, [("ap", 2)]),
        make_enemy("精鋭", "エリート", 7, 20),
        make_enemy("雑魚", "雑魚", 4, 5),
    ]
    battle = start([pc()], enemies, dice=[1, 1, 1, 6, 5, 4, 3, 6, 6, 6])
    judge = round_(battle)
    assert judge.enemy_ap == (10 + 7 + 4) + (6 + 5 + 4) + 3 + 2 + 3  # fixed, 3d6+1d6, swarm, ability


def test_swarm_only_with_several_standing_enemies_3_2() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 4, 50)], dice=[1, 1, 1])
    assert round_(battle).enemy_ap == 4
    battle = start([pc()], [make_enemy("X", "雑魚", 4, 50), make_enemy("Y", "雑魚", 4, 50)], dice=[1, 1, 1])
    assert round_(battle).enemy_ap == 8 + 2


def test_swarm_is_recomputed_as_enemies_fall_12() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 1, 1), make_enemy("Y", "雑魚", 1, 50)], dice=[6] * 6)
    assert round_(battle).enemy_ap == 2 + 2
    battle.apply(Narrate())
    battle.apply(NextRound())
    assert round_(battle).enemy_ap == 1


@pytest.mark.parametrize(("difficulty", "delta"), [(Difficulty.WEAK, -1), (Difficulty.STRONG, 1)])
def test_difficulty_ap_3_3(difficulty: Difficulty, delta: int) -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 5, 50)], dice=[1, 1, 1], difficulty=[difficulty])
    assert round_(battle).enemy_ap == 5 + delta


def test_hinder_ability_lowers_pc_ap_3_1() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 5, 50, [("hinder", 2)])], dice=[3, 3, 3])
    assert round_(battle).pc_ap == 9 + 2 - 2


# -- judge (§4.3, §8.1) ------------------------------------------------------------------------------


def test_pc_win_damages_first_standing_enemy_by_difference_4_3() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 3, 20), make_enemy("Y", "雑魚", 3, 20)], dice=[6, 6, 6])
    judge = round_(battle)
    assert judge.winner == "pc"
    assert judge.damage[0].target == "X" and judge.damage[0].damage == 20 - 8
    assert battle.enemies[0].hp == 20 - 12 and battle.enemies[1].hp == 20


def test_gm_names_the_enemy_target_4_3() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 3, 20), make_enemy("Y", "雑魚", 3, 20)], dice=[6, 6, 6])
    round_(battle, before=[TargetEnemy(enemy="Y")])
    assert [e.hp for e in battle.enemies] == [20, 8]


def test_enemy_armour_ability_reduces_its_damage_3_1() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 3, 20, [("armour", 2)])], dice=[6, 6, 6])
    judge = round_(battle)
    assert judge.damage[0].damage == (20 - 3) - 2


def test_enemy_win_damage_minus_armour_and_shield_4_3_8_1_10_2() -> None:
    party = [pc("A", shield="小盾"), pc("B", shield="大盾")]
    battle = start(party, [make_enemy("X", "ボス", 10, 50)], dice=[1, 1, 1, 1, 1, 1, 6, 6, 6])
    judge = round_(battle, before=[TargetCharacter(character="B")])
    diff = (10 + 18) - (6 + 2 + 2 - 1)
    assert judge.winner == "enemy"
    assert judge.damage[0].target == "B"
    assert judge.damage[0].damage == diff - 2 - 3
    assert battle.character("B").hp == 22 - (diff - 5)
    assert battle.character("A").hp == 22


def test_damage_never_below_zero_4_3() -> None:
    battle = start([pc(armour="板金鎧", shield="大盾")], [make_enemy("X", "雑魚", 10, 50)], dice=[1, 1, 1])
    judge = round_(battle)
    assert judge.winner == "enemy" and judge.damage[0].damage == 0
    assert battle.character("A").hp == 22


def test_tie_means_no_damage_4_3() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 11, 50)], dice=[3, 3, 3])
    judge = round_(battle)
    assert judge.winner == "tie" and judge.damage == ()
    assert battle.character("A").hp == 22 and battle.enemies[0].hp == 50


@pytest.mark.parametrize(("check", "status"), [((4, 3, 3), Status.DOWN), ((3, 3, 3), Status.DEAD),
                                                ((6, 6, 6), Status.DOWN)])
def test_life_or_death_check_3d6_at_least_10(check: tuple[int, int, int], status: Status) -> None:
    battle = start([pc(armour="布")], [make_enemy("X", "ボス", 30, 50)], dice=[1, 1, 1, 6, 6, 6, *check])
    judge = round_(battle)
    assert judge.checks[0].rolled == check
    hero = battle.character("A")
    assert hero.status is status and hero.hp == 0
    assert battle.outcome is Outcome.ENEMY_VICTORY


def test_life_check_target_option() -> None:
    battle = start([pc(armour="布")], [make_enemy("X", "ボス", 30, 50)], dice=[1, 1, 1, 6, 6, 6, 4, 3, 3],
                   life_check_target=11)
    round_(battle)
    assert battle.character("A").status is Status.DEAD


def test_downed_pc_adds_no_ap_and_is_not_targeted() -> None:
    party = [pc("A", armour="布"), pc("B", armour="布")]
    dice = [1] * 6 + [6, 6, 6] + [5, 5, 5] + [1] * 3 + [1] * 3 + [5] * 3
    battle = start(party, [make_enemy("X", "ボス", 40, 99)], dice=dice)
    round_(battle)
    assert battle.character("A").status is Status.DOWN
    battle.apply(Narrate())
    battle.apply(NextRound())
    battle.apply(RollDice())
    live = [g for g in battle.state.rounds[-1].dice if not g.discarded]
    assert [g.owner for g in live] == ["B", "X"]
    battle.apply(Judge())
    assert battle.state.rounds[-1].judge.damage[0].target == "B"  # type: ignore[union-attr]


def test_pc_victory_and_enemy_victory_outcomes() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 1, 2)], dice=[6, 6, 6])
    round_(battle)
    assert battle.outcome is Outcome.PC_VICTORY
    battle.apply(Narrate())
    battle.apply(EndBattle())
    assert "PC陣営の勝利" in battle.current_log().text


def test_regeneration_at_the_next_setup_3_1() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 5, 20, [("regeneration", 3)])], dice=[4, 4, 4])
    round_(battle)
    assert battle.enemies[0].hp == 20 - (14 - 5)
    battle.apply(Narrate())
    step = battle.apply(NextRound())
    assert battle.enemies[0].hp == 11 + 3
    assert "再生3" in step.text


def test_difficulty_hp_3_3() -> None:
    drag = start([pc()], [make_enemy("X", "雑魚", 5, 10)], difficulty=[Difficulty.DRAGS_ON])
    quick = start([pc()], [make_enemy("X", "雑魚", 5, 10)], difficulty=[Difficulty.TOO_QUICK])
    assert drag.enemies[0].max_hp == 8 and quick.enemies[0].max_hp == 12


# -- 【ナラティブ優先の原則】 (§0) --------------------------------------------------------------------------


def test_narrative_priority_ends_without_dice_or_cost_0() -> None:
    party = [pc("A", rank="英雄", spells=["火弾"])]
    battle = start(party, [make_enemy("チンピラ", "雑魚", 2, 5)])
    step = battle.apply(ResolveByNarrative(reason="英雄の一睨み"))
    assert step.label == "BATTLE_END" and battle.is_over
    assert battle.outcome is Outcome.NARRATIVE_VICTORY
    assert battle.source.history == []
    assert battle.party == tuple(party)
    record = battle.state.narrative_resolution
    assert record is not None and record.reason == "英雄の一睨み"
    assert "ナラティブ優先" in step.text


def test_narrative_priority_needs_an_overwhelming_side() -> None:
    battle = start([pc()], [make_enemy("X", "ボス", 10, 30)])
    with pytest.raises(IllegalActionError, match=r"not overwhelming"):
        battle.apply(ResolveByNarrative())
    lenient = start([pc()], [make_enemy("X", "ボス", 10, 30)], narrative_priority_ratio=None)
    lenient.apply(ResolveByNarrative())
    assert lenient.outcome is Outcome.NARRATIVE_VICTORY


def test_narrative_priority_only_before_anything_is_spent() -> None:
    battle = start([pc("A", rank="英雄", spells=["雷撃"])], [make_enemy("X", "雑魚", 1, 5)], dice=[1] * 4)
    battle.apply(CastSpell(caster="A", spell="雷撃"))
    with pytest.raises(IllegalActionError, match=r"before any die"):
        battle.apply(ResolveByNarrative())


# -- atomicity, parsing, determinism ---------------------------------------------------------------------


def test_failed_roll_leaves_battle_and_source_unchanged() -> None:
    battle = start([pc()], [make_enemy("X", "エリート", 5, 30)], dice=[1, 2, 3])  # the elite's die is missing
    before = battle.state_hash()
    with pytest.raises(IllegalActionError, match=r"ran out"):
        battle.apply(RollDice())
    assert battle.state_hash() == before and battle.phase is Phase.SETUP
    assert battle.source.history == []


def test_actions_from_tool_call_json() -> None:
    battle = start([pc(spells=["雷撃"])], [make_enemy("X", "雑魚", 5, 30)], dice=[1, 1, 1])
    battle.apply({"kind": "cast", "caster": "A", "spell": "雷撃"})
    battle.apply('{"kind": "roll"}')
    assert battle.phase is Phase.ROLL
    for bad in ['{"kind": "fly"}', '{"kind": "cast"}', "not json", {"kind": "roll", "extra": 1},
                {"kind": "cast", "caster": "A", "spell": "ファイア"}]:
        with pytest.raises(IllegalActionError, match=r"well-formed"):
            battle.apply(bad)  # type: ignore[arg-type]
    assert parse_action({"kind": "judge"}) == Judge()


def test_unknown_names_are_refused() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 5, 30)])
    with pytest.raises(IllegalActionError, match=r"no enemy"):
        battle.apply(TargetEnemy(enemy="Z"))
    with pytest.raises(IllegalActionError, match=r"no PC"):
        battle.apply(TargetCharacter(character="Z"))


def test_same_seed_same_actions_same_fight() -> None:
    def play(seed: int) -> tuple[str, list[str]]:
        encounter = Encounter(enemies=(make_enemy("X", "ボス", 8, 25), make_enemy("Y", "雑魚", 4, 6)))
        party = [pc("A", spells=["火弾", "予見"]), pc("B")]
        battle = Battle.start(party, encounter, source=SeededSource(seed))
        texts = [battle.apply(CastSpell(caster="A", spell="火弾")).text]
        while not battle.is_over:
            steps: dict[Phase, Action] = {
                Phase.SETUP: RollDice(), Phase.ROLL: Judge(), Phase.JUDGE: Narrate()
            }
            kind = steps.get(battle.phase)
            action: Action = kind or (EndBattle() if battle.outcome else NextRound())
            texts.append(battle.apply(action).text)
        return battle.state_hash(), texts

    assert play(7) == play(7)
    assert play(7)[0] != play(8)[0]


def test_every_die_is_recorded_in_the_rounds() -> None:
    source = SeededSource(3)
    encounter = Encounter(enemies=(make_enemy("X", "ボス", 12, 40), make_enemy("Y", "エリート", 5, 10)))
    battle = Battle.start([pc("A", spells=["火弾", "予見", "治癒"], armour="布")], encounter, source=source)
    battle.apply(CastSpell(caster="A", spell="火弾"))
    battle.apply(RollDice())
    battle.apply(CastSpell(caster="A", spell="予見"))
    battle.apply(CastSpell(caster="A", spell="治癒", target="A"))
    battle.apply(Judge())
    recorded = [v for r in battle.state.rounds for g in r.dice for v in g.values]
    assert recorded == [d.value for d in source.history]
    assert all(d.sides == 6 for d in source.history)


def test_start_validation() -> None:
    with pytest.raises(InvalidCharacterError, match=r"§3.2"):
        start([pc()], [make_enemy(f"M{i}", "雑魚", 2, 3) for i in range(6)])
    assert len(start([pc()], [make_enemy(f"M{i}", "雑魚", 2, 3) for i in range(6)],
                     enforce_composition=False).enemies) == 6
    with pytest.raises(InvalidCharacterError, match=r"share a name"):
        start([pc("X")], [make_enemy("X", "雑魚", 2, 3)])
    dead = pc().evolve(hp=0, status=Status.DEAD)
    with pytest.raises(InvalidCharacterError, match=r"standing"):
        start([dead], [make_enemy("X", "雑魚", 2, 3)])


def test_legal_actions_are_all_accepted() -> None:
    battle = start([pc("A", spells=["火弾", "限界突破", "治癒"])], [make_enemy("X", "雑魚", 5, 30)],
                   dice=[1] * 10)
    for phase_step in [None, RollDice(), Judge(), Narrate()]:
        if phase_step is not None:
            battle.apply(phase_step)
        legal = battle.legal_actions()
        assert legal
        for action in legal:
            assert battle.is_legal(action)
            copy = Battle.from_state(battle.state, q(*[1] * 10))
            copy.apply(action)


def test_hint_names_the_pause_and_what_comes_next() -> None:
    battle = start([pc()], [make_enemy("X", "雑魚", 5, 30)], dice=[1, 1, 1])
    assert battle.hint().startswith("round 1, SETUP") and "'roll'" in battle.hint()
    battle.apply(RollDice())
    assert "'judge'" in battle.hint()


def test_swarm_bonus_option_12() -> None:
    enemies = [make_enemy("X", "雑魚", 4, 50), make_enemy("Y", "雑魚", 4, 50)]
    battle = start([pc()], enemies, dice=[1, 1, 1, 6, 6, 6], swarm_bonus_per_enemy=0)
    assert round_(battle).enemy_ap == 8


def test_action_schema_for_tool_calls() -> None:
    from gm_engine.combat.actions import ACTION_ADAPTER

    schema = ACTION_ADAPTER.json_schema()
    defs = schema["$defs"].values()
    kinds = {v["properties"]["kind"]["const"] for v in defs if "kind" in v.get("properties", {})}
    assert {"cast", "roll", "judge", "narrate", "next_round", "end", "narrative_priority"} <= kinds
