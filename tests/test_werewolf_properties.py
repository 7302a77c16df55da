"""Property tests: random sequences of legal and illegal actions keep the game's invariants.

* the composition never changes; the dead never act; a night has at most one DIVINE, one
  GUARD, one ATTACK proposal per living wolf and one ATTACK / MEDIUM record;
* a rejected action leaves the state exactly as it was; nothing is accepted after the end;
* the engine's own lists agree with it (legal_actions vs to_act vs is_legal);
* the same seed and the same choices give the same game.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf import (
    COMPOSITION,
    Attack,
    ChooseRole,
    Claim,
    Colour,
    Decline,
    Divine,
    Game,
    GameOverError,
    Guard,
    IllegalActionError,
    RequestClaim,
    Role,
    Speak,
    StateResult,
    Vote,
    with_text,
)
from gm_engine.werewolf.actions import Action
from gm_engine.werewolf.game import Stage
from gm_engine.werewolf.options import MadmanClaims, WerewolfOptions
from gm_engine.werewolf.records import Ability, Life


def wild_action(n: int) -> Action:
    """A structurally valid action from a number: mostly illegal at any given moment."""
    kind, n = n % 10, n // 10
    actor, n = n % 11, n // 11
    target, n = n % 11, n // 11
    role = Role(n % 6 + 1)
    colour = Colour.WHITE if n % 2 else Colour.BLACK
    if kind == 0:
        return ChooseRole(actor, role)
    if kind == 1:
        return Speak(actor, "wild")
    if kind == 2:
        return Claim(actor, role, target if n % 3 else None, colour if n % 3 else None)
    if kind == 3:
        return StateResult(actor, target, colour)
    if kind == 4:
        return RequestClaim(actor, role)
    if kind == 5:
        return Decline(actor)
    if kind == 6:
        return Vote(actor, target, "wild")
    if kind == 7:
        return Attack(actor, target)
    if kind == 8:
        return Divine(actor, target)
    return Guard(actor, target)


def run(seed: int, choices: list[int], options: WerewolfOptions) -> tuple[Game, int]:
    """Drive a game by ``choices``; check the invariants at every step; return it and the rejections."""
    game = Game.new(SeededSource(seed), options)
    rejected = 0
    night_counts: dict[str, int] = {}
    proposals: set[int] = set()
    for choice in choices:
        if game.is_over:
            break
        before = game.state_hash()
        stage = game.stage
        if stage in (Stage.NIGHT_START,):
            night_counts, proposals = {}, set()
        if choice % 4 == 0:
            action = wild_action(choice // 4)
        else:
            seats = game.to_act()
            if not seats:
                game.advance()
                check(game)
                continue
            seat = seats[choice % len(seats)]
            legal = game.legal_actions(seat)
            assert legal, f"P{seat} must act but has no legal action"
            action = with_text(legal[(choice // 7) % len(legal)], f"t{choice}")
        was_alive = game.is_alive(action.actor) if 1 <= action.actor <= 9 else False
        legal_before = game.legal_actions(action.actor) if 1 <= action.actor <= 9 else []
        try:
            game.apply(action)
        except IllegalActionError:
            rejected += 1
            assert game.state_hash() == before
            assert with_text(action, "") not in legal_before
            continue
        assert with_text(action, "") in legal_before
        if not isinstance(action, ChooseRole):
            assert was_alive, "a dead seat acted"
        if stage is Stage.NIGHT:
            name = type(action).__name__
            if isinstance(action, Attack):
                assert action.actor not in proposals
                proposals.add(action.actor)
            else:
                night_counts[name] = night_counts.get(name, 0) + 1
                assert night_counts[name] <= 1
        check(game)
    return game, rejected


def check(game: Game) -> None:
    if game.stage not in (Stage.CHOOSE_ROLE, Stage.DEAL):
        assert sorted(game.role_of(s) for s in range(1, 10)) == sorted(COMPOSITION)
    for seat in range(1, 10):
        legal = game.legal_actions(seat)
        assert bool(legal) == (seat in game.to_act())
        if game.players[seat].L == Life.DEAD and game.stage is not Stage.CHOOSE_ROLE:
            assert legal == []
        for action in legal[:5]:
            assert game.is_legal(action)
    assert set(game.records) <= set(Ability)
    if game.stage is Stage.NIGHT:
        wolves = [s for s in game.living() if game.role_of(s) is Role.WEREWOLF]
        all_proposed = all(w in game._attack_proposals for w in wolves)
        assert (Ability.ATTACK in game.records) == (bool(wolves) and game._attack_tonight and all_proposed)


options_strategy = st.builds(
    WerewolfOptions,
    madman_claims=st.sampled_from(list(MadmanClaims)),
    discussion_rounds=st.integers(1, 2),
    attack_needs_execution=st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    choices=st.lists(st.integers(0, 10**6), min_size=50, max_size=400),
    options=options_strategy,
)
def test_random_sequences_keep_the_invariants(
    seed: int, choices: list[int], options: WerewolfOptions
) -> None:
    game, _ = run(seed, choices, options)
    again, _ = run(seed, choices, options)
    assert again.state_hash() == game.state_hash()  # same seed, same choices, same game


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), tail=st.lists(st.integers(0, 10**6), min_size=20, max_size=60))
def test_nothing_after_the_end(seed: int, tail: list[int]) -> None:
    choices = [1 + 4 * i for i in range(3000)]  # legal moves only: the game runs to its end
    game, rejected = run(seed, choices, WerewolfOptions())
    assert game.is_over and rejected == 0
    before = game.state_hash()
    for n in tail:
        try:
            game.apply(wild_action(n))
        except GameOverError:
            pass
        else:  # pragma: no cover - a failure path
            raise AssertionError("an action was accepted after the end")
    assert game.state_hash() == before
    assert game.to_act() == [] and all(game.legal_actions(s) == [] for s in range(1, 10))


def _every_discussion_action(seat: int) -> list[Action]:
    actions: list[Action] = [Speak(seat), Decline(seat)]
    for role in Role:
        actions.append(RequestClaim(seat, role))
        actions.append(Claim(seat, role))
        for target in range(1, 10):
            for colour in Colour:
                actions.append(Claim(seat, role, target, colour))
    for target in range(1, 10):
        for colour in Colour:
            actions.append(StateResult(seat, target, colour))
    return actions


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(0, 400))
def test_the_rule_accepts_exactly_the_enumerated_actions(seed: int, length: int) -> None:
    """The legality rule (``refusal``) accepts exactly the enumerated legal actions."""
    game, _ = run(seed, [1 + 4 * i for i in range(length)], WerewolfOptions())
    for seat in range(1, 10):
        legal = set(game.legal_actions(seat))
        for action in _every_discussion_action(seat):
            assert (game.refusal(action) is None) == (action in legal), action
            assert game.is_legal(action) == (action in legal), action
