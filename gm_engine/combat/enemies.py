"""Enemies (§1.2, §3), encounters, difficulty (§3.3) and the encounter helper (§2.3, §3).

An enemy has a fixed AP, the dice of its kind (雑魚 none, エリート 1d6, ボス 3d6), HP
and one-line abilities (§3.1). An :class:`Encounter` is a group of enemies with its
difficulty adjustments; HP adjustments (長引く −20%, 瞬殺 +20%, rounded half up, at
least 1) are applied when the battle starts, AP adjustments (弱い −1, 強い +1) are a
term of the enemy side's AP every round.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gm_engine.combat.characters import Character, describe_validation_error, validate_party
from gm_engine.combat.errors import InvalidCharacterError
from gm_engine.combat.forecast import EnemyOdds, Forecast, forecast
from gm_engine.combat.lines import written
from gm_engine.combat.options import DEFAULT_OPTIONS, CombatOptions
from gm_engine.messages.catalogue import Message
from gm_engine.messages.texts import (
    AbilitiesNotPairs,
    AbilityRange,
    ApOffsetRange,
    DifficultiesCancel,
    DifficultyTwice,
    EncounterEmpty,
    EnemiesShareName,
    EngineAbilityAp,
    EngineAbilityArmour,
    EngineAbilityHinder,
    EngineAbilityRegeneration,
    FixedApTooLow,
    ForecastNoRegeneration,
    HinderRange,
    HpAboveMaximum,
    NobodyStanding,
    NotAFightKind,
    NotAnAbility,
    NotAnEnemyKind,
    RegenerationRange,
    TooManyAbilities,
    TooManyOfKind,
    TooQuickHpLimit,
)


class EnemyKind(StrEnum):
    """§1.2's three kinds; the value is the document's name."""

    MOB = "雑魚"
    ELITE = "エリート"
    BOSS = "ボス"

    @property
    def dice(self) -> int:
        """d6 the kind adds to its fixed AP (§1.2)."""
        return {EnemyKind.MOB: 0, EnemyKind.ELITE: 1, EnemyKind.BOSS: 3}[self]


class AbilityKind(StrEnum):
    """The one-line abilities of §3.1."""

    AP = "ap"  # 攻撃補正 AP±n
    ARMOUR = "armour"  # 防御補正 防具±n / 特殊 防御時+n
    HINDER = "hinder"  # 状態干渉 敵AP−n (lowers the PC side's AP)
    REGENERATION = "regeneration"  # 再生n (HP at the start of each later round)


class Ability(BaseModel):
    """One §3.1 ability. AP, armour and hinder are ±1..2; regeneration 1..5 (§3.1's 再生5)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: AbilityKind
    amount: int

    @model_validator(mode="after")
    def _bounded(self) -> Ability:
        if self.kind is AbilityKind.REGENERATION:
            if not 1 <= self.amount <= 5:
                raise InvalidCharacterError(RegenerationRange(self.amount))
        elif self.kind is AbilityKind.HINDER:
            if not 1 <= self.amount <= 2:
                raise InvalidCharacterError(HinderRange(self.amount))
        elif self.amount == 0 or abs(self.amount) > 2:
            raise InvalidCharacterError(AbilityRange(f"{self.amount:+d}"))
        return self

    @property
    def message(self) -> Message:
        """The one-line description (§3.1 style) as a message of the catalogue."""
        if self.kind is AbilityKind.AP:
            return EngineAbilityAp(f"{self.amount:+d}")
        if self.kind is AbilityKind.ARMOUR:
            return EngineAbilityArmour(f"{self.amount:+d}")
        if self.kind is AbilityKind.HINDER:
            return EngineAbilityHinder(self.amount)
        return EngineAbilityRegeneration(self.amount)

    @property
    def text(self) -> str:
        """The one-line description (§3.1 style), in the rules document's words."""
        return written(self.message)


#: The most HP an enemy may have (a bound on bad input, 瞬殺 included).
MAX_ENEMY_HP = 500
#: The most fixed AP an enemy may have (a bound on bad input).
MAX_ENEMY_AP = 60
#: The least: minus a boss's dice (an enemy's fixed AP is never below minus its own dice,
#: so its AP never rolls below 0; see CombatOptions.negative_fixed_ap).
MIN_ENEMY_AP = -3


class Enemy(BaseModel):
    """An enemy: a unique name in its encounter, kind, fixed AP, HP and abilities."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=40)
    kind: EnemyKind
    ap: int = Field(ge=MIN_ENEMY_AP, le=MAX_ENEMY_AP)
    max_hp: int = Field(ge=1, le=MAX_ENEMY_HP)
    hp: int = Field(ge=0, le=MAX_ENEMY_HP)
    abilities: tuple[Ability, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Enemy:
        if self.hp > self.max_hp:
            raise InvalidCharacterError(HpAboveMaximum(self.hp, self.max_hp))
        if len(self.abilities) > 2:
            raise InvalidCharacterError(TooManyAbilities())
        if self.ap < -self.dice:
            raise InvalidCharacterError(FixedApTooLow(self.kind.value, -self.dice, self.dice, self.ap))
        return self

    @property
    def dice(self) -> int:
        """d6 this enemy rolls (§1.2)."""
        return self.kind.dice

    @property
    def standing(self) -> bool:
        """HP above 0."""
        return self.hp > 0

    def total(self, kind: AbilityKind) -> int:
        """Sum of this enemy's abilities of ``kind``."""
        return sum(a.amount for a in self.abilities if a.kind is kind)

    @property
    def ap_modifier(self) -> int:
        """AP from its abilities (攻撃補正)."""
        return self.total(AbilityKind.AP)

    @property
    def armour(self) -> int:
        """Damage its abilities remove when the PC side wins (防御補正)."""
        return self.total(AbilityKind.ARMOUR)

    @property
    def expected_ap(self) -> float:
        """Fixed AP + ability AP + 3.5 per die."""
        return self.ap + self.ap_modifier + 3.5 * self.dice


def make_enemy(
    name: str, kind: EnemyKind | str, ap: int, hp: int, abilities: Sequence[Ability | tuple[str, int]] = ()
) -> Enemy:
    """An enemy at full HP. Abilities may be given as ``("ap", 1)`` pairs.

    Raises:
        InvalidCharacterError: a value breaks §1.2/§3.1.
    """
    try:
        enemy_kind = EnemyKind(kind)
    except ValueError:
        known = ", ".join(k.value for k in EnemyKind)
        raise InvalidCharacterError(NotAnEnemyKind(repr(kind), known), "§1.2") from None
    try:
        built = [a if isinstance(a, Ability) else _ability(a[0], a[1]) for a in abilities]
        return Enemy(name=name, kind=enemy_kind, ap=ap, max_hp=hp, hp=hp, abilities=tuple(built))
    except ValidationError as exc:
        raise InvalidCharacterError(describe_validation_error(exc, Enemy)) from None
    except (IndexError, TypeError):
        raise InvalidCharacterError(AbilitiesNotPairs(repr(list(abilities))), "§3.1") from None


def _ability(kind: str, amount: int) -> Ability:
    try:
        ability_kind = AbilityKind(kind)
    except ValueError:
        known = ", ".join(k.value for k in AbilityKind)
        raise InvalidCharacterError(NotAnAbility(repr(kind), known), "§3.1") from None
    return Ability(kind=ability_kind, amount=amount)


class Difficulty(StrEnum):
    """§3.3 adjustments."""

    WEAK = "弱い"
    STRONG = "強い"
    DRAGS_ON = "長引く"
    TOO_QUICK = "瞬殺"


class Encounter(BaseModel):
    """A group of enemies and its difficulty adjustments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enemies: tuple[Enemy, ...]
    difficulty: tuple[Difficulty, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Encounter:
        if not self.enemies:
            raise InvalidCharacterError(EncounterEmpty())
        names = [e.name for e in self.enemies]
        if len(set(names)) != len(names):
            raise InvalidCharacterError(EnemiesShareName())
        if len(set(self.difficulty)) != len(self.difficulty):
            raise InvalidCharacterError(DifficultyTwice())
        if {Difficulty.WEAK, Difficulty.STRONG} <= set(self.difficulty):
            raise InvalidCharacterError(DifficultiesCancel(Difficulty.WEAK, Difficulty.STRONG))
        if {Difficulty.DRAGS_ON, Difficulty.TOO_QUICK} <= set(self.difficulty):
            raise InvalidCharacterError(DifficultiesCancel(Difficulty.DRAGS_ON, Difficulty.TOO_QUICK))
        if Difficulty.TOO_QUICK in self.difficulty:
            for enemy in self.enemies:
                if _scaled(enemy.max_hp, 12) > MAX_ENEMY_HP:
                    raise InvalidCharacterError(
                        TooQuickHpLimit(
                            enemy.name, _scaled(enemy.max_hp, 12), MAX_ENEMY_HP, MAX_ENEMY_HP * 10 // 12
                        )
                    )
        return self

    def check_composition(self) -> None:
        """§3.2: at most 5 雑魚, 2 エリート and 1 ボス.

        Raises:
            InvalidCharacterError: too many of a kind.
        """
        limits = {EnemyKind.MOB: 5, EnemyKind.ELITE: 2, EnemyKind.BOSS: 1}
        for kind, limit in limits.items():
            count = sum(1 for e in self.enemies if e.kind is kind)
            if count > limit:
                raise InvalidCharacterError(TooManyOfKind(count, kind.value, limit), "§3.2")

    @property
    def ap_adjustment(self) -> int:
        """弱い −1, 強い +1 (§3.3)."""
        return difficulty_ap(self.difficulty)

    def adjusted_enemies(self) -> tuple[Enemy, ...]:
        """The enemies with §3.3's HP adjustments applied (長引く −20%, 瞬殺 +20%)."""
        if Difficulty.DRAGS_ON in self.difficulty:
            factor = 8
        elif Difficulty.TOO_QUICK in self.difficulty:
            factor = 12
        else:
            return self.enemies
        out = []
        for enemy in self.enemies:
            max_hp = max(1, _scaled(enemy.max_hp, factor))
            hp = max(0, _scaled(enemy.hp, factor)) if enemy.hp < enemy.max_hp else max_hp
            # validated, not copied: an adjusted enemy obeys the same limits as any other
            out.append(Enemy.model_validate({**enemy.model_dump(), "max_hp": max_hp, "hp": min(hp, max_hp)}))
        return tuple(out)


def difficulty_ap(difficulty: Sequence[Difficulty]) -> int:
    """The enemy side's AP term of §3.3's adjustments: 弱い −1, 強い +1."""
    return (-1 if Difficulty.WEAK in difficulty else 0) + (1 if Difficulty.STRONG in difficulty else 0)


def _scaled(hp: int, tenths: int) -> int:
    """``hp`` × ``tenths``/10, rounded half up (§3.3's ±20%)."""
    return (hp * tenths + 5) // 10


def swarm_bonus(standing_enemies: int, options: CombatOptions = DEFAULT_OPTIONS) -> int:
    """群れ補正 (§3.2, §12): +1 AP per enemy when several stand, else 0."""
    return standing_enemies * options.swarm_bonus_per_enemy if standing_enemies > 1 else 0


def expected_pc_ap(character: Character) -> float:
    """One character's expected AP: 3.5 per die plus equipment."""
    return 3.5 * character.ap_dice + character.equipment_ap


def expected_party_ap(party: Sequence[Character]) -> float:
    """The PC side's expected AP (standing members)."""
    return sum(expected_pc_ap(c) for c in party if c.standing)


def expected_enemy_side_ap(encounter: Encounter, options: CombatOptions = DEFAULT_OPTIONS) -> float:
    """The enemy side's expected AP, 群れ補正 and difficulty included."""
    return expected_side_ap(encounter.enemies, encounter.difficulty, options)


def expected_side_ap(
    enemies: Sequence[Enemy], difficulty: Sequence[Difficulty], options: CombatOptions = DEFAULT_OPTIONS
) -> float:
    """The expected AP of the standing ``enemies`` as a side, 群れ補正 and difficulty included."""
    standing = [e for e in enemies if e.standing]
    swarm = swarm_bonus(len(standing), options)
    return sum(e.expected_ap for e in standing) + swarm + difficulty_ap(difficulty)


def _sum_distribution(dice: int) -> list[int]:
    """Ways to roll each total of ``dice`` d6: index t holds the count for total t."""
    ways = [1]
    for _ in range(dice):
        nxt = [0] * (len(ways) + 6)
        for total, count in enumerate(ways):
            if count:
                for face in range(1, 7):
                    nxt[total + face] += count
        ways = nxt
    return ways


def expected_damage_per_round(
    party: Sequence[Character], encounter: Encounter, options: CombatOptions = DEFAULT_OPTIONS
) -> float:
    """The PC side's expected damage to the first standing enemy in one round (§2.3's 平均差分):
    E[max(0, PC AP − enemy AP − its armour)], exact over the dice, without spells or bonuses."""
    pcs = [c for c in party if c.standing]
    standing = [e for e in encounter.enemies if e.standing]
    if not pcs or not standing:
        return 0.0
    pc_ways = _sum_distribution(sum(c.ap_dice for c in pcs))
    enemy_ways = _sum_distribution(sum(e.dice for e in standing))
    constant = (
        sum(c.equipment_ap for c in pcs)
        - sum(e.ap + e.ap_modifier for e in standing)
        - swarm_bonus(len(standing), options)
        - encounter.ap_adjustment
        - sum(e.total(AbilityKind.HINDER) for e in standing)
        - standing[0].armour
    )
    total_ways = sum(pc_ways) * sum(enemy_ways)
    expected = 0
    for pc_total, pc_count in enumerate(pc_ways):
        if not pc_count:
            continue
        for enemy_total, enemy_count in enumerate(enemy_ways):
            damage = pc_total - enemy_total + constant
            if damage > 0 and enemy_count:
                expected += damage * pc_count * enemy_count
    return expected / total_ways


class EncounterKind(StrEnum):
    """What the helper builds: a fight against 雑魚, around エリート, or around a ボス."""

    MOBS = "雑魚戦"
    ELITE = "エリート戦"
    BOSS = "ボス戦"


class EncounterProposal(BaseModel):
    """What :func:`propose_encounter` suggests, with the numbers it used."""

    model_config = ConfigDict(frozen=True)

    encounter: Encounter
    party_average_ap: float
    party_ap: float
    enemy_side_ap: float
    margin: float
    expected_damage: float = 0.0
    explanation: str


#: §2.3's AP offsets, by kind. rank_dice: the enemy side against the PC side's dice
#: expectation (雑魚 and エリート for the side, ボス per PC); the others: see propose_encounter.
_RANK_DICE_OFFSET = {EnemyKind.MOB: -3, EnemyKind.ELITE: 0, EnemyKind.BOSS: 3}
_MEMBER_OFFSET = {EnemyKind.MOB: -3, EnemyKind.ELITE: 1, EnemyKind.BOSS: 4}
_SIDE_OFFSET = {EnemyKind.MOB: -3, EnemyKind.ELITE: 1, EnemyKind.BOSS: 3}
_AP_RANGE = {EnemyKind.MOB: (-4, -2), EnemyKind.ELITE: (0, 2), EnemyKind.BOSS: (3, 6)}
_WEIGHT = {EnemyKind.MOB: 1, EnemyKind.ELITE: 2, EnemyKind.BOSS: 4}
#: §2.3 / §11.2: HP per point of margin, which with §11.1 is the rounds a fight should take.
_HP_FACTOR = {EnemyKind.MOB: 2.0, EnemyKind.ELITE: 2.5, EnemyKind.BOSS: 3.0}
_MOB_NAMES = "ABCDE"


@dataclass(frozen=True)
class Aim:
    """What a kind of fight should look like (§11.1, as issue 14 states the targets).

    ``min_win``..``max_win``: the share of fights the PC side wins; ``median_low``..
    ``median_high``: the median fight's rounds; ``max_rounds``: no fight longer;
    ``needs_pc_down``: some fights put a PC down (a boss is a real threat).
    """

    min_win: float
    max_win: float
    median_low: int
    median_high: int
    max_rounds: int
    needs_pc_down: bool


AIMS: dict[EncounterKind, Aim] = {
    EncounterKind.MOBS: Aim(0.95, 1.0, 2, 2, 8, False),
    EncounterKind.ELITE: Aim(0.85, 1.0, 1, 3, 8, False),
    EncounterKind.BOSS: Aim(0.60, 0.90, 3, 3, 8, True),
}

#: How far inside an aim the forecast helper keeps its designs, so that a table of a few
#: hundred dice-rolled fights lands on the aim too: a fight past ``max_rounds`` at most
#: once in this many (one in 10,000: a table of 200 fights per cell then shows none in
#: 98% of its cells), the win rate this far inside its bounds, the median's rounds
#: reached by at least this share more or less than half the fights, PCs down in at
#: least this share of a boss's fights.
_TAIL = 0.0001
#: Rounds the helper's forecasts cover: the win rate and PCs down are those of whole
#: fights (what a table sees), not of the first eight rounds.
_FORECAST_ROUNDS = 20
_WIN_SLACK = 0.03
_MEDIAN_SLACK = 0.03
_DOWN_SHARE = 0.03


def forecast_encounter(
    party: Sequence[Character],
    encounter: Encounter,
    options: CombatOptions = DEFAULT_OPTIONS,
    rounds: int = 8,
) -> Forecast:
    """:func:`~gm_engine.combat.forecast.forecast` of ``party`` against ``encounter`` (its
    §3.3 HP adjustments applied, enemies in the encounter's order).

    Raises:
        InvalidCharacterError: an enemy with 再生, nobody standing, bad ``rounds``.
    """
    standing = [e for e in encounter.adjusted_enemies() if e.standing]
    if any(e.total(AbilityKind.REGENERATION) for e in standing):
        raise InvalidCharacterError(ForecastNoRegeneration())
    odds = [
        EnemyOdds(
            ap=e.ap + e.ap_modifier, dice=e.dice, hp=e.hp, armour=e.armour, hinder=e.total(AbilityKind.HINDER)
        )
        for e in standing
    ]
    return forecast(party, odds, encounter.ap_adjustment, options, rounds)


def aim_misses(aim: Aim, odds: Forecast, *, strict: bool = True) -> list[str]:
    """The parts of ``aim`` a forecast misses; ``strict=False`` asks for the helper's
    safety margins as well (see :data:`_TAIL`). ``odds`` should cover well beyond
    ``aim.max_rounds`` rounds (win rates are read over the rounds covered); "no fight
    longer" is read as at most one fight in 1,000 past it (:data:`_TAIL`)."""
    win_slack = 0.0 if strict else _WIN_SLACK
    median_slack = 0.0 if strict else _MEDIAN_SLACK
    misses = []
    high = math.inf if aim.max_win >= 1.0 else aim.max_win - win_slack  # float sums pass 1.0
    if not aim.min_win + win_slack <= odds.win_rate <= high:
        misses.append(f"勝率 {odds.win_rate:.0%}")
    too_quick = odds.ended_within(aim.median_low - 1) > 0.5 - median_slack
    if too_quick or odds.ended_within(aim.median_high) < 0.5 + median_slack:
        misses.append(f"中央値 {odds.median_rounds}")
    if odds.past(aim.max_rounds) > _TAIL:
        misses.append(f"{aim.max_rounds}ラウンド超 {odds.past(aim.max_rounds):.1%}")
    if aim.needs_pc_down and odds.pc_down_rate < (_DOWN_SHARE if not strict else 0.005):
        misses.append("PCが倒れない")
    return misses


@dataclass(frozen=True)
class _Design:
    """The forecast helper's choice: the enemies' kinds, fixed APs, group HP, its odds and
    what it misses of the aim."""

    plan: tuple[EnemyKind, ...]
    fixed: tuple[int, ...]
    group_hp: int
    side_offset: int
    odds: Forecast
    misses: tuple[str, ...]

    def describe(self) -> str:
        odds = self.odds
        text = (
            f"予測（魔法・状況補正なし）: 勝率 {odds.win_rate:.0%}、中央値 {odds.median_rounds} ラウンド、"
            f"8ラウンド超 {odds.past(8):.1%}、PC戦闘不能 {odds.pc_down_rate:.0%}"
        )
        if self.misses:
            text += "; §11.1の目安に届かない: " + "、".join(self.misses)
        return text


def _shortfall(aim: Aim, odds: Forecast) -> float:
    """How far a forecast is from ``aim`` with the helper's margins, weighted so that a
    fight the PCs can win comes first, then its length, then the threat, then the tail
    of long fights (0 when the aim is met)."""
    high = math.inf if aim.max_win >= 1.0 else aim.max_win - _WIN_SLACK  # float sums pass 1.0
    win = max(0.0, aim.min_win + _WIN_SLACK - odds.win_rate, odds.win_rate - high)
    median = max(0.0, odds.ended_within(aim.median_low - 1) - (0.5 - _MEDIAN_SLACK)) + max(
        0.0, 0.5 + _MEDIAN_SLACK - odds.ended_within(aim.median_high)
    )
    down = max(0.0, _DOWN_SHARE - odds.pc_down_rate) if aim.needs_pc_down else 0.0
    return 10 * win + 3 * median + 2 * down + max(0.0, odds.past(aim.max_rounds) - _TAIL)


@lru_cache(maxsize=256)
def _forecast_design(
    party: tuple[Character, ...], plans: tuple[tuple[EnemyKind, ...], ...], offsets: tuple[int, ...],
    default_offset: int, aim: Aim, options: CombatOptions,
) -> _Design:
    """The design closest to §2.3 / §11.2 whose forecast meets ``aim`` (with margins).

    Tried in order: for each of ``plans`` (numbers of enemies), every offset of §2.3's
    range, nearest the default first, each with the group HP from §11.2's guideline down
    to one per enemy. The first design that meets the aim wins; if none does, the one
    that comes nearest (:func:`_shortfall`), the guideline's HP breaking ties.
    """
    dice_expectation = sum(3.5 * c.ap_dice for c in party)
    ordered = sorted(offsets, key=lambda o: (abs(o - default_offset), o))
    best: _Design | None = None
    best_key = (float("inf"), 0)
    for plan in plans:
        lead = next(k for k in (EnemyKind.BOSS, EnemyKind.ELITE, EnemyKind.MOB) if k in plan)
        for side_offset in ordered:
            fixed = tuple(_fixed_ap(dice_expectation, plan, side_offset, options))
            if max(fixed) > MAX_ENEMY_AP:
                continue  # a lone boss for a big party: escorts carry the rest
            guideline = _guideline_hp(party, plan, fixed, _HP_FACTOR[lead], (), options)
            best_win = 0.0
            for group_hp in range(guideline, len(plan) - 1, -1):
                shares = _share_hp(plan, group_hp)
                rows = zip(plan, fixed, shares, strict=True)
                enemies = [EnemyOdds(ap=ap, dice=k.dice, hp=hp) for k, ap, hp in rows]
                odds = forecast(party, enemies, 0, options, _FORECAST_ROUNDS)
                best_win = max(best_win, odds.win_rate)
                key = (_shortfall(aim, odds), guideline - group_hp)
                if key < best_key:
                    misses = tuple(aim_misses(aim, odds, strict=False))
                    best, best_key = _Design(plan, fixed, group_hp, side_offset, odds, misses), key
                if key[0] == 0:
                    return best if best is not None else _Design(plan, fixed, group_hp, side_offset, odds, ())
            if side_offset > default_offset and best_win < aim.min_win:
                break  # a stronger enemy side only lowers the PCs' chances further
    assert best is not None
    return best


def propose_encounter(
    party: Sequence[Character],
    kind: EncounterKind | str = EncounterKind.MOBS,
    difficulty: Sequence[Difficulty | str] = (),
    *,
    offset: int | None = None,
    mob_name: str = "雑魚",
    elite_name: str = "精鋭",
    boss_name: str = "首領",
    options: CombatOptions = DEFAULT_OPTIONS,
) -> EncounterProposal:
    """Propose enemies for ``party`` by §2.3 and §3.

    ``options.encounter_basis`` chooses how §2.3's differences are read. ``"rank_dice"``
    (the guideline) takes §2.3 at its word: enemies are measured against the PC side's
    dice expectation (3.5 per rank die of every standing member, §2.3 「平均ランク（ダイス
    期待値）」 summed over the party as §3.3 asks), so the PCs' equipment is their edge:

    * numbers (§3.2; a group of 雑魚 is 2..5, never one): a 雑魚戦 has one 雑魚 more than
      there are PCs (2..5); an エリート戦 one エリート for a lone PC, two otherwise, and
      from three PCs on a group of 雑魚 (PCs − 1, 2..5); a ボス戦 one ボス, and from two
      PCs on a group of 雑魚 (PCs, 2..5). The 雑魚 are listed first, so the default target
      cuts through them and the overflow reaches the leader;
    * AP: the enemy side's expected AP is the PC side's dice expectation plus the kind's
      offset — 雑魚 −3 and エリート 0 for the side, ボス +3 for each PC (§3.3: a party
      meets a stronger boss) — less 群れ補正, shared by weight (雑魚 1, エリート 2, ボス
      4); each fixed AP is its share minus 3.5 per die, rounded down, at least minus
      its dice (``options.negative_fixed_ap``; else at least 0).
      ``offset`` overrides the lead kind's offset (within §2.3's range);
    * HP (§2.3, §11.1, §11.2): the group's HP is the expected margin (PC side expected
      AP − enemy side expected AP, at least 1) × 2 / 2.5 / 3, shared by weight — with
      damage overflowing from one enemy to the next (``options.damage_overflow``) the
      PCs wear the group down in about as many winning rounds as §11.1 aims at.

    ``"forecast"`` (the default) starts from that guideline and checks it against the
    kind's aim in :data:`AIMS` (§11.1's rounds) with the design's exact odds
    (:func:`forecast_encounter`); when it misses, it tries every offset of §2.3's range
    (for a boss, every side offset from +3 to +6 per PC) with group HP from the
    guideline's down to one per enemy, and a boss with 2..5 escorts or alone, and takes
    the first design that meets the aim, else the nearest (see ``_forecast_design``).
    ``offset``, when given, fixes the offset and leaves only HP to the check. The
    explanation ends with the forecast and the aims it misses.

    ``"member_average"`` (each enemy against the party's average member: 雑魚 −3, エリート
    +1, ボス +4, one enemy per PC, HP = max(3, |margin|) × factor on every enemy) and
    ``"side_total"`` (the whole enemy side against the whole PC side AP, shared by
    weight) are the two earlier readings, kept as options.

    Difficulty (§3.3) is attached to the encounter and applies when the battle starts;
    the forecast check designs the fight without it, so 強い gives a stronger fight.

    Raises:
        InvalidCharacterError: empty party, an offset outside §2.3's range, bad kind.
    """
    members = validate_party(party)
    try:
        fight = EncounterKind(kind)
        adjustments = tuple(Difficulty(d) for d in difficulty)
    except ValueError:
        known = ", ".join([k.value for k in EncounterKind] + [d.value for d in Difficulty])
        given = [kind, *difficulty]
        wrong = next((v for v in given if v not in known.split(", ")), kind)
        raise InvalidCharacterError(NotAFightKind(repr(wrong), known), "§3.3") from None
    standing = [c for c in members if c.standing]
    if not standing:
        raise InvalidCharacterError(NobodyStanding())
    basis = options.encounter_basis
    by_forecast = basis == "forecast"
    rank_dice = basis == "rank_dice" or by_forecast
    plan = _plan(fight, len(standing)) if rank_dice else _legacy_plan(fight, len(standing))
    lead = next(k for k in (EnemyKind.BOSS, EnemyKind.ELITE, EnemyKind.MOB) if k in plan)
    low, high = _AP_RANGE[lead]
    if offset is not None and not low <= offset <= high:
        problem = ApOffsetRange(lead.value, f"{low:+d}", f"{high:+d}", f"{offset:+d}")
        raise InvalidCharacterError(problem, "§2.3")
    party_ap = expected_party_ap(standing)
    per_pc = len(standing) if lead is EnemyKind.BOSS else 1
    side_offset = (offset if offset is not None else _RANK_DICE_OFFSET[lead]) * per_pc
    factor = _HP_FACTOR[lead]
    check = ""
    if by_forecast:
        offsets = [side_offset] if offset is not None else list(range(low * per_pc, high * per_pc + 1))
        plans = tuple(tuple(p) for p in _forecast_plans(fight, len(standing)))
        choice = _forecast_design(tuple(standing), plans, tuple(offsets), side_offset, AIMS[fight], options)
        plan, fixed, group_hp = list(choice.plan), list(choice.fixed), choice.group_hp
        check = choice.describe()
    elif rank_dice:
        fixed = _rank_dice_ap(standing, plan, side_offset, options)
        group_hp = _guideline_hp(standing, plan, fixed, factor, adjustments, options)
    else:
        fixed = _legacy_ap(standing, plan, lead, offset, options)
        group_hp = 0
    names = {EnemyKind.MOB: mob_name, EnemyKind.ELITE: elite_name, EnemyKind.BOSS: boss_name}
    counts = {k: plan.count(k) for k in set(plan)}
    seen: dict[EnemyKind, int] = {}
    labels = []
    for enemy_kind in plan:
        seen[enemy_kind] = seen.get(enemy_kind, 0) + 1
        suffix = _MOB_NAMES[seen[enemy_kind] - 1] if counts[enemy_kind] > 1 else ""
        labels.append(names[enemy_kind] + suffix)
    rows = zip(labels, plan, fixed, strict=True)
    drafts = [Enemy(name=label, kind=k, ap=ap, max_hp=1, hp=1) for label, k, ap in rows]
    draft = Encounter(enemies=tuple(drafts), difficulty=adjustments)
    enemy_ap = expected_enemy_side_ap(draft, options)
    raw_margin = party_ap - enemy_ap
    if rank_dice:
        margin = max(1.0, raw_margin)
        hps = _share_hp(plan, group_hp)
        hp_text = f"群れのHP {group_hp}（重みで配分）"
    else:
        margin = max(3.0, abs(raw_margin))
        hps = [max(1, math.ceil(margin * factor))] * len(plan)
        hp_text = f"HP {hps[0]}（各自）"
    enemies = tuple(e.model_copy(update={"max_hp": hp, "hp": hp}) for e, hp in zip(drafts, hps, strict=True))
    damage = expected_damage_per_round(standing, draft, options)
    encounter = Encounter(enemies=enemies, difficulty=adjustments)
    average = party_ap / len(standing)
    dice_expectation = sum(3.5 * c.ap_dice for c in standing)
    explanation = (
        f"PC陣営期待AP {party_ap:.1f}（ダイス期待値 {dice_expectation:.1f}、平均 {average:.1f}）; "
        f"敵陣営期待AP {enemy_ap:.1f}; 期待差分 {margin:.1f} × {factor}（{lead.value}）→ {hp_text}; "
        f"PC陣営の1ラウンド期待ダメージ {damage:.1f}（魔法・状況補正なし）"
    )
    if check:
        explanation += "; " + check
    if raw_margin < 0:
        explanation += "; 敵陣営の期待APがPC陣営を上回る（魔法・状況補正が鍵）"
    return EncounterProposal(
        encounter=encounter,
        party_average_ap=average,
        party_ap=party_ap,
        enemy_side_ap=enemy_ap,
        margin=margin,
        expected_damage=damage,
        explanation=explanation,
    )


def _share_hp(plan: Sequence[EnemyKind], group_hp: int) -> list[int]:
    """A group's HP shared by weight (雑魚 1, エリート 2, ボス 4), at least 1 each."""
    total_weight = sum(_WEIGHT[k] for k in plan)
    return [max(1, math.floor(group_hp * _WEIGHT[k] / total_weight + 0.5)) for k in plan]


def _guideline_hp(
    standing: Sequence[Character], plan: Sequence[EnemyKind], fixed: Sequence[int], factor: float,
    difficulty: Sequence[Difficulty], options: CombatOptions,
) -> int:
    """§2.3 / §11.2's group HP: the expected margin (at least 1) × the kind's factor."""
    pairs = enumerate(zip(plan, fixed, strict=True))
    drafts = [Enemy(name=f"e{i}", kind=k, ap=ap, max_hp=1, hp=1) for i, (k, ap) in pairs]
    margin = max(1.0, expected_party_ap(standing) - expected_side_ap(drafts, difficulty, options))
    return max(len(plan), math.ceil(margin * factor))


def _plan(fight: EncounterKind, size: int) -> list[EnemyKind]:
    """rank_dice numbers (§3.2), 雑魚 first."""
    if fight is EncounterKind.MOBS:
        return [EnemyKind.MOB] * min(5, max(2, size + 1))
    if fight is EncounterKind.ELITE:
        mobs = 0 if size <= 2 else min(5, max(2, size - 1))
        return [EnemyKind.MOB] * mobs + [EnemyKind.ELITE] * (1 if size == 1 else 2)
    mobs = 0 if size == 1 else min(5, max(2, size))
    return [EnemyKind.MOB] * mobs + [EnemyKind.BOSS]


def _forecast_plans(fight: EncounterKind, size: int) -> list[list[EnemyKind]]:
    """forecast numbers to choose from: rank_dice's for 雑魚戦 and エリート戦; a boss with a
    group of 2..5 雑魚 escorts (§3.2's 雑魚 come in groups; escorts that fall first make a
    boss fight swing harder both ways), from two up to one per PC, or alone (§3.2: 原則1体)."""
    if fight is EncounterKind.BOSS:
        escorted = [[EnemyKind.MOB] * mobs + [EnemyKind.BOSS] for mobs in range(2, min(5, max(2, size)) + 1)]
        return [*escorted, [EnemyKind.BOSS]]
    return [_plan(fight, size)]


def _legacy_plan(fight: EncounterKind, size: int) -> list[EnemyKind]:
    """member_average / side_total numbers: the lead kind first."""
    if fight is EncounterKind.MOBS:
        return [EnemyKind.MOB] * min(5, max(2, size))
    if fight is EncounterKind.ELITE:
        elites = min(2, max(1, size - 1))
        return [EnemyKind.ELITE] * elites + [EnemyKind.MOB] * min(5, max(0, size - 1 - elites))
    return [EnemyKind.BOSS] + [EnemyKind.MOB] * min(5, max(0, size - 2))


def _rank_dice_ap(
    standing: Sequence[Character], plan: Sequence[EnemyKind], side_offset: int, options: CombatOptions
) -> list[int]:
    """Fixed AP for an enemy side expected at the PC side's dice expectation + ``side_offset``."""
    return _fixed_ap(sum(3.5 * c.ap_dice for c in standing), plan, side_offset, options)


def _fixed_ap(
    dice_expectation: float, plan: Sequence[EnemyKind], side_offset: int, options: CombatOptions
) -> list[int]:
    """Each enemy's fixed AP: the side's wanted AP less 群れ補正, shared by weight, less
    3.5 per die, rounded down, at least 0 (at least minus its dice with
    ``options.negative_fixed_ap``)."""
    wanted_side = dice_expectation + side_offset
    pool = wanted_side - swarm_bonus(len(plan), options)
    total_weight = sum(_WEIGHT[k] for k in plan)
    return [
        max(_least_fixed_ap(k, options), math.floor(pool * _WEIGHT[k] / total_weight - 3.5 * k.dice))
        for k in plan
    ]


def _least_fixed_ap(kind: EnemyKind, options: CombatOptions) -> int:
    """The lowest fixed AP the helper gives an enemy of ``kind`` (see ``negative_fixed_ap``)."""
    return -kind.dice if options.negative_fixed_ap else 0


def _legacy_ap(
    standing: Sequence[Character], plan: Sequence[EnemyKind], lead: EnemyKind, offset: int | None,
    options: CombatOptions,
) -> list[int]:
    party_ap = expected_party_ap(standing)
    average = party_ap / len(standing)
    per_side = options.encounter_basis == "side_total"
    default_offsets = _SIDE_OFFSET if per_side else _MEMBER_OFFSET
    lead_offset = offset if offset is not None else default_offsets[lead]
    pool = party_ap + lead_offset - swarm_bonus(len(plan), options)
    total_weight = sum(_WEIGHT[k] for k in plan)
    out = []
    for enemy_kind in plan:
        if per_side:
            wanted = pool * _WEIGHT[enemy_kind] / total_weight
        else:
            wanted = average + (lead_offset if enemy_kind is lead else default_offsets[enemy_kind])
        out.append(max(0, math.floor(wanted - 3.5 * enemy_kind.dice + 0.5)))
    return out
