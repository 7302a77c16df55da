"""The web side of AIWolf agent seats (:mod:`gm_engine.serve.aiwolf_seats`): the agents'
WebSocket, and the creator's list of the agents' addresses.

* ``WS /tables/{table_id}/aiwolf/ws?token=TOKEN`` (or the token as ``Authorization:
  Bearer TOKEN``, as aiwolf-nlp-common's ``Client(url, token)`` sends it): an AIWolf
  agent's connection to its seat. The server asks NAME first, as the AIWolf server does,
  then the seat's requests as the game reaches them. A token that opens no agent seat of
  the table is closed at once (1008 ``invalid token``).
* ``GET /api/tables/{table_id}/aiwolf`` with P1's token (the table's creator): each agent
  seat's WebSocket URL with its token, its name at the table, and whether an agent is
  connected (null when another process drives the table).

A connection that reaches a process not driving the table is relayed to the process that
holds its lease, at the address that process advertised (as :mod:`gm_engine.serve.forward`
passes the HTTP requests on): frames pass both ways unchanged, and when either side closes
the other is closed with the same code and reason. When the holder dies the relayed
connection is closed (1012); the agent connects again and reaches the new holder, which
took the seat for disconnected meanwhile (its persona played). A relayed connection is
never relayed again: two processes that each believe the other drives the table close it
with 1013 and ``try again later``, as they do when the table's holder cannot be reached.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Literal

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from gm_engine.safe_text import printable
from gm_engine.serve.aiwolf_seats import MAX_NAME, AgentConnection, AIWolfSeatsOption
from gm_engine.serve.forward import CONNECT_SECONDS, FORWARDED_HEADER
from gm_engine.serve.tables import TableRuntime, WerewolfTableConfig, holder_address, parse_config
from gm_engine.werewolf.records import PERSONA_NAMES

__all__ = ["aiwolf_routes"]

#: Where the agents connect (the table's id in the middle).
AGENT_PATH = "/tables/{table_id}/aiwolf/ws"

_HERE: Literal["here"] = "here"
#: Close codes that say what happened to a connection, never sent in a close frame.
_NOT_SENDABLE = frozenset({1005, 1006, 1015})


class _Refusal:
    """Why a connection is closed at once: its close code and reason."""

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


_FORBIDDEN = _Refusal(1008, "invalid token")
_OVER = _Refusal(1000, "the game is over")
_LATER = _Refusal(1013, "the table is not driven by a reachable server now; try again later")


def _bearer(authorization: str) -> str:
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _option(runtime: TableRuntime, table_id: str) -> AIWolfSeatsOption | None:
    row = runtime.table(table_id)
    if row is None:
        return None
    config = parse_config(json.loads(row.config_json))
    return config.aiwolf if isinstance(config, WerewolfTableConfig) else None


def aiwolf_routes(runtime: TableRuntime) -> Sequence[BaseRoute]:
    """The routes of the agents' WebSocket and the creator's list, for ``runtime``'s tables."""

    def locate(table_id: str, forwarded: bool) -> Literal["here"] | str | _Refusal:
        """Whether the table is driven here, the base URL of the process driving it, or why not."""
        live = runtime.live(table_id)
        if live is not None and live.status in ("starting", "running", "error"):
            return _HERE
        row = runtime.table(table_id)
        if row is None:
            return _FORBIDDEN
        if row.status != "running":
            return _OVER
        holder = runtime.holder_of(table_id)
        if holder is None:  # nobody drives it (its holder died): here
            claimed = runtime.claim(table_id)
            if claimed is not None:
                return _HERE
        elif holder != runtime.holder and not forwarded:
            address = holder_address(holder)
            if address is not None:
                return address
        live = runtime.live(table_id)
        if live is not None and live.status in ("starting", "running", "error"):
            return _HERE
        return _LATER

    async def agent_socket(websocket: WebSocket) -> None:
        table_id = websocket.path_params["table_id"]
        token = websocket.query_params.get("token") or _bearer(websocket.headers.get("authorization", ""))
        seat = await run_in_threadpool(runtime.aiwolf.seat_of, table_id, token)
        if seat is None:
            await _refuse(websocket, _FORBIDDEN)
            return
        where = await run_in_threadpool(locate, table_id, FORWARDED_HEADER in websocket.headers)
        if isinstance(where, _Refusal):
            await _refuse(websocket, where)
        elif where == _HERE:
            option = await run_in_threadpool(_option, runtime, table_id)
            if option is None or seat not in option.seats:
                await _refuse(websocket, _FORBIDDEN)
                return
            await _seat_agent(websocket, runtime, table_id, seat, option)
        else:
            await _relay(websocket, where)

    def agent_list(request: Request) -> Response:
        table_id = request.path_params["table_id"]
        grant = runtime.seat_of(_bearer(request.headers.get("authorization", "")))
        if grant is None or grant.table_id != table_id or grant.seat != 1:
            return JSONResponse({"error": "forbidden"}, status_code=403)
        option = _option(runtime, table_id)
        tokens = runtime.aiwolf.tokens(table_id)
        connected = runtime.aiwolf.connected(table_id) or {}
        live = runtime.live(table_id)
        scheme = "wss" if request.url.scheme == "https" else "ws"
        base = f"{scheme}://{request.url.netloc}"
        seats = [
            {
                "seat": seat,
                "name": PERSONA_NAMES[seat],
                "url": f"{base}{AGENT_PATH.format(table_id=table_id)}?token={tokens[seat]}",
                "connected": connected.get(seat, False) if live is not None else None,
            }
            for seat in (option.seats if option is not None else ())
            if seat in tokens
        ]
        return JSONResponse({"seats": seats, "timeout_s": option.timeout_s if option else None})

    return [
        WebSocketRoute(AGENT_PATH, agent_socket),
        Route("/api/tables/{table_id}/aiwolf", agent_list, methods=["GET"]),
    ]


async def _refuse(websocket: WebSocket, refusal: _Refusal) -> None:
    await websocket.accept()
    with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
        await websocket.close(code=refusal.code, reason=refusal.reason)


async def _seat_agent(
    websocket: WebSocket, runtime: TableRuntime, table_id: str, seat: int, option: AIWolfSeatsOption
) -> None:
    """Ask the agent its NAME, seat it, and keep the connection until the seat lets it go."""
    await websocket.accept()
    try:
        await websocket.send_text(json.dumps({"request": "NAME"}))
        async with asyncio.timeout(option.timeout_s + 5.0):
            message = await websocket.receive()
    except (TimeoutError, WebSocketDisconnect, RuntimeError, OSError):
        with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
            await websocket.close(code=1000, reason="no answer to NAME")
        return
    if message.get("type") != "websocket.receive":
        return
    raw = message.get("text")
    said = raw if isinstance(raw, str) else bytes(message.get("bytes") or b"").decode("utf-8", "replace")
    name = printable(" ".join(said.split()), newlines=False)[:MAX_NAME] or f"agent-P{seat}"
    connection = AgentConnection(websocket, name, asyncio.get_running_loop())
    sockets = runtime.aiwolf.agents(table_id, option).sockets
    sockets[seat].attach(connection)
    try:
        await connection.serve()
    finally:
        sockets[seat].detach(connection)
        if connection.stopped:  # the server stops: no more turns for the table here
            runtime.aiwolf.stop(table_id)
        with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
            await websocket.close(code=connection.code, reason=connection.reason)


async def _relay(websocket: WebSocket, address: str) -> None:
    """Pass the agent's connection on to the process at ``address`` that drives the table."""
    url = "ws" + address.removeprefix("http") + websocket.url.path
    if websocket.url.query:
        url = f"{url}?{websocket.url.query}"
    headers = {FORWARDED_HEADER: "1"}
    authorization = websocket.headers.get("authorization")
    if authorization is not None:
        headers["authorization"] = authorization
    try:
        # the holder is on the internal network: never through a proxy
        upstream = await connect(
            url, additional_headers=headers, open_timeout=CONNECT_SECONDS, close_timeout=1, proxy=None
        )
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI):
        await _refuse(websocket, _LATER)
        return
    await websocket.accept()
    async with upstream:
        down = asyncio.ensure_future(_downstream(upstream, websocket))
        up = asyncio.ensure_future(_upstream(websocket, upstream))
        await asyncio.wait({down, up}, return_when="FIRST_COMPLETED")
        for task in (down, up):
            task.cancel()
        code, reason = upstream.close_code, upstream.close_reason or ""
        if code is None or code in _NOT_SENDABLE:  # the holder went without a closing handshake
            code, reason = 1012, "the table's server went away; connect again"
        if up.done() and not up.cancelled() and up.exception() is None:
            await upstream.close()  # the agent left: tell the holder
    with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
        await websocket.close(code=code, reason=reason)


async def _downstream(upstream: ClientConnection, websocket: WebSocket) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for message in upstream:
            if isinstance(message, str):
                await websocket.send_text(message)
            else:
                await websocket.send_bytes(bytes(message))


async def _upstream(websocket: WebSocket, upstream: ClientConnection) -> None:
    with contextlib.suppress(ConnectionClosed, WebSocketDisconnect):
        while True:
            message = await websocket.receive()
            if message.get("type") != "websocket.receive":
                return
            if message.get("text") is not None:
                await upstream.send(str(message["text"]))
            else:
                await upstream.send(bytes(message.get("bytes") or b""))
