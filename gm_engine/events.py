"""What a session emits, as typed events, and where they go (:class:`EventSink`).

Every layer imports this module (the tool runner, the sessions, the transcripts), and it
imports nothing of theirs: only the backend's message types of :mod:`gm_engine.llm.base`.

One class per event, told apart by its ``type`` (a pydantic discriminated union,
:data:`SessionEvent`):

==========================  ====================  ==================================================
class                       ``type``              what happened
==========================  ====================  ==================================================
:class:`ModelRequestEvent`  ``model_request``     a request went to the model (messages as sent)
:class:`ModelResponseEvent` ``model_response``    the model answered (text, tool calls, usage)
:class:`ToolResultEvent`    ``tool_result``       a tool call was applied or refused (text sent back)
:class:`FallbackEvent`      ``fallback``          the offline agent played a turn the model could not
:class:`RecoveryEvent`      ``recovery``          the turn runner read a call from the text, or re-asked
:class:`DiceEvent`          ``dice``              dice drawn since the last such event
:class:`HumanInputEvent`    ``human_input``       the human answered a prompt
:class:`StateEvent`         ``state``             the engine's state hash after one of its steps
:class:`NarrationEvent`     ``narration``         a GM narration was shown, or held back and why
==========================  ====================  ==================================================

:class:`EndEvent` is the transcript's last line (the seed revealed, the outcome); it is
written by the transcript writer when the session is over, never emitted by a session.

:meth:`payload` is an event exactly as a transcript line carries it after ``type``,
``seq`` (and the ``chain`` checkpoint or, in older files, ``prev``; the keys in the order
of the fields), and :func:`parse_event` reads such a line back:
``parse_event({"type": e.type, **e.payload()}) == e``.

Errors: :class:`EventFormatError` (a ValueError), a line that is no known event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from gm_engine.llm.base import JsonDict, ModelRequest, ModelResponse, ToolCall, ToolSpec, Usage


class EventFormatError(ValueError):
    """A recorded line is not an event of a known type, or a field of it is missing or wrong."""


class _Event(BaseModel):
    # a NaN or infinity stays one in the payload (and the transcript writer refuses it),
    # rather than turning into null unseen
    # (built when an event of the type is first made or read: a session emits a few kinds)
    model_config = ConfigDict(frozen=True, extra="forbid", ser_json_inf_nan="constants", defer_build=True)

    def payload(self) -> JsonDict:
        """The event as JSON, without its ``type``: what a transcript line holds after
        ``type``, ``seq`` and (on some lines) ``chain``."""
        return self.model_dump(mode="json", exclude={"type"})


class ModelRequestEvent(_Event):
    """A request went to the model: who asked, where in the session, the messages exactly
    as sent and the tools offered."""

    type: Literal["model_request"] = "model_request"
    actor: str
    day: int = 0
    phase: str = ""
    turn: int = 0
    messages: list[JsonDict]
    tools: tuple[ToolSpec, ...] = ()
    model: str | None = None

    @classmethod
    def of(cls, request: ModelRequest) -> ModelRequestEvent:
        """The event recording ``request``."""
        return cls(
            actor=request.actor,
            day=request.day,
            phase=request.phase,
            turn=request.turn,
            messages=list(request.messages),
            tools=request.tools,
            model=request.model,
        )

    @property
    def key(self) -> tuple[str, int, str, int]:
        """``(actor, day, phase, turn)``: where the request stands in the session."""
        return (self.actor, self.day, self.phase, self.turn)


class ModelResponseEvent(_Event):
    """The model answered ``actor``'s request (latency is not recorded: it differs every run)."""

    type: Literal["model_response"] = "model_response"
    actor: str
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    error: str | None = None
    """Why the server's answer could not be read (then no content and no tool calls)."""

    def payload(self) -> JsonDict:
        """The event as JSON, without its ``type`` (and without ``error`` unless there was one)."""
        exclude = {"type"} if self.error is not None else {"type", "error"}
        return self.model_dump(mode="json", exclude=exclude)

    @classmethod
    def unreadable(cls, actor: str, error: str) -> ModelResponseEvent:
        """The event recording that the server's answer to ``actor``'s request could not be read."""
        return cls(actor=actor, error=error)

    @classmethod
    def of(cls, actor: str, response: ModelResponse) -> ModelResponseEvent:
        """The event recording ``response`` to ``actor``'s request."""
        return cls(
            actor=actor, content=response.content, tool_calls=response.tool_calls, usage=response.usage
        )

    def response(self) -> ModelResponse:
        """The :class:`ModelResponse` this event recorded."""
        return ModelResponse(content=self.content, tool_calls=self.tool_calls, usage=self.usage)


class ToolResultEvent(_Event):
    """A tool call was applied (``ok``) or refused; ``result`` is the text sent back.

    ``tool`` and ``arguments`` are None for a text-only answer where a tool was required;
    ``arguments`` is the raw JSON text the model sent, or the parsed arguments of a command
    the engine read itself (the roll session's, which also records its ``roll``). ``roll``
    is in the payload only when it was given.
    """

    type: Literal["tool_result"] = "tool_result"
    actor: str
    tool: str | None
    arguments: str | JsonDict | None
    ok: bool
    result: str
    roll: JsonDict | None = None

    def payload(self) -> JsonDict:
        """The event as JSON, without its ``type`` (and without ``roll`` unless it was given)."""
        exclude = {"type"} if "roll" in self.model_fields_set else {"type", "roll"}
        return self.model_dump(mode="json", exclude=exclude)


class FallbackEvent(_Event):
    """The offline agent played ``actor``'s turn (the model's retries ran out, or it took no
    action): the tool it chose with its arguments (both None: no action), and why."""

    type: Literal["fallback"] = "fallback"
    actor: str
    tool: str | None
    arguments: JsonDict | None
    reason: str


class RecoveryEvent(_Event):
    """The turn runner recovered from an answer that did not call a tool the way it was
    asked: ``kind`` ``calls_in_text`` (``tool_calls`` were read from the answer's text,
    written as ``format`` says, and are applied as if sent as calls) or ``reask`` (a
    text-only answer where a tool was required got one corrective re-ask, which describes
    the tools in words; a second one goes to the fallback)."""

    type: Literal["recovery"] = "recovery"
    actor: str
    kind: Literal["calls_in_text", "reask"]
    format: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


class RolledDie(Protocol):
    """A die as the dice source records it."""

    @property
    def value(self) -> int:
        """The face rolled."""
        ...

    @property
    def sides(self) -> int:
        """How many faces the die has."""
        ...


class DiceEvent(_Event):
    """The dice drawn since the last such event, each as ``(value, sides)``."""

    type: Literal["dice"] = "dice"
    dice: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, dice: Iterable[RolledDie]) -> DiceEvent:
        """The event recording ``dice``."""
        return cls(dice=tuple((d.value, d.sides) for d in dice))


class HumanInputEvent(_Event):
    """The human answered ``prompt`` with ``text`` (exactly as typed)."""

    type: Literal["human_input"] = "human_input"
    prompt: str
    text: str


class StateEvent(_Event):
    """The engine's state hash after one of its steps (``step``: its name or number)."""

    type: Literal["state"] = "state"
    hash: str
    step: str | int


class NarrationEvent(_Event):
    """A GM's narration checked against the engine's facts before it is shown: ``shown``,
    or held back with the ``problems`` found (which went back to the model)."""

    type: Literal["narration"] = "narration"
    actor: str
    text: str
    shown: bool
    problems: list[str] = []


class EndEvent(_Event):
    """A transcript's last line: the seed revealed, and how the session ended."""

    type: Literal["end"] = "end"
    seed: int
    summary: str
    figures: dict[str, Any] = {}


#: Any event a session emits.
SessionEvent = Annotated[
    ModelRequestEvent
    | ModelResponseEvent
    | ToolResultEvent
    | FallbackEvent
    | RecoveryEvent
    | DiceEvent
    | HumanInputEvent
    | StateEvent
    | NarrationEvent,
    Field(discriminator="type"),
]

#: The ``type`` of every event a session may emit.
EVENT_TYPES = frozenset(
    {
        "model_request", "model_response", "tool_result", "fallback", "recovery", "dice", "human_input",
        "state", "narration",
    }
)

_ADAPTER: TypeAdapter[SessionEvent] = TypeAdapter(SessionEvent)


def parse_event(obj: Mapping[str, Any]) -> SessionEvent:
    """The event a transcript line (``type`` and payload; ``seq``, ``chain`` and ``prev`` removed) records.

    Raises:
        EventFormatError: the type is unknown or a field is missing or wrong (the message
            says which).
    """
    kind = obj.get("type")
    if kind not in EVENT_TYPES:
        raise EventFormatError(f"unknown event type {kind!r}; known: {', '.join(sorted(EVENT_TYPES))}")
    try:
        return _ADAPTER.validate_python(dict(obj))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or kind}: {err['msg']}" for err in exc.errors()
        )
        raise EventFormatError(f"a bad {kind} event: {problems}") from None


class EventSink(Protocol):
    """Receives every event of a session, in order."""

    def emit(self, event: SessionEvent) -> None:
        """Take one event."""
        ...


class NullSink:
    """An event sink that keeps nothing."""

    def emit(self, event: SessionEvent) -> None:
        """Drop the event."""


class ListSink:
    """An event sink that keeps every event in memory (tests, benchmarks)."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []

    def emit(self, event: SessionEvent) -> None:
        """Keep the event."""
        self.events.append(event)

    def payloads(self) -> list[tuple[str, JsonDict]]:
        """Every event kept, as ``(type, payload)`` in the form a transcript records it."""
        return [(event.type, event.payload()) for event in self.events]


__all__ = [
    "EVENT_TYPES",
    "DiceEvent",
    "EndEvent",
    "EventFormatError",
    "EventSink",
    "FallbackEvent",
    "HumanInputEvent",
    "ListSink",
    "ModelRequestEvent",
    "ModelResponseEvent",
    "NullSink",
    "RolledDie",
    "SessionEvent",
    "StateEvent",
    "ToolResultEvent",
    "parse_event",
]
