"""A ledger of model calls: tokens and latency per call, per day, per actor and per game.

Tokens are the server's count when it reports one (``counted_by="server"``), or the backend's
own estimate when it made one (``"backend"``: the offline model's, recorded in transcripts as it
is). A call that carries no usage at all is estimated by the ledger from the characters sent
and received, by character class (``"estimate"``): Japanese text
(kana, kanji, full-width forms) at :data:`JAPANESE_CHARS_PER_TOKEN`, everything else at
:data:`OTHER_CHARS_PER_TOKEN`. Both ratios were measured with a real tokenizer, SmolLM2-135M-
Instruct's (the one the llama.cpp server of the tests runs), on the messages and tools of a
whole game: Japanese is about 1.8 tokens a character there, so the old flat "four characters a
token" counted Japanese prompts about seven times too low. A tokenizer trained on more Japanese
(Qwen's, Llama 3's) spends fewer tokens on it: for such a model the estimate is high, never low.
``tests/test_llama_server.py`` measures both ratios again against the server's tokenizer.

Wrap any backend in :class:`MeteredBackend` to record every call it answers; a session prints
:meth:`Ledger.summary` at its end and may put :meth:`Ledger.figures` into its outcome. A ledger
may also count the turns a fallback played, by cause, and the turn runner's recoveries, by
kind (:meth:`Ledger.note_fallback`, :meth:`Ledger.note_recovery`: whoever reads the session's
events notes them; the ledger knows no events).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from gm_engine.llm.base import ModelBackend, ModelRequest, ModelResponse, Usage

K = TypeVar("K")

#: Characters per token of Japanese text (kana, kanji, CJK punctuation, full-width forms),
#: measured with SmolLM2-135M-Instruct's tokenizer on a whole game's prompts: 28,154
#: characters, 50,540 tokens.
JAPANESE_CHARS_PER_TOKEN = 0.557

#: Characters per token of all other text in a request (JSON keys and punctuation, seat
#: labels, ASCII), measured the same way: 21,153 characters, 10,442 tokens.
OTHER_CHARS_PER_TOKEN = 2.03

#: What the ledger's estimate counts as Japanese text.
JAPANESE_TEXT = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")

#: Who counted a call's tokens: the server (its reported usage), the backend (its own
#: estimate: the offline model's and the scripted backend's, recorded in transcripts as they
#: are), or the ledger (:func:`estimate_call_usage`, for a call that carries no usage).
CountedBy = Literal["server", "backend", "estimate"]


def estimate_text_tokens(text: str) -> int:
    """The tokens ``text`` is estimated to take: its Japanese characters at
    :data:`JAPANESE_CHARS_PER_TOKEN`, the rest at :data:`OTHER_CHARS_PER_TOKEN` (rounded up)."""
    japanese = len(JAPANESE_TEXT.findall(text))
    other = len(text) - japanese
    return int(-(-(japanese / JAPANESE_CHARS_PER_TOKEN + other / OTHER_CHARS_PER_TOKEN) // 1))


def estimate_call_usage(request: ModelRequest, response: ModelResponse) -> Usage:
    """The estimated usage of one call: the messages and tools as sent, the answer as received."""
    sent = json.dumps(list(request.messages), ensure_ascii=False) + json.dumps(
        [t.model_dump() for t in request.tools], ensure_ascii=False
    )
    received = (response.content or "") + "".join(c.name + c.arguments for c in response.tool_calls)
    return Usage(
        prompt_tokens=estimate_text_tokens(sent),
        completion_tokens=estimate_text_tokens(received),
        estimated=True,
    )


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
    cached_tokens: int = 0
    """The prompt tokens the server served from its prefix cache (as it reported them)."""
    counted_by: CountedBy = "server"
    """Who counted the tokens (:data:`CountedBy`)."""


_COUNTED_BY: dict[CountedBy, str] = {
    "server": "the server",
    "backend": "the backend's own estimate",
    "estimate": (
        f"the ledger's estimate ({JAPANESE_CHARS_PER_TOKEN} Japanese / {OTHER_CHARS_PER_TOKEN} other "
        "characters a token, measured with SmolLM2's tokenizer)"
    ),
}


class LedgerTotals(BaseModel):
    """Totals over a group of calls."""

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_calls: int = 0
    latency_s: float = 0.0
    cached_tokens: int = 0
    """Prompt tokens the server served from its prefix cache."""

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cache_share(self) -> float:
        """The share of prompt tokens served from the server's prefix cache (0 when none
        was reported)."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @classmethod
    def of(cls, entries: Iterable[LedgerEntry]) -> LedgerTotals:
        """The totals of ``entries``."""
        calls = prompt = completion = estimated = cached = 0
        latency = 0.0
        for e in entries:
            calls += 1
            prompt += e.prompt_tokens
            cached += e.cached_tokens
            completion += e.completion_tokens
            estimated += int(e.estimated)
            latency += e.latency_s
        return cls(
            calls=calls,
            prompt_tokens=prompt,
            completion_tokens=completion,
            estimated_calls=estimated,
            latency_s=latency,
            cached_tokens=cached,
        )


class Ledger:
    """Records model calls; ``game`` names the session the calls belong to; with
    ``count_fallbacks`` its summary says how many turns a fallback played (none included)."""

    def __init__(self, game: str = "", *, count_fallbacks: bool = False) -> None:
        self.game = game
        self.entries: list[LedgerEntry] = []
        self.fallbacks: dict[str, int] | None = {} if count_fallbacks else None
        """The turns a fallback played, by cause (None: not counted for this ledger)."""
        self.recoveries: dict[str, int] = {}
        """The turn runner's recoveries, by kind (``reask``, ``calls_in_text``)."""

    def note_fallback(self, cause: str) -> None:
        """Count one turn a fallback played, for ``cause``."""
        counts = self.fallbacks if self.fallbacks is not None else {}
        counts[cause] = counts.get(cause, 0) + 1
        self.fallbacks = counts

    def note_recovery(self, kind: str) -> None:
        """Count one recovery of the turn runner, of ``kind``."""
        self.recoveries[kind] = self.recoveries.get(kind, 0) + 1

    def record(
        self, request: ModelRequest, response: ModelResponse, *, latency_s: float | None = None
    ) -> None:
        """Record one call: its usage as the backend passed it on (the server's count, or the
        backend's own estimate), or the ledger's estimate when it carries none."""
        usage = response.usage or estimate_call_usage(request, response)
        if response.usage is None:
            counted_by: CountedBy = "estimate"
        else:
            counted_by = "backend" if response.usage.estimated else "server"
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
                cached_tokens=usage.cached_tokens,
                counted_by=counted_by,
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

    def counting(self) -> str:
        """Who counted the tokens, in words, with how many calls each where there are several."""
        counts = {kind: sum(1 for e in self.entries if e.counted_by == kind) for kind in _COUNTED_BY}
        present = [(kind, n) for kind, n in counts.items() if n]
        if not present:
            return "nobody (no calls)"
        if len(present) == 1:
            return _COUNTED_BY[present[0][0]]
        return ", ".join(f"{_COUNTED_BY[kind]} ({n} call{'s' if n > 1 else ''})" for kind, n in present)

    def summary(self) -> str:
        """A few printable lines: the totals, then per day and per game when there are several."""

        def line(label: str, t: LedgerTotals) -> str:
            est = f", {t.estimated_calls} estimated" if t.estimated_calls else ""
            cache = ""
            if t.cached_tokens:
                cache = f" ({t.cached_tokens} from the server's cache, {t.cache_share:.0%})"
            mean = t.latency_s / t.calls if t.calls else 0.0
            return (
                f"{label}: {t.calls} calls, {t.prompt_tokens} prompt{cache} + {t.completion_tokens} "
                f"completion tokens{est}, latency {t.latency_s:.2f} s (mean {mean:.3f} s)"
            )

        lines = [line("model calls" + (f" ({self.game})" if self.game else ""), self.totals())]
        lines.append("  tokens counted by " + self.counting())
        days = self.by_day()
        if len(days) > 1:
            lines.extend(line(f"  day {day}", t) for day, t in sorted(days.items()))
        games = self.by_game()
        if len(games) > 1:
            lines.extend(line(f"  game {game}", t) for game, t in sorted(games.items()))
        if self.fallbacks is not None:
            causes = ", ".join(f"{cause} {n}" for cause, n in sorted(self.fallbacks.items()))
            lines.append(f"  fallbacks: {sum(self.fallbacks.values())}" + (f" ({causes})" if causes else ""))
        if self.recoveries:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.recoveries.items()))
            lines.append(f"  recoveries: {kinds}")
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
