"""The werewolf game under the English locale, piece by piece: the role prompt takes the roles'
English names, the offline narrator and what it is given are English, P1's auto-played vote
reason is a sentence, and a resumed game's screen is in one language."""

from __future__ import annotations

import re

import pytest

from gm_engine.cli import main
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


def _auto_game(seed: str, locale: str, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str], *more: str) -> str:
    monkeypatch.setenv("GM_LOCALE", locale)
    assert main(["werewolf", "play", "--auto", "--plain", "--seed", seed, *more]) == 0
    return capsys.readouterr().out


def test_the_auto_played_seat_gives_a_reason_for_its_vote_in_english_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reasons = {}
    for locale, name in (("ja", "プレイヤー"), ("en", "Player")):
        out = _auto_game("7", locale, monkeypatch, capsys)
        reasons[locale] = re.findall(rf"^{name} → \S+?\((.*)\)$", out, re.MULTILINE)
    assert reasons["en"] and reasons["en"] == reasons["ja"]  # the same words at either table
    assert not any(re.fullmatch(r"P\d", reason) for reason in reasons["en"])
