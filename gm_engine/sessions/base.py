"""What every session kind shares: its spec, its input/output, its event stream.

A session is a pure function of its :class:`SessionSpec`, the model's responses and
the human's inputs. Everything it does is emitted as events to an :class:`EventSink`
(a transcript writer records them; a replay checks them), so a recorded session can be
replayed as a regression test and resumed after a crash.

The events are the typed ones of :mod:`gm_engine.events` (where :class:`EventSink`,
:class:`NullSink` and :class:`ListSink` live; they are re-exported here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from gm_engine.events import EventSink, ListSink, NullSink
from gm_engine.llm.base import ModelBackend

__all__ = [
    "EventSink",
    "HumanDefaults",
    "HumanInput",
    "ListSink",
    "NullSink",
    "SessionError",
    "SessionIO",
    "SessionOutcome",
    "SessionSpec",
    "register_session",
    "registered_runner",
]


class SessionError(ValueError):
    """A session cannot start or go on: bad spec, unknown kind, inconsistent input."""


class HumanInput(Protocol):
    """Where the human's words come from: the terminal, a script, an agent or a transcript.

    Besides :meth:`ask`, every human says whether it ``answers_at_once`` and has
    :meth:`observe` (which may ignore what it is shown): :class:`HumanDefaults` gives the
    defaults of a person at a keyboard.
    """

    @property
    def answers_at_once(self) -> bool:
        """True for an automatic player that answers without waiting (a session may ask it
        on its own event loop); False for a person (asked on a worker thread while the
        models' requests of a round run)."""
        ...

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Ask the human; ``choices``, when given, are the only acceptable answers."""
        ...

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """See what the session shows this seat before its next question: its own
        observation and its legal actions (an automatic player decides from them)."""
        ...


class HumanDefaults:
    """The defaults of a :class:`HumanInput`'s members besides ``ask``: a person, who waits
    to be asked and decides from the screen, not from what :meth:`observe` is shown."""

    answers_at_once: bool = False

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """Ignore it."""


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
    secret and ``gm resume`` can continue it. ``earlier_summaries``: the words earlier
    versions recorded for this same outcome (an English summary before it followed the
    player's language); a replay of their transcripts accepts them, the figures still
    compared exactly.
    """

    summary: str
    figures: dict[str, float] = {}
    finished: bool = True
    earlier_summaries: tuple[str, ...] = ()


SessionRunner = Callable[[SessionSpec, SessionIO], SessionOutcome]
_RUNNERS: dict[str, SessionRunner] = {}


def register_session(kind: str) -> Callable[[SessionRunner], SessionRunner]:
    """Decorator: file ``runner(spec, io)`` as the runner of sessions of ``kind``."""

    def decorate(runner: SessionRunner) -> SessionRunner:
        _RUNNERS[kind] = runner
        return runner

    return decorate


def registered_runner(kind: str) -> SessionRunner:
    """The runner filed for ``kind`` (its module must have been imported: see
    :func:`gm_engine.sessions.registry.get_runner`).

    Raises:
        SessionError: no runner is filed for ``kind``.
    """
    try:
        return _RUNNERS[kind]
    except KeyError:
        raise SessionError(f"no runner is filed for session kind {kind!r}") from None
