"""The human's seat: /help, /log, /votes and empty lines at every question (answered on
screen, recorded as typed), targets in every form players type, the role by name, the
confirmation of an unsure reading, and every message from the catalogue."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gm_engine.dice.source import SeededSource
from gm_engine.llm.offline import OfflineBackend
from gm_engine.messages import render
from gm_engine.messages.texts import ChoiceHelp, DiscussionHelp, EmptyReason, ReasonHelp, RoleHelp
from gm_engine.sessions.base import HumanDefaults, ListSink, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.werewolf import HumanSeat, run_werewolf
from gm_engine.sessions.werewolf.commands import DISCUSSION_COLUMN, help_commands, parse_discussion
from gm_engine.werewolf import Claim, Divine, Game, RequestClaim, StateResult, Vote, WerewolfOptions
from gm_engine.werewolf.records import Colour, Role

DEAL = (3, 1, 1, 2, 2, 2, 4, 5, 6)  # P1 占い師, P2 P3 人狼, P7 狩人, P8 霊媒師, P9 狂人
#: The lines that end every help at a terminal.
TERMINAL_COMMANDS = help_commands("ja", web=False)


def _seat(lines: Sequence[str], *, web: bool = False) -> tuple[HumanSeat, list[str], list[tuple[str, str]]]:
    game = Game.from_deal(DEAL, WerewolfOptions(), "プレイヤー")
    screen: list[str] = []
    recorded: list[tuple[str, str]] = []
    seat = HumanSeat(game, ScriptedHuman(lines, when_done=None), screen.append,
                     lambda prompt, text: recorded.append((prompt, text)), web=web)
    return seat, screen, recorded


def test_a_vote_by_reading_after_help_votes_and_empty_lines_with_no_reason() -> None:
    lines = ["", "/help", "/votes", "/log", "シセンは怪しいかも", "しせんさん", "", "/help", "/pass"]
    seat, screen, recorded = _seat(lines)
    legal = [Vote(1, target, "") for target in range(2, 10)]
    assert seat.choose_target("投票先", legal) == Vote(1, 7, "")
    shown = "\n".join(screen)
    assert shown.startswith("何も入力されていません。選べる相手: P2 トウダ")  # the empty line: the forms
    help_text = render(ChoiceHelp(TERMINAL_COMMANDS))
    assert help_text in screen and help_text.endswith(
        "  /log    これまでの公開記録\n  /votes  これまでの投票（日ごと）\n"
        "  /help   このヘルプ\n  /quit   中断（役職は公開されません）"
    )
    assert "（まだ投票はありません）" in screen
    assert "「シセンは怪しいかも」に当たる参加者がいません。" in shown
    # the reason's help lists the same commands, /votes by day as everywhere
    assert render(EmptyReason()) in screen and render(ReasonHelp(TERMINAL_COMMANDS)) in screen
    assert render(ReasonHelp(TERMINAL_COMMANDS)).endswith(TERMINAL_COMMANDS)
    assert [text for _, text in recorded] == lines  # every line typed
    assert [prompt for prompt, _ in recorded][-3:] == ["投票理由を一言どうぞ"] * 3


def test_on_a_web_page_every_help_says_how_to_stop_there_instead_of_quit() -> None:
    seat, screen, _ = _seat(["/help", "P7", "/help", "/pass"], web=True)
    legal = [Vote(1, target, "") for target in range(2, 10)]
    assert seat.choose_target("投票先", legal) == Vote(1, 7, "")
    leave = "中断するときはページを閉じてください。卓はこの質問で待っていて、同じリンクで続きから遊べます。"
    helps = [line for line in screen if "/help   このヘルプ" in line]
    assert len(helps) == 2, screen  # the vote's and the reason's
    for text in helps:
        assert "/quit" not in text and text.endswith("  /help   このヘルプ\n" + leave), text
    discussion = render(DiscussionHelp(seat.commands(discussion=True)))
    assert "/quit" not in discussion and discussion.endswith(leave), discussion
    assert "  /votes                    これまでの投票（日ごと）" in discussion


def test_every_target_form_names_its_seat() -> None:
    forms = {"P7": 7, "p7": 7, "Ｐ７": 7, "7": 7, "７": 7, "7番": 7, "シセン": 7, "ｼｾﾝ": 7, "しせん": 7,
             "シセンさん": 7, "P7 シセン": 7, "P7 仕切りたがり": 7, "イスイ": 9}
    for typed, target in forms.items():
        seat, screen, _ = _seat([typed])
        legal = [Divine(1, t) for t in range(2, 10)]
        assert seat.choose_target("事前占いの相手", legal) == Divine(1, target), (typed, screen)


def test_a_seat_that_is_not_a_choice_gets_the_hint_with_every_form() -> None:
    seat, screen, _ = _seat(["P1", "P7 アオト", "2"])
    legal = [Divine(1, t) for t in range(2, 10)]
    assert seat.choose_target("事前占いの相手", legal) == Divine(1, 2)
    assert screen[0].startswith("プレイヤーは今は選べません。選べる相手: P2 トウダ")
    assert "P2・2・トウダ・とうだ のどの書き方でも選べます" in screen[0]
    conflict = "「P7 アオト」はP番号と名前が別の参加者を指しています（P7はシセン、アオトはP4）。"
    assert screen[1].startswith(conflict)


def test_the_role_by_name_or_number_and_help_at_the_role_question() -> None:
    game = Game.new(SeededSource(3), WerewolfOptions(), "プレイヤー")
    screen: list[str] = []
    recorded: list[str] = []
    seat = HumanSeat(game, ScriptedHuman(["/help", "", "占い師になりたい", "うらない"], when_done=None),
                     screen.append, lambda _, text: recorded.append(text))
    seat.choose_role()
    assert int(game.role_of(1)) == 3
    menu = "1 人狼、2 村人、3 占い師、4 狩人、5 霊媒師、6 狂人"
    assert screen[0] == render(RoleHelp(menu, TERMINAL_COMMANDS))
    assert screen[1] == "何も入力されていません。役職を番号（1～6）で選んでください"
    assert screen[2] == "「占い師になりたい」は役職番号ではありません。1～6の数字で選んでください"
    assert recorded == ["/help", "", "占い師になりたい", "うらない"]


class PromptedHuman(HumanDefaults):
    """Answers by the question: the queued lines of the first discussion turn, then /pass,
    the last candidate of every choice, a short reason; every prompt is kept."""

    def __init__(self, first_turn: Sequence[str]) -> None:
        self.first_turn = list(first_turn)
        self.prompts: list[str] = []

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        self.prompts.append(prompt)
        if "はい / いいえ" in prompt or "あなたの発言の番です" in prompt:
            return self.first_turn.pop(0) if self.first_turn else "/pass"
        if "への答え" in prompt:
            return "違います" if "/decline" in prompt else "/quit"
        if "を選んでください" in prompt:
            seats: list[str] = re.findall(r"P\d", prompt)
            return seats[-1]
        if "投票理由" in prompt:
            return "気になる"
        raise AssertionError(prompt)


def _game(first_turn: Sequence[str]) -> tuple[PromptedHuman, ListSink, list[str]]:
    human = PromptedHuman([*first_turn, "/quit"])
    sink = ListSink()
    screen: list[str] = []
    io = SessionIO(backend=OfflineBackend(), human=human, sink=sink, show=screen.append)
    outcome = run_werewolf(SessionSpec(kind="werewolf", seed=11, options={"role": 4}), io)
    assert not outcome.finished
    return human, sink, screen


def test_an_unsure_reading_is_confirmed_before_it_becomes_the_action() -> None:
    human, sink, screen = _game(["/help", "占い師さんいますか？", "うーん", "はい"])
    question = (
        "「CO要求（占い師は名乗り出ろ）」として受け取ってよいですか？"
        "（はい / いいえ。いいえなら普通の発言になります）"
    )
    assert human.prompts.count(question) == 2  # asked again after an answer that is neither
    assert "「はい」か「いいえ」で答えてください" in screen
    discussion_help = render(DiscussionHelp(help_commands("ja", web=False, column=DISCUSSION_COLUMN)))
    assert "\n".join(discussion_help.splitlines()) in "\n".join(screen)
    assert "  /quit                     中断（役職は公開されません）" in discussion_help
    assert "プレイヤー「占い師さんいますか？」" in screen and "（CO要求：占い師）" in screen
    typed = [p["text"] for kind, p in sink.payloads() if kind == "human_input"]
    assert typed[:4] == ["/help", "占い師さんいますか？", "うーん", "はい"]


def test_no_to_the_confirmation_says_the_line_as_speech() -> None:
    _, sink, screen = _game(["占い師さんいますか？", "いいえ"])
    assert "プレイヤー「占い師さんいますか？」" in screen
    index = screen.index("プレイヤー「占い師さんいますか？」")
    assert screen[index + 1 : index + 2] != ["（CO要求：占い師）"]
    typed = [p["text"] for kind, p in sink.payloads() if kind == "human_input"]
    assert typed[:2] == ["占い師さんいますか？", "いいえ"]


# What a player may type by mistake at any question (wrong commands, seats that do not exist,
# an overlong speech, results and requests the rules refuse, English).
MISTAKES = ("/co 人狼", "/co 占い師 P0 白", "/result P9 灰", "/request 狂人", "/bogus", "あ" * 2500,
            "占い師COします。アオトは白でした", "P0", "10", "アオトは黒でした", "yes", "?!")
# Python or engine English that must never reach the player's screen.
LEAKS = re.compile(r"<\w+\.\w+: \d+>|Traceback|Error\b|not a valid|must be|cannot|choose one of|\bis not\b")


class ClumsyHuman(HumanDefaults):
    """Types every mistake once at each question, then a valid answer (a pass, the last
    candidate, a reason, a decline when it may, else the first claim offered)."""

    def __init__(self) -> None:
        self.pending: list[str] = []
        self.last_prompt = ""

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        if prompt != self.last_prompt:
            self.last_prompt = prompt
            self.pending = list(MISTAKES)
        if self.pending:
            return self.pending.pop(0)
        self.last_prompt = ""
        if "はい / いいえ" in prompt:
            # no to a reading (said as speech); yes to saying a refused one as speech (no
            # would ask the turn again, and the mistakes with it, for ever)
            return "はい" if "入力し直せます" in prompt else "いいえ"
        if "への答え" in prompt:
            offered = prompt[prompt.rfind("（") + 1 : prompt.rfind("）")].split("、")
            return "/decline" if "/decline" in offered else offered[0]
        if "役職番号" in prompt:
            return "2"
        if "を選んでください" in prompt:
            seats: list[str] = re.findall(r"P\d", prompt)
            return seats[-1]
        return "理由は秘密" if "投票理由" in prompt else "/pass"


def test_no_python_or_engine_english_reaches_the_screen_whatever_is_typed() -> None:
    for seed, role in ((1, None), (2, 1), (3, 3), (4, 5)):
        screen: list[str] = []
        io = SessionIO(backend=OfflineBackend(), human=ClumsyHuman(), show=screen.append)
        options = {} if role is None else {"role": role}
        outcome = run_werewolf(SessionSpec(kind="werewolf", seed=seed, options=options), io)
        assert outcome.finished
        shown = "\n".join(screen)
        assert "【ゲーム終了】" in shown
        leaked = LEAKS.findall(shown)
        assert not leaked, (seed, leaked, shown[-3000:])
        assert "発言が長すぎます。" in shown  # the overlong line was refused in the player's words


def test_commands_take_the_english_names_of_roles_and_colours() -> None:
    assert parse_discussion("/co Seer P5 white", 1) == parse_discussion("/co 占い師 P5 白", 1)
    assert parse_discussion("/co seer P5 white", 1) == Claim(1, Role.SEER, 5, Colour.WHITE, "")
    assert parse_discussion("/result p4 BLACK", 1) == StateResult(1, 4, Colour.BLACK, "")
    assert parse_discussion("/request medium 出てきて", 1) == RequestClaim(1, Role.MEDIUM, "出てきて")
