"""Enemies, encounters, difficulty and the encounter helper (003 §1.2, §2.3, §3, §11, §12)."""

from __future__ import annotations

import math

import pytest

from gm_engine.combat import (
    Ability,
    AbilityKind,
    Character,
    CombatOptions,
    Difficulty,
    Encounter,
    EncounterKind,
    EnemyKind,
    InvalidCharacterError,
    Status,
    create_auto,
    create_character,
    forecast_encounter,
    make_enemy,
    propose_encounter,
)
from gm_engine.combat.enemies import expected_enemy_side_ap, expected_party_ap, swarm_bonus
from gm_engine.combat.render import enemy_line


def test_enemy_kinds_and_dice_1_2() -> None:
    assert [k.dice for k in (EnemyKind.MOB, EnemyKind.ELITE, EnemyKind.BOSS)] == [0, 1, 3]


def test_abilities_are_one_line_and_small_3_1() -> None:
    pairs = [(AbilityKind.AP, 1), (AbilityKind.ARMOUR, 2), (AbilityKind.HINDER, 1),
             (AbilityKind.REGENERATION, 5)]
    texts = [Ability(kind=kind, amount=amount).text for kind, amount in pairs]
    assert texts == ["攻撃補正 AP+1", "防御補正 防具+2", "状態干渉 敵AP-1", "再生5"]
    for kind, amount in [("ap", 3), ("armour", 0), ("hinder", 3), ("regeneration", 6), ("ap", -3)]:
        with pytest.raises(InvalidCharacterError, match=r"§3\.1"):
            make_enemy("X", "雑魚", 3, 5, [(kind, amount)])
    with pytest.raises(InvalidCharacterError, match="at most 2"):
        make_enemy("X", "雑魚", 3, 5, [("ap", 1), ("armour", 1), ("regeneration", 1)])
    assert make_enemy("X", "ボス", 3, 5, [("ap", -2)]).ap_modifier == -2


def test_enemy_values_are_validated() -> None:
    with pytest.raises(InvalidCharacterError):
        make_enemy("X", "ドラゴン", 3, 5)
    with pytest.raises(InvalidCharacterError):
        make_enemy("X", "雑魚", -1, 5)
    with pytest.raises(InvalidCharacterError):
        make_enemy("X", "雑魚", 3, 0)


def test_composition_3_2() -> None:
    mobs = tuple(make_enemy(f"M{i}", "雑魚", 2, 3) for i in range(6))
    with pytest.raises(InvalidCharacterError, match=r"§3\.2"):
        Encounter(enemies=mobs).check_composition()
    Encounter(enemies=mobs[:5]).check_composition()
    elites = tuple(make_enemy(f"E{i}", "エリート", 2, 3) for i in range(3))
    with pytest.raises(InvalidCharacterError, match="エリート"):
        Encounter(enemies=elites).check_composition()
    bosses = (make_enemy("B1", "ボス", 2, 3), make_enemy("B2", "ボス", 2, 3))
    with pytest.raises(InvalidCharacterError, match="ボス"):
        Encounter(enemies=bosses).check_composition()
    with pytest.raises(ValueError, match="share a name"):
        Encounter(enemies=(mobs[0], mobs[0]))
    with pytest.raises(ValueError, match="at least one"):
        Encounter(enemies=())


def test_swarm_bonus_12() -> None:
    assert [swarm_bonus(n) for n in range(5)] == [0, 0, 2, 3, 4]
    assert swarm_bonus(3, CombatOptions(swarm_bonus_per_enemy=2)) == 6


def test_difficulty_3_3() -> None:
    enemy = make_enemy("X", "雑魚", 3, 10)
    assert Encounter(enemies=(enemy,), difficulty=(Difficulty.WEAK,)).ap_adjustment == -1
    assert Encounter(enemies=(enemy,), difficulty=(Difficulty.STRONG,)).ap_adjustment == 1
    assert Encounter(enemies=(enemy,), difficulty=(Difficulty.DRAGS_ON,)).adjusted_enemies()[0].max_hp == 8
    assert Encounter(enemies=(enemy,), difficulty=(Difficulty.TOO_QUICK,)).adjusted_enemies()[0].hp == 12
    odd = make_enemy("Y", "雑魚", 3, 7)
    assert Encounter(enemies=(odd,), difficulty=(Difficulty.DRAGS_ON,)).adjusted_enemies()[0].max_hp == 6
    for pair in [(Difficulty.WEAK, Difficulty.STRONG), (Difficulty.DRAGS_ON, Difficulty.TOO_QUICK)]:
        with pytest.raises(ValueError, match="cancel out"):
            Encounter(enemies=(enemy,), difficulty=pair)


PARTY = (create_auto("A", "熟練"), create_auto("B", "熟練"), create_character("C", "駆け出し", "短剣", "革"))


SIDE = CombatOptions(encounter_basis="side_total")
MEMBER = CombatOptions(encounter_basis="member_average")
RANGES = [
    (EncounterKind.MOBS, -4, -2, 2.0), (EncounterKind.ELITE, 0, 2, 2.5), (EncounterKind.BOSS, 3, 6, 3.0)
]
LEADS = {
    EncounterKind.MOBS: EnemyKind.MOB,
    EncounterKind.ELITE: EnemyKind.ELITE,
    EncounterKind.BOSS: EnemyKind.BOSS,
}


@pytest.mark.parametrize(("kind", "low", "high", "factor"), RANGES)
@pytest.mark.parametrize("party", [PARTY, PARTY[:1], (create_auto("S", "駆け出し"),)])
def test_encounter_helper_2_3_relative_to_the_party_average_option(
    kind: EncounterKind, low: int, high: int, factor: float, party: tuple[Character, ...]
) -> None:
    proposal = propose_encounter(party, kind, options=MEMBER)
    average = expected_party_ap(party) / len(party)
    assert proposal.party_average_ap == pytest.approx(average)
    for enemy in proposal.encounter.enemies:
        offset = enemy.expected_ap - average
        if enemy.kind is LEADS[kind]:
            assert low - 0.5 <= offset <= high + 0.5
        else:
            assert -4.5 <= offset <= -1.5  # the 雑魚 that come along
        assert proposal.margin * factor <= enemy.max_hp < proposal.margin * factor + 1  # HP, rounded up
    assert proposal.enemy_side_ap == pytest.approx(expected_enemy_side_ap(proposal.encounter, MEMBER))
    assert proposal.margin >= 3
    proposal.encounter.check_composition()
    assert "期待差分" in proposal.explanation


@pytest.mark.parametrize(("kind", "low", "high", "factor"), RANGES)
@pytest.mark.parametrize("party", [PARTY, PARTY[:1], (create_auto("S", "駆け出し"),)])
def test_encounter_helper_2_3_at_the_side_level_option(
    kind: EncounterKind, low: int, high: int, factor: float, party: tuple[Character, ...]
) -> None:
    proposal = propose_encounter(party, kind, options=SIDE)
    assert proposal.party_ap == pytest.approx(expected_party_ap(party))
    slack = 0.5 * len(proposal.encounter.enemies)  # each enemy's fixed AP is rounded
    assert low - slack <= proposal.enemy_side_ap - proposal.party_ap <= high + slack
    for enemy in proposal.encounter.enemies:
        assert proposal.margin * factor <= enemy.max_hp < proposal.margin * factor + 1
    proposal.encounter.check_composition()


def test_a_mob_fight_is_weaker_than_the_party() -> None:
    for size in range(1, 7):
        party = tuple(create_auto(f"P{i}", "熟練") for i in range(size))
        assert propose_encounter(party, "雑魚戦", options=SIDE).enemy_side_ap < expected_party_ap(party)
        per_member = propose_encounter(party, "雑魚戦", options=MEMBER)
        assert (per_member.enemy_side_ap < per_member.party_ap) is (size >= 2)
        assert propose_encounter(party, "雑魚戦").enemy_side_ap < expected_party_ap(party) - 3
    solo = propose_encounter(PARTY[:1], "雑魚戦", options=MEMBER)
    assert "上回る" in solo.explanation  # a lone PC is told its 雑魚戦 is the stronger side


def test_encounter_helper_counts_3_2() -> None:
    solo = (create_auto("A", "英雄"),)
    assert len(propose_encounter(solo, "雑魚戦").encounter.enemies) == 2
    six = tuple(create_auto(n, "駆け出し") for n in "ABCDEF")
    mobs = propose_encounter(six, "雑魚戦").encounter.enemies
    assert len(mobs) == 5 and all(e.kind is EnemyKind.MOB for e in mobs)
    elites = [e for e in propose_encounter(six, "エリート戦").encounter.enemies if e.kind is EnemyKind.ELITE]
    assert len(elites) == 2
    boss = propose_encounter(six, "ボス戦").encounter.enemies
    assert sum(e.kind is EnemyKind.BOSS for e in boss) == 1


def test_encounter_helper_offset_and_difficulty() -> None:
    strong = propose_encounter(PARTY, "ボス戦", offset=6, difficulty=["強い", "瞬殺"], options=MEMBER)
    assert strong.encounter.difficulty == (Difficulty.STRONG, Difficulty.TOO_QUICK)
    weak = propose_encounter(PARTY, "ボス戦", offset=3, options=MEMBER)
    assert strong.encounter.enemies[0].ap == weak.encounter.enemies[0].ap + 3
    # rank_dice: a boss's offset counts once per PC (3 PCs: +18 against +9, shared by weight)
    boss_strong = propose_encounter(PARTY, "ボス戦", offset=6).encounter.enemies
    boss_weak = propose_encounter(PARTY, "ボス戦", offset=3).encounter.enemies
    gap = sum(e.ap for e in boss_strong) - sum(e.ap for e in boss_weak)
    assert gap == pytest.approx(9, abs=len(boss_weak))
    side_strong = propose_encounter(PARTY, "ボス戦", offset=6, options=SIDE)
    side_weak = propose_encounter(PARTY, "ボス戦", offset=3, options=SIDE)
    strong_ap = sum(e.ap for e in side_strong.encounter.enemies)
    assert strong_ap == pytest.approx(sum(e.ap for e in side_weak.encounter.enemies) + 3, abs=1)
    with pytest.raises(InvalidCharacterError, match=r"§2\.3"):
        propose_encounter(PARTY, "ボス戦", offset=7)
    with pytest.raises(InvalidCharacterError):
        propose_encounter(PARTY, "竜退治")
    with pytest.raises(InvalidCharacterError):
        propose_encounter([], "ボス戦")


def test_expected_damage_per_round_is_exact_over_the_dice() -> None:
    from gm_engine.combat.enemies import expected_damage_per_round

    commoner = (create_character("C", "一般人", "素手", "布"),)
    assert expected_damage_per_round(commoner, Encounter(enemies=(make_enemy("X", "雑魚", 3, 5),))) == 1.0
    armoured = Encounter(enemies=(make_enemy("X", "雑魚", 1, 5, [("armour", -1)]),))
    assert expected_damage_per_round(commoner, armoured) == pytest.approx(21 / 6)
    elite = Encounter(enemies=(make_enemy("X", "エリート", 0, 5),))
    assert expected_damage_per_round(commoner, elite) == pytest.approx(35 / 36)  # Σ k(6 − k), k = 1..5
    assert propose_encounter(PARTY, "ボス戦").expected_damage > 0


def test_malformed_abilities_are_refused() -> None:
    for bad in [[("ap",)], [("ap", "x")], [3], [("fly", 1)]]:
        with pytest.raises(InvalidCharacterError):
            make_enemy("X", "雑魚", 3, 5, bad)  # type: ignore[arg-type]


OFFSETS = {EncounterKind.MOBS: -3, EncounterKind.ELITE: 0, EncounterKind.BOSS: 3}
RANK_DICE = CombatOptions(encounter_basis="rank_dice")


@pytest.mark.parametrize("kind", list(EncounterKind))
@pytest.mark.parametrize("rank", ["一般人", "駆け出し", "熟練", "英雄"])
def test_rank_dice_helper_2_3_3_2_11_2(kind: EncounterKind, rank: str) -> None:
    for size in range(1, 7):
        party = tuple(create_auto(f"P{i}", rank) for i in range(size))
        proposal = propose_encounter(party, kind, options=RANK_DICE)
        enemies = proposal.encounter.enemies
        mobs = [e for e in enemies if e.kind is EnemyKind.MOB]
        assert len(mobs) == 0 or 2 <= len(mobs) <= 5  # §3.2: 雑魚 come in groups
        assert list(enemies[: len(mobs)]) == mobs  # listed first: the overflow reaches the leader
        proposal.encounter.check_composition()
        # §2.3 against the dice expectation; a boss's offset counts once per PC
        per_pc = size if kind is EncounterKind.BOSS else 1
        wanted = sum(3.5 * c.ap_dice for c in party) + OFFSETS[kind] * per_pc
        if all(e.ap > 0 for e in enemies):  # fixed AP stops at 0 when dice and 群れ補正 exceed the aim
            assert wanted - len(enemies) < proposal.enemy_side_ap <= wanted + 1e-9  # each rounded down
        # §2.3 / §11.2: the group's HP is the margin times the kind's factor, shared by weight
        factor = {EncounterKind.MOBS: 2.0, EncounterKind.ELITE: 2.5, EncounterKind.BOSS: 3.0}[kind]
        group = max(len(enemies), math.ceil(proposal.margin * factor))
        assert abs(sum(e.max_hp for e in enemies) - group) <= len(enemies)
        assert proposal.margin == pytest.approx(max(1.0, proposal.party_ap - proposal.enemy_side_ap))


def test_a_lone_pc_outmatches_its_mobs_2_3() -> None:
    for rank in ("一般人", "駆け出し", "熟練", "英雄"):
        proposal = propose_encounter((create_auto("A", rank),), "雑魚戦")
        assert proposal.enemy_side_ap < proposal.party_ap
        assert "上回る" not in proposal.explanation


OFFSET_RANGES = {EncounterKind.MOBS: (-4, -2), EncounterKind.ELITE: (0, 2), EncounterKind.BOSS: (3, 6)}


@pytest.mark.parametrize("kind", list(EncounterKind))
def test_forecast_helper_stays_within_2_3_and_3_2(kind: EncounterKind) -> None:
    for rank in ("一般人", "英雄"):
        for size in (1, 3):
            party = tuple(create_auto(f"P{i}", rank) for i in range(size))
            proposal = propose_encounter(party, kind)
            enemies = proposal.encounter.enemies
            proposal.encounter.check_composition()
            mobs = [e for e in enemies if e.kind is EnemyKind.MOB]
            assert len(mobs) == 0 or 2 <= len(mobs) <= 5
            assert list(enemies[: len(mobs)]) == mobs
            per_pc = size if kind is EncounterKind.BOSS else 1
            low, high = OFFSET_RANGES[kind]
            dice = sum(3.5 * c.ap_dice for c in party)
            if all(e.ap > 0 for e in enemies):
                wanted = (dice + low * per_pc - len(enemies), dice + high * per_pc + 1e-9)
                assert wanted[0] < proposal.enemy_side_ap <= wanted[1]
            assert "予測（魔法・状況補正なし）" in proposal.explanation


def test_forecast_helper_designs_before_difficulty_and_honours_an_offset() -> None:
    party = tuple(create_auto(f"P{i}", "熟練") for i in range(2))
    plain = propose_encounter(party, "ボス戦").encounter
    strong = propose_encounter(party, "ボス戦", ["強い", "瞬殺"]).encounter
    assert strong.enemies == plain.enemies and strong.difficulty == (Difficulty.STRONG, Difficulty.TOO_QUICK)
    fixed = propose_encounter(party, "ボス戦", offset=6)
    dice = sum(3.5 * c.ap_dice for c in party)
    assert fixed.enemy_side_ap > dice + 6 * 2 - len(fixed.encounter.enemies)
    assert propose_encounter(party, "ボス戦") == propose_encounter(party, "ボス戦")  # same party, same design


def test_forecast_refuses_what_it_does_not_model() -> None:
    party = (create_auto("A", "英雄"),)
    regenerating = Encounter(enemies=(make_enemy("X", "ボス", 5, 10, [("regeneration", 2)]),))
    with pytest.raises(InvalidCharacterError, match="再生"):
        forecast_encounter(party, regenerating)
    plain = Encounter(enemies=(make_enemy("X", "ボス", 5, 10),))
    for rounds in (0, 51):
        with pytest.raises(InvalidCharacterError, match=r"1\.\.50"):
            forecast_encounter(party, plain, rounds=rounds)
    down = create_auto("B", "英雄").evolve(hp=0, status=Status.DOWN)
    with pytest.raises(InvalidCharacterError, match="standing"):
        forecast_encounter((down,), plain)


def test_forecast_helper_never_builds_an_enemy_past_the_ap_limit() -> None:
    # six heroes at +6 each: a lone boss would need fixed AP 70 (> 60); escorts carry it
    six = tuple(create_auto(f"P{i}", "英雄") for i in range(6))
    enemies = propose_encounter(six, "ボス戦", offset=6).encounter.enemies
    assert all(e.ap <= 60 for e in enemies) and any(e.kind is EnemyKind.MOB for e in enemies)


def test_a_fixed_ap_below_zero_is_bounded_by_the_enemys_own_dice() -> None:
    # CombatOptions.negative_fixed_ap: an enemy's AP never rolls below 0
    assert make_enemy("竜", "ボス", -3, 5).ap == -3
    assert make_enemy("狼", "エリート", -1, 5).ap == -1
    for kind, ap, says in (("ボス", -4, "-3"), ("エリート", -2, "at least -1"), ("雑魚", -1, "at least 0")):
        with pytest.raises(InvalidCharacterError, match=says):
            make_enemy("x", kind, ap, 5)
    assert enemy_line(make_enemy("竜", "ボス", -2, 5)) == "竜［ボス］ AP 3d6 - 2  HP 5 / 5"
    assert enemy_line(make_enemy("竜", "ボス", 2, 5)) == "竜［ボス］ AP 2 + 3d6  HP 5 / 5"


def test_without_negative_fixed_ap_the_helper_keeps_fixed_ap_at_zero_or_more() -> None:
    party = (create_auto("A", "一般人"), create_auto("B", "一般人"))
    for negative in (True, False):
        options = CombatOptions(negative_fixed_ap=negative)
        enemies = propose_encounter(party, "ボス戦", options=options).encounter.enemies
        assert negative or min(e.ap for e in enemies) >= 0
