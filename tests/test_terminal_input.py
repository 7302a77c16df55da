"""Undecodable input (invalid UTF-8) at any prompt is refused in Japanese and asked again:
never an exit, never a raw codec message, never a line in the transcript."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gm_engine.sessions.humans import UNREADABLE_INPUT
from gm_engine.transcripts.format import read_transcript
from tests.pty_run import GM, PtyRun

REFUSAL = UNREADABLE_INPUT.encode("utf-8")
DISCUSSION = "あなたの発言の番です".encode()
VOTE = "投票先を選んでください".encode()


def test_invalid_bytes_at_the_terminal_are_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    run = PtyRun(
        ["werewolf", "play", "--plain", "--seed", "3", "--role", "2", "--no-narrator", "--record", str(path)]
    )
    at = run.read_until(DISCUSSION)
    run.read_until(b"> ", start=at)
    run.send(b"\xff\xfe\xfd\n")  # at the discussion prompt
    refused = run.read_until(REFUSAL, start=at)
    again = run.read_until(DISCUSSION, start=refused)
    run.read_until(b"> ", start=again)
    run.send("こんにちは\n".encode())
    at = run.read_until("プレイヤー「こんにちは」".encode(), start=again)
    while True:  # pass the other discussion rounds, up to the vote
        prompt = run.read_until(b"> ", start=at)
        if run.output.rfind(VOTE, at, prompt) >= 0:
            vote = at
            break
        run.send(b"/pass\n")
        at = prompt + 2
    run.send(b"P\xc32\n")  # at a choice prompt: a lead byte with no continuation
    refused = run.read_until(REFUSAL, start=vote)
    run.read_until(VOTE, start=refused)
    run.send(b"/quit\n")
    code, output = run.finish()
    assert code == 0, output[-2000:]
    assert output.count(REFUSAL) == 2
    assert b"codec" not in output and b"Traceback" not in output
    said_lines = [e.payload["text"] for e in read_transcript(path, require_end=False).events
                  if e.type == "human_input"]
    # the unreadable lines never reached the session: only what was typed after them
    assert said_lines[0] == "こんにちは"
    assert set(said_lines) <= {"こんにちは", "/pass", "/quit"}


@pytest.mark.parametrize("encoding", [None, "utf-8:strict"])
def test_invalid_bytes_from_a_pipe_are_asked_again(encoding: str | None) -> None:
    import os

    env = dict(os.environ)
    env.pop("PYTHONIOENCODING", None)
    if encoding is not None:
        env["PYTHONIOENCODING"] = encoding
    done = subprocess.run(
        [*GM, "werewolf", "play", "--plain", "--seed", "3", "--role", "2", "--no-narrator", "--no-record"],
        input=b"hello\n\xff\xfe\nbye\n/quit\n", capture_output=True, env=env, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    out = done.stdout.decode("utf-8")
    assert out.count(UNREADABLE_INPUT) == 1
    assert "プレイヤー「hello」" in out and "プレイヤー「bye」" in out  # the lines after it are kept
    assert "codec" not in out + done.stderr.decode("utf-8")


def test_invalid_bytes_in_a_roll_session() -> None:
    done = subprocess.run(
        [*GM, "roll-session", "--seed", "1", "--no-record"],
        input=b"1D6\n\x80\x81\n2D6\n/quit\n", capture_output=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    out = done.stdout.decode("utf-8")
    assert out.count(UNREADABLE_INPUT) == 1
    assert "(2D6)" in out


@pytest.mark.parametrize("command", [["adventure"], ["roll-session"]])
def test_a_script_that_is_not_utf8_is_refused_in_japanese(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gm_engine.cli import main

    script = tmp_path / "lines.txt"
    script.write_bytes("進む\n".encode() + b"\xff\n")
    assert main([*command, "--no-record", "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert "8バイト目に読み取れない文字があります" in err and "codec" not in err
