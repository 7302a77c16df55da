"""``gm werewolf play``'s options refused by the session's own checks (a name it cannot use,
a deal that is not the composition, --role against --deal) are explained in the player's
language: English under GM_LOCALE=en, with only the rules' role names left in Japanese; the
Japanese screen keeps the rules' wording."""

from __future__ import annotations

import re

import pytest

from gm_engine.cli import main
from gm_engine.werewolf.records import Role

JAPANESE = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")


def _refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(["werewolf", "play", "--no-record", "--auto", *argv])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    return out + err


@pytest.mark.parametrize(
    ("argv", "english", "japanese"),
    [
        (["--name", "  "], 'the name "" cannot be used', "名前「」は使えません"),
        (["--name", "シセン"], 'the name "シセン" cannot be used', "名前「シセン」は使えません"),
        (
            ["--deal", "1,1,1,1,1,1,1,1,1"],
            "1,1,1,1,1,1,1,1,1 is not the rules' nine roles",
            "役職の構成が違います",
        ),
        (
            ["--deal", "3,1,1,2,2,2,4,5,6", "--role", "2"],
            "--role 2 and --deal (P1 = 3) disagree",
            "食い違っています",
        ),
    ],
)
def test_the_sessions_own_option_checks_speak_the_players_language(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    english: str,
    japanese: str,
) -> None:
    monkeypatch.setenv("GM_LOCALE", "en")
    shown = _refusal(capsys, argv)
    assert english in shown and "the game's options are not valid" in shown, shown
    # what may stay Japanese: the rules' role names and the persona's name the player typed
    rest = shown
    for word in sorted([*(r.label for r in Role), *argv], key=len, reverse=True):
        rest = rest.replace(word, "")
    assert not JAPANESE.search(rest), shown
    monkeypatch.setenv("GM_LOCALE", "ja")
    assert japanese in _refusal(capsys, argv)
