"""Save and load characters, parties, encounters and battles; bad files are refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gm_engine.combat import (
    Battle,
    CastSpell,
    Encounter,
    Judge,
    RollDice,
    StorageError,
    create_auto,
    create_character,
    make_enemy,
    storage,
)
from gm_engine.dice.source import QueueSource, SeededSource

PARTY = (create_auto("A", "熟練"), create_character("B", "英雄", "伝説武器", "板金鎧", spells=["予見"]))
ENCOUNTER = Encounter(
    enemies=(make_enemy("X", "ボス", 7, 30, [("regeneration", 2)]), make_enemy("Y", "雑魚", 4, 6))
)


def test_round_trips(tmp_path: Path) -> None:
    storage.save_character(tmp_path / "a.json", PARTY[0])
    assert storage.load_character(tmp_path / "a.json") == PARTY[0]
    storage.save_party(tmp_path / "p.json", PARTY)
    assert storage.load_party(tmp_path / "p.json") == PARTY
    storage.save_encounter(tmp_path / "e.json", ENCOUNTER)
    assert storage.load_encounter(tmp_path / "e.json") == ENCOUNTER


def test_battle_round_trip_continues_identically(tmp_path: Path) -> None:
    battle = Battle.start(PARTY, ENCOUNTER, seed=11)
    battle.apply(CastSpell(caster="A", spell="火弾"))
    battle.apply(RollDice())
    storage.save_battle(tmp_path / "b.json", battle)
    loaded = storage.load_battle(tmp_path / "b.json")
    assert loaded.state_hash() == battle.state_hash()
    assert loaded.apply(Judge()).text == battle.apply(Judge()).text
    assert loaded.state_hash() == battle.state_hash()


def test_battle_without_seed_needs_a_source() -> None:
    battle = Battle.start(PARTY, ENCOUNTER, source=QueueSource([(1, 6)] * 20))
    text = storage.dumps_battle(battle)
    with pytest.raises(StorageError, match="no seed"):
        storage.loads_battle(text)
    assert storage.loads_battle(text, source=QueueSource([])).state_hash() == battle.state_hash()


def test_edited_dice_are_detected() -> None:
    battle = Battle.start(PARTY, ENCOUNTER, source=SeededSource(5))
    battle.apply(RollDice())
    data = json.loads(storage.dumps_battle(battle))
    first = data["data"]["source_history"][0]
    first[0] = first[0] % 6 + 1
    with pytest.raises(StorageError, match="does not match"):
        storage.loads_battle(json.dumps(data))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not valid JSON"),
        ('{"format": "gm_engine.combat.character", "version": 1, "data": {"name": "A"', "truncated"),
        ("[1, 2]", "expected a JSON object"),
        ('{"format": "gm_engine.combat.party", "version": 1, "data": []}', "not a 'gm_engine.combat.char"),
        ('{"format": "gm_engine.combat.character", "version": 2, "data": {}}', "version 2"),
        ('{"format": "gm_engine.combat.character", "data": {}}', "missing version"),
        ('{"format": "gm_engine.combat.character", "version": 1, "data": {}}', "name: must be given"),
    ],
)
def test_bad_character_files_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(StorageError, match=message):
        storage.loads_character(text)


def test_invalid_character_data_names_the_rule() -> None:
    data = json.loads(storage.dumps_character(PARTY[0]))
    data["data"]["hp"] = 29
    with pytest.raises(StorageError, match="above max HP"):
        storage.loads_character(json.dumps(data))
    data = json.loads(storage.dumps_character(PARTY[1]))
    data["data"]["rank"] = "熟練"
    data["data"]["hp"] = 22
    data["data"]["max_slots"] = data["data"]["slots_left"] = 3
    with pytest.raises(StorageError, match=r"§9\.2"):
        storage.loads_character(json.dumps(data))


def test_bad_party_and_missing_files(tmp_path: Path) -> None:
    member = json.loads(storage.dumps_character(PARTY[0]))["data"]
    text = json.dumps({"format": "gm_engine.combat.party", "version": 1, "data": [member, member]})
    with pytest.raises(StorageError, match="share a name"):
        storage.loads_party(text)
    with pytest.raises(StorageError, match="no such file"):
        storage.load_party(tmp_path / "missing.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(StorageError, match="UTF-8"):
        storage.load_party(tmp_path / "bin.json")


def test_truncated_battle_file_is_refused(tmp_path: Path) -> None:
    battle = Battle.start(PARTY, ENCOUNTER, seed=2)
    storage.save_battle(tmp_path / "b.json", battle)
    text = (tmp_path / "b.json").read_text(encoding="utf-8")
    (tmp_path / "b.json").write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(StorageError, match="not valid JSON"):
        storage.load_battle(tmp_path / "b.json")


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 50_000, "NaN", "null", '"text"'])
def test_hostile_text_is_refused_not_crashed(text: str) -> None:
    with pytest.raises(StorageError):
        storage.loads_character(text)
    with pytest.raises(StorageError):
        storage.loads_battle(text)
