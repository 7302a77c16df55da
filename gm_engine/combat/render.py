"""Text as the player sees it: the three battle logs (§4.1–§4.3), the narrative brief,
the status display (§7, §13.2) and the character master data (§14.2).

Every function is pure: state in, text out. Numbers in the text are the engine's; a
narrating model repeats them, it never computes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from gm_engine.combat import terms
from gm_engine.combat.characters import Character, Status
from gm_engine.combat.enemies import Enemy
from gm_engine.combat.equipment import Shield
from gm_engine.combat.ranks import stats
from gm_engine.combat.spells import HealingWaveMode, Spell
from gm_engine.combat.state import BattleState, DieGroup, Phase, Term

PAUSE = "[SYSTEM: PAUSE FOR USER INPUT]"
SETUP_WAIT = "・待機メッセージ: 「両陣営のAP算出ダイスを振ります。『戦闘開始』と入力してください。」"
ROLL_WAIT = "・待機メッセージ: 「ダイス結果を確認したら入力してください。ジャッジに進みます。」"
JUDGE_WAIT = "・待機メッセージ: 「判定結果を確認したら入力してください。戦闘の描写に移ります。」"


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"-{-value}"


def _plus(value: int) -> str:
    """``+ 2`` / ``- 1`` for an addend after a dice expression."""
    return f"+ {value}" if value >= 0 else f"- {-value}"


def condition(character: Character) -> str:
    """The 簡略表示 of a character's state: 正常 / 戦闘不能 / 死亡, plus lasting costs."""
    loss = sum(c.max_hp_loss for c in character.lasting_costs)
    return character.status.value + (f"（因果の歪み: 最大HP−{loss}）" if loss else "")


def status_display(character: Character, *, compact: bool = False) -> str:
    """The 戦闘ステータス block: §7's format, or §13.2's (no slot maximum) when ``compact``."""
    slots = f"残り {character.slots_left}" + ("" if compact else f" / {character.max_slots}")
    return "\n".join(
        [
            f"HP: {character.hp} / {character.max_hp}",
            f"AP: {character.ap_dice}d6 {_plus(character.equipment_ap)}",
            f"魔法スロット: {slots}",
            f"状態: {condition(character)}",
        ]
    )


def party_status(party: Sequence[Character], *, compact: bool = False) -> str:
    """Each character's name and status block."""
    return "\n\n".join(f"【{c.name}】\n{status_display(c, compact=compact)}" for c in party)


def session_status(party: Sequence[Character]) -> str:
    """The 【セッション状況】 footer of §5.2's 運用指示: each character's HP, 【魔法スロットの残り】
    and state, one line each, for the end of every reply."""
    lines = ["【セッション状況】"]
    for c in party:
        lines.append(
            f"・{c.name}: HP {c.hp}/{c.max_hp} / 【魔法スロットの残り】 {c.slots_left}/{c.max_slots}"
            f" / 状態 {condition(c)}"
        )
    return "\n".join(lines)


def master_data(character: Character) -> str:
    """The 【キャラクターマスターデータ】 block of §14.2."""
    weapon = character.weapon
    hands = "両手" if weapon.two_handed else "片手"
    shield = character.shield
    shield_text = {
        Shield.NONE: "盾なし",
        Shield.SMALL: "小盾（防護+1）",
        Shield.LARGE: "大盾（防護+1 / 防御時さらに+2 / AP−1）",
    }[shield]
    spells = "、".join(s.label for s in character.spells) or "なし"
    notes = [c.note for c in character.lasting_costs] + list(character.notes)
    return "\n".join(
        [
            "【キャラクターマスターデータ】",
            f"■ 基本情報：{character.name} / {character.rank.value} / {stats(character.rank).level}",
            f"■ 戦闘ステータス：最大HP {character.max_hp} / 現在HP {character.hp} / "
            f"基礎AP({character.ap_dice}d6) / 装備補正({_signed(character.equipment_ap)})",
            f"■ 装備：{weapon.name}（AP{_signed(weapon.ap_bonus)}・{hands}） / "
            f"{character.armour.name}（軽減{character.armour.reduction}） / {shield_text}",
            f"■ 魔法：スロット({character.slots_left}/{character.max_slots}) / {spells}",
            f"■ 状態：{character.status.value} / 特記事項 {'; '.join(notes) if notes else 'なし'}",
        ]
    )


def enemy_line(enemy: Enemy) -> str:
    """One enemy: name, kind, AP, HP and abilities."""
    dice = f" + {enemy.dice}d6" if enemy.dice else ""
    # a negative fixed AP (CombatOptions.negative_fixed_ap) reads as the dice less it
    ap = f"{enemy.dice}d6 - {-enemy.ap}" if enemy.ap < 0 else f"{enemy.ap}{dice}"
    abilities = f"（{'、'.join(a.text for a in enemy.abilities)}）" if enemy.abilities else ""
    state = "" if enemy.standing else " 撃破"
    hp = f"HP {enemy.hp} / {enemy.max_hp}"
    return f"{enemy.name}［{enemy.kind.value}］ AP {ap}  {hp}{abilities}{state}"


def _terms(terms: Sequence[Term]) -> str:
    total = sum(t.value for t in terms)
    body = " ".join(
        (f"{t.label} {t.value}" if i == 0 else f"{'+' if t.value >= 0 else '-'} {t.label} {abs(t.value)}")
        for i, t in enumerate(terms)
    )
    return f"{total}（{body}）"


def _casts_line(state: BattleState) -> list[str]:
    lines = []
    for cast in state.current.declarations.casts:
        detail = ""
        if cast.spell is Spell.LIMIT_BREAK:
            detail = f" HP{cast.amount}→AP+{cast.amount}"
        elif cast.spell is Spell.HEALING_WAVE:
            halve = cast.mode is HealingWaveMode.HALVE
            detail = " 被ダメージ半減" if halve else f" {cast.target} をHP1で踏みとどまらせる"
        elif cast.target:
            detail = f" → {cast.target}"
        cost = "（因果の歪み）" if cast.overcast else ""
        lines.append(f"  {cast.spell.label} {cast.caster}{detail}{cost}")
    return lines


def setup_log(state: BattleState) -> str:
    """〈BATTLE_SETUP〉 (§4.1): both sides' AP formulas, then the pause."""
    record = state.current
    lines = [f"【BATTLE_SETUP】ラウンド {state.round}"]
    lines.extend(f"・{event}" for event in record.setup_events)
    participants = terms.participants(state)
    dice = sum(c.ap_dice for c in participants)
    members = "、".join(f"{c.name} {c.ap_dice}d6" for c in participants)
    equipment = sum(c.equipment_ap for c in participants)
    extras = []
    decl = record.declarations
    situational = sum(decl.situational.get(c.name, 0) for c in participants)
    if situational:
        extras.append(f"状況補正[{_signed(situational)}]")
    for cast in terms.casts_of(state, Spell.FIREBALL):
        extras.append(f"【火弾】({cast.caster}) 1d6")
    for cast in terms.casts_of(state, Spell.LIGHTNING):
        extras.append(f"【雷撃】({cast.caster}) +4")
    for pending in terms.collapses_now(state):
        extras.append(f"【崩壊】({pending.caster}) 1d6+3")
    for cast in terms.casts_of(state, Spell.LIMIT_BREAK):
        extras.append(f"【限界突破】({cast.caster}) +{cast.amount}")
    hinder = [t for t in terms.pc_terms(state) if t.label == "敵の状態干渉"]
    if hinder:
        extras.append(f"敵の状態干渉[{_signed(hinder[0].value)}]")
    extra_text = f" + {' + '.join(extras)}" if extras else ""
    lines.append(
        f"・PC陣営基礎AP: {dice}d6（{members or '参加者なし'}） + 装備補正[{_signed(equipment)}]{extra_text}"
    )
    enemy_plan = terms.enemy_dice_plan(state)
    fixed = sum(e.ap for e, _ in enemy_plan)
    enemy_dice = sum(n for _, n in enemy_plan)
    owners = "、".join(f"{e.name} {n}d6" for e, n in enemy_plan if n)
    dice_text = f" + {enemy_dice}d6（{owners}）" if enemy_dice else ""
    modifiers = [t for t in terms.enemy_terms(state) if t.label not in ("ダイス", "固定AP")]
    modifier_total = sum(t.value for t in modifiers)
    modifier_text = "、".join(f"{t.label} {_signed(t.value)}" for t in modifiers)
    lines.append(
        f"・敵陣営基礎AP: 固定[{fixed}]{dice_text} + 補正[{_signed(modifier_total)}]"
        + (f"（{modifier_text}）" if modifier_text else "")
    )
    for pending in state.pending_collapses:
        if pending.resolves_in > state.round:
            lines.append(f"・【崩壊】({pending.caster}) 詠唱中: ラウンド {pending.resolves_in} に発動")
    casts = _casts_line(state)
    if casts:
        lines.append("・魔法:")
        lines.extend(casts)
    if decl.enemy_target:
        lines.append(f"・攻撃目標: {decl.enemy_target}")
    if decl.pc_target:
        lines.append(f"・敵の攻撃目標: {decl.pc_target}")
    lines.extend([SETUP_WAIT, PAUSE])
    return "\n".join(lines)


def _dice_block(label: str, groups: Sequence[DieGroup]) -> list[str]:
    values = [v for g in groups for v in g.values]
    lines = [f"{label}: {list(values)} (Total: {sum(values)})"]
    if groups:
        parts = [f"{g.owner} {g.purpose} {len(g.values)}d6 {list(g.values)}" for g in groups]
        lines.append("  " + " / ".join(parts))
    return lines


def roll_log(state: BattleState) -> str:
    """〈ROLL_LOG〉 (§4.2): every die of the roll by owner — PC_Dice the rank dice, Spell_Dice
    【火弾】/【崩壊】, Enemy_Dice; 【予見】's discarded dice kept."""
    record = state.current
    live = [g for g in record.dice if g.phase == "ROLL" and not g.discarded]
    lines = [f"〈ROLL_LOG〉ラウンド {state.round}"]
    # PC_Dice is the rank dice alone, as §4.2's code prints it; spell dice get their own line
    lines.extend(_dice_block("PC_Dice", [g for g in live if g.side == "pc" and g.purpose == "AP"]))
    spell_dice = [g for g in live if g.side == "pc" and g.purpose != "AP"]
    if spell_dice:
        lines.extend(_dice_block("Spell_Dice", spell_dice))
    lines.extend(_dice_block("Enemy_Dice", [g for g in live if g.side == "enemy"]))
    discarded = [g for g in record.dice if g.discarded and g.phase == "ROLL"]
    if discarded:
        values = [list(g.values) for g in discarded]
        lines.append(f"・【予見】で破棄したダイス（{record.rerolls}回）: {values}")
    casts = [c for c in record.declarations.casts if c.phase == "ROLL"]
    if casts:
        lines.append("・ロール後の魔法:")
        for cast in casts:
            target = f" → {cast.target}" if cast.target else ""
            mode = " 半減" if cast.mode is HealingWaveMode.HALVE else ""
            lines.append(f"  {cast.spell.label} {cast.caster}{target}{mode}")
    lines.extend([ROLL_WAIT, PAUSE])
    return "\n".join(lines)


def judge_log(state: BattleState) -> str:
    """〈BATTLE_JUDGE LOG〉 (§4.3): final AP, difference, heals, damage, checks, HP."""
    record = state.current
    judge = record.judge
    lines = [f"〈BATTLE_JUDGE LOG〉ラウンド {state.round}"]
    if judge is None:
        return "\n".join([*lines, "（未ジャッジ）", PAUSE])
    lines.append(f"・PC陣営最終AP: {_terms(judge.pc_terms)}")
    lines.append(f"・敵陣営最終AP: {_terms(judge.enemy_terms)}")
    verdict = {
        "pc": "PC陣営の勝利",
        "enemy": "敵陣営の勝利",
        "tie": "同値 — 激しい攻防により互いにダメージなし",
    }
    lines.append(f"・差分: {abs(judge.pc_ap - judge.enemy_ap)} → {verdict[judge.winner]}")
    for heal in judge.heals:
        lines.append(
            f"・{heal.spell.label} {heal.caster} → {heal.target}: {list(heal.rolled)} = {heal.healed}回復"
            f"（HP {heal.hp_before} → {heal.hp_after}）"
        )
    for line in judge.damage:
        steps = "".join(f" {'+' if s.value >= 0 else '−'} {s.label} {abs(s.value)}" for s in line.steps)
        lines.append(
            f"・ダメージ: {line.target} ← 差分 {line.difference}{steps} = {line.damage}"
            f"（HP {line.hp_before} → {line.hp_after}）"
        )
    for check in judge.checks:
        if check.result == "endured":
            lines.append(f"・{check.character}: {check.by} によりHP 1で踏みとどまる（生死判定なし）")
        elif check.by:
            lines.append(f"・生死判定: {check.character} — {check.by} により自動成功 → 戦闘不能（HP 0）")
        else:
            total = sum(check.rolled)
            verdict_text = "成功 → 戦闘不能（HP 0）" if check.result == "down" else "失敗 → 死亡"
            lines.append(
                f"・生死判定: {check.character} 3d6 {list(check.rolled)} = {total}（目標 {check.target}以上）"
                f" {verdict_text}"
            )
    lines.extend(f"・{note}" for note in judge.notes)
    discarded = [g for g in record.dice if g.discarded and g.phase == "JUDGE"]
    if discarded:
        lines.append(f"・【予見】で破棄したダイス: {[list(g.values) for g in discarded]}")
    lines.extend(f"・{note}" for note in record.after_judge)
    lines.append("・戦況:")
    lines.extend(f"  {c.name} HP {c.hp} / {c.max_hp} {c.status.value}" for c in state.party)
    lines.extend(f"  {enemy_line(e)}" for e in state.enemies)
    if state.outcome is not None:
        lines.append(f"・決着: {state.outcome.value}")
    lines.extend([JUDGE_WAIT, PAUSE])
    return "\n".join(lines)


def narrative_brief(state: BattleState) -> str:
    """[MODE: NARRATIVE] (§4.4): the facts of the round for the narrator, and what comes next."""
    judge = state.current.judge
    lines = [f"[MODE: NARRATIVE] ラウンド {state.round} — 描写する事実（数値はこのとおり）"]
    if judge is not None:
        if judge.winner == "tie":
            lines.append("・激しい攻防。互いにダメージなし。")
        for heal in judge.heals:
            lines.append(f"・{heal.caster} の {heal.spell.label} で {heal.target} が {heal.healed} 回復。")
        for line in judge.damage:
            fell = "（倒れた）" if line.hp_after <= 0 else ""
            hp = f"HP {line.hp_before} → {line.hp_after}"
            lines.append(f"・{line.target} に {line.damage} ダメージ（{hp}）{fell}。")
        for check in judge.checks:
            fate = {
                "down": "一命を取り留め、戦闘不能",
                "dead": "命を落とした",
                "endured": "HP 1で踏みとどまった",
            }
            lines.append(f"・{check.character} は{fate[check.result]}。")
    for cast in state.current.declarations.casts:
        lines.append(f"・{cast.caster} が {cast.spell.label} を行使。")
    lines.extend(f"・{note}" for note in state.current.after_judge)
    if state.outcome is not None:
        lines.append(f"・決着: {state.outcome.value}。描写の後、戦闘終了。")
    else:
        lines.append("・敵はまだ立っている。描写の後、次のラウンドの [MODE: SETUP] へ。")
    lines.append(PAUSE)
    return "\n".join(lines)


def end_log(state: BattleState) -> str:
    """The end of a battle: how it ended and everyone's status."""
    lines = [f"【戦闘終了】{state.outcome.value if state.outcome else '中断'}"]
    if state.narrative_resolution is not None:
        nr = state.narrative_resolution
        lines.append(
            f"・【ナラティブ優先の原則】: ダイスなしで決着（HP・魔法スロットの消費なし）"
            f" 期待AP {nr.pc_expected_ap:.1f} 対 {nr.enemy_expected_ap:.1f}"
            + (f" — {nr.reason}" if nr.reason else "")
        )
    else:
        lines.append(f"・ラウンド数: {state.round}")
    lines.append("")
    lines.append(party_status(state.party))
    fallen = [c.name for c in state.party if c.status is Status.DEAD]
    if fallen:
        lines.append(f"\n・死亡: {'、'.join(fallen)}")
    return "\n".join(lines)


def phase_log(state: BattleState) -> str:
    """The log of the pause ``state`` is at."""
    return {
        Phase.SETUP: setup_log,
        Phase.ROLL: roll_log,
        Phase.JUDGE: judge_log,
        Phase.NARRATIVE: narrative_brief,
        Phase.ENDED: end_log,
    }[state.phase](state)
