"""Where a werewolf session's events go on their way to the session's sink: a concurrent
turn's buffer (its events are emitted in seat order once the round is in), and the
counting sink that totals model calls and prompt tokens per day.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from gm_engine.events import (
    EventSink,
    FallbackEvent,
    ModelRequestEvent,
    ModelResponseEvent,
    SessionEvent,
)


class BufferSink:
    """Keeps a concurrent turn's events until they can be emitted in seat order."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []

    def emit(self, event: SessionEvent) -> None:
        """Keep the event."""
        self.events.append(event)

    def flush(self, sink: EventSink) -> None:
        """Pass every kept event on, in order, and forget them."""
        for event in self.events:
            sink.emit(event)
        self.events.clear()


@dataclass
class SessionFigures:
    """What a game cost: model calls and prompt sizes per day, and the wall time of each day."""

    calls_by_day: dict[int, int] = field(default_factory=dict)
    prompt_tokens_by_day: dict[int, list[int]] = field(default_factory=dict)
    day_started: dict[int, float] = field(default_factory=dict)
    day_seconds: dict[int, float] = field(default_factory=dict)
    fallbacks: int = 0


class CountingSink:
    """Counts model calls and prompt tokens per day on the way to the real sink.

    The human's answers are emitted from a worker thread during concurrent rounds, hence
    the lock."""

    def __init__(self, sink: EventSink, figures: SessionFigures) -> None:
        self.sink = sink
        self.figures = figures
        self._day = 0
        self._lock = threading.Lock()

    def emit(self, event: SessionEvent) -> None:
        """Count the event and pass it on."""
        with self._lock:
            self._count(event)
            self.sink.emit(event)

    def _count(self, event: SessionEvent) -> None:
        if isinstance(event, ModelRequestEvent):
            self._day = event.day
            self.figures.calls_by_day[self._day] = self.figures.calls_by_day.get(self._day, 0) + 1
        elif isinstance(event, ModelResponseEvent):
            if event.usage is not None:
                self.figures.prompt_tokens_by_day.setdefault(self._day, []).append(event.usage.prompt_tokens)
        elif isinstance(event, FallbackEvent):
            self.figures.fallbacks += 1
