"""The web app of ``gm serve`` (Starlette): the lobby, the table pages and their JSON API.

Pages (plain HTML, CSS and a little JavaScript shipped in the package, nothing fetched from
elsewhere): ``/`` the lobby (open tables, a form that opens one), ``/play/{table_id}`` a
table's page. Their words are the message catalogue's (:mod:`gm_engine.serve.page_text`):
the pages are served in the server's language (``gm serve --locale``; ``?lang=en`` or
``?lang=ja`` asks for the other), and a table's page takes its table's language from the
table's view, with the words of ``GET /api/strings/{locale}``. A table's page reads its
seat token from the join link's fragment (``/play/{table_id}#t=TOKEN``, never sent to a
server by a browser) and sends it as ``Authorization: Bearer TOKEN`` with every request;
only the token's SHA-256 is stored.

API (JSON):

* ``GET /api/tables``: ``{"tables": [...], "finished": [...], "model_servers": [...]}``, the
  open tables (id, kind, title; nothing secret), the latest finished ones (with the outcome
  their end line records, public after the end), and the model servers a new table may use
  (``gm serve --model-server``; none: offline tables only);
* ``POST /api/tables``: ``{"config": {...}, "api_key"?: "..."}`` opens a table
  (:class:`~gm_engine.serve.tables.WerewolfTableConfig` or ``AdventureTableConfig``) and
  answers ``{"table_id", "token", "join"}``; 400 ``{"error"}`` for bad options (in the
  requester's language: the lobby names its own in ``Accept-Language``); a config without
  ``locale`` is in the server's language;
* with the seat's token: ``GET /api/tables/{id}/view?after=N`` (the seat's view, see
  :meth:`~gm_engine.serve.tables.LiveTable.view`), ``GET /api/tables/{id}/events?after=N``
  (server-sent events: the view again, from line ``after`` on, whenever it changes),
  ``POST /api/tables/{id}/answer`` ``{"text"}`` (P1's answer, ``{"status": "recorded",
  "lines": []}`` once it is stored, before the session takes it: what comes of it, a
  refusal included, is pushed on the event stream; 409 ``{"error"}`` when it is refused
  before the session sees it; a ``Server-Timing`` header says where the wait went:
  finding the table, reading the body, the phases of
  :attr:`~gm_engine.serve.tables.Submitted.timings`: the answer checked and stored, and the
  way back from the store's writer to the event loop), ``GET /api/tables/{id}/transcript``
  (after the end: the transcript ``gm replay`` reads; 409 before).

A table's view and answers live in the process that drives it (holds its lease). Several
processes may stand behind any HTTP load balancer: one that does not drive a running table
passes the table's requests (the view, the answer, the event stream) on to the process
holding its lease, at the address that process advertised (:mod:`gm_engine.serve.forward`),
or drives the table itself when nobody holds it; it answers 503 ``{"error"}`` (the page
retries) while the holder is unreachable and its lease has not yet run out. A finished
table's views go on being passed to the process that finished it until its lease runs out
(it keeps the final screen); after that any process rebuilds the final screen from the
store (:mod:`gm_engine.serve.finished`) for every seat of the table, and its transcript is
read from the store by any of them.

A request without a token, with a wrong one, or with another table's token gets 403
``{"error": "forbidden"}`` and nothing else; an unknown table with a valid token of another
table is the same 403 (an id is never confirmed to a stranger). That refusal, and those of
requests of no table, are in the requester's language (``Accept-Language``, which the pages
set to their own); every other refusal of a table's request is in the table's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gm_engine.dice.result import Locale
from gm_engine.messages import LOCALES, render
from gm_engine.messages import Message as MessageText
from gm_engine.messages.texts import (
    ServeBadData,
    ServeForbidden,
    ServeKeyNotText,
    ServeNoPageWords,
    ServeNotDrivenHere,
    ServeNotJson,
    ServeTextMissing,
    ServeTooLarge,
    ServeTranscriptLater,
)
from gm_engine.serve.aiwolf_routes import aiwolf_routes
from gm_engine.serve.finished import FinishedTables
from gm_engine.serve.forward import Forwarder
from gm_engine.serve.page_text import page_strings, render_page, requester_locale
from gm_engine.serve.store import SeatGrant
from gm_engine.serve.tables import LiveTable, TableError, TableRuntime, holder_address, parse_config

__all__ = ["SecurityHeaders", "create_app", "static_dir"]

#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE_SECONDS = 15.0
#: The largest request body read.
MAX_BODY = 16_384
#: How many finished tables the lobby lists (the latest).
LOBBY_FINISHED = 20

_ENDED = ("finished", "failed", "stopped", "error")


def static_dir() -> str:
    """The folder of the pages, styles and scripts shipped in the package."""
    return str(resources.files("gm_engine.serve") / "static")


class SecurityHeaders:
    """Every response says: scripts, styles and connections from this server only, no
    framing, no sniffing, no referrer (ASGI middleware, so streams stay streams)."""

    HEADERS = (
        (
            b"content-security-policy",
            b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
        (b"cache-control", b"no-store"),
    )

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers to the response's start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.HEADERS if n not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _token(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _server_timing(phases: Sequence[tuple[str, float]]) -> str:
    """A ``Server-Timing`` header: each phase's duration in milliseconds."""
    return ", ".join(f"{name};dur={seconds * 1000:.2f}" for name, seconds in phases)


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _refusal(
    request: Request, message: MessageText, status: int, locale: Locale | None = None
) -> JSONResponse:
    """An error body in ``locale`` (a table's), else in the requester's language."""
    return _error(render(message, locale or requester_locale(request)), status)


def _page_locale(request: Request, default: Locale) -> Locale:
    """The language a page is served in: ``?lang=`` when it names one, else ``default``."""
    asked = request.query_params.get("lang", "")
    return "en" if asked == "en" else "ja" if asked == "ja" else default


def _after(request: Request) -> int:
    try:
        return max(0, int(request.query_params.get("after", "0")))
    except ValueError:
        return 0


class _BadBody(Exception):
    """A request body the server does not read: the HTTP status and the reason it gives.

    Not a :class:`TableError`: nothing about the table refused it, so the answer is a 4xx of
    the request (413 too large, 400 not a JSON object of the expected shape), never a 409.
    """

    def __init__(self, reason: MessageText, status: int) -> None:
        super().__init__(status)
        self.reason = reason
        self.status = status


async def _json_body(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise _BadBody(ServeTooLarge(), 413)
    try:
        return json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise _BadBody(ServeNotJson(), 400) from None


def create_app(runtime: TableRuntime, *, extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The ASGI app serving ``runtime``'s tables; ``extra_routes`` (the BCDice-API's, for
    instance) are mounted beside the app's own. The runtime is started with the app and
    closed when it shuts down."""

    def seat(request: Request) -> SeatGrant | None:
        grant = runtime.seat_of(_token(request))
        if grant is None or grant.table_id != request.path_params["table_id"]:
            return None
        return grant

    def lobby_page(request: Request) -> Response:
        return HTMLResponse(render_page("lobby", _page_locale(request, runtime.locale)))

    def table_page(request: Request) -> Response:
        # the same page for every id: it holds nothing of a table until the token is shown
        # (its language too: the table's view names it)
        return HTMLResponse(render_page("table", _page_locale(request, runtime.locale)))

    def strings(request: Request) -> Response:
        locale = request.path_params["locale"]
        if locale not in LOCALES:
            return _refusal(request, ServeNoPageWords(locale, ", ".join(LOCALES)), 404)
        return JSONResponse(page_strings("en" if locale == "en" else "ja"))

    finished = FinishedTables(runtime.store)

    def list_tables(request: Request) -> Response:
        rows = runtime.lobby()
        ended = runtime.store.list_tables("finished")[-LOBBY_FINISHED:][::-1]
        return JSONResponse(
            {
                "tables": [{"table_id": r.table_id, "kind": r.kind, "title": r.title} for r in rows],
                "finished": [
                    {
                        "table_id": r.table_id,
                        "kind": r.kind,
                        "title": r.title,
                        "summary": finished.summary(r.table_id),
                    }
                    for r in ended
                ],
                # the servers a new table may use (the operator's --model-server list)
                "model_servers": sorted(runtime.model_servers),
            }
        )

    async def open_table(request: Request) -> Response:
        try:
            body = await _json_body(request)
            if not isinstance(body, dict):
                raise _BadBody(ServeBadData(), 400)
            form = body.get("config", {})
            if isinstance(form, dict) and "locale" not in form:
                form = {**form, "locale": runtime.locale}
            config = parse_config(form)
            api_key = body.get("api_key")
            if api_key is not None and not isinstance(api_key, str):
                raise _BadBody(ServeKeyNotText(), 400)
            created = await run_in_threadpool(runtime.create_table, config, api_key or None)
        except _BadBody as exc:
            return _refusal(request, exc.reason, exc.status)
        except TableError as exc:
            return _refusal(request, exc.reason, 400)
        join = f"/play/{created.table_id}#t={created.token}"
        return JSONResponse({"table_id": created.table_id, "token": created.token, "join": join})

    forwarder = Forwarder()

    def here(request: Request) -> LiveTable | None:
        """The table if it is driven here and the token's seat was looked up before: found
        without a read of the store, so on the event loop, without a thread's hop."""
        grant = runtime.known_seat(_token(request))
        if grant is None or grant.table_id != request.path_params["table_id"]:
            return None
        return runtime.live(grant.table_id)

    def locate(request: Request) -> LiveTable | Response | str:
        """The table driven here, a response, or the base URL of the process driving it."""
        if seat(request) is None:
            return _refusal(request, ServeForbidden(), 403)
        table_id = request.path_params["table_id"]
        live = runtime.live(table_id)
        if live is not None:
            return live
        row = runtime.table(table_id)
        if row is not None and row.status in ("running", "finished"):
            holder = runtime.holder_of(table_id)
            if holder is None and row.status == "running":  # nobody drives it (its holder died): here
                claimed = runtime.claim(table_id)
                if claimed is not None:
                    return claimed
            elif holder is not None and holder != runtime.holder and not forwarder.forwarded(request):
                address = holder_address(holder)
                if address is not None:
                    return address
        if row is not None and row.status == "finished":
            return finished.screen(row)  # rebuilt from the store: nobody here holds its screen
        return _refusal(request, ServeNotDrivenHere(), 503, runtime.table_locale(table_id))

    async def find(request: Request) -> LiveTable | Response | str:
        """:func:`locate`, on the loop when the table is driven here and its seat is known."""
        live = here(request)
        return live if live is not None else await run_in_threadpool(locate, request)

    async def view(request: Request) -> Response:
        live = await run_in_threadpool(locate, request)
        if isinstance(live, Response):
            return live
        if isinstance(live, str):
            return await forwarder.forward(request, live)
        return JSONResponse(live.view(_after(request)))

    async def events(request: Request) -> Response:
        live = await find(request)
        if isinstance(live, Response):
            return live
        if isinstance(live, str):
            return await forwarder.stream(request, live)
        return StreamingResponse(
            _event_stream(request, live, _after(request)),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    async def answer(request: Request) -> Response:
        began = time.perf_counter()
        live = await find(request)
        located = time.perf_counter()
        if isinstance(live, Response):
            return live
        if isinstance(live, str):
            raw = await request.body()
            if len(raw) > MAX_BODY:
                locale = runtime.table_locale(request.path_params["table_id"])
                return _refusal(request, ServeTooLarge(), 413, locale)
            return await forwarder.forward(request, live, raw)
        try:
            body = await _json_body(request)
            text = body.get("text") if isinstance(body, dict) else None
            if not isinstance(text, str):
                raise _BadBody(ServeTextMissing(), 400)
            read = time.perf_counter()
            # answered once it is stored: the player does not wait for the other tables, and
            # no thread of the pool waits for the disk (the store's writer calls back)
            done = await live.accept_soon(text)
        except _BadBody as exc:
            return _refusal(request, exc.reason, exc.status, live.config.locale)
        except TableError as exc:
            return _refusal(request, exc.reason, 409, live.config.locale)
        replied = time.perf_counter()
        phases = [("locate", located - began), ("body", read - located), *done.timings]
        phases.append(("total", replied - began))
        return JSONResponse(
            {"status": done.status, "lines": list(done.lines)},
            headers={"server-timing": _server_timing(phases)},
        )

    def transcript(request: Request) -> Response:
        if seat(request) is None:
            return _refusal(request, ServeForbidden(), 403)
        table_id = request.path_params["table_id"]
        data = runtime.transcript(table_id)
        if data is None:
            return _refusal(request, ServeTranscriptLater(), 409, runtime.table_locale(table_id))
        return Response(
            data,
            media_type="application/x-ndjson",
            headers={"content-disposition": f'attachment; filename="table-{table_id}.jsonl"'},
        )

    routes: list[BaseRoute] = [
        Route("/", lobby_page),
        Route("/play/{table_id}", table_page),
        Route("/api/strings/{locale}", strings),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables", open_table, methods=["POST"]),
        Route("/api/tables/{table_id}/view", view),
        Route("/api/tables/{table_id}/events", events),
        Route("/api/tables/{table_id}/answer", answer, methods=["POST"]),
        Route("/api/tables/{table_id}/transcript", transcript),
        Mount("/static", app=StaticFiles(directory=static_dir()), name="static"),
        *aiwolf_routes(runtime),
        *extra_routes,
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(runtime.start)
        try:
            yield
        finally:
            await forwarder.aclose()
            await run_in_threadpool(runtime.close)

    return Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)], lifespan=lifespan)


async def _event_stream(request: Request, live: LiveTable, after: int) -> AsyncIterator[str]:
    """The seat's view as server-sent events: once now, then at every change (lines from
    where the last message left off), until the table ends here or the client goes."""
    changed = live.subscribe()
    version = -1
    try:
        while True:
            changed.clear()
            frame = live.frame(after)  # made cheaply: the loop serves every table's stream
            if frame.version != version:
                version = frame.version
                after = frame.line_count
                yield f"data: {frame.text}\n\n"
            if frame.status in _ENDED:
                return
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE_SECONDS)
            except TimeoutError:
                if await request.is_disconnected():
                    return
                yield ": keep-alive\n\n"
    finally:
        live.unsubscribe(changed)
