"""Rule options: what the document leaves open, in one validated object.

Defaults are NOTES.md's readings; each field says which clause it settles. An options
object is frozen and rejects unknown fields, so a typo in a saved file is an error.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class CombatOptions(BaseModel):
    """The table's choices where the fast-combat rules leave room.

    Attributes:
        mana_shield_amount: how much 【魔力盾】 removes from one PC's damage (§6.2.2 says
            "最大点"; NOTES default 6).
        overcast_max_hp_cost: the lasting cost of casting out of slots: max HP lost for
            good (§5.2; NOTES default 5).
        overcasts_per_character: how many out-of-slot casts a character may ever make
            (§5.2 "一度だけ"; default 1).
        life_check_target: the 3d6 total a life-or-death check needs (NOTES: ≥ 10).
        slow_effect: 【鈍足】 on an enemy side with dice: ``"one_die_fewer"`` removes one
            die from the enemy pool (matching its −4 for diceless sides, about one d6), or
            ``"minus_one"`` takes 1 off the enemy dice total.
        slow_no_dice_penalty: 【鈍足】 against enemies without dice: AP −4 (§6.2.2).
        foresight_rerolls: what 【予見】 rolls again: the whole last roll as the
            document's one code execution did (``"both_sides"``) or the PC side's dice
            only (``"pc_side"``).
        healing_wave_halves: in combat 【治癒の波動】 halves the AP difference before
            armour (``"difference"``, the document's 差分ダメージ) or the final damage
            (``"final_damage"``).
        collapse_needs_standing_caster: 【崩壊】 fizzles when its caster is down or dead
            by the round it resolves in.
        narrative_priority_ratio: 【ナラティブ優先の原則】 is refused unless the PC
            side's expected AP is at least this many times the enemy side's; ``None``
            leaves the judgement to the GM alone.
        swarm_bonus_per_enemy: 群れ補正, AP per standing enemy when several stand (§12).
        enforce_composition: refuse encounters over §3.2's numbers (5 雑魚, 2 エリート,
            1 ボス).
        allow_negative_situational: situational bonuses may be negative down to −cap
            (a hindering situation); the cap only bounds them above (§9.1).
        encounter_basis: how the encounter helper reads §2.3's AP differences: each enemy
            against the party's average member (``"member_average"``, NOTES.md) or the
            whole enemy side against the whole PC side (``"side_total"``, which keeps a
            lone PC's 雑魚戦 winnable); see :func:`~gm_engine.combat.enemies.propose_encounter`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mana_shield_amount: int = Field(default=6, ge=1, le=30)
    overcast_max_hp_cost: int = Field(default=5, ge=0, le=29)
    overcasts_per_character: int = Field(default=1, ge=0, le=10)
    life_check_target: int = Field(default=10, ge=3, le=18)
    slow_effect: Literal["one_die_fewer", "minus_one"] = "one_die_fewer"
    slow_no_dice_penalty: int = Field(default=4, ge=0, le=20)
    foresight_rerolls: Literal["both_sides", "pc_side"] = "both_sides"
    healing_wave_halves: Literal["difference", "final_damage"] = "difference"
    collapse_needs_standing_caster: bool = True
    narrative_priority_ratio: float | None = Field(default=1.5, ge=1.0, le=100.0)
    swarm_bonus_per_enemy: int = Field(default=1, ge=0, le=5)
    enforce_composition: bool = True
    allow_negative_situational: bool = True
    encounter_basis: Literal["member_average", "side_total"] = "member_average"


DEFAULT_OPTIONS = CombatOptions()
