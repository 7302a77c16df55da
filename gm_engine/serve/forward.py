"""Forwarding a table's request to the ``gm serve`` process that drives it.

Behind any HTTP load balancer a request may reach a process that does not hold the table's
lease. That process passes the request on to the holder, at the base URL the holder
advertised in its lease (``gm serve --advertise URL``; see
:func:`~gm_engine.serve.tables.holder_address`), and hands the answer back unchanged: the
JSON of a view or an answer, or the server-sent events of the table's stream as they come.
The seat token travels as it came (``Authorization``); the holder checks it again.

A forwarded request carries :data:`FORWARDED_HEADER`, and a process never forwards such a
request again: two processes that each believe the other holds a table (a lease changing
hands) answer 503 instead of passing the request back and forth.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from gm_engine.messages import render
from gm_engine.messages.texts import ServeHolderUnreachable
from gm_engine.serve.page_text import requester_locale

__all__ = ["FORWARDED_HEADER", "Forwarder"]

#: Marks a request one process passed to another.
FORWARDED_HEADER = "x-gm-forwarded"
#: Seconds to connect to the holder; an answer may take as long as the session needs.
CONNECT_SECONDS = 3.0
#: Seconds an answer or a view may take at the holder (an answer waits for the session).
READ_SECONDS = 60.0

_PASSED_ON = ("content-type", "cache-control", "x-accel-buffering", "content-disposition")


def _unreachable(request: Request) -> JSONResponse:
    """The holder cannot be reached: said in the requester's language (the page names its own)."""
    return JSONResponse(
        {"error": render(ServeHolderUnreachable(), requester_locale(request))}, status_code=503
    )


class Forwarder:
    """An HTTP client for the other processes (one connection pool, opened lazily in the
    app's event loop; :meth:`aclose` it when the app stops)."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(READ_SECONDS, connect=CONNECT_SECONDS),
                limits=httpx.Limits(max_connections=500, max_keepalive_connections=100),
                trust_env=False,  # the holder is on the internal network: never through a proxy
            )
        return self._client

    @staticmethod
    def forwarded(request: Request) -> bool:
        """Whether ``request`` was passed on by another process already."""
        return FORWARDED_HEADER in request.headers

    def _outgoing(self, request: Request, address: str, body: bytes = b"") -> httpx.Request:
        headers = {FORWARDED_HEADER: "1"}
        for name in ("authorization", "content-type", "accept"):
            value = request.headers.get(name)
            if value is not None:
                headers[name] = value
        url = f"{address}{request.url.path}"
        if request.url.query:
            url = f"{url}?{request.url.query}"
        return self._http().build_request(request.method, url, headers=headers, content=body or None)

    async def forward(self, request: Request, address: str, body: bytes = b"") -> Response:
        """The holder's answer to ``request`` (503 when the holder cannot be reached)."""
        outgoing = self._outgoing(request, address, body)
        try:
            answer = await self._http().send(outgoing)
        except httpx.HTTPError:
            return _unreachable(request)
        headers = {name: answer.headers[name] for name in _PASSED_ON if name in answer.headers}
        return Response(answer.content, status_code=answer.status_code, headers=headers)

    async def stream(self, request: Request, address: str) -> Response:
        """The holder's event stream for ``request``, passed on as it comes."""
        outgoing = self._outgoing(request, address)
        try:
            answer = await self._http().send(outgoing, stream=True)
        except httpx.HTTPError:
            return _unreachable(request)
        headers = {name: answer.headers[name] for name in _PASSED_ON if name in answer.headers}
        if answer.status_code != 200:
            content = await answer.aread()
            await answer.aclose()
            return Response(content, status_code=answer.status_code, headers=headers)

        async def chunks() -> AsyncIterator[bytes]:
            try:
                async for chunk in answer.aiter_raw():
                    yield chunk
            except httpx.HTTPError:  # the holder went away: the stream ends, the page reconnects
                return
            finally:
                await answer.aclose()

        return StreamingResponse(chunks(), status_code=200, headers=headers)

    async def aclose(self) -> None:
        """Close the connections to the other processes."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
