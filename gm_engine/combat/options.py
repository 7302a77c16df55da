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
        healing_wave_halves: in combat 【治癒の波動】 halves this round's damage after
            armour, shield and 【魔力盾】 (``"final_damage"``, NOTES.md: "halves this round's
            damage"), or the AP difference before armour (``"difference"``, the document's
            差分ダメージ taken as the raw difference).
        collapse_needs_standing_caster: 【崩壊】 fizzles when its caster is down or dead
            by the round it resolves in.
        narrative_priority_test: when 【ナラティブ優先の原則】 is accepted.
            ``"rules_example"`` (default): the document's own example — a PC of 熟練 or
            英雄 against only 雑魚, at most three of them — or an expected-AP ratio of at
            least ``narrative_priority_ratio``; ``"expected_ratio"``: the ratio alone.
        narrative_priority_ratio: the expected-AP ratio (PC side ÷ enemy side) that counts
            as overwhelming; ``None`` leaves the judgement to the GM alone (any fight).
        swarm_bonus_per_enemy: 群れ補正, AP per standing enemy when several stand (§12).
        enforce_composition: refuse encounters over §3.2's numbers (5 雑魚, 2 エリート,
            1 ボス).
        allow_negative_situational: situational bonuses may be negative down to −cap
            (a hindering situation); the cap only bounds them above (§9.1).
        damage_overflow: when the PC side wins, damage left over once the target enemy
            falls goes on to the next standing enemy (§1.1: the sides resolve as units);
            ``False`` stops at the target.
        negative_fixed_ap: an enemy with dice may have a fixed AP below 0, down to minus
            its dice (so it never rolls below 0), where §2.3's offset asks for it: a ボス
            for a party of 一般人 is expected at 3.5 + 3..6 = 6.5..9.5 (§2.3), below its
            3d6's 10.5 (§1.2), so its fixed AP is −1..−4. ``False`` keeps every fixed AP
            at 0 or more (the boss then outclasses such a party whatever the helper does).
        encounter_basis: how the encounter helper reads §2.3's AP differences.
            ``"forecast"`` (default): the rank_dice guideline, then the design's exact
            odds (:mod:`~gm_engine.combat.forecast`) checked against §11.1's rounds and
            the offset (within §2.3's range) and group HP adjusted until they meet them;
            ``"rank_dice"``: the guideline alone — the enemy side against the PC side's
            dice expectation (3.5 per rank die, §2.3's ダイス期待値; equipment is the PCs'
            edge), group HP from the expected margin; ``"member_average"``: each enemy
            against the party's average member AP, one enemy per PC (the first reading);
            ``"side_total"``: the whole enemy side against the whole PC side AP. See
            :func:`~gm_engine.combat.enemies.propose_encounter`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mana_shield_amount: int = Field(default=6, ge=1, le=30)
    overcast_max_hp_cost: int = Field(default=5, ge=0, le=29)
    overcasts_per_character: int = Field(default=1, ge=0, le=10)
    life_check_target: int = Field(default=10, ge=3, le=18)
    slow_effect: Literal["one_die_fewer", "minus_one"] = "one_die_fewer"
    slow_no_dice_penalty: int = Field(default=4, ge=0, le=20)
    foresight_rerolls: Literal["both_sides", "pc_side"] = "both_sides"
    healing_wave_halves: Literal["final_damage", "difference"] = "final_damage"
    collapse_needs_standing_caster: bool = True
    narrative_priority_test: Literal["rules_example", "expected_ratio"] = "rules_example"
    narrative_priority_ratio: float | None = Field(default=1.5, ge=1.0, le=100.0)
    swarm_bonus_per_enemy: int = Field(default=1, ge=0, le=5)
    enforce_composition: bool = True
    allow_negative_situational: bool = True
    damage_overflow: bool = True
    negative_fixed_ap: bool = True
    encounter_basis: Literal["forecast", "rank_dice", "member_average", "side_total"] = "forecast"


DEFAULT_OPTIONS = CombatOptions()
