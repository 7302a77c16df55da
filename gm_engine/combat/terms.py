"""What each side brings to this round, read from the battle state: who adds AP, which
casts and collapses count, how many dice each enemy rolls, and the AP terms of both sides.

Pure queries (state in, values out) that both the round state machine
(:mod:`gm_engine.combat.battle`) and the text of its logs (:mod:`gm_engine.combat.render`)
need; they live here so that neither of those modules has to import the other.
"""

from __future__ import annotations

from gm_engine.combat.characters import Character
from gm_engine.combat.enemies import AbilityKind, Enemy, difficulty_ap, swarm_bonus
from gm_engine.combat.spells import Spell
from gm_engine.combat.state import BattleState, CastRecord, DieGroup, PendingCollapse, Phase, Term


def casts_of(state: BattleState, spell: Spell) -> list[CastRecord]:
    """The casts of ``spell`` declared in the current round."""
    return [c for c in state.current.declarations.casts if c.spell is spell]


def sanctuary_casters(state: BattleState) -> set[str]:
    """The PCs who cast 【聖域】 this round."""
    return {c.caster for c in casts_of(state, Spell.SANCTUARY)}


def participants(state: BattleState) -> list[Character]:
    """Standing PCs who add AP this round (a 聖域 caster does not, §6.2.2)."""
    excluded = sanctuary_casters(state)
    return [c for c in state.party if c.standing and c.name not in excluded]


def collapses_now(state: BattleState) -> list[PendingCollapse]:
    """The 【崩壊】 that resolve in the current round."""
    return [p for p in state.pending_collapses if p.resolves_in == state.round]


def standing_enemies(state: BattleState) -> list[Enemy]:
    """The enemies still standing."""
    return [e for e in state.enemies if e.standing]


def slow_casts(state: BattleState) -> int:
    """How many 【鈍足】 were cast this round."""
    return len(casts_of(state, Spell.SLOW))


def enemy_dice_plan(state: BattleState) -> list[tuple[Enemy, int]]:
    """Each standing enemy with the dice it rolls this round (【鈍足】 one_die_fewer removes dice)."""
    plan = [(e, e.dice) for e in standing_enemies(state)]
    if state.options.slow_effect == "one_die_fewer":
        for _ in range(slow_casts(state)):
            best = max(range(len(plan)), key=lambda i: (plan[i][1], -i), default=None)
            if best is None or plan[best][1] == 0:
                break
            plan[best] = (plan[best][0], plan[best][1] - 1)
    return plan


def live_dice(state: BattleState, side: str, purpose: str | None = None) -> list[DieGroup]:
    """This round's ROLL dice of ``side`` (optionally of one ``purpose``) not discarded by 【予見】."""
    return [
        g
        for g in state.current.dice
        if g.phase == "ROLL"
        and not g.discarded
        and g.side == side
        and (purpose is None or g.purpose == purpose)
    ]


def pc_terms(state: BattleState) -> list[Term]:
    """The PC side's AP terms this round (dice included once rolled)."""
    decl = state.current.declarations
    members = participants(state)
    terms: list[Term] = []
    rolled = bool(live_dice(state, "pc"))
    if rolled:
        terms.append(Term(label="ダイス", value=sum(g.total for g in live_dice(state, "pc", "AP"))))
    terms.append(Term(label="装備補正", value=sum(c.equipment_ap for c in members)))
    situational = sum(decl.situational.get(c.name, 0) for c in members)
    if situational:
        terms.append(Term(label="状況補正", value=situational))
    if rolled:
        # one die group per cast, rolled in the order of the casts: a caster who casts
        # 【火弾】 twice has two dice, so they are paired by position, never by name
        for die in live_dice(state, "pc", "火弾"):
            terms.append(Term(label=f"【火弾】({die.owner})", value=die.total))
    for cast in casts_of(state, Spell.LIGHTNING):
        terms.append(Term(label=f"【雷撃】({cast.caster})", value=4))
    if rolled:
        for g in live_dice(state, "pc", "崩壊"):
            terms.append(Term(label=f"【崩壊】({g.owner})", value=g.total + 3))
    for cast in casts_of(state, Spell.LIMIT_BREAK):
        assert cast.amount is not None
        terms.append(Term(label=f"【限界突破】({cast.caster})", value=cast.amount))
    hinder = sum(e.total(AbilityKind.HINDER) for e in standing_enemies(state))
    if hinder:
        terms.append(Term(label="敵の状態干渉", value=-hinder))
    return terms


def enemy_terms(state: BattleState) -> list[Term]:
    """The enemy side's AP terms this round (dice included once rolled)."""
    standing = standing_enemies(state)
    terms: list[Term] = []
    if live_dice(state, "enemy") or state.phase is not Phase.SETUP:
        dice_total = sum(g.total for g in live_dice(state, "enemy"))
        if any(e.dice for e in standing):
            terms.append(Term(label="ダイス", value=dice_total))
    terms.append(Term(label="固定AP", value=sum(e.ap for e in standing)))
    ability = sum(e.ap_modifier for e in standing)
    if ability:
        terms.append(Term(label="能力補正", value=ability))
    swarm = swarm_bonus(len(standing), state.options)
    if swarm:
        terms.append(Term(label="群れ補正", value=swarm))
    adjustment = difficulty_ap(state.difficulty)
    if adjustment:
        terms.append(Term(label="難易度", value=adjustment))
    slows = slow_casts(state)
    if slows:
        has_dice = any(e.dice for e in standing)
        if not has_dice:
            terms.append(Term(label="【鈍足】", value=-state.options.slow_no_dice_penalty * slows))
        elif state.options.slow_effect == "minus_one":
            rolled = sum(g.total for g in live_dice(state, "enemy"))
            cut = min(slows, rolled) if live_dice(state, "enemy") else slows
            terms.append(Term(label="【鈍足】", value=-cut))
    return terms
