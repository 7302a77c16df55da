"""``gm aiwolf export``: a werewolf transcript as the AIWolf viewer's game log (read back by a
port of the viewer's archive reader, line by line) and as the JSON log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gm_engine.aiwolf.export import ExportError, export_transcript
from gm_engine.cli import main
from gm_engine.dice.source import SeededSource
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf import run_werewolf
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.transcripts import record_session
from gm_engine.werewolf.agents import OfflineAgent
from tests.aiwolf_viewer import ViewerError, process_archive_log


def recorded_game(tmp_path: Path, seed: int) -> Path:
    path = tmp_path / f"game{seed}.jsonl"
    human = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))
    io = SessionIO(backend=OfflineBackend(), human=human, show=lambda line: None)
    spec = SessionSpec(kind="werewolf", seed=seed, options={"narrator": False})
    record_session(spec, io, path, runner=run_werewolf)
    return path


@pytest.mark.parametrize("seed", [3, 21])
def test_the_viewer_reads_every_line_of_the_exported_log(tmp_path: Path, seed: int) -> None:
    logs = export_transcript(recorded_game(tmp_path, seed), start_ms=1_700_000_000_000)
    lines = logs.game_log.split("\n")
    days = process_archive_log(logs.game_log)
    assert all(not day.unknown for day in days.values())  # every line has a handler
    assert sorted(days, key=int) == [str(d) for d in range(len(days))]
    final_roles = {a["idx"]: a["role"] for a in logs.json_log["agents"]}
    for number, day in days.items():
        assert sorted(day.agents, key=int) == [str(s) for s in range(1, 10)]
        assert {int(i): a["role"] for i, a in day.agents.items()} == final_roles
        for talk in day.talks:
            assert talk.timestamp is not None and len(talk.timestamp) == 13
            # the text comes back whole: it holds no comma that would split it
            assert (
                f"{number},talk,{talk.talk_idx},{talk.turn_idx},{talk.agent_idx},{talk.text},{talk.timestamp}"
                in lines
            )
        if day.execution is not None:
            assert final_roles[int(day.execution[0])] == day.execution[1]
    assert days["0"].divine is not None and days["0"].divine[0] == str(
        next(i for i, r in final_roles.items() if r == "SEER")
    )
    last = days[str(max(int(d) for d in days))]
    assert last.result is not None
    assert last.result[2] == logs.json_log["win_side"]
    # the end's status lines: a side has won, so the counts say so
    villagers, werewolves = int(last.result[0]), int(last.result[1])
    assert werewolves == 0 if last.result[2] == "VILLAGER" else werewolves >= villagers
    assert logs.json_log["game_id"] and len(logs.json_log["game_id"]) == 26
    assert {"agent", "request", "response", "request_timestamp", "response_timestamp"} <= set(
        logs.json_log["entries"][0]
    )


def test_the_port_refuses_what_the_viewer_cannot_show() -> None:
    with pytest.raises(ViewerError, match="role 'MADMAN'"):
        process_archive_log("0,status,1,MADMAN,ALIVE,a,b")


def test_export_command_writes_both_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = recorded_game(tmp_path, 5)
    assert main(["aiwolf", "export", str(path), "--start-ms", "1700000000000"]) == 0
    game_log = path.with_suffix(".log").read_text(encoding="utf-8")
    assert game_log == export_transcript(path, start_ms=1_700_000_000_000).game_log
    assert json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["agents"][0]["name"] == "human"
    assert "AIWolf のゲームログ: " in capsys.readouterr().out


def test_export_refuses_what_is_not_a_finished_werewolf_game(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not a transcript\n", encoding="utf-8")
    assert main(["aiwolf", "export", str(broken)]) == 2
    assert main(["aiwolf", "export", str(tmp_path / "missing.jsonl")]) == 2
    with pytest.raises((ExportError, ValueError)):
        export_transcript(broken)
