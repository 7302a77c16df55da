"""Fast party-vs-party combat (高速戦闘ルール ver 2.02), as the project plays it (docs/combat.md).

The engine owns every number; a model only narrates. Nothing here imports openai.

Building blocks
---------------
* Characters: :func:`create_character` (explicit choices), :func:`create_unselected`
  (未選択: weapon +1, armour 1, no magic, 0 slots) and :func:`create_auto` (おまかせ:
  長剣 +2, 鎖帷子 2, 小盾, 【治癒】【火弾】 as slots allow). A :class:`Character` is a frozen,
  validated value (§9.2 rank for 名匠/伝説, §10.1 no shield with a two-handed weapon, §5.1
  spells ≤ slots); ``evolve``/``with_spells`` (the [魔法変更] meta instruction)/``rested``
  make new ones. Rank numbers are in :data:`RANK_STATS`.
* Enemies: :func:`make_enemy` (雑魚/エリート/ボス, fixed AP, HP, ≤2 one-line abilities:
  AP ±, armour ±, 状態干渉, 再生), an :class:`Encounter` (enemies + §3.3 difficulty), and
  :func:`propose_encounter` (§2.3/§3 helper, with its reasoning in ``explanation`` and the
  exact expected damage per round in ``expected_damage``).
* Rule options: :class:`CombatOptions` (frozen, validated; NOTES.md's defaults).
* Text: :mod:`gm_engine.combat.render` — ``status_display`` (§7; ``compact=True`` is
  §13.2), ``master_data`` (§14.2), ``party_status``, ``enemy_line``.
* Files: :mod:`gm_engine.combat.storage` — ``save_*``/``load_*`` for characters, parties,
  encounters and battles; a bad file raises :class:`StorageError` saying what is wrong.

Driving a battle (the session loop)
-----------------------------------
::

    battle = Battle.start(party, encounter, source=SeededSource(seed))   # or seed=...
    show(battle.current_log())              # BATTLE_SETUP of round 1, then wait
    # battle.hint() is a one-line summary of the pause for a prompt; battle.side_ap()
    # the two sides' AP as they stand (final AP once rolled).
    while not battle.is_over:
        action = ask_player_or_model(battle.phase, battle.legal_actions())
        step = battle.apply(action)         # StepResult: phase, round, label, text, events
        show(step)                          # the text is what the player sees

Each phase is a pause that waits for the player; ``step.label`` names the log:

========== =============== ==================================================================
phase       label           what may be done there (action → where it leads)
========== =============== ==================================================================
SETUP       BATTLE_SETUP    ``SetSituationalBonus`` (≤ rank cap), ``TargetEnemy``,
                            ``TargetCharacter``, ``CastSpell`` (火弾 雷撃 崩壊 鈍足 魔力盾 聖域
                            限界突破 治癒 治癒の波動 蘇生) — each re-shows BATTLE_SETUP;
                            ``ResolveByNarrative`` (round 1, nothing rolled or cast) → ENDED;
                            ``RollDice`` (the player's 『戦闘開始』) → ROLL
ROLL        ROLL_LOG        ``CastSpell`` 予見 (re-rolls the last roll, stays at ROLL; each
                            cast one re-roll), 治癒 / 治癒の波動 / 蘇生, targets;
                            ``Judge`` → JUDGE
JUDGE       BATTLE_JUDGE    ``CastSpell`` 蘇生 on one who died this battle, or 予見 to
                            re-roll the life-or-death check just rolled; ``Narrate`` →
                            NARRATIVE
NARRATIVE   NARRATIVE       the model narrates the brief's facts (never other numbers);
                            ``CastSpell`` 蘇生; ``NextRound`` → SETUP (both sides stand) or
                            ``EndBattle`` → ENDED (``battle.outcome`` is set)
ENDED       BATTLE_END      nothing; ``battle.party`` is the party to carry on with
========== =============== ==================================================================

What the player decides at each pause: at SETUP, spells and (through the GM) situational
bonuses and targets, then 『戦闘開始』; at ROLL, whether to spend 予見 or a healing spell
after seeing the dice; at JUDGE and NARRATIVE, only to go on (or 蘇生 a fallen friend).
The model decides situational bonuses (within the rank cap) and targets; the engine
computes everything else. Actions are frozen pydantic models with a ``kind`` field;
:func:`parse_action` turns a tool call's JSON (``{"kind": "cast", "caster": "アリア",
"spell": "火弾"}``) into one. ``battle.check(action)`` validates without applying.

An action at the wrong pause raises :class:`OutOfOrderError`; one that breaks a rule
raises :class:`IllegalActionError` (``.rule`` names the clause). Either way the battle and
its dice source are exactly as before. Both subclass :class:`CombatError` (a ValueError).

Every die goes through the :class:`~gm_engine.dice.source.DiceSource` (``source.roll(6)``),
so it is in ``source.history`` and in the round's records (``battle.state.rounds[i].dice``,
discarded 予見 dice kept). ``battle.to_json()`` / ``Battle.from_json`` and
``battle.state_hash()`` (SHA-256 of canonical JSON) serve transcripts: the same seed and
the same actions give the same fight and the same hash.

Out of combat: :func:`cast_out_of_combat` (治癒; 治癒の波動 heals the party 1d6, 2d6 when a
英雄 casts) and :func:`rest_party` (slots refilled after a day's rest).

Readings chosen where NOTES.md is silent (options in brackets)
--------------------------------------------------------------
docs/combat.md gives each with its reason; in short:

* Large shield: protection 1 plus 2 "when defending" = 3 whenever its bearer is hit.
* A PC win's damage goes to the named enemy (else the first standing), less its 防御補正,
  and what is left once it falls goes on to the next standing enemy [damage_overflow=True].
  Enemy damage goes to one PC: the difference minus armour and shield, then 魔力盾
  [mana_shield_amount=6], then 聖域 (0), never below 0.
* 治癒の波動 halves this round's damage after armour [healing_wave_halves="final_damage"],
  or keeps a named PC at HP 1 instead of a life-or-death check (mode ``endure``).
* 鈍足 removes one die from the enemy pool, the boss's first [slow_effect="one_die_fewer"];
  −4 AP when no standing enemy has dice [slow_no_dice_penalty=4]; a cast beyond the enemy
  side's dice is refused (it would spend a slot for nothing).
* 予見 re-rolls both sides [foresight_rerolls="both_sides"]; at JUDGE it re-rolls the
  life-or-death check just rolled, unless 【蘇生】 has already made it a success.
* 崩壊 resolves in the next round's ROLL; it fizzles if its caster is down by then
  [collapse_needs_standing_caster=True]; the caster still adds AP in the casting round.
* 聖域: its caster adds no AP of any kind that round; such combinations are refused.
* 限界突破: HP is paid at the cast; HP cannot go below 1.
* 治癒 may raise a downed PC (HP 0); the dead are beyond it. Its dice are the *target's*
  rank dice, rolled at JUDGE after the comparison and before damage.
* 蘇生 on a living PC wards its next check in this battle; on one who died in this battle
  it turns the failed check into success (down at 0 HP).
* Out of slots: one cast per character ever [overcasts_per_character=1], paying max HP −5
  for good [overcast_max_hp_cost=5], recorded as a lasting cost (特記事項).
* Life-or-death: 3d6 ≥ 10 [life_check_target=10]; success = down at 0 HP, failure = dead.
* Situational bonuses may be negative down to −cap [allow_negative_situational=True].
* 群れ補正: +1 per standing enemy while two or more stand [swarm_bonus_per_enemy=1].
  弱い/強い are ±1 on the enemy side's AP; 長引く/瞬殺 scale HP by 0.8/1.2 (rounded half up)
  when the battle starts, and an encounter whose HP would pass 500 is refused.
* 【ナラティブ優先の原則】: §0's own example (a 熟練 or 英雄 against at most three 雑魚) or
  an expected-AP ratio of 1.5 [narrative_priority_test="rules_example",
  narrative_priority_ratio=1.5]; :class:`FightItOut` records the player's wish to fight.
* §3.2 numbers (≤5 雑魚, ≤2 エリート, 1 ボス) are enforced [enforce_composition=True].
* Rank aliases: 熟練者 and 騎士 are 熟練, 伝説 is 英雄 (``parse_rank``).
* ROLL_LOG: PC_Dice is the rank dice only; spell dice are on a Spell_Dice line.
* Encounter helper: §2.3 against the PC side's rank dice expectation, group HP, 雑魚 in
  groups of 2–5, each design checked by its exact odds (:mod:`gm_engine.combat.forecast`)
  against §11.1's rounds and §2.3's offsets and HP adjusted until it meets them
  [encounter_basis="forecast"; "rank_dice" is the guideline alone, "member_average" and
  "side_total" the earlier readings]. :mod:`gm_engine.combat.balance` and
  ``gm combat simulate`` measure it.
"""

from gm_engine.combat.actions import (
    Action,
    CastSpell,
    EndBattle,
    FightItOut,
    Judge,
    Narrate,
    NextRound,
    ResolveByNarrative,
    RollDice,
    SetSituationalBonus,
    TargetCharacter,
    TargetEnemy,
    parse_action,
)
from gm_engine.combat.battle import Battle, OutOfCombatResult, StepResult, cast_out_of_combat, rest_party
from gm_engine.combat.characters import (
    Character,
    LastingCost,
    Status,
    create_auto,
    create_character,
    create_unselected,
    validate_party,
)
from gm_engine.combat.enemies import (
    Ability,
    AbilityKind,
    Difficulty,
    Encounter,
    EncounterKind,
    EncounterProposal,
    Enemy,
    EnemyKind,
    forecast_encounter,
    make_enemy,
    propose_encounter,
)
from gm_engine.combat.equipment import ARMOURS, WEAPONS, Armour, Shield, Weapon
from gm_engine.combat.errors import (
    CombatError,
    IllegalActionError,
    InvalidCharacterError,
    OutOfOrderError,
    StorageError,
)
from gm_engine.combat.forecast import Forecast
from gm_engine.combat.options import DEFAULT_OPTIONS, CombatOptions
from gm_engine.combat.ranks import RANK_STATS, Rank, RankStats
from gm_engine.combat.spells import HealingWaveMode, Spell
from gm_engine.combat.state import BattleState, Outcome, Phase

__all__ = [
    "ARMOURS",
    "DEFAULT_OPTIONS",
    "RANK_STATS",
    "WEAPONS",
    "Ability",
    "AbilityKind",
    "Action",
    "Armour",
    "Battle",
    "BattleState",
    "CastSpell",
    "Character",
    "CombatError",
    "CombatOptions",
    "Difficulty",
    "Encounter",
    "EncounterKind",
    "EncounterProposal",
    "EndBattle",
    "Enemy",
    "EnemyKind",
    "FightItOut",
    "Forecast",
    "HealingWaveMode",
    "IllegalActionError",
    "InvalidCharacterError",
    "Judge",
    "LastingCost",
    "Narrate",
    "NextRound",
    "OutOfCombatResult",
    "OutOfOrderError",
    "Outcome",
    "Phase",
    "Rank",
    "RankStats",
    "ResolveByNarrative",
    "RollDice",
    "SetSituationalBonus",
    "Shield",
    "Spell",
    "Status",
    "StepResult",
    "StorageError",
    "TargetCharacter",
    "TargetEnemy",
    "Weapon",
    "cast_out_of_combat",
    "create_auto",
    "create_character",
    "create_unselected",
    "forecast_encounter",
    "make_enemy",
    "parse_action",
    "propose_encounter",
    "rest_party",
    "validate_party",
]
