"""AIWolf agent seats at ``gm serve`` tables: the table option, the seats' tokens, their
connections, and the session runner that plays them (docs/aiwolf.md).

A werewolf table may make any of P2..P9 AIWolf agent seats (:class:`AIWolfSeatsOption`,
the table configuration's ``aiwolf``). Each such seat gets its own unguessable token when
the table is opened, kept in the store's secrets (:data:`TOKENS_SECRET`), so that a server
started again, or another process of the same store, admits the same agent again; the
table's creator (P1's token) reads them back as WebSocket URLs
(:mod:`gm_engine.serve.aiwolf_routes`).

An agent's connection comes and goes: :class:`SeatSocket` is the seat's
:class:`~gm_engine.aiwolf.seat.AgentLink`, holding the agent's current connection, if
any. While a seat has none, or its agent does not answer within the action timeout (the
connection is then closed, as the AIWolf server closes it), the persona plays the turn
offline and the transcript records it as a fallback, as at ``gm aiwolf host``; an agent
that connects again is told the game afresh from INITIALIZE on.

The connections live in the web's event loop; the table's session runs in a thread of its
own with its own loop, and reaches them through :func:`asyncio.run_coroutine_threadsafe`.
A table that stops being driven here (the server stops, or another process took the
table over) ends a pending question with :class:`TableStopping` (nothing is recorded for
that turn: the table goes on from there wherever it is resumed).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.websockets import WebSocket, WebSocketDisconnect

from gm_engine.aiwolf.host import play_hosted
from gm_engine.aiwolf.protocol import TalkRules
from gm_engine.aiwolf.seat import AIWolfSeat
from gm_engine.aiwolf.whisper import WhisperChannel
from gm_engine.messages import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import PageAgentSeats
from gm_engine.serve.store import LeaseLost, TableStore
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionRunner, SessionSpec
from gm_engine.sessions.interrupt import run_interruptibly
from gm_engine.sessions.werewolf import session_options

__all__ = [
    "AGENT_LABEL",
    "TOKENS_SECRET",
    "AIWolfSeatsOption",
    "AIWolfTables",
    "AgentConnection",
    "SeatSocket",
    "TableAgents",
    "TableStopping",
]

T = TypeVar("T")

#: The store secret holding a table's agent tokens (JSON: seat number -> token).
TOKENS_SECRET = "aiwolf_tokens"
#: Who plays an agent seat, as the transcript's ``seat_agents`` records it (the agents
#: connect after the table is opened, and may change: no one agent's name is recorded).
AGENT_LABEL = "aiwolf"
#: The server's grace after the action timeout before an answer counts as missing.
GRACE_S = 5.0
#: The longest agent name kept (its answer to NAME).
MAX_NAME = 40


class TableStopping(LeaseLost):
    """The table is no longer driven in this process (the server stops, or another process
    took it over) while its session waited for an agent: the turn is not recorded."""


class AgentSeatsRefused(ValueError):
    """Agent seats that are not P2..P9, each once: ``str()`` in Japanese, :meth:`explanation`
    the catalogue message (a table's form says it in the requester's language)."""

    def __init__(self, seats: object) -> None:
        self.message = PageAgentSeats(str(seats))
        super().__init__(render(self.message, DEFAULT_LOCALE))

    def explanation(self) -> Message:
        """What was wrong."""
        return self.message


class AIWolfSeatsOption(BaseModel):
    """The seats AIWolf agents play at a werewolf table (P2..P9, each once), and the
    seconds an agent has for each action (the AIWolf server's 60 by default, plus its 5 s
    of grace)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seats: tuple[int, ...]
    timeout_s: float = Field(default=60.0, ge=1.0, le=600.0)

    @field_validator("seats")
    @classmethod
    def _seats_2_to_9(cls, seats: tuple[int, ...]) -> tuple[int, ...]:
        if not seats or len(set(seats)) != len(seats) or any(seat not in range(2, 10) for seat in seats):
            raise AgentSeatsRefused(list(seats))
        return tuple(sorted(seats))

    def seat_agents(self) -> dict[int, str]:
        """The session option ``seat_agents``: who plays which seat from outside the table."""
        return {seat: AGENT_LABEL for seat in self.seats}


# --------------------------------------------------------------------------- one connection

_STOPPED: Literal["stopped"] = "stopped"


class AgentConnection:
    """One agent's WebSocket, in the web's event loop ``loop``: what the seat's session
    sends it, what it answers, and the end of it (:meth:`end`, from any thread).

    Its handler :meth:`serve` is the only reader of the socket: it passes the agent's
    messages on to :meth:`exchange` and notices at once when the agent (or the server's
    shutdown) closes the connection."""

    def __init__(self, socket: WebSocket, name: str, loop: asyncio.AbstractEventLoop) -> None:
        self.socket = socket
        self.name = name
        self.loop = loop
        self.ended = asyncio.Event()
        self.code = 1000
        self.reason = ""
        self._stopped = False
        self._answers: asyncio.Queue[str] = asyncio.Queue()

    def end(self, code: int, reason: str, *, stopping: bool = False) -> None:
        """Close the connection (its handler closes the socket with ``code`` and ``reason``);
        a question waiting for an answer ends at once (with ``stopping``: as a stop)."""

        def finish() -> None:
            if not self.ended.is_set():
                self.code, self.reason = code, reason
                self._stopped = stopping
                self.ended.set()

        with contextlib.suppress(RuntimeError):  # the loop closed: the socket is gone with it
            self.loop.call_soon_threadsafe(finish)

    @property
    def stopped(self) -> bool:
        """Whether the connection ended because the table stopped here, or the server did."""
        return self._stopped

    async def serve(self) -> None:
        """Read the agent's messages until the connection ends, from either side."""
        reading = asyncio.ensure_future(self._read())
        ending = asyncio.ensure_future(self.ended.wait())
        try:
            await asyncio.wait({reading, ending}, return_when="FIRST_COMPLETED")
        finally:
            for task in (reading, ending):
                task.cancel()
        if not self.ended.is_set():  # the agent went, or the server's shutdown closed it
            self.code, self.reason = (1012, "the server stops") if self._stopped else (1000, "")
            self.ended.set()

    async def _read(self) -> None:
        while True:
            message = await self.socket.receive()
            if message.get("type") != "websocket.receive":
                if message.get("code") == 1012 and "reason" not in message:
                    # uvicorn's own shutdown (an agent's close frame always has a reason,
                    # empty or not): the server stops, the agent did not go
                    self._stopped = True
                return
            text = message.get("text")
            said = (
                text
                if isinstance(text, str)
                else bytes(message.get("bytes") or b"").decode("utf-8", "replace")
            )
            await self._answers.put(said)

    async def send(self, text: str) -> bool:
        """Send one packet; False when the connection is gone or ended."""
        if self.ended.is_set():
            return False
        try:
            await self.socket.send_text(text)
        except (RuntimeError, OSError, WebSocketDisconnect):  # closed meanwhile
            return False
        return True

    async def exchange(self, text: str, timeout_s: float) -> str | Literal["stopped"] | None:
        """Send one packet and wait for the answer: the answer, None (no answer in time, or
        the agent went), or ``"stopped"`` (the table stopped meanwhile). Words the agent
        sent unasked before it are dropped (they answer nothing)."""
        while not self._answers.empty():
            self._answers.get_nowait()
        if not await self.send(text):
            return _STOPPED if self._stopped else None
        answering = asyncio.ensure_future(self._answers.get())
        ending = asyncio.ensure_future(self.ended.wait())
        try:
            await asyncio.wait({answering, ending}, timeout=timeout_s, return_when="FIRST_COMPLETED")
        finally:
            for task in (answering, ending):
                task.cancel()
        if answering.done() and not answering.cancelled():
            return answering.result()
        return _STOPPED if self._stopped else None


# --------------------------------------------------------------------------- one seat


class SeatSocket:
    """An agent seat's link (:class:`~gm_engine.aiwolf.seat.AgentLink`): the agent's current
    connection, or none. Safe to use from any thread."""

    def __init__(self, seat: int, timeout_s: float) -> None:
        self.seat = seat
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._connection: AgentConnection | None = None
        self._number = 0
        self._name = f"{AGENT_LABEL}-P{seat}"
        self._stopping = False
        self.on_wait: Callable[[], None] = _nothing
        """Called as the seat starts waiting for its agent: the table gives up its run slot
        (:class:`~gm_engine.serve.turns.TurnTaker`), so that the other tables of the process
        go on while an agent thinks, for up to its action timeout."""

    @property
    def name(self) -> str:
        """The name the seat's latest agent gave at NAME."""
        return self._name

    @property
    def connection_number(self) -> int:
        """How many connections the seat has had (a new one is told the game afresh)."""
        return self._number

    @property
    def connected(self) -> bool:
        """Whether an agent is connected now."""
        return self._connection is not None

    def attach(self, connection: AgentConnection) -> None:
        """The agent's new connection (an earlier one is closed: one agent a seat)."""
        with self._lock:
            earlier, self._connection = self._connection, connection
            self._number += 1
            self._name = connection.name
            stopping = self._stopping
        if earlier is not None:
            earlier.end(1000, "replaced by a new connection")
        if stopping:
            connection.end(1012, "the table is not driven here any more", stopping=True)

    def detach(self, connection: AgentConnection) -> None:
        """``connection`` is over (nothing happens if a newer one replaced it)."""
        with self._lock:
            if self._connection is connection:
                self._connection = None

    def stop(self, code: int, reason: str, *, stopping: bool) -> None:
        """Close the connection; with ``stopping``, a question now pending, or asked from
        now on, raises :class:`TableStopping`."""
        with self._lock:
            self._stopping = self._stopping or stopping
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.end(code, reason, stopping=stopping)

    async def notify(self, packet: dict[str, Any]) -> None:
        """Send a packet the agent does not answer (nothing when no agent is connected)."""
        connection = self._connection
        if connection is None:
            return
        sent = await self._there(connection, connection.send(_text(packet)))
        if not sent:
            self.detach(connection)

    async def ask(self, packet: dict[str, Any]) -> str | None:
        """Send a packet and wait for the answer; None when no agent is connected, or it does
        not answer in time (its connection is then closed: a late answer would be read as
        the next one's).

        Raises:
            TableStopping: the table stopped being driven here.
        """
        if self._stopping:
            raise TableStopping(f"P{self.seat}: the table is no longer driven here")
        connection = self._connection
        if connection is None:
            return None
        self.on_wait()
        answer = await self._there(connection, connection.exchange(_text(packet), self.timeout_s + GRACE_S))
        if answer == _STOPPED or self._stopping:
            raise TableStopping(f"P{self.seat}: the table is no longer driven here")
        if answer is None:
            self.detach(connection)
            connection.end(1000, "no answer in time")
        return answer

    @staticmethod
    async def _there(connection: AgentConnection, work: Coroutine[Any, Any, T]) -> T | None:
        try:
            future = asyncio.run_coroutine_threadsafe(work, connection.loop)
        except RuntimeError:  # the web's loop is closed: the server is going
            work.close()
            return None
        return await asyncio.wrap_future(future)


def _nothing() -> None:
    """What a seat does as it starts waiting, when nobody asked for more."""


def _text(packet: dict[str, Any]) -> str:
    return json.dumps(packet, ensure_ascii=False)


class TableAgents:
    """The agent seats of one table driven in this process."""

    def __init__(self, option: AIWolfSeatsOption) -> None:
        self.option = option
        self.sockets = {seat: SeatSocket(seat, option.timeout_s) for seat in option.seats}

    def status(self) -> dict[int, bool]:
        """Whether each agent seat has an agent connected now."""
        return {seat: socket.connected for seat, socket in self.sockets.items()}

    def close(self, code: int, reason: str, *, stopping: bool = False) -> None:
        """Close every agent's connection (see :meth:`SeatSocket.stop`)."""
        for socket in self.sockets.values():
            socket.stop(code, reason, stopping=stopping)


# --------------------------------------------------------------------------- every table


class AIWolfTables:
    """The AIWolf seats of every table of one :class:`~gm_engine.serve.tables.TableRuntime`:
    their tokens in ``store``, their connections while a table is driven here."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._tables: dict[str, TableAgents] = {}

    # -- tokens ------------------------------------------------------------------------------------

    def issue(self, table_id: str, option: AIWolfSeatsOption, *, holder: str) -> None:
        """Give each agent seat of a new table its token (kept in the store's secrets, under
        ``holder``'s lease: the table's creator's)."""
        tokens = {str(seat): secrets.token_urlsafe(32) for seat in option.seats}
        self.store.put_secret(table_id, TOKENS_SECRET, json.dumps(tokens).encode("ascii"), holder=holder)

    def tokens(self, table_id: str) -> dict[int, str]:
        """The table's agent tokens by seat (none for a table without agent seats)."""
        raw = self.store.get_secret(table_id, TOKENS_SECRET)
        if raw is None:
            return {}
        return {int(seat): str(token) for seat, token in json.loads(raw.decode("ascii")).items()}

    def seat_of(self, table_id: str, token: str) -> int | None:
        """The agent seat ``token`` admits at the table, or None (every token compared in
        constant time)."""
        if not token or len(token) > 200:
            return None
        found: int | None = None
        for seat, expected in self.tokens(table_id).items():
            if hmac.compare_digest(expected.encode(), token.encode()):
                found = seat
        return found

    # -- connections -------------------------------------------------------------------------------

    def agents(self, table_id: str, option: AIWolfSeatsOption) -> TableAgents:
        """The table's agent seats here (made the first time a session or an agent asks)."""
        with self._lock:
            agents = self._tables.get(table_id)
            if agents is None:
                agents = self._tables[table_id] = TableAgents(option)
            return agents

    def connected(self, table_id: str) -> dict[int, bool] | None:
        """Whether each agent seat has its agent connected here (None: the table has no
        agent seats driven here)."""
        with self._lock:
            agents = self._tables.get(table_id)
        return None if agents is None else agents.status()

    def stop(self, table_id: str) -> None:
        """The table is no longer driven here: close its agents' connections, end a question
        pending (:class:`TableStopping`)."""
        with self._lock:
            agents = self._tables.pop(table_id, None)
        if agents is not None:
            agents.close(1012, "the table is no longer driven by this server", stopping=True)

    def stop_all(self) -> None:
        """The server stops: :meth:`stop` every table."""
        with self._lock:
            table_ids = list(self._tables)
        for table_id in table_ids:
            self.stop(table_id)

    def _done(self, table_id: str, agents: TableAgents, finished: bool) -> None:
        with self._lock:
            if self._tables.get(table_id) is agents:
                del self._tables[table_id]
        if finished:
            agents.close(1000, "the game is over")
        else:
            agents.close(1012, "the table stopped here; connect again to play on")

    # -- the session -------------------------------------------------------------------------------

    def runner(
        self, table_id: str, option: AIWolfSeatsOption, on_wait: Callable[[], None] = lambda: None
    ) -> SessionRunner:
        """The session runner of a table with agent seats: the werewolf game with the agent
        seats asked through their connections (:func:`~gm_engine.aiwolf.host.play_hosted`,
        which answers the turns a resumed table's recording holds from the recording);
        ``on_wait`` is called whenever a seat starts waiting for its agent."""

        def run(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
            rules = session_options(spec).rules
            talk = TalkRules(
                per_agent=rules.discussion_rounds,
                answer_takes_turn=rules.answer_takes_turn,
                action_timeout_ms=int(option.timeout_s * 1000),
            )
            agents = self.agents(table_id, option)
            for socket in agents.sockets.values():
                socket.on_wait = on_wait
            whispers = WhisperChannel(option.seats, rounds=talk.per_agent)
            sources = {
                seat: AIWolfSeat(seat, agents.sockets[seat], talk, spec.seed, None, whispers)
                for seat in option.seats
            }
            finished = False
            try:
                outcome = run_interruptibly(play_hosted(spec, io, sources))
                finished = outcome.finished
                return outcome
            finally:
                self._done(table_id, agents, finished)

        return run
