"""Search boss encounters the helper does not make: can any meet every §11.1 boss target?

For each rank and party size (おまかせ PCs) this tries a grid of encounters — a boss alone
or with 2..5 雑魚 escorts, the escorts' AP and HP, the boss's HP, and for each of those
every boss AP (from −3: CombatOptions.negative_fixed_ap) from the one where the PCs win
at most 90% of fights to the one where they win fewer than 60% — and computes each fight's odds exactly
(:func:`gm_engine.combat.forecast.forecast` over 8 rounds: no spells, no situational bonuses, default
targets, the engine's default readings). It prints, per party, how many designs are won
60–90% within 8 rounds, how many of those also have a median of 3 rounds and a PC down
in some, how many of those have at most one fight in 1,000 past 8 rounds, and the
smallest share of fights past 8 rounds that any of them reaches. A design meeting every
target would be counted: with at most 0.1% of fights past 8 rounds, its wins within 8
rounds are its wins less at most 0.1% (the lower bound is widened by that much).

    .venv/bin/python benchmarks/combat_encounter_search.py            # sizes 1-4
    .venv/bin/python benchmarks/combat_encounter_search.py --sizes 1,2

It takes minutes (exact odds, pure Python); the figures are the same on every run.
"""

from __future__ import annotations

import argparse
import time

from gm_engine.combat import Rank
from gm_engine.combat.balance import auto_party
from gm_engine.combat.characters import Character
from gm_engine.combat.enemies import MIN_ENEMY_AP
from gm_engine.combat.forecast import EnemyOdds, Forecast, forecast

BOSS_DICE = 3
TAIL = 0.001


def odds(party: tuple[Character, ...], escorts: int, escort_ap: int, escort_hp: int, boss_ap: int,
         boss_hp: int) -> Forecast:
    enemies = [EnemyOdds(ap=escort_ap, dice=0, hp=escort_hp)] * escorts + [
        EnemyOdds(ap=boss_ap, dice=BOSS_DICE, hp=boss_hp)
    ]
    return forecast(party, enemies, rounds=8)


def search(rank: Rank, size: int) -> tuple[int, int, int, int, float, int]:
    """(designs tried, won 60–90%, + median 3 and a PC down, + tail ≤ TAIL, smallest
    tail of a 60–90% median-3 design, seconds)."""
    party = auto_party(rank, size)
    dice = party[0].ap_dice
    tried = threat = shaped = every = 0
    best_tail = 1.0
    started = time.process_time()
    for escorts in (0, 2, 3, 4, 5):
        for escort_ap in ((0, 2 * dice, 4 * dice) if escorts else (0,)):
            for escort_hp in ((1, 2) if escorts else (1,)):
                for boss_hp in (1, 2, 3, 5, 8, 13, 20):
                    def at(boss_ap: int, group: tuple[int, int, int, int] = (escorts, escort_ap, escort_hp,
                                                                               boss_hp)) -> Forecast:
                        count, ap, hp, leader_hp = group
                        return odds(party, count, ap, hp, boss_ap, leader_hp)

                    low, high = MIN_ENEMY_AP, 40 * size
                    while low < high:  # the smallest boss AP the PCs win at most 90% against
                        middle = (low + high) // 2
                        if at(middle).win_rate > 0.9:
                            low = middle + 1
                        else:
                            high = middle
                    tried += 6
                    for boss_ap in range(low, 40 * size + 1):
                        fight = at(boss_ap)
                        tried += 1
                        if fight.win_rate < 0.6 - TAIL:
                            break
                        threat += 1
                        median_three = fight.ended_within(2) < 0.5 <= fight.ended_within(3)
                        if median_three and fight.pc_down_rate > 0:
                            shaped += 1
                            best_tail = min(best_tail, fight.past(8))
                            every += fight.past(8) <= TAIL
    return tried, threat, shaped, every, best_tail, round(time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,3,4", help="party sizes, comma separated")
    parser.add_argument("--ranks", default=",".join(r.value for r in Rank), help="ranks, comma separated")
    args = parser.parse_args()
    print("ランク    人数  試行  勝率60-90%  +中央値3・PC戦闘不能  +8R超≤0.1%  8R超の最小  CPU秒")
    for rank in (Rank(r) for r in args.ranks.split(",")):
        for size in (int(n) for n in args.sizes.split(",")):
            tried, threat, shaped, every, best_tail, seconds = search(rank, size)
            tail = f"{best_tail:.1%}" if shaped else "—"
            print(f"{rank.value:<6}  {size:>3}  {tried:>5}  {threat:>9}  {shaped:>18}  {every:>10}  {tail:>9}"
                  f"  {seconds:>5}", flush=True)


if __name__ == "__main__":
    main()
