"""The roll session: a human types dice commands, the dice engine answers, everything is recorded.

It is the simplest session kind and the one every other kind's recording machinery is
tested on: no model, only the human's lines, one :class:`~gm_engine.dice.SeededSource`
seeded by the spec, and the dice engine.

A line is one of

* a dice command under the current game system (``2d6+1``, ``CC<=50``, ...), evaluated
  with :func:`gm_engine.dice.engine.evaluate` on the session's one source;
* ``/system NAME`` to switch game systems (``/system`` alone lists them), ``/locale ja|en``;
* ``/help``, or ``/quit`` (also ``/exit``, ``/end``) to stop.

Every line is emitted as a ``human_input`` event; every command then gives a ``dice``
event (the dice it rolled, if any), a ``tool_result`` (the result text and its JSON) and
a ``state`` event (the session's state hash). A refused line (unknown system, not a
command, too long, ...) is a ``tool_result`` with ``ok: false`` and leaves the state
exactly as it was, dice source included.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from gm_engine.dice.engine import evaluate
from gm_engine.dice.limits import ErrorDetail
from gm_engine.dice.result import Locale
from gm_engine.dice.source import Die, SeededSource
from gm_engine.dice.system import UnknownSystemError
from gm_engine.dice.systems.registry import all_systems, get_system
from gm_engine.events import DiceEvent, HumanInputEvent, StateEvent, ToolResultEvent
from gm_engine.llm.base import BackendDefaults, BackendError, ModelRequest, ModelResponse
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    DiceEngineFailed,
    LocaleSwitched,
    NoSuchRollCommand,
    RollEnded,
    RollHelp,
    RollPrompt,
    RollRefused,
    RollSummary,
    RollWelcome,
    SecretResult,
    SystemListing,
    SystemSwitched,
    UnknownLocale,
    UnknownSessionCommand,
    UnknownSystem,
)
from gm_engine.sessions.base import SessionError, SessionIO, SessionOutcome, SessionSpec, register_session

#: Lines that end the session.
QUIT_WORDS = frozenset({"/quit", "/exit", "/end"})

#: The help as the transcript records it. What a step records (its ``text``, part of the
#: state hash and of the ``tool_result`` event) stays the same in every version, so that old
#: transcripts still replay; what the player is shown (``shown``) comes from the catalogue in
#: the session's locale.
HELP_TEXT = (
    "Type a dice command of the current system (e.g. 2d6+1, CC<=50), or:\n"
    "  /system NAME   switch game systems (/system alone lists them)\n"
    "  /locale ja|en  language of the results\n"
    "  /quit          end the session"
)


class RollOptions(BaseModel):
    """Options of a roll session: the starting game system and locale."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str = "DiceBot"
    locale: Literal["ja", "en"] = "ja"
    max_lines: int = 100_000
    prompt_in_locale: bool = False
    """The prompt in the session's locale (``[DiceBot] ダイス> `` in Japanese). ``gm
    roll-session`` sets it; a session recorded before it existed asked ``[DiceBot] roll> ``
    in every locale, and its replay asks so again (the replay compares the prompts)."""

    @field_validator("system")
    @classmethod
    def _known_system(cls, value: str) -> str:
        get_system(value)  # raises UnknownSystemError (a ValueError) naming the known ids
        return value


@dataclass(frozen=True)
class RollStep:
    """What one line did: the tool it amounts to, whether it was accepted, the text shown,
    the dice rolled, and the structured result (for a dice command)."""

    tool: str
    arguments: dict[str, Any]
    ok: bool
    text: str
    dice: tuple[Die, ...] = ()
    result: dict[str, Any] | None = None
    quit: bool = False
    shown: str = ""
    """What the player is shown, when it is not ``text`` (a message of the catalogue)."""

    @property
    def screen(self) -> str:
        """The line for the player's screen."""
        return self.shown or self.text


class RollSession:
    """The state of a roll session: system, locale, the one dice source and a running digest.

    ``apply(line)`` is the only way to change it; a refused line changes nothing (it is
    only counted in :attr:`refused`, which is not part of the state hash).
    """

    def __init__(self, seed: int, options: RollOptions | None = None) -> None:
        options = options or RollOptions()
        self.system_id = options.system
        self.locale: Locale = options.locale
        self.source = SeededSource(seed)
        self.steps = 0
        self.commands = 0
        self.refused = 0
        self._digest = hashlib.sha256(f"roll:{seed}".encode()).hexdigest()

    def state_hash(self) -> str:
        """A hash of everything the session's future depends on (the seed's stream included,
        through the digest of every step so far)."""
        text = f"{self.system_id}\n{self.locale}\n{self.steps}\n{len(self.source.history)}\n{self._digest}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def say(self, message: Message) -> str:
        """A catalogue message in the session's current locale."""
        return render(message, self.locale)

    def apply(self, line: str) -> RollStep:
        """Carry out one line and return what it did (never raises on any input string)."""
        text = line.strip()
        lowered = text.lower()
        if lowered in QUIT_WORDS:
            ended = self.say(RollEnded())
            return RollStep(tool="quit", arguments={}, ok=True, text="session ended", quit=True, shown=ended)
        if lowered == "/help":
            step = RollStep(tool="help", arguments={}, ok=True, text=HELP_TEXT, shown=self.say(RollHelp()))
        elif lowered == "/system" or lowered.startswith("/system "):
            step = self._switch_system(text[len("/system") :].strip())
        elif lowered == "/locale" or lowered.startswith("/locale "):
            step = self._switch_locale(text[len("/locale") :].strip())
        elif text.startswith("/"):
            step = RollStep(
                tool="command",
                arguments={"line": text},
                ok=False,
                text=f"unknown session command {text.split()[0]!r}; try /help",
                shown=self.say(UnknownSessionCommand(text.split()[0])),
            )
        else:
            step = self._roll(line)
        self._record(step)
        return step

    def _record(self, step: RollStep) -> None:
        if not step.ok:  # a refused line leaves the state exactly as it was
            self.refused += 1
            return
        self.steps += 1
        if step.tool == "roll":
            self.commands += 1
        entry = repr((step.tool, step.ok, step.text, tuple(step.dice), self.system_id, self.locale))
        self._digest = hashlib.sha256(f"{self._digest}\n{entry}".encode()).hexdigest()

    def _switch_system(self, name: str) -> RollStep:
        if not name:
            known = ", ".join(cls.id for cls in all_systems())
            listing = f"system {self.system_id}; known: {known}"
            shown = self.say(SystemListing(self.system_id, known))
            return RollStep(tool="system", arguments={}, ok=True, text=listing, shown=shown)
        try:
            system = get_system(name)
        except UnknownSystemError as exc:
            refusal = self.say(UnknownSystem(name))
            return RollStep(tool="system", arguments={"system": name}, ok=False, text=str(exc), shown=refusal)
        self.system_id = system.id
        switched = f"system: {system.id} ({system.name})"
        shown = self.say(SystemSwitched(system.id, system.name))
        return RollStep(tool="system", arguments={"system": name}, ok=True, text=switched, shown=shown)

    def _switch_locale(self, name: str) -> RollStep:
        if name not in ("ja", "en"):
            refusal = f"unknown locale {name!r}: use ja or en"
            shown = self.say(UnknownLocale(name))
            return RollStep(tool="locale", arguments={"locale": name}, ok=False, text=refusal, shown=shown)
        self.locale = "ja" if name == "ja" else "en"
        shown = self.say(LocaleSwitched(name))
        switched = f"locale: {name}"
        return RollStep(tool="locale", arguments={"locale": name}, ok=True, text=switched, shown=shown)

    def _roll(self, line: str) -> RollStep:
        arguments = {"command": line, "system": self.system_id}
        mark = self.source.mark()
        try:
            result = evaluate(line, self.system_id, source=self.source, locale=self.locale)
        except ValueError as exc:  # the dice engine's own errors (bad command, too long, ...)
            self.source.restore(mark)
            shown = self.say(RollRefused(str(exc)))
            return RollStep(tool="roll", arguments=arguments, ok=False, text=f"refused: {exc}", shown=shown)
        except Exception as exc:  # a defect in a command must not end the player's session
            self.source.restore(mark)
            return RollStep(
                tool="roll",
                arguments=arguments,
                ok=False,
                text=f"refused: the dice engine failed on this line ({type(exc).__name__}: {exc})",
                shown=self.say(RollRefused(self.say(DiceEngineFailed()))),  # no Python text on screen
            )
        if result is None:
            refusal = f"not a command under {self.system_id}: {line!r}"
            shown = self.say(NoSuchRollCommand(self.system_id, line.strip()))
            return RollStep(tool="roll", arguments=arguments, ok=False, text=refusal, shown=shown)
        if isinstance(result.detail, ErrorDetail):  # over a limit: BCDice's error text, nothing rolled
            self.source.restore(mark)
            shown = self.say(RollRefused(result.text))
            refusal = f"refused: {result.text}"
            return RollStep(tool="roll", arguments=arguments, ok=False, text=refusal, shown=shown)
        # the record keeps its old words (they are in the state hash); the screen the catalogue's
        recorded = f"(secret) {result.text}" if result.secret else result.text
        return RollStep(
            tool="roll",
            arguments=arguments,
            ok=True,
            text=recorded,
            shown=self.say(SecretResult(result.text)) if result.secret else "",
            dice=tuple(result.dice),
            result=result.model_dump(mode="json"),
        )


class NoModelBackend(BackendDefaults):
    """The backend of sessions that never ask a model: any request is a programming error."""

    name = "none"

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Refuse.

        Raises:
            BackendError: always; this session kind has no model.
        """
        raise BackendError(f"this session has no model, yet {request.actor} asked one")


def prompt_for(session: RollSession, in_locale: bool = True) -> str:
    """The prompt the human is shown: the current system, in the session's locale (or, for
    a session recorded before prompts had a locale, the English one)."""
    return session.say(RollPrompt(session.system_id)) if in_locale else f"[{session.system_id}] roll> "


@register_session("roll")
def run_roll_session(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
    """Run a roll session until the human quits (or ``max_lines`` lines).

    Raises:
        SessionError: the options are invalid (unknown system or locale).
    """
    try:
        options = RollOptions.model_validate(spec.options)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SessionError(f"bad roll session options: {first['msg']} at {first['loc']}") from None
    session = RollSession(spec.seed, options)
    io.show(session.say(RollWelcome(session.system_id)))
    for _ in range(options.max_lines):
        prompt = prompt_for(session, options.prompt_in_locale)
        line = io.human.ask(prompt)
        io.sink.emit(HumanInputEvent(prompt=prompt, text=line))
        if not line.strip():
            continue
        step = session.apply(line)
        if step.quit:
            break
        if step.dice:
            io.sink.emit(DiceEvent.of(step.dice))
        io.sink.emit(
            ToolResultEvent(
                actor="human",
                tool=step.tool,
                arguments=step.arguments,
                ok=step.ok,
                result=step.text,
                roll=step.result,
            )
        )
        io.sink.emit(StateEvent(hash=session.state_hash(), step=session.steps))
        io.show(step.screen)
    rolled = len(session.source.history)
    summary = session.say(RollSummary(session.commands, session.refused, rolled, session.system_id))
    io.show(summary)
    return SessionOutcome(
        # transcripts record the line the player saw, in the player's language (compared on replay)
        summary=summary,
        earlier_summaries=(
            f"{session.commands} dice commands ({session.refused} lines refused), {rolled} dice rolled; "
            f"last system {session.system_id}",
        ),
        figures={
            "steps": session.steps,
            "commands": session.commands,
            "refused": session.refused,
            "dice": rolled,
        },
    )
