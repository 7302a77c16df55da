"""Models built without validation (``construct``/``model_construct``, on the hot paths) are the
very models ``model_validate`` gives for the same data: same values, same fields set, same
JSON. Covers the dice results (``gm_engine.dice.engine.construct``) and the narrowed tool
specs (``ToolSpec.model_construct`` in ``gm_engine.tools.base``), the two places the code uses it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from gm_engine.dice.engine import evaluate
from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import ToolSpec
from gm_engine.tools.base import Offer, Tool
from gm_engine.tools.werewolf import ALL_TOOLS, ClaimTool, VoteTool

#: Lines of every system, refused ones included (their error details are constructed too).
LINES: dict[str, tuple[str, ...]] = {
    "DiceBot": (
        "2D6+1", "3D6>=10", "1D100<=40", "4B6>=4", "5R6>=4[4]", "3U6[5]", "2D6KH1", "(2D6+3)/2U",
        "C(1+2*3)", "CHOICE[a,b,c]", "D66", "x3 2D6", "1D6>=?", "S2D6", "2T6", "1D0", "C(1/0)",
        "hello", "3D6*2>=10 with a comment",
    ),
    "Cthulhu": ("CC<=50", "CCB<=50", "CC(2)<=50", "RES(10-8)", "CBR(50,60)", "CBRB(40,90)", "CC<=x"),
    "Cthulhu7th": ("CC<=50", "CC1<=50", "CC-1<=70h", "CBR(50,60)", "FAR(10,50,98,0,r,3)", "CC<=z"),
    "TheOneRing2nd": ("13RG3@10A1f", "10RG2", "FD", "FD1f", "12RG2w", "RG"),
}


def _models(value: object) -> Iterator[BaseModel]:
    """Every pydantic model in ``value``, nested ones first."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _models(getattr(value, name))
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _models(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _models(item)


def _assert_as_validated(model: BaseModel) -> None:
    cls = type(model)
    data = {name: getattr(model, name) for name in model.model_fields_set}
    validated = cls.model_validate(data)
    assert validated == model, cls.__name__
    assert validated.model_fields_set == model.model_fields_set, cls.__name__
    assert validated.model_dump_json() == model.model_dump_json(), cls.__name__
    assert list(model.__dict__) == list(cls.model_fields), f"{cls.__name__}: fields out of order"


@pytest.mark.parametrize("system", sorted(LINES))
def test_constructed_dice_results_equal_validated_ones(system: str) -> None:
    results, kinds = 0, set()
    for seed in range(5):
        source = SeededSource(seed)
        for line in LINES[system]:
            result = evaluate(line, system, source=source)
            results += result is not None
            for model in _models(result):
                _assert_as_validated(model)
                kinds.add(type(model).__name__)
    # results and their details of several kinds were checked, not just a few
    assert results >= 4 * len(LINES[system]) and len(kinds) >= 3, (results, kinds)


def test_constructed_tool_specs_equal_validated_ones() -> None:
    seats = ["P2", "P3", "P5", "P9"]
    narrowings: list[tuple[type[Tool], dict[str, list[str]]]] = [
        (VoteTool, {"target": seats}),
        (VoteTool, {"target": ["P4"]}),
        (ClaimTool, {"role": ["占い師", "霊媒師"], "target": seats, "result": ["白", "黒"]}),
        (ClaimTool, {"role": ["狩人"]}),
    ]
    specs = [Offer.narrowing(tool, lambda args: "ok", **legal).spec() for tool, legal in narrowings]
    specs += [Offer.narrowing(tool, lambda args: "ok").spec() for tool in ALL_TOOLS]
    for spec in specs:
        _assert_as_validated(spec)
        # and it is the spec of the narrowed model itself, built the slow way
        assert ToolSpec.model_validate(spec.model_dump()) == spec
    for (tool, legal), spec in zip(narrowings, specs, strict=False):
        assert Offer.of(tool, lambda args: "ok", **legal).spec() == spec


def test_model_builder_gives_the_validated_model_with_defaults_filled() -> None:
    from gm_engine.dice.commands.add_dice import DiceTerm
    from gm_engine.dice.result import model_builder

    build = model_builder(DiceTerm)
    assert model_builder(DiceTerm) is build  # generated once per class
    # ``filter`` and ``filter_count`` are optional and left out; ``total`` comes after them
    built = build(notation="2D6", times=2, sides=6, values=(2, 5), kept=(2, 5), total=7)
    validated = DiceTerm.model_validate(
        {"notation": "2D6", "times": 2, "sides": 6, "values": (2, 5), "kept": (2, 5), "total": 7}
    )
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert list(built.__dict__) == list(DiceTerm.model_fields)
    with pytest.raises(TypeError):
        build(notation="2D6", times=2, sides=6, values=(2, 5), kept=(2, 5))  # total is required
