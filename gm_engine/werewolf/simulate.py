"""Full games between offline agents: win rates, game length and speed.

Game ``i`` of a run with seed ``S`` draws every die (the deal, P1's role choice and every
agent decision) from ``SeededSource(f"{S}:{i}")``, so a run is reproducible game by game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf.actions import Action
from gm_engine.werewolf.agents import offline_agents
from gm_engine.werewolf.game import Game
from gm_engine.werewolf.options import WerewolfOptions
from gm_engine.werewolf.records import Team
from gm_engine.werewolf.views import observe

MAX_ACTIONS = 20_000
"""A guard against agents that could replay the same day for ever (the rules have no day limit)."""


class LazyLegal(Sequence[Action]):
    """``game.legal_actions(seat)`` now, enumerated only if the agent looks (most turns it need not).

    It always reads the game's current legal actions (the game caches them until its state
    changes), so one per seat serves a whole game.
    """

    __slots__ = ("_game", "_seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self._seat = seat

    def _get(self) -> Sequence[Action]:
        return self._game.legal_tuple(self._seat)

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[Action]:
        return iter(self._get())

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        return self._get()[index]


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One finished game."""

    winner: Team
    days: int
    actions: int
    state_hash: str | None


@dataclass(slots=True)
class SimulationReport:
    """The figures of a run."""

    games: int = 0
    wins: dict[str, int] = field(default_factory=lambda: {team.value: 0 for team in Team})
    total_days: int = 0
    total_actions: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def average_days(self) -> float:
        """Mean day on which the games ended."""
        return self.total_days / self.games if self.games else 0.0

    @property
    def games_per_second(self) -> float:
        """Throughput of the run, by the wall clock."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def games_per_cpu_second(self) -> float:
        """Throughput per second of this process's CPU time: one core's speed, whatever else runs."""
        return self.games / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        """The report as one JSON object."""
        return {
            "games": self.games,
            "wins": dict(self.wins),
            "win_rates": {k: (v / self.games if self.games else 0.0) for k, v in self.wins.items()},
            "average_days": round(self.average_days, 4),
            "average_actions": round(self.total_actions / self.games, 2) if self.games else 0.0,
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "games_per_second": round(self.games_per_second, 1),
            "games_per_cpu_second": round(self.games_per_cpu_second, 1),
        }


def play_offline_game(
    seed: str,
    options: WerewolfOptions | None = None,
    with_hash: bool = False,
    deal: Sequence[int] | None = None,
    talk: bool = False,
) -> GameSummary:
    """Play one game with an offline agent on every seat (P1 included).

    ``deal`` fixes the roles (P1's first); otherwise P1's agent chooses and the source deals.
    ``talk``: let the agents compose their free talk (off by default: nobody reads it here, and
    it changes no choice and no die).
    """
    source = SeededSource(seed)
    game = Game.new(source, options) if deal is None else Game.from_deal(deal, options, source=source)
    agents = offline_agents(source, talk=talk)
    actions = 0
    # bound methods looked up once: this loop runs about 140 times a game
    to_act, apply, advance = game.to_act, game.apply, game.advance
    choosers = {seat: agent.choose for seat, agent in agents.items()}
    legal = {seat: LazyLegal(game, seat) for seat in agents}
    while True:
        if actions > MAX_ACTIONS:
            raise RuntimeError(f"game {seed!r} did not end within {MAX_ACTIONS} actions")
        seats = to_act()
        if not seats:
            if game.is_over:
                break
            advance()
            continue
        for seat in seats:
            apply(choosers[seat](observe(game, seat), legal[seat]))
        actions += len(seats)
    outcome = game.outcome()
    assert outcome is not None
    return GameSummary(outcome.winner, outcome.day, actions, game.state_hash() if with_hash else None)


def simulate(
    games: int,
    seed: int | str,
    options: WerewolfOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    progress_every: int = 1000,
    deal: Sequence[int] | None = None,
) -> SimulationReport:
    """Play ``games`` offline games; ``progress(done, total)`` is called every ``progress_every``."""
    report = SimulationReport()
    start = time.perf_counter()
    cpu_start = time.process_time()
    for index in range(games):
        summary = play_offline_game(f"{seed}:{index}", options, deal=deal)
        report.games += 1
        report.wins[summary.winner.value] += 1
        report.total_days += summary.days
        report.total_actions += summary.actions
        if progress is not None and (index + 1) % progress_every == 0:
            report.seconds = time.perf_counter() - start
            report.cpu_seconds = time.process_time() - cpu_start
            progress(index + 1, games)
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu_start
    return report
