"""Scenario files: the shipped ones load and cover the three systems; a broken file is
refused with an error that names the file, the place and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.adventure.scenario import (
    GameSystem,
    ScenarioError,
    get_scenario,
    load_scenario,
    shipped_scenarios,
)
from gm_engine.adventure.story import CheckRoller, Story, StoryError
from gm_engine.dice.source import SeededSource

MINIMAL = """
id = "tiny"
title = "小さな話"
system = "FastCombat"
intro = "はじまり"
brief = "GMだけが知ること"
start = "room"

[scenes.room]
title = "部屋"
text = "扉が一つある。"

[[scenes.room.exits]]
to = "hall"
label = "扉"
requires = ["opened"]

[[scenes.room.features]]
id = "lock"
label = "錠"
text = "古い錠。"
[scenes.room.features.check]
label = "錠を外す"
target = 10
[scenes.room.features.check.success]
set = ["opened"]
[scenes.room.features.check.failure]
text = "外れない。"

[[scenes.room.choices]]
id = "sleep"
label = "眠る"
[scenes.room.choices.outcome]
ending = "slept"

[scenes.hall]
title = "広間"
text = "出口だ。"
ending = "out"

[endings.out]
title = "外へ"
text = "外に出た。"

[endings.slept]
title = "眠り"
text = "眠った。"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_scenarios_cover_the_three_systems_with_several_endings() -> None:
    scenarios = shipped_scenarios()
    assert {s.system for s in scenarios.values()} == set(GameSystem)
    assert all(len(s.endings) > 1 for s in scenarios.values())


def test_the_minimal_file_is_valid(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, MINIMAL))
    story = Story(scenario, CheckRoller(scenario.system, SeededSource(0), lambda _: 0))
    assert "扉" in story.look().text
    assert story.move("hall").text == "今はそちらへは行けない。"  # blocked: the lock is not open
    with pytest.raises(StoryError):
        story.move("nowhere")
    before = story.state
    with pytest.raises(StoryError):
        story.examine("window")
    assert story.state == before  # a refused move changes nothing


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('to = "hall"', 'to = "cellar"', "scenes.room.exits: no scene 'cellar'"),
        ('ending = "slept"', 'ending = "dreamt"', "no ending 'dreamt'"),
        ('requires = ["opened"]', 'requires = ["unlocked"]', "the flag 'unlocked' is never set"),
        ("target = 10", 'skill = "鍵開け"', "a 3d6 行為判定 has a target"),
        ('start = "room"', 'start = "attic"', "start: no scene 'attic'"),
        (
            "[endings.slept]",
            '[endings.slept_too]\ntitle = "x"\ntext = "y"\n[endings.slept]',
            "endings.slept_too: cannot be reached",
        ),
        ('system = "FastCombat"', 'system = "Cthulhu7th"', "needs its [creation] choices"),
        ('system = "FastCombat"', 'system = "GURPS"', "system"),
        ('title = "部屋"', 'title = ""', "scenes.room.title"),
    ],
)
def test_a_broken_reference_is_refused_with_its_place(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in MINIMAL
    with pytest.raises(ScenarioError) as caught:
        load_scenario(write(tmp_path, MINIMAL.replace(old, new, 1)))
    assert str(caught.value).startswith("tiny.toml: ") and message in str(caught.value)


def test_a_lost_fight_without_an_ending_and_a_fight_outside_fast_combat_are_refused(tmp_path: Path) -> None:
    fight = """
[scenes.room.encounter]
kind = "雑魚戦"
enemy = "鼠"
intro = "鼠だ！"
[scenes.room.encounter.win]
text = "勝った"
[scenes.room.encounter.lose]
text = "負けた"
[scenes.room.encounter.flee]
goto = "room"
"""
    with pytest.raises(ScenarioError, match="a lost fight leaves the party fallen"):
        load_scenario(write(tmp_path, MINIMAL + fight))
    creation = '\n[creation]\n[[creation.occupations]]\nname = "a"\ntext = "b"\nhp = 5\nskills = {}\n'
    coc = (
        MINIMAL.replace('system = "FastCombat"', 'system = "Cthulhu7th"')
        .replace("target = 10", 'skill = "目星"')
        .replace("extras", "extras")
    )
    with pytest.raises(ScenarioError, match="fights need the fast-combat rules"):
        load_scenario(write(tmp_path, coc + fight.replace('text = "負けた"', 'ending = "slept"') + creation))


def test_a_file_that_is_not_toml_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"tiny\.toml: cannot read the scenario"):
        load_scenario(write(tmp_path, "id = [unclosed"))
    with pytest.raises(ScenarioError, match="known: goblin_shrine, grey_pass, manor_diary"):
        get_scenario("atlantis")
