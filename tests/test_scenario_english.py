"""A scenario's ``en`` table: under the English locale each display text it names has its
English form (the skills alike in the occupations, the extras and the checks); the words a
line is matched by, the ids and the rules' values stay; the Japanese scenario is unchanged;
a translation of a text the scenario does not have is refused with its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.adventure.scenario import ScenarioError, get_scenario, load_scenario, localized
from tests.test_scenario_files import MINIMAL, write

ENGLISH = """
[en]
"部屋" = "The room"
"扉" = "the door"
"錠を外す" = "Picking the lock"
"外れない。" = "It does not give."
"""


def test_the_english_forms_replace_the_display_texts_and_nothing_else(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, MINIMAL + ENGLISH))
    english = localized(scenario, "en")
    room = english.scenes["room"]
    assert room.title == "The room" and room.exits[0].label == "the door"
    feature = room.features[0]
    assert feature.check is not None and feature.check.label == "Picking the lock"
    assert feature.check.failure.text == "It does not give."
    # a text without an English form, the ids, flags and the Japanese scenario stay as they are
    assert room.text == "扉が一つある。"
    assert room.exits[0].to == "hall" and room.exits[0].requires == ("opened",)
    assert scenario.scenes["room"].title == "部屋"
    assert localized(scenario, "ja") is scenario


def test_a_translation_of_a_text_the_scenario_lacks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"tiny\.toml: .*en: '台所' is no display text of the scenario"):
        load_scenario(write(tmp_path, MINIMAL + '\n[en]\n"台所" = "The kitchen"\n'))
    with pytest.raises(ScenarioError, match="en: '部屋' has an empty English text"):
        load_scenario(write(tmp_path, MINIMAL + '\n[en]\n"部屋" = " "\n'))


def test_the_skills_keep_meeting_their_checks_in_english() -> None:
    for scenario_id in ("manor_diary", "grey_pass"):
        scenario = get_scenario(scenario_id, "en")
        assert scenario.creation is not None
        skills = {name for o in scenario.creation.occupations for name in o.skills} | set(
            scenario.creation.extras
        )
        named = {c.skill for _, c in scenario.checks() if c.skill} | {
            c.second_skill for _, c in scenario.checks() if c.second_skill
        }
        assert named and named <= skills, named - skills
        assert all(name.isascii() for name in skills), skills
    # the words the player's lines are matched by are the file's own
    manor, english = get_scenario("manor_diary"), get_scenario("manor_diary", "en")
    assert english.scenes["office"].npcs[0].words == manor.scenes["office"].npcs[0].words
    assert english.scenes["office"].npcs[0].name == "Abigail"
