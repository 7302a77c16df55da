"""Balance figures: many helper-proposed fights, played without decisions, per party and kind.

:func:`simulate` plays ``fights`` battles of one おまかせ party (every member the same
rank) against :func:`~gm_engine.combat.enemies.propose_encounter`'s enemies for one kind
of fight, with no spells, no situational bonuses and the default targets; seeds are
``seed``, ``seed + 1``, …, so the figures are the same on every run. :func:`balance_table`
does that for every rank and party size, and :data:`TARGETS` are the aims of §11.1 as
issue 14 states them (:meth:`Targets.check` says which a cell misses).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from gm_engine.combat.actions import Action, EndBattle, Judge, Narrate, NextRound, RollDice
from gm_engine.combat.battle import Battle
from gm_engine.combat.characters import Character, Status, create_auto
from gm_engine.combat.enemies import AIMS, Encounter, EncounterKind, propose_encounter
from gm_engine.combat.options import DEFAULT_OPTIONS, CombatOptions
from gm_engine.combat.ranks import Rank
from gm_engine.combat.state import Outcome, Phase

#: A fight still going after this many rounds is stopped and counted as not won.
ROUND_LIMIT = 30


@dataclass(frozen=True)
class CellResult:
    """The figures of one party against one kind of fight (``rounds``: each fight's length)."""

    rank: Rank
    size: int
    kind: EncounterKind
    fights: int
    wins: int
    median_rounds: float
    max_rounds: int
    fights_with_pc_down: int
    deaths: int
    rounds: tuple[int, ...] = ()

    @property
    def win_rate(self) -> float:
        """Fights the PC side won, as a fraction."""
        return self.wins / self.fights

    @property
    def down_rate(self) -> float:
        """Fights in which at least one PC went down (or died), as a fraction."""
        return self.fights_with_pc_down / self.fights


@dataclass(frozen=True)
class Targets:
    """What a kind of fight should look like (§11.1: 雑魚戦 2 rounds, ボス戦 3)."""

    min_win: float
    max_win: float
    median_low: float
    median_high: float
    max_rounds: int
    needs_pc_down: bool

    def check(self, cell: CellResult) -> list[str]:
        """The targets ``cell`` misses (empty when it meets them all)."""
        misses = []
        if not self.min_win <= cell.win_rate <= self.max_win:
            misses.append(f"勝率 {cell.win_rate:.0%} (目標 {self.min_win:.0%}–{self.max_win:.0%})")
        if not self.median_low <= cell.median_rounds <= self.median_high:
            misses.append(f"中央値 {cell.median_rounds:g} (目標 {self.median_low:g}–{self.median_high:g})")
        if cell.max_rounds > self.max_rounds:
            misses.append(f"最長 {cell.max_rounds} (目標 ≤ {self.max_rounds})")
        if self.needs_pc_down and cell.fights_with_pc_down == 0:
            misses.append("PCが倒れる戦闘がない")
        return misses


    def text(self) -> str:
        """The targets in one line, as the table's header states them."""
        win = f"勝率 {self.min_win:.0%}–{self.max_win:.0%}"
        if self.max_win >= 1.0:
            win = f"勝率 ≥ {self.min_win:.0%}"
        median = (
            f"中央値 {self.median_low:g}" if self.median_low == self.median_high
            else f"中央値 ≤ {self.median_high:g}" if self.median_low <= 1 else
            f"中央値 {self.median_low:g}–{self.median_high:g}"
        )
        down = "、PC戦闘不能あり" if self.needs_pc_down else ""
        return f"{win}、{median}、最長 ≤ {self.max_rounds}{down}"


#: The helper's aims (:data:`~gm_engine.combat.enemies.AIMS`) as the table checks them.
TARGETS: dict[EncounterKind, Targets] = {
    kind: Targets(a.min_win, a.max_win, a.median_low, a.median_high, a.max_rounds, a.needs_pc_down)
    for kind, a in AIMS.items()
}


def auto_party(rank: Rank | str, size: int) -> tuple[Character, ...]:
    """``size`` おまかせ characters of ``rank``, called PC1, PC2, …"""
    return tuple(create_auto(f"PC{i + 1}", rank) for i in range(size))


def advance(battle: Battle) -> Action:
    """The action that moves a battle to its next pause, with no decision taken."""
    steps: dict[Phase, Action] = {Phase.SETUP: RollDice(), Phase.ROLL: Judge(), Phase.JUDGE: Narrate()}
    return steps.get(battle.phase) or (EndBattle() if battle.outcome else NextRound())


def play_out(party: Sequence[Character], encounter: Encounter, seed: int, options: CombatOptions) -> Battle:
    """One battle from start to end (or :data:`ROUND_LIMIT`) with no decision taken."""
    battle = Battle.start(party, encounter, seed=seed, options=options)
    while not battle.is_over and battle.round_number <= ROUND_LIMIT:
        battle.apply(advance(battle))
    return battle


def simulate(
    rank: Rank | str,
    size: int,
    kind: EncounterKind | str,
    *,
    fights: int = 200,
    seed: int = 0,
    options: CombatOptions = DEFAULT_OPTIONS,
) -> CellResult:
    """Play ``fights`` battles of a party of ``size`` おまかせ ``rank`` PCs against the
    helper's encounter of ``kind`` (seeds ``seed`` … ``seed + fights − 1``).

    Raises:
        InvalidCharacterError: a bad rank, size or kind.
    """
    party = auto_party(rank, size)
    fight = EncounterKind(kind)
    encounter = propose_encounter(party, fight, options=options).encounter
    rounds: list[int] = []
    wins = downs = deaths = 0
    for n in range(fights):
        battle = play_out(party, encounter, seed + n, options)
        wins += battle.outcome is Outcome.PC_VICTORY
        rounds.append(battle.round_number)
        fallen = [c for c in battle.party if not c.standing]
        downs += bool(fallen)
        deaths += sum(c.status is Status.DEAD for c in fallen)
    return CellResult(
        rank=party[0].rank, size=size, kind=fight, fights=fights, wins=wins,
        median_rounds=statistics.median(rounds), max_rounds=max(rounds),
        fights_with_pc_down=downs, deaths=deaths, rounds=tuple(rounds),
    )


def balance_table(
    sizes: Sequence[int] = (1, 2, 3, 4),
    *,
    kinds: Sequence[EncounterKind] = tuple(EncounterKind),
    ranks: Sequence[Rank] = tuple(Rank),
    fights: int = 200,
    seed: int = 0,
    options: CombatOptions = DEFAULT_OPTIONS,
) -> list[CellResult]:
    """:func:`simulate` for every kind, rank and party size."""
    return [
        simulate(rank, size, kind, fights=fights, seed=seed, options=options)
        for kind in kinds
        for rank in ranks
        for size in sizes
    ]


def format_table(cells: Sequence[CellResult]) -> str:
    """The table ``gm combat simulate`` prints: the targets of each kind, then one line
    per cell marked ok or ✗ with the targets it misses, then how many cells pass."""
    kinds = list(dict.fromkeys(c.kind for c in cells))
    lines = [f"目標 {kind.value}: {TARGETS[kind].text()}" for kind in kinds]
    lines.append("種別        ランク    人数  勝率    中央値  最長  PC戦闘不能  死亡/戦  目標")
    for c in cells:
        misses = TARGETS[c.kind].check(c)
        lines.append(
            f"{c.kind.value:<8}  {c.rank.value:<6}  {c.size:>3}  {c.win_rate:6.1%}  {c.median_rounds:>5g}"
            f"  {c.max_rounds:>4}  {c.down_rate:9.1%}  {c.deaths / c.fights:7.2f}  "
            + ("ok" if not misses else "✗ " + "; ".join(misses))
        )
    passed = sum(not TARGETS[c.kind].check(c) for c in cells)
    lines.append(f"目標を満たすセル: {passed} / {len(cells)}")
    long_cells = [c for c in cells if c.rounds and c.max_rounds > TARGETS[c.kind].max_rounds]
    if long_cells:
        lines.append("ラウンド数の分布（最長の目標を超える戦闘があるセル; ラウンド:戦闘数）")
        lines.extend(rounds_distribution(c) for c in long_cells)
    return "\n".join(lines)


def rounds_distribution(cell: CellResult) -> str:
    """One line: how many of ``cell``'s fights ended in each round up to its kind's
    longest target, then how many ran past it (and their share)."""
    limit = TARGETS[cell.kind].max_rounds
    counts = [sum(r == n for r in cell.rounds) for n in range(1, limit + 1)]
    longer = sum(r > limit for r in cell.rounds)
    within = " ".join(f"{n}:{k}" for n, k in enumerate(counts, start=1))
    return (
        f"{cell.kind.value} {cell.rank.value}×{cell.size}: {within} | {limit + 1}+:{longer}"
        f"（{longer / len(cell.rounds):.1%}、最長 {cell.max_rounds}）"
    )
