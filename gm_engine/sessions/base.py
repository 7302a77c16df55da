"""What every session kind shares: its spec, its input/output, its event stream.

A session is a pure function of its :class:`SessionSpec`, the model's responses and
the human's inputs. Everything it does is emitted as events to an :class:`EventSink`
(a transcript writer records them; a replay checks them), so a recorded session can be
replayed as a regression test and resumed after a crash.

Event types a runner emits (payloads are JSON-ready dicts):

* ``model_request``: ``actor``, ``day``, ``phase``, ``turn``, ``messages`` (exactly as
  sent), ``tools`` (the tool specs offered), ``model``;
* ``model_response``: ``actor``, ``content``, ``tool_calls``, ``usage``, and ``error``
  when the server's answer could not be read (then no content and no tool calls);
* ``tool_result``: ``actor``, ``tool``, ``arguments``, ``ok``, ``result`` (the text sent
  back to the model);
* ``dice``: ``dice`` as ``[[value, sides], ...]``, every die since the last such event;
* ``human_input``: ``prompt``, ``text``;
* ``state``: ``hash`` (the engine's state hash after each engine step) and ``step``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from gm_engine.llm.base import ModelBackend


class SessionError(ValueError):
    """A session cannot start or go on: bad spec, unknown kind, inconsistent input."""


class EventSink(Protocol):
    """Receives every event of a session, in order."""

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Take one event."""
        ...


class NullSink:
    """An event sink that keeps nothing."""

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Drop the event."""


class ListSink:
    """An event sink that keeps every event in memory (for tests)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Keep the event."""
        self.events.append((event_type, dict(payload)))


class HumanInput(Protocol):
    """Where the human's words come from: the terminal, a script, an agent or a transcript."""

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Ask the human; ``choices``, when given, are the only acceptable answers."""
        ...


class SessionSpec(BaseModel):
    """Everything that fixes a session before its first input: kind, seed, options, backend."""

    model_config = ConfigDict(frozen=True)

    kind: str
    seed: int
    options: dict[str, Any] = {}
    backend: str = "offline"
    model: str | None = None


@dataclass
class SessionIO:
    """The session's connections to the world."""

    backend: ModelBackend
    human: HumanInput
    sink: EventSink = field(default_factory=NullSink)
    show: Callable[[str], None] = print


class SessionOutcome(BaseModel):
    """How a session ended, in a line a player can read, plus its figures.

    ``finished`` is False when the session stopped before its end (the player's
    ``/quit`` in a game): its transcript is left without an end line, so the seed stays
    secret and ``gm resume`` can continue it.
    """

    summary: str
    figures: dict[str, float] = {}
    finished: bool = True


SessionRunner = Callable[[SessionSpec, SessionIO], SessionOutcome]
_RUNNERS: dict[str, SessionRunner] = {}


def register_session(kind: str) -> Callable[[SessionRunner], SessionRunner]:
    """Decorator: file ``runner(spec, io)`` as the runner of sessions of ``kind``."""

    def decorate(runner: SessionRunner) -> SessionRunner:
        _RUNNERS[kind] = runner
        return runner

    return decorate


def get_runner(kind: str) -> SessionRunner:
    """The runner of ``kind``, importing the session modules first.

    Raises:
        SessionError: no runner is registered for ``kind``.
    """
    import importlib
    import pkgutil

    package = importlib.import_module("gm_engine.sessions")
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_") and info.name != "base":
            importlib.import_module(f"gm_engine.sessions.{info.name}")
    try:
        return _RUNNERS[kind]
    except KeyError:
        raise SessionError(f"unknown session kind {kind!r}; known: {', '.join(sorted(_RUNNERS))}") from None
