"""The werewolf game under the English locale, piece by piece: the role prompt takes the roles'
English names, the offline narrator and what it is given are English, P1's auto-played vote
reason is a sentence, and a resumed game's screen is in one language."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.dice.source import SeededSource
from gm_engine.messages import placeholders, render
from gm_engine.messages.texts import NarratorMorning
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.narration import NarratorBook, load_narrator
from gm_engine.sessions.voices import default_phrases_dir
from gm_engine.sessions.werewolf import HumanSeat
from gm_engine.sessions.werewolf.facts import narrator_prompt
from gm_engine.werewolf import Game, WerewolfOptions, player_view
from gm_engine.werewolf.records import PERSONA_NAMES, Role


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


JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
#: The game's terms an English line keeps: the seats' names and the role names.
TERMS = sorted({*PERSONA_NAMES.values(), *(r.label for r in Role)}, key=len, reverse=True)


def _without_terms(line: str) -> str:
    for term in TERMS:
        line = line.replace(term, "")
    return line


def test_the_offline_narrator_speaks_the_tables_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    said = {}
    for locale in ("ja", "en"):
        out = _auto_game("7", locale, monkeypatch, capsys)
        said[locale] = [line for line in out.splitlines() if line.startswith("GM: ")]
    assert len(said["en"]) == len(said["ja"]) >= 3
    assert said["ja"][0] == "GM: ようこそ、ボードゲーム部の人狼へ！役職は配られました、楽しんでいきましょう。"
    assert said["en"][0].startswith("GM: Welcome to the board game club's werewolf table!")
    assert any("morning of day" in line for line in said["en"])
    assert [line for line in said["en"] if JAPANESE.search(_without_terms(line))] == []


def test_the_english_narrator_book_fills_the_same_places_as_the_japanese() -> None:
    directory = default_phrases_dir()
    ja, en = load_narrator(directory, "ja"), load_narrator(directory, "en")
    for name in NarratorBook.model_fields:
        ours, theirs = getattr(ja, name), getattr(en, name)
        if isinstance(ours, tuple):
            assert {p for line in ours for p in placeholders(line)} == {
                p for line in theirs for p in placeholders(line)
            }, name
            assert not any(JAPANESE.search(line) for line in theirs), name
    assert en.day(3) == "day 3" and ja.day(3) == "3日目"


def test_the_narrator_prompt_and_its_event_are_in_the_tables_language() -> None:
    game = Game.from_deal((3, 1, 1, 2, 2, 2, 4, 5, 6), WerewolfOptions(), "Player")
    while not game.to_act():
        game.advance()
    pub = player_view(game, 1).public
    english = narrator_prompt(pub, render(NarratorMorning(2), "en"), "en")
    assert "[Event] It is the morning of day 2." in english and "[Alive] Player, トウダ" in english
    assert not JAPANESE.search(_without_terms(english))
    japanese = narrator_prompt(pub, render(NarratorMorning(2), "ja"), "ja")
    assert "【出来事】2日目の朝になりました。" in japanese


#: Lines of English prose (two English words in a row), as the stop and resume lines are.
ENGLISH = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")


def _played_then_resumed(
    tmp_path: Path, played_in: str, resumed_in: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[str, str]:
    path = tmp_path / "game.jsonl"
    monkeypatch.setenv("GM_LOCALE", played_in)
    monkeypatch.setattr("sys.stdin", io.StringIO("/pass\n"))  # then end of input: Ctrl-D
    argv = ["werewolf", "play", "--plain", "--seed", "7", "--role", "2", "--record", str(path)]
    assert main(argv) == 0
    capsys.readouterr()
    monkeypatch.setenv("GM_LOCALE", resumed_in)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["resume", "--plain", str(path)]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_japanese_game_resumed_under_the_english_locale_stays_japanese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _played_then_resumed(tmp_path, "ja", "en", monkeypatch, capsys)
    lines = out.splitlines()
    assert lines[-2].startswith("— 中断（1日目）。記録は保存してあります。続きは `gm resume ")
    assert lines[-1].startswith("記録済みの") and "件の続きから再開し、0件を " in lines[-1]
    assert [line for line in lines if ENGLISH.search(line.replace("gm resume", ""))] == []
    assert err == ""


def test_an_english_game_resumed_under_the_japanese_locale_stays_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = _played_then_resumed(tmp_path, "en", "ja", monkeypatch, capsys)
    lines = out.splitlines()
    assert lines[-2].startswith("— left on day 1. The session is saved; continue it with `gm resume ")
    assert lines[-1].startswith("resumed after ") and "; 0 new events appended to " in lines[-1]
    assert not any("記録" in line or "中断" in line for line in lines)


def test_the_japanese_screen_says_resumed_in_japanese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = _played_then_resumed(tmp_path, "ja", "ja", monkeypatch, capsys)
    assert re.search(r"^記録済みの\d+件の続きから再開し、0件を \S+ に追記しました$", out, re.MULTILINE)
    assert "resumed after" not in out
