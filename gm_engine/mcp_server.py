"""The engine's tools for any MCP client, on the official MCP Python SDK (``mcp``).

:func:`build_server` makes a low-level :class:`mcp.server.Server` whose

* tools are the offers of the moment of an :class:`~gm_engine.sessions.mcp.McpGame`: the
  input schema is the one the model layer sends (:meth:`Offer.spec`, narrowed to the legal
  choices), the output schema the JSON schema of the tool's ``output_model``, the
  annotations its ``read_only`` / ``destructive`` / ``idempotent`` flags (never open-world).
  The list changes with the phase; each change (a tool, or a schema's legal choices) is
  announced with ``notifications/tools/list_changed``;
* calls run through the game (:meth:`McpGame.call`): an unknown, out-of-phase or illegal
  call answers ``isError`` with the engine's reason, the phase and the tools allowed now,
  and changes nothing; an accepted call answers the engine's text and, for a tool with an
  output model, its data as ``structuredContent``;
* resources are the party's master data (§13.1), the compact status (§13.2) and the battle's
  current log (§13's BATTLE_SETUP / ROLL_LOG / BATTLE_JUDGE / ...);
* prompts are the GM brief of each shipped scenario.

Each MCP session (a stdio process, or each session of the streamable HTTP transport) has a
game of its own with its own seed (:class:`GameHouse`), recorded as a transcript of kind
``mcp`` that ``gm replay`` replays. The SDK is imported by this module only.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions

from gm_engine import __version__
from gm_engine.adventure.scenario import shipped_scenarios
from gm_engine.events import EventSink, NullSink
from gm_engine.llm.base import ToolSpec
from gm_engine.sessions.base import SessionSpec
from gm_engine.sessions.mcp import McpGame, scenario_prompt
from gm_engine.tools.base import Offer
from gm_engine.transcripts.format import TranscriptWriter
from gm_engine.transcripts.paths import default_transcript_path

INSTRUCTIONS = (
    "gm_engine holds every number of a tabletop game: dice under any BCDice system, a fast-combat "
    "character and every step of its fights, spells, checks, and shipped scenarios with their scenes and "
    "endings. Never invent a roll, HP or outcome: call the tools and narrate from what they return. The "
    "tools listed are those legal now; the list changes with the phase (tools/list_changed). Start with "
    "create_character_preset (or start_scenario), and in a battle follow its pauses: battle_step roll, "
    "judge, narrate, next_round or end."
)

#: The resources, by URI: (name, description, how to read it from a game).
RESOURCES: dict[str, tuple[str, str, Callable[[McpGame], str]]] = {
    "gm://party/master-data": (
        "master-data",
        "every character's 【キャラクターマスターデータ】 (§13.1)",
        McpGame.master_data,
    ),
    "gm://party/status": (
        "status",
        "the party's compact status (§13.2) and the battle's phase",
        McpGame.status_text,
    ),
    "gm://battle/log": (
        "battle-log",
        "the battle's current log (§13: BATTLE_SETUP, ROLL_LOG, ...)",
        McpGame.battle_log,
    ),
}


#: What a handler is handed.
Ctx = ServerRequestContext[Any]

#: Where a connection keeps its game.
_STATE_KEY = "gm_engine.game"


def tool_of(offer: Offer[Any]) -> types.Tool:
    """The MCP tool of ``offer``: its spec's schema, its output model's schema, its flags."""
    spec = offer.spec()
    declared = offer.tool
    output = declared.output_model
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.parameters,
        output_schema=output.model_json_schema(mode="serialization") if output is not None else None,
        annotations=types.ToolAnnotations(
            read_only_hint=declared.read_only,
            destructive_hint=declared.destructive and not declared.read_only,
            idempotent_hint=declared.idempotent,
            open_world_hint=False,
        ),
    )


@dataclass
class LiveGame:
    """One MCP session's game, its transcript and the lock that keeps its calls in order."""

    spec: SessionSpec
    game: McpGame
    writer: TranscriptWriter | None
    path: Path | None
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    closed: bool = False


class GameHouse:
    """The games of one server, one per MCP session (created on the session's first request).

    ``seed`` fixes the first game's seed (the next get the following numbers; default:
    random); ``record`` writes each game's transcript to ``transcripts`` (a directory; default:
    the user data directory's).
    """

    def __init__(
        self, *, seed: int | None = None, record: bool = True, transcripts: Path | None = None
    ) -> None:
        self._seeds = itertools.count(seed) if seed is not None else None
        self.record = record
        self.transcripts = transcripts
        self._open: list[LiveGame] = []
        self.finished: list[LiveGame] = []

    @property
    def open_games(self) -> tuple[LiveGame, ...]:
        """The games of the sessions still connected, oldest first."""
        return tuple(self._open)

    def _next_seed(self) -> int:
        return next(self._seeds) if self._seeds is not None else secrets.randbelow(2**63)

    def game_for(self, ctx: Ctx) -> LiveGame:
        """The game of ``ctx``'s connection (made, and its transcript started, on first use;
        its end is recorded when the connection closes)."""
        # the connection is the MCP session (one stdio process, one streamable HTTP session);
        # the SDK hands handlers a ServerSession per request, which reaches it only privately
        connection: Connection = ctx.session._connection
        found = connection.state.get(_STATE_KEY)
        if isinstance(found, LiveGame):
            return found
        spec = SessionSpec(kind="mcp", seed=self._next_seed(), backend="mcp")
        writer: TranscriptWriter | None = None
        path: Path | None = None
        sink: EventSink = NullSink()
        if self.record:
            path = default_transcript_path("mcp", spec.seed)
            if self.transcripts is not None:
                path = self.transcripts / path.name
            writer = TranscriptWriter.create(path, spec)
            sink = writer
        live = LiveGame(spec=spec, game=McpGame(spec, sink), writer=writer, path=path)
        connection.state[_STATE_KEY] = live
        self._open.append(live)
        connection.exit_stack.push_async_callback(self.close, live)
        return live

    async def close(self, live: LiveGame) -> None:
        """Record ``live``'s end (the client left) and close its transcript (once)."""
        if live not in self._open:
            return
        self._open.remove(live)
        async with live.lock:
            live.closed = True
            outcome = await live.game.leave()
            if live.writer is not None:
                live.writer.finish(live.spec.seed, outcome)
        self.finished.append(live)

    async def close_all(self) -> None:
        """Close every game still open (the server is stopping)."""
        for live in list(self._open):
            await self.close(live)


def _listing(game: McpGame) -> list[ToolSpec]:
    # names and schemas: a step's enum changes from pause to pause under the same name
    return [offer.spec() for offer in game.offers()]


def build_server(house: GameHouse) -> Server[GameHouse]:
    """The MCP server of ``house``'s games (see the module docstring)."""

    @contextlib.asynccontextmanager
    async def lifespan(server: Server[GameHouse]) -> AsyncIterator[GameHouse]:
        try:
            yield house
        finally:
            with anyio.CancelScope(shield=True):
                await house.close_all()

    async def list_tools(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        live = house.game_for(ctx)
        async with live.lock:
            return types.ListToolsResult(tools=[tool_of(offer) for offer in live.game.offers()])

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        live = house.game_for(ctx)
        async with live.lock:
            game = live.game
            if live.closed:
                text = "error: this MCP session's game is over (its transcript is closed)"
                return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
            before = _listing(game)
            outcome = await game.call(params.name, dict(params.arguments or {}))
            after = _listing(game)
            if live.writer is not None:  # the answer is what the client sees: a public point
                live.writer.public_point()
        if not outcome.ok:
            allowed = ", ".join(spec.name for spec in after)
            text = f"{outcome.text}\n(nothing changed; phase now: {game.phase()}; allowed now: {allowed})"
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        content: list[types.ContentBlock] = [types.TextContent(text=outcome.text)]
        if outcome.shown:
            content.append(types.TextContent(text="\n".join(outcome.shown)))
        structured = outcome.data if outcome.structured else None
        if before != after:
            await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=content, structured_content=structured)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=name, description=description, mime_type="text/plain")
                for uri, (name, description, _) in RESOURCES.items()
            ]
        )

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        entry = RESOURCES.get(uri)
        if entry is None:
            raise ValueError(f"no resource {uri!r}; the resources are: {', '.join(RESOURCES)}")
        live = house.game_for(ctx)
        async with live.lock:
            text = entry[2](live.game)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)]
        )

    async def list_prompts(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(name=sid, description=f"GM brief of 「{scenario.title}」 ({scenario.system})")
                for sid, scenario in sorted(shipped_scenarios().items())
            ]
        )

    async def get_prompt(ctx: Ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        scenarios = shipped_scenarios()
        scenario = scenarios.get(params.name)
        if scenario is None:
            raise ValueError(f"no prompt {params.name!r}; the prompts are: {', '.join(sorted(scenarios))}")
        message = types.PromptMessage(role="user", content=types.TextContent(text=scenario_prompt(scenario)))
        return types.GetPromptResult(description=scenario.title, messages=[message])

    return _GmServer(
        "gm_engine",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


class _GmServer(Server[GameHouse]):
    """The SDK's server, announcing tools/list_changed whoever runs it (an in-memory
    transport asks for the default options)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """The options, with tools/list_changed on unless told otherwise."""
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


async def serve_stdio(house: GameHouse) -> None:
    """Serve one MCP session on stdin/stdout until the client closes it."""
    from mcp.server.stdio import stdio_server

    server = build_server(house)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(house: GameHouse, *, host: str = "127.0.0.1") -> Any:
    """The streamable HTTP app (a Starlette ASGI app serving ``/mcp``) of ``house``'s games."""
    server = build_server(house)
    return server.streamable_http_app(host=host)


async def serve_http(house: GameHouse, *, host: str, port: int) -> None:
    """Serve the streamable HTTP transport on ``host``:``port`` until interrupted."""
    import uvicorn

    config = uvicorn.Config(http_app(house, host=host), host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
