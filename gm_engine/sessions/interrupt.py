"""Ctrl-C during a play session: it stops the session at once, wherever the player is.

Two things kept Ctrl-C from working with plain ``asyncio.run``:

* ``asyncio.run`` replaces the default SIGINT handler with one that cancels the main task;
  a blocking ``input()`` on the loop's own thread (the role choice, the discussion prompt)
  never sees the cancellation, so the first Ctrl-C was lost;
* a question asked on a worker thread while the personas' turns run (votes, nights) went
  through ``asyncio.to_thread``, the loop's default executor, which ``asyncio.run`` waits for
  when it shuts down: the program hung until a line was typed.

:func:`run_interruptibly` keeps Ctrl-C a :class:`KeyboardInterrupt` raised at once in the
main thread (also inside a blocking read), and :func:`in_daemon_thread` runs a blocking
question on a thread nobody waits for, so an interrupted session ends (its transcript
closed and resumable) within moments of the key.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    # a handler of our own, not signal.default_int_handler: asyncio.run replaces only the
    # default one with its task-cancelling handler
    raise KeyboardInterrupt


def run_interruptibly(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, with Ctrl-C raising :class:`KeyboardInterrupt` in the main
    thread at once, even inside a blocking read.

    Outside the main thread, or where someone else installed a SIGINT handler (a test
    harness, an embedding program), it is plain ``asyncio.run``: their handling stands.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        return asyncio.run(main)
    signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        return asyncio.run(main)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


async def in_daemon_thread(func: Callable[[], T]) -> T:
    """``func()`` run on a daemon thread while the loop goes on: its result, or its exception.

    Unlike ``asyncio.to_thread`` nothing waits for the thread when the loop shuts down, so a
    thread still blocked reading the terminal cannot hold up the end of an interrupted
    session (the process exits; the unanswered question was never recorded)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def deliver(outcome: Callable[[], None]) -> None:
        if not done.done():  # cancelled meanwhile: the session stopped without this answer
            outcome()

    def work() -> None:
        try:
            result = func()
        except BaseException as exc:  # handed to the awaiting task, which raises it there
            error = exc
            _call_in_loop(loop, deliver, lambda: done.set_exception(error))
        else:
            _call_in_loop(loop, deliver, lambda: done.set_result(result))

    threading.Thread(target=work, name="gm-human-input", daemon=True).start()
    return await done


def _call_in_loop(
    loop: asyncio.AbstractEventLoop,
    deliver: Callable[[Callable[[], None]], None],
    outcome: Callable[[], None],
) -> None:
    with contextlib.suppress(RuntimeError):  # a closed loop: the session ended without this answer
        loop.call_soon_threadsafe(deliver, outcome)
