"""A whole game played through the terminal as a player types it, in a pseudo-terminal: a
CO要求 in words (confirmed back, since 「…いますか？」 could be a plain question), a decline in
words, a claim in words, votes by name, the night by seat number, ``/help``, ``/log``,
``/votes`` and an empty line on the way; once Ctrl-C at a vote prompt and ``gm resume`` to
the end. The interrupted-and-resumed game must be the uninterrupted one: the same events,
the same outcome, with the same seed and the same typing.

The player is :class:`Player`, a function of the questions it is asked (never of timing),
so both runs type the same lines to the same questions.
"""

from __future__ import annotations

import re
from pathlib import Path

from gm_engine.transcripts.format import read_transcript
from gm_engine.werewolf.records import PERSONA_NAMES
from tests.pty_run import PtyRun

SEED = "11"
ROLE = "4"  # 狩人: may claim without a result, so a claim in words is legal on day 1
STOP_LIMIT_S = 10.0  # a hang detector for the interrupted process, nothing is measured

REQUEST = "占い師さんいますか？"  # an unsure reading: confirmed back before it becomes the CO要求
CLAIM = "実は僕が狩人です。今夜も守ります"
SCREEN_NOISE = ("/help", "/log", "/votes", "")  # answered on screen, the game unchanged


class Player:
    """What the player types at each question: a function of the question and of what the
    player did so far (kept across the interruption, as a person would remember it)."""

    def __init__(self) -> None:
        self.requested = False
        self.claimed = False
        self.turns = 0
        self.noise = list(SCREEN_NOISE)
        self.typed: list[tuple[str, str]] = []

    def answer(self, prompt: str, screen: str) -> str:
        """The line typed at ``prompt``; ``screen`` is what came since the last answer."""
        line = self._answer(prompt, screen)
        self.typed.append((prompt, line))
        return line

    def _answer(self, prompt: str, screen: str) -> str:
        if "はい / いいえ" in prompt:
            return "はい"
        if "への答え" in prompt:
            offered = prompt[prompt.rfind("（") + 1 : prompt.rfind("）")].split("、")
            return "違います" if "/decline" in offered else offered[0]
        if "を選んでください" in prompt:
            menu: list[tuple[str, str]] = re.findall(r"P(\d) (\S+?)(?:、|）)", prompt)
            seat, name = menu[-1]
            return name if "投票先" in prompt else seat  # a vote by name, the night by number
        if "投票理由" in prompt:
            return "発言が気になったから"
        if "あなたの発言の番です" in prompt:
            if self.noise:  # once in the game: each screen-only command, and an empty line
                return self.noise.pop(0)
            self.turns += 1
            if not self.requested:
                self.requested = True
                return REQUEST
            if not self.claimed:
                self.claimed = True
                return CLAIM
            return "/pass"
        raise AssertionError(f"an unexpected question: {prompt!r}\n{screen[-800:]}")


def _play(run: PtyRun, player: Player, *, stop_at_vote: bool, replayed: int = 0) -> tuple[int, bytes]:
    """Answer every question to the end (or, with ``stop_at_vote``, Ctrl-C at the first vote);
    the first ``replayed`` questions are a resumed game's recorded ones, shown with their
    answers, and are passed over."""
    return run.play_to_the_end(
        player.answer,
        interrupt_at=(lambda prompt: "投票先を選んでください" in prompt) if stop_at_vote else None,
        replayed=replayed,
        interrupt_limit_s=STOP_LIMIT_S,
    )


def _events(path: Path) -> list[tuple[str, dict[str, object]]]:
    transcript = read_transcript(path)
    assert transcript.end is not None
    return [(e.type, e.payload) for e in transcript.events]


def test_a_whole_game_typed_in_words_interrupted_at_a_vote_and_resumed(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    run = PtyRun(["werewolf", "play", "--seed", SEED, "--role", ROLE, "--plain", "--record", str(whole)])
    player = Player()
    code, output = _play(run, player, stop_at_vote=False)
    screen = output.decode("utf-8", "replace")
    assert code == 0, screen[-2000:]
    assert "【ゲーム終了】" in screen
    # the reading was confirmed back, then acted on; the claim in words is a claim
    assert "「CO要求（占い師は名乗り出ろ）」として受け取ってよいですか？" in screen
    assert f"プレイヤー「{REQUEST}」\r\n（CO要求：占い師）" in screen
    assert f"プレイヤー「{CLAIM}」\r\n（プレイヤーが狩人CO）" in screen
    assert "プレイヤー → " in screen and "(発言が気になったから)" in screen
    # the screen-only commands answered and asked again (and recorded as typed)
    assert re.search(r"/log +これまでの公開記録\r\n +/votes +これまでの投票.*\r\n.*\r\n +/quit +中断", screen)
    assert "── これまでの公開記録 ──" in screen
    assert "何も入力されていません。パスするときは /pass と入力してください" in screen
    typed = [str(p["text"]) for kind, p in _events(whole) if kind == "human_input"]
    assert typed[: len(SCREEN_NOISE)] == list(SCREEN_NOISE)
    assert REQUEST in typed and "はい" in typed and CLAIM in typed and "違います" in typed
    assert set(typed) & set(PERSONA_NAMES.values())  # a vote by name
    assert not re.search(r"<\w+\.\w+: \d+>|Traceback|Error:|choose one of", screen)  # no Python on screen

    cut = tmp_path / "cut.jsonl"
    first = PtyRun(["werewolf", "play", "--seed", SEED, "--role", ROLE, "--plain", "--record", str(cut)])
    again = Player()
    code, stopped = _play(first, again, stop_at_vote=True)
    assert code == 130, stopped.decode("utf-8", "replace")[-1500:]
    assert f"続きは `gm resume {cut}` で再開できます".encode() in stopped
    resumed = PtyRun(["resume", "--plain", str(cut)])
    code, rest = _play(resumed, again, stop_at_vote=False, replayed=len(again.typed))
    text = rest.decode("utf-8", "replace")
    assert code == 0, text[-2000:]
    # the same game: the same questions typed to the same way, the same events, the same end
    assert again.typed == player.typed
    assert _events(cut) == _events(whole)
    whole_end, cut_end = read_transcript(whole).end, read_transcript(cut).end
    assert whole_end is not None and cut_end is not None
    assert (cut_end.summary, cut_end.seed) == (whole_end.summary, whole_end.seed)
    ending = screen[screen.index("【ゲーム終了】") :].splitlines()
    # the end as the uninterrupted game showed it (all but the last line, 記録: PATH)
    assert text[text.index("【ゲーム終了】") :].splitlines()[: len(ending) - 1] == ending[:-1]
