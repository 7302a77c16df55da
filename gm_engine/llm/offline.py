"""The built-in offline model: no network, no key.

It answers each request by calling a *decider* that a game module registered for that
kind of actor. A decider is the offline agent of its game: it decides from the
``context`` the session passed with the request (the same facts the prompt was rendered
from, never more) and speaks through templates in the actor's voice::

    def werewolf_decider(request: ModelRequest, context: object | None) -> ModelResponse:
        ...

    register_offline_decider("werewolf", werewolf_decider)

The decider for a request is found by the context's ``offline_kind`` when it is an
:class:`OfflineContext` (e.g. every werewolf persona's context says ``"werewolf"``), else by the
request's ``actor``. Deciders must be deterministic functions of the request and the
context: the same game gives the same answers, byte for byte.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from gm_engine.llm.base import (
    BackendDefaults,
    BackendError,
    ModelRequest,
    ModelResponse,
    ToolCall,
    estimate_usage,
)

Decider = Callable[[ModelRequest, object | None], ModelResponse]

_DECIDERS: dict[str, Decider] = {}


def register_offline_decider(kind: str, decider: Decider) -> None:
    """File ``decider`` as the offline agent for requests of ``kind`` (see the module docstring)."""
    _DECIDERS[kind] = decider


def offline_kind(request: ModelRequest, context: object | None) -> str:
    """The key a request's decider is filed under: the :class:`OfflineContext`'s
    ``offline_kind``, else the actor."""
    if isinstance(context, OfflineContext) and context.offline_kind:
        return context.offline_kind
    return request.actor


def offline_calls(
    request: ModelRequest, calls: Sequence[tuple[str, Mapping[str, Any]]]
) -> tuple[ToolCall, ...]:
    """Tool calls with ids that are deterministic and unique within the conversation."""
    base = len(request.messages)
    return tuple(
        ToolCall(id=f"off_{base}_{i}", name=name, arguments=json.dumps(dict(args), ensure_ascii=False))
        for i, (name, args) in enumerate(calls)
    )


@runtime_checkable
class OfflineContext(Protocol):
    """A request's context that names the decider to ask (e.g. ``"werewolf"``)."""

    @property
    def offline_kind(self) -> str:
        """The kind the decider is filed under."""
        ...


class OfflineBackend(BackendDefaults):
    """Answers every request through the registered offline deciders.

    It keeps state (``keeps_state``): the deciders' agents, passed in the contexts, learn
    from every request they answer."""

    name = "offline"
    keeps_state = True

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Ask the decider of this request.

        Raises:
            BackendError: no decider is registered for the request's kind.
        """
        kind = offline_kind(request, context)
        decider = _DECIDERS.get(kind)
        if decider is None:
            known = ", ".join(sorted(_DECIDERS)) or "(none)"
            raise BackendError(f"the offline model has no decider for {kind!r}; registered: {known}")
        started = time.perf_counter()
        response = decider(request, context)
        elapsed = time.perf_counter() - started
        usage = response.usage or estimate_usage(request, response.content, response.tool_calls)
        return response.model_copy(update={"usage": usage, "latency_s": elapsed})
