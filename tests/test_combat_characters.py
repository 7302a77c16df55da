"""Characters, ranks, equipment and creation (003 §2.2, §5.1, §9, §10, §13.3, §14.1)."""

from __future__ import annotations

import pytest

from gm_engine.combat import (
    RANK_STATS,
    Armour,
    InvalidCharacterError,
    Rank,
    Shield,
    Spell,
    Status,
    Weapon,
    create_auto,
    create_character,
    create_unselected,
    validate_party,
)
from gm_engine.combat.ranks import CHECK_DICE


@pytest.mark.parametrize(
    ("rank", "dice", "hp", "cap", "slots"),
    [("一般人", 1, 10, 3, 0), ("駆け出し", 2, 15, 3, 2), ("熟練", 3, 22, 4, 3), ("英雄", 4, 30, 5, 5)],
)
def test_rank_table_14_1_and_slots_5_1(rank: str, dice: int, hp: int, cap: int, slots: int) -> None:
    stats = RANK_STATS[Rank(rank)]
    assert (stats.ap_dice, stats.max_hp, stats.situational_cap, stats.slots) == (dice, hp, cap, slots)
    character = create_unselected("テスト", rank)
    assert character.ap_dice == dice
    assert character.max_hp == hp == character.hp
    assert character.situational_cap == cap


def test_non_combat_checks_are_3d6_for_every_rank_2_2() -> None:
    assert CHECK_DICE == 3


def test_meister_weapon_needs_veteran_9_2() -> None:
    with pytest.raises(InvalidCharacterError, match=r"§9.2.*名匠武器"):
        create_character("A", "駆け出し", "名匠武器", "革")
    assert create_character("A", "熟練", "名匠武器", "革").weapon.ap_bonus == 4
    assert create_character("A", "英雄", "名匠武器", "革").equipment_ap == 4


def test_legendary_weapon_is_for_heroes_only_9_2() -> None:
    with pytest.raises(InvalidCharacterError, match=r"§9.2.*伝説武器"):
        create_character("A", "熟練", "伝説武器", "革")
    custom = Weapon(name="聖剣", ap_bonus=5)
    with pytest.raises(InvalidCharacterError, match=r"英雄"):
        create_character("A", "熟練", custom, "革")
    assert create_character("A", "英雄", custom, "板金鎧").equipment_ap == 5


def test_weapon_bonus_range_9_2() -> None:
    with pytest.raises(ValueError):
        Weapon(name="神剣", ap_bonus=6)
    with pytest.raises(ValueError):
        Armour(name="城壁", reduction=4)


def test_no_shield_with_a_two_handed_weapon_10_1() -> None:
    for shield in ("小盾", "大盾"):
        with pytest.raises(InvalidCharacterError, match=r"§10.1"):
            create_character("A", "熟練", "大剣", "鎖帷子", shield)
    assert create_character("A", "熟練", "大剣", "鎖帷子").shield is Shield.NONE


def test_shields_10_2() -> None:
    small = create_character("A", "熟練", "長剣", "鎖帷子", "小盾")
    large = create_character("B", "熟練", "長剣", "鎖帷子", "大盾")
    bare = create_character("C", "熟練", "長剣", "鎖帷子")
    assert (bare.protection, small.protection, large.protection) == (2, 3, 5)
    assert (bare.equipment_ap, small.equipment_ap, large.equipment_ap) == (2, 2, 1)


def test_spells_known_are_limited_by_slots_5_1() -> None:
    with pytest.raises(InvalidCharacterError, match=r"§5.1"):
        create_character("A", "駆け出し", "短剣", "布", spells=["火弾", "雷撃", "治癒"])
    with pytest.raises(InvalidCharacterError, match=r"§5.1"):
        create_character("A", "一般人", "短剣", "布", spells=["火弾"])
    with pytest.raises(InvalidCharacterError, match=r"twice"):
        create_character("A", "熟練", "短剣", "布", spells=["火弾", "火弾"])
    hero = create_character("A", "英雄", "短剣", "布", spells=["火弾", "雷撃", "崩壊", "鈍足", "予見"])
    assert (hero.max_slots, hero.slots_left, len(hero.spells)) == (5, 5, 5)


def test_unselected_13_3() -> None:
    character = create_unselected("ナナシ", "熟練")
    assert character.weapon.ap_bonus == 1
    assert character.armour.reduction == 1
    assert character.shield is Shield.NONE
    assert character.spells == ()
    assert (character.max_slots, character.slots_left) == (0, 0)


@pytest.mark.parametrize(("rank", "count"), [("一般人", 0), ("駆け出し", 2), ("熟練", 2), ("英雄", 2)])
def test_auto_13_3(rank: str, count: int) -> None:
    character = create_auto("オマカセ", rank)
    assert character.weapon.ap_bonus == 2
    assert character.armour.reduction == 2
    assert character.shield is Shield.SMALL
    assert len(character.spells) == count
    assert character.slots_left == RANK_STATS[Rank(rank)].slots


def test_change_spells_meta_instruction_5_2() -> None:
    character = create_auto("A", "熟練")
    changed = character.with_spells(["予見", "聖域", "蘇生"])
    assert changed.spells == (Spell.FORESIGHT, Spell.SANCTUARY, Spell.REVIVE)
    with pytest.raises(InvalidCharacterError, match=r"unknown spell"):
        character.with_spells(["ファイアボール"])
    with pytest.raises(InvalidCharacterError, match=r"§5.1"):
        character.with_spells(["予見", "聖域", "蘇生", "火弾"])


def test_character_invariants() -> None:
    character = create_auto("A", "駆け出し")
    with pytest.raises(InvalidCharacterError, match=r"above max HP"):
        character.evolve(hp=16)
    with pytest.raises(InvalidCharacterError, match=r"slots left"):
        character.evolve(slots_left=3)
    with pytest.raises(InvalidCharacterError, match=r"0 HP"):
        character.evolve(hp=0)
    down = character.evolve(hp=0, status=Status.DOWN)
    assert not down.standing
    assert character.evolve(slots_left=0).rested().slots_left == 2


def test_bad_choices_name_what_is_wrong() -> None:
    with pytest.raises(InvalidCharacterError, match=r"unknown rank"):
        create_character("A", "大魔王", "長剣", "革")
    with pytest.raises(InvalidCharacterError, match=r"no weapon"):
        create_character("A", "熟練", "光線銃", "革")
    with pytest.raises(InvalidCharacterError, match=r"no armour"):
        create_character("A", "熟練", "長剣", "段ボール")
    with pytest.raises(InvalidCharacterError, match=r"no shield"):
        create_character("A", "熟練", "長剣", "革", "鍋蓋")
    with pytest.raises(InvalidCharacterError, match=r"name"):
        create_character("", "熟練", "長剣", "革")


def test_party_validation() -> None:
    a = create_auto("A", "熟練")
    with pytest.raises(InvalidCharacterError, match=r"share a name"):
        validate_party([a, a])
    with pytest.raises(InvalidCharacterError, match=r"at least one"):
        validate_party([])
    assert validate_party([a]) == (a,)


def test_weapon_and_armour_lists_9_2_9_3() -> None:
    from gm_engine.combat import ARMOURS, WEAPONS

    bonuses = {name: (w.ap_bonus, w.two_handed) for name, w in WEAPONS.items()}
    assert bonuses == {
        "素手": (0, False), "棍棒": (0, False), "短剣": (1, False), "小剣": (1, False),
        "長剣": (2, False), "メイス": (2, False), "大剣": (3, True), "戦斧": (3, True),
        "名匠武器": (4, False), "伝説武器": (5, False),
    }
    assert {name: a.reduction for name, a in ARMOURS.items()} == {"布": 0, "革": 1, "鎖帷子": 2, "板金鎧": 3}


def test_malformed_choices_are_refused_not_crashed() -> None:
    for spells in ("火弾", None, 3):
        with pytest.raises(InvalidCharacterError, match="list of names"):
            create_character("A", "熟練", "長剣", "革", spells=spells)  # type: ignore[arg-type]
    with pytest.raises(InvalidCharacterError):
        create_character(None, "熟練", "長剣", "革")  # type: ignore[arg-type]
    with pytest.raises(InvalidCharacterError):
        create_character("A", 3, "長剣", "革")  # type: ignore[arg-type]
