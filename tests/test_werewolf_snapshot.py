"""The public snapshot of a game, the numbers of the records module and the one interning table.

* ``Game.snapshot()`` is a frozen value of what everyone knows, shared until the public state
  changes (a secret vote or night choice changes nothing in it), and ``views.observe`` is built
  from it: it reads no private field of ``Game``.
* The record numbers are plain int constants defined once in ``records``; no werewolf module
  copies enum members into module globals.
* One interning table, bounded, one eviction rule.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf import Game, PublicSnapshot, Role, Stage, Vote, interning, observe, records, views
from gm_engine.werewolf.agents import offline_agents
from gm_engine.werewolf.log import Executed

from .test_werewolf_helpers import SEER_DEAL, pass_discussion, start_day_one

PACKAGE = Path(views.__file__).parent


def test_observe_reads_no_private_field_of_game() -> None:
    tree = ast.parse(inspect.getsource(views.observe))
    private = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "game"
        and node.attr.startswith("_")
    ]
    assert private == []


def test_the_observation_is_the_snapshot_with_the_seat_and_its_own_log() -> None:
    game = Game.from_deal(SEER_DEAL)
    start_day_one(game)
    snapshot = game.snapshot()
    obs = observe(game, 4)
    assert obs[1:-1] == tuple(snapshot)
    assert obs.seat == 4 and obs.private_log == tuple(game.private_logs[4])
    assert snapshot.stage is Stage.DISCUSSION and snapshot.day == 1
    assert snapshot.current_speaker == 1 and snapshot.alive[1:] == (True,) * 9
    assert snapshot.public_log == tuple(game.public_log)


def test_the_snapshot_is_frozen_and_shared_until_the_public_state_changes() -> None:
    game = Game.from_deal(SEER_DEAL)
    start_day_one(game)
    first = game.snapshot()
    assert game.snapshot() is first
    with pytest.raises(AttributeError):
        first.day = 3  # type: ignore[misc]
    pass_discussion(game)  # and the vote opens
    opened = game.snapshot()
    assert opened is not first and opened.stage is Stage.VOTE and opened.candidates == tuple(range(1, 10))
    game.apply(Vote(1, 2, "secret until the tally"))
    assert game.snapshot() is opened  # a vote is secret: nothing public changed
    assert first.stage is Stage.DISCUSSION  # an old snapshot keeps its values


def test_the_snapshot_follows_claims_executions_and_the_end() -> None:
    game = Game.new(SeededSource(11))
    agents = offline_agents(SeededSource(12))
    while not game.is_over:
        seats = game.to_act()
        if not seats:
            game.advance()
            continue
        for seat in seats:
            game.apply(agents[seat].choose(observe(game, seat), game.legal_actions(seat)))
        snapshot = game.snapshot()
        assert snapshot.claims == tuple(game.claims.items())
    snapshot = game.snapshot()
    executed = tuple((e.day, e.seat) for e in game.public_log if isinstance(e, Executed))
    assert snapshot.executions == executed
    assert snapshot.winner is not None and snapshot.winner == game.winner
    assert snapshot.stage is Stage.ENDED


def test_the_snapshot_holds_no_role_and_the_referee_reads_the_deal_apart() -> None:
    assert not {"roles", "players", "records", "votes"} & set(PublicSnapshot._fields)
    game = Game.new(SeededSource(1))
    assert game.dealt_roles() is None
    game = Game.from_deal(SEER_DEAL)
    assert game.dealt_roles() == tuple(Role(r) for r in SEER_DEAL)


def test_no_werewolf_module_copies_enum_members_into_globals() -> None:
    """``_ROLE_SEER = Role.SEER`` style copies are gone: modules import records' int constants."""
    enums = {"Role", "Colour", "Life", "TimeOfDay", "Step", "Ability", "RecordValue", "Team", "Stage"}
    copies = []
    for path in PACKAGE.glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id in enums
            ):
                copies.append(f"{path.name}:{node.lineno}")
    assert copies == []


def test_the_record_constants_are_the_enum_numbers() -> None:
    assert [records.WEREWOLF, records.VILLAGER, records.SEER] == [Role.WEREWOLF, Role.VILLAGER, Role.SEER]
    assert type(records.SEER) is int and records.ROLES[records.MEDIUM] is Role.MEDIUM
    assert records.STAGES[records.STAGE_VOTE] is Stage.VOTE and len(records.STAGES) == len(Stage)
    assert [records.WHITE, records.BLACK] == [records.Colour.WHITE, records.Colour.BLACK]


def test_one_interning_table_bounded_by_one_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interning, "LIMIT", 50)
    first = interning.interned(Vote, 1, 2, "because")
    assert interning.interned(Vote, 1, 2, "because") is first
    for n in range(500):
        interning.interned(Vote, 1, 2, f"reason {n}")
        assert interning.size() <= 50
    again = interning.interned(Vote, 1, 2, "because")
    assert again == first  # emptied since, so maybe another instance, always an equal one
