"""BCDice-API, answered by gm's dice engine: what a Discord bot or a table tool configured
with a BCDice-API address talks to.

The answers are BCDice-API's (bcdice/bcdice-api, release 3.0.0, the ``/v2`` of its
docs/api_v2.md and lib/bcdice_api/controller/v2.rb): the same paths, status codes, field
names in the same order, compact JSON as ``application/json`` with non-ASCII text as
UTF-8, ``Access-Control-Allow-Origin: *`` and ``X-Content-Type-Options: nosniff`` on
every answer. ``/v1``, which BCDice-API 3.0.0 removed, is answered as its last release
with it (2.1.1) answered it, without JSONP. The text and the flags are the engine's
(:func:`gm_engine.dice.engine.evaluate`); the dice come from one injected
:class:`~gm_engine.dice.source.DiceSource`, so a seeded server rolls the same dice for
the same requests.

:func:`bcdice_api_routes` gives the routes, for ``gm serve``'s application to mount;
:func:`bcdice_api_app` is a Starlette application of those routes alone.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from gm_engine.dice.commands.registry import CLIENT_PREFIXES
from gm_engine.dice.commands.version import BCDICE_VERSION
from gm_engine.dice.engine import evaluate
from gm_engine.dice.rands import detailed_rands
from gm_engine.dice.result import RollResult
from gm_engine.dice.source import DiceSource, SeededSource
from gm_engine.dice.system import GameSystem
from gm_engine.dice.systems.registry import SYSTEMS_BY_ID

__all__ = [
    "API_VERSION",
    "MAX_BODY_BYTES",
    "ApiAdmin",
    "bcdice_api_app",
    "bcdice_api_routes",
    "command_pattern",
]

#: The BCDice-API release whose answers these are (``/v2/version``'s ``api``).
API_VERSION = "3.0.0"
#: The BCDice-API release whose ``/v1`` answers these are (``/v1/version``'s ``api``).
V1_API_VERSION = "2.1.1"

#: The largest request body read (a chat line is short; a bigger body is refused with
#: 413 rather than read into memory).
MAX_BODY_BYTES = 1024 * 1024

_HEADERS = {"Access-Control-Allow-Origin": "*", "X-Content-Type-Options": "nosniff"}
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

#: Paths under BCDice-API's prefixes that no endpoint answers get its 404, by any method.
_CATCH_ALL: Sequence[str] = ("/v2", "/v2/{rest:path}", "/v1", "/v1/{rest:path}")
_ANY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ApiAdmin:
    """Who runs the server, as ``/v2/admin`` tells it (empty strings: not said)."""

    name: str = ""
    url: str = ""
    email: str = ""


def command_pattern(system: type[GameSystem]) -> str:
    """The regexp source a client tests a chat line with, case-insensitively, to decide
    whether it may be a command of ``system``: BCDice's ``command_pattern``, the
    common commands' prefixes then the system's, after an optional secret ``S``."""
    return "^S?(" + "|".join((*CLIENT_PREFIXES, *system.prefixes)) + ")"


class _ApiError(Exception):
    """An answer other than a result: its status and body."""

    def __init__(self, status: int, body: Mapping[str, object], headers: Mapping[str, str] | None = None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


_NOT_FOUND = {"ok": False, "reason": "not found"}


def _answer(body: object, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    # Ruby's JSON.generate: no spaces, non-ASCII as UTF-8, control characters escaped
    content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
    return Response(content, status, {**_HEADERS, **(headers or {})}, media_type="application/json")


def _not_found() -> _ApiError:
    # Sinatra marks a route it did not find for a cascade to the next application
    return _ApiError(404, _NOT_FOUND, {"X-Cascade": "pass"})


class _Api:
    """The endpoints over one dice source."""

    def __init__(self, source: DiceSource, tables_dir: str | None, admin: ApiAdmin) -> None:
        self.source = source
        self.tables_dir = tables_dir
        self.admin = admin
        ordered = sorted(SYSTEMS_BY_ID.values(), key=lambda cls: cls.sort_key)
        self.systems: tuple[type[GameSystem], ...] = tuple(ordered)

    # -- v2 ----------------------------------------------------------------------------

    async def version(self, request: Request) -> Response:
        return _answer({"api": API_VERSION, "bcdice": BCDICE_VERSION})

    async def admin_info(self, request: Request) -> Response:
        admin = self.admin
        return _answer({"name": admin.name, "url": admin.url, "email": admin.email})

    async def game_systems(self, request: Request) -> Response:
        listed = [{"id": cls.id, "name": cls.name, "sort_key": cls.sort_key} for cls in self.systems]
        return _answer({"game_system": listed})

    async def game_system(self, request: Request) -> Response:
        cls = SYSTEMS_BY_ID.get(request.path_params["id"])
        if cls is None:
            return _answer({"ok": False, "reason": "unsupported game system"}, 400)
        return _answer(
            {
                "ok": True,
                "id": cls.id,
                "name": cls.name,
                "sort_key": cls.sort_key,
                "command_pattern": command_pattern(cls),
                "help_message": cls.help_text,
            }
        )

    async def roll(self, request: Request) -> Response:
        try:
            result = await self._roll(request, request.path_params["id"], "unsupported game system")
        except _ApiError as error:
            return _answer(error.body, error.status, error.headers)
        rands = [{"kind": d.kind, "sides": d.sides, "value": d.value} for d in detailed_rands(result)]
        return _answer(
            {
                "ok": True,
                "text": result.text,
                "secret": result.secret,
                "success": result.success,
                "failure": result.failure,
                "critical": result.critical,
                "fumble": result.fumble,
                "rands": rands,
            }
        )

    # -- v1 ----------------------------------------------------------------------------

    async def v1_version(self, request: Request) -> Response:
        return _answer({"api": V1_API_VERSION, "bcdice": BCDICE_VERSION})

    async def v1_systems(self, request: Request) -> Response:
        return _answer({"systems": sorted(cls.id for cls in self.systems)})

    async def v1_names(self, request: Request) -> Response:
        names = [{"system": cls.id, "name": cls.name, "sort_key": cls.sort_key} for cls in self.systems]
        return _answer({"names": names})

    async def v1_system_info(self, request: Request) -> Response:
        try:
            params = await _params(request)
        except _ApiError as error:
            return _answer(error.body, error.status, error.headers)
        cls = SYSTEMS_BY_ID.get(params.get("system", ""))
        if cls is None:
            return _answer({"ok": False, "reason": "unsupported dicebot"}, 400)
        info = {
            "name": cls.name,
            "gameType": cls.id,
            "sortKey": cls.sort_key,
            "prefixs": list(cls.prefixes),
            "info": cls.help_text,
        }
        return _answer({"ok": True, "systeminfo": info})

    async def v1_roll(self, request: Request) -> Response:
        try:
            params = await _params(request)
            result = await self._roll(request, params.get("system"), "unsupported dicebot", params)
        except _ApiError as error:
            return _answer(error.body, error.status, error.headers)
        return _answer(
            {
                "ok": True,
                "result": f": {result.text}",
                "secret": result.secret,
                "dices": [{"faces": die.sides, "value": die.value} for die in result.dice],
                "detailed_rands": [
                    {"kind": d.kind, "sides": d.sides, "value": d.value} for d in detailed_rands(result)
                ],
            }
        )

    # -- both --------------------------------------------------------------------------

    async def not_found(self, request: Request) -> Response:
        return _answer(_NOT_FOUND, 404, {"X-Cascade": "pass"})

    async def _roll(
        self,
        request: Request,
        system_id: str | None,
        unknown_system: str,
        params: Mapping[str, str] | None = None,
    ) -> RollResult:
        """Evaluate the request's ``command`` under ``system_id``, in BCDice-API's order:
        the system is checked before the command."""
        cls = SYSTEMS_BY_ID.get(system_id or "")
        if cls is None:
            raise _ApiError(400, {"ok": False, "reason": unknown_system})
        if params is None:
            params = await _params(request)
        command = params.get("command")
        if not command:
            raise _ApiError(400, {"ok": False, "reason": "unsupported command"})
        source = self.source
        start = len(source.history)
        try:
            result = evaluate(command, cls(), source=source, tables_dir=self.tables_dir)
        except Exception:
            # BCDice-API's answer to a fault: 500 and no reason (an injected queue ran
            # dry, or a fault past the engine's own guard)
            _log.exception("BCDice-API roll %r under %s failed", command, cls.id)
            raise _ApiError(500, {"ok": False}) from None
        finally:
            # the answer carries its dice: a long-running server keeps no history
            del source.history[start:]
        if result is None:
            raise _ApiError(400, {"ok": False, "reason": "unsupported command"})
        return result


async def _params(request: Request) -> dict[str, str]:
    """The request's parameters as Sinatra merges them: the query string, then a form
    body (URL-encoded, also when a POST names no type, or multipart) over it.

    Raises:
        _ApiError: the body is over :data:`MAX_BODY_BYTES` (413) or not a readable form (400).
    """
    params = dict(request.query_params)
    content_type = request.headers.get("content-type", "")
    media_type = content_type.partition(";")[0].strip().lower()
    if not media_type and request.method != "POST":
        return params
    if media_type and media_type not in _FORM_TYPES:
        return params
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise _ApiError(413, {"ok": False, "reason": "request too large"})
    if media_type == "multipart/form-data":
        try:
            form = await request.form(max_files=0, max_fields=100, max_part_size=MAX_BODY_BYTES)
        except Exception:
            raise _ApiError(400, {"ok": False, "reason": "bad request"}) from None
        for key, value in form.multi_items():
            if not isinstance(value, UploadFile):
                params[key] = value
        return params
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise _ApiError(413, {"ok": False, "reason": "request too large"})
    params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    return params


def bcdice_api_routes(
    source: DiceSource | None = None,
    *,
    tables_dir: str | None = None,
    admin: ApiAdmin | None = None,
) -> list[BaseRoute]:
    """BCDice-API's routes under ``/v2`` and ``/v1``, for an application to mount.

    ``source`` gives every die (default: a :class:`SeededSource` seeded by the system's
    entropy); the server forgets each answer's dice once it is sent. Table commands
    read the packs in ``tables_dir`` (default: ``$GM_TABLES_DIR``). Any other path
    under ``/v2`` or ``/v1`` is BCDice-API's 404.
    """
    api = _Api(source if source is not None else SeededSource(), tables_dir, admin or ApiAdmin())
    return [
        Route("/v2/version", api.version, methods=["GET"]),
        Route("/v2/admin", api.admin_info, methods=["GET"]),
        Route("/v2/game_system", api.game_systems, methods=["GET"]),
        Route("/v2/game_system/{id}", api.game_system, methods=["GET"]),
        Route("/v2/game_system/{id}/roll", api.roll, methods=["GET", "POST"]),
        Route("/v1/version", api.v1_version, methods=["GET"]),
        Route("/v1/admin", api.admin_info, methods=["GET"]),
        Route("/v1/systems", api.v1_systems, methods=["GET"]),
        Route("/v1/names", api.v1_names, methods=["GET"]),
        Route("/v1/systeminfo", api.v1_system_info, methods=["GET"]),
        Route("/v1/diceroll", api.v1_roll, methods=["GET"]),
        *(Route(path, api.not_found, methods=_ANY_METHOD) for path in _CATCH_ALL),
    ]


async def _hello(request: Request) -> Response:
    # BCDice-API's root answers this line (Sinatra's default type)
    headers = {**_HEADERS, "Content-Type": "text/html;charset=utf-8"}
    return Response(b"Hello. This is BCDice-API.", 200, headers)


async def _not_found_anywhere(request: Request) -> Response:
    return _answer(_NOT_FOUND, 404, {"X-Cascade": "pass"})


def bcdice_api_app(
    source: DiceSource | None = None,
    *,
    tables_dir: str | None = None,
    admin: ApiAdmin | None = None,
) -> Starlette:
    """A Starlette application answering BCDice-API alone (its root line too, and its
    404 everywhere else), over :func:`bcdice_api_routes`'s arguments."""
    routes: list[Any] = [
        Route("/", _hello, methods=["GET"]),
        *bcdice_api_routes(source, tables_dir=tables_dir, admin=admin),
        Route("/{rest:path}", _not_found_anywhere, methods=_ANY_METHOD),
    ]
    return Starlette(routes=routes)
