"""The spell list (§6.2) and when each spell may be cast.

Every spell costs one slot (§6.1); out of slots, a spell can still be cast by paying a
lasting cost (§5.2, see :class:`~gm_engine.combat.options.CombatOptions`).

Casting windows in a battle (a window is the pause the battle is at):

========== ===================== ==============================================
spell       windows               effect
========== ===================== ==============================================
火弾        SETUP                 PC AP +1d6 this round (the die is rolled in ROLL)
雷撃        SETUP                 PC AP +4 this round
崩壊        SETUP                 PC AP +1d6+3 in the *next* round (§6.2.1)
鈍足        SETUP                 enemy dice −1 this round (−4 AP if no enemy has dice)
魔力盾      SETUP                 one PC's damage this round −N (option, default 6)
聖域        SETUP                 PC side damage this round 0; the caster adds no AP
限界突破    SETUP                 the caster turns X HP into X AP (HP stays ≥ 1)
予見        ROLL, JUDGE           the last combat roll is discarded and rolled again:
                                  at ROLL the AP dice, at JUDGE a life-or-death check
治癒        SETUP, ROLL           heals the target by its rank's dice, in JUDGE
                                  after the AP comparison and before damage
治癒の波動  SETUP, ROLL           this round's damage halved, or one PC kept at HP 1
蘇生        SETUP, ROLL, JUDGE,   a living target's next life-or-death check
            NARRATIVE             succeeds; a target who died in this battle is
                                  brought back down at 0 HP (the check "succeeds")
========== ===================== ==============================================

Out of combat only 治癒 and 治癒の波動 (the party heals 1d6, 2d6 when a 英雄 casts)
have an effect (:func:`gm_engine.combat.battle.cast_out_of_combat`).
"""

from __future__ import annotations

from enum import StrEnum


class Spell(StrEnum):
    """A spell of §6.2; the value is the document's name (without the brackets)."""

    FIREBALL = "火弾"
    LIGHTNING = "雷撃"
    COLLAPSE = "崩壊"
    SLOW = "鈍足"
    MANA_SHIELD = "魔力盾"
    SANCTUARY = "聖域"
    FORESIGHT = "予見"
    LIMIT_BREAK = "限界突破"
    HEAL = "治癒"
    REVIVE = "蘇生"
    HEALING_WAVE = "治癒の波動"

    @property
    def label(self) -> str:
        """The name as the document prints it: 【火弾】."""
        return f"【{self.value}】"


class HealingWaveMode(StrEnum):
    """What 【治癒の波動】 does in combat (NOTES: halve this round's damage, or keep one PC at HP 1)."""

    HALVE = "halve"
    ENDURE = "endure"


#: The pauses at which each spell may be cast in a battle (phase values).
CAST_WINDOWS: dict[Spell, frozenset[str]] = {
    Spell.FIREBALL: frozenset({"SETUP"}),
    Spell.LIGHTNING: frozenset({"SETUP"}),
    Spell.COLLAPSE: frozenset({"SETUP"}),
    Spell.SLOW: frozenset({"SETUP"}),
    Spell.MANA_SHIELD: frozenset({"SETUP"}),
    Spell.SANCTUARY: frozenset({"SETUP"}),
    Spell.LIMIT_BREAK: frozenset({"SETUP"}),
    Spell.FORESIGHT: frozenset({"ROLL", "JUDGE"}),
    Spell.HEAL: frozenset({"SETUP", "ROLL"}),
    Spell.HEALING_WAVE: frozenset({"SETUP", "ROLL"}),
    Spell.REVIVE: frozenset({"SETUP", "ROLL", "JUDGE", "NARRATIVE"}),
}

#: Spells whose ``target`` names one PC.
TARGETED: frozenset[Spell] = frozenset({Spell.MANA_SHIELD, Spell.HEAL, Spell.REVIVE})

#: Spells that have an effect outside a battle.
OUT_OF_COMBAT: frozenset[Spell] = frozenset({Spell.HEAL, Spell.HEALING_WAVE})

#: One-line effects, for prompts and the status display.
EFFECTS: dict[Spell, str] = {
    Spell.FIREBALL: "AP +1d6",
    Spell.LIGHTNING: "AP +4",
    Spell.COLLAPSE: "AP +1d6+3（詠唱1ターン、次のラウンドに発動）",
    Spell.SLOW: "敵のダイス −1（ダイスのない敵のみの場合は −4点）",
    Spell.MANA_SHIELD: "そのターンのみ、誰かひとりの被ダメージを減少",
    Spell.SANCTUARY: "そのターンのみ、AP差分負けても被ダメージ0（発動者はAP算出に加わらない）",
    Spell.FORESIGHT: "直前の戦闘ダイスロールを1回振り直し",
    Spell.LIMIT_BREAK: "HP→AP変換（1:1、HPは1未満にならない）",
    Spell.HEAL: "対象のHPをランクに応じて1d6〜4d6回復",
    Spell.REVIVE: "生死判定を自動成功とする",
    Spell.HEALING_WAVE: "戦闘中：被ダメージ半減、またはひとりをHP 1で踏みとどまらせる／非戦闘時：全員1d6回復",
}
