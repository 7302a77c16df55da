"""Regenerate the shipped transcripts in ``transcripts/`` (deterministic: same code, same bytes).

    .venv/bin/python benchmarks/make_transcripts.py [--only NAME...]

The shipped transcripts are regression tests (``tests/test_transcripts.py``): when a
change alters what a session does on purpose (a rule, a prompt, a tool schema, an
offline agent), ``gm replay transcripts/`` shows the first difference; check that it is
the intended one (``gm replay --tolerant`` tells prompt-only changes from rule changes),
then regenerate with this script and commit the new files with the change.

Each entry below is one recorded session: its spec and the scripted human inputs (and,
for model-driven sessions, the backend it was recorded against).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gm_engine.llm.base import BackendDefaults, ModelRequest, ModelResponse
from gm_engine.sessions.base import HumanDefaults, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.roll import NoModelBackend
from gm_engine.tools.base import response_with_calls
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.sealing import GameKey, key_file


def shipped_key(path: Path) -> GameKey:
    """The sealing key of a shipped transcript, made from its name: the files must come out
    the same on every run, and a finished game's key is on its last line anyway."""
    digest = hashlib.sha256(f"gm_engine shipped transcript {path.name}".encode()).digest()
    return GameKey(key_id=digest[:16].hex(), key=digest)


ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "transcripts"

#: Dice lines across the four game systems, refusals included (they are recorded too).
ROLL_ALL_SYSTEMS = [
    "2d6+1",
    "3d6>=10 attack",
    "4B6>=4",
    "2R6[5]>=4",
    "3U6[6]",
    "1d100<=40",
    "D66",
    "CHOICE[north,south,east]",
    "x3 2d6",
    "S1d20",
    "(2+3)d6kh3",
    "not a command",
    "/system Cthulhu7th",
    "CC<=50",
    "CC(1)<=60",
    "CC(-2)<=40h",
    "CBR(50,70)",
    "FAR(10,50,98)",
    "/locale en",
    "CC<=65",
    "/locale ja",
    "/system TheOneRing2nd",
    "14RG3",
    "12RG2f",
    "16RG1w",
    "FD",
    "/system Cthulhu",
    "CC<=50",
    "CCB<=45",
    "RES(12-10)",
    "CBR(60,40)",
    "/system NoSuchSystem",
    "/system DiceBot",
    "1d6",
    "/quit",
]


def roll_all_systems(path: Path) -> str:
    spec = SessionSpec(kind="roll", seed=20261129, options={"system": "DiceBot"}, backend="none")
    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(ROLL_ALL_SYSTEMS), show=lambda _: None)
    return record_session(
        spec, io, path, durable=False, remember_seed=False, game_key=shipped_key(path)
    ).summary


class ScriptThenAuto(HumanDefaults):
    """The human's scripted opening lines (role choice, refused commands, a first speech),
    then P1's offline agent for the rest of the game (it sees only P1's own view)."""

    def __init__(self, lines: list[str], seed: int) -> None:
        from gm_engine.dice.source import SeededSource
        from gm_engine.sessions.werewolf_offline import AutoHuman
        from gm_engine.werewolf.agents import OfflineAgent

        self.lines = list(lines)
        self.auto = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))

    def observe(self, observation: Any, legal: Sequence[Any]) -> None:
        self.auto.observe(observation, legal)

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        if self.lines:
            return self.lines.pop(0)
        return self.auto.ask(prompt, choices)


def werewolf_game(role: int, seed: int) -> Callable[[Path], str]:
    def make(path: Path) -> str:
        from gm_engine.llm.offline import OfflineBackend

        lines = [str(role), "/help", "/bogus", "おはようございます。今日はよろしくお願いします。"]
        spec = SessionSpec(kind="werewolf", seed=seed, options={}, backend="offline")
        io = SessionIO(backend=OfflineBackend(), human=ScriptThenAuto(lines, seed), show=lambda _: None)
        return record_session(
            spec, io, path, durable=False, remember_seed=False, game_key=shipped_key(path)
        ).summary

    return make


def werewolf_over_the_wire(path: Path) -> str:
    """A game through the real ``openai`` client against the fake Chat Completions server,
    whose model only picks the first legal choice of the tools offered."""
    from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
    from gm_engine.llm.openai_backend import OpenAIBackend
    from gm_engine.sessions.werewolf_offline import first_choice_calls

    def responder(body: dict[str, Any]) -> FakeReply:
        calls = first_choice_calls(body.get("tools") or [])
        return FakeReply.tool_calls(*calls) if calls else FakeReply.text("（GM）夜が明けた。")

    seed = 404
    lines = ["4", "/bogus", "おはよう。狩人ではありません。"]
    spec = SessionSpec(kind="werewolf", seed=seed, options={}, backend="openai", model="fake-model")
    with FakeChatServer(responder=responder) as server:
        backend = OpenAIBackend(model="fake-model", base_url=server.base_url, api_key="test-key")
        io = SessionIO(backend=backend, human=ScriptThenAuto(lines, seed), show=lambda _: None)
        return record_session(
            spec, io, path, durable=False, remember_seed=False, game_key=shipped_key(path)
        ).summary


def adventure(seed: int, system: str, lines: list[str]) -> Callable[[Path], str]:
    def make(path: Path) -> str:
        from gm_engine.llm.offline import OfflineBackend

        spec = SessionSpec(kind="adventure", seed=seed, options={"system": system}, backend="offline")
        human = ScriptedHuman(lines, when_done="次へ")
        io = SessionIO(backend=OfflineBackend(), human=human, show=lambda _: None)
        return record_session(
            spec, io, path, durable=False, remember_seed=False, game_key=shipped_key(path)
        ).summary

    return make


def scenario(seed: int, name: str, lines: list[str], attacks: int = 0) -> Callable[[Path], str]:
    """A shipped scenario played by the offline GM; ``attacks`` times 「攻撃」 after each line
    that may start a fight (said outside one, it is answered with the options and changes
    nothing)."""

    def make(path: Path) -> str:
        from gm_engine.llm.offline import OfflineBackend

        spec = SessionSpec(
            kind="adventure", seed=seed, options={"scenario": name, "max_turns": 200}, backend="offline"
        )
        script = [s for line in lines for s in ([line, *["攻撃"] * attacks] if "へ" in line else [line])]
        human = ScriptedHuman(script, when_done="次へ")
        io = SessionIO(backend=OfflineBackend(), human=human, show=lambda _: None)
        return record_session(
            spec, io, path, durable=False, remember_seed=False, game_key=shipped_key(path)
        ).summary

    return make


class McpClientScript(BackendDefaults):
    """An MCP client's calls as the MCP session's backend: the ``opening`` calls, then each
    battle step the tools offered allow (ending the fight as soon as it may), then the
    ``closing`` calls, then the client leaves (an answer that calls nothing)."""

    name = "mcp-client"

    def __init__(
        self, opening: list[tuple[str, dict[str, Any]]], closing: list[tuple[str, dict[str, Any]]]
    ) -> None:
        self.opening = list(opening)
        self.closing = list(closing)

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        from gm_engine.sessions.mcp import LEFT

        if self.opening:
            return response_with_calls(self.opening.pop(0), id_prefix="mcp")
        step = next((t for t in request.tools if t.name == "battle_step"), None)
        if step is not None:
            legal = step.parameters["properties"]["step"]["enum"]
            choice = next(s for s in ("end", "roll", "judge", "narrate", "next_round") if s in legal)
            return response_with_calls(("battle_step", {"step": choice}), id_prefix="mcp")
        if self.closing:
            return response_with_calls(self.closing.pop(0), id_prefix="mcp")
        return ModelResponse(content=LEFT)


def mcp_session(
    seed: int, opening: list[tuple[str, dict[str, Any]]], closing: list[tuple[str, dict[str, Any]]]
) -> Callable[[Path], str]:
    """An MCP session as ``gm mcp`` records it, its client's calls scripted."""

    def make(path: Path) -> str:
        spec = SessionSpec(kind="mcp", seed=seed, backend="mcp")
        client = McpClientScript(opening, closing)
        io = SessionIO(backend=client, human=ScriptedHuman([]), show=lambda _: None)
        return record_session(
            spec, io, path, durable=False, remember_seed=False, game_key=shipped_key(path)
        ).summary

    return make


_HERO: dict[str, Any] = {"name": "アリア", "rank": "駆け出し", "preset": "おまかせ"}
_MCP_FIGHT: list[tuple[str, dict[str, Any]]] = [
    ("battle_step", {"step": "roll"}),  # out of phase: refused, nothing changes
    ("roll_dice_in", {"system": "Cthulhu7th", "command": "CC(1)<=53", "reason": "目星"}),
    ("roll_dice_in", {"system": "TheOneRing2nd", "command": "14RG3", "reason": "旅"}),
    ("roll_dice_in", {"system": "DiceBot", "command": "not a command", "reason": "x"}),
    ("create_character_preset", _HERO),
    ("create_character_preset", _HERO),  # the same name again: refused
    ("skill_check", {"character": "アリア", "target": 10, "reason": "気配に気づく"}),
    ("start_battle", {"kind": "エリート戦", "difficulty": ["弱い"], "enemy_name": "小鬼"}),
    ("battle_step", {"step": "judge"}),  # not legal at SETUP: refused
    ("cast_spell", {"caster": "アリア", "spell": "火弾"}),
]
_MCP_SCENARIO: list[tuple[str, dict[str, Any]]] = [
    ("start_scenario", {"scenario": "manor_diary"}),
    ("answer_creation", {"answer": "マーロウ"}),
    ("answer_creation", {"answer": "古書店主"}),
    ("answer_creation", {"answer": "オカルト、説得"}),
    ("look_around", {}),
    ("talk_to", {"npc": "client", "about": "兄のこと"}),
    ("move_to", {"exit": "hall"}),
    ("examine", {"thing": "portrait"}),
]


SESSIONS: dict[str, Callable[[Path], str]] = {
    "roll_all_systems.jsonl": roll_all_systems,
    "werewolf_human_werewolf.jsonl": werewolf_game(1, 1101),
    "werewolf_human_seer.jsonl": werewolf_game(3, 1103),
    "werewolf_human_villager.jsonl": werewolf_game(2, 1102),
    "werewolf_openai_fakeserver.jsonl": werewolf_over_the_wire,
    "adventure_fight_novice.jsonl": adventure(0, "DiceBot", ["アリア 駆け出し おまかせ", "慎重に進む"]),
    "adventure_fight_veteran.jsonl": adventure(
        7, "Cthulhu7th", ["ミナ 熟練 おまかせ", "/bogus", "正面から進む"]
    ),
    "adventure_scenario_shrine.jsonl": scenario(1, "goblin_shrine", [
        "こんにちは", "いいえ", "アリア", "英雄", "おまかせ", "長老に小鬼のことを聞く", "長老と話す",
        "森へ行く", "祠の門へ", "中庭へ", "社殿の奥へ", "封じの札を石に貼って使う",
    ], attacks=30),
    "adventure_scenario_manor.jsonl": scenario(2, "manor_diary", [
        "マーロウ", "古書店主", "オカルト、説得", "アビゲイルに兄のことを聞く", "館に向かう", "書斎に入る",
        "本棚を調べる", "日記を取る", "広間に戻る", "台所に入る", "マッチを拾う", "床板を調べる",
        "鍵を床板に使う", "地下に降りる", "日記を燃やす",
    ]),
    "adventure_scenario_pass.jsonl": scenario(3, "grey_pass", [
        "ロサ", "1", "探索", "ベオルンに峠のことを聞く", "薬を受け取る", "縄を拾う", "峠道へ", "空を見る",
        "坑道へ", "風の流れを調べる", "縄を岩に使う", "右の道へ", "谷村へ下る",
    ]),
    "mcp_fight.jsonl": mcp_session(
        18, _MCP_FIGHT, [("show_status", {}), ("end_adventure", {"summary": "勝利"})]
    ),
    "mcp_scenario_manor.jsonl": mcp_session(19, _MCP_SCENARIO, []),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="file names to regenerate")
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    for name, make in SESSIONS.items():
        if args.only and name not in args.only:
            continue
        target = OUT / name
        target.unlink(missing_ok=True)  # a recording never overwrites a file (TranscriptExists)
        # nor a game's key file: a shipped game's key is made from its name, so an earlier
        # run left the same file
        key_file(shipped_key(target).key_id).unlink(missing_ok=True)
        summary = make(target)
        print(f"{name}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
