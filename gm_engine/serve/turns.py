"""Whose turn it is to use the processor: the tables of one ``gm serve`` process share a few
run slots, and a table whose player just answered goes first.

Every table is driven on its own thread (its session is blocking code), but a hundred
threads all wanting Python's interpreter lock at once make each of them wait for the
others: a player's answer was taken only once its table's thread had waited its turn
behind every busy table (seconds, at a hundred tables). Here a table's threads run only
while the table holds one of :attr:`TurnTaker.slots` slots; they ask for it again at
every step of the session (a line shown, an event recorded, a model call) through
:meth:`TurnTaker.checkpoint`, and hand it over there to a waiting table once they have run
for :attr:`TurnTaker.slice_seconds`, or at once to a table whose player has answered
(:meth:`TurnTaker.hurry`): that one waits at most for the step another table is in.

A table gives its slot up while it waits for something other than the processor: its
player (:meth:`TurnTaker.pause`, until :meth:`TurnTaker.hurry`), the disk or the database
(:meth:`TurnTaker.release` before a commit), a model server. Only the timing changes: a
session does the same things in the same order whichever table runs when, so a game is the
same game, byte for byte.
"""

from __future__ import annotations

import threading
import time
from collections import deque

__all__ = ["SLICE_SECONDS", "SLOTS", "Turn", "TurnTaker"]

#: Run slots of a process: one, since one process runs Python on one core at a time.
SLOTS = 1
#: How long a table runs before it lets a waiting table have the slot (a player's table
#: does not wait for this: it is let in at the next step).
SLICE_SECONDS = 0.05


class Turn:
    """One table's place in the :class:`TurnTaker` (its threads share it)."""

    __slots__ = ("_wake", "holding", "paused", "queued", "since", "urgent")

    def __init__(self, lock: threading.Lock) -> None:
        self._wake = threading.Condition(lock)
        self.holding = False
        """It holds a slot: its threads may run."""
        self.queued = False
        self.urgent = False
        """Its player answered and the answer is not yet taken: it goes first."""
        self.paused = False
        """It waits for its player: its steps meanwhile (personas deciding while a vote is
        asked) do not queue for a slot, so that nothing idles in a slot waiting for a person."""
        self.since = 0.0


class TurnTaker:
    """The run slots of one process, shared by its tables (see the module doc).

    Every method is safe to call from any thread."""

    def __init__(self, slots: int = SLOTS, slice_seconds: float = SLICE_SECONDS) -> None:
        if slots < 1:
            raise ValueError(f"a process needs at least one run slot, not {slots}")
        if not slice_seconds >= 0:
            raise ValueError(f"a time slice is a number of seconds, not {slice_seconds}")
        self.slots = slots
        self.slice_seconds = slice_seconds
        self._lock = threading.Lock()
        self._free = slots
        self._urgent: deque[Turn] = deque()
        self._normal: deque[Turn] = deque()

    def turn(self) -> Turn:
        """A new table's place (holding nothing yet)."""
        return Turn(self._lock)

    def checkpoint(self, turn: Turn) -> None:
        """A step of ``turn``'s table: wait for a slot when it holds none (unless it is
        paused), and hand its slot over when another table should run now."""
        with self._lock:
            if turn.paused:
                return
            if turn.holding:
                if not self._should_yield(turn):
                    return
                self._give_up(turn)
            self._wait(turn)

    def release(self, turn: Turn) -> None:
        """``turn`` waits for something else than the processor: its slot goes to the next."""
        with self._lock:
            if turn.holding:
                self._give_up(turn)

    def pause(self, turn: Turn) -> None:
        """``turn``'s table waits for its player: the slot goes to the next table."""
        with self._lock:
            turn.paused = True
            turn._wake.notify_all()  # a thread of it waiting for a slot runs on without one
            if turn.holding:
                self._give_up(turn)

    def hurry(self, turn: Turn) -> None:
        """``turn``'s player answered: the table runs before every other at its next step."""
        with self._lock:
            turn.paused = False
            turn.urgent = True
            if turn.queued and turn in self._normal:
                self._normal.remove(turn)
                self._urgent.append(turn)

    def calm(self, turn: Turn) -> None:
        """``turn``'s answer was taken: it waits its turn like the others again."""
        with self._lock:
            turn.urgent = False

    def leave(self, turn: Turn) -> None:
        """``turn``'s table is no longer driven here: its slot and its place go."""
        with self._lock:
            turn.paused = True
            turn.urgent = False
            if turn.queued:
                queue = self._urgent if turn in self._urgent else self._normal
                queue.remove(turn)
                turn.queued = False
            turn._wake.notify_all()
            if turn.holding:
                self._give_up(turn)

    def holders(self) -> int:
        """How many slots are held now."""
        with self._lock:
            return self.slots - self._free

    # -- inside (the lock held) -------------------------------------------------------------------

    def _should_yield(self, turn: Turn) -> bool:
        if self._urgent and not turn.urgent:
            return True
        if not self._urgent and not self._normal:
            return False
        return time.monotonic() - turn.since >= self.slice_seconds

    def _give_up(self, turn: Turn) -> None:
        turn.holding = False
        while self._urgent or self._normal:
            following = self._urgent.popleft() if self._urgent else self._normal.popleft()
            following.queued = False
            if following.paused:  # it went to wait for its player meanwhile
                continue
            self._grant(following)
            return
        self._free += 1

    def _grant(self, turn: Turn) -> None:
        turn.holding = True
        turn.since = time.monotonic()
        turn._wake.notify_all()

    def _wait(self, turn: Turn) -> None:
        if self._free > 0 and not self._urgent and not (self._normal and not turn.urgent):
            self._free -= 1
            self._grant(turn)
            return
        if not turn.queued:
            (self._urgent if turn.urgent else self._normal).append(turn)
            turn.queued = True
        while not turn.holding and not turn.paused:
            turn._wake.wait()
