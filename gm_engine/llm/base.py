"""The types a model backend speaks, free of any client library.

A session builds a :class:`ModelRequest` (the messages exactly as they will be sent
and the tools offered), hands it to a :class:`ModelBackend`, and gets a
:class:`ModelResponse` back. Requests carry where they stand in the session (actor,
day, phase, turn) so that a ledger can total them and a tolerant replay can match them.

Message helpers (:func:`assistant_message`, :func:`tool_message`, :func:`user_message`,
:func:`system_message`) build the Chat Completions message dicts every backend reads,
so a conversation kept by a session can be sent to any backend unchanged.

Errors: :class:`BackendError` (the program must handle it); its subclass
:class:`ConfigurationError` (the server is not set up for the request: started without
``--jinja``, no such model, a refused key, a prompt past its context; never retried, and
its message says the fix); and its subclass
:class:`TransientBackendError` (worth retrying: connection, timeout, 429, 5xx, the
request deadline), which the one retry policy of :mod:`gm_engine.llm.retry` retries;
its subclass :class:`MalformedAnswerError` (a 200 answer that is not a chat completion)
is retried the same way and, once retries are spent, is the turn's failure rather than
the session's (the turn runner plays the turn's fallback).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

JsonDict = dict[str, Any]


class BackendError(RuntimeError):
    """A backend failed for a reason the program must handle (not the model's mistake)."""


class ConfigurationError(BackendError):
    """The server refused the request because of how it, or the client, is configured
    (see :mod:`gm_engine.llm.diagnosis`): retrying cannot help. ``kind`` names the problem
    and the message says what to do; ``model``: the model asked for, when known."""

    def __init__(
        self, message: str, *, kind: str, status: int | None = None, model: str | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.model = model


class RefusedRequestError(BackendError):
    """The server refused the request with a 4xx that is no known configuration error:
    ``status`` is the HTTP status and ``said`` the server's own words (for a report that
    quotes them inside the player's language)."""

    def __init__(self, message: str, *, status: int, said: str) -> None:
        super().__init__(message)
        self.status = status
        self.said = said


class TransientBackendError(BackendError):
    """A failure worth retrying: connection lost, timeout, rate limit (429) or server error (5xx).

    ``retry_after`` is the delay in seconds the server asked for, when it said one.
    """

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class MalformedAnswerError(TransientBackendError):
    """The server answered (200) with something that is not a chat completion: an empty
    ``choices`` list, an HTML page, text that is not JSON, JSON of another shape.

    Retried like any transient failure; when the retries are spent the turn that asked
    is played by its fallback, as for a model that did not act (see
    :class:`gm_engine.tools.base.TurnRunner`), and the game goes on.
    """


class ToolSpec(BaseModel):
    """One tool offered to the model; ``parameters`` is generated from a pydantic model."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: JsonDict

    def to_openai(self, *, strict: bool = False) -> JsonDict:
        """The Chat Completions ``tools`` entry for this tool."""
        function: JsonDict = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    @property
    def strict_compatible(self) -> bool:
        """Whether ``parameters`` meets OpenAI's strict-schema subset: every object closed
        (``additionalProperties: false``) and every property required."""
        return _strict_ok(self.parameters)


#: Keywords OpenAI's strict mode does not take; a schema using them is sent non-strict.
_NOT_STRICT = frozenset({"minLength", "maxLength", "default"})


def _strict_ok(schema: object) -> bool:
    if isinstance(schema, dict):
        if _NOT_STRICT & schema.keys() and "properties" not in schema:
            return False
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties", True) is not False:
                return False
            if set(schema.get("required", [])) != set(props):
                return False
        return all(_strict_ok(value) for value in schema.values())
    if isinstance(schema, list):
        return all(_strict_ok(item) for item in schema)
    return True


class ToolCall(BaseModel):
    """A tool call as the model sent it; ``arguments`` is the raw JSON text, maybe broken."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str


class Usage(BaseModel):
    """Token counts of one call, as reported by the server or, failing that, estimated.

    ``cached_tokens`` is the part of ``prompt_tokens`` the server served from its prefix
    cache, where it says so (OpenAI's ``prompt_tokens_details.cached_tokens``, which
    llama.cpp's and vLLM's servers report too; 0 otherwise). It is left out of the record
    when 0, so that the transcripts of servers that report none read as before.
    """

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False
    cached_tokens: int = Field(default=0, ge=0)

    @model_serializer(mode="wrap")
    def _without_zero_cache(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.cached_tokens:
            data.pop("cached_tokens", None)
        return data


class ModelRequest(BaseModel):
    """One call to a model: who asks, the messages exactly as sent, the tools offered.

    ``parallel_tool_calls`` says whether the caller accepts several tool calls in one
    answer (None: the server's default); a backend sends it only where its server
    profile supports it.
    """

    model_config = ConfigDict(frozen=True)

    actor: str
    messages: tuple[JsonDict, ...]
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: Literal["auto", "required", "none"] = "auto"
    model: str | None = None
    day: int = 0
    phase: str = ""
    turn: int = 0
    parallel_tool_calls: bool | None = None


class ModelResponse(BaseModel):
    """What the model answered: text, tool calls, token usage and latency."""

    model_config = ConfigDict(frozen=True)

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    latency_s: float = Field(default=0.0, exclude=True)


#: The longest answer a wire backend asks for (``max_tokens`` on every request): a model
#: cannot make a session, or its transcript, pay for an answer without end.
MAX_ANSWER_TOKENS = 1024

#: The longest answer text (content, or one tool call's arguments) a backend passes on, in
#: characters (far above what :data:`MAX_ANSWER_TOKENS` allows, for a server that ignores it).
MAX_ANSWER_CHARS = 8000


def bound_answer(response: ModelResponse) -> ModelResponse:
    """``response`` with its content and each tool call's arguments cut to
    :data:`MAX_ANSWER_CHARS`; a cut is said in the text (``…[cut: N characters]``), so the
    session, its transcript and the model reading its answer back all see that it was cut."""

    def cut(text: str) -> str:
        if len(text) <= MAX_ANSWER_CHARS:
            return text
        return f"{text[:MAX_ANSWER_CHARS]}…[cut: {len(text) - MAX_ANSWER_CHARS} characters]"

    content = cut(response.content) if response.content is not None else None
    calls = tuple(call.model_copy(update={"arguments": cut(call.arguments)}) for call in response.tool_calls)
    if content == response.content and calls == response.tool_calls:
        return response
    return response.model_copy(update={"content": content, "tool_calls": calls})


@runtime_checkable
class ModelBackend(Protocol):
    """Something that answers model requests.

    ``context`` is what the built-in offline model decides from: the same facts the
    prompt was rendered from (the actor's own view and its legal choices), never more.
    Wire backends ignore it.

    Besides :meth:`complete`, every backend says whether it ``keeps_state`` and has
    :meth:`prepare` and :meth:`aclose` (which may do nothing): :class:`BackendDefaults`
    gives the defaults to a backend that needs none of them.
    """

    name: str

    @property
    def keeps_state(self) -> bool:
        """Whether its answers depend on the calls it answered before (the offline model's
        agents keep what they saw): a resumed session then also puts every replayed request
        to it, so that it goes on from where it was."""
        ...

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Answer one request."""
        ...

    def prepare(self) -> None:
        """Set up what the first call needs (a client, its transport) now, inside the running
        event loop, before the session's clock starts."""
        ...

    async def aclose(self) -> None:
        """Release what the backend holds in the running event loop (its connections)."""
        ...


class BackendDefaults:
    """The defaults of a :class:`ModelBackend`'s members besides ``complete``: no state of its
    own, nothing to prepare, nothing to close."""

    keeps_state: bool = False

    def prepare(self) -> None:
        """Nothing to set up."""

    async def aclose(self) -> None:
        """Nothing to close."""


def system_message(content: str) -> JsonDict:
    """A ``system`` message."""
    return {"role": "system", "content": content}


def user_message(content: str) -> JsonDict:
    """A ``user`` message."""
    return {"role": "user", "content": content}


def assistant_message(response: ModelResponse) -> JsonDict:
    """The ``assistant`` message that records ``response`` in a conversation."""
    message: JsonDict = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in response.tool_calls
        ]
    return message


def tool_message(call_id: str, content: str) -> JsonDict:
    """The ``tool`` message that answers the tool call ``call_id``."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def estimate_tokens(text: str) -> int:
    """A rough token count for servers that report none: one token per four characters."""
    return (len(text) + 3) // 4


def estimate_usage(request: ModelRequest, content: str | None, tool_calls: Iterable[ToolCall]) -> Usage:
    """Estimate the usage of one call from the characters sent and received."""
    sent = json.dumps(list(request.messages), ensure_ascii=False) + json.dumps(
        [t.model_dump() for t in request.tools], ensure_ascii=False
    )
    received = (content or "") + "".join(c.name + c.arguments for c in tool_calls)
    return Usage(
        prompt_tokens=estimate_tokens(sent), completion_tokens=estimate_tokens(received), estimated=True
    )
