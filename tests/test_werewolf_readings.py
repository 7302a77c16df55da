"""The engine's readings that once differed from the rule document (issue 11), each checked
against the document's words (quoted in the test's docstring) and, where a table could
reasonably play otherwise, against its named rule option.
"""

from __future__ import annotations

import pytest

from gm_engine.werewolf import (
    Attack,
    Claim,
    ClaimResult,
    Colour,
    Decline,
    Divine,
    Game,
    Guard,
    IllegalActionError,
    RequestClaim,
    Role,
    Speak,
    StateResult,
    Vote,
    player_view,
)
from gm_engine.werewolf import game as rules
from gm_engine.werewolf.log import AttackResolved, ClaimMade, ResultStated
from gm_engine.werewolf.render import CUE_EXECUTION, PRE_DIVINATION_DONE, render_entries
from tests.test_werewolf_helpers import (
    SEER_DEAL,
    VILLAGER_DEAL,
    new_game,
    pass_discussion,
    start_day_one,
    vote_out,
)


def refused(game: Game, action: object, rule: str) -> None:
    before = game.state_hash()
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)  # type: ignore[arg-type]
    assert info.value.rule == rule
    assert game.state_hash() == before


def to_turn(game: Game, seat: int) -> None:
    while game.to_act() != [seat]:
        game.apply(Speak(game.to_act()[0], ""))


def night_one(game: Game, divine: int, guard: int, attack: int) -> None:
    """SEER_DEAL's first night: P1 divines, P7 guards, the living 人狼 attack; morning."""
    game.apply(Divine(1, divine))
    game.apply(Guard(7, guard))
    for wolf in game.to_act():
        game.apply(Attack(wolf, attack))
    game.advance()


# ---------------------------------------------------------------- a claim states its result


def test_a_real_seer_coming_out_of_its_own_accord_states_its_pre_divination() -> None:
    """CMD_CO要求: 「占い師が名乗り出る際は、事前占いの結果を発言すること」: every coming-out,
    not only an answer to a call."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    refused(game, Claim(1, Role.SEER), rules.RULE_CO_RESULT)
    assert Claim(1, Role.SEER) not in game.legal_actions(1)
    claims = [a for a in game.legal_actions(1) if isinstance(a, Claim)]
    assert claims == [Claim(1, Role.SEER, 2, Colour.BLACK)]
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))


def test_a_fake_seer_states_a_result_in_the_same_form() -> None:
    """A false 占い師 cannot be told apart by form: its claim carries a result too."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    to_turn(game, 2)
    refused(game, Claim(2, Role.SEER), rules.RULE_CO_RESULT)
    game.apply(Claim(2, Role.SEER, 5, Colour.BLACK))


def test_a_seer_coming_out_later_states_its_latest_result() -> None:
    """From day 2 on the document names no result; the engine reads it as the latest one."""
    game = new_game(SEER_DEAL)
    start_day_one(game, target=4)
    pass_discussion(game)
    vote_out(game, 9, 1)
    night_one(game, divine=2, guard=4, attack=5)
    to_turn(game, 1)
    claims = [a for a in game.legal_actions(1) if isinstance(a, Claim)]
    assert claims == [Claim(1, Role.SEER, 2, Colour.BLACK)]
    refused(game, Claim(1, Role.SEER, 4, Colour.WHITE), rules.RULE_CO_RESULT)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    # the earlier result can still be stated afterwards
    to_turn(game, 1)
    assert StateResult(1, 4, Colour.WHITE) in game.legal_actions(1)


def test_a_medium_coming_out_states_its_latest_result_once_it_has_one() -> None:
    """「霊媒師が名乗り出る際は、霊媒結果を発言すること」: on day 1 there is none to state."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    to_turn(game, 8)
    assert Claim(8, Role.MEDIUM) in game.legal_actions(8)  # day 1: no result exists yet
    pass_discussion(game)
    vote_out(game, 2, 3)
    night_one(game, divine=4, guard=1, attack=5)
    to_turn(game, 8)
    refused(game, Claim(8, Role.MEDIUM), rules.RULE_CO_RESULT)
    claims = [a for a in game.legal_actions(8) if isinstance(a, Claim)]
    assert claims == [Claim(8, Role.MEDIUM, 2, Colour.BLACK)]


def test_option_when_requested_keeps_the_older_reading() -> None:
    """``claim_result=when_requested``: only an answer to a CO要求 must carry the result."""
    game = new_game(SEER_DEAL, claim_result=ClaimResult.WHEN_REQUESTED)
    start_day_one(game, target=2)
    assert Claim(1, Role.SEER) in game.legal_actions(1)
    game.apply(Claim(1, Role.SEER))
    assert game.claims == {1: Role.SEER}


def test_a_later_co_request_reasks_a_claimant_without_a_result() -> None:
    """A 霊媒師 that came out on day 1 (no result yet) is asked again by day 2's 「霊媒師は
    名乗り出ろ」 and must now state its result; a fake who came out the same way too."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    to_turn(game, 3)
    game.apply(Claim(3, Role.MEDIUM))  # 人狼 P3, a fake
    to_turn(game, 8)
    game.apply(Claim(8, Role.MEDIUM))  # the real one
    pass_discussion(game)
    vote_out(game, 2, 3)  # 人狼 P2 leaves
    night_one(game, divine=4, guard=1, attack=5)
    to_turn(game, 4)
    game.apply(RequestClaim(4, Role.MEDIUM))
    answering = []
    while game.awaiting_claim is not None:
        seat = game.to_act()[0]
        answering.append(seat)
        if seat == 3:
            assert game.legal_actions(3) == [StateResult(3, 2, Colour.WHITE), StateResult(3, 2, Colour.BLACK)]
            refused(game, Decline(3), rules.RULE_CO_RESTATE)
            refused(game, Speak(3, "..."), rules.RULE_CO_FORCED)
            game.apply(StateResult(3, 2, Colour.WHITE))
        elif seat == 8:
            assert game.legal_actions(8) == [StateResult(8, 2, Colour.BLACK)]
            refused(game, Decline(8), rules.RULE_CO_RESTATE)
            game.apply(StateResult(8, 2, Colour.BLACK))
        else:
            game.apply(Decline(seat))
    assert answering == [6, 7, 8, 9, 1, 3, 4]  # seat order after the requester, P5 dead, P2 gone
    stated = [(r.speaker, r.target, r.colour) for r in player_view(game, 6).public.stated_results]
    assert stated == [(8, 2, Colour.BLACK), (3, 2, Colour.WHITE)]


def test_a_claimant_with_a_result_is_not_asked_again() -> None:
    game = new_game(SEER_DEAL, claim_result=ClaimResult.WHEN_REQUESTED)
    start_day_one(game, target=2)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK))
    to_turn(game, 4)
    game.apply(RequestClaim(4, Role.SEER))
    assert 1 not in _answerers(game)


def test_the_day_one_seer_call_reasks_a_seer_that_came_out_without_a_result() -> None:
    """Under ``when_requested`` a 占い師 may come out bare; the call then asks for the 事前占い."""
    game = new_game(SEER_DEAL, claim_result=ClaimResult.WHEN_REQUESTED)
    start_day_one(game, target=2)
    game.apply(Claim(1, Role.SEER))
    to_turn(game, 4)
    game.apply(RequestClaim(4, Role.SEER))
    while game.to_act() != [1]:
        game.apply(Decline(game.to_act()[0]))
    assert game.legal_actions(1) == [StateResult(1, 2, Colour.BLACK)]
    game.apply(StateResult(1, 2, Colour.BLACK))


def _answerers(game: Game) -> list[int]:
    seats = []
    while game.awaiting_claim is not None:
        seat = game.to_act()[0]
        seats.append(seat)
        game.apply(game.legal_actions(seat)[-1] if seat == 1 else Decline(seat))
    return seats


# ---------------------------------------------------------------- 事前占い's message


def test_pre_divination_message_is_shown_only_to_non_seers() -> None:
    """CMD_事前占い: 「{{user}}が占い師ではない時：「占い師が事前占いを完了しました」とだけ出力する」;
    the 占い師 is told its result."""
    game = new_game(SEER_DEAL)
    game.apply(Divine(1, 5))
    entries = game.advance()
    seer = render_entries(entries, player_view(game, 1))
    assert PRE_DIVINATION_DONE not in seer
    assert "（あなただけに）事前占いの結果：ミスノは白" in seer
    for seat in range(2, 10):
        assert PRE_DIVINATION_DONE in render_entries(entries, player_view(game, seat))
    other = new_game(VILLAGER_DEAL)
    other.apply(Divine(2, 3))
    assert render_entries(other.advance(), player_view(other, 1))[0] == PRE_DIVINATION_DONE


# ---------------------------------------------------------------- 【CMD_処刑】 after every tally


def test_execution_cue_follows_a_tally_that_goes_to_the_runoff_and_one_without_execution() -> None:
    """CMD_投票: 「投票結果を公開 投票後、【CMD_処刑】と表示」, whatever the tally decided."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    split = {1: 2, 2: 3, 3: 4, 4: 2, 5: 3, 6: 4, 7: 2, 8: 3, 9: 4}
    for seat in game.to_act():
        game.apply(Vote(seat, split[seat], "理由"))
    lines = render_entries(game.advance(), player_view(game, 1))
    assert lines.index(CUE_EXECUTION) == lines.index("【投票集計】") + 4  # after the three counts
    assert lines[-1] == "投票先を決めてください"  # then the runoff opens
    for seat in game.to_act():
        game.apply(Vote(seat, split[seat] if split[seat] != seat else 2, "理由"))
    lines = render_entries(game.advance(), player_view(game, 1))
    assert CUE_EXECUTION in lines
    assert lines.index(CUE_EXECUTION) < lines.index("決選投票も同票のため、本日の処刑はありません。")
    assert lines[-1] == "【CMD_勝敗判定】"


# ---------------------------------------------------------------- a result stated without words


def test_a_result_stated_without_words_names_its_speaker() -> None:
    game = new_game(SEER_DEAL)
    start_day_one(game, target=2)
    game.apply(Claim(1, Role.SEER, 2, Colour.BLACK, "占い師です"))
    pass_discussion(game)
    vote_out(game, 9, 1)
    night_one(game, divine=4, guard=1, attack=5)
    to_turn(game, 1)
    entries = game.apply(StateResult(1, 4, Colour.WHITE))
    assert isinstance(entries[0], ResultStated)
    assert render_entries(entries, player_view(game, 6)) == ["（あなたの占い師結果：アオトは白）"]
    to_turn(game, 3)
    claim = game.apply(Claim(3, Role.MEDIUM, 9, Colour.WHITE))
    assert isinstance(claim[0], ClaimMade)
    assert render_entries(claim, player_view(game, 6)) == ["（ヒミヤが霊媒師CO 結果：イスイは白）"]


# ---------------------------------------------------------------- a dead 人狼 learns nothing


def test_a_dead_werewolf_does_not_learn_the_nights_attack() -> None:
    """CMD_夜開始: 「死亡している能力者は能力を使用できない」: the executed 人狼 takes no part
    in the night, and the attack's outcome reaches the living 人狼 only."""
    game = new_game(SEER_DEAL)
    start_day_one(game)
    pass_discussion(game)
    vote_out(game, 2, 3)  # 人狼 P2 leaves the table
    game.apply(Divine(1, 4))
    game.apply(Guard(7, 1))
    game.apply(Attack(3, 5))
    game.advance()
    learned = [e for e in game.private_logs[3] if isinstance(e, AttackResolved)]
    assert learned == [AttackResolved(2, 5, 3, True)]
    assert not any(isinstance(e, AttackResolved) for e in game.private_logs[2])
    assert not any("襲撃" in line for line in _facts(game, 2))


def _facts(game: Game, seat: int) -> list[str]:
    from gm_engine.sessions.werewolf.facts import fact_lines

    view = player_view(game, seat)
    return fact_lines(view.private, view.public)


def test_the_offline_agent_answers_a_reasking_with_its_result() -> None:
    """The offline agents (and so the fallback) answer the re-asking with a legal statement."""
    from gm_engine.dice.source import SeededSource
    from gm_engine.werewolf import observe
    from gm_engine.werewolf.agents import OfflineAgent

    game = new_game(SEER_DEAL)
    start_day_one(game)
    to_turn(game, 3)
    game.apply(Claim(3, Role.MEDIUM))
    to_turn(game, 8)
    game.apply(Claim(8, Role.MEDIUM))
    pass_discussion(game)
    vote_out(game, 2, 3)
    night_one(game, divine=4, guard=1, attack=5)
    to_turn(game, 4)
    game.apply(RequestClaim(4, Role.MEDIUM))
    agents = {s: OfflineAgent(s, SeededSource(f"reask/{s}")) for s in range(1, 10)}
    while game.awaiting_claim is not None:
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        chosen = agents[seat].choose(observe(game, seat), legal)
        if seat in (3, 8):
            assert isinstance(chosen, StateResult)
        game.apply(chosen)
    assert {r.speaker for r in player_view(game, 6).public.stated_results} == {3, 8}
