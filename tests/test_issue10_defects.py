"""Issue 10's defects, each checked through the ``gm`` command or the engine's oldest public
API, so that the same test runs against the code the issue was filed on (where each of
these fails) and against today's. The others are covered by tests of their own that need
newer APIs (see the report of issue 10's audit): replay after model faults
(test_werewolf_faults), escapes (test_terminal_safety), bad 200 answers (test_llm_faults),
signatures (test_transcript_signing), sizes (test_transcript_size, test_replay_memory),
the request deadline (test_llm_faults), the full-disk message (test_stop_messages).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GM = [sys.executable, "-m", "gm_engine"]


def gm(args: list[str], tmp_path: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GM_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run([*GM, *args], input=stdin, capture_output=True, env=env, check=False, timeout=600)


def test_3_a_second_recording_on_one_file_is_refused_and_the_first_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    first = gm(["roll-session", "--seed", "1", "--record", str(path)], tmp_path, b"2d6\n/quit\n")
    assert first.returncode == 0, first.stderr
    before = path.read_bytes()
    second = gm(["roll-session", "--seed", "2", "--record", str(path)], tmp_path, b"1d6\n/quit\n")
    assert second.returncode != 0
    assert path.read_bytes() == before  # the finished transcript is not overwritten
    assert gm(["replay", str(path)], tmp_path).returncode == 0


def test_7_a_line_of_huge_work_is_refused_with_a_short_text(tmp_path: Path) -> None:
    line = "x100 REP100 C(" + "+".join(["1"] * 480) + ")"
    result = gm(["roll", line], tmp_path)
    # the line printed 9.9 MB; a refusal is a sentence
    assert len(result.stdout) + len(result.stderr) < 10_000


def test_9_undecodable_input_is_asked_again_not_an_exit(tmp_path: Path) -> None:
    result = gm(["roll-session", "--seed", "3", "--no-record"], tmp_path, b"\xff\xfe2d6\n2d6\n/quit\n")
    assert result.returncode == 0, result.stderr
    assert "読み取れない文字がありました" in result.stdout.decode("utf-8")


def test_10_quit_prints_no_seed_and_names_resume(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    result = gm(["werewolf", "play", "--plain", "--role", "2", "--record", str(path)], tmp_path, b"/quit\n")
    shown = (result.stdout + result.stderr).decode("utf-8")
    assert "gm resume" in shown
    # the seed is a random 63-bit number: no run of 15 digits may be on the screen
    assert not re.search(r"\d{15,}", shown), shown[-400:]


@pytest.mark.parametrize("seat", [-1, -8, 0, 10, True])
def test_11_seat_arguments_refuse_what_is_not_a_seat(seat: object) -> None:
    from gm_engine.werewolf import Game

    game = Game.from_deal([2, 1, 1, 2, 2, 3, 4, 5, 6])
    for query in (game.is_alive, game.role_of):
        with pytest.raises(ValueError):
            query(seat)  # type: ignore[arg-type]


@pytest.mark.parametrize("deal", [["2", 1, 1, 2, 2, 3, 4, 5, 6], [2.0, 1, 1, 2, 2, 3, 4, 5, 6],
                                  [True, 1, 1, 2, 2, 3, 4, 5, 6]])
def test_11_from_deal_takes_only_ints(deal: list[object]) -> None:
    from gm_engine.werewolf import Game

    with pytest.raises(ValueError):
        Game.from_deal(deal)  # type: ignore[arg-type]
