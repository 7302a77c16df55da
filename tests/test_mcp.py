"""``gm mcp`` through the SDK's own client: in memory, over stdio against a ``gm mcp``
subprocess, and over streamable HTTP on 127.0.0.1.

A whole fight is driven only through MCP calls; every structured result is validated
against its tool's output schema; out-of-phase and illegal calls answer ``isError`` with
the state unchanged; each session's transcript replays.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import mcp_types as types
import pytest
from mcp.client import Client, ClientSession
from mcp.client.stdio import StdioServerParameters

from gm_engine.mcp_server import GameHouse, LiveGame, build_server
from gm_engine.sessions.mcp import McpGame
from gm_engine.transcripts.format import TranscriptTruncated, read_transcript
from gm_engine.transcripts.replay import replay_file, replay_transcript

#: Starts ``gm`` in a fresh interpreter (the console script may not be on PATH in a test run).
GM = [sys.executable, "-c", "import sys; from gm_engine.cli import main; sys.exit(main())"]

HERO = {"name": "アリア", "rank": "駆け出し", "preset": "おまかせ"}
FIGHT = {"kind": "エリート戦", "difficulty": ["弱い"], "enemy_name": "小鬼"}


class Table:
    """A client's view of the server through the SDK's ClientSession: the tools listed now
    (relisted after every call) and the tools/list_changed notifications seen."""

    def __init__(self) -> None:
        self.client: ClientSession | None = None
        self.tools: dict[str, types.Tool] = {}
        self.list_changes = 0
        self.changed_listings = 0  # calls after which the listing (names or schemas) differed
        self.validated = 0

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.list_changes += 1

    async def relist(self) -> None:
        assert self.client is not None
        self.tools = {tool.name: tool for tool in (await self.client.list_tools()).tools}

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``name`` (it must be listed now), check its result against the listed output
        schema, and relist the tools."""
        assert self.client is not None
        assert name in self.tools, f"{name} is not listed now: {sorted(self.tools)}"
        tool = self.tools[name]
        result = await self.client.call_tool(name, arguments)
        assert not result.is_error, result.content
        if tool.output_schema is not None:
            assert result.structured_content is not None, f"{name} declared an output schema, sent no data"
            jsonschema.validate(result.structured_content, tool.output_schema)
            self.validated += 1
        else:
            assert result.structured_content is None
        before = [t.model_dump() for t in self.tools.values()]
        await self.relist()
        self.changed_listings += before != [t.model_dump() for t in self.tools.values()]
        return result

    async def text(self, name: str, arguments: dict[str, Any]) -> str:
        result = await self.call(name, arguments)
        first = result.content[0]
        assert isinstance(first, types.TextContent)
        return first.text


async def whole_fight(table: Table) -> list[str]:
    """Make a character, fight a battle to its end by the listed steps, end the adventure;
    return the battle's logs in order."""
    await table.relist()
    await table.call("create_character_preset", HERO)
    logs = [await table.text("start_battle", FIGHT)]
    for _ in range(200):
        if "battle_step" not in table.tools:
            break
        step = table.tools["battle_step"].input_schema["properties"]["step"]["enum"]
        choice = next(s for s in ("end", "roll", "judge", "narrate", "next_round") if s in step)
        logs.append(await table.text("battle_step", {"step": choice}))
    assert "battle_step" not in table.tools, "the battle did not end within 200 steps"
    await table.call("end_adventure", {"summary": "小鬼を退けた"})
    assert set(table.tools) == {"roll_dice_in", "show_status"}
    return logs


@asynccontextmanager
async def in_memory(house: GameHouse) -> AsyncIterator[Table]:
    table = Table()
    async with Client(build_server(house), mode="legacy", message_handler=table.on_message) as client:
        table.client = client.session
        yield table


def only_game(house: GameHouse) -> McpGame:
    (live,) = house.open_games
    return live.game


def ended(path: Path) -> bool:
    """Whether the transcript at ``path`` has its end line yet (its server may be writing it)."""
    try:
        return read_transcript(path).end is not None
    except TranscriptTruncated:
        return False


def replays(path: Path) -> None:
    transcript = read_transcript(path)
    assert transcript.header.kind == "mcp"
    strict = replay_transcript(transcript)
    assert strict.ok, strict.describe()
    assert replay_file(path).ok


# ------------------------------------------------------------------------------------ in memory


def test_a_whole_fight_in_memory_is_validated_recorded_and_replayed(tmp_path: Path) -> None:
    house = GameHouse(seed=11, transcripts=tmp_path)

    async def main() -> list[str]:
        async with in_memory(house) as table:
            logs = await whole_fight(table)
            assert table.validated == len(logs)  # start_battle and every step
            # each call that changed the listing (a tool, or a step's legal values) said so
            assert table.list_changes == table.changed_listings >= len(logs)
            return logs

    logs = anyio.run(main)
    assert logs[0].startswith("【BATTLE_SETUP】") and any("〈ROLL_LOG〉" in log for log in logs)
    (live,) = house.finished
    assert live.path is not None and live.path.exists()
    replays(live.path)


def test_the_same_seed_and_calls_give_the_same_fight(tmp_path: Path) -> None:
    async def fight(where: Path) -> list[str]:
        async with in_memory(GameHouse(seed=3, transcripts=where)) as table:
            return await whole_fight(table)

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert anyio.run(fight, tmp_path / "a") == anyio.run(fight, tmp_path / "b")


def _state(game: McpGame) -> tuple[str, int, str, str]:
    return (game.state_hash(), len(game.adventure.source.history), game.phase(), game.master_data())


def test_out_of_phase_and_illegal_calls_are_errors_that_change_nothing(tmp_path: Path) -> None:
    house = GameHouse(seed=5, transcripts=tmp_path)

    async def refused(table: Table, name: str, arguments: dict[str, Any], *words: str) -> None:
        assert table.client is not None
        game = only_game(house)
        before = _state(game)
        result = await table.client.call_tool(name, arguments)
        assert result.is_error and result.structured_content is None
        first = result.content[0]
        assert isinstance(first, types.TextContent)
        for word in (*words, "nothing changed", f"phase now: {game.phase()}"):
            assert word in first.text, first.text
        assert _state(game) == before

    async def main() -> None:
        async with in_memory(house) as table:
            await table.relist()
            # a battle step before any battle: out of phase, the allowed tools named
            await refused(table, "battle_step", {"step": "roll"}, "battle_step", "create_character_preset")
            await refused(table, "no_such_tool", {}, "unknown tool")
            await refused(table, "create_character_preset", {**HERO, "rank": "神"}, "rank", "駆け出し")
            await refused(table, "create_character_preset", {**HERO, "colour": "red"}, "unknown argument")
            await refused(table, "roll_dice_in", {"system": "DiceBot", "command": "hello", "reason": "x"},
                          "not a dice command")
            await table.call("create_character_preset", HERO)
            await refused(table, "create_character_preset", HERO, "already a character")
            await table.call("start_battle", FIGHT)
            # at SETUP: judging first skips the roll, and no new character joins mid-fight
            await refused(table, "battle_step", {"step": "judge"}, "allowed", '"roll"')
            await refused(table, "create_character_preset", {**HERO, "name": "ミナ"}, "battle_step")
            await refused(table, "end_adventure", {"summary": "x"}, "unknown tool")
            await refused(table, "cast_spell", {"caster": "アリア", "spell": "蘇生"}, "spell")

    anyio.run(main)
    (live,) = house.finished
    assert live.path is not None
    replays(live.path)  # the refusals are recorded and replay too


def test_annotations_say_what_each_tool_does(tmp_path: Path) -> None:
    async def main() -> dict[str, types.Tool]:
        async with in_memory(GameHouse(seed=1, transcripts=tmp_path)) as table:
            await table.relist()
            seen = dict(table.tools)
            await table.call("create_character_preset", HERO)
            seen.update(table.tools)
            await table.call("start_battle", FIGHT)
            seen.update(table.tools)
            return seen

    tools = anyio.run(main)
    hints = {name: tool.annotations for name, tool in tools.items()}
    assert all(h is not None and h.open_world_hint is False for h in hints.values())
    show = hints["show_status"]
    assert show is not None and show.read_only_hint and show.idempotent_hint
    step = hints["battle_step"]
    assert step is not None and not step.read_only_hint and step.destructive_hint and not step.idempotent_hint
    roll = hints["roll_dice_in"]
    assert roll is not None and not roll.read_only_hint
    assert not roll.destructive_hint and not roll.idempotent_hint
    assert tools["roll_dice_in"].output_schema is not None and tools["show_status"].output_schema is None


def test_the_listing_follows_the_phase(tmp_path: Path) -> None:
    async def main() -> list[set[str]]:
        async with in_memory(GameHouse(seed=2, transcripts=tmp_path)) as table:
            await table.relist()
            phases = [set(table.tools)]
            await table.call("create_character_preset", HERO)
            phases.append(set(table.tools))
            await table.call("start_battle", FIGHT)
            phases.append(set(table.tools))
            await table.call("battle_step", {"step": "roll"})
            phases.append(set(table.tools))
            return phases

    start, free, setup, rolled = anyio.run(main)
    assert "start_scenario" in start and "start_battle" not in start
    assert "start_battle" in free and "start_scenario" not in free and "battle_step" not in free
    assert "battle_step" in setup and "cast_spell" in setup and "start_battle" not in setup
    first_setup_only = {"situational_bonus", "resolve_by_narrative", "fight_it_out"}
    assert first_setup_only <= setup and not first_setup_only & rolled and "battle_step" in rolled


def test_dice_under_any_system_give_bcdice_text_and_structure(tmp_path: Path) -> None:
    async def main() -> list[types.CallToolResult]:
        async with in_memory(GameHouse(seed=9, transcripts=tmp_path)) as table:
            await table.relist()
            commands = [("Cthulhu7th", "CC(1)<=53"), ("TheOneRing2nd", "14RG3"), ("DiceBot", "2D6+3>=7")]
            return [
                await table.call("roll_dice_in", {"system": s, "command": c, "reason": "テスト"})
                for s, c in commands
            ]

    results = anyio.run(main)
    for result in results:
        assert result.structured_content is not None
        text = result.structured_content["result"]["text"]
        first = result.content[0]
        assert isinstance(first, types.TextContent) and text in first.text
    assert results[0].structured_content is not None
    assert results[0].structured_content["result"]["detail"]["kind"] == "coc7_skill"


def test_resources_and_prompts(tmp_path: Path) -> None:
    async def main() -> tuple[list[str], str, str, str, list[str], str]:
        async with in_memory(GameHouse(seed=4, transcripts=tmp_path)) as table:
            assert table.client is not None
            client = table.client
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            await table.relist()
            await table.call("create_character_preset", HERO)
            await table.call("start_battle", FIGHT)

            async def read(uri: str) -> str:
                content = (await client.read_resource(uri)).contents[0]
                assert isinstance(content, types.TextResourceContents)
                return content.text

            sheet, status, log = [await read(u) for u in uris]
            prompts = [p.name for p in (await client.list_prompts()).prompts]
            brief = (await client.get_prompt("manor_diary")).messages[0].content
            assert isinstance(brief, types.TextContent)
            return uris, sheet, status, log, prompts, brief.text

    uris, sheet, status, log, prompts, brief = anyio.run(main)
    assert uris == ["gm://party/master-data", "gm://party/status", "gm://battle/log"]
    assert sheet.startswith("【キャラクターマスターデータ】") and "アリア" in sheet
    assert "戦闘中: ラウンド 1" in status
    assert log.startswith("【BATTLE_SETUP】")
    assert prompts == ["goblin_shrine", "grey_pass", "manor_diary"]
    assert "霧笛館" in brief and "開始場面" in brief


def test_a_scenario_from_creation_to_its_scenes(tmp_path: Path) -> None:
    house = GameHouse(seed=6, transcripts=tmp_path)

    async def main() -> tuple[str, set[str], set[str]]:
        async with in_memory(house) as table:
            await table.relist()
            opening = await table.text("start_scenario", {"scenario": "goblin_shrine"})
            creation = set(table.tools)
            await table.call("answer_creation", {"answer": "アリア"})
            assert table.client is not None
            game = only_game(house)
            before = _state(game)
            for name, arguments in [("look_around", {}), ("answer_creation", {"answer": "あ" * 201}),
                                    ("start_scenario", {"scenario": "manor_diary"})]:
                result = await table.client.call_tool(name, arguments)
                assert result.is_error and "phase now: creation" in str(result.content[0])
                assert _state(game) == before
            for answer in ["1", "1", "1", "1", "1", "1", "1"]:
                if "answer_creation" not in table.tools:
                    break
                await table.call("answer_creation", {"answer": answer})
            # the read-only tools change nothing, as their annotation says
            read_only = [n for n, t in table.tools.items() if t.annotations and t.annotations.read_only_hint]
            assert sorted(read_only) == ["look_around", "show_status"]
            before = _state(game)
            for name in read_only:
                await table.call(name, {})
            assert _state(game) == before
            move = table.tools["move_to"].annotations
            assert move is not None and move.destructive_hint  # an exit may lead to an ending
            return opening, creation, set(table.tools)

    opening, creation, story = anyio.run(main)
    assert opening.startswith("=== ") and "名前" in opening
    assert creation == {"roll_dice_in", "answer_creation"}
    assert {"look_around", "show_status"} <= story and "answer_creation" not in story
    (live,) = house.finished
    assert live.path is not None
    replays(live.path)


# -------------------------------------------------------------------------------------- stdio


def test_a_whole_fight_over_stdio_against_gm_mcp(tmp_path: Path) -> None:
    where = tmp_path / "transcripts"
    params = StdioServerParameters(
        command=GM[0], args=[*GM[1:], "mcp", "--seed", "8", "--transcripts", str(where)], env=dict(os.environ)
    )

    async def main() -> list[str]:
        table = Table()
        async with Client(params, mode="legacy", message_handler=table.on_message) as client:
            table.client = client.session
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed
            return await whole_fight(table)

    logs = anyio.run(main)
    assert logs[0].startswith("【BATTLE_SETUP】")
    deadline = time.monotonic() + 30
    while not list(where.glob("mcp-*.jsonl")) and time.monotonic() < deadline:  # pragma: no cover
        time.sleep(0.05)
    (path,) = where.glob("mcp-*.jsonl")
    for _ in range(600):  # the server finishes its transcript as it exits
        if ended(path):
            break
        time.sleep(0.05)
    replays(path)
    replayed = subprocess.run([*GM, "replay", str(path)], capture_output=True, text=True, check=False)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


# ------------------------------------------------------------------------------ streamable HTTP


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for(port: int, process: subprocess.Popen[str]) -> None:
    for _ in range(600):
        if process.poll() is not None:
            raise AssertionError(f"gm mcp --http exited: {process.stderr.read() if process.stderr else ''}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("gm mcp --http did not listen")


def test_streamable_http_on_localhost(tmp_path: Path) -> None:
    port = _free_port()
    where = tmp_path / "transcripts"
    process = subprocess.Popen(
        [*GM, "mcp", "--http", "--port", str(port), "--seed", "12", "--transcripts", str(where)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    try:
        _wait_for(port, process)

        async def session() -> str:
            table = Table()
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
                table.client = client.session
                await table.relist()
                await table.call("create_character_preset", HERO)
                return await table.text("start_battle", FIGHT)

        first, second = anyio.run(session), anyio.run(session)
        assert first.startswith("【BATTLE_SETUP】") and second.startswith("【BATTLE_SETUP】")
        # a session's end is recorded when its client leaves, with the server still up
        for _ in range(600):
            paths = sorted(where.glob("mcp-*.jsonl"))
            if len(paths) == 2 and all(ended(p) for p in paths):
                break
            time.sleep(0.05)
        assert process.poll() is None
        assert all(ended(p) for p in sorted(where.glob("mcp-*.jsonl")))
    finally:
        process.terminate()
        process.wait(timeout=30)
    paths = sorted(where.glob("mcp-*.jsonl"))
    assert len(paths) == 2  # one game, one transcript, per MCP session
    for path in paths:
        replays(path)


# ----------------------------------------------------------------------------------- helpers


def test_the_house_gives_each_session_its_own_seed(tmp_path: Path) -> None:
    house = GameHouse(seed=40, transcripts=tmp_path)

    async def twice() -> list[LiveGame]:
        games: list[LiveGame] = []
        for _ in range(2):
            async with in_memory(house) as table:
                await table.relist()
                games.extend(house.open_games)
        return games

    first, second = anyio.run(twice)
    assert (first.spec.seed, second.spec.seed) == (40, 41)
    assert house.open_games == () and [g.spec.seed for g in house.finished] == [40, 41]


def test_a_session_without_recording_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    house = GameHouse(seed=1, record=False)

    async def main() -> None:
        async with in_memory(house) as table:
            await table.relist()
            await table.call("roll_dice_in", {"system": "DiceBot", "command": "1D6", "reason": "x"})

    anyio.run(main)
    assert house.finished[0].path is None and list(tmp_path.rglob("*.jsonl")) == []
