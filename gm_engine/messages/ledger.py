"""The model-call totals a session shows at its end (:class:`~gm_engine.llm.ledger.Ledger`),
in the player's language. The ledger's own :meth:`~gm_engine.llm.ledger.Ledger.summary`
stays English, for logs and the benchmarks; this is what the player reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gm_engine.llm.ledger import (
    JAPANESE_CHARS_PER_TOKEN,
    OTHER_CHARS_PER_TOKEN,
    CountedBy,
    Ledger,
    LedgerTotals,
)
from gm_engine.messages.catalogue import Message, render
from gm_engine.messages.texts import (
    CauseBrokenJson,
    CauseInvalidArguments,
    CauseNarrationRefused,
    CauseNoAction,
    CauseOther,
    CauseRefusedByRules,
    CauseResponseCap,
    CauseTextOnly,
    CauseUnknownTool,
    CauseUnreadableAnswer,
    CountedByBackend,
    CountedByEstimate,
    CountedByNobody,
    CountedByOneOfSeveral,
    CountedByServer,
    CountedBySeveral,
    LedgerCache,
    LedgerCounted,
    LedgerCountedBy,
    LedgerDayLabel,
    LedgerEstimated,
    LedgerFallbacks,
    LedgerGameLabel,
    LedgerGameTotalLabel,
    LedgerLine,
    LedgerRecoveries,
    LedgerTotalLabel,
    RecoveryCallsInText,
    RecoveryReask,
)

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale

_COUNTERS: dict[CountedBy, Message] = {
    "server": CountedByServer(),
    "backend": CountedByBackend(),
    "estimate": CountedByEstimate(str(JAPANESE_CHARS_PER_TOKEN), str(OTHER_CHARS_PER_TOKEN)),
}


#: The words of each fallback cause (:data:`gm_engine.tools.base.FALLBACK_CAUSES`); a cause
#: not here is shown as "other".
_CAUSES: dict[str, Message] = {
    "text_only": CauseTextOnly(),
    "invalid_arguments": CauseInvalidArguments(),
    "broken_json": CauseBrokenJson(),
    "unknown_tool": CauseUnknownTool(),
    "refused_by_rules": CauseRefusedByRules(),
    "unreadable_answer": CauseUnreadableAnswer(),
    "narration_refused": CauseNarrationRefused(),
    "response_cap": CauseResponseCap(),
    "no_action": CauseNoAction(),
    "other": CauseOther(),
}

#: The words of each recovery kind (:class:`gm_engine.events.RecoveryEvent`).
_RECOVERIES: dict[str, Message] = {"reask": RecoveryReask(), "calls_in_text": RecoveryCallsInText()}


def _counted(counts: dict[str, int], words: dict[str, Message], locale: Locale) -> str:
    separator = "、" if locale == "ja" else ", "
    return separator.join(
        render(LedgerCounted(render(words.get(what, CauseOther()), locale), n), locale)
        for what, n in sorted(counts.items())
    )


def _line(label: str, totals: LedgerTotals, locale: Locale) -> str:
    cache = ""
    if totals.cached_tokens:
        cache = render(LedgerCache(totals.cached_tokens, f"{totals.cache_share:.0%}"), locale)
    estimated = render(LedgerEstimated(totals.estimated_calls), locale) if totals.estimated_calls else ""
    mean = totals.latency_s / totals.calls if totals.calls else 0.0
    line = LedgerLine(
        label=label,
        calls=totals.calls,
        prompt=totals.prompt_tokens,
        completion=totals.completion_tokens,
        cache=cache,
        estimated=estimated,
        latency=f"{totals.latency_s:.2f}",
        mean=f"{mean:.3f}",
    )
    return render(line, locale)


def counted_by(ledger: Ledger, locale: Locale) -> str:
    """Who counted the tokens, with how many calls each where there are several."""
    counts = {kind: sum(1 for e in ledger.entries if e.counted_by == kind) for kind in _COUNTERS}
    present = [(kind, n) for kind, n in counts.items() if n]
    if not present:
        return render(CountedByNobody(), locale)
    if len(present) == 1:
        return render(_COUNTERS[present[0][0]], locale)
    separator = "、" if locale == "ja" else ", "
    parts: list[str] = []
    for kind, n in present:
        who = render(_COUNTERS[kind], locale)
        parts.append(render(CountedBySeveral(who, n) if n > 1 else CountedByOneOfSeveral(who), locale))
    return separator.join(parts)


def ledger_summary(ledger: Ledger, locale: Locale) -> str:
    """The totals, who counted the tokens, then per day and per game when there are several;
    the turns a fallback played, by cause, when the ledger counts them, and the recoveries."""
    label = LedgerGameTotalLabel(ledger.game) if ledger.game else LedgerTotalLabel()
    lines = [_line(render(label, locale), ledger.totals(), locale)]
    lines.append(render(LedgerCountedBy(counted_by(ledger, locale)), locale))
    days = ledger.by_day()
    if len(days) > 1:
        lines.extend(_line(render(LedgerDayLabel(day), locale), t, locale) for day, t in sorted(days.items()))
    games = ledger.by_game()
    if len(games) > 1:
        lines.extend(
            _line(render(LedgerGameLabel(game), locale), t, locale) for game, t in sorted(games.items())
        )
    if ledger.fallbacks is not None:
        causes = ""
        if ledger.fallbacks:
            inner = _counted(ledger.fallbacks, _CAUSES, locale)
            causes = f"（{inner}）" if locale == "ja" else f" ({inner})"
        lines.append(render(LedgerFallbacks(sum(ledger.fallbacks.values()), causes), locale))
    if ledger.recoveries:
        lines.append(render(LedgerRecoveries(_counted(ledger.recoveries, _RECOVERIES, locale)), locale))
    return "\n".join(lines)
