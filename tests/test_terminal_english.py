"""A short werewolf game in English (``GM_LOCALE=en``), played through a pseudo-terminal as a
player types it: the prompts, a refusal, ``/help``, an empty line, a missed vote and the stop
message are English, and no Japanese prose reaches the screen except what docs/werewolf.md
("The player's language") keeps in the rule document's format: the records and cues, the
game's terms, and the table's own words (the personas' speeches; the GM narrator speaks
English). Then a whole English game, the role chosen by its English name, stopped with Ctrl-C
at a vote and resumed to its end: no Japanese of the program's own on either screen."""

from __future__ import annotations

import re
from pathlib import Path

from gm_engine.werewolf.phrases import fold
from gm_engine.werewolf.records import PERSONA_NAMES, Colour, Role, Team
from tests.pty_run import PtyRun

SEED = "11"
ROLE = "2"  # 村人: a claim is refused (club rule)

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")

#: Lines in the rule document's format (docs/werewolf.md): records, their fields and cues.
RECORD_LINE = re.compile(
    r"^(?:【.*"  # a record's heading or a cue
    r"|\S+ → \S+\(.*\)"  # 【投票結果】: name → target(reason)
    r"|\S+：\d+票"  # 【投票集計】: name：N票
    r"|(?:追放者|襲撃死者|占い結果|霊媒結果|CO状況|勝利陣営|生存者|死亡者|最終役職一覧)：.*)$"
)
#: The table's own words: a speech (name「…」; the GM narrator's lines are English prose).
TABLE_WORDS = re.compile(r"^\S+「.*」$")
#: The game's terms an English sentence may hold (the seats' names and their readings, role
#: names, colours, teams, the claim words).
TERMS = sorted(
    {*PERSONA_NAMES.values(), *(fold(n) for n in PERSONA_NAMES.values()),
     *(r.label for r in Role), *(c.label for c in Colour),
     *(t.value for t in Team), "CO要求", "事前占い"},
    key=len,
    reverse=True,
)


def japanese_prose(screen: str) -> list[str]:
    """The screen's lines that hold Japanese outside the documented formats and terms (the
    help's example phrasings, quoted 「…」, are what a player may type: not prose of ours)."""
    found = []
    for raw in screen.replace("\r\n", "\n").split("\n"):
        line = raw.removeprefix("> ").strip()
        if not line or RECORD_LINE.match(line) or TABLE_WORDS.match(line):
            continue
        bare = re.sub(r"「[^」]*」", "", line)
        for term in TERMS:
            bare = bare.replace(term, "")
        if JAPANESE.search(bare):
            found.append(line)
    return found


def test_an_english_game_speaks_english_but_the_records(tmp_path: Path) -> None:
    path = tmp_path / "en.jsonl"
    run = PtyRun(
        ["werewolf", "play", "--seed", SEED, "--role", ROLE, "--plain", "--record", str(path)],
        env={"GM_LOCALE": "en"},
    )
    typed = {"claim": False, "help": False, "empty": False, "missed": False}
    discussions = 0
    seen = 0
    while True:
        prompt, after = run.next_prompt(seen)
        if prompt.startswith("Your turn to speak"):
            discussions += 1
            if not typed["claim"]:
                # the role in English, as the English help allows; a 村人 may not claim: refused
                typed["claim"], line = True, "/co Seer"
            elif not typed["help"]:
                typed["help"], line = True, "/help"
            elif not typed["empty"]:
                typed["empty"], line = True, ""
            elif "Night falls." in bytes(run.output).decode("utf-8", "replace"):
                line = "/quit"  # the second day: stop here
            else:
                line = "/pass"
        elif prompt.startswith("Your answer to"):
            line = "/decline"
        elif prompt.startswith("Choose the seat to vote for"):
            if not typed["missed"]:
                typed["missed"], line = True, "nobody"
            else:
                line = re.findall(r"P\d", prompt)[-1]
        elif prompt.startswith("Your reason for this vote"):
            line = "too quiet"
        elif prompt.startswith("Shall I take this as"):
            line = "いいえ"
        else:
            raise AssertionError(f"a question not in English: {prompt!r}")
        run.send((line + "\n").encode())
        seen = after
        if line == "/quit":
            break
    code, output = run.finish(limit_s=120)
    screen = output.decode("utf-8", "replace")
    assert code == 0, screen[-2000:]
    assert all(typed.values()) and discussions >= 4
    # the prompts, a refusal, the help, an empty line and a missed choice, in English
    assert "Your role is 村人" in screen
    assert "Not possible: A villager (村人) may not claim a role (club rule)." in screen
    assert "  /quit                     leave the game (no role is revealed)" in screen
    assert "Nothing typed. To pass your turn, type /pass" in screen
    assert "No seat goes by 'nobody'. You may choose: P2 " in screen
    assert "Day 1: the discussion begins." in screen and "Night falls." in screen
    assert "The discussion is over. Choose whom to vote for" in screen
    assert re.search(r"Morning of day 2\. ", screen)
    # the records keep the rule document's format
    assert "【投票結果】" in screen and "【投票集計】" in screen and "【公開情報】" in screen
    # P1 is "Player" at an English table (プレイヤー at a Japanese one)
    assert "Player → " in screen and "(too quiet)" in screen and "プレイヤー" not in screen
    # the stop: English, with the command that goes on
    assert "You left the game (no role is revealed)" in screen
    assert f"— left on day 2. The session is saved; continue it with `gm resume {path}`" in screen
    # and no Japanese prose of the program's own anywhere
    assert japanese_prose(screen) == []
    assert not re.search(r"<\w+\.\w+: \d+>|Traceback|Error:", screen)


def test_the_prose_check_finds_a_japanese_sentence() -> None:
    """The check above can fail: a Japanese sentence of the engine is found, the formats are not."""
    screen = "Day 1: the discussion begins.\r\n1日目の議論を始めます。\r\n【投票集計】\r\nアオト：3票\r\n"
    assert japanese_prose(screen) == ["1日目の議論を始めます。"]
    assert japanese_prose("(アオト claims 占い師 (CO), result: シセン is 白)\r\nGM: Welcome\r\n") == []
    assert japanese_prose("GM: ようこそ\r\n") == ["GM: ようこそ"]


# ---------------------------------------------------------------- a whole English game, resumed

#: The lines where the table speaks in its own words: a persona's speech (the offline personas
#: speak Japanese at every table). The GM narrator is not among them: it speaks English here.
PERSONA_SPEECH = re.compile(
    "^(?:" + "|".join(map(re.escape, PERSONA_NAMES.values())) + ")「.*」$"
)


def program_japanese(screen: str, typed: set[str]) -> list[str]:
    """The screen's lines that hold Japanese once the records, the personas' speeches, the
    game's terms and what the player typed are taken out."""
    found = []
    for raw in screen.replace("\r\n", "\n").split("\n"):
        line = raw.removeprefix("> ").strip()
        if not line or line in typed or RECORD_LINE.match(line) or PERSONA_SPEECH.match(line):
            continue
        bare = re.sub(r"「[^」]*」", "", line)  # the help's example phrasings, to be typed
        for term in TERMS:
            bare = bare.replace(term, "")
        if JAPANESE.search(bare):
            found.append(line)
    return found


class EnglishPlayer:
    """What an English player types: the role by its English name, then a claim, a CO要求,
    ``/help`` and passes; the last seat of every choice; a reason in English."""

    def __init__(self) -> None:
        self.turns = 0
        self.typed: list[str] = []

    def answer(self, prompt: str) -> str:
        """The line typed at ``prompt`` (a game asks far fewer than 200 questions: a refused
        answer asked again forever is a failure, not a hang)."""
        line = self._answer(prompt)
        self.typed.append(line)
        assert len(self.typed) < 200, self.typed[-5:]
        return line

    def _answer(self, prompt: str) -> str:
        if prompt.startswith("Choose your role number"):
            return "seer"
        if prompt.startswith("Your turn to speak"):
            self.turns += 1
            return {1: "/request medium", 2: "/help", 3: "I am listening for now"}.get(self.turns, "/pass")
        if prompt.startswith("Your answer to"):
            offered = prompt[prompt.rfind("(") + 1 : prompt.rfind(")")].split(", ")
            return "/decline" if "/decline" in offered else offered[0]
        if prompt.startswith("Choose the "):
            return str(re.findall(r"P\d", prompt)[-1])
        if prompt.startswith("Your reason for this vote"):
            return "too quiet"
        if prompt.startswith("Shall I take this as"):
            return "no"
        raise AssertionError(f"a question not in English: {prompt!r}")


def _play_english(
    run: PtyRun, player: EnglishPlayer, *, stop_at_vote: bool, replayed: int = 0
) -> tuple[int, str]:
    """Answer every question to the end (or Ctrl-C at the first vote), passing over the first
    ``replayed`` (a resumed game's recorded ones); the exit status and the screen."""
    def at_a_vote(prompt: str) -> bool:
        return prompt.startswith("Choose the seat to vote for")

    code, output = run.play_to_the_end(
        lambda prompt, _screen: player.answer(prompt),
        interrupt_at=at_a_vote if stop_at_vote else None,
        replayed=replayed,
    )
    return code, output.decode("utf-8", "replace")


def test_a_whole_english_game_interrupted_and_resumed_has_no_japanese_of_the_program(tmp_path: Path) -> None:
    path = tmp_path / "en-whole.jsonl"
    env = {"GM_LOCALE": "en"}
    player = EnglishPlayer()
    first = PtyRun(["werewolf", "play", "--seed", SEED, "--plain", "--record", str(path)], env=env)
    code, stopped = _play_english(first, player, stop_at_vote=True)
    assert code == 130, stopped[-1500:]
    assert f"continue it with `gm resume {path}`" in stopped
    resumed = PtyRun(["resume", "--plain", str(path)], env=env)
    code, rest = _play_english(resumed, player, stop_at_vote=False, replayed=len(player.typed))
    assert code == 0, rest[-2000:]
    screen = stopped + rest
    assert "Your role is 占い師" in screen  # "seer" at the role prompt
    assert "【ゲーム終了】" in rest and "resumed after " in rest
    # the narrator speaks English now: its lines are checked like every other line
    narrated = [line for line in screen.replace("\r\n", "\n").split("\n") if line.startswith("GM: ")]
    assert narrated and narrated[0].startswith("GM: ")
    assert program_japanese(screen, set(player.typed)) == []
    assert not re.search(r"<\w+\.\w+: \d+>|Traceback|Error:", screen)


def test_the_whole_game_check_finds_the_narrator_and_a_japanese_stop_line() -> None:
    narrator, stop = "GM: ようこそ、ボードゲーム部の人狼へ！", "— 中断（1日目）. The session is saved"
    screen = f"{narrator}\r\nトウダ「よろしくね」\r\n【投票集計】\r\n{stop}\r\n"
    assert program_japanese(screen, set()) == [narrator, stop]
    assert program_japanese("> 占い師は誰？\r\n", {"占い師は誰？"}) == []
