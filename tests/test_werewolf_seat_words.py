"""What P1's seat does with lines the phrase reader reads (issue 11, the audit's misses): a
claim whose result follows a space, a CO要求 answer with a reason, a seat written as the engine
writes it, a claim typed without its result, a command a question does not take, an unsure
reading the rules refuse, the answer that is the day's last say, and a vote without a reason.

Every case drives :class:`HumanSeat` on a real :class:`Game` with scripted lines; each failed
on main (the line became plain speech, was refused with a misleading reason, or was stored
with words P1 did not type)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.events import ListSink
from gm_engine.llm.base import ModelResponse
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.messages import render
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.werewolf import HumanSeat
from gm_engine.sessions.werewolf.facts import today_line
from gm_engine.sessions.werewolf.session import WerewolfSession, session_options
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.tools.base import response_with_calls
from gm_engine.werewolf import (
    Colour,
    Decline,
    Divine,
    Game,
    RequestClaim,
    Role,
    Speak,
    Vote,
    WerewolfOptions,
    player_view,
)
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import CastVote, ClaimMade, Declined, Speech, VoteTally
from gm_engine.werewolf.render import vote_result_lines

SEER_DEAL = (3, 1, 1, 2, 2, 2, 4, 5, 6)  # P1 占い師, P2 P3 人狼, P7 狩人, P8 霊媒師, P9 狂人
VILLAGER_DEAL = (2, 3, 1, 1, 2, 2, 4, 5, 6)  # P1 村人, P2 占い師, P3 P4 人狼, P7 狩人, P8 霊媒師


class Human(ScriptedHuman):
    """A scripted human that keeps every prompt it was asked."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__(lines, when_done=None)
        self.prompts: list[str] = []

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        self.prompts.append(prompt)
        return super().ask(prompt, choices)


def seat_on(game: Game, lines: Sequence[str]) -> tuple[HumanSeat, Human, list[str]]:
    human = Human(lines)
    screen: list[str] = []
    return HumanSeat(game, human, screen.append, lambda _prompt, _text: None), human, screen


def seer_at_day_one(options: WerewolfOptions | None = None) -> Game:
    """P1 the 占い師, its 事前占い on シセン (P7, 狩人: 白), at its first turn of day 1."""
    game = Game.from_deal(SEER_DEAL, options or WerewolfOptions(), "プレイヤー")
    game.apply(Divine(1, 7))
    game.advance()
    assert game.to_act() == [1]
    return game


def villager_answering(options: WerewolfOptions | None = None) -> Game:
    """P1 a 村人 answering P2's 「占い師は名乗り出ろ」 on day 1 (P1 passed its first turn)."""
    game = Game.from_deal(VILLAGER_DEAL, options or WerewolfOptions(), "プレイヤー")
    game.apply(Divine(2, 3))
    game.advance()
    game.apply(Speak(1, ""))
    game.apply(RequestClaim(2, Role.SEER, "占い師は名乗り出ろ"))
    while game.to_act() != [1]:
        game.apply(Decline(game.to_act()[0], ""))
    assert game.awaiting_claim is Role.SEER
    return game


# ---------------------------------------------------------------- 1. a claim, a space, its result


@pytest.mark.parametrize("typed", ["占い師CO シセン白", "占い師です シセンは白でした", "占い師CO　シセン白"])
def test_a_claim_with_its_result_after_a_space_is_the_claim(typed: str) -> None:
    game = seer_at_day_one()
    seat, _, _ = seat_on(game, [typed])
    seat.discussion()
    said = " ".join(typed.split())  # the seat keeps the words, white space as one space
    assert game.public_log[-1] == ClaimMade(1, 1, Role.SEER, 7, Colour.WHITE, said)


def test_a_persona_that_claims_with_its_result_after_a_space_has_claimed() -> None:
    """A model's speech goes through the same reader: 「占い師CO ヒミヤ黒」 is P2's claim."""
    deal = [2, 3, 1, 1, 2, 2, 4, 5, 6]
    speech: ModelResponse = response_with_calls(("speak", {"text": "占い師CO ヒミヤ黒"}))
    backend = ScriptedBackend([("P2", speech)])
    spec = SessionSpec(kind="werewolf", seed=5, options={"deal": deal, "narrator": False}, backend="scripted")
    human: Any = AutoHuman(OfflineAgent(1, SeededSource("h")))
    io = SessionIO(backend=backend, human=human, sink=ListSink(), show=lambda _: None)
    session = WerewolfSession(spec, session_options(spec), io)
    game = session.game
    game.apply(Divine(2, 3))
    game.advance()
    game.apply(Speak(1, ""))
    asyncio.run(session._discussion_turn(2))
    backend.assert_done()
    assert game.public_log[-1] == ClaimMade(1, 2, Role.SEER, 3, Colour.BLACK, "占い師CO ヒミヤ黒")


# ---------------------------------------------------------------- 2. answers with a reason


@pytest.mark.parametrize(
    "typed", ["村人なので出ません", "ごめん、違うよ", "違います、村人です", "対象外です", "COなし"]
)
def test_a_decline_with_a_reason_or_an_apology_answers_the_co_request(typed: str) -> None:
    game = villager_answering()
    seat, _, screen = seat_on(game, [typed])
    seat.discussion()
    assert game.public_log[-1] == Declined(1, 1, typed)
    assert screen == []


def test_a_line_that_answers_nothing_names_the_accepted_answers() -> None:
    game = villager_answering()
    seat, _, screen = seat_on(game, ["うーん、どうしようかな", "/pass", "/request 霊媒師", "違います"])
    seat.discussion()
    assert game.public_log[-1] == Declined(1, 1, "違います")
    assert screen == [
        "CO要求への答えとして読めませんでした。名乗り出ないなら「違います」か /decline。",
        "「/pass」はこの質問では使えません。名乗り出ないなら「違います」か /decline。",
        "「/request」はこの質問では使えません。名乗り出ないなら「違います」か /decline。",
    ]


def test_the_answer_help_names_what_the_answer_takes_and_what_it_does_not() -> None:
    game = villager_answering(WerewolfOptions(discussion_rounds=1))
    seat, human, screen = seat_on(game, ["/help", "/decline"])
    seat.discussion()
    assert human.prompts[0] == "「占い師は名乗り出ろ」への答え（/decline）"  # no turn left to take
    help_text = screen[0]
    assert help_text.startswith("「占い師は名乗り出ろ」への答えです。次のどれかで答えてください:\n")
    assert "  名乗り出ないなら「違います」か /decline。\n" in help_text
    assert "この質問では使えません: /co、/result、/request、/pass（議論の自分の番で使えます）" in help_text
    assert "パス" not in help_text.replace("/pass", "")
    assert help_text.endswith("  /quit   中断（役職は公開されません）")


def test_the_answer_that_is_the_days_last_say_says_so() -> None:
    """Day 1 with two rounds: P1 passed its first turn, so this answer takes its second and last."""
    game = villager_answering()
    assert game.answer_takes_turn(1) and game.turns_left(1) == 1
    seat, human, _ = seat_on(game, ["違います"])
    seat.discussion()
    assert human.prompts == [
        "「占い師は名乗り出ろ」への答え。この答えが今日のあなたの最後の発言になります。"
        "言いたいこと（結果など）はこの答えに添えてください（/decline）"
    ]
    three = villager_answering(WerewolfOptions(discussion_rounds=3))
    seat, human, _ = seat_on(three, ["違います"])
    seat.discussion()
    assert human.prompts == [
        "「占い師は名乗り出ろ」への答え。この答えがあなたの次の発言の番を兼ねます（/decline）"
    ]


def test_the_answer_prompt_in_english() -> None:
    game = villager_answering()
    human = Human(["違います"])
    seat = HumanSeat(game, human, lambda _: None, lambda _p, _t: None, "en")
    seat.discussion()
    assert human.prompts[0].startswith(
        "Your answer to 'will the 占い師 come out'. This answer is your last say today"
    )


# ---------------------------------------------------------------- 4. seats as the engine writes them


@pytest.mark.parametrize(
    ("typed", "target"), [("アオト(P4)", 4), ("シセン（P7）", 7), ("シセンP7", 7), ("7番の人", 7)]
)
def test_a_seat_written_as_the_engine_writes_it_is_chosen(typed: str, target: int) -> None:
    game = seer_at_day_one()
    seat, _, screen = seat_on(game, [typed, "/pass"])
    assert seat.choose_target("投票先", [Vote(1, t, "") for t in range(2, 10)]) == Vote(1, target, "")
    assert screen == []


def test_a_name_and_a_p_number_that_disagree_say_which_seat_each_is() -> None:
    game = seer_at_day_one()
    seat, _, screen = seat_on(game, ["シセン(P4)", "P4"])
    assert seat.choose_target("占い先", [Divine(1, t) for t in range(2, 10)]) == Divine(1, 4)
    assert screen[0].startswith(
        "「シセン(P4)」はP番号と名前が別の参加者を指しています（P4はアオト、シセンはP7）。"
    )


# ---------------------------------------------------------------- 5. refusals that say what is wrong


def test_a_claim_without_its_result_is_asked_for_the_result_by_example() -> None:
    game = seer_at_day_one()
    seat, _, screen = seat_on(game, ["占い師COします", "/co 占い師", "/pass"])
    seat.discussion()
    expected = (
        "占い師のCOには結果を添えてください（例: 「占い師です。シセンは白でした」または /co 占い師 P7 白）。"
    )
    assert screen == [expected, expected]
    assert game.claims == {}


def test_a_command_a_question_does_not_take_is_named_with_what_it_takes() -> None:
    game = seer_at_day_one()
    seat, _, screen = seat_on(game, ["/pass", "/co 占い師", "P4", "/decline", "/pass"])
    assert seat.choose_target("投票先", [Vote(1, t, "") for t in range(2, 10)]) == Vote(1, 4, "")
    here = "（ほかに使えるのは /log、/votes、/help、/quit）。"
    assert screen == [
        "「/pass」はこの質問では使えません。相手を P番号・番号・名前・よみ のどれかで選んでください" + here,
        "「/co」はこの質問では使えません。相手を P番号・番号・名前・よみ のどれかで選んでください" + here,
        "「/decline」はこの質問では使えません。理由を一言書くか、理由なしなら /pass" + here,
    ]


def test_an_unsure_reading_the_rules_refuse_is_not_said_as_speech_unasked() -> None:
    """「アオトは黒でした」 from a seat that never claimed may be a result or an opinion; as a
    result it is refused (no claim), so P1 is told why and asked before it becomes speech."""
    game = seer_at_day_one()
    seat, human, _ = seat_on(game, ["アオトは黒でした", "いいえ", "アオトは黒でした", "はい"])
    seat.discussion()
    question = (
        "「結果発表（アオト(P4)は黒）」としてはできません: "
        "結果を発表できるのは、占い師か霊媒師としてCOした人だけです。"
        "普通の発言として伝えますか？（はい / いいえ。いいえなら入力し直せます）"
    )
    assert human.prompts[1] == question and human.prompts[3] == question
    assert human.prompts[2] == human.prompts[0]  # いいえ: the turn is asked again
    assert game.public_log[-1] == Speech(1, 1, "アオトは黒でした")


def test_a_line_that_reads_as_two_actions_is_asked_about() -> None:
    game = seer_at_day_one()
    seat, human, screen = seat_on(
        game, ["占い師は名乗り出ろ、霊媒師も名乗り出ろ", "/help", "いいえ", "/pass"]
    )
    seat.discussion()
    assert human.prompts[1].startswith("一度に伝えられる行動（CO・結果・CO要求・答え）は一つだけなので")
    assert screen[0].startswith(
        "「はい」なら普通の発言として伝わります。「いいえ」なら発言の番に戻って入力し直せます。"
    )
    assert game.public_log[-1] == Speech(1, 1, "")


# ---------------------------------------------------------------- 3. a vote without a reason


def test_a_vote_without_a_reason_records_none_and_shows_none() -> None:
    game = seer_at_day_one()
    seat, _, _ = seat_on(game, ["ハイオ", "/pass"])
    vote = seat.choose_target("投票先", [Vote(1, t, "") for t in range(2, 10)])
    assert vote == Vote(1, 8, "")
    names = ["", "プレイヤー", "トウダ", "ヒミヤ", "アオト", "ミスノ", "キウミ", "シセン", "ハイオ", "イスイ"]
    votes = (CastVote(1, 8, ""), CastVote(2, 8, "怪しいから"))
    tally = VoteTally(1, False, votes, ((8, 2),), (8,), "execute")
    assert vote_result_lines(tally, names)[1:3] == ["プレイヤー → ハイオ", "トウダ → ハイオ(怪しいから)"]
    # the personas' record of the day: no empty parentheses, no words P1 did not say
    line = today_line(tally, player_view(game, 1).public)
    assert line == "【投票結果】P1→P8、P2→P8（怪しいから）"


def test_the_catalogue_has_no_words_for_a_missing_reason() -> None:
    from gm_engine.messages import MESSAGES

    assert "werewolf.no_reason" not in MESSAGES
    assert render(MESSAGES["werewolf.seat_words.here_reason"]()) == "理由を一言書くか、理由なしなら /pass"


def test_the_web_table_reads_the_same_and_names_no_quit() -> None:
    """A web table's seat is the same HumanSeat (``web=True``): the same answers read, and a
    command it does not take is told the commands of a page, which has no /quit."""
    game = villager_answering()
    screen: list[str] = []
    seat = HumanSeat(
        game, Human(["/pass", "私は霊媒師ではないので出ません"]), screen.append, lambda _p, _t: None, web=True
    )
    seat.discussion()
    assert game.public_log[-1] == Declined(1, 1, "私は霊媒師ではないので出ません")
    assert screen == ["「/pass」はこの質問では使えません。名乗り出ないなら「違います」か /decline。"]
    voting = seer_at_day_one()
    screen.clear()
    seat = HumanSeat(
        voting, Human(["/quit?", "シセン(P7)", "/pass"]), screen.append, lambda _p, _t: None, web=True
    )
    assert seat.choose_target("投票先", [Vote(1, t, "") for t in range(2, 10)]) == Vote(1, 7, "")
    assert screen[0].endswith("（ほかに使えるのは /log、/votes、/help）。")


def test_the_same_texts_in_english() -> None:
    game = seer_at_day_one()
    screen: list[str] = []
    human = Human(["占い師COします", "アオトは黒でした", "no", "/pass"])
    seat = HumanSeat(game, human, screen.append, lambda _p, _t: None, "en")
    seat.discussion()
    example = "(for example 「占い師です。シセンは白でした」 or /co 占い師 P7 白)."
    assert screen[0] == "A claim as 占い師 comes with its result " + example
    assert human.prompts[2].startswith("Taken as a result (アオト(P4) 黒) it is not possible: Only a player")
    assert human.prompts[2].endswith("Say it as plain talk? (yes / no; no lets you type again)")
    screen.clear()
    seat = HumanSeat(game, Human(["/pass", "P4", "/pass"]), screen.append, lambda _p, _t: None, "en")
    assert seat.choose_target("seat to vote for", [Vote(1, t, "") for t in range(2, 10)]) == Vote(1, 4, "")
    assert screen == [
        "/pass cannot be used at this question. Choose a seat by its P-number, number, name or reading"
        " (you may also use /log, /votes, /help, /quit)."
    ]
