"""A store's writer thread: what callers queue is run in batches (one commit each), and
nothing queued is ever left waiting when the store closes.

The close protocol, which both table stores rely on: :meth:`BatchWriter.close` marks the
writer closed *before* it queues the stop mark, so an item a caller queued after its own
"is it open?" test, but behind the mark, sees the mark in :meth:`BatchWriter.put` and is
refused once the thread is gone, instead of waiting for a writer that stopped.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

_Item = TypeVar("_Item")

#: The most items one batch (one commit) takes.
MAX_BATCH = 256


class BatchWriter(Generic[_Item]):
    """One thread that takes every item waiting (up to :data:`MAX_BATCH`) and hands them to
    ``run_batch`` together; ``refuse(item)`` tells the caller of an item that arrived after
    the writer stopped (it must not raise)."""

    def __init__(
        self, name: str, run_batch: Callable[[list[_Item]], None], refuse: Callable[[_Item], None]
    ) -> None:
        self._run_batch = run_batch
        self._refuse = refuse
        self._items: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (the writer takes nothing new then)."""
        return self._closed

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def put(self, item: _Item) -> None:
        """Queue ``item`` (its caller found the writer open): it is then run in a batch, or
        refused, whenever :meth:`close` ran meanwhile; never left waiting."""
        self._items.put(item)
        if self._closed:  # close() may have queued the stop mark ahead of this item
            if threading.current_thread() is not self._thread:
                self._thread.join()
            self._refuse_left_over()

    def close(self) -> None:
        """Run what was queued before, stop the thread and refuse anything left."""
        self._closed = True  # before the stop mark: see put()
        self._items.put(None)
        self._thread.join()
        self._refuse_left_over()

    def _refuse_left_over(self) -> None:
        while True:
            try:
                item = self._items.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                self._refuse(item)

    def _loop(self) -> None:
        while True:
            first = self._items.get()
            if first is None:
                self._refuse_left_over()
                return
            batch = [first]
            stopping = False
            while len(batch) < MAX_BATCH:
                try:
                    waiting = self._items.get_nowait()
                except queue.Empty:
                    break
                if waiting is None:
                    stopping = True
                    break
                batch.append(waiting)
            self._run_batch(batch)
            if stopping:  # a callback of the batch may have queued an item behind the mark
                self._refuse_left_over()
                return
