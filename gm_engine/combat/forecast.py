"""The exact odds of a fight played without decisions: who wins, in which round.

:func:`forecast` computes, without rolling a die, the probability that a battle between
``party`` and ``encounter`` ends in each round with each side the winner, when it is
played as :mod:`gm_engine.combat.balance` plays it: no spells, no situational bonuses,
the default targets (the PC side's damage to the first standing enemy, overflowing in
the encounter's order as ``options.damage_overflow`` says; the enemy side's damage to
the first standing PC). It is a Markov chain over (damage dealt to the enemy group, the
first standing PC, that PC's HP): every other PC is either down or untouched, and every
enemy either fallen or untouched, because the default targets take them in order.

The encounter helper uses it to check its designs against §11.1's rounds, and
``benchmarks/combat_encounter_search.py`` to search designs the helper does not make.
An enemy's 再生 is not modelled (HP coming back would break the order the chain relies
on); the helper's enemies have no abilities.
A life-or-death check decides only whether a PC who went down is dead, never whether it
stands, so it does not change the odds here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from gm_engine.combat.characters import Character
from gm_engine.combat.errors import InvalidCharacterError
from gm_engine.combat.options import DEFAULT_OPTIONS, CombatOptions
from gm_engine.messages.texts import ForecastBothSides, ForecastRounds


@dataclass(frozen=True)
class EnemyOdds:
    """What the chain needs of one standing enemy: its AP without dice (fixed AP and
    攻撃補正), its dice, its HP now, its 防御補正 and its 状態干渉 on the PC side."""

    ap: int
    dice: int
    hp: int
    armour: int = 0
    hinder: int = 0


@dataclass(frozen=True)
class Forecast:
    """The exact odds of one fight, round by round.

    ``won[r]`` / ``lost[r]``: the probability that the fight ends in round ``r + 1`` with
    the PC side / the enemy side the winner; ``unfinished``: still going after
    ``len(won)`` rounds; ``won_with_pc_down``: won, with at least one PC down or dead.
    """

    won: tuple[float, ...]
    lost: tuple[float, ...]
    won_with_pc_down: float
    unfinished: float

    @property
    def win_rate(self) -> float:
        """The probability that the PC side wins within the rounds forecast."""
        return sum(self.won)

    @property
    def pc_down_rate(self) -> float:
        """The probability that at least one PC goes down (every lost fight, some won ones)."""
        return sum(self.lost) + self.won_with_pc_down

    def ended_within(self, rounds: int) -> float:
        """The probability that the fight is over after ``rounds`` rounds."""
        return sum(self.won[:rounds]) + sum(self.lost[:rounds])

    def past(self, rounds: int) -> float:
        """The probability that the fight is still going after ``rounds`` rounds."""
        return max(0.0, 1.0 - self.ended_within(rounds))

    @property
    def median_rounds(self) -> int | None:
        """The first round by which half the fights are over (None: not within the forecast)."""
        return next((r for r in range(1, len(self.won) + 1) if self.ended_within(r) >= 0.5), None)


@lru_cache(maxsize=64)
def _dice_ways(dice: int) -> tuple[float, ...]:
    """The distribution of the total of ``dice`` d6: index t − dice holds P(total = t)."""
    ways = [1.0]
    for _ in range(dice):
        nxt = [0.0] * (len(ways) + 5)
        for total, p in enumerate(ways):
            for face in range(6):
                nxt[total + face] += p / 6
        ways = nxt
    return tuple(ways)


def _difference(pc_dice: int, pc_constant: int, enemy_dice: int, enemy_constant: int) -> dict[int, float]:
    """P(PC AP − enemy AP = v) for each v."""
    pc, enemy = _dice_ways(pc_dice), _dice_ways(enemy_dice)
    low = pc_dice + pc_constant - (enemy_dice + enemy_constant) - (len(enemy) - 1)
    out: dict[int, float] = {}
    for a, pa in enumerate(pc):
        for b, pb in enumerate(enemy):
            v = low + a + (len(enemy) - 1 - b)
            out[v] = out.get(v, 0.0) + pa * pb
    return out


def forecast(
    party: Sequence[Character],
    enemies: Sequence[EnemyOdds],
    side_adjustment: int = 0,
    options: CombatOptions = DEFAULT_OPTIONS,
    rounds: int = 8,
) -> Forecast:
    """The exact odds of ``party`` against ``enemies`` (in target order) over ``rounds``
    rounds (see the module). ``side_adjustment`` is the enemy side's AP term of §3.3
    (弱い −1, 強い +1); 群れ補正 comes from ``options``.
    :func:`~gm_engine.combat.enemies.forecast_encounter` takes an encounter.

    Raises:
        InvalidCharacterError: nobody stands on a side, or ``rounds`` is not 1..50.
    """
    if not 1 <= rounds <= 50:
        raise InvalidCharacterError(ForecastRounds(rounds))
    enemies = [e for e in enemies if e.hp > 0]
    pcs = [c for c in party if c.standing]
    if not enemies or not pcs:
        raise InvalidCharacterError(ForecastBothSides())
    starts = [0]
    for e in enemies:
        starts.append(starts[-1] + e.hp)
    total_hp = starts[-1]

    def first_enemy(dealt: int) -> int:
        return next(j for j in range(len(enemies)) if starts[j + 1] > dealt)

    def after_win(dealt: int, margin: int) -> int:
        """Damage dealt after the PC side wins a round by ``margin`` (§4.3, overflow)."""
        j = first_enemy(dealt)
        remaining = margin
        while j < len(enemies) and remaining > 0:
            armour = enemies[j].armour
            left_in_enemy = starts[j + 1] - dealt
            hit = min(left_in_enemy, max(0, remaining - armour))
            dealt += hit
            if hit < left_in_enemy or not options.damage_overflow:
                break
            remaining -= hit + armour
            j += 1
        return dealt

    differences: dict[tuple[int, int], dict[int, float]] = {}

    def difference(dealt: int, first_pc: int) -> dict[int, float]:
        j = first_enemy(dealt)
        key = (j, first_pc)
        if key not in differences:
            side = enemies[j:]
            standing_pcs = pcs[first_pc:]
            swarm = len(side) * options.swarm_bonus_per_enemy if len(side) > 1 else 0
            enemy_constant = sum(e.ap for e in side) + swarm + side_adjustment
            pc_constant = sum(c.equipment_ap for c in standing_pcs) - sum(e.hinder for e in side)
            differences[key] = _difference(
                sum(c.ap_dice for c in standing_pcs), pc_constant, sum(e.dice for e in side), enemy_constant
            )
        return differences[key]

    moves: dict[tuple[int, int], tuple[float, dict[int, float], dict[int, float]]] = {}

    def moves_from(dealt: int, i: int) -> tuple[float, dict[int, float], dict[int, float]]:
        """From (dealt, i): P(the PCs win now), P(damage dealt becomes d) by d, P(PC i
        takes h) by h (h ≥ 0, capped at its HP: any more also puts it down)."""
        key = (dealt, i)
        if key not in moves:
            wins = 0.0
            hits: dict[int, float] = {}
            wounds: dict[int, float] = {}
            cap = pcs[i].hp
            for v, p in difference(dealt, i).items():
                if v > 0:
                    after = after_win(dealt, v)
                    if after >= total_hp:
                        wins += p
                    else:
                        hits[after] = hits.get(after, 0.0) + p
                else:
                    damage = min(cap, max(0, -v - pcs[i].protection))
                    wounds[damage] = wounds.get(damage, 0.0) + p
            moves[key] = (wins, hits, wounds)
        return moves[key]

    # state: (damage dealt to the group, first standing PC) -> P(that PC's HP = h) by h
    states: dict[tuple[int, int], list[float]] = {(0, 0): _point(pcs[0].hp, pcs[0].hp)}
    won: list[float] = []
    lost: list[float] = []
    won_down = 0.0
    for _ in range(rounds):
        nxt: dict[tuple[int, int], list[float]] = {}
        won_now = lost_now = 0.0
        for (dealt, i), row in states.items():
            mass = sum(row)
            if mass < _NEGLIGIBLE:
                continue
            wins, hits, wounds = moves_from(dealt, i)
            won_now += mass * wins
            if i > 0:
                won_down += mass * wins
            for after, p in hits.items():
                _add(nxt, (after, i), row, p)
            for damage, p in wounds.items():
                if damage == 0:
                    _add(nxt, (dealt, i), row, p)
                    continue
                shifted = [0.0] * len(row)
                for h in range(damage + 1, len(row)):
                    shifted[h - damage] = row[h] * p
                _add(nxt, (dealt, i), shifted, 1.0)
                fell = sum(row[1 : damage + 1]) * p
                if fell:
                    if i + 1 < len(pcs):
                        _add(nxt, (dealt, i + 1), _point(pcs[i + 1].hp, pcs[i + 1].hp), fell)
                    else:
                        lost_now += fell
        won.append(won_now)
        lost.append(lost_now)
        states = nxt
    unfinished = sum(sum(row) for row in states.values())
    return Forecast(won=tuple(won), lost=tuple(lost), won_with_pc_down=won_down, unfinished=unfinished)


#: A state this unlikely is dropped: the odds it could still add are far below any
#: figure the helper or a table reads (at most 1e-13 of mass per state and round).
_NEGLIGIBLE = 1e-13


def _point(size: int, h: int) -> list[float]:
    row = [0.0] * (size + 1)
    row[h] = 1.0
    return row


def _add(table: dict[tuple[int, int], list[float]], key: tuple[int, int], row: list[float], p: float) -> None:
    """``table[key] += row × p`` elementwise (rows of one PC have the same length)."""
    target = table.get(key)
    if target is None:
        table[key] = [x * p for x in row]
        return
    if len(target) < len(row):
        target.extend([0.0] * (len(row) - len(target)))
    for h, x in enumerate(row):
        if x:
            target[h] += x * p
