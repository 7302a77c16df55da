"""The three rule faults of issue 14, each at its minimal reproduction (003 §4.5, §6.2.1, §6.2.4, §3.3)."""

from __future__ import annotations

import pytest

from gm_engine.combat import (
    Battle,
    CastSpell,
    Difficulty,
    Encounter,
    IllegalActionError,
    Judge,
    RollDice,
    Status,
    TargetCharacter,
    create_auto,
    create_character,
    make_enemy,
)
from gm_engine.dice.source import QueueSource


def q(*values: int) -> QueueSource:
    return QueueSource([(v, 6) for v in values])


def test_two_fireballs_from_one_caster_count_both_dice_6_2_1() -> None:
    hero = create_character("A", "英雄", "長剣", "布", spells=["火弾"])
    encounter = Encounter(enemies=(make_enemy("X", "雑魚", 30, 50),))
    battle = Battle.start((hero,), encounter, source=q(1, 1, 1, 1, 1, 6))
    battle.apply(CastSpell(caster="A", spell="火弾"))
    battle.apply(CastSpell(caster="A", spell="火弾"))
    battle.apply(RollDice())
    battle.apply(Judge())
    judge = battle.state.rounds[-1].judge
    assert judge is not None
    # 4d6 = 4, 長剣 +2, the two 火弾 dice 1 and 6
    assert judge.pc_ap == 13
    fireballs = [t.value for t in judge.pc_terms if t.label.startswith("【火弾】")]
    assert fireballs == [1, 6]


def test_foresight_cannot_undo_a_revived_check_4_5_6_2_4() -> None:
    hero = create_character("A", "英雄", "素手", "布", spells=["蘇生", "予見"])
    commoner = create_character("B", "一般人", "素手", "布")
    battle = Battle.start((hero, commoner), Encounter(enemies=(make_enemy("X", "雑魚", 20, 10),)),
                          source=q(*[1] * 40))
    battle.apply(TargetCharacter(character="B"))
    battle.apply(RollDice())
    battle.apply(Judge())
    assert battle.character("B").status is Status.DEAD
    battle.apply(CastSpell(caster="A", spell="蘇生", target="B"))
    assert battle.character("B").status is Status.DOWN
    before = battle.state_hash()
    with pytest.raises(IllegalActionError, match="蘇生"):
        battle.apply(CastSpell(caster="A", spell="予見"))
    assert battle.state_hash() == before
    assert not any(a.kind == "cast" and a.spell == "予見" for a in battle.legal_actions())
    assert battle.character("B").status is Status.DOWN
    text = battle.current_log().text
    assert "死亡を覆し" in text and "失敗 → 死亡" in text  # the first check, then its overturning
    assert text.count("失敗 → 死亡") == 1


def test_too_quick_cannot_push_hp_past_the_limit_3_3() -> None:
    with pytest.raises(ValueError, match="瞬殺"):
        Encounter(enemies=(make_enemy("竜", "ボス", 20, 450),), difficulty=(Difficulty.TOO_QUICK,))


def test_too_quick_at_the_limit_still_plays_3_3() -> None:
    encounter = Encounter(enemies=(make_enemy("竜", "ボス", 20, 416),), difficulty=(Difficulty.TOO_QUICK,))
    battle = Battle.start((create_auto("A", "英雄"),), encounter, seed=1)
    assert battle.enemies[0].max_hp == 499
    battle.apply(RollDice())
    battle.apply(Judge())
    assert battle.state.rounds[-1].judge is not None
