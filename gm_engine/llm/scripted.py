"""A backend that plays a fixed script, for tests.

Each entry of the script is ``(matcher, reply)``: the next request must satisfy the
matcher, and gets the reply. The backend fails loudly on a call the script did not
expect and, through :meth:`ScriptedBackend.assert_done` or at the end of a ``with``
block, on entries left over::

    with ScriptedBackend([
        ("P2", response_with_calls(("vote", {"target": "P3"}))),
        (lambda r: r.phase == "night", ModelResponse(content="...")),
    ]) as backend:
        ...

A matcher is ``None`` (any request), a string (the request's actor) or a predicate
on the :class:`ModelRequest`. A reply is a :class:`ModelResponse`, a function of the
request returning one, or an exception instance to raise (to test error handling).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import TracebackType

from gm_engine.llm.base import BackendDefaults, BackendError, ModelRequest, ModelResponse, estimate_usage

Matcher = Callable[[ModelRequest], bool] | str | None
Reply = ModelResponse | Callable[[ModelRequest], ModelResponse] | BaseException


class ScriptError(BackendError):
    """The scripted backend got a call its script did not expect, or the script was not used up."""


class ScriptedBackend(BackendDefaults):
    """Answers requests from a script; see the module docstring."""

    name = "scripted"

    def __init__(self, script: Iterable[tuple[Matcher, Reply]]) -> None:
        self._script: list[tuple[Matcher, Reply]] = list(script)
        self._next = 0
        #: Every request received, in order.
        self.requests: list[ModelRequest] = []
        self.contexts: list[object | None] = []

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Answer with the next entry of the script.

        Raises:
            ScriptError: the script is used up, or the request fails the next matcher.
        """
        self.requests.append(request)
        self.contexts.append(context)
        if self._next >= len(self._script):
            raise ScriptError(
                f"unexpected call #{len(self.requests)} from {request.actor!r} "
                f"(phase {request.phase!r}, turn {request.turn}): the script is used up"
            )
        matcher, reply = self._script[self._next]
        if not _matches(matcher, request):
            raise ScriptError(
                f"unexpected call #{len(self.requests)} from {request.actor!r} (phase {request.phase!r}, "
                f"turn {request.turn}): script entry #{self._next + 1} expects {_describe(matcher)}"
            )
        self._next += 1
        if isinstance(reply, BaseException):
            raise reply
        response = reply(request) if callable(reply) else reply
        if response.usage is None:
            usage = estimate_usage(request, response.content, response.tool_calls)
            response = response.model_copy(update={"usage": usage})
        return response

    @property
    def leftovers(self) -> int:
        """How many script entries were never used."""
        return len(self._script) - self._next

    def assert_done(self) -> None:
        """Check that the whole script was used.

        Raises:
            ScriptError: entries are left over.
        """
        if self.leftovers:
            raise ScriptError(
                f"{self.leftovers} scripted response(s) left over; the next expects "
                f"{_describe(self._script[self._next][0])}"
            )

    def __enter__(self) -> ScriptedBackend:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.assert_done()


def _matches(matcher: Matcher, request: ModelRequest) -> bool:
    if matcher is None:
        return True
    if isinstance(matcher, str):
        return request.actor == matcher
    return bool(matcher(request))


def _describe(matcher: Matcher) -> str:
    if matcher is None:
        return "any call"
    if isinstance(matcher, str):
        return f"a call from {matcher!r}"
    return f"a call matching {getattr(matcher, '__name__', repr(matcher))}"
