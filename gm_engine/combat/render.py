"""Text as the player sees it: the three battle logs (§4.1–§4.3), the narrative brief,
the status display (§7, §13.2) and the character master data (§14.2).

Every function is pure: state in, text out. Numbers in the text are the engine's; a
narrating model repeats them, it never computes them. The frame of every text is in
``locale`` (the catalogue's ``combat.log`` and ``combat.word``); the rules' own terms
(spell names, ranks, weapons and armour) and the lines the engine wrote into the state
(a setup event, a note of the judge) stay as the rules document writes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from gm_engine.combat import terms
from gm_engine.combat.characters import Character, Status
from gm_engine.combat.enemies import Enemy
from gm_engine.combat.equipment import Shield
from gm_engine.combat.lines import read_line, written
from gm_engine.combat.ranks import stats
from gm_engine.combat.spells import HealingWaveMode, Spell
from gm_engine.combat.state import BattleState, DieGroup, Outcome, Phase, Term
from gm_engine.dice.result import Locale
from gm_engine.messages import DEFAULT_LOCALE, Message, render
from gm_engine.messages import texts as t
from gm_engine.messages.texts import CombatWord, CombatWordKind

PAUSE = "[SYSTEM: PAUSE FOR USER INPUT]"


def _say(message: Message, locale: Locale) -> str:
    return render(message, locale)


def _word(kind: CombatWordKind, locale: Locale) -> str:
    return render(CombatWord(kind), locale)


#: The engine's Japanese words with a text of their own in the catalogue.
_WORDS: dict[str, CombatWordKind] = {
    Status.OK.value: CombatWordKind.OK,
    Status.DOWN.value: CombatWordKind.DOWN,
    Status.DEAD.value: CombatWordKind.DEAD,
    Outcome.PC_VICTORY.value: CombatWordKind.PC_VICTORY,
    Outcome.ENEMY_VICTORY.value: CombatWordKind.ENEMY_VICTORY,
    Outcome.NARRATIVE_VICTORY.value: CombatWordKind.NARRATIVE_VICTORY,
    "雑魚": CombatWordKind.MOB,
    "エリート": CombatWordKind.ELITE,
    "ボス": CombatWordKind.BOSS,
    "ダイス": CombatWordKind.DICE,
    "装備補正": CombatWordKind.EQUIPMENT,
    "状況補正": CombatWordKind.SITUATIONAL,
    "敵の状態干渉": CombatWordKind.HINDRANCE,
    "固定AP": CombatWordKind.FIXED_AP,
    "能力補正": CombatWordKind.ABILITY,
    "群れ補正": CombatWordKind.SWARM,
    "難易度": CombatWordKind.DIFFICULTY,
    "防御補正": CombatWordKind.ARMOUR,
}


def word(text: str, locale: Locale = DEFAULT_LOCALE) -> str:
    """One of the engine's words (a state, an outcome, an enemy's kind, an AP term's label)
    in ``locale``; any other text (a spell's name, a weapon's) as it is."""
    if locale == DEFAULT_LOCALE:
        return text
    kind = _WORDS.get(text)
    if kind is not None:
        return _word(kind, locale)
    if text.startswith("防具(") and text.endswith(")"):  # battle.py's damage step of an armour
        return _say(t.LogArmourOf(text.removeprefix("防具(").removesuffix(")")), locale)
    if text.startswith("【") and text.endswith("】半減"):  # 【治癒の波動】半減
        return _say(t.LogHalvedBy(text.removesuffix("半減")), locale)
    return text


def engine_line(text: str, locale: Locale = DEFAULT_LOCALE) -> str:
    """A line the engine wrote (a step's event, a SETUP event, a note of the judge) in
    ``locale``: read back into its message (:mod:`gm_engine.combat.lines`), the engine's
    words among its parameters (an outcome) in ``locale`` too; any other text as it is."""
    if locale == DEFAULT_LOCALE:
        return text
    message = read_line(text)
    if message is None:
        return text
    params = message.params().items()
    values = {name: word(value, locale) if isinstance(value, str) else value for name, value in params}
    return _say(type(message)(**values), locale)


def _purpose(purpose: str, locale: Locale) -> str:
    """What a die group is for (AP, a spell's name, a life-or-death check, a heal) in ``locale``."""
    if locale == DEFAULT_LOCALE:
        return purpose
    if purpose == written(t.EngineDiceLifeCheck()):
        return _say(t.EngineDiceLifeCheck(), locale)
    heal = written(t.EngineDiceHeal(""))
    if purpose.startswith(heal):
        return _say(t.EngineDiceHeal(purpose.removeprefix(heal)), locale)
    return purpose


def _join(names: Sequence[str], locale: Locale) -> str:
    return _say(t.LogListSeparator(), locale).join(names)


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"-{-value}"


def _plus(value: int) -> str:
    """``+ 2`` / ``- 1`` for an addend after a dice expression."""
    return f"+ {value}" if value >= 0 else f"- {-value}"


def condition(character: Character, locale: Locale = DEFAULT_LOCALE) -> str:
    """The 簡略表示 of a character's state: 正常 / 戦闘不能 / 死亡, plus lasting costs."""
    loss = sum(c.max_hp_loss for c in character.lasting_costs)
    lasting = _say(t.LogLastingCost(loss), locale) if loss else ""
    return word(character.status.value, locale) + lasting


def status_display(character: Character, *, compact: bool = False, locale: Locale = DEFAULT_LOCALE) -> str:
    """The 戦闘ステータス block: §7's format, or §13.2's (no slot maximum) when ``compact``."""
    slots = _say(t.LogSlotsLeft(character.slots_left), locale) + (
        "" if compact else f" / {character.max_slots}"
    )
    return "\n".join(
        [
            f"HP: {character.hp} / {character.max_hp}",
            f"AP: {character.ap_dice}d6 {_plus(character.equipment_ap)}",
            _say(t.LogSlotsLine(slots), locale),
            _say(t.LogStateLine(condition(character, locale)), locale),
        ]
    )


def party_status(
    party: Sequence[Character], *, compact: bool = False, locale: Locale = DEFAULT_LOCALE
) -> str:
    """Each character's name and status block."""
    return "\n\n".join(
        f"{_say(t.LogName(c.name), locale)}\n{status_display(c, compact=compact, locale=locale)}"
        for c in party
    )


def session_status(party: Sequence[Character], locale: Locale = DEFAULT_LOCALE) -> str:
    """The 【セッション状況】 footer of §5.2's 運用指示: each character's HP, 【魔法スロットの残り】
    and state, one line each, for the end of every reply."""
    lines = [_say(t.LogSessionStatus(), locale)]
    for c in party:
        line = t.LogSessionLine(c.name, c.hp, c.max_hp, c.slots_left, c.max_slots, condition(c, locale))
        lines.append(_say(line, locale))
    return "\n".join(lines)


def master_data(character: Character, locale: Locale = DEFAULT_LOCALE) -> str:
    """The 【キャラクターマスターデータ】 block of §14.2."""
    weapon = character.weapon
    hands = _word(CombatWordKind.TWO_HANDED if weapon.two_handed else CombatWordKind.ONE_HANDED, locale)
    shield = {
        Shield.NONE: CombatWordKind.NO_SHIELD,
        Shield.SMALL: CombatWordKind.SMALL_SHIELD,
        Shield.LARGE: CombatWordKind.LARGE_SHIELD,
    }[character.shield]
    none = _word(CombatWordKind.NONE, locale)
    spells = _join([s.label for s in character.spells], locale) or none
    notes = [_say(c.message, locale) for c in character.lasting_costs] + list(character.notes)
    level = stats(character.rank).level
    if level.endswith("レベル"):
        level = _say(t.LogLevel(level.removesuffix("レベル")), locale)
    data = t.LogMasterData(
        name=character.name,
        rank=character.rank.value,
        level=level,
        max_hp=character.max_hp,
        hp=character.hp,
        ap_dice=character.ap_dice,
        equipment=_signed(character.equipment_ap),
        weapon=weapon.name,
        weapon_ap=_signed(weapon.ap_bonus),
        hands=hands,
        armour=character.armour.name,
        reduction=character.armour.reduction,
        shield=_word(shield, locale),
        left=character.slots_left,
        slots=character.max_slots,
        spells=spells,
        status=word(character.status.value, locale),
        notes="; ".join(notes) if notes else none,
    )
    return _say(data, locale)


def enemy_line(enemy: Enemy, locale: Locale = DEFAULT_LOCALE) -> str:
    """One enemy: name, kind, AP, HP and abilities."""
    dice = f" + {enemy.dice}d6" if enemy.dice else ""
    # a negative fixed AP (CombatOptions.negative_fixed_ap) reads as the dice less it
    ap = f"{enemy.dice}d6 - {-enemy.ap}" if enemy.ap < 0 else f"{enemy.ap}{dice}"
    abilities = (
        _say(t.LogBracketed(_join([_say(a.message, locale) for a in enemy.abilities], locale)), locale)
        if enemy.abilities
        else ""
    )
    state = "" if enemy.standing else _say(t.LogDefeated(), locale)
    line = t.LogEnemyLine(
        enemy.name, word(enemy.kind.value, locale), ap, enemy.hp, enemy.max_hp, abilities + state
    )
    return _say(line, locale)


def _terms(terms: Sequence[Term], locale: Locale) -> str:
    total = sum(term.value for term in terms)
    body = " ".join(
        (
            f"{word(term.label, locale)} {term.value}"
            if i == 0
            else f"{'+' if term.value >= 0 else '-'} {word(term.label, locale)} {abs(term.value)}"
        )
        for i, term in enumerate(terms)
    )
    return f"{total}{_say(t.LogBracketed(body), locale)}"


def _casts_line(state: BattleState, locale: Locale) -> list[str]:
    lines = []
    for cast in state.current.declarations.casts:
        detail = ""
        if cast.spell is Spell.LIMIT_BREAK:
            detail = f" HP{cast.amount}→AP+{cast.amount}"
        elif cast.spell is Spell.HEALING_WAVE:
            halve = cast.mode is HealingWaveMode.HALVE
            detail = _say(t.LogHalveDamage() if halve else t.LogEndure(cast.target or ""), locale)
        elif cast.target:
            detail = f" → {cast.target}"
        cost = _say(t.LogOvercast(), locale) if cast.overcast else ""
        lines.append(f"  {cast.spell.label} {cast.caster}{detail}{cost}")
    return lines


def setup_log(state: BattleState, locale: Locale = DEFAULT_LOCALE) -> str:
    """〈BATTLE_SETUP〉 (§4.1): both sides' AP formulas, then the pause."""
    record = state.current
    bullet = _say(t.LogBullet(), locale)
    lines = [_say(t.LogSetupHeading(state.round), locale)]
    lines.extend(f"{bullet}{engine_line(event, locale)}" for event in record.setup_events)
    participants = terms.participants(state)
    dice = sum(c.ap_dice for c in participants)
    members = _join([f"{c.name} {c.ap_dice}d6" for c in participants], locale)
    equipment = sum(c.equipment_ap for c in participants)
    extras = []
    decl = record.declarations
    situational = sum(decl.situational.get(c.name, 0) for c in participants)
    if situational:
        extras.append(_say(t.LogSituational(_signed(situational)), locale))
    for cast in terms.casts_of(state, Spell.FIREBALL):
        extras.append(f"【火弾】({cast.caster}) 1d6")
    for cast in terms.casts_of(state, Spell.LIGHTNING):
        extras.append(f"【雷撃】({cast.caster}) +4")
    for pending in terms.collapses_now(state):
        extras.append(f"【崩壊】({pending.caster}) 1d6+3")
    for cast in terms.casts_of(state, Spell.LIMIT_BREAK):
        extras.append(f"【限界突破】({cast.caster}) +{cast.amount}")
    hinder = [term for term in terms.pc_terms(state) if term.label == "敵の状態干渉"]
    if hinder:
        extras.append(_say(t.LogHindrance(_signed(hinder[0].value)), locale))
    extra_text = f" + {' + '.join(extras)}" if extras else ""
    members_text = members or _word(CombatWordKind.NO_PARTICIPANT, locale)
    lines.append(_say(t.LogPcBaseAp(dice, members_text, _signed(equipment), extra_text), locale))
    enemy_plan = terms.enemy_dice_plan(state)
    fixed = sum(e.ap for e, _ in enemy_plan)
    enemy_dice = sum(n for _, n in enemy_plan)
    owners = _join([f"{e.name} {n}d6" for e, n in enemy_plan if n], locale)
    dice_text = f" + {enemy_dice}d6{_say(t.LogBracketed(owners), locale)}" if enemy_dice else ""
    modifiers = [term for term in terms.enemy_terms(state) if term.label not in ("ダイス", "固定AP")]
    modifier_total = sum(term.value for term in modifiers)
    modifier_text = _join([f"{word(term.label, locale)} {_signed(term.value)}" for term in modifiers], locale)
    bracketed = _say(t.LogBracketed(modifier_text), locale) if modifier_text else ""
    lines.append(_say(t.LogEnemyBaseAp(fixed, dice_text, _signed(modifier_total), bracketed), locale))
    for pending in state.pending_collapses:
        if pending.resolves_in > state.round:
            lines.append(_say(t.LogCollapsePending(pending.caster, pending.resolves_in), locale))
    casts = _casts_line(state, locale)
    if casts:
        lines.append(_say(t.LogSpells(), locale))
        lines.extend(casts)
    if decl.enemy_target:
        lines.append(_say(t.LogPcTarget(decl.enemy_target), locale))
    if decl.pc_target:
        lines.append(_say(t.LogEnemyTarget(decl.pc_target), locale))
    lines.extend([_say(t.LogSetupWait(), locale), PAUSE])
    return "\n".join(lines)


def _dice_block(label: str, groups: Sequence[DieGroup], locale: Locale) -> list[str]:
    values = [v for g in groups for v in g.values]
    lines = [f"{label}: {list(values)} (Total: {sum(values)})"]
    if groups:
        parts = [
            f"{g.owner} {_purpose(g.purpose, locale)} {len(g.values)}d6 {list(g.values)}" for g in groups
        ]
        lines.append("  " + " / ".join(parts))
    return lines


def roll_log(state: BattleState, locale: Locale = DEFAULT_LOCALE) -> str:
    """〈ROLL_LOG〉 (§4.2): every die of the roll by owner — PC_Dice the rank dice, Spell_Dice
    【火弾】/【崩壊】, Enemy_Dice; 【予見】's discarded dice kept."""
    record = state.current
    live = [g for g in record.dice if g.phase == "ROLL" and not g.discarded]
    lines = [_say(t.LogRollHeading(state.round), locale)]
    # PC_Dice is the rank dice alone, as §4.2's code prints it; spell dice get their own line
    lines.extend(_dice_block("PC_Dice", [g for g in live if g.side == "pc" and g.purpose == "AP"], locale))
    spell_dice = [g for g in live if g.side == "pc" and g.purpose != "AP"]
    if spell_dice:
        lines.extend(_dice_block("Spell_Dice", spell_dice, locale))
    lines.extend(_dice_block("Enemy_Dice", [g for g in live if g.side == "enemy"], locale))
    discarded = [g for g in record.dice if g.discarded and g.phase == "ROLL"]
    if discarded:
        values = [list(g.values) for g in discarded]
        lines.append(_say(t.LogDiscarded(record.rerolls, str(values)), locale))
    casts = [c for c in record.declarations.casts if c.phase == "ROLL"]
    if casts:
        lines.append(_say(t.LogSpellsAfterRoll(), locale))
        for cast in casts:
            target = f" → {cast.target}" if cast.target else ""
            mode = _say(t.LogHalve(), locale) if cast.mode is HealingWaveMode.HALVE else ""
            lines.append(f"  {cast.spell.label} {cast.caster}{target}{mode}")
    lines.extend([_say(t.LogRollWait(), locale), PAUSE])
    return "\n".join(lines)


def judge_log(state: BattleState, locale: Locale = DEFAULT_LOCALE) -> str:
    """〈BATTLE_JUDGE LOG〉 (§4.3): final AP, difference, heals, damage, checks, HP."""
    record = state.current
    judge = record.judge
    bullet = _say(t.LogBullet(), locale)
    lines = [_say(t.LogJudgeHeading(state.round), locale)]
    if judge is None:
        return "\n".join([*lines, _say(t.LogNotJudged(), locale), PAUSE])
    lines.append(_say(t.LogPcFinalAp(_terms(judge.pc_terms, locale)), locale))
    lines.append(_say(t.LogEnemyFinalAp(_terms(judge.enemy_terms, locale)), locale))
    verdict = {
        "pc": _word(CombatWordKind.PC_VICTORY, locale),
        "enemy": _word(CombatWordKind.ENEMY_VICTORY, locale),
        "tie": _say(t.LogVerdictTie(), locale),
    }
    lines.append(_say(t.LogDifference(abs(judge.pc_ap - judge.enemy_ap), verdict[judge.winner]), locale))
    for heal in judge.heals:
        heal_line = t.LogHeal(
            heal.spell.label,
            heal.caster,
            heal.target,
            str(list(heal.rolled)),
            heal.healed,
            heal.hp_before,
            heal.hp_after,
        )
        lines.append(_say(heal_line, locale))
    for damage in judge.damage:
        steps = "".join(
            f" {'+' if s.value >= 0 else '−'} {word(s.label, locale)} {abs(s.value)}" for s in damage.steps
        )
        damage_line = t.LogDamage(
            damage.target, damage.difference, steps, damage.damage, damage.hp_before, damage.hp_after
        )
        lines.append(_say(damage_line, locale))
    for check in judge.checks:
        if check.result == "endured":
            lines.append(_say(t.LogEndured(check.character, check.by or ""), locale))
        elif check.by:
            lines.append(_say(t.LogCheckAuto(check.character, check.by), locale))
        else:
            total = sum(check.rolled)
            verdict_text = _say(t.LogCheckDown() if check.result == "down" else t.LogCheckDead(), locale)
            line = t.LogCheck(check.character, str(list(check.rolled)), total, check.target, verdict_text)
            lines.append(_say(line, locale))
    lines.extend(f"{bullet}{engine_line(note, locale)}" for note in judge.notes)
    discarded = [g for g in record.dice if g.discarded and g.phase == "JUDGE"]
    if discarded:
        lines.append(_say(t.LogDiscardedAtJudge(str([list(g.values) for g in discarded])), locale))
    lines.extend(f"{bullet}{engine_line(note, locale)}" for note in record.after_judge)
    lines.append(_say(t.LogStandings(), locale))
    lines.extend(f"  {c.name} HP {c.hp} / {c.max_hp} {word(c.status.value, locale)}" for c in state.party)
    lines.extend(f"  {enemy_line(e, locale)}" for e in state.enemies)
    if state.outcome is not None:
        lines.append(_say(t.LogOutcome(word(state.outcome.value, locale)), locale))
    lines.extend([_say(t.LogJudgeWait(), locale), PAUSE])
    return "\n".join(lines)


def narrative_brief(state: BattleState, locale: Locale = DEFAULT_LOCALE) -> str:
    """[MODE: NARRATIVE] (§4.4): the facts of the round for the narrator, and what comes next."""
    judge = state.current.judge
    bullet = _say(t.LogBullet(), locale)
    lines = [_say(t.LogNarrativeHeading(state.round), locale)]
    if judge is not None:
        if judge.winner == "tie":
            lines.append(_say(t.LogFactTie(), locale))
        for heal in judge.heals:
            lines.append(_say(t.LogFactHeal(heal.caster, heal.spell.label, heal.target, heal.healed), locale))
        for damage in judge.damage:
            fell = _say(t.LogFell(), locale) if damage.hp_after <= 0 else ""
            line = t.LogFactDamage(damage.target, damage.damage, damage.hp_before, damage.hp_after, fell)
            lines.append(_say(line, locale))
        fates: dict[str, Message] = {
            "down": t.LogFateDown(),
            "dead": t.LogFateDead(),
            "endured": t.LogFateEndured(),
        }
        for check in judge.checks:
            lines.append(_say(t.LogFactFate(check.character, fates[check.result]), locale))
    for cast in state.current.declarations.casts:
        lines.append(_say(t.LogFactCast(cast.caster, cast.spell.label), locale))
    lines.extend(f"{bullet}{engine_line(note, locale)}" for note in state.current.after_judge)
    if state.outcome is not None:
        lines.append(_say(t.LogFactDecided(word(state.outcome.value, locale)), locale))
    else:
        lines.append(_say(t.LogFactGoesOn(), locale))
    lines.append(PAUSE)
    return "\n".join(lines)


def end_log(state: BattleState, locale: Locale = DEFAULT_LOCALE) -> str:
    """The end of a battle: how it ended and everyone's status."""
    outcome = (
        word(state.outcome.value, locale) if state.outcome else _word(CombatWordKind.INTERRUPTED, locale)
    )
    lines = [_say(t.LogEndHeading(outcome), locale)]
    if state.narrative_resolution is not None:
        nr = state.narrative_resolution
        reason = f" — {nr.reason}" if nr.reason else ""
        line = t.LogNarrativeResolution(f"{nr.pc_expected_ap:.1f}", f"{nr.enemy_expected_ap:.1f}", reason)
        lines.append(_say(line, locale))
    else:
        lines.append(_say(t.LogRounds(state.round), locale))
    lines.append("")
    lines.append(party_status(state.party, locale=locale))
    fallen = [c.name for c in state.party if c.status is Status.DEAD]
    if fallen:
        lines.append(_say(t.LogFallen(_join(fallen, locale)), locale))
    return "\n".join(lines)


def phase_log(state: BattleState, locale: Locale = DEFAULT_LOCALE) -> str:
    """The log of the pause ``state`` is at."""
    return {
        Phase.SETUP: setup_log,
        Phase.ROLL: roll_log,
        Phase.JUDGE: judge_log,
        Phase.NARRATIVE: narrative_brief,
        Phase.ENDED: end_log,
    }[state.phase](state, locale)
