"""The rule options object: NOTES.md's defaults, validation, immutability."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gm_engine.combat import DEFAULT_OPTIONS, CombatOptions


def test_defaults_are_notes_readings() -> None:
    options = CombatOptions()
    assert options.mana_shield_amount == 6  # NOTES: 魔力盾 default 6
    assert options.overcast_max_hp_cost == 5  # NOTES: out of slots, max HP −5
    assert options.overcasts_per_character == 1  # §5.2 一度だけ
    assert options.life_check_target == 10  # NOTES: 3d6 ≥ 10
    assert options.slow_no_dice_penalty == 4  # §6.2.2
    assert options.swarm_bonus_per_enemy == 1  # §12
    assert options.encounter_basis == "forecast"  # §11.1's rounds checked by the exact odds
    assert options.healing_wave_halves == "final_damage"  # NOTES: halves this round's damage
    assert options.narrative_priority_test == "rules_example"  # §0's own example
    assert options.damage_overflow  # §1.1: the sides resolve as units
    assert options == DEFAULT_OPTIONS


@pytest.mark.parametrize(
    "bad",
    [{"mana_shield_amount": 0}, {"life_check_target": 19}, {"slow_effect": "half"},
     {"foresight_rerolls": "enemy"}, {"narrative_priority_ratio": 0.5}, {"no_such_option": 1},
     {"overcast_max_hp_cost": -1}, {"healing_wave_halves": "both"}, {"encounter_basis": "party"},
     {"narrative_priority_test": "never"}, {"damage_overflow": "sometimes"}],
)
def test_bad_options_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        CombatOptions.model_validate(bad)


def test_options_are_frozen_and_round_trip() -> None:
    options = CombatOptions(mana_shield_amount=4, narrative_priority_ratio=None)
    with pytest.raises(ValidationError):
        options.mana_shield_amount = 5  # type: ignore[misc]
    assert CombatOptions.model_validate_json(options.model_dump_json()) == options
