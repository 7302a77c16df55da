"""Legality is one rule: ``Game.refusal`` decides, ``apply`` raises what it returns and
``legal_actions`` offers exactly what it accepts.

For many random states (random legal play under random table options) and every near miss of
every kind for every seat (each target 0..10, each role 1..6, each result colour or none, ints
where the engine expects enums, a bool for a seat, a float target, an over-long text):

* ``refusal(a)`` is ``None`` exactly when ``a`` (text emptied) is among ``legal_actions``;
* ``apply(a)`` of a refused action raises the same error class naming the same rule with the
  same message, and leaves the state exactly as it was;
* ``apply(a)`` of an accepted action succeeds (checked on copies of the game).
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf import (
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Game,
    GameOverError,
    Guard,
    IllegalActionError,
    RequestClaim,
    Speak,
    StateResult,
    Vote,
    WerewolfOptions,
    with_text,
)
from gm_engine.werewolf.actions import Action
from gm_engine.werewolf.game import RULE_FORM, RULE_SEAT, RULE_TEXT
from gm_engine.werewolf.options import MadmanClaims
from gm_engine.werewolf.records import Colour, Role

TARGETS = range(11)  # 0 and 10 are not seats: near misses too
COLOURS: tuple[Colour | None, ...] = (None, Colour.WHITE, Colour.BLACK)


def near_misses(seat: int, text_limit: int) -> list[object]:
    """Every well-formed action of every kind for ``seat``, and a few malformed ones."""
    actions: list[object] = [Speak(seat, "x"), Decline(seat, "x")]
    for role in Role:
        actions.append(ChooseRole(seat, role))
        actions.append(RequestClaim(seat, role, "x"))
        for target in (None, *TARGETS):
            for colour in COLOURS:
                actions.append(Claim(seat, role, target, colour, "x"))
    for target in TARGETS:
        actions.append(Vote(seat, target, "x"))
        actions += [Attack(seat, target), Divine(seat, target), Guard(seat, target)]
        for result in (Colour.WHITE, Colour.BLACK):
            actions.append(StateResult(seat, target, result, "x"))
    # the same actions with plain ints where the engine hands out enums: as legal as the enums
    actions += [Claim(seat, 3, 2, 4), Claim(seat, 1), RequestClaim(seat, 3), RequestClaim(seat, 5)]  # type: ignore[arg-type]
    actions += [StateResult(seat, 2, 3), StateResult(seat, 4, 4), ChooseRole(seat, 2)]  # type: ignore[arg-type]
    # malformed: a bool or a float for a seat, an unknown role or colour, a text too long or no text
    actions += [Speak(True), Vote(True, 2), Vote(seat, 2.0), Attack(seat, False), Divine(seat, "3")]  # type: ignore[arg-type]
    actions += [Claim(seat, 7), Claim(seat, 3, 2, 5), StateResult(seat, 2, 2), RequestClaim(seat, 0)]  # type: ignore[arg-type]
    actions += [Speak(seat, "x" * (text_limit + 1)), Vote(seat, 2, None), Decline(seat, 5)]  # type: ignore[arg-type]
    actions += [Speak(0), Speak(10), Speak(-1), "speak", None, Speak]
    return actions


def as_offered(action: object, text_limit: int) -> object:
    """The action as legal_actions would list it (text emptied), or None when its own text
    could never be accepted (not a string, or too long)."""
    for name in ("actor", "target", "role", "colour"):
        value = getattr(action, name, None)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            return None  # True == 1 and 2.0 == 2, yet neither is a seat or a role
    if isinstance(action, (Speak, Decline, Claim, StateResult, RequestClaim, Vote)):
        text = action.reason if isinstance(action, Vote) else action.text
        if not isinstance(text, str) or len(text) > text_limit:
            return None
        return with_text(action, "")
    return action


def check_state(game: Game, rng: random.Random) -> int:
    """Check the rule against the menu and apply in ``game``'s state; return the number checked."""
    before = game.state_hash()
    checked = 0
    # the seats that must act, and two others (whose near misses are all refused)
    seats = sorted({*game.to_act(), *rng.sample(range(1, 10), 2)})
    for seat in seats:
        offered = game.legal_actions(seat)
        legal = set(offered)
        accepted: list[Action] = []
        for action in near_misses(seat, game.options.max_text_length):
            refusal = game.refusal(action)
            try:
                expected = as_offered(action, game.options.max_text_length)
                in_menu = expected in legal and type(action) in {type(a) for a in offered}
            except TypeError:  # unhashable junk
                in_menu = False
            assert (refusal is None) == in_menu, (action, refusal)
            assert game.is_legal(action) == (refusal is None)
            checked += 1
            if refusal is None:
                accepted.append(action)  # type: ignore[arg-type]
                continue
            with pytest.raises(IllegalActionError) as raised:
                game.apply(action)  # type: ignore[arg-type]
            assert type(raised.value) is type(refusal)
            assert raised.value.rule == refusal.rule, action
            assert str(raised.value) == str(refusal)
        # every offered action is accepted, and so is every accepted near miss
        for action in [
            *rng.sample(offered, min(2, len(offered))),
            *rng.sample(accepted, min(2, len(accepted))),
        ]:
            trial = copy.deepcopy(game)
            trial.apply(action)
        assert game.state_hash() == before  # the refusals changed nothing
    return checked


options_strategy = st.builds(
    WerewolfOptions,
    madman_claims=st.sampled_from(list(MadmanClaims)),
    discussion_rounds=st.integers(1, 2),
    attack_needs_execution=st.booleans(),
    max_text_length=st.sampled_from([5, 2000]),
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), options=options_strategy, every=st.integers(4, 10))
def test_apply_refuses_exactly_what_legal_actions_does_not_offer(
    seed: int, options: WerewolfOptions, every: int
) -> None:
    rng = random.Random(seed)
    game = Game.new(SeededSource(seed), options)
    step = 0
    checked = 0
    while not game.is_over and step < 400:
        if step % every == 0:
            checked += check_state(game, rng)
        seats = game.to_act()
        if not seats:
            game.advance()
        else:
            seat = rng.choice(seats)
            game.apply(rng.choice(game.legal_actions(seat)))
        step += 1
    assert game.is_over or step == 400
    checked += check_state(game, rng)  # and after the end: everything is GameOverError
    assert checked > 0


def test_the_malformed_near_misses_name_the_form_rules() -> None:
    game = Game.from_deal([3, 1, 1, 2, 2, 2, 4, 5, 6])
    rules = {
        Speak(True): RULE_FORM,
        Vote(1, 2.0): RULE_FORM,  # type: ignore[arg-type]
        Claim(1, 7): RULE_FORM,  # type: ignore[arg-type]
        StateResult(1, 2, 2): RULE_FORM,  # type: ignore[arg-type]
        Speak(1, "x" * 2001): RULE_TEXT,
        Decline(1, 5): RULE_TEXT,  # type: ignore[arg-type]
        Speak(0): RULE_SEAT,
        Divine(1, 10): RULE_SEAT,
    }
    for action, rule in rules.items():
        refusal = game.refusal(action)
        assert refusal is not None and refusal.rule == rule, action


def test_after_the_end_every_refusal_is_game_over() -> None:
    game = Game.new(SeededSource(5))
    rng = random.Random(5)
    while not game.is_over:
        seats = game.to_act()
        if seats:
            game.apply(rng.choice(game.legal_actions(seats[0])))
        else:
            game.advance()
    for action in near_misses(2, 2000):
        assert isinstance(game.refusal(action), GameOverError)


def test_an_accepted_near_miss_with_plain_ints_is_stored_as_the_enums() -> None:
    """``Claim(1, 3, 2, 4)`` (plain ints) is the legal ``Claim(1, Role.SEER, 2, Colour.BLACK)``,
    and the log holds the enums, so everything that shows it can name them."""
    game = Game.from_deal([3, 1, 1, 2, 2, 2, 4, 5, 6])
    game.apply(Divine(1, 2))
    game.advance()
    (entry,) = game.apply(Claim(1, 3, 2, 4, "P2は黒"))  # type: ignore[arg-type]
    assert entry.role is Role.SEER and entry.colour is Colour.BLACK  # type: ignore[union-attr]
