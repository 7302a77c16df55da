"""Under GM_LOCALE=en the solo adventure speaks English on the player's terminal: played
through a pseudo-terminal as a player types, a whole scenario (its fights included) to an
ending, a fight whose spells are declared, channelled and warded, the free-form adventure
through its fight, and ``gm combat demo``'s fight (再生, 【予見】, 【治癒】) leave no
Japanese on the screen except the rules' own terms.

What may stay Japanese is listed exactly, not guessed by a threshold: a scenario's display
texts that its file gives no English form (none in the shipped ones: their titles, prose,
labels, names and skills have one), the rules' terms the English catalogue keeps on
purpose (ranks, spells, weapons, armour, shields, the character-creation modes), the demo
fight's names, and what the player typed (echoed by the terminal). Each line of the screen
with those removed must hold no Japanese character.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest

from gm_engine.adventure.scenario import display_texts, get_scenario, scenarios_dir
from gm_engine.cli.combat import demo_encounter, demo_party
from gm_engine.combat.equipment import ARMOURS, WEAPONS, Shield
from gm_engine.combat.ranks import Rank
from gm_engine.combat.spells import Spell
from tests.pty_run import PtyRun

#: A Japanese character: kana, CJK ideographs, CJK and full-width punctuation.
JAPANESE = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
#: Terminal control sequences (colours, cursor) rich and the line discipline write.
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")

#: The rules' own terms, kept in the English texts on purpose (as the rules document names them).
RULE_TERMS: tuple[str, ...] = (
    *(r.value for r in Rank),
    *(s.label for s in Spell),
    *(s.value for s in Spell),
    *WEAPONS,
    *ARMOURS,
    *(s.value for s in Shield),
    "おまかせ",
    "未選択",
    "自分で選ぶ",
)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        yield from value.splitlines()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def scenario_strings(scenario_id: str) -> tuple[str, ...]:
    """Every string the scenario's file holds (and each line of a many-line one)."""
    path = scenarios_dir() / f"{scenario_id}.toml"
    assert get_scenario(scenario_id).id == scenario_id  # the file of that name is the scenario
    return tuple(_strings(tomllib.loads(path.read_text(encoding="utf-8"))))


def untranslated(scenario_id: str) -> tuple[str, ...]:
    """The scenario's display texts its file gives no English form (and their lines)."""
    scenario = get_scenario(scenario_id)
    english = scenario.en
    return tuple(
        line
        for text in display_texts(scenario.model_dump(mode="json"))
        if text and text not in english
        for line in (text, *text.splitlines())
    )


def japanese_left(screen: str, allowed: tuple[str, ...]) -> list[str]:
    """The lines of ``screen`` that hold Japanese once every allowed string is taken out."""
    ordered = sorted({a for a in allowed if a}, key=len, reverse=True)
    left = []
    for line in ANSI.sub("", screen).splitlines():
        rest = line
        for text in ordered:
            if text in rest:
                rest = rest.replace(text, "")
        if JAPANESE.search(rest):
            left.append(line)
    return left


def play(args: list[str], lines: list[str], *, limit: int, in_fights: tuple[str, ...] = ()) -> str:
    """``gm adventure ARGS`` under GM_LOCALE=en on a terminal, as a player types: while a
    fight is on (a BATTLE_SETUP shown and its end not yet) each of ``in_fights`` once, then
    "attack"; else the next of ``lines``; once they are all typed, "/quit" (at most
    ``limit`` answers in all)."""
    run = PtyRun(["adventure", "--no-record", *args], env={"GM_LOCALE": "en"})
    start = 0
    pending = list(lines)
    fight_moves = list(in_fights)
    for _ in range(limit):
        try:
            found = run.read_until(b"you> ", start=start, limit_s=60.0)
        except AssertionError:
            break  # the adventure ended: no prompt came again
        shown = run.output[:found]
        in_fight = shown.rfind(b"[BATTLE_SETUP]") > shown.rfind(b"[End of the battle]")
        start = found + len(b"you> ")
        if in_fight:
            line = fight_moves.pop(0) if fight_moves else "attack"
        else:
            line = pending.pop(0) if pending else "/quit"
        run.send((line + "\n").encode())
    code, output = run.finish()
    assert code == 0, output.decode("utf-8", "replace")[-2000:]
    assert not pending, "the adventure ended before every line was typed"
    return output.decode("utf-8", "replace")


#: goblin_shrine in English words, to its best ending: a mob fight in the forest, the gate's
#: elite, the boss in the lair, then the seal.
SHRINE = [
    "Aria", "hero", "auto", "ask the elder about the goblin", "talk to the elder",
    "go to the forest", "go to the gate", "go to the courtyard", "go to the lair",
    "use the charm on the stone",
]  # fmt: skip


def test_a_scenario_with_its_fights_is_english_on_the_terminal() -> None:
    # the first fight also declares a target and asks for the status, as a player might
    moves = ("attack GoblinA", "status")
    screen = play(["--scenario", "goblin_shrine", "--seed", "1"], SHRINE, limit=120, in_fights=moves)
    plain = ANSI.sub("", screen)
    # it went where it should: three fights and the seal's ending
    assert plain.count("[BATTLE_SETUP] round 1") == 3, plain[-3000:]
    assert "<BATTLE_JUDGE LOG> round 1" in plain and "[End of the battle] the PCs win" in plain
    assert "<Ending: " in plain
    assert "[Session status]" in plain and "Ways on: " in plain
    assert "- Target: GoblinA" in plain and "In a fight: round " in plain
    assert "Hazel" in plain and "Chief Garg" in plain  # the scenario's English forms
    allowed = (*untranslated("goblin_shrine"), *RULE_TERMS, *SHRINE, *moves)
    assert japanese_left(screen, allowed) == []


def test_every_shipped_scenario_gives_each_display_text_an_english_form() -> None:
    for scenario_id in ("goblin_shrine", "manor_diary", "grey_pass"):
        assert untranslated(scenario_id) == ()
        english = get_scenario(scenario_id, "en").model_dump(mode="json")
        assert japanese_left("\n".join(display_texts(english)), RULE_TERMS) == []


#: goblin_shrine with spells of the player's choosing, cast in its fights: 【崩壊】 (channelled
#: into the next round), 【蘇生】 ahead of time (a ward), 【予見】 at ROLL, 【治癒】.
SPELLS = [
    "Aria", "hero", "custom", "5", "3", "1", "collapse, revive, foresight, fireball, heal",
    *SHRINE[3:],
]  # fmt: skip
SPELL_MOVES = (
    "cast collapse", "cast revive on Aria", "attack", "cast foresight", "attack", "attack", "attack",
    "cast heal on Aria",
)  # fmt: skip


def test_a_fight_with_spells_is_english_on_the_terminal() -> None:
    screen = play(["--scenario", "goblin_shrine", "--seed", "1"], SPELLS, limit=140, in_fights=SPELL_MOVES)
    plain = ANSI.sub("", screen)
    assert "- Magic: slots (5/5) / 【崩壊】, 【蘇生】, 【予見】, 【火弾】, 【治癒】" in plain
    for line in (
        "- Aria casts 【崩壊】",
        "- Aria: spell slots 5 → 4",
        "- 【崩壊】 being channelled: it goes off in round 2",
        "- Aria casts 【蘇生】 (on Aria)",
        "- 【蘇生】: Aria's next life-or-death check passes automatically",
        "- 【予見】: the last combat dice were discarded and rolled again, as many dice",
        "- Aria casts 【治癒】 (on Aria)",
        "+ 【崩壊】(Aria) 1d6+3",
    ):
        assert line in plain, line
    assert "<Ending: " in plain
    allowed = (*untranslated("goblin_shrine"), *RULE_TERMS, *SPELLS, *SPELL_MOVES)
    assert japanese_left(screen, allowed) == []


def test_the_combat_demo_is_english_on_the_terminal() -> None:
    # the demo's regenerating goblin, its mage's 【予見】 and its healer's 【治癒】 (seed 0)
    run = PtyRun(["combat", "demo", "--seed", "0"], env={"GM_LOCALE": "en"})
    code, output = run.finish()
    screen = output.decode("utf-8", "replace")
    assert code == 0, screen[-2000:]
    plain = ANSI.sub("", screen)
    assert "===== The party =====" in plain and "===== The enemies =====" in plain
    assert "(regeneration 2)" in plain and "ゴブリン regenerates 2: HP " in plain
    assert "  > リゼ casts 【予見】" in plain and "  > ミナ casts 【治癒】 (on " in plain
    assert '"reason":"the high ground on the cliff"' in plain
    names = tuple(c.name for c in demo_party()) + tuple(e.name for e in demo_encounter().enemies)
    assert japanese_left(screen, (*RULE_TERMS, *names)) == []


@pytest.mark.parametrize(
    ("scenario", "seed", "lines"),
    [
        ("manor_diary", 2, [
            "Marlowe", "2", "4, 5", "talk to Abigail", "go to the manor", "go to the study",
            "take the diary", "go back to the hall", "go to the kitchen", "take the matches",
            "examine the floorboards", "use the key", "go down", "burn the diary",
        ]),
        ("grey_pass", 3, [
            "Rosa", "1", "3", "ask Beorn about the pass", "take the medicine", "take the rope",
            "go to the pass", "examine the sky", "go to the mine", "use the rope", "go right",
            "go down to the valley",
        ]),
    ],
)  # fmt: skip
def test_the_other_scenarios_are_english_on_the_terminal(scenario: str, seed: int, lines: list[str]) -> None:
    screen = play(["--scenario", scenario, "--seed", str(seed)], lines, limit=40)
    plain = ANSI.sub("", screen)
    assert "Ways on: " in plain and "What do you do?" in plain
    # BCDice's English result text of a check keeps its ＞ separators
    assert get_scenario(scenario, "en").title in plain
    allowed = (*untranslated(scenario), *RULE_TERMS, *lines, "＞")
    assert japanese_left(screen, allowed) == []


def test_the_free_form_adventure_and_its_fight_are_english_on_the_terminal() -> None:
    lines = ["Aria 駆け出し auto", "go on carefully"]
    screen = play(["--scenario", "none", "--seed", "0"], lines, limit=40)
    plain = ANSI.sub("", screen)
    assert "[End of the battle] the PCs win" in plain and "goblin chief" in plain
    assert japanese_left(screen, (*RULE_TERMS, *lines, "＞")) == []
