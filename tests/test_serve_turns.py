"""The run slots of gm serve's tables (gm_engine.serve.turns): one table runs at a time, a
table whose player answered goes before the busy ones, a table waiting for its player holds
nothing. Threads are sequenced by events, never by sleeping."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from gm_engine.serve.turns import Turn, TurnTaker

WAIT = 60.0


def in_thread(step: Callable[[], None]) -> threading.Event:
    """``step`` on a table's thread of its own; the event is set once it returned."""
    done = threading.Event()

    def run() -> None:
        step()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def queued(taker: TurnTaker, turn: Turn) -> None:
    """Wait until ``turn`` stands in the queue (its thread reached its checkpoint)."""
    pause = threading.Event()
    for _ in range(600_000):
        with taker._lock:
            if turn.queued:
                return
        pause.wait(0.0001)
    raise AssertionError("the turn never queued")


def test_one_slot_is_one_table_at_a_time_in_the_order_they_asked() -> None:
    taker = TurnTaker(slots=1, slice_seconds=0)
    first, second, third = taker.turn(), taker.turn(), taker.turn()
    taker.checkpoint(first)
    assert first.holding and taker.holders() == 1
    got_second = in_thread(lambda: taker.checkpoint(second))
    queued(taker, second)
    got_third = in_thread(lambda: taker.checkpoint(third))
    queued(taker, third)
    assert not got_second.is_set() and not got_third.is_set()
    # first's slice is over and others wait: its next step lets second in, first queues behind third
    got_first_again = in_thread(lambda: taker.checkpoint(first))
    assert got_second.wait(WAIT)
    queued(taker, first)
    assert not got_third.is_set() and not first.holding and taker.holders() == 1
    taker.release(second)
    assert got_third.wait(WAIT)
    assert not got_first_again.is_set()
    taker.release(third)
    assert got_first_again.wait(WAIT)
    taker.leave(first)
    assert taker.holders() == 0


def test_a_table_whose_player_answered_goes_before_the_waiting_ones() -> None:
    taker = TurnTaker(slots=1, slice_seconds=3600)  # no slice ends during the test
    busy, waiting, answered = taker.turn(), taker.turn(), taker.turn()
    taker.checkpoint(busy)
    got_waiting = in_thread(lambda: taker.checkpoint(waiting))
    queued(taker, waiting)
    taker.checkpoint(busy)  # its slice is not over: it keeps the slot
    assert busy.holding and not got_waiting.is_set()
    taker.pause(answered)  # it asked its player a question
    taker.hurry(answered)  # the player answered
    got_answered = in_thread(lambda: taker.checkpoint(answered))
    queued(taker, answered)
    busy_again = in_thread(lambda: taker.checkpoint(busy))  # the busy table's next step lets it in
    assert got_answered.wait(WAIT)
    assert not got_waiting.is_set() and not busy.holding
    taker.calm(answered)  # its answer was taken: it takes turns like the others again
    taker.checkpoint(answered)  # slice not over, and nobody waits with a player's answer
    assert answered.holding and not got_waiting.is_set()
    taker.release(answered)
    assert got_waiting.wait(WAIT)  # then the tables in the order they asked
    assert not busy_again.is_set()
    taker.release(waiting)
    assert busy_again.wait(WAIT)
    taker.leave(busy)


def test_a_table_waiting_for_its_player_holds_no_slot_and_its_steps_do_not_queue() -> None:
    taker = TurnTaker(slots=1)
    asking, other = taker.turn(), taker.turn()
    taker.checkpoint(asking)
    taker.pause(asking)  # a question is open
    assert not asking.holding and taker.holders() == 0
    taker.checkpoint(other)
    assert other.holding
    taker.checkpoint(asking)  # the personas of its vote go on deciding meanwhile: no wait
    assert not asking.holding and not asking.queued
    taker.hurry(asking)
    got = in_thread(lambda: taker.checkpoint(asking))
    queued(taker, asking)
    taker.leave(other)  # the other table is no longer driven here: its slot goes on
    assert got.wait(WAIT) and asking.holding


def test_a_table_that_leaves_the_queue_is_skipped() -> None:
    taker = TurnTaker(slots=1, slice_seconds=0)
    first, gone, last = taker.turn(), taker.turn(), taker.turn()
    taker.checkpoint(first)
    got_gone = in_thread(lambda: taker.checkpoint(gone))
    queued(taker, gone)
    got_last = in_thread(lambda: taker.checkpoint(last))
    queued(taker, last)
    taker.leave(gone)  # stopped while it waited: its thread runs on to its end, unslotted
    assert got_gone.wait(WAIT) and not gone.holding
    taker.release(first)
    assert got_last.wait(WAIT) and last.holding


@pytest.mark.parametrize("slots, slice_seconds", [(0, 0.05), (1, -1.0), (1, float("nan"))])
def test_a_taker_without_a_slot_or_with_a_bad_slice_is_refused(slots: int, slice_seconds: float) -> None:
    with pytest.raises(ValueError, match=r"slot|slice"):
        TurnTaker(slots=slots, slice_seconds=slice_seconds)
