"""The one retry policy of every wire backend.

Transient failures (:class:`~gm_engine.llm.base.TransientBackendError`: connection
lost, timeout, 429, 5xx, a malformed 200 answer) are retried a bounded number of times;
a server's ``Retry-After`` is honoured (capped); anything else is raised at once. With
a ``deadline_s`` the policy also gives up rather than start a wait that would end past
the deadline (the caller bounds the attempts themselves by the same deadline). The backend
turns its client's exceptions into these two kinds and turns the client's own retries
off, so this is the only place where a call is repeated.

``wait`` and ``sleep`` are injectable so tests never sleep for long.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, TypeAlias

from gm_engine.llm.base import BackendError, TransientBackendError

if TYPE_CHECKING:
    # tenacity is imported where a policy is built: the commands that only parse the
    # deadline and concurrency options (every ``gm`` play and replay command) never retry
    from tenacity import AsyncRetrying, RetryCallState

WaitFunc: TypeAlias = "Callable[[RetryCallState], float]"
SleepFunc: TypeAlias = Callable[[float], Awaitable[None]]

#: The longest wait a server's Retry-After may impose on one retry.
MAX_RETRY_AFTER_S = 30.0

#: Seconds one model request may take in all (attempts and waits between them included) at
#: the least; a backend's default is twice its per-read timeout when that is longer, so
#: that one slow answer and one retry fit.
DEFAULT_REQUEST_DEADLINE_S = 120.0


def parse_deadline(text: str, source: str = "GM_REQUEST_DEADLINE") -> float:
    """Seconds from ``text`` (a positive number), for the request deadline.

    Raises:
        BackendError: not a positive finite number (``source`` names where it came from).
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise BackendError(f"{source} must be a positive number of seconds, not {text!r}")
    return value


def parse_concurrency(text: str, source: str = "GM_MAX_CONCURRENT") -> int:
    """A number of concurrent requests from ``text``: a whole number, 0 for no limit.

    Raises:
        BackendError: not a whole number of 0 or more (``source`` names where it came from).
    """
    try:
        value = int(text.strip())
    except ValueError:
        value = -1
    if value < 0:
        raise BackendError(f"{source} must be a whole number of 0 (no limit) or more, not {text!r}")
    return value


def backoff_wait(
    base_s: float = 0.5, cap_s: float = 8.0, max_retry_after_s: float = MAX_RETRY_AFTER_S
) -> WaitFunc:
    """Wait what the server asked for (capped at ``max_retry_after_s``), else an exponential
    backoff without jitter: ``base_s``, ``2*base_s``, ... up to ``cap_s``."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, TransientBackendError) and exc.retry_after is not None:
            return max(0.0, min(exc.retry_after, max_retry_after_s))
        return float(min(cap_s, base_s * 2 ** max(0, state.attempt_number - 1)))

    return wait


def retry_policy(
    *,
    max_attempts: int = 4,
    wait: WaitFunc | None = None,
    sleep: SleepFunc | None = None,
    on_retry: Callable[[RetryCallState], None] | None = None,
    deadline_s: float | None = None,
) -> AsyncRetrying:
    """A fresh tenacity policy: retry :class:`TransientBackendError` up to ``max_attempts``
    attempts in all, and (with ``deadline_s``) only while the wait before the next attempt
    ends within ``deadline_s`` of the first attempt's start; then re-raise the last error."""
    from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, stop_before_delay
    from tenacity.stop import stop_base

    options: dict[str, object] = {}
    if on_retry is not None:
        options["before_sleep"] = on_retry
    stop: stop_base = stop_after_attempt(max_attempts)
    if deadline_s is not None:
        stop = stop | stop_before_delay(deadline_s)
    return AsyncRetrying(
        retry=retry_if_exception_type(TransientBackendError),
        stop=stop,
        wait=wait if wait is not None else backoff_wait(),
        sleep=sleep if sleep is not None else asyncio.sleep,
        reraise=True,
        **options,  # type: ignore[arg-type]
    )


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """The delay in seconds a response asks for: ``retry-after-ms``, else ``retry-after`` as
    seconds or as an HTTP date; None when absent or unreadable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
