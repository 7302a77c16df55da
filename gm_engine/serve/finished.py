"""A finished table's last screen, rebuilt from its store by any ``gm serve`` process.

The process that drove a table to its end keeps its final screen only in memory, and only
while it lives. Any other process (or the same one started again) rebuilds it from the
store: the table's lines are its transcript, whose end line reveals the seed and the key of
its sealed lines, so the session is re-run against the recorded model answers and the
recorded answers of P1 (the replay ``gm replay`` does, every event checked against the
recording), with what the session shows and hands the seat collected by a
:class:`~gm_engine.serve.tables.LiveTable`, as when it was played: the whole record in the
rules' formats (【ゲーム終了】 and the final role list included), the last panel, the
outcome as the end message (the one figure that differs is the latency in the model-usage
report an adventure shows at its end: the rebuild measures its own). After the end nothing
is hidden any more, so every seat of the table gets that screen.

A rebuilt screen is kept (the :data:`KEPT` most recently asked for): a finished table
never changes. A table whose lines no longer replay with this version of the engine gets a
screen that says so; its transcript can still be downloaded.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from gm_engine.messages import render
from gm_engine.messages.texts import AsksOnceMore, PageUnreplayable
from gm_engine.safe_text import printable
from gm_engine.serve.store import StoreError, TableRow, TableStore
from gm_engine.serve.tables import LiveTable, parse_config
from gm_engine.sessions.base import HumanDefaults, SessionIO
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import TranscriptError, TranscriptStream
from gm_engine.transcripts.replay import (
    CheckingSink,
    Divergence,
    DivergenceLog,
    EventFeed,
    ReplayBackend,
    ReplayHuman,
    ReplayMismatch,
)

__all__ = ["KEPT", "FinishedTables", "end_summary", "rebuild_screen"]

#: How many rebuilt screens a process keeps.
KEPT = 64
#: How many summaries of finished tables a process keeps for the lobby.
KEPT_SUMMARIES = 4096

#: How the screen of a Japanese table whose lines no longer replay begins (the table's
#: language says it: :class:`~gm_engine.messages.texts.PageUnreplayable`).
UNREPLAYABLE = render(PageUnreplayable(""), "ja")


def _is_end_line(line: str) -> bool:
    return line.startswith('{"type":"end"')


def end_summary(lines: Sequence[str]) -> str | None:
    """The outcome a finished table's end line records (None: the lines hold no end)."""
    if not lines or not _is_end_line(lines[-1]):
        return None
    try:
        end = json.loads(lines[-1])
    except ValueError:
        return None
    summary = end.get("summary") if isinstance(end, dict) else None
    return printable(summary, newlines=False) if isinstance(summary, str) else None


class _Watcher(HumanDefaults):
    """P1 during the rebuild: it sees what the session shows the seat (the panel is built
    from it); every question has its recorded answer, so it is never asked one."""

    def __init__(self, table: LiveTable) -> None:
        self.table = table
        self.recorded: ReplayHuman | None = None  # the recorded answers, whose count a mismatch names

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Never called for a complete recording: the session asks once more than recorded."""
        given = self.recorded.given if self.recorded is not None else 0
        asked = AsksOnceMore(given=given, prompt=repr(prompt))
        raise ReplayMismatch(Divergence(asked, event_type="human_input"))

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """Keep the panel, as the web's P1 does."""
        self.table.observed(observation, legal)


def rebuild_screen(row: TableRow, lines: Sequence[str]) -> LiveTable:
    """The final screen of the finished table ``row`` whose transcript lines are ``lines``
    (the end line last), as a finished :class:`LiveTable` (it asks nothing, takes nothing).

    A recording that does not replay gives a screen that says so (:data:`UNREPLAYABLE`)."""
    table = LiveTable(row, parse_config(json.loads(row.config_json)), 0)
    summary = end_summary(lines)
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    try:
        with TranscriptStream(Path(f"table-{row.table_id}.jsonl"), data=data) as stream:
            seed = stream.revealed_seed
            if seed is None:
                raise TranscriptError("the lines hold no end line")
            spec = stream.header.spec(seed)
            log = DivergenceLog()
            feed = EventFeed(stream)
            backend = ReplayBackend(feed, log=log)
            watcher = _Watcher(table)
            human = watcher.recorded = ReplayHuman(feed, fallback=watcher, log=log)
            sink = CheckingSink(feed, log=log)
            table.started()
            io = SessionIO(backend=backend, human=human, sink=sink, show=table.show)
            outcome = get_runner(spec.kind)(spec, io)
            if feed.error is not None:
                raise feed.error
            problem = log.first or (None if sink.exhausted else sink.missing())
            if problem is not None:
                raise TranscriptError(str(problem))
            feed.drain()
            stream.require_end()  # the end line and the signature over the lines are checked
            summary = outcome.summary
    except (TranscriptError, ValueError) as exc:  # a replay mismatch is a TranscriptError too
        fresh = LiveTable(row, table.config, 0)
        fresh.ended("finished", PageUnreplayable(str(exc).splitlines()[0][:300]))
        return fresh
    table.ended("finished", summary or "")
    return table


class FinishedTables:
    """The finished tables' screens and summaries of one process, rebuilt from ``store``
    when first asked for (safe to call from any thread; one rebuild per table at a time)."""

    def __init__(self, store: TableStore, kept: int = KEPT) -> None:
        self.store = store
        self.kept = kept
        self._screens: OrderedDict[str, LiveTable] = OrderedDict()
        self._summaries: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}

    def screen(self, row: TableRow) -> LiveTable:
        """The final screen of the finished table ``row`` (rebuilt on the first call).

        Raises:
            StoreError: the store has no such table.
        """
        table_id = row.table_id
        with self._lock:
            cached = self._screens.get(table_id)
            if cached is not None:
                self._screens.move_to_end(table_id)
                return cached
            building = self._building.setdefault(table_id, threading.Lock())
        with building:  # a second request waits for the first one's rebuild
            with self._lock:
                cached = self._screens.get(table_id)
            if cached is not None:
                return cached
            lines = self.store.read_lines(table_id)
            table = rebuild_screen(row, lines)
            with self._lock:
                self._screens[table_id] = table
                while len(self._screens) > self.kept:
                    self._screens.popitem(last=False)
                self._building.pop(table_id, None)
                self._remember(table_id, end_summary(lines) or "")
            return table

    def summary(self, table_id: str) -> str:
        """The outcome of the finished table, as its end line records it ("" when unknown)."""
        with self._lock:
            known = self._summaries.get(table_id)
        if known is not None:
            return known
        try:
            summary = end_summary(self.store.read_lines(table_id)) or ""
        except StoreError:
            return ""
        with self._lock:
            self._remember(table_id, summary)
        return summary

    def _remember(self, table_id: str, summary: str) -> None:
        self._summaries[table_id] = summary
        while len(self._summaries) > KEPT_SUMMARIES:
            self._summaries.popitem(last=False)
