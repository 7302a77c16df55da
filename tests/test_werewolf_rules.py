"""Each clause of 004 (人狼ゲーム各処理) and of NOTES.md's Werewolf section, one test or more each.

Test names carry the clause (CMD_… of the document, or NOTES.md) they check.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf import (
    COMPOSITION,
    PERSONA_NAMES,
    Action,
    Attack,
    ChooseRole,
    Claim,
    Colour,
    DealError,
    Decline,
    Divine,
    Game,
    GameOverError,
    Guard,
    IllegalActionError,
    MadmanClaims,
    RequestClaim,
    Role,
    Speak,
    Stage,
    StateResult,
    Team,
    Vote,
    WerewolfOptions,
    observe,
    player_view,
)
from gm_engine.werewolf import game as rules
from gm_engine.werewolf.log import (
    ClaimMade,
    DivineResult,
    Executed,
    GameEnded,
    MediumResult,
    MorningReport,
    NoExecution,
    PreDivinationDone,
    RoleDealt,
    VoteTally,
)
from gm_engine.werewolf.records import Ability, Life, RecordValue, Step, TimeOfDay
from tests.test_werewolf_helpers import (
    SEER_DEAL,
    VILLAGER_DEAL,
    WOLF_DEAL,
    new_game,
    pass_discussion,
    stage_of,
    start_day_one,
    vote,
    vote_out,
)


def refused(game: Game, action: object, rule: str) -> IllegalActionError:
    """Apply ``action``, expect the refusal naming ``rule``, and check nothing changed."""
    before = game.state_hash()
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)  # type: ignore[arg-type]
    assert info.value.rule == rule
    assert game.state_hash() == before
    return info.value


# ---------------------------------------------------------------- CMD_役職選択 / CMD_ゲーム開始


@pytest.mark.parametrize("role", list(Role))
def test_cmd_role_choice_p1_role_is_final_through_the_deal(role: Role) -> None:
    """CMD_役職選択: P1's number becomes PLAYER.R and is never changed or re-drawn."""
    game = Game.new(SeededSource(7))
    assert game.to_act() == [1]
    game.apply(ChooseRole(1, role))
    assert game.stage is Stage.DEAL
    game.advance()
    assert game.role_of(1) is role
    refused(game, ChooseRole(1, Role.VILLAGER), rules.RULE_ROLE_CHOICE)


def test_cmd_role_choice_only_p1_chooses_and_game_start_waits_for_it() -> None:
    """CMD_役職選択: no ゲーム開始 before P1's choice; nobody else chooses."""
    game = Game.new(SeededSource(1))
    with pytest.raises(IllegalActionError) as info:
        game.advance()
    assert info.value.rule == rules.RULE_PENDING
    refused(game, ChooseRole(2, Role.SEER), rules.RULE_ROLE_CHOICE)
    refused(game, Speak(1, "hi"), rules.RULE_PHASE)


@pytest.mark.parametrize("seed", range(30))
def test_cmd_game_start_deal_is_the_composition(seed: int) -> None:
    """CMD_ゲーム開始 ①②: one of P1's role removed, the rest shuffled onto P2..P9, checked."""
    source = SeededSource(seed)
    game = Game.new(source)
    game.apply(ChooseRole(1, Role((seed % 6) + 1)))
    game.advance()
    assert sorted(game.role_of(s) for s in range(1, 10)) == sorted(COMPOSITION)
    # Fisher-Yates over the eight other roles: dice of 8, 7, ..., 2 sides, all recorded
    assert [d.sides for d in source.history] == [8, 7, 6, 5, 4, 3, 2]


def test_cmd_game_start_shuffle_depends_on_the_seed_only() -> None:
    deals = set()
    for seed in range(20):
        game = Game.new(SeededSource(seed))
        game.apply(ChooseRole(1, Role.VILLAGER))
        game.advance()
        deals.add(tuple(game.role_of(s) for s in range(1, 10)))
        again = Game.new(SeededSource(seed))
        again.apply(ChooseRole(1, Role.VILLAGER))
        again.advance()
        assert again.state_hash() == game.state_hash()
    assert len(deals) > 10


@pytest.mark.parametrize(
    "deal", [[1, 1, 1, 2, 2, 3, 4, 5, 6], [3, 1, 1, 2, 2, 2, 4, 5], [0, 1, 1, 2, 2, 2, 4, 5, 6], ["x"] * 9]
)
def test_cmd_game_start_check_refuses_a_bad_fixed_deal(deal: list[object]) -> None:
    """CMD_ゲーム開始 ②配布確認: 人狼2 村人3 占い師1 狩人1 霊媒師1 狂人1, 9 in all, no R=0."""
    with pytest.raises(DealError):
        Game.from_deal(deal)  # type: ignore[arg-type]


def test_cmd_game_start_init_wolf_info_and_phase() -> None:
    """CMD_ゲーム開始 ③④⑤: L=1 U=0; the two 人狼 learn each other; PHASE 1日目・昼・開始前."""
    game = new_game(WOLF_DEAL)
    assert all(game.players[s].L == Life.ALIVE and game.players[s].U == 0 for s in range(1, 10))
    dealt = {s: next(e for e in game.private_logs[s] if isinstance(e, RoleDealt)) for s in range(1, 10)}
    assert dealt[1].partners == (9,) and dealt[9].partners == (1,)
    assert all(dealt[s].partners == () for s in range(2, 9))
    assert (game.phase.day, game.phase.T, game.phase.P) == (1, TimeOfDay.DAY, Step.BEFORE_START)
    assert game.phase.text() == "1日目・昼・開始前"


def test_notes_seats_are_the_personas_in_document_order() -> None:
    """NOTES.md: P2 トウダ, P3 ヒミヤ, P4 アオト, P5 ミスノ, P6 キウミ, P7 シセン, P8 ハイオ, P9 イスイ."""
    expected = ["トウダ", "ヒミヤ", "アオト", "ミスノ", "キウミ", "シセン", "ハイオ", "イスイ"]
    assert list(PERSONA_NAMES.values()) == expected
    game = new_game(SEER_DEAL)
    assert [game.names[s] for s in range(2, 10)] == list(PERSONA_NAMES.values())


# ---------------------------------------------------------------- CMD_事前占い


def test_cmd_pre_divination_human_seer_learns_privately() -> None:
    """CMD_事前占い: the seer divines one other player before day 1; only it learns the result."""
    game = new_game(SEER_DEAL)
    assert game.to_act() == [1]
    refused(game, Divine(1, 1), rules.RULE_DIVINE)
    refused(game, Speak(1, "x"), rules.RULE_PHASE)
    game.apply(Divine(1, 2))
    assert game.records[Ability.DIVINE].V == RecordValue.UNPROCESSED
    entries = game.advance()
    assert isinstance(entries[0], PreDivinationDone)
    assert DivineResult(1, 2, Colour.BLACK, pre=True) in game.private_logs[1]
    assert all(not isinstance(e, DivineResult) for s in range(2, 10) for e in game.private_logs[s])
    # the target's R/L/U are untouched
    assert (game.players[2].R, game.players[2].L, game.players[2].U) == (1, Life.ALIVE, 0)
    assert game.stage is Stage.DISCUSSION


def test_cmd_pre_divination_others_only_see_completion() -> None:
    """CMD_事前占い: when the human is not the seer the only output is 「占い師が事前占いを完了しました」."""
    game = new_game(VILLAGER_DEAL)
    assert game.to_act() == [2]
    refused(game, Divine(1, 3), rules.RULE_ROLE_ABILITY)
    game.apply(Divine(2, 3))
    entries = game.advance()
    assert isinstance(entries[0], PreDivinationDone)
    from gm_engine.werewolf.render import render_entries

    lines = render_entries(entries, player_view(game, 1))
    assert "占い師が事前占いを完了しました" in lines
    assert not any("黒" in line or "ヒミヤ" in line for line in lines)


def test_cmd_pre_divination_madman_reads_white() -> None:
    """CMD_事前占い: 狂人も白."""
    game = new_game(SEER_DEAL)
    game.apply(Divine(1, 9))
    game.advance()
    assert DivineResult(1, 9, Colour.WHITE, pre=True) in game.private_logs[1]


# ---------------------------------------------------------------- CMD_議論


def test_cmd_discussion_turns_in_seat_order_for_each_round() -> None:
    """CMD_議論 (engine reading): each living seat gets its turns in order, rounds times."""
    game = new_game(SEER_DEAL, discussion_rounds=2)
    start_day_one(game)
    order = []
    while game.to_act():
        seat = game.to_act()[0]
        order.append(seat)
        refused(game, Speak(seat % 9 + 1, "not my turn"), rules.RULE_TURN)
        game.apply(Speak(seat, f"P{seat}"))
    assert order == list(range(1, 10)) * 2
    assert game.phase.P == Step.DISCUSSION


def test_cmd_discussion_gm_never_votes_for_the_human() -> None:
    """CMD_議論/CMD_投票: the engine never casts P1's vote: advance waits for it."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    for seat in range(2, 10):
        game.apply(Vote(seat, 1 if seat != 1 else 2, "r"))
    assert game.to_act() == [1]
    with pytest.raises(IllegalActionError) as info:
        game.advance()
    assert info.value.rule == rules.RULE_PENDING


# ---------------------------------------------------------------- CMD_CO


def _to_turn(game: Game, seat: int) -> None:
    while game.to_act() != [seat]:
        game.apply(Speak(game.to_act()[0], ""))


def test_cmd_co_villager_may_not_claim() -> None:
    """CMD_CO 部活内ルール: 村人が占い師などを騙る→禁止."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    _to_turn(game, 4)
    for role in (Role.SEER, Role.BODYGUARD, Role.MEDIUM):
        refused(game, Claim(4, role), rules.RULE_CO_VILLAGER)


def test_cmd_co_role_holder_may_claim_only_its_own_role() -> None:
    """CMD_CO 部活内ルール: 占い師・狩人などの役職者が別役職を騙る→禁止."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    refused(game, Claim(1, Role.MEDIUM), rules.RULE_CO_OTHER_ROLE)
    refused(game, Claim(1, Role.BODYGUARD), rules.RULE_CO_OTHER_ROLE)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK, "P2は黒"))
    _to_turn(game, 7)
    refused(game, Claim(7, Role.SEER), rules.RULE_CO_OTHER_ROLE)
    game.apply(Claim(7, Role.BODYGUARD))
    assert game.claims == {1: Role.SEER, 7: Role.BODYGUARD}


def test_cmd_co_real_seer_states_only_its_true_results() -> None:
    """CMD_CO / NOTES.md: a real 占い師 may not 騙る a result; each result is stated once."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    refused(game, Claim(1, Role.SEER, 2, Colour.WHITE), rules.RULE_CO_RESULT)
    refused(game, Claim(1, Role.SEER, 4, Colour.BLACK), rules.RULE_CO_RESULT)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    assert game.legal_actions(1) == []


def test_cmd_co_werewolf_may_claim_any_role() -> None:
    """CMD_CO 部活内ルール: 人狼が占い師などを騙る→許可 (with a fake result)."""
    for role in (Role.SEER, Role.BODYGUARD, Role.MEDIUM):
        game = new_game(SEER_DEAL)
        start_day_one(game)
        _to_turn(game, 2)
        claim = Claim(2, role, 4, Colour.BLACK) if role is Role.SEER else Claim(2, role)
        game.apply(claim)
        assert game.claims[2] is role


def test_notes_madman_claims_option() -> None:
    """NOTES.md: the 狂人 claims like a 人狼 by default; the named option forbids it."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    _to_turn(game, 9)
    game.apply(Claim(9, Role.SEER, 1, Colour.BLACK))
    strict = new_game(SEER_DEAL, madman_claims=MadmanClaims.NONE)
    start_day_one(strict)
    _to_turn(strict, 9)
    refused(strict, Claim(9, Role.SEER, 1, Colour.BLACK), rules.RULE_CO_MADMAN)
    refused(strict, Claim(9, Role.MEDIUM), rules.RULE_CO_MADMAN)


def test_cmd_co_claims_are_public_and_never_marked_true_or_false() -> None:
    """CMD_CO: the claim is a public fact; the engine never says if it is true."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    _to_turn(game, 2)
    entries = game.apply(Claim(2, Role.SEER, 1, Colour.BLACK, "私が占い師"))
    assert entries == [ClaimMade(1, 2, Role.SEER, 1, Colour.BLACK, "私が占い師")]
    for seat in range(1, 10):
        view = player_view(game, seat)
        assert view.public.seats[1].claim is Role.SEER
        assert set(view.public.seats[1].model_dump()) == {"seat", "name", "alive", "claim"}


def test_cmd_co_once_and_not_by_the_dead() -> None:
    """CMD_CO: 死亡者は新たにCOできない; a seat claims once."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    pass_discussion(game)
    vote_out(game, 4, 5)  # P4 (村人) leaves the table
    game.apply(Divine(1, 3))
    game.apply(Guard(7, 1))
    for wolf in game.to_act():
        game.apply(Attack(wolf, 5))
    game.advance()
    assert game.stage is Stage.DISCUSSION
    refused(game, Claim(4, Role.MEDIUM), rules.RULE_DEAD_ACT)
    assert game.to_act() == [2]  # day 2 starts at P2
    _to_turn(game, 1)
    refused(game, Claim(1, Role.SEER), rules.RULE_CO_ONCE)


# ---------------------------------------------------------------- CMD_CO要求


def test_cmd_co_request_day_one_real_seer_must_come_out_with_pre_divination() -> None:
    """CMD_CO要求: 「占い師は名乗り出ろ」 on day 1: the real seer must come out with the 事前占い result.
    (Answers on top of the turns, so that the round goes on after the requester.)"""
    game = new_game(VILLAGER_DEAL, answer_takes_turn=False)
    game.apply(Divine(2, 3))
    game.advance()
    refused(game, RequestClaim(1, Role.MEDIUM), rules.RULE_CO_REQUEST)  # day 1: the seer only
    game.apply(RequestClaim(1, Role.SEER, "占い師は名乗り出ろ"))
    assert game.awaiting_claim is Role.SEER
    assert game.to_act() == [2]
    assert game.legal_actions(2) == [Claim(2, Role.SEER, 3, Colour.BLACK)]
    refused(game, Decline(2), rules.RULE_CO_FORCED)
    refused(game, Speak(2, "..."), rules.RULE_CO_FORCED)
    game.apply(Claim(2, Role.SEER, 3, Colour.BLACK, "P3は黒"))
    # the fake may come out now: 人狼 P3 (any result), 狂人 P9; the others may only decline
    assert game.to_act() == [3]
    assert Claim(3, Role.SEER) not in game.legal_actions(3)  # an answer carries a result
    game.apply(Claim(3, Role.SEER, 2, Colour.BLACK, "P2が黒"))
    for seat in (4, 5, 6, 7, 8):
        assert game.to_act() == [seat]
        if seat != 4:  # P4 is the other 人狼: it could come out too
            assert game.legal_actions(seat) == [Decline(seat)]
        game.apply(Decline(seat))
    game.apply(Decline(9))
    assert game.to_act() == [1]  # the requester answers last
    game.apply(Decline(1))
    assert game.awaiting_claim is None
    assert game.to_act() == [2]  # the round continues after the requester
    refused(game, RequestClaim(2, Role.SEER), rules.RULE_CO_REQUEST)  # once a day


def test_by_default_an_answer_is_the_seats_next_turn_of_the_day() -> None:
    """answer_takes_turn (the default): P1's call on the first turn of day 1 is answered by
    everyone, each answer standing for that seat's turn of the first round; the caller keeps
    its turns. Off, the answers come on top of every seat's two turns."""

    def turns_after_a_call(**options: object) -> list[int]:
        game = new_game(VILLAGER_DEAL, **options)
        game.apply(Divine(2, 3))
        game.advance()
        game.apply(RequestClaim(1, Role.SEER, "占い師は名乗り出ろ"))
        game.apply(Claim(2, Role.SEER, 3, Colour.BLACK, "P3は黒"))
        for seat in (3, 4, 5, 6, 7, 8, 9, 1):
            game.apply(Decline(seat, "違います"))
        assert game.awaiting_claim is None
        spoken = []
        while game.to_act():  # the discussion's turns, until it waits for advance()
            (seat,) = game.to_act()
            spoken.append(seat)
            game.apply(Speak(seat, ""))
        return spoken

    assert turns_after_a_call(answer_takes_turn=False) == [2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert turns_after_a_call() == turns_after_a_call(answer_takes_turn=True) == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_cmd_co_request_medium_from_day_two_with_latest_result() -> None:
    """CMD_CO要求: 「霊媒師は名乗り出ろ」 on day 2+: the medium comes out with its result."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=4)
    pass_discussion(game)
    vote_out(game, 2, 3)  # 人狼 P2 executed
    game.apply(Divine(1, 5))
    game.apply(Guard(7, 1))
    game.apply(Attack(3, 6))
    game.advance()
    assert MediumResult(2, 1, 2, Colour.BLACK) in game.private_logs[8]
    _to_turn(game, 3)
    refused(game, RequestClaim(3, Role.SEER), rules.RULE_CO_REQUEST)
    game.apply(RequestClaim(3, Role.MEDIUM))
    while game.to_act() != [8]:
        game.apply(Decline(game.to_act()[0]))
    assert game.legal_actions(8) == [Claim(8, Role.MEDIUM, 2, Colour.BLACK)]
    game.apply(Claim(8, Role.MEDIUM, 2, Colour.BLACK, "P2は黒"))
    view = player_view(game, 5)
    assert [(r.speaker, r.target, r.colour) for r in view.public.stated_results] == [(8, 2, Colour.BLACK)]


# ---------------------------------------------------------------- results public only when stated


def test_notes_results_public_only_when_stated() -> None:
    """NOTES.md / CMD_占い: a result becomes public only when its owner states it."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    for seat in range(2, 10):
        assert player_view(game, seat).public.stated_results == ()
        assert '"kind":"divine_result"' not in player_view(game, seat).model_dump_json()
    refused(game, StateResult(1, 2, Colour.BLACK), rules.RULE_RESULT)  # not claimed yet
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    assert [r.target for r in player_view(game, 5).public.stated_results] == [2]


# ---------------------------------------------------------------- CMD_投票


def test_cmd_vote_no_self_vote_no_dead_no_double() -> None:
    """CMD_投票: 自分自身や、死亡者への投票は無効; one vote each."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    refused(game, Vote(1, 2), rules.RULE_PHASE)  # not during the discussion
    pass_discussion(game)
    refused(game, Vote(1, 1), rules.RULE_VOTE)
    game.apply(Vote(1, 2, "怪しい"))
    refused(game, Vote(1, 3), rules.RULE_VOTE_ONCE)
    vote(game, {s: 4 for s in range(2, 10)} | {4: 5})
    game.advance()  # P4 executed
    game.advance()  # 夜開始
    for wolf in game.to_act():
        if game.role_of(wolf) is Role.WEREWOLF:
            game.apply(Attack(wolf, 6))
        elif game.role_of(wolf) is Role.SEER:
            game.apply(Divine(wolf, 3))
        else:
            game.apply(Guard(wolf, 1))
    game.advance()
    pass_discussion(game)
    refused(game, Vote(1, 4), rules.RULE_VOTE)  # dead


def test_cmd_vote_results_are_secret_until_the_tally_then_published_with_reasons() -> None:
    """CMD_投票 / NOTES.md: votes are independent; 【投票結果】 then shows every vote with its reason."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    game.apply(Vote(2, 5, "P5が怪しい"))
    for seat in range(1, 10):
        if seat != 2:
            assert "P5が怪しい" not in player_view(game, seat).model_dump_json()
            assert player_view(game, seat).private.current_vote is None
    assert player_view(game, 2).private.current_vote == 5
    vote(game, {s: 5 for s in (1, 3, 4, 6, 7, 8, 9)} | {5: 1})
    tally = next(e for e in game.public_log if isinstance(e, VoteTally))
    assert [(v.voter, v.target) for v in tally.votes][:2] == [(1, 5), (2, 5)]
    assert tally.votes[1].reason == "P5が怪しい"
    assert tally.counts[0] == (5, 8) and tally.outcome == "execute"


def test_cmd_vote_tie_goes_to_one_runoff_between_the_tied() -> None:
    """CMD_投票 / NOTES.md: a tie goes to one 決選投票; only the tied players can be chosen."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    vote(game, {1: 2, 2: 3, 3: 2, 4: 3, 5: 2, 6: 3, 7: 4, 8: 5, 9: 6})
    assert game.stage is Stage.RUNOFF
    assert game.public_candidates() == (2, 3)
    refused(game, Vote(1, 4), rules.RULE_RUNOFF)
    assert game.legal_actions(2) == [Vote(2, 3)]  # a tied seat votes for the other
    vote(game, {1: 2, 2: 3, 3: 2, 4: 2, 5: 2, 6: 3, 7: 3, 8: 3, 9: 2})
    assert stage_of(game) is Stage.EXECUTION
    game.advance()
    assert game.players[2].L == Life.DEAD


def test_cmd_vote_second_tie_with_three_way_split() -> None:
    """NOTES.md: a tie in the 決選投票 -> no execution that day, then 勝敗判定 and 夜開始."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    vote(game, {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4})
    assert game.public_candidates() == (2, 3, 4)
    vote(game, {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4})
    assert isinstance(game.public_log[-1], NoExecution)
    assert game.stage is Stage.NIGHT_START
    assert all(game.players[s].L == Life.ALIVE for s in range(1, 10))
    game.advance()
    # NOTES.md: no attack before the first execution
    assert game.legal_actions(2) == [] and 2 not in game.to_act()
    refused(game, Attack(2, 5), rules.RULE_ATTACK_FIRST)


# ---------------------------------------------------------------- CMD_処刑


def test_cmd_execution_only_leaves_the_table() -> None:
    """CMD_処刑: L=2, R and U unchanged; only 【〇〇が退席しました】, no role, no last words."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    vote(game, {s: 9 for s in range(1, 9)} | {9: 1})
    r, u = game.players[9].R, game.players[9].U
    entries = game.advance()
    assert entries[0] == Executed(1, 9)
    assert (r, Life.DEAD, u) == (game.players[9].R, game.players[9].L, game.players[9].U)
    from gm_engine.werewolf.render import render_entries

    lines = render_entries(entries, player_view(game, 4))
    assert lines[0] == "【イスイが退席しました】"
    assert not any("狂人" in line for line in lines)
    assert game.phase.P == Step.EXECUTION


# -------------------------------------------- night: CMD_夜開始 / 襲撃 / 占い / 護衛 / 霊媒


def _to_night(deal: list[int], executed: int, fallback: int, **options: object) -> Game:
    game = new_game(deal, **options)
    start_day_one(game)
    pass_discussion(game)
    vote_out(game, executed, fallback)
    assert game.stage is Stage.NIGHT
    return game


def test_cmd_night_start_resets_u_and_sets_phase() -> None:
    """CMD_夜開始: T=2 (夜), P=5 (夜能力), living ability users' U back to 0."""
    game = _to_night(SEER_DEAL, 4, 5)
    assert (game.phase.T, game.phase.P) == (TimeOfDay.NIGHT, Step.NIGHT_ACTIONS)
    assert all(game.players[s].U == 0 for s in game.living())
    assert sorted(game.to_act()) == [1, 2, 3, 7]


def test_cmd_attack_rules() -> None:
    """CMD_襲撃: one living non-werewolf target; never a werewolf; never the dead."""
    game = _to_night(SEER_DEAL, 4, 5)
    refused(game, Attack(2, 3), rules.RULE_ATTACK_WOLF)
    refused(game, Attack(2, 4), rules.RULE_ATTACK_DEAD)
    refused(game, Attack(5, 6), rules.RULE_ROLE_ABILITY)
    game.apply(Attack(2, 6))
    refused(game, Attack(2, 7), rules.RULE_ATTACK_DEAD)  # one choice a night
    assert Ability.ATTACK not in game.records  # the partner has not chosen yet
    game.apply(Attack(3, 5))
    # both wolves, no human wolf: the lower seat decides
    assert game.records[Ability.ATTACK].S == 2 and game.records[Ability.ATTACK].T == 6


def test_notes_human_wolf_decides_when_wolves_disagree() -> None:
    """NOTES.md: wolves disagreeing -> the human wolf decides."""
    game = _to_night(WOLF_DEAL, 3, 4)
    game.apply(Attack(9, 5))
    game.apply(Attack(1, 4))
    assert game.records[Ability.ATTACK].S == 1 and game.records[Ability.ATTACK].T == 4


def test_cmd_divine_rules_and_colours() -> None:
    """CMD_占い: another living player; 黒 only for R=1, 狂人 白; U=1; result in the morning, privately."""
    game = _to_night(SEER_DEAL, 4, 5)
    refused(game, Divine(1, 1), rules.RULE_DIVINE)
    refused(game, Divine(1, 4), rules.RULE_DIVINE)
    refused(game, Divine(5, 6), rules.RULE_ROLE_ABILITY)
    game.apply(Divine(1, 3))
    assert game.players[1].U == 1
    refused(game, Divine(1, 9), rules.RULE_DIVINE)
    assert not any(isinstance(e, DivineResult) and not e.pre for e in game.private_logs[1])
    game.apply(Guard(7, 1))
    game.apply(Attack(2, 6))
    game.apply(Attack(3, 6))
    game.advance()
    assert DivineResult(2, 3, Colour.BLACK, pre=False) in game.private_logs[1]


def test_cmd_guard_rules() -> None:
    """CMD_護衛: never self; a living target; guard == attack target -> nobody dies."""
    game = _to_night(SEER_DEAL, 4, 5)
    refused(game, Guard(7, 7), rules.RULE_GUARD)
    refused(game, Guard(7, 4), rules.RULE_GUARD)
    game.apply(Guard(7, 6))
    game.apply(Divine(1, 9))
    game.apply(Attack(2, 6))
    game.apply(Attack(3, 6))
    entries = game.advance()
    assert MorningReport(2, None) in entries
    assert game.players[6].L == Life.ALIVE


def test_cmd_guard_same_target_on_consecutive_nights_is_allowed() -> None:
    """CMD_護衛: 連続して同じ人物を護衛することは可能."""
    game = _to_night(SEER_DEAL, 4, 5)
    game.apply(Guard(7, 1))
    game.apply(Divine(1, 9))
    game.apply(Attack(2, 1))
    game.apply(Attack(3, 1))
    game.advance()
    assert game.players[1].L == Life.ALIVE
    pass_discussion(game)
    vote_out(game, 5, 6)
    assert Guard(7, 1) in game.legal_actions(7)
    game.apply(Guard(7, 1))


def test_cmd_medium_learns_previous_days_execution_only() -> None:
    """CMD_霊媒 / NOTES.md: the colour of the day's executed player; nothing without execution."""
    game = _to_night(SEER_DEAL, 2, 3)
    game.apply(Divine(1, 9))
    game.apply(Guard(7, 1))
    game.apply(Attack(3, 6))
    game.advance()
    assert [e for e in game.private_logs[8] if isinstance(e, MediumResult)] == [
        MediumResult(2, 1, 2, Colour.BLACK)
    ]
    assert game.records == {}  # cleared after the morning


def test_cmd_medium_nothing_on_a_day_without_execution() -> None:
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    vote(game, {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4})
    vote(game, {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4})
    game.advance()  # 夜開始
    game.apply(Divine(1, 5))
    game.apply(Guard(7, 1))
    game.advance()
    assert not any(isinstance(e, MediumResult) for e in game.private_logs[8])
    assert isinstance(game.public_log[-2], MorningReport) and game.public_log[-2].victim is None


def test_cmd_medium_dead_medium_learns_nothing() -> None:
    """CMD_霊媒: 霊媒師が死亡している場合、霊媒処理は実行しない."""
    game = _to_night(SEER_DEAL, 8, 1)  # the medium itself is executed
    game.apply(Divine(1, 9))
    game.apply(Guard(7, 1))
    game.apply(Attack(2, 5))
    game.apply(Attack(3, 5))
    game.advance()
    assert not any(isinstance(e, MediumResult) for e in game.private_logs[8])


# ---------------------------------------------------------------- CMD_朝結果 / 【公開情報】


def test_cmd_morning_resolves_everything_at_once_and_clears_records() -> None:
    """CMD_朝結果 / NOTES.md: all night actions resolve at 朝結果, in any arrival order."""
    orders: list[list[Action]] = [
        [Attack(2, 6), Attack(3, 6), Guard(7, 6), Divine(1, 3)],
        [Guard(7, 6), Divine(1, 3), Attack(3, 6), Attack(2, 6)],
    ]
    hashes = set()
    for order in orders:
        game = _to_night(SEER_DEAL, 4, 5)
        for action in order:
            game.apply(action)
        assert game.records[Ability.GUARD].V == RecordValue.UNPROCESSED
        game.advance()
        assert game.players[6].L == Life.ALIVE
        assert game.records == {}
        assert game.phase.P == Step.DISCUSSION and game.phase.day == 2
        hashes.add(player_view(game, 5).model_dump_json())
    assert len(hashes) == 1


def test_cmd_morning_public_info_lists_only_public_facts() -> None:
    """CMD_朝結果: 【公開情報】 追放者 襲撃死者 占い結果 霊媒結果 CO状況; no targets, no roles."""
    from gm_engine.werewolf.render import public_info_lines, render_entries

    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    pass_discussion(game)
    vote_out(game, 4, 5)
    game.apply(Divine(1, 3))
    game.apply(Guard(7, 1))
    game.apply(Attack(2, 6))
    game.apply(Attack(3, 6))
    entries = game.advance()
    lines = render_entries(entries, player_view(game, 5))
    info = public_info_lines(player_view(game, 5).public)
    assert info[0] == "【公開情報】"
    assert info[1] == "追放者：アオト(1日目)"
    assert info[2] == "襲撃死者：キウミ(2日目朝)"
    assert info[3] == "占い結果：あなた→トウダ:黒"
    assert info[4] == "霊媒結果：なし"
    assert info[5] == "CO状況：あなた:占い師CO"
    text = "\n".join(lines)
    assert "ヒミヤ" not in text  # tonight's unstated divine target
    assert "シセン" not in text  # the bodyguard and its target stay hidden
    for role in ("人狼", "狩人", "村人", "霊媒師", "狂人"):
        assert f":{role}" not in text


# ---------------------------------------------------------------- CMD_勝敗判定 / 【ゲーム終了】


def test_cmd_win_check_village_wins_when_no_wolf_lives() -> None:
    """CMD_勝敗判定 1: 生存人狼が0名 -> 村人陣営勝利 (checked after each execution)."""
    game = _to_night(SEER_DEAL, 2, 3)
    game.apply(Divine(1, 9))
    game.apply(Guard(7, 1))
    game.apply(Attack(3, 6))
    game.advance()
    pass_discussion(game)
    vote_out(game, 3, 1)
    assert game.is_over and game.outcome() is not None
    assert game.outcome().winner is Team.VILLAGE  # type: ignore[union-attr]
    end = game.public_log[-1]
    assert isinstance(end, GameEnded) and end.survivors == (1, 4, 5, 7, 8, 9)
    assert game.phase.P == Step.ENDED


def test_cmd_win_check_wolves_win_at_parity_madman_counts_as_human() -> None:
    """CMD_勝敗判定 2: 生存人狼 >= 生存人間 -> 人狼陣営; 狂人は人間として数える."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    # execute 村人 and attack, night after night, until parity
    fallbacks = {4: 5, 5: 6, 6: 7, 7: 8}
    victims = iter([8, 1, 9])
    executed_order = [4, 5, 6]
    for executed in executed_order:
        pass_discussion(game)
        vote_out(game, executed, fallbacks[executed])
        if game.is_over:
            break
        victim = next(victims)
        for seat in game.to_act():
            role = game.role_of(seat)
            if role is Role.WEREWOLF:
                game.apply(Attack(seat, victim))
            elif role is Role.SEER:
                game.apply(game.legal_actions(seat)[0])
            elif role is Role.BODYGUARD:
                choices = [a for a in game.legal_actions(seat) if isinstance(a, Guard) and a.target != victim]
                game.apply(choices[0])
        game.advance()
        if game.is_over:
            break
    assert game.is_over
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is Team.WEREWOLF
    living = game.living()
    wolves = [s for s in living if game.role_of(s) is Role.WEREWOLF]
    assert len(wolves) >= len(living) - len(wolves)
    # the 狂人 was alive and counted among the humans until the end
    assert 9 not in living or len(wolves) == len(living) - len(wolves)


def test_cmd_game_end_nothing_more_is_accepted_and_roles_are_revealed() -> None:
    """CMD_勝敗判定: after the end no game action, no new phase; the final role list is shown."""
    from gm_engine.werewolf.render import render_entries

    game = _to_night(SEER_DEAL, 2, 3)
    game.apply(Divine(1, 9))
    game.apply(Guard(7, 1))
    game.apply(Attack(3, 6))
    game.advance()
    pass_discussion(game)
    vote(game, {s: 3 for s in game.living() if s != 3} | {3: 1})
    entries = game.advance()
    assert game.is_over
    before = game.state_hash()
    after: list[object] = [Speak(1, "x"), Vote(1, 4), Attack(3, 4), Divine(1, 4), Guard(7, 4)]
    for action in [*after, ChooseRole(1, Role.SEER)]:
        with pytest.raises(GameOverError):
            game.apply(action)  # type: ignore[arg-type]
    with pytest.raises(GameOverError):
        game.advance()
    assert game.state_hash() == before
    assert all(game.legal_actions(s) == [] for s in range(1, 10)) and game.to_act() == []
    lines = render_entries(entries, player_view(game, 4))
    assert "【ゲーム終了】" in lines
    assert "勝利陣営：村人陣営" in lines
    assert any(line.startswith("最終役職一覧：あなた:占い師、トウダ:人狼、ヒミヤ:人狼") for line in lines)
    assert player_view(game, 4).public.final_roles is not None


def test_notes_roles_never_public_before_the_end() -> None:
    game = new_game(SEER_DEAL)
    start_day_one(game)
    for seat in range(1, 10):
        assert player_view(game, seat).public.final_roles is None


# ---------------------------------------------------------------- errors, options, determinism


def test_rejected_actions_of_any_shape_leave_the_state_unchanged() -> None:
    """The team guide: bad input gets a clear error and the state is exactly as before."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    before = game.state_hash()
    bad: list[object] = [
        "vote P3",
        None,
        Vote(1, "P3"),  # type: ignore[arg-type]
        Vote(True, 2),
        Speak(1, 5),  # type: ignore[arg-type]
        Speak(1, "x" * 5000),
        Claim(1, 9),  # type: ignore[arg-type]
        Claim(1, Role.SEER, 12, Colour.BLACK),
        Claim(1, Role.SEER, 2, 7),  # type: ignore[arg-type]
        Speak(0, "x"),
        Speak(10, "x"),
        Attack(2, [1]),  # type: ignore[arg-type]
    ]
    for action in bad:
        with pytest.raises(IllegalActionError):
            game.apply(action)  # type: ignore[arg-type]
        assert game.state_hash() == before
    assert not game.is_legal(Vote(1, 2))
    assert game.is_legal(Speak(1, "ok"))


def test_options_are_validated() -> None:
    """Rule options: a named, validated object; unknown or out-of-range values are refused."""
    with pytest.raises(ValidationError):
        WerewolfOptions(discussion_rounds=0)
    with pytest.raises(ValidationError):
        WerewolfOptions(no_such_rule=True)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        WerewolfOptions(madman_claims="sometimes")
    assert WerewolfOptions().madman_claims is MadmanClaims.LIKE_WEREWOLF


def test_option_attack_from_the_first_night() -> None:
    """Option attack_needs_execution=False: the wolves attack even after a day without execution."""
    game = new_game(SEER_DEAL, attack_needs_execution=False)
    start_day_one(game)
    pass_discussion(game)
    vote(game, {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4})
    vote(game, {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4})
    game.advance()
    assert 2 in game.to_act() and 3 in game.to_act()


def test_observation_and_view_agree() -> None:
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    obs = observe(game, 1)
    assert obs.role is Role.SEER and obs.partners == ()
    view = player_view(game, 1)
    assert view.private.role is Role.SEER and view.private.divine_results[0].target == 2
    assert observe(game, 2).partners == (3,)


def test_cmd_discussion_changes_no_player_record() -> None:
    """CMD_議論: 議論中にゲーム状態を変更する必要がない場合、PLAYER状態の変更禁止."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    before = [(p.R, p.L, p.U) for p in game.players[1:]]
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK, "P2は黒"))
    game.apply(RequestClaim(2, Role.SEER, "占い師は名乗り出ろ"))
    while game.awaiting_claim is not None:
        game.apply(Decline(game.to_act()[0]))
    while game.to_act():
        game.apply(Speak(game.to_act()[0], "..."))
    assert [(p.R, p.L, p.U) for p in game.players[1:]] == before
