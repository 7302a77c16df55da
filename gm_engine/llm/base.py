"""The types a model backend speaks, free of any client library.

A session builds a :class:`ModelRequest` (the messages exactly as they will be sent
and the tools offered), hands it to a :class:`ModelBackend`, and gets a
:class:`ModelResponse` back. Requests carry where they stand in the session (actor,
day, phase, turn) so that a ledger can total them and a tolerant replay can match them.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

JsonDict = dict[str, Any]


class BackendError(RuntimeError):
    """A backend failed for a reason the program must handle (not the model's mistake)."""


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


class ToolCall(BaseModel):
    """A tool call as the model sent it; ``arguments`` is the raw JSON text, maybe broken."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str


class Usage(BaseModel):
    """Token counts of one call, as reported by the server or, failing that, estimated."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False


class ModelRequest(BaseModel):
    """One call to a model: who asks, the messages exactly as sent, the tools offered."""

    model_config = ConfigDict(frozen=True)

    actor: str
    messages: tuple[JsonDict, ...]
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: Literal["auto", "required", "none"] = "auto"
    model: str | None = None
    day: int = 0
    phase: str = ""
    turn: int = 0


class ModelResponse(BaseModel):
    """What the model answered: text, tool calls, token usage and latency."""

    model_config = ConfigDict(frozen=True)

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    latency_s: float = Field(default=0.0, exclude=True)


@runtime_checkable
class ModelBackend(Protocol):
    """Something that answers model requests.

    ``context`` is what the built-in offline model decides from: the same facts the
    prompt was rendered from (the actor's own view and its legal choices), never more.
    Wire backends ignore it.
    """

    name: str

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Answer one request."""
        ...
