"""The ledger of a play command's model calls (``gm werewolf play --backend openai``): the
backend wrapped so that every call is metered, and a sink that notes each fallback (by
cause) and each recovery of the turn runner in the same ledger as the session's events go
by. Neither changes a request, an answer or an event: the personas' prompts and the
transcript are the same with the ledger as without it; the summary is printed by
:func:`gm_engine.cli._play.run_play` after the session, never shown inside it."""

from __future__ import annotations

import threading

from gm_engine.events import FallbackEvent, RecoveryEvent, SessionEvent
from gm_engine.llm.base import ModelBackend
from gm_engine.llm.ledger import Ledger, MeteredBackend
from gm_engine.tools.base import fallback_cause


class LedgerSink:
    """Notes each fallback (by :func:`~gm_engine.tools.base.fallback_cause`) and each
    recovery in ``ledger``; the other events pass unseen. A human's answers are emitted from
    a worker thread during a concurrent round, hence the lock."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._lock = threading.Lock()

    def emit(self, event: SessionEvent) -> None:
        """Note the event if it is a fallback or a recovery."""
        if isinstance(event, FallbackEvent):
            with self._lock:
                self.ledger.note_fallback(fallback_cause(event.reason))
        elif isinstance(event, RecoveryEvent):
            with self._lock:
                self.ledger.note_recovery(event.kind)


def metered(backend: ModelBackend, game: str) -> tuple[MeteredBackend, LedgerSink, Ledger]:
    """``backend`` wrapped in a ledger named ``game`` that counts fallbacks, the sink that
    feeds it the session's fallbacks and recoveries, and the ledger."""
    ledger = Ledger(game, count_fallbacks=True)
    return MeteredBackend(backend, ledger), LedgerSink(ledger), ledger
