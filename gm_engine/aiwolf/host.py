"""Host AIWolf agents at our table: :class:`AIWolfHost`, a WebSocket endpoint at ``/ws``.

The host is an object a server can start for one table: :meth:`AIWolfHost.start` binds
the endpoint and serves it from a thread of its own (its own event loop), so that the
session may run anywhere (the CLI's ``asyncio.run``, a web server's loop);
:meth:`AIWolfHost.wait_for_agents` blocks until every seat it hosts has an agent (each
connection is asked NAME first), and hands back the seats' decision sources
(:class:`~gm_engine.aiwolf.seat.AIWolfSeat`) for ``WerewolfSession(seat_backends=...)``;
:func:`play_hosted` plays the game with them and sends FINISH; :meth:`AIWolfHost.close`
ends it all. ``gm aiwolf host`` is this, recorded.

With a ``secret``, an agent must offer a token (:mod:`.auth`) for its team, as the
server's authentication asks; one without is refused (close code 1008).

An agent that does not answer within the action timeout (plus the server's 5 s of
grace) is taken for gone: its connection is closed, and its persona's offline play
takes its turns to the end (each recorded as a fallback); the game is never aborted.

Errors: :class:`HostError` (a ValueError), the seats asked for or the wait for agents failed.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from gm_engine.aiwolf.auth import is_player_token, token_of
from gm_engine.aiwolf.persona_wolf import PersonaWolf
from gm_engine.aiwolf.protocol import TalkRules
from gm_engine.aiwolf.recorded import Recorded
from gm_engine.aiwolf.roster import Roster
from gm_engine.aiwolf.seat import AIWolfSeat
from gm_engine.aiwolf.whisper import WhisperChannel
from gm_engine.llm.base import ModelBackend
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.personas import Persona
from gm_engine.sessions.werewolf.session import WerewolfSession, session_options
from gm_engine.transcripts.replay import ReplayBackend
from gm_engine.werewolf.views import observe

T = TypeVar("T")

#: The server's grace after the action timeout before an answer counts as missing.
GRACE_S = 5.0


class HostError(ValueError):
    """The seats to host are not 2..9, or the agents did not all come in time."""


@dataclass
class _Link:
    """One agent's connection, used from the session's loop through the host's loop."""

    name: str
    connection: ServerConnection
    loop: asyncio.AbstractEventLoop
    timeout_s: float
    gone: bool = False
    #: one connection for the whole game: an agent that leaves does not come back
    connection_number: int = 1

    async def notify(self, packet: dict[str, Any]) -> None:
        await self._there(self._send(packet))

    async def ask(self, packet: dict[str, Any]) -> str | None:
        return await self._there(self._exchange(packet))

    async def _there(self, work: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    async def _send(self, packet: dict[str, Any]) -> None:
        if self.gone:
            return
        try:
            await self.connection.send(json.dumps(packet, ensure_ascii=False))
        except ConnectionClosed:
            self.gone = True

    async def _exchange(self, packet: dict[str, Any]) -> str | None:
        await self._send(packet)
        if self.gone:
            return None
        try:
            async with asyncio.timeout(self.timeout_s):
                answer = await self.connection.recv()
        except (TimeoutError, ConnectionClosed):
            # a late answer would be read as the answer to the next request: the agent is
            # taken for gone, and its persona plays on
            self.gone = True
            await self.connection.close(reason="no answer in time")
            return None
        return answer if isinstance(answer, str) else bytes(answer).decode("utf-8", "replace")


class AIWolfHost:
    """The ``/ws`` endpoint of one table, hosting AIWolf agents at ``seats`` (2..9)."""

    def __init__(
        self,
        seats: Sequence[int],
        *,
        seed: int,
        rules: TalkRules,
        host: str = "127.0.0.1",
        port: int = 8080,
        profiles: Mapping[int, str] | None = None,
        secret: str | None = None,
    ) -> None:
        if not seats or len(set(seats)) != len(seats) or any(s not in range(2, 10) for s in seats):
            raise HostError(
                f"AIWolfエージェントの席は P2〜P9 から重複なく選んでください（指定: {list(seats)}）"
            )
        self.seats = list(seats)
        self.seed = seed
        self.rules = rules
        self.host = host
        self.port = port
        self.profiles = dict(profiles or {})
        self.secret = secret  # None: no authentication (the server's default)
        self._links: dict[int, _Link] = {}
        self._all_in = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="aiwolf-host", daemon=True)
        self._server: Server | None = None
        self._done: asyncio.Event | None = None

    # ------------------------------------------------------------ life cycle

    def start(self) -> int:
        """Bind the endpoint and serve it; returns the port (``port`` 0 picks a free one).

        Raises:
            OSError: the address cannot be bound.
        """
        self._thread.start()
        return asyncio.run_coroutine_threadsafe(self._open(), self._loop).result()

    async def _open(self) -> int:
        self._done = asyncio.Event()
        # close_timeout: an agent that never answers the closing handshake holds close() up no longer
        self._server = await serve(
            self._agent, self.host, self.port, process_request=_only_ws, close_timeout=1
        )
        return int(self._server.sockets[0].getsockname()[1])

    def wait_for_agents(self, timeout_s: float | None = None) -> dict[int, AIWolfSeat]:
        """Block until every hosted seat has an agent; the seats' decision sources.

        Raises:
            HostError: ``timeout_s`` passed first (the message says how many came).
        """
        if not self._all_in.wait(timeout_s):
            raise HostError(
                f"AIWolfエージェントが揃いませんでした（{len(self._links)}/{len(self.seats)} 人）"
            )
        whispers = WhisperChannel(self.seats, rounds=self.rules.per_agent)
        return {
            seat: AIWolfSeat(seat, link, self.rules, self.seed, self.profiles.get(seat), whispers)
            for seat, link in sorted(self._links.items())
        }

    @property
    def agent_names(self) -> dict[int, str]:
        """The name each seated agent gave (made unique: a repeated name gets a number)."""
        return {seat: link.name for seat, link in sorted(self._links.items())}

    def close(self) -> None:
        """Close every connection and the endpoint, and stop the host's thread."""
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self._shut(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    async def _shut(self) -> None:
        if self._done is not None:
            self._done.set()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    # ------------------------------------------------------------ one agent

    async def _agent(self, connection: ServerConnection) -> None:
        free = [s for s in self.seats if s not in self._links]
        if not free:
            await connection.close(reason="the table is full")
            return
        timeout = self.rules.action_timeout_ms / 1000 + GRACE_S
        try:
            await connection.send(json.dumps({"request": "NAME"}))
            async with asyncio.timeout(timeout):
                answer = await connection.recv()
        except (TimeoutError, ConnectionClosed):
            return
        name = (answer if isinstance(answer, str) else bytes(answer).decode("utf-8", "replace")).strip()
        if self.secret is not None and not self._admitted(connection, name):
            await connection.close(code=1008, reason="invalid token")
            return
        free = [s for s in self.seats if s not in self._links]  # another may have come meanwhile
        if not free:
            await connection.close(reason="the table is full")
            return
        name = _unique(name or "agent", {link.name for link in self._links.values()})
        self._links[free[0]] = _Link(name, connection, self._loop, timeout)
        if len(self._links) == len(self.seats):
            self._all_in.set()
        assert self._done is not None
        await self._done.wait()  # the connection lives as long as the game

    def _admitted(self, connection: ServerConnection, name: str) -> bool:
        """Whether the connection's token lets the agent called ``name`` play."""
        assert self.secret is not None and connection.request is not None
        request = connection.request
        token = token_of(request.path, request.headers.get("Authorization"))
        team = name.rstrip("0123456789") or name
        return token is not None and is_player_token(self.secret, token, team)


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name}{number}" in taken:
        number += 1
    return f"{name}{number}"


def _only_ws(connection: ServerConnection, request: Request) -> Response | None:
    path = request.path.split("?", 1)[0]
    if path == "/ws":
        return None
    return Response(
        404, "Not Found", Headers([("Content-Type", "text/plain")]), b"AIWolf agents connect at /ws\n"
    )


async def play_hosted(
    spec: SessionSpec,
    io: SessionIO,
    seats: Mapping[int, AIWolfSeat],
    personas: Sequence[Persona] | None = None,
) -> SessionOutcome:
    """Play one game with ``seats`` played by their agents, then send each agent FINISH
    (the whole role map, as the game's end makes it public).

    When ``io.backend`` replays a recording (a resumed game, see :mod:`.recorded`), the
    recorded turns of the agents' seats are answered from it, and only the turns past it
    are asked of the agents."""
    recording = io.backend if isinstance(io.backend, ReplayBackend) else None
    personas_live = recording.fallback if recording is not None and recording.fallback else io.backend
    backends: dict[int, ModelBackend] = {
        seat: source if recording is None else Recorded(recording, source, shadow=False)
        for seat, source in seats.items()
    }
    whispers = next((s.whispers for _, s in sorted(seats.items()) if s.whispers is not None), None)
    if whispers is not None and seats:
        # the persona seats: a persona 人狼 whispers with its agent partner
        channel = next(iter(seats.values())).channel
        for seat in range(2, 10):
            if seat not in seats:
                wolf = PersonaWolf(seat, personas_live, whispers, channel.rules, channel.seed)
                backends[seat] = wolf if recording is None else Recorded(recording, wolf, shadow=True)
    session = WerewolfSession(spec, session_options(spec), io, personas, seat_backends=backends)
    roster = Roster(seats, session.game, whispers)
    for source in seats.values():
        source.roster = roster
    outcome = await session.run()
    dealt = session.game.dealt_roles()
    if session.game.is_over and dealt is not None:
        roles = dict(enumerate(dealt, start=1))
        for seat, source in sorted(seats.items()):
            await source.finish(source.channel.finish(observe(session.game, seat), roles))
    return outcome
