"""The summary a session records on its transcript's end line is in the player's language:
the roll session's in its locale (Japanese by default), an MCP session's in Japanese. A
transcript an earlier version recorded with the English wording still replays (its figures
compared exactly); any other summary is still a divergence."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.transcripts.format import read_transcript


def _end_summary(path: Path) -> str:
    return str(read_transcript(path).end.summary)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("ja", "振ったダイスコマンド1件、受け付けなかった行1件、振ったダイス2個。最後のシステム: DiceBot"),
        ("en", "dice commands rolled: 1, lines refused: 1, dice rolled: 2; last system DiceBot"),
    ],
)
def test_the_roll_session_records_its_summary_in_the_players_language(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, locale: str, expected: str
) -> None:
    script = tmp_path / "lines.txt"
    script.write_text("2D6\nhello\n/quit\n", encoding="utf-8")
    record = tmp_path / "roll.jsonl"
    argv = ["roll-session", "--seed", "3", "--locale", locale, "--script", str(script)]
    assert main([*argv, "--record", str(record)]) == 0
    assert _end_summary(record) == expected
    assert expected in capsys.readouterr().out  # the line the player saw is the one recorded
    assert main(["replay", str(record)]) == 0


def test_an_mcp_session_records_its_summary_in_japanese() -> None:
    from gm_engine.sessions.base import ListSink, SessionSpec
    from gm_engine.sessions.mcp import McpGame

    outcome = asyncio.run(McpGame(SessionSpec(kind="mcp", seed=1), ListSink()).leave())
    assert outcome.summary == "ツール呼び出し0回、冒険は終わっていません、振ったダイス0個"
    assert outcome.earlier_summaries == ("0 calls; the adventure was not finished; 0 dice rolled",)


def test_any_other_summary_is_still_a_divergence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from gm_engine.transcripts.signing import load_or_create_key, sign_end
    from tests.forge_chain import opened, rechain

    script = tmp_path / "lines.txt"
    script.write_text("2D6\n/quit\n", encoding="utf-8")
    record = tmp_path / "roll.jsonl"
    assert main(["roll-session", "--seed", "3", "--script", str(script), "--record", str(record)]) == 0
    objs = opened(record)
    for summary, status in (("1 dice commands (0 lines refused), 2 dice rolled; last system DiceBot", 0),
                            ("2 dice commands (0 lines refused), 2 dice rolled; last system DiceBot", 1)):
        objs[-1]["summary"] = summary
        edited = tmp_path / "edited.jsonl"
        edited.write_bytes(rechain(objs, sign=partial(sign_end, load_or_create_key())))
        capsys.readouterr()
        assert main(["replay", str(edited)]) == status, capsys.readouterr().out
