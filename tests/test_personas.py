"""The persona files: all eight load, in the rules' seats, and bad files fail clearly."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gm_engine.sessions.personas import (
    MAX_NOTE_LINES,
    Notes,
    NotesError,
    PersonaError,
    default_personas_dir,
    load_persona,
    load_personas,
)

ROOT = Path(__file__).resolve().parent.parent
SEATS = {
    2: "トウダ", 3: "ヒミヤ", 4: "アオト", 5: "ミスノ", 6: "キウミ", 7: "シセン", 8: "ハイオ", 9: "イスイ",
}


def rules_document() -> Path:
    base = Path(os.environ.get("GM_RULES_DIR", ROOT.parent / "shared" / "rules"))
    return base / "004_e1c94a669422810c.txt"


def test_eight_personas_in_the_rules_seats() -> None:
    personas = load_personas()
    assert [(p.seat, p.name) for p in personas] == sorted(SEATS.items())
    assert len({p.id for p in personas}) == 8
    for persona in personas:
        assert persona.manner != persona.werewolf_manner
        assert persona.label == f"P{persona.seat}"
        # the werewolf-only lines never leak into the everyday set
        assert "werewolf_cover" not in persona.voice.everyday_lines()


def test_names_are_those_of_the_rules_document() -> None:
    """The seats follow the document's order, recorded in tests/data/rules/werewolf_seats.txt
    (the document itself is prose and does not ship); where the document is at hand, the
    record is checked against it too."""
    record = Path(__file__).parent / "data" / "rules" / "werewolf_seats.txt"
    lines = record.read_text(encoding="utf-8").splitlines()
    recorded = [line for line in lines if line and not line.startswith("#")]
    assert recorded == list(SEATS.values())
    path = rules_document()
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        positions = [text.index(f"  • {name}") for name in recorded]
        assert positions == sorted(positions), "the seats follow the document's order"


def _copy_personas(tmp_path: Path) -> Path:
    target = tmp_path / "personas"
    shutil.copytree(default_personas_dir(), target)
    return target


def test_unknown_placeholder_is_named(tmp_path: Path) -> None:
    folder = _copy_personas(tmp_path)
    path = folder / "touda.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("{role}なんだ", "{rol}なんだ"), encoding="utf-8")
    with pytest.raises(PersonaError, match=r"touda\.toml.*claim.*unknown placeholder rol"):
        load_personas(folder)


def test_missing_field_and_bad_toml(tmp_path: Path) -> None:
    folder = _copy_personas(tmp_path)
    path = folder / "haio.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('first_person = "僕"\n', ""), encoding="utf-8")
    with pytest.raises(PersonaError, match=r"haio\.toml.*first_person.*Field required"):
        load_persona(path)
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(PersonaError, match=r"haio\.toml: not valid TOML"):
        load_persona(path)
    with pytest.raises(PersonaError, match="cannot read"):
        load_persona(folder / "nobody.toml")


def test_seat_conflicts_and_gaps(tmp_path: Path) -> None:
    folder = _copy_personas(tmp_path)
    path = folder / "isui.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("seat = 9", "seat = 8"), encoding="utf-8")
    with pytest.raises(PersonaError, match="seat P8 taken by both"):
        load_personas(folder)
    path.unlink()
    with pytest.raises(PersonaError, match="no persona for seat P9"):
        load_personas(folder)
    bad_seat = folder / "kiumi.toml"
    text = bad_seat.read_text(encoding="utf-8")
    bad_seat.write_text(text.replace("seat = 6", "seat = 1"), encoding="utf-8")
    with pytest.raises(PersonaError, match=r"seat must be 2\.\.9"):
        load_persona(bad_seat)
    with pytest.raises(PersonaError, match="not found"):
        load_personas(tmp_path / "missing")


def test_notes_keep_at_most_five_lines() -> None:
    notes = Notes.of(["  a ", "", "b", "c", "d", "e"])
    assert notes.lines == ("a", "b", "c", "d", "e")
    with pytest.raises(NotesError, match=f"at most {MAX_NOTE_LINES} lines"):
        Notes.of(["x"] * (MAX_NOTE_LINES + 1))
    with pytest.raises(NotesError, match="characters"):
        Notes.of(["あ" * 500])
    with pytest.raises(NotesError, match="line break"):
        Notes.of(["a\nb"])


def test_system_prompt_carries_the_persona_and_the_wolf_manner_only_for_a_wolf() -> None:
    from gm_engine.sessions.werewolf import persona_system_prompt
    from gm_engine.werewolf import Game, WerewolfOptions, player_view

    # P2..P9: wolves at P2 and P3 in one deal, at P8 and P9 in the other
    deals = ([2, 1, 1, 2, 2, 3, 4, 5, 6], [2, 2, 2, 3, 4, 5, 6, 1, 1])
    for deal in deals:
        game = Game.from_deal(deal)
        for persona in load_personas():
            text = persona_system_prompt(persona, player_view(game, persona.seat), WerewolfOptions())
            wolf = deal[persona.seat - 1] == 1
            assert persona.name in text and f"「{persona.first_person}」" in text
            assert persona.manner in text
            assert (persona.werewolf_manner in text) is wolf
            assert "人狼として:" in text if wolf else "人狼として" not in text
            # nobody's role, not even its own, is in the fixed system prompt
            assert "の役職:" not in text
