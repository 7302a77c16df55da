"""The tables of ``gm serve``: each one a session driven on its own thread, its event log in a
:class:`~gm_engine.serve.store.TableStore`, its P1 fed by the web.

The API (stable; the web app, the benchmark and the durability tests use it):

* ``runtime = TableRuntime(store)``, then ``runtime.start()``: claims every running table of
  the store whose lease is free (``claimable_tables`` / ``acquire_lease``), resumes it, and
  from then on every :data:`TICK_SECONDS` renews the leases of the tables it drives (a table
  whose renewal fails is no longer driven here: another process took it over) and claims
  the tables whose holder died; a process started again at the address of a killed one
  takes that one's tables over at once (``take_over_leases``). ``runtime.close()`` stops
  every table (unfinished, resumable) and gives its lease up.
* ``runtime.create_table(config, api_key=None) -> CreatedTable``: a new table
  (:class:`WerewolfTableConfig` or :class:`AdventureTableConfig`), its seed and sealing key
  kept in the store's secrets, P1's seat granted to a fresh token (only its SHA-256 is
  stored); the token is returned once, in ``CreatedTable.token``. Raises :class:`TableError`
  (its text in Japanese) for bad options.
* ``runtime.claim(table_id) -> LiveTable | None``: drive a running table here now if nobody
  holds its lease; ``runtime.holder_of(table_id)``: who holds it (its advertised address,
  :func:`holder_address`, is where the web app forwards the table's requests).
* ``runtime.seat_of(token) -> SeatGrant | None``: the seat a token opens (remembered once
  found: ``runtime.known_seat(token)`` answers without reading the store).
* ``runtime.live(table_id) -> LiveTable | None``: the table driven here, with
  ``view(after)`` (the seat's screen lines after ``after``, its panel, the question it is
  asked, its status: all JSON-ready, nothing P1 may not know), ``accept(text)`` (P1's
  answer: it returns once the answer is stored, before the session takes it, so that a
  player waits for the disk and not for the other tables; a table stopped before it took
  the answer takes it when resumed), ``submit(text)`` (the same, returning once the session
  took it and it is recorded, or asked again, for instance with its refusal, state
  unchanged; see :class:`Submitted`) and ``subscribe()`` (an :class:`asyncio.Event` set
  whenever the view changes).
* ``runtime.lobby()``: the running tables; ``runtime.transcript(table_id)``: a finished
  table's transcript bytes (what ``gm replay`` reads), None before its end.

The transcript lines are appended to the store before anything they record is shown
(:class:`StoreOutput` is the transcript writer's output: it keeps a step's lines and appends
them in one transaction just before the table shows or asks anything); a table is rebuilt
by the same replay ``gm resume`` uses (:func:`~gm_engine.transcripts.resume.resume_lines`),
so a server killed at any point and started again goes on where the store's lines stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import secrets
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from gm_engine.dice.result import Locale
from gm_engine.events import HumanInputEvent, SessionEvent, StateEvent
from gm_engine.llm.base import BackendError, ConfigurationError, ModelBackend, ModelRequest, ModelResponse
from gm_engine.messages import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import (
    ConfigNoModel,
    ConfigNoUrl,
    ConfigOfflineServer,
    ConfigRoleAndDeal,
    PageCannotGoOn,
    PageServerFinal,
    PageServerLater,
    PageStoppedError,
    PageText,
    PageWord,
    TableAnswerNotStored,
    TableChooseShown,
    TableConfigInvalid,
    TableInputTooLong,
    TableNoQuit,
    TableNoScenario,
    TableNoServerAllowed,
    TableNotYourTurn,
    TableOver,
    TableServerNotAllowed,
    TableSessionRefused,
    TableTakenOver,
    TableUnreadable,
)
from gm_engine.messages.validation import validation_message
from gm_engine.safe_text import printable
from gm_engine.serve.aiwolf_seats import AIWolfSeatsOption, AIWolfTables
from gm_engine.serve.page_text import word
from gm_engine.serve.seat_view import Panel, adventure_panel, question_buttons, werewolf_panel
from gm_engine.serve.store import LeaseLost, QueuedSecrets, SeatGrant, StoreError, TableRow, TableStore
from gm_engine.serve.turns import TurnTaker
from gm_engine.sessions.base import HumanDefaults, SessionError, SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import TranscriptError, TranscriptWriter, signing_key_or_none
from gm_engine.transcripts.record import TeeSink
from gm_engine.transcripts.resume import resume_lines
from gm_engine.transcripts.sealing import GameKey, KeptGame
from gm_engine.werewolf import WerewolfOptions

__all__ = [
    "LEASE_SECONDS",
    "PENDING_ANSWER",
    "PUSH_SECONDS",
    "SUBMIT_PHASES",
    "TICK_SECONDS",
    "AdventureTableConfig",
    "CreatedTable",
    "Frame",
    "KeptAnswer",
    "LiveTable",
    "StoreOutput",
    "Submitted",
    "TableConfig",
    "TableError",
    "TableRuntime",
    "TurnBackend",
    "WebHuman",
    "WerewolfTableConfig",
    "holder_address",
    "parse_config",
    "token_digest",
]

#: How long a lease lasts without renewal; a dead holder's tables are taken over after it.
LEASE_SECONDS = 15.0
#: How often leases are renewed and free tables claimed.
TICK_SECONDS = 3.0
#: How long :meth:`LiveTable.submit` waits for the session to take an answer.
SUBMIT_SECONDS = 30.0
#: How soon a new screen line is pushed to the event streams (a question and the end go at
#: once): the lines shown meanwhile go in the same message.
PUSH_SECONDS = 0.025
#: The longest line P1 may send at an adventure table (a werewolf table takes the rules'
#: ``max_text_length``, as the terminal game does).
MAX_ADVENTURE_INPUT = 2000
#: How many seat tokens a runtime remembers (:meth:`TableRuntime.seat_of`).
MAX_KNOWN_SEATS = 100_000
#: How long a table stopped by a failing model server waits before it is resumed again.
RETRY_SECONDS = 30.0

#: What a table taken over by another process says.
TAKEN_OVER = PageText(PageWord.TAKEN_OVER)

_QUIT = frozenset({"/quit", "/exit", "/end", "終了"})
_UNREADABLE = re.compile("[\ud800-\udfff\x00]")


class TableError(ValueError):
    """A table request was refused. ``reason`` says why, a catalogue message: the requester
    reads :meth:`describe` in their language; ``str(exc)`` is the Japanese text."""

    def __init__(self, reason: Message) -> None:
        super().__init__(render(reason, DEFAULT_LOCALE))
        self.reason = reason

    def describe(self, locale: Locale) -> str:
        """Why, in ``locale``."""
        return render(self.reason, locale)


class ConfigConflict(ValueError):
    """Options of a table's form that disagree (raised by the configuration's validators;
    :func:`parse_config` says it in the form's words)."""

    def __init__(self, reason: Message) -> None:
        super().__init__(render(reason, DEFAULT_LOCALE))
        self.reason = reason

    def explanation(self) -> Message:
        """What disagrees (:class:`~gm_engine.messages.validation.Explained`)."""
        return self.reason


# --------------------------------------------------------------------------- configuration


def _check_model_server(backend: str, model: str | None, base_url: str | None) -> None:
    """An openai table names its model and its server; an offline one neither (a table
    filed without them would stop on its first turn, and go on stopping)."""
    if backend == "openai":
        if not model or not model.strip():
            raise ConfigConflict(ConfigNoModel())
        if not base_url or not base_url.strip():
            raise ConfigConflict(ConfigNoUrl())
    elif model is not None or base_url is not None:
        raise ConfigConflict(ConfigOfflineServer())


def _defaults_in_locale(data: Any, title: PageWord) -> Any:
    """A table's form with the title (and P1's name) it leaves out in the table's language:
    an English table is "Werewolf" and its P1 "Player", as ``gm werewolf play`` names P1."""
    if not isinstance(data, dict):
        return data
    locale: Locale = "en" if data.get("locale") == "en" else DEFAULT_LOCALE
    filled = {"title": word(title, locale)}
    if title is PageWord.TITLE_WEREWOLF:
        filled["human_name"] = word(PageWord.DEFAULT_NAME, locale)
    return {**filled, **data}


def normal_server_url(url: str) -> str:
    """A model server's base URL as it is compared with ``gm serve --model-server``'s list:
    surrounding spaces and a trailing slash do not matter."""
    return url.strip().rstrip("/")


class WerewolfTableConfig(BaseModel):
    """A werewolf table: the rule options as ``gm werewolf play`` takes them, P1's role
    (None: P1 chooses at the table), the model server (``offline`` by default, or an
    OpenAI-compatible server at ``base_url``; its key is a secret, never part of this), and
    the table's language (``locale``: its session's, its page's and its refusals'; a title
    or P1's name left out is the language's default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["werewolf"] = "werewolf"
    title: str = Field(default="人狼", min_length=1, max_length=40)
    role: int | None = Field(default=None, ge=1, le=6)
    deal: tuple[int, ...] | None = None
    human_name: str = Field(default="プレイヤー", min_length=1, max_length=20)
    narrator: bool = True
    rules: WerewolfOptions = WerewolfOptions()
    backend: Literal["offline", "openai"] = "offline"
    model: str | None = Field(default=None, max_length=200)
    base_url: str | None = Field(default=None, max_length=500)
    aiwolf: AIWolfSeatsOption | None = None
    """The seats AIWolf agents play (gm_engine.serve.aiwolf_seats); None: personas only."""
    locale: Locale = DEFAULT_LOCALE

    @model_validator(mode="before")
    @classmethod
    def _named_in_locale(cls, data: Any) -> Any:
        return _defaults_in_locale(data, PageWord.TITLE_WEREWOLF)

    @model_validator(mode="after")
    def _consistent(self) -> WerewolfTableConfig:
        if self.role is not None and self.deal and self.deal[0] != self.role:
            raise ConfigConflict(ConfigRoleAndDeal(self.role, self.deal[0]))
        _check_model_server(self.backend, self.model, self.base_url)
        return self

    def input_limit(self) -> int:
        """The longest line P1 may send: the rules' limit of a speech."""
        return self.rules.max_text_length

    def spec(self, seed: int) -> SessionSpec:
        """The session spec of this table (the options ``gm werewolf play`` would write)."""
        options: dict[str, Any] = {
            "auto": False,
            "human_name": self.human_name,
            "narrator": self.narrator,
            "rules": self.rules.model_dump(mode="json"),
            "web": True,
        }
        if self.role is not None:
            options["role"] = self.role
        if self.deal is not None:
            options["deal"] = list(self.deal)
        if self.aiwolf is not None:
            options["seat_agents"] = self.aiwolf.seat_agents()
        if self.locale != DEFAULT_LOCALE:  # not written by default: a Japanese table's header stays
            options["locale"] = self.locale
        return SessionSpec(
            kind="werewolf", seed=seed, options=options, backend=self.backend, model=self.model
        )


class AdventureTableConfig(BaseModel):
    """A solo adventure table: a shipped scenario, the GM's model server, and the table's
    language (``locale``, as for a werewolf table)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["adventure"] = "adventure"
    title: str = Field(default="冒険", min_length=1, max_length=40)
    scenario: str = Field(default="goblin_shrine", max_length=80)
    max_turns: int = Field(default=200, ge=1, le=10_000)
    backend: Literal["offline", "openai"] = "offline"
    model: str | None = Field(default=None, max_length=200)
    base_url: str | None = Field(default=None, max_length=500)
    locale: Locale = DEFAULT_LOCALE

    @model_validator(mode="before")
    @classmethod
    def _named_in_locale(cls, data: Any) -> Any:
        return _defaults_in_locale(data, PageWord.TITLE_ADVENTURE)

    @model_validator(mode="after")
    def _consistent(self) -> AdventureTableConfig:
        _check_model_server(self.backend, self.model, self.base_url)
        return self

    def input_limit(self) -> int:
        """The longest line P1 may send."""
        return MAX_ADVENTURE_INPUT

    def spec(self, seed: int) -> SessionSpec:
        """The session spec of this table (the options ``gm adventure`` would write)."""
        options: dict[str, Any] = {
            "system": "DiceBot",
            "max_turns": self.max_turns,
            "scenario": self.scenario,
            "web": True,
        }
        if self.locale != DEFAULT_LOCALE:
            options["locale"] = self.locale
        return SessionSpec(
            kind="adventure", seed=seed, options=options, backend=self.backend, model=self.model
        )


TableConfig = Annotated[WerewolfTableConfig | AdventureTableConfig, Field(discriminator="kind")]
_CONFIG: TypeAdapter[WerewolfTableConfig | AdventureTableConfig] = TypeAdapter(TableConfig)


def parse_config(data: object) -> WerewolfTableConfig | AdventureTableConfig:
    """A table's configuration from JSON-ready data (a form, the store's ``config_json``).

    Raises:
        TableError: a field is unknown or out of range (which field, what was wrong, what is
            accepted; the requester reads it in their language).
    """
    kind = data.get("kind") if isinstance(data, dict) else None
    try:
        # a known kind is validated by its own model, so a problem names the form's field
        # (``role``), not the union's branch (``werewolf.role``)
        if kind == "werewolf":
            return WerewolfTableConfig.model_validate(data)
        if kind == "adventure":
            return AdventureTableConfig.model_validate(data)
        return _CONFIG.validate_python(data)
    except ValidationError as exc:
        model = WerewolfTableConfig if kind == "werewolf" else AdventureTableConfig if kind else None
        raise TableError(TableConfigInvalid(validation_message(exc, model))) from None


def token_digest(token: str) -> str:
    """The SHA-256 hex of a seat token: all the store keeps of it."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CreatedTable:
    """A new table and P1's token (shown once: only its digest is kept)."""

    table_id: str
    token: str


# --------------------------------------------------------------------------- the store as output


class StoreOutput:
    """A transcript writer's :class:`~gm_engine.transcripts.format.LineOutput` into a table's
    store. Lines are kept here until :meth:`flush`, which appends all of them in one
    transaction at the next index, under the lease: the table flushes just before it shows
    or asks anything (see :meth:`LiveTable.before_shown`), so what was shown is always
    stored, and a step of the session costs one commit instead of one per event.

    Raises (from :meth:`flush` and :meth:`close`):
        LeaseLost: this process no longer holds the table (nothing was written).
        LineConflict: the store holds other lines than this writer knows of.
    """

    def __init__(self, store: TableStore, table_id: str, holder: str, first_index: int) -> None:
        self.store = store
        self.table_id = table_id
        self.holder = holder
        self.next_index = first_index
        self._waiting: list[str] = []

    @property
    def waiting(self) -> bool:
        """Whether lines are kept for the next flush."""
        return bool(self._waiting)

    def write_lines(self, lines: Sequence[str], data: bytes) -> None:
        """Keep ``lines`` for the next flush (``data`` is not needed: the store keeps lines)."""
        self._waiting.extend(lines)

    def flush(self) -> None:
        """Append the lines kept since the last flush, in one transaction (nothing when none)."""
        if not self._waiting:
            return
        self.store.append_lines(self.table_id, self.next_index, self._waiting, holder=self.holder)
        self.next_index += len(self._waiting)
        self._waiting = []

    def close(self) -> None:
        """Append what is kept: the writer writes nothing more (the store outlives it)."""
        self.flush()


# --------------------------------------------------------------------------- one table


@dataclass(frozen=True, slots=True)
class Submitted:
    """What became of P1's answer: ``taken`` (the session applied it and recorded the
    step), ``asked`` (it was recorded and the session asks again: a refusal, a follow-up
    question such as a vote's reason, or a help text; ``lines`` says which), ``ended`` (the
    session ended after it) or ``recorded`` (stored, and the session takes it in its turn:
    :meth:`LiveTable.accept` says no more, :meth:`LiveTable.submit` when its wait ran out);
    ``lines`` are the screen lines shown since it was sent."""

    status: Literal["taken", "asked", "ended", "recorded"]
    lines: tuple[str, ...]
    timings: tuple[tuple[str, float], ...] = ()
    """Where the wait went, in seconds, in order (see :data:`SUBMIT_PHASES`): what the web
    app reports in its ``Server-Timing`` header, for the benchmark."""


#: The phases of :attr:`Submitted.timings`: the answer checked and stored; then, when the
#: web waits for the session (:meth:`LiveTable.submit`), the session's thread woken with
#: it, its turn for the processor, the session's work until the answer's step is ready to
#: store, that step's commit; and the web's thread woken with the outcome (with
#: :meth:`LiveTable.accept_soon`, the event loop woken by the store's writer). An
#: acknowledgement from a worker thread (:meth:`LiveTable.accept_soon` on a store that queues
#: no writes) begins with "thread", the wait for that thread.
SUBMIT_PHASES = ("store", "wake", "slot", "session", "commit", "reply")


@dataclass
class _Pending:
    text: str
    mark: int
    began: float = 0.0
    """``time.perf_counter()`` when the web handed the answer in."""
    recorded: bool = False
    outcome: Literal["taken", "asked", "ended"] | None = None
    stamps: dict[str, float] = field(default_factory=dict)
    """``time.perf_counter()`` where each phase ended (see :data:`SUBMIT_PHASES`)."""

    def stamp(self, phase: str) -> None:
        self.stamps.setdefault(phase, time.perf_counter())

    def timings(self, began: float) -> tuple[tuple[str, float], ...]:
        """The phases' durations from ``began`` on (a phase never reached is left out)."""
        out: list[tuple[str, float]] = []
        last = began
        for phase in SUBMIT_PHASES:
            at = self.stamps.get(phase)
            if at is not None:
                out.append((phase, max(0.0, at - last)))
                last = at
        return tuple(out)


Status = Literal["starting", "running", "finished", "failed", "stopped", "error"]

#: The table's secret (:meth:`~gm_engine.serve.store.TableStore.put_secret`) holding P1's
#: latest answer, stored before it is acknowledged (:meth:`LiveTable.accept`). A secret: it
#: is the seat's own, never shown to anyone else.
PENDING_ANSWER = "pending_answer"


@dataclass(frozen=True, slots=True)
class KeptAnswer:
    """P1's answer to one question, as :data:`PENDING_ANSWER` keeps it: the question is
    named by the number of transcript lines stored when it was asked (``at``) and a digest
    of its prompt and choices (``question``). The lines grow between two questions (every
    answer is recorded before anything else is shown or asked), and a session asks the
    same question at the same line whenever it is resumed, so an answer stored and never
    taken is taken by the resumed session at that question and at no other."""

    at: int
    question: str
    text: str = ""

    @staticmethod
    def asked(at: int, prompt: str, choices: Sequence[str] | None) -> KeptAnswer:
        """The question asked at line ``at`` (no answer yet)."""
        named = json.dumps([prompt, None if choices is None else list(choices)], ensure_ascii=False)
        return KeptAnswer(at, hashlib.sha256(named.encode("utf-8")).hexdigest())

    def same_question(self, other: KeptAnswer) -> bool:
        """Whether both name the same question."""
        return self.at == other.at and self.question == other.question

    def to_bytes(self) -> bytes:
        """As the store keeps it."""
        return json.dumps(
            {"at": self.at, "question": self.question, "text": self.text}, ensure_ascii=False
        ).encode("utf-8")

    @staticmethod
    def from_bytes(data: bytes) -> KeptAnswer | None:
        """What :meth:`to_bytes` wrote; None for anything else (nothing is taken from it)."""
        try:
            value = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        if not isinstance(value, dict):
            return None
        at, question, text = value.get("at"), value.get("question"), value.get("text")
        if not (isinstance(at, int) and isinstance(question, str) and isinstance(text, str)):
            return None
        return KeptAnswer(at, question, text)


@dataclass(frozen=True, slots=True)
class Frame:
    """A view as an event stream sends it (:meth:`LiveTable.frame`)."""

    text: str
    """The view's JSON: one line, the object :meth:`LiveTable.view` returns."""
    version: int
    line_count: int
    status: Status


def _recorded(pending: _Pending) -> Submitted:
    """The acknowledgement of an answer stored (:meth:`LiveTable.accept`): its timings are the
    store and the way back to the caller, whatever the session stamped meanwhile (it may
    take the answer before the caller runs again)."""
    replied = time.perf_counter()
    stored = pending.stamps.get("store", replied)
    # a store without a writer of its own is written from a worker thread: the wait for one
    # ("thread") is told apart from the write itself
    began = pending.stamps.get("thread", pending.began)
    timings = (
        *((("thread", max(0.0, began - pending.began)),) if began != pending.began else ()),
        ("store", max(0.0, stored - began)),
        ("reply", max(0.0, replied - stored)),
    )
    return Submitted(status="recorded", lines=(), timings=timings)


def _settle_future(future: asyncio.Future[BaseException | None], error: BaseException | None) -> None:
    if not future.done():  # a cancelled waiter: the answer was handed over all the same
        future.set_result(error)


def _json_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _Watcher:
    """An event stream of the table's view: its loop, its event, whether a push is due."""

    __slots__ = ("due", "event", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
        self.loop = loop
        self.event = event
        self.due = False

    def push(self) -> None:
        """Wake the stream (in its loop)."""
        self.due = False
        self.event.set()


def _not_stored_reason(error: BaseException) -> Message:
    """What P1 is told of an answer the store did not keep: another process drives the table
    now (the answer goes there), or the disk or the database failed (P1 may send it again)."""
    return TableTakenOver() if isinstance(error, LeaseLost) else TableAnswerNotStored()


class LiveTable:
    """A table driven by this process: what its seat sees, and the answer it is waiting for.

    Every method is safe to call from any thread (the session's, the web's)."""

    def __init__(
        self,
        row: TableRow,
        config: WerewolfTableConfig | AdventureTableConfig,
        epoch: int,
        turns: TurnTaker | None = None,
    ) -> None:
        self.row = row
        self.config = config
        self.epoch = epoch
        self.status: Status = "starting"
        self.message = ""
        self.lines: list[str] = []
        self.panel: Panel | None = None
        self.question: dict[str, Any] | None = None
        self.version = 0
        self.retry_at = 0.0
        self._legal: tuple[object, ...] = ()
        self._names: tuple[str, ...] | None = None
        self._cond = threading.Condition()
        self._answer: str | None = None
        self._pending: _Pending | None = None
        self._stopping = False
        self._asked = 0
        self._watchers: set[_Watcher] = set()
        self._output: StoreOutput | None = None
        self._asked_at: KeptAnswer | None = None  # where the question now asked was asked
        # the JSON text of the panel and the question, and which ones it is of (see frame)
        self._panel_of: Panel | None = None
        self._panel_text = "null"
        self._question_of: dict[str, Any] | None = None
        self._question_text = "null"
        self._head = ""
        self._kept: KeptAnswer | None = None  # an answer stored before a restart, not yet taken
        self.turns = turns or TurnTaker()
        self.turn = self.turns.turn()

    def before_shown(self, output: StoreOutput) -> None:
        """Flush ``output`` (the table's transcript lines) before anything is shown or asked,
        or an answer is said to be taken: the rule is stored before shown. An answer P1 sent
        before the table was stopped, stored and never taken (see :meth:`accept`), is read
        back from ``output``'s store: the session takes it when it asks that question again."""
        self._output = output
        kept = output.store.get_secret(output.table_id, PENDING_ANSWER)
        self._kept = KeptAnswer.from_bytes(kept) if kept else None

    def step(self) -> None:
        """A step of the session (a line shown, an event, a question, a model call): the
        table's turn for the processor (:class:`~gm_engine.serve.turns.TurnTaker`)."""
        self.turns.checkpoint(self.turn)

    def _store_lines(self) -> None:
        output = self._output
        if output is None or not output.waiting:
            return
        self.turns.release(self.turn)  # a commit waits for the disk, not the processor
        output.flush()

    # -- what the session calls (the table's thread) ----------------------------------------------

    def show(self, line: str) -> None:
        """A screen line of P1's (the session's ``io.show``): kept and pushed."""
        self._store_lines()
        with self._cond:
            self.lines.extend(printable(line).split("\n"))
            self._changed()
        self.step()

    def observed(self, observation: object, legal: Sequence[object]) -> None:
        """What the session shows the seat before a question: the panel is built from it."""
        from gm_engine.sessions.adventure import GMView
        from gm_engine.sessions.adventure_scenario import ScenarioGMView
        from gm_engine.werewolf.views import Observation

        self._store_lines()
        with self._cond:
            if isinstance(observation, Observation):
                self.panel = werewolf_panel(observation, self.config.locale)
                self._names = observation.names
            elif isinstance(observation, GMView):
                sheet = None
                if isinstance(observation, ScenarioGMView) and observation.sheet is not None:
                    sheet = (observation.sheet, observation.system)
                self.panel = adventure_panel(
                    observation.party, observation.battle_round, observation.phase, sheet, self.config.locale
                )
            self._legal = tuple(legal)
            self._changed()
        self.step()

    def ask(self, prompt: str, choices: Sequence[str] | None) -> str:
        """Wait for P1's answer to ``prompt`` (a quit when the table is being stopped); an
        answer to this very question stored before a restart (:meth:`accept`) is taken at once."""
        self._store_lines()
        output = self._output
        asked = KeptAnswer.asked(output.next_index if output is not None else -1, prompt, choices)
        with self._cond:
            self._settle("asked")
            kept = self._kept
            if kept is not None and kept.same_question(asked):
                # P1 answered this question before the restart and was told it was stored
                self._kept = None
                self._changed()
                text = kept.text
            else:
                text = self._wait_answer(prompt, choices, asked)
        self.step()  # the answered table goes first (see submit)
        pending = self._pending
        if pending is not None:
            pending.stamp("slot")
        return text

    def _wait_answer(self, prompt: str, choices: Sequence[str] | None, asked: KeptAnswer) -> str:
        """Ask the seat (``self._cond`` held) and wait for the web's answer."""
        buttons = (
            question_buttons(prompt, choices, self._legal, self._names, self.config.locale)
            if self.config.kind == "werewolf"
            else []
        )
        self._asked += 1
        self.question = {
            "id": self._asked,
            "prompt": printable(prompt),
            "buttons": [b.as_json() for b in buttons],
            "free_text": choices is None,
        }
        self._asked_at = asked
        self._changed(at_once=True)
        if self._answer is None:
            self.turns.pause(self.turn)  # nothing to run until P1 answers: others run
        while self._answer is None and not self._stopping:
            self._cond.wait()
        self._asked_at = None
        if self._answer is None:
            self.question = None
            return "/quit"  # never recorded: the session stops where it was, resumable
        text, self._answer = self._answer, None
        if self._pending is not None:
            self._pending.stamp("wake")
        return text

    def emit(self, event: SessionEvent) -> None:
        """Every new event, after it is in the store: settles a pending answer."""
        pending = self._pending
        if pending is not None:
            if isinstance(event, StateEvent) and pending.recorded:
                pending.stamp("session")
                self._store_lines()  # "taken" says the answer is stored
                pending.stamp("commit")
            with self._cond:
                if isinstance(event, HumanInputEvent):
                    pending.recorded = True
                elif isinstance(event, StateEvent) and pending.recorded:
                    self._settle("taken")
        self.step()

    def started(self) -> None:
        """The session runs (or replays its lines) from now on."""
        with self._cond:
            self.status = "running"
            self._changed()

    def ended(self, status: Status, message: str | Message = "") -> None:
        """The session is over here (finished, failed, stopped, or paused by an error);
        ``message`` says how (a catalogue message is said in the table's language)."""
        if isinstance(message, Message):
            message = render(message, self.config.locale)
        with self._cond:
            self.status = status
            self.message = printable(message)
            self.question = None
            self._settle("ended")
            self._changed(at_once=True)

    # -- what the web calls ---------------------------------------------------------------------------

    def accept(self, text: str) -> Submitted:
        """P1's answer to the question now asked, stored and handed to the session: it
        returns once the answer is on the disk (status ``recorded``), before the session
        takes it, whatever the other tables are doing; what comes of it is pushed to the
        event streams like every other change. A table stopped or taken over before it took
        the answer takes it when it is resumed (:meth:`ask`).

        Raises:
            TableError: as :meth:`submit` (nothing is stored then), or the store failed (the
                question stays asked).
        """
        return _recorded(self._hand_over(text))

    def submit(self, text: str, timeout: float = SUBMIT_SECONDS) -> Submitted:
        """P1's answer to the question now asked, stored and handed to the session as by
        :meth:`accept`; it returns once the session took it and it is recorded, or asked
        again, for instance with its refusal (see :class:`Submitted`), or after ``timeout``.

        Raises:
            TableError: the game is over, no question is asked now, the answer is not one
                of the offered choices, too long, holds unreadable characters, or is a quit (a
                web table is left by closing the page; it goes on from where it was), or the
                store failed.
        """
        deadline = time.monotonic() + timeout
        pending = self._hand_over(text)
        with self._cond:
            while pending.outcome is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            if pending.outcome is None and self._pending is pending:
                self._pending = None  # the answer stays with the session; the wait is over
                self.turns.calm(self.turn)
            status = pending.outcome or "recorded"
            pending.stamp("reply")
            return Submitted(
                status=status, lines=tuple(self.lines[pending.mark :]), timings=pending.timings(pending.began)
            )

    async def accept_soon(self, text: str) -> Submitted:
        """:meth:`accept` for the web's event loop: the checks run on the loop, the answer is
        handed to the store's writer with a callback when the store queues its writes
        (:class:`~gm_engine.serve.store.QueuedSecrets`) and given to the session from that
        callback, in the writer's thread, once its commit is on the disk; only then does
        this return. No thread of the pool waits for the disk, and the session is woken
        without a hop through the loop. A store without the capability is written from a
        worker thread, as :meth:`accept` does.

        If the awaiting task is cancelled (the player went away), the answer is still handed
        to the session once it is stored: nothing is left half taken.

        Raises:
            TableError: as :meth:`accept`.
        """
        pending, kept, output = self._claim(text)
        if kept is None or output is None:
            self._stored(pending)
        elif isinstance(output.store, QueuedSecrets):
            loop = asyncio.get_running_loop()
            written: asyncio.Future[BaseException | None] = loop.create_future()

            def then(error: BaseException | None) -> None:  # the writer's thread, after its commit
                if error is None:
                    self._stored(pending)
                else:
                    self._not_stored(pending, error)
                with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                    loop.call_soon_threadsafe(_settle_future, written, error)

            try:
                output.store.put_secret_then(
                    output.table_id, PENDING_ANSWER, kept.to_bytes(), then, holder=output.holder
                )
            except StoreError as exc:
                self._not_stored(pending, exc)
                raise TableError(_not_stored_reason(exc)) from None
            refused = await written
            if refused is not None:
                raise TableError(_not_stored_reason(refused))
        else:
            await asyncio.to_thread(self._store_answer, pending, kept, output, threaded=True)
        return _recorded(pending)

    def _hand_over(self, text: str) -> _Pending:
        """Check P1's answer, store it (:data:`PENDING_ANSWER`), then hand it to the session."""
        pending, kept, output = self._claim(text)
        if kept is None or output is None:
            self._stored(pending)
        else:
            self._store_answer(pending, kept, output)
        return pending

    def _claim(self, text: str) -> tuple[_Pending, KeptAnswer | None, StoreOutput | None]:
        """Check P1's answer and mark it pending (a second answer is refused from here on);
        what to store of it, and where (None: the table keeps no store)."""
        began = time.perf_counter()
        limit = self.config.input_limit()
        if not isinstance(text, str) or len(text) > limit:
            raise TableError(TableInputTooLong(limit))
        if _UNREADABLE.search(text):
            raise TableError(TableUnreadable())
        if text.strip() in _QUIT:
            raise TableError(TableNoQuit())
        with self._cond:
            question = self.question
            if self.status == "finished":
                raise TableError(TableOver())
            if self.status != "running" or question is None or self._pending is not None:
                raise TableError(TableNotYourTurn())
            if not question["free_text"] and text not in {b["send"] for b in question["buttons"]}:
                raise TableError(TableChooseShown())
            # from here a second answer is refused: this one is being stored
            pending = _Pending(text=text, mark=len(self.lines), began=began)
            self._pending = pending
            asked, output = self._asked_at, self._output
        if asked is None or output is None:
            return pending, None, None
        return pending, KeptAnswer(asked.at, asked.question, text), output

    def _store_answer(
        self, pending: _Pending, kept: KeptAnswer, output: StoreOutput, *, threaded: bool = False
    ) -> None:
        """Store the pending answer and hand it to the session (this thread waits for the disk;
        ``threaded``: a worker thread the web's loop handed it to)."""
        if threaded:
            pending.stamp("thread")
        try:
            output.store.put_secret(output.table_id, PENDING_ANSWER, kept.to_bytes(), holder=output.holder)
        except Exception as exc:  # the disk or the database: the question stays, the player may resend
            self._not_stored(pending, exc)
            raise TableError(_not_stored_reason(exc)) from None
        self._stored(pending)

    def _not_stored(self, pending: _Pending, error: BaseException) -> None:
        """The answer could not be stored: it is not pending any more (P1 may send it again,
        or, when another process took the table over, send it there)."""
        if not isinstance(error, LeaseLost):  # a lost lease is no fault of this process
            traceback.print_exception(error, file=sys.stderr)
        with self._cond:
            if self._pending is pending:
                self._pending = None

    def _stored(self, pending: _Pending) -> None:
        """The answer is stored: the session takes it (any thread may call this)."""
        pending.stamp("store")
        with self._cond:
            if self._pending is pending:  # else the table ended meanwhile: a resumed one takes it
                self._answer = pending.text
                self.question = None
                self.turns.hurry(self.turn)  # the table goes before every busy one
                self._changed()

    def view(self, after: int = 0) -> dict[str, Any]:
        """What the seat sees: its screen lines from ``after`` on, its panel, the question,
        the table's status (JSON-ready)."""
        with self._cond:
            start = max(0, min(after, len(self.lines)))
            return {
                "table_id": self.row.table_id,
                "kind": self.row.kind,
                "title": printable(self.row.title, newlines=False),
                "locale": self.config.locale,
                "epoch": self.epoch,
                "version": self.version,
                "status": self.status,
                "message": self.message,
                "from": start,
                "lines": self.lines[start:],
                "line_count": len(self.lines),
                "panel": self.panel,
                "question": self.question,
                "input_limit": self.config.input_limit(),
            }

    def frame(self, after: int = 0) -> Frame:
        """:meth:`view` as the JSON text an event stream sends (the same object), with its
        version, line count and status: the panel's and the question's text are made once
        each, when they changed, not once a message, so an event stream's message costs
        little more than its new lines."""
        with self._cond:
            start = max(0, min(after, len(self.lines)))
            if self.panel is not self._panel_of:  # a panel is replaced, never changed in place
                self._panel_of, self._panel_text = self.panel, _json_text(self.panel)
            if self.question is not self._question_of:
                self._question_of, self._question_text = self.question, _json_text(self.question)
            head = self._head or self._make_head()
            text = (
                f'{head},"version":{self.version},"status":"{self.status}",'
                f'"message":{_json_text(self.message)},"from":{start},'
                f'"lines":{_json_text(self.lines[start:])},"line_count":{len(self.lines)},'
                f'"panel":{self._panel_text},"question":{self._question_text}}}'
            )
            return Frame(text, self.version, len(self.lines), self.status)

    def _make_head(self) -> str:
        self._head = (
            f'{{"table_id":{_json_text(self.row.table_id)},"kind":{_json_text(self.row.kind)},'
            f'"title":{_json_text(printable(self.row.title, newlines=False))},'
            f'"locale":{_json_text(self.config.locale)},"epoch":{self.epoch},'
            f'"input_limit":{self.config.input_limit()}'
        )
        return self._head

    def subscribe(self) -> asyncio.Event:
        """An event of the running loop, set whenever the view changes (clear it, read the
        view, wait again); :meth:`unsubscribe` it when done."""
        watcher = _Watcher(asyncio.get_running_loop(), asyncio.Event())
        with self._cond:
            self._watchers.add(watcher)
        return watcher.event

    def unsubscribe(self, event: asyncio.Event) -> None:
        """Stop setting ``event``."""
        with self._cond:
            self._watchers = {w for w in self._watchers if w.event is not event}

    def stop(self) -> None:
        """Make a question asked now (or next) answer as a quit: the session stops unfinished."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()

    # -- inside ---------------------------------------------------------------------------------------

    def _settle(self, outcome: Literal["taken", "asked", "ended"]) -> None:
        pending = self._pending
        if pending is not None:
            pending.outcome = outcome
            self._pending = None
            self.turns.calm(self.turn)
            self._cond.notify_all()

    def _changed(self, *, at_once: bool = False) -> None:
        """The view changed: tell the watchers, at once for a question or the end, else within
        :data:`PUSH_SECONDS` (the lines of a burst go in one message, not one message each)."""
        self.version += 1
        self._cond.notify_all()
        for watcher in list(self._watchers):
            try:
                if at_once:
                    watcher.loop.call_soon_threadsafe(watcher.event.set)
                elif not watcher.due:
                    watcher.due = True  # cleared by the push, before it sets the event
                    watcher.loop.call_soon_threadsafe(watcher.loop.call_later, PUSH_SECONDS, watcher.push)
            except RuntimeError:  # the loop closed: its connection is gone
                self._watchers.discard(watcher)


class WebHuman(HumanDefaults):
    """The person at P1 of a web table: asked through :class:`LiveTable`."""

    def __init__(self, table: LiveTable) -> None:
        self.table = table

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Wait for the web's answer."""
        return self.table.ask(prompt, choices)

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """Keep the seat's panel and legal actions for the page."""
        self.table.observed(observation, legal)


class TurnBackend:
    """A table's model, asked in the table's turn (:class:`~gm_engine.serve.turns.TurnTaker`):
    the offline model thinks on this process's processor, so every call is a step where a
    waiting table may go first; a model server is waited for without a slot."""

    def __init__(self, inner: ModelBackend, table: LiveTable, *, on_processor: bool) -> None:
        self.inner = inner
        self.table = table
        self.on_processor = on_processor
        self.name = inner.name

    @property
    def keeps_state(self) -> bool:
        """The table's model's own answer."""
        return self.inner.keeps_state

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """The table's model's answer, asked in the table's turn."""
        if self.on_processor:
            self.table.step()
        else:
            self.table.turns.release(self.table.turn)  # the next step queues again
        return await self.inner.complete(request, context)

    def prepare(self) -> None:
        """The table's model's own set-up."""
        self.inner.prepare()

    async def aclose(self) -> None:
        """The table's model's own release."""
        await self.inner.aclose()


# --------------------------------------------------------------------------- the runtime

BackendFactory = Callable[[WerewolfTableConfig | AdventureTableConfig, str | None], ModelBackend]


def default_backend(config: WerewolfTableConfig | AdventureTableConfig, api_key: str | None) -> ModelBackend:
    """The table's model: the offline one, or the OpenAI-compatible server it names.

    Raises:
        BackendError: an openai table without a model name.
    """
    if config.backend == "offline":
        from gm_engine.llm.offline import OfflineBackend

        return OfflineBackend()
    from gm_engine.llm.openai_backend import OpenAIBackend

    if not config.model:
        raise BackendError("モデル名がありません（openai の卓にはモデル名が必要です）")
    return OpenAIBackend(model=config.model, base_url=config.base_url or None, api_key=api_key or "none")


def _server_trouble(exc: BackendError, locale: Locale) -> str:
    """What the model server's failure was, in ``locale`` (the server's own words inside)."""
    from gm_engine.llm.base import ConfigurationError, TransientBackendError
    from gm_engine.messages import render
    from gm_engine.messages.texts import ServerMisconfigured, ServerRefused, ServerUnreachable

    if isinstance(exc, ConfigurationError):
        return render(ServerMisconfigured(str(exc)), locale)
    if isinstance(exc, TransientBackendError):
        return render(ServerUnreachable(str(exc)), locale)
    return render(ServerRefused(str(exc)), locale)


def _packed(data: bytes) -> bytes:
    """A finished transcript as ``gm`` leaves one on disk: packed (format 5's compaction of a
    sealed file, which a store keeps as written) when its end is signed by this installation's
    key or by none; else as the store holds it (it replays all the same, only larger)."""
    from gm_engine.transcripts.format import TranscriptStream, pack_transcript, signing_key_for

    with tempfile.TemporaryDirectory(prefix="gm-serve-pack-") as folder:
        path = Path(folder) / "table.jsonl"
        path.write_bytes(data)
        try:
            with TranscriptStream(path) as stream:
                key = signing_key_for(stream.header)  # another installation's: kept as it is
            packed = pack_transcript(path, key, durable=False)
        except (TranscriptError, OSError, ValueError):
            return data
        return path.read_bytes() if packed else data


def holder_address(holder: str) -> str | None:
    """The base URL a lease holder advertised (see :class:`TableRuntime`), or None."""
    address, mark, _name = holder.partition("#")
    if not mark or not address.startswith(("http://", "https://")):
        return None
    return address


def _is_end_line(line: str) -> bool:
    return line.startswith('{"type":"end"')


class TableRuntime:
    """Every table this process drives (see the module doc).

    ``backend`` makes a table's model from its configuration and API key; ``seeds`` draws
    a new table's seed (by default fresh entropy); ``holder`` names this process in the
    leases (by default host, process id and a random suffix); ``advertise`` is the base URL
    at which the other processes reach this one (``http://10.0.0.5:8000``): it leads the
    holder's name, ``URL#host:pid:suffix``, so that a process that does not drive a table
    forwards its requests to the one that does (:func:`holder_address`); a table stopped by
    its model server's failure is resumed ``retry_seconds`` later. Every ``tick_seconds``
    the leases of every table driven here are renewed for ``lease_seconds`` (at least two
    ticks: ValueError otherwise), in one statement; ``turns`` shares the processor between
    the tables (:class:`~gm_engine.serve.turns.TurnTaker`). ``locale`` is the server's
    language (``gm serve --locale``, ``GM_LOCALE``): the lobby's, and a new table's when its
    form names none."""

    def __init__(
        self,
        store: TableStore,
        *,
        holder: str | None = None,
        lease_seconds: float = LEASE_SECONDS,
        tick_seconds: float = TICK_SECONDS,
        backend: BackendFactory = default_backend,
        seeds: Callable[[], int] | None = None,
        retry_seconds: float = RETRY_SECONDS,
        advertise: str | None = None,
        model_servers: Collection[str] = (),
        turns: TurnTaker | None = None,
        locale: Locale = DEFAULT_LOCALE,
    ) -> None:
        if not 0 < tick_seconds < float("inf") or not lease_seconds >= 2 * tick_seconds:
            raise ValueError(
                f"a lease ({lease_seconds:g} s) must last at least two ticks ({tick_seconds:g} s), so that"
                " one late renewal does not hand the tables to another process"
            )
        self.retry_seconds = retry_seconds
        self.locale: Locale = locale
        self.turns = turns or TurnTaker()
        # The model servers a table may use (``gm serve --model-server``): a visitor of the
        # lobby must not make this server send requests to any host they name.
        self.model_servers = frozenset(normal_server_url(url) for url in model_servers)
        self.store = store
        # a new table's seed: fresh entropy (tests hand in fixed ones, for games that repeat)
        self.seeds = seeds or (lambda: secrets.randbelow(2**63))
        name = holder or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.holder = f"{advertise.rstrip('/')}#{name}" if advertise else name
        self.lease_seconds = lease_seconds
        self.tick_seconds = tick_seconds
        self.backend = backend
        self._tables: dict[str, LiveTable] = {}
        self._seats: dict[str, SeatGrant] = {}  # token digests found in the store (see seat_of)
        self._creating: set[str] = set()  # tables being filed here: the ticker leaves them alone
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.RLock()
        self._claiming = threading.Lock()
        self._closing = threading.Event()
        self._ticker: threading.Thread | None = None
        self._epoch = 0
        #: the AIWolf agent seats of the tables (their tokens, their connections here)
        self.aiwolf = AIWolfTables(store)

    # -- life ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Take over the tables an earlier incarnation of this process drove (the same
        advertised address: it was killed, and this process listens there now), claim and
        resume them and the store's free tables now, then keep claiming in the background.

        Without the takeover a table driven before a restart would answer 503 until the
        dead incarnation's lease ran out; with it, the first request after the restart is
        served. The store refuses the earlier incarnation's writes from then on (it is not
        the recorded holder), so even a process that was not dead could not write after."""
        self.store.take_over_leases(self.holder, self.lease_seconds)
        self.tick()
        self._ticker = threading.Thread(target=self._tick_loop, name="gm-serve-leases", daemon=True)
        self._ticker.start()

    def close(self, timeout: float = 10.0) -> None:
        """Stop every table (unfinished tables stay resumable) and give the leases up."""
        self._closing.set()
        with self._lock:
            tables = list(self._tables.values())
            threads = list(self._threads.values())
        for table in tables:
            table.stop()
        self.aiwolf.stop_all()
        for thread in threads:
            thread.join(timeout)
        if self._ticker is not None:
            self._ticker.join(timeout)
        for table in tables:
            with contextlib.suppress(StoreError):
                self.store.release_lease(table.row.table_id, self.holder)

    def tick(self) -> None:
        """Renew the leases of the tables driven here (dropping those another process took),
        resume paused ones that are due, and claim the store's free running tables."""
        with self._lock:
            held = [
                (table_id, table)
                for table_id, table in self._tables.items()
                if table.status not in ("finished", "failed", "stopped")
            ]
        # every lease of this process in one statement: a tick costs one write however many
        # tables run here, and cannot fall behind them
        ids = [table_id for table_id, _ in held]
        renewed = self.store.renew_leases(self.holder, ids, self.lease_seconds) if ids else set()
        for table_id, table in held:
            if table_id not in renewed:
                if table.status in ("finished", "failed"):  # it ended meanwhile and gave the lease up
                    continue
                table.stop()
                self.aiwolf.stop(table_id)
                table.ended("stopped", TAKEN_OVER)
                with self._lock:
                    self._tables.pop(table_id, None)
                continue
            if table.status == "error" and time.monotonic() >= table.retry_at:
                self._drive(table.row)
        if self._closing.is_set():
            return
        for table_id in self.store.claimable_tables(self.holder):
            self.claim(table_id)

    def _tick_loop(self) -> None:
        while not self._closing.wait(self.tick_seconds):
            try:
                self.tick()
            except Exception:  # a store hiccup: the next tick tries again
                traceback.print_exc(file=sys.stderr)

    # -- tables -------------------------------------------------------------------------------------

    def create_table(
        self, config: WerewolfTableConfig | AdventureTableConfig, api_key: str | None = None
    ) -> CreatedTable:
        """Open a new table and start it; P1's token is in the result (only its digest is kept).

        Raises:
            TableError: the options are refused (the session's own words, in Japanese).
        """
        if config.base_url is not None and normal_server_url(config.base_url) not in self.model_servers:
            allowed = ", ".join(sorted(self.model_servers))
            raise TableError(TableServerNotAllowed(allowed) if allowed else TableNoServerAllowed())
        seed = self.seeds()
        spec = config.spec(seed)
        self._check(spec)
        table_id = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(32)
        key = GameKey.generate()
        # The row is filed already leased to this process, and this process's own ticker skips
        # it until it is driven: neither another server nor the ticker can start the table
        # before its seed, key and seat are stored, nor drive it twice.
        with self._lock:
            self._creating.add(table_id)
        try:
            row = self.store.create_table(
                table_id,
                config.kind,
                config.title,
                config.model_dump_json(),
                time.time(),
                holder=self.holder,
                ttl_seconds=self.lease_seconds,
            )
            self.store.put_secret(table_id, "seed", str(seed).encode("ascii"), holder=self.holder)
            self.store.put_secret(
                table_id,
                "game_key",
                json.dumps({"key_id": key.key_id, "key": key.key.hex()}).encode("ascii"),
                holder=self.holder,
            )
            if api_key:
                self.store.put_secret(table_id, "api_key", api_key.encode("utf-8"), holder=self.holder)
            self.store.add_seat(table_id, 1, token_digest(token))
            if isinstance(config, WerewolfTableConfig) and config.aiwolf is not None:
                self.aiwolf.issue(table_id, config.aiwolf, holder=self.holder)
            self._drive(row)
        finally:
            with self._lock:
                self._creating.discard(table_id)
        return CreatedTable(table_id=table_id, token=token)

    @staticmethod
    def _check(spec: SessionSpec) -> None:
        """Refuse options the session would refuse, before the table exists."""
        try:
            if spec.kind == "werewolf":
                from gm_engine.sessions.werewolf import session_options

                session_options(spec)
            else:
                from gm_engine.adventure.scenario import ScenarioError, UnknownScenarioError, get_scenario
                from gm_engine.sessions.adventure import adventure_options

                adventure_options(spec)
                try:
                    get_scenario(str(spec.options.get("scenario", "")))
                except UnknownScenarioError as exc:
                    raise TableError(exc.message) from None
                except ScenarioError as exc:
                    raise TableError(TableNoScenario(str(exc))) from None
        except SessionError as exc:
            raise TableError(TableSessionRefused(str(exc))) from None

    def claim(self, table_id: str) -> LiveTable | None:
        """Drive the table here now if it is running and its lease is free or expired (a
        request for it came before the next tick); the table, or None when another process
        holds it."""
        with self._claiming:  # the ticker and the web's requests claim one table at a time
            with self._lock:
                mine = self._tables.get(table_id)
                if table_id in self._creating or (mine is not None and mine.status != "stopped"):
                    return mine
            if self._closing.is_set():
                return None
            if not self.store.acquire_lease(table_id, self.holder, self.lease_seconds):
                return None
            row = self.store.get_table(table_id)
            if row is None or row.status != "running":
                return None
            self._drive(row)
            return self.live(table_id)

    def holder_of(self, table_id: str) -> str | None:
        """The process holding the table's lease now (None: nobody), as the store names it."""
        return self.store.lease_holder(table_id)

    def seat_of(self, token: str) -> SeatGrant | None:
        """The seat ``token`` opens, or None."""
        if not token or len(token) > 200:
            return None
        digest = token_digest(token)
        grant = self._seats.get(digest)
        if grant is None:
            grant = self.store.find_seat(digest)
            if grant is not None:
                if len(self._seats) >= MAX_KNOWN_SEATS:  # a long-lived server: start afresh
                    self._seats.clear()
                self._seats[digest] = grant
        return grant

    def known_seat(self, token: str) -> SeatGrant | None:
        """The seat ``token`` opens if :meth:`seat_of` found it before (a seat is never
        taken back), else None; it never reads the store, so the event loop may call it."""
        if not token or len(token) > 200:
            return None
        return self._seats.get(token_digest(token))

    def live(self, table_id: str) -> LiveTable | None:
        """The table if this process drives it (or drove it to its end)."""
        with self._lock:
            return self._tables.get(table_id)

    def lobby(self) -> list[TableRow]:
        """The tables still being played, oldest first."""
        return self.store.list_tables("running")

    def table(self, table_id: str) -> TableRow | None:
        """The store's row of the table."""
        return self.store.get_table(table_id)

    def table_locale(self, table_id: str) -> Locale:
        """The language of the table (its form's ``locale``; the server's for a table the
        store does not know)."""
        live = self.live(table_id)
        if live is not None:
            return live.config.locale
        row = self.store.get_table(table_id)
        if row is None:
            return self.locale
        try:
            return parse_config(json.loads(row.config_json)).locale
        except (TableError, ValueError):
            return self.locale

    def transcript(self, table_id: str) -> bytes | None:
        """The finished table's transcript as a file holds it; None before its end."""
        row = self.store.get_table(table_id)
        if row is None or row.status != "finished":
            return None
        lines = self.store.read_lines(table_id)
        if not lines or not _is_end_line(lines[-1]):
            return None
        return _packed("".join(f"{line}\n" for line in lines).encode("utf-8"))

    # -- driving ------------------------------------------------------------------------------------

    def _drive(self, row: TableRow) -> None:
        config = parse_config(json.loads(row.config_json))
        with self._lock:
            self._epoch += 1
            table = LiveTable(row, config, self._epoch, self.turns)
            self._tables[row.table_id] = table
            thread = threading.Thread(
                target=self._run, args=(table,), name=f"gm-table-{row.table_id}", daemon=True
            )
            self._threads[row.table_id] = thread
        thread.start()

    def _run(self, table: LiveTable) -> None:
        try:
            self._run_turns(table)
        finally:
            self.turns.leave(table.turn)

    def _run_turns(self, table: LiveTable) -> None:
        table_id = table.row.table_id
        locale = table.config.locale
        try:
            table.step()
            outcome = self._play(table)
        except LeaseLost:
            table.ended("stopped", TAKEN_OVER)
            return
        except (TranscriptError, SessionError) as exc:  # its lines no longer replay: kept for inspection
            self._set_status(table_id, "failed")
            table.ended("failed", PageCannotGoOn(str(exc)))
            return
        except ConfigurationError as exc:  # retrying cannot help: the server must be set up anew
            self._set_status(table_id, "failed")
            table.ended("failed", PageServerFinal(_server_trouble(exc, locale)))
            return
        except BackendError as exc:
            table.retry_at = time.monotonic() + self.retry_seconds
            table.ended("error", PageServerLater(_server_trouble(exc, locale), f"{self.retry_seconds:g}"))
            return
        except Exception as exc:  # a store or program failure: retried like a server's
            traceback.print_exc(file=sys.stderr)
            table.retry_at = time.monotonic() + self.retry_seconds
            reason = type(exc).__name__
            table.ended("error", PageStoppedError(reason, f"{self.retry_seconds:g}"))
            return
        if outcome is None:
            table.ended("finished", "")
        elif outcome.finished:
            self._set_status(table_id, "finished")
            # The lease is not given up: it runs out on its own (nobody claims a finished table),
            # and until then the other processes pass the seat's last views on to this one,
            # which holds the final screen.
            table.ended("finished", outcome.summary)
        else:
            table.ended("stopped", PageText(PageWord.STOPPED_BY_SERVER))

    def _set_status(self, table_id: str, status: Literal["finished", "failed"]) -> None:
        with contextlib.suppress(LeaseLost):  # the new holder decides
            self.store.set_status(table_id, status, holder=self.holder)

    def _play(self, table: LiveTable) -> SessionOutcome | None:
        """Run (or resume) the table's session to its end here; None when its lines already
        hold the end."""
        table_id = table.row.table_id
        seed_text = self.store.get_secret(table_id, "seed")
        key_text = self.store.get_secret(table_id, "game_key")
        if seed_text is None or key_text is None:
            raise SessionError(f"table {table_id}: its seed or key is missing from the store")
        seed = int(seed_text.decode("ascii"))
        key_obj = json.loads(key_text.decode("ascii"))
        key = GameKey.from_hex(str(key_obj["key_id"]), key_obj["key"])
        api_key = self.store.get_secret(table_id, "api_key")
        spec = table.config.spec(seed)
        runner = get_runner(spec.kind)
        if isinstance(table.config, WerewolfTableConfig) and table.config.aiwolf is not None:
            # an agent thinking is not this process's work: the other tables run meanwhile
            runner = self.aiwolf.runner(
                table_id, table.config.aiwolf, on_wait=lambda: table.turns.release(table.turn)
            )
        backend = TurnBackend(
            self.backend(table.config, api_key.decode("utf-8") if api_key else None),
            table,
            on_processor=table.config.backend == "offline",
        )
        human = WebHuman(table)
        lines = self.store.read_lines(table_id)
        name = Path(f"table-{table_id}.jsonl")
        if lines and _is_end_line(lines[-1]):
            self._set_status(table_id, "finished")
            return None
        table.started()
        if not lines:
            out = StoreOutput(self.store, table_id, self.holder, 0)
            table.before_shown(out)
            writer = TranscriptWriter.start(out, name, spec, signing_key=signing_key_or_none(), game_key=key)
            io = SessionIO(backend=backend, human=human, sink=TeeSink(writer, table), show=table.show)
            try:
                outcome = runner(spec, io)
            except BaseException:
                with contextlib.suppress(Exception):  # the session's own failure is what counts
                    writer.close()
                raise
            if outcome.finished:
                writer.finish(seed, outcome)
            else:
                writer.close()
            return outcome
        data = "".join(f"{line}\n" for line in lines).encode("utf-8")
        out = StoreOutput(self.store, table_id, self.holder, len(lines))
        table.before_shown(out)
        io = SessionIO(backend=backend, human=human, sink=table, show=table.show)
        result = resume_lines(data, name, out, io, kept=KeptGame(key=key, seed=seed), runner=runner)
        return result.outcome
