"""The werewolf game under the English locale, piece by piece: the role prompt takes the roles'
English names, the offline narrator and what it is given are English, P1's auto-played vote
reason is a sentence, and a resumed game's screen is in one language."""

from __future__ import annotations

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.werewolf import HumanSeat
from gm_engine.werewolf import Game, WerewolfOptions
from gm_engine.werewolf.records import Role


@pytest.mark.parametrize(
    ("typed", "role"),
    [
        ("seer", Role.SEER), ("Seer", Role.SEER), ("the seer", Role.SEER),
        ("werewolf", Role.WEREWOLF), ("wolf", Role.WEREWOLF), ("A Wolf.", Role.WEREWOLF),
        ("villager", Role.VILLAGER),
        ("bodyguard", Role.BODYGUARD), ("hunter", Role.BODYGUARD), ("knight", Role.BODYGUARD),
        ("medium", Role.MEDIUM), ("madman", Role.MADMAN), ("possessed", Role.MADMAN),
        ("ＳＥＥＲ", Role.SEER),
    ],
)
def test_the_role_prompt_takes_the_english_names(typed: str, role: Role) -> None:
    for locale in ("en", "ja"):
        game = Game.new(SeededSource(3), WerewolfOptions(), "Player")
        screen: list[str] = []
        seat = HumanSeat(game, ScriptedHuman([typed], when_done=None), screen.append,
                         lambda _, __: None, locale)
        seat.choose_role()
        assert game.role_of(1) is role and screen == []


def test_a_word_that_is_no_role_is_still_refused_in_english() -> None:
    game = Game.new(SeededSource(3), WerewolfOptions(), "Player")
    screen: list[str] = []
    seat = HumanSeat(game, ScriptedHuman(["seers", "3"], when_done=None), screen.append,
                     lambda _, __: None, "en")
    seat.choose_role()
    assert game.role_of(1) is Role.SEER
    assert len(screen) == 1 and screen[0].startswith("'seers' is not a role number")
