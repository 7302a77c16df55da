"""Ranks (§2.2, §5.1, §14.1): what a character's rank gives it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Rank(StrEnum):
    """A character's rank; the value is the document's name."""

    COMMONER = "一般人"
    NOVICE = "駆け出し"
    VETERAN = "熟練"
    HERO = "英雄"


@dataclass(frozen=True)
class RankStats:
    """The numbers a rank gives (§14.1 HP table, §2.2 AP dice, §5.1 slots).

    ``level`` is the §5.1 letter (A 駆け出し, B 熟練, C 英雄; none for 一般人), shown in
    the §14.2 master data. ``heal_dice`` is what 【治癒】 heals a character of this rank.
    """

    ap_dice: int
    max_hp: int
    situational_cap: int
    slots: int
    level: str
    heal_dice: int
    order: int


#: ap_dice, max_hp, situational_cap, slots, level, heal_dice, order
RANK_STATS: dict[Rank, RankStats] = {
    Rank.COMMONER: RankStats(1, 10, 3, 0, "—", 1, 0),
    Rank.NOVICE: RankStats(2, 15, 3, 2, "Aレベル", 2, 1),
    Rank.VETERAN: RankStats(3, 22, 4, 3, "Bレベル", 3, 2),
    Rank.HERO: RankStats(4, 30, 5, 5, "Cレベル", 4, 3),
}

#: Dice of every non-combat check, whatever the rank (§2.2).
CHECK_DICE = 3


def stats(rank: Rank) -> RankStats:
    """The numbers of ``rank``."""
    return RANK_STATS[rank]


def at_least(rank: Rank, minimum: Rank) -> bool:
    """Whether ``rank`` is ``minimum`` or higher."""
    return RANK_STATS[rank].order >= RANK_STATS[minimum].order
