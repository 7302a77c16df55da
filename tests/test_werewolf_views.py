"""Secrecy of the views: noninterference over hidden roles and secret choices, and no hidden fact.

A seat's view may depend only on what the seat can observe. So, replaying the same actions:

* with the roles the seat cannot observe permuted, its view stays identical for as long as the
  public record stays identical (a different public record is itself public);
* with another seat's secret choice (a divine, a guard, a wolf's proposal) changed, the view of
  every seat not entitled to that secret stays identical while the public record does.
"""

from __future__ import annotations

from collections.abc import Callable

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf import Game, IllegalActionError, Role, observe, player_view
from gm_engine.werewolf.actions import Action, Attack, Divine, Guard
from gm_engine.werewolf.agents import offline_agents
from gm_engine.werewolf.game import Stage
from gm_engine.werewolf.records import COMPOSITION

Script = list[Action | None]  # None: an advance() step


def random_deal(source: SeededSource) -> list[int]:
    roles = [int(r) for r in COMPOSITION]
    for i in range(len(roles) - 1, 0, -1):
        j = source.roll(i + 1) - 1
        roles[i], roles[j] = roles[j], roles[i]
    return roles


def play(deal: list[int], seed: str) -> Script:
    source = SeededSource(seed)
    game = Game.from_deal(deal)
    agents = offline_agents(source)
    script: Script = []
    while not game.is_over:
        seats = game.to_act()
        if not seats:
            game.advance()
            script.append(None)
            continue
        for seat in seats:
            action = agents[seat].choose(observe(game, seat), game.legal_actions(seat))
            game.apply(action)
            script.append(action)
    return script


def step(game: Game, item: Action | None) -> bool:
    try:
        if item is None:
            game.advance()
        else:
            game.apply(item)
    except IllegalActionError:
        return False
    return True


def hidden_permutation(deal: list[int], seat: int, source: SeededSource, wide: bool) -> list[int]:
    """Permute the roles ``seat`` cannot observe (keeping what it does observe in place).

    ``wide`` moves every role the seat cannot see; otherwise only the roles without a night
    action (村人, 霊媒師, 狂人), so the replayed night actions stay legal for longer.
    """
    role = Role(deal[seat - 1])
    if not wide:
        quiet = (Role.VILLAGER, Role.MEDIUM, Role.MADMAN)
        movable = [s for s in range(1, 10) if s != seat and deal[s - 1] in quiet]
        if role is Role.MEDIUM:
            movable = [s for s in movable if deal[s - 1] != Role.MEDIUM]
    elif role in (Role.WEREWOLF, Role.SEER, Role.MEDIUM):
        # a wolf knows the wolves; a seer / medium learns colours: keep the wolves where they are
        movable = [s for s in range(1, 10) if s != seat and deal[s - 1] != Role.WEREWOLF]
    else:
        movable = [s for s in range(1, 10) if s != seat]
    roles = [deal[s - 1] for s in movable]
    for i in range(len(roles) - 1, 0, -1):
        j = source.roll(i + 1) - 1
        roles[i], roles[j] = roles[j], roles[i]
    permuted = list(deal)
    for s, r in zip(movable, roles, strict=True):
        permuted[s - 1] = r
    return permuted


def compare_worlds(look: Callable[[Game, int], object], games: int = 12) -> tuple[int, int, int]:
    """Replay agent games in role-permuted worlds; return (worlds, comparisons, mismatches)."""
    source = SeededSource("noninterference")
    compared = mismatches = worlds = 0
    for game_index in range(games):
        deal = random_deal(source)
        script = play(deal, f"ni:{game_index}")
        for seat, wide in [(s, w) for s in range(1, 10) for w in (True, False)]:
            other = hidden_permutation(deal, seat, source, wide)
            if other == deal:
                continue
            worlds += 1
            a, b = Game.from_deal(deal), Game.from_deal(other)
            for item in script:
                assert step(a, item)
                if not step(b, item) or a.public_log != b.public_log:
                    break  # the worlds part in public: nothing more to compare
                compared += 1
                if look(a, seat) != look(b, seat):
                    mismatches += 1
    return worlds, compared, mismatches


def test_noninterference_over_hidden_roles() -> None:
    """A seat's observation is the same when the roles it cannot observe are permuted."""
    worlds, compared, mismatches = compare_worlds(observe)
    assert mismatches == 0
    assert worlds > 100 and compared > 3000  # really exercised, not vacuously true


def test_noninterference_of_the_pydantic_views() -> None:
    """The same for the pydantic PlayerView that prompts and screens are built from."""
    _, compared, mismatches = compare_worlds(
        lambda game, seat: player_view(game, seat).model_dump_json(), games=3
    )
    assert mismatches == 0 and compared > 500


def test_noninterference_check_catches_a_leak() -> None:
    """The check is not vacuous: a view that leaked the deal would be caught."""

    def leaky(game: Game, seat: int) -> object:
        return observe(game, seat), tuple(game.players[s].R for s in range(1, 10))

    _, _, mismatches = compare_worlds(leaky, games=2)
    assert mismatches > 0


def _night_secret_alternatives(game: Game, item: Action) -> list[Action]:
    """Other legal choices of the same secret night action."""
    legal = game.legal_actions(item.actor)
    return [a for a in legal if type(a) is type(item) and a != item]


def test_noninterference_over_secret_night_choices() -> None:
    """Changing a divine / guard / attack proposal changes no view of a seat not entitled to it."""
    source = SeededSource("secret-choices")
    compared = 0
    for game_index in range(10):
        deal = random_deal(source)
        script = play(deal, f"sc:{game_index}")
        game = Game.from_deal(deal)
        for position, item in enumerate(script):
            if isinstance(item, (Divine, Guard, Attack)) and game.stage is Stage.NIGHT:
                for alternative in _night_secret_alternatives(game, item)[:3]:
                    entitled = {item.actor}
                    if isinstance(item, Attack):
                        entitled |= {s for s in range(1, 10) if deal[s - 1] == Role.WEREWOLF}
                    a, b = Game.from_deal(deal), Game.from_deal(deal)
                    changed = [*script[:position], alternative, *script[position + 1 :]]
                    for original, replaced in zip(script, changed, strict=True):
                        assert step(a, original)
                        if not step(b, replaced) or a.public_log != b.public_log:
                            break
                        for seat in range(1, 10):
                            if seat not in entitled:
                                assert observe(a, seat) == observe(b, seat)
                                compared += 1
                        if a.stage is Stage.DISCUSSION and original is None:
                            break  # the morning has been compared
            assert step(game, item)
    assert compared > 1000


def test_no_view_holds_a_hidden_fact() -> None:
    """Before the end, a seat's view holds no other seat's role and only its own secrets."""
    source = SeededSource("hidden-facts")
    checked = 0
    for game_index in range(8):
        deal = random_deal(source)
        script = play(deal, f"hf:{game_index}")
        game = Game.from_deal(deal)
        for index, item in enumerate(script):
            assert step(game, item)
            if index % 7 and not game.is_over:
                continue
            for seat in range(1, 10):
                role = Role(deal[seat - 1])
                dump = player_view(game, seat).model_dump(mode="json")
                kinds = [e["kind"] for e in dump["private"]["log"]]
                private_kinds = set(kinds)
                allowed = {"role_dealt", "action_taken"}
                if role is Role.SEER:
                    allowed.add("divine_result")
                if role is Role.MEDIUM:
                    allowed.add("medium_result")
                if role is Role.WEREWOLF:
                    allowed.add("attack_resolved")
                if role is Role.BODYGUARD:
                    allowed.add("guard_resolved")
                assert private_kinds <= allowed
                dealt = dump["private"]["log"][0]
                assert dealt["kind"] == "role_dealt" and dealt["role"] == role
                wolves = [s for s in range(1, 10) if deal[s - 1] == Role.WEREWOLF and s != seat]
                assert dump["private"]["partners"] == (wolves if role is Role.WEREWOLF else [])
                public_kinds = {e["kind"] for e in dump["public"]["log"]}
                assert not public_kinds & {
                    "role_dealt", "action_taken", "divine_result", "medium_result",
                    "attack_resolved", "guard_resolved",
                }
                if not game.is_over:
                    assert dump["public"]["final_roles"] is None
                    assert "game_ended" not in public_kinds
                # the view is the same whichever way it is asked for
                assert player_view(game, seat) == player_view(game, seat)
                checked += 1
    assert checked > 500


def test_view_of_public_facts_is_the_same_for_everyone() -> None:
    deal = [3, 1, 1, 2, 2, 2, 4, 5, 6]
    script = play(deal, "same-public")
    game = Game.from_deal(deal)
    for item in script:
        assert step(game, item)
        publics = {player_view(game, s).public.model_dump_json() for s in range(1, 10)}
        assert len(publics) == 1
        if game.stage is Stage.NIGHT:
            break
