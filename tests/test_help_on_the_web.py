"""The helps of a table played on a web page (``gm serve``): a web table takes no ``/quit``
(the page is closed, and the table waits at its question), so no help offers it there; at
a terminal every help still lists it."""

from __future__ import annotations

import pytest

from gm_engine.llm.offline import OfflineBackend
from gm_engine.messages import render
from gm_engine.messages.texts import HelpLeaveThePage
from gm_engine.serve.tables import AdventureTableConfig, WerewolfTableConfig
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner

LEAVE = render(HelpLeaveThePage())


def _adventure_screen(options: dict[str, object], lines: list[str]) -> str:
    shown: list[str] = []
    human = ScriptedHuman(lines, when_done="/quit")
    spec = SessionSpec(kind="adventure", seed=1, options=options)
    get_runner("adventure")(spec, SessionIO(backend=OfflineBackend(), human=human, show=shown.append))
    return "\n".join(shown)


@pytest.mark.parametrize("web", [False, True])
def test_the_adventure_and_its_creation_help_say_how_to_stop_where_the_player_is(web: bool) -> None:
    options: dict[str, object] = {"scenario": "goblin_shrine", "web": web}
    # /help during the character's creation, then a hero, then /help in the adventure
    screen = _adventure_screen(options, ["/help", "アリア", "英雄", "おまかせ", "/help"])
    opening = "質問に答えてキャラクターを作ります"
    creation = next(line for line in screen.splitlines() if line.startswith(opening))
    assert "GMに話しかけてください" in screen  # the adventure's own help was shown
    if web:
        assert creation.endswith(LEAVE) and "/quit" not in creation
        assert "/quit" not in screen.split("GMに話しかけてください", 1)[1]
        assert screen.count(LEAVE) == 2
    else:
        assert creation.endswith("/quit で終了。")
        assert "  /quit    終了" in screen and LEAVE not in screen


def test_web_tables_are_recorded_as_played_on_a_web_page() -> None:
    assert WerewolfTableConfig().spec(1).options["web"] is True
    assert AdventureTableConfig().spec(1).options["web"] is True
