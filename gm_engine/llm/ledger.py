"""A ledger of model calls: tokens and latency per call, per day, per actor and per game.

Tokens are the server's count when it reports one, else an estimate (a quarter of the
characters, marked ``estimated``). Wrap any backend in :class:`MeteredBackend` to
record every call it answers; a session prints :meth:`Ledger.summary` at its end and
may put :meth:`Ledger.figures` into its outcome.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from gm_engine.llm.base import ModelBackend, ModelRequest, ModelResponse, estimate_usage

K = TypeVar("K")


class LedgerEntry(BaseModel):
    """One model call."""

    model_config = ConfigDict(frozen=True)

    game: str
    actor: str
    model: str | None
    day: int
    phase: str
    turn: int
    prompt_tokens: int
    completion_tokens: int
    estimated: bool
    latency_s: float


class LedgerTotals(BaseModel):
    """Totals over a group of calls."""

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_calls: int = 0
    latency_s: float = 0.0

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def of(cls, entries: Iterable[LedgerEntry]) -> LedgerTotals:
        """The totals of ``entries``."""
        calls = prompt = completion = estimated = 0
        latency = 0.0
        for e in entries:
            calls += 1
            prompt += e.prompt_tokens
            completion += e.completion_tokens
            estimated += int(e.estimated)
            latency += e.latency_s
        return cls(
            calls=calls,
            prompt_tokens=prompt,
            completion_tokens=completion,
            estimated_calls=estimated,
            latency_s=latency,
        )


class Ledger:
    """Records model calls; ``game`` names the session the calls belong to."""

    def __init__(self, game: str = "") -> None:
        self.game = game
        self.entries: list[LedgerEntry] = []

    def record(
        self, request: ModelRequest, response: ModelResponse, *, latency_s: float | None = None
    ) -> None:
        """Record one call (usage estimated when the response has none)."""
        usage = response.usage or estimate_usage(request, response.content, response.tool_calls)
        self.entries.append(
            LedgerEntry(
                game=self.game,
                actor=request.actor,
                model=request.model,
                day=request.day,
                phase=request.phase,
                turn=request.turn,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                estimated=usage.estimated,
                latency_s=response.latency_s if latency_s is None else latency_s,
            )
        )

    def totals(self) -> LedgerTotals:
        """Totals over every call."""
        return LedgerTotals.of(self.entries)

    def _group(self, key: Callable[[LedgerEntry], K]) -> dict[K, LedgerTotals]:
        groups: dict[K, list[LedgerEntry]] = {}
        for entry in self.entries:
            groups.setdefault(key(entry), []).append(entry)
        return {k: LedgerTotals.of(v) for k, v in groups.items()}

    def by_day(self) -> dict[int, LedgerTotals]:
        """Totals per game day."""
        return self._group(lambda e: e.day)

    def by_actor(self) -> dict[str, LedgerTotals]:
        """Totals per actor."""
        return self._group(lambda e: e.actor)

    def by_game(self) -> dict[str, LedgerTotals]:
        """Totals per game (several ledgers' entries may be merged with :meth:`extend`)."""
        return self._group(lambda e: e.game)

    def extend(self, other: Ledger) -> None:
        """Add another ledger's entries (e.g. to total several games)."""
        self.entries.extend(other.entries)

    def figures(self) -> dict[str, float]:
        """The totals as flat figures for a session's outcome."""
        t = self.totals()
        return {
            "model_calls": float(t.calls),
            "prompt_tokens": float(t.prompt_tokens),
            "completion_tokens": float(t.completion_tokens),
            "estimated_calls": float(t.estimated_calls),
            "model_latency_s": round(t.latency_s, 3),
        }

    def summary(self) -> str:
        """A few printable lines: the totals, then per day and per game when there are several."""

        def line(label: str, t: LedgerTotals) -> str:
            est = f", {t.estimated_calls} estimated" if t.estimated_calls else ""
            mean = t.latency_s / t.calls if t.calls else 0.0
            return (
                f"{label}: {t.calls} calls, {t.prompt_tokens} prompt + {t.completion_tokens} completion "
                f"tokens{est}, latency {t.latency_s:.2f} s (mean {mean:.3f} s)"
            )

        lines = [line("model calls" + (f" ({self.game})" if self.game else ""), self.totals())]
        days = self.by_day()
        if len(days) > 1:
            lines.extend(line(f"  day {day}", t) for day, t in sorted(days.items()))
        games = self.by_game()
        if len(games) > 1:
            lines.extend(line(f"  game {game}", t) for game, t in sorted(games.items()))
        return "\n".join(lines)


class MeteredBackend:
    """A backend that records every call of the backend it wraps in a ledger."""

    def __init__(self, backend: ModelBackend, ledger: Ledger) -> None:
        self.backend = backend
        self.ledger = ledger
        self.name = backend.name
        self.keeps_state = backend.keeps_state

    def prepare(self) -> None:
        """Let the wrapped backend set itself up now."""
        self.backend.prepare()

    async def aclose(self) -> None:
        """Close the wrapped backend."""
        await self.backend.aclose()

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Answer through the wrapped backend and record the call."""
        started = time.perf_counter()
        response = await self.backend.complete(request, context)
        elapsed = time.perf_counter() - started
        self.ledger.record(request, response, latency_s=response.latency_s or elapsed)
        return response
