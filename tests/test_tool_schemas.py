"""Schemas a grammar can satisfy: every constraint a tool's validators check is in the
schema it sends (lengths, enums), or the value is normalised rather than refused.

A server that builds a grammar from the schema (llama.cpp, vLLM with ``strict``) can only
write what the schema allows; if the engine then refuses it, the model cannot avoid the
error. The walk below makes the awkward values each schema allows (white space only, white
space around, the longest string, every enum value, lists at their bounds) for every tool
of gm_engine.tools, and validates each with the tool's own model.

No schema has a ``pattern``: llama.cpp's grammar, given one, drops the string's length
limits and copies character classes as written, so "not blank" is normalised instead.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

import gm_engine.tools
from gm_engine.dice.source import SeededSource
from gm_engine.tools.base import Tool
from gm_engine.tools.combat import CombatTable
from gm_engine.tools.werewolf import SILENCE, SpeakTool, VoteTool

#: Strings that catch a validator stricter than its schema.
AWKWARD = ["a", "P3", " a", "a ", " a ", " ", "\u3000", "\n", "a\nb", "\t", "あ", "\x07", "a\u200bb",
           "\x1c", "\x85", "\ufeff", "\u3000あ\u3000", ""]

def _tools() -> list[type[Tool]]:
    for info in pkgutil.iter_modules(gm_engine.tools.__path__):
        importlib.import_module(f"gm_engine.tools.{info.name}")

    def below(cls: type[Tool]) -> Iterator[type[Tool]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    named = {tool for tool in below(Tool) if tool.tool_name and tool.__module__.startswith("gm_engine.tools")}
    by_name = {tool.tool_name: tool for tool in sorted(named, key=lambda t: t.__qualname__)}
    return [by_name[name] for name in sorted(by_name)]


def allowed_values(schema: dict[str, Any], defs: dict[str, Any]) -> list[Any]:
    """Awkward values ``schema`` allows (each checked against it here, patterns by ``re``)."""
    if "$ref" in schema:
        return allowed_values(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        return list(schema["enum"])
    if "anyOf" in schema:
        return [value for option in schema["anyOf"] for value in allowed_values(option, defs)]
    kind = schema.get("type")
    if kind == "null":
        return [None]
    if kind == "boolean":
        return [False, True]
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", -5), schema.get("maximum", 100)
        return sorted({low, high, (low + high) // 2})
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", 500)
        longest = ["x" * high, " " * high, "x" * (high - 1) + " ", " " + "x" * (high - 1)]
        longest.append(("x " * high)[:high])
        pattern = schema.get("pattern")
        return [s for s in AWKWARD + longest
                if low <= len(s) <= high and (pattern is None or re.search(pattern, s))]
    if kind == "array":
        items = allowed_values(schema.get("items", {}), defs)
        low, high = schema.get("minItems", 0), schema.get("maxItems", 3)
        return [[item] * n for n in sorted({low, min(low + 1, high), high}) for item in items] or [[]]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        each = {name: allowed_values(sub, defs) for name, sub in properties.items()}
        base = {name: values[0] for name, values in each.items() if name in required and values}
        variants = [dict(base)]
        for name, values in each.items():
            variants.extend({**base, name: value} for value in values)
        return variants
    return [None]


TOOLS = _tools()


def test_every_tool_module_is_walked() -> None:
    names = {tool.tool_name for tool in TOOLS}
    assert {"speak", "vote", "update_notes", "create_character", "start_battle", "roll_dice"} <= names


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.tool_name)
def test_everything_the_schema_allows_is_accepted(tool: type[Tool]) -> None:
    schema = tool.spec().parameters
    refused: list[str] = []
    for arguments in allowed_values(schema, schema.get("$defs", {})):
        try:
            tool.model_validate(arguments)
        except ValidationError as exc:
            refused.append(f"{json.dumps(arguments, ensure_ascii=False)[:120]}: {exc.errors()[0]['msg']}")
    assert refused == []


def test_no_schema_has_a_pattern() -> None:
    with_pattern = [t.tool_name for t in TOOLS if '"pattern"' in json.dumps(t.spec().parameters)]
    assert with_pattern == []


def test_white_space_only_is_silence_not_an_error() -> None:
    # before: "say something: the text is empty once white space is folded", though the
    # schema allowed it
    assert SpeakTool.model_validate({"text": " \u3000\n"}).text == SILENCE
    assert VoteTool.model_validate({"target": "P3", "reason": " "}).reason == SILENCE


def test_a_name_with_spaces_around_it_is_stripped_not_refused() -> None:
    # before: "a name may not be blank or start/end with spaces", although the schema allowed it
    table = CombatTable(SeededSource(0))
    offers = {offer.name: offer for offer in table.offers()}
    preset = offers["create_character_preset"]
    arguments = preset.validate({"name": " 勇者アリス ", "rank": "駆け出し", "preset": "未選択"})
    preset.handler(arguments)
    assert [c.name for c in table.party] == ["勇者アリス"]
    blank = preset.validate({"name": "  ", "rank": "駆け出し", "preset": "未選択"})
    preset.handler(blank)
    assert [c.name for c in table.party] == ["勇者アリス", "名無しの旅人"]
    english = CombatTable(SeededSource(0), locale="en")  # the nameless traveller in the table's language
    offer = {offer.name: offer for offer in english.offers()}["create_character"]
    choices = {"rank": "駆け出し", "weapon": "短剣", "armour": "布", "shield": "なし", "spells": []}
    offer.handler(offer.validate({"name": "\u3000", **choices}))
    assert [c.name for c in english.party] == ["Nameless Traveller"]
    offers = {offer.name: offer for offer in table.offers()}
    battle = offers["start_battle"]
    battle.handler(battle.validate({"kind": "雑魚戦", "difficulty": [], "enemy_name": "\u3000ゴブリン"}))
    assert table.battle is not None
    assert all(not enemy.name.startswith(("\u3000", " ")) for enemy in table.battle.state.enemies)


def test_an_optional_field_is_written_as_what_it_holds_and_null_still_passes() -> None:
    """A field that may be left out is written without "or null" and without its default (a
    claim's optional result cost a fifth of a discussion turn's tools); an explicit null, which
    the schema no longer shows, is still accepted, and leaving it out means none as before."""
    from gm_engine.tools.werewolf import ClaimTool

    spec = ClaimTool.narrowed(role=["占い師", "狩人"], target=["P2", "P3"], result=["白", "黒"]).spec()
    target = spec.parameters["properties"]["target"]
    assert target == {"enum": ["P2", "P3"], "type": "string", "description": "結果の対象"}
    assert "default" not in spec.parameters["properties"]["text"]
    assert spec.parameters["required"] == ["role"]
    model = ClaimTool.narrowed(role=["占い師", "狩人"], target=["P2", "P3"], result=["白", "黒"])
    given_null = model.model_validate({"role": "狩人", "target": None, "result": None})
    assert isinstance(given_null, ClaimTool) and given_null.target is None and given_null.result is None
    left_out = model.model_validate({"role": "狩人"})
    assert isinstance(left_out, ClaimTool) and left_out.target is None and left_out.result is None
