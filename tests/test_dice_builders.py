"""The hot-path model builders: what they build is what validation builds, and the fields
set their frozen models share is never changed through one of them."""

from __future__ import annotations

from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import RollResult, model_builder
from gm_engine.dice.source import SeededSource
from gm_engine.dice.systems.cthulhu7th import CoC7Volley

VOLLEY = dict(
    number=1,
    difficulty="regular",
    bonus_dice=0,
    tens=(40,),
    ones=4,
    candidates=(44,),
    value=44,
    level="regular_success",
    jammed=False,
    hits=3,
    impales=0,
    bullets_left=27,
)


def test_a_built_model_is_the_validated_one() -> None:
    built = model_builder(CoC7Volley)(**VOLLEY)
    validated = CoC7Volley.model_validate(VOLLEY)
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set


def test_copies_with_updates_leave_the_shared_fields_set_alone() -> None:
    build = model_builder(CoC7Volley)
    first, second = build(**VOLLEY), build(**VOLLEY)
    changed = first.model_copy(update={"hits": 0})
    assert changed.hits == 0 and first.hits == 3
    assert first.model_fields_set == second.model_fields_set == set(CoC7Volley.model_fields)


def test_an_engine_result_round_trips_through_json() -> None:
    for line in ("FAR(30,60,98)", "CC(1)<=50", "x2 CBR(50,20)"):
        result = evaluate(line, "Cthulhu7th", source=SeededSource(3))
        assert result is not None
        again = RollResult.model_validate_json(result.model_dump_json())
        assert again == result
        assert again.model_dump_json() == result.model_dump_json()
