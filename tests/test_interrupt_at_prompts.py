"""Ctrl-C at any prompt of a play command ends the session at once, saved and resumable.

Each case runs the command in a pseudo-terminal, plays to a prompt, sends SIGINT as the
terminal's Ctrl-C would, and expects the process gone within the limit (a hang detector,
nothing is measured) with the exact ``gm resume PATH`` line; ``gm resume`` then asks again.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.pty_run import PtyRun

# How long an interrupted session may take to stop before the test calls it hung (generous:
# the machine is shared; a hang is forever).
STOP_LIMIT_S = 10.0


def answer_for(prompt: str) -> bytes:
    """What a patient player types at ``prompt`` on the way to a later question: no claim,
    no request, a vote for the first candidate offered, a one-word reason."""
    if "への答え" in prompt:  # a CO要求 to answer: decline if allowed, else the first legal claim
        offered = prompt[prompt.rfind("（") + 1 : prompt.rfind("）")].split("、")
        return (("/decline" if "/decline" in offered else offered[0]) + "\n").encode()
    if "を選んでください" in prompt:
        menu = prompt[prompt.rfind("（") + 1 :]
        return (menu.split(" ")[0] + "\n").encode()  # the first candidate's P-number
    if "投票理由" in prompt:
        return "気になる\n".encode()
    return b"/pass\n"


def play_to(run: PtyRun, marker: str) -> int:
    """Answer every question until one containing ``marker``; how many were answered."""
    seen, answered = 0, 0
    while True:
        prompt, seen = run.next_prompt(seen)
        if marker in prompt:
            return answered
        run.send(answer_for(prompt))
        answered += 1


# (extra arguments, the prompt to interrupt)
WEREWOLF_PROMPTS = {
    "role choice": ((), "役職番号を選んでください"),
    "pre-divination": (("--role", "3"), "事前占いの相手を選んでください"),
    "discussion": (("--role", "2"), "あなたの発言の番です"),
    "answer to a CO要求": (("--role", "2"), "への答え"),
    "vote": (("--role", "2"), "投票先を選んでください"),
    "vote reason": (("--role", "2"), "投票理由"),
    "night": (("--role", "1"), "襲撃先を選んでください"),
    "night of the bodyguard": (("--role", "4", "--seed", "11"), "護衛先を選んでください"),
}


def interrupt(run: PtyRun, path: Path | None) -> bytes:
    """Ctrl-C at the question the program waits at: it must stop at once, saved."""
    run.wait_reading()
    os.kill(run.process.pid, signal.SIGINT)
    code, output = run.finish(limit_s=STOP_LIMIT_S)
    text = output.decode("utf-8", "replace")
    assert code == 130, text[-1500:]
    if path is not None:
        assert f"続きは `gm resume {path}` で再開できます".encode() in output, text[-1500:]
    assert b"Traceback" not in output, text[-3000:]
    return output


@pytest.mark.parametrize("where", sorted(WEREWOLF_PROMPTS))
def test_ctrl_c_at_a_werewolf_prompt_stops_and_resumes(tmp_path: Path, where: str) -> None:
    extra, prompt = WEREWOLF_PROMPTS[where]
    path = tmp_path / "game.jsonl"
    # a --seed in ``extra`` comes later and wins
    run = PtyRun(["werewolf", "play", "--seed", "5", "--plain", "--record", str(path), *extra])
    answered = play_to(run, prompt)
    interrupt(run, path)
    # the game goes on from the same question, in the same interface (the `> ` prompt),
    # after the recorded questions shown with their answers
    again = PtyRun(["resume", "--plain", str(path)])
    seen = 0
    for _ in range(answered):
        _, seen = again.next_prompt(seen)
    asked, _ = again.next_prompt(seen)
    assert prompt in asked
    again.send(b"/quit\n")
    code, output = again.finish(limit_s=120)
    assert code == 0, output.decode("utf-8", "replace")[-1500:]
    assert f"続きは `gm resume {path}` で再開できます".encode() in output


@pytest.mark.parametrize("command", [["adventure"], ["roll-session"]])
def test_ctrl_c_in_adventure_and_roll_session(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "session.jsonl"
    run = PtyRun([*command, "--seed", "3", "--record", str(path)])
    run.read_until(b"> ")
    interrupt(run, path)
