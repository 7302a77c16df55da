"""The panel of an adventure table: the battle's pause in the rules' words, and under other
rules than fast combat the character's sheet (it said there was no character before)."""

from __future__ import annotations

from typing import Any

import pytest

from gm_engine.combat.state import Phase
from gm_engine.serve.seat_view import PHASE_LABELS, adventure_panel
from gm_engine.serve.tables import AdventureTableConfig, TableRuntime
from tests.memory_store import MemoryStore
from tests.test_serve_tables import fixed_seeds, wait_question


def test_every_pause_of_a_battle_has_japanese_words() -> None:
    assert set(PHASE_LABELS) == set(Phase)
    panel = adventure_panel((), 2, Phase.JUDGE)
    assert panel["battle"] == "ラウンド 2 / 戦闘ジャッジ" and panel["sheet"] is None
    assert adventure_panel((), 0, None)["battle"] is None


def made_character(scenario: str, answers: tuple[str, ...]) -> dict[str, Any]:
    """The panel once the character of ``scenario`` is made with ``answers``."""
    runtime = TableRuntime(MemoryStore(), seeds=fixed_seeds(3))
    try:
        created = runtime.create_table(AdventureTableConfig(scenario=scenario))
        live = runtime.live(created.table_id)
        assert live is not None
        first = wait_question(live)["panel"]
        assert isinstance(first, dict) and first["sheet"] is None  # nobody is made yet
        for line in answers:
            wait_question(live)
            live.submit(line)
        panel = wait_question(live)["panel"]
        assert isinstance(panel, dict)
        return panel
    finally:
        runtime.close()


@pytest.mark.parametrize(
    ("scenario", "answers", "name", "unit", "tn"),
    [
        ("manor_diary", ("マーロウ", "古書店主", "オカルト、説得"), "マーロウ", "%", False),
        ("grey_pass", ("ロサ", "1", "探索"), "ロサ", "d", True),
    ],
)
def test_a_scenario_under_other_rules_shows_the_characters_sheet(
    scenario: str, answers: tuple[str, ...], name: str, unit: str, tn: bool
) -> None:
    panel = made_character(scenario, answers)
    sheet = panel["sheet"]
    assert panel["party"] == [] and sheet is not None, panel
    assert sheet["name"] == name and sheet["occupation"] and sheet["hp"] > 0
    assert sheet["skills"] and all(skill.endswith(unit) for skill in sheet["skills"]), sheet
    assert (sheet["target_number"] is not None) == tn
