"""The state hash is the SHA-256 of the canonical JSON of ``Game.to_dict()``, whatever the
engine does to make it cheap (each log entry's text is made once and spliced in)."""

from __future__ import annotations

import hashlib
import json

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.werewolf import Game, observe
from gm_engine.werewolf.agents import offline_agents
from gm_engine.werewolf.simulate import LazyLegal


def plain_hash(game: Game) -> str:
    text = json.dumps(game.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("seed", ["hash:1", "hash:2", "hash:3"])
def test_state_hash_is_the_hash_of_the_whole_state_at_every_step(seed: str) -> None:
    source = SeededSource(seed)
    game = Game.new(source)
    agents = offline_agents(source, talk=True)  # speeches with free text go into the logs too
    legal = {seat: LazyLegal(game, seat) for seat in agents}
    steps = 0
    while not game.is_over:
        assert game.state_hash() == plain_hash(game)
        seats = game.to_act()
        if not seats:
            game.advance()
            continue
        for seat in seats:
            game.apply(agents[seat].choose(observe(game, seat), legal[seat]))
        steps += 1
    assert game.state_hash() == plain_hash(game)
    assert steps > 10

