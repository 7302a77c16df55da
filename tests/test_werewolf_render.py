"""The document's fixed texts (render.py)."""

from __future__ import annotations

import pytest

from gm_engine.dice.result import Locale
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    TablePreDivinationYours,
    YourAttackGuarded,
    YourAttackSucceeded,
    YourDivineResult,
    YourGuard,
    YourGuardSaved,
    YourMediumResult,
)
from gm_engine.werewolf import Attack, Claim, Colour, Divine, Guard, Role, Vote, player_view
from gm_engine.werewolf.log import CastVote, GameEnded, VoteTally
from gm_engine.werewolf.records import Team
from gm_engine.werewolf.render import (
    PRE_DIVINATION_DONE,
    executed_line,
    game_end_lines,
    private_lines,
    public_info_lines,
    render_entries,
    vote_result_lines,
)
from tests.test_werewolf_helpers import SEER_DEAL, WOLF_DEAL, new_game, pass_discussion, start_day_one

NAMES = ["", "あなた", "トウダ", "ヒミヤ", "アオト", "ミスノ", "キウミ", "シセン", "ハイオ", "イスイ"]


def test_vote_result_uses_names_never_numbers() -> None:
    """CMD_投票: 【投票結果】 参加者名 → 投票先(投票理由) / 【投票集計】 参加者名：〇票."""
    tally = VoteTally(
        1, False, (CastVote(1, 2, "怪しい"), CastVote(2, 1, "反撃"), CastVote(3, 2, "同意")),
        ((2, 2), (1, 1)), (2,), "execute",
    )
    assert vote_result_lines(tally, NAMES) == [
        "【投票結果】",
        "あなた → トウダ(怪しい)",
        "トウダ → あなた(反撃)",
        "ヒミヤ → トウダ(同意)",
        "【投票集計】",
        "トウダ：2票",
        "あなた：1票",
    ]


def test_execution_text_and_cues() -> None:
    """CMD_処刑: 【〇〇が退席しました】, then 【CMD_勝敗判定】 and the night's cues."""
    assert executed_line(4, NAMES) == "【アオトが退席しました】"
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    for seat in game.to_act():
        game.apply(Vote(seat, 4 if seat != 4 else 5, "理由"))
    lines = render_entries(game.advance(), player_view(game, 1))
    assert lines[0] == "【投票結果】" and lines[-1] == "【CMD_処刑】"
    lines = render_entries(game.advance(), player_view(game, 1))
    assert lines == ["【アオトが退席しました】", "【CMD_勝敗判定】"]
    lines = render_entries(game.advance(), player_view(game, 1))
    assert lines[0] == "【CMD_夜開始】【CMD_占い】【CMD_襲撃】【CMD_護衛】【CMD_霊媒】"


def test_morning_then_public_info_then_discussion_cue() -> None:
    """CMD_朝結果: victim, 【公開情報】, then 【CMD_議論】."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    pass_discussion(game)
    for seat in game.to_act():
        game.apply(Vote(seat, 4 if seat != 4 else 5, ""))
    game.advance()
    game.advance()
    game.advance()
    game.apply(Divine(1, 3))
    game.apply(Guard(7, 9))
    game.apply(Attack(2, 6))
    game.apply(Attack(3, 6))
    lines = render_entries(game.advance(), player_view(game, 8))
    assert lines[0] == "【CMD_朝処理】【CMD_勝敗判定】"
    assert lines[1] == "2日目の朝です。キウミが襲撃され、退席しました。"
    assert lines[2] == "【公開情報】"
    assert lines[-1] == "【CMD_議論】"
    assert public_info_lines(player_view(game, 8).public)[3] == "占い結果：あなた→トウダ:黒"


def test_pre_divination_text_for_the_seer_and_for_the_others() -> None:
    """CMD_事前占い: the human seer sees its result (not the completion line); anyone else only
    「占い師が事前占いを完了しました」."""
    game = new_game(SEER_DEAL)
    game.apply(Divine(1, 5))
    entries = game.advance()
    mine = render_entries(entries, player_view(game, 1))
    theirs = render_entries(entries, player_view(game, 5))
    assert PRE_DIVINATION_DONE not in mine and PRE_DIVINATION_DONE in theirs
    assert "（あなただけに）事前占いの結果：ミスノは白" in mine
    assert not any("白" in line for line in theirs)


def test_game_end_text() -> None:
    """【ゲーム終了】 with 勝利陣営, 生存者, 死亡者 and 最終役職一覧."""
    roles = tuple((s, Role.VILLAGER) for s in range(1, 10))
    end = GameEnded(3, Team.VILLAGE, (1, 4), (2, 3, 5, 6, 7, 8, 9), roles)
    lines = game_end_lines(end, NAMES)
    assert lines[:4] == [
        "【ゲーム終了】",
        "勝利陣営：村人陣営",
        "生存者：あなた、アオト",
        "死亡者：トウダ、ヒミヤ、ミスノ、キウミ、シセン、ハイオ、イスイ",
    ]
    assert lines[4].startswith("最終役職一覧：あなた:村人、トウダ:村人")


def test_private_lines_show_own_facts_only() -> None:
    game = new_game(WOLF_DEAL)
    lines = private_lines(player_view(game, 1))
    assert lines == ["あなたの役職：人狼", "人狼の仲間：イスイ"]
    assert private_lines(player_view(game, 4)) == ["あなたの役職：村人"]


@pytest.mark.parametrize("locale", ["ja", "en"])
def test_every_private_result_on_p1s_screen_is_marked_alike(locale: Locale) -> None:
    mine = render(TablePreDivinationYours("アオト(P4)", "白"), locale)
    marker = mine[: mine.index("）" if locale == "ja" else ")") + 1]
    private: tuple[Message, ...] = (
        YourDivineResult("アオト(P4)", "白"),
        YourMediumResult("アオト(P4)", "黒"),
        YourGuard("アオト(P4)"),
        YourGuardSaved("アオト(P4)"),
    )
    for message in private:
        assert render(message, locale).startswith(marker), message
    wolves = "（人狼だけに）" if locale == "ja" else "(werewolves only)"
    attacks: tuple[Message, ...] = (YourAttackSucceeded("アオト(P4)"), YourAttackGuarded("アオト(P4)"))
    for message in attacks:
        assert render(message, locale).startswith(wolves), message
