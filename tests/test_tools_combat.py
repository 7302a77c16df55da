"""The GM's combat and dice tools: offers follow the battle's phase, enums are the legal choices."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import user_message
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.tools.base import ModelRetry, Offer, ToolOutput, TurnRunner, response_with_calls
from gm_engine.tools.combat import CombatTable
from gm_engine.tools.dice import check_offer, dice_offer


def by_name(table: CombatTable) -> dict[str, Offer[Any]]:
    return {o.name: o for o in table.offers()}


def call(table: CombatTable, tool: str, /, **args: Any) -> Any:
    offer = by_name(table)[tool]
    return offer.handler(offer.tool.model_validate(args))


def props(offer: Offer[Any]) -> dict[str, Any]:
    return dict(offer.spec().parameters["properties"])


@pytest.fixture
def table() -> CombatTable:
    t = CombatTable(SeededSource(0))
    call(t, "create_character", name="カイ", rank="駆け出し", weapon="長剣", armour="革", shield="小盾",
         spells=["雷撃", "治癒"])
    return t


def test_offers_outside_a_battle(table: CombatTable) -> None:
    offers = by_name(table)
    assert set(offers) == {
        "show_status", "create_character", "create_character_preset", "start_battle", "cast_out_of_combat",
        "change_spells",
    }  # rest only once a slot has been spent
    create = props(offers["create_character"])
    assert create["rank"]["enum"] == ["一般人", "駆け出し", "熟練", "英雄"]
    assert "伝説武器" in create["weapon"]["enum"]
    assert create["spells"]["items"]["enum"][0] == "火弾"
    start = props(offers["start_battle"])
    assert start["kind"]["enum"] == ["雑魚戦", "エリート戦", "ボス戦"]
    heal = props(offers["cast_out_of_combat"])
    assert heal["caster"]["enum"] == ["カイ"]


def test_battle_offers_follow_the_phase_with_legal_targets(table: CombatTable) -> None:
    out = call(table, "start_battle", kind="雑魚戦", difficulty=[], enemy_name="狼")
    assert out.ends_turn and "【BATTLE_SETUP】" in out.text
    offers = by_name(table)
    assert "create_character" not in offers and "start_battle" not in offers
    assert props(offers["battle_step"])["step"]["enum"] == ["roll"]
    assert props(offers["target_enemy"])["enemy"]["enum"] == ["狼A", "狼B"]
    assert props(offers["situational_bonus"])["bonus"]["enum"] == [-3, -2, -1, 0, 1, 2, 3]
    cast = props(offers["cast_spell"])
    assert cast["spell"]["enum"] == ["雷撃", "治癒"]
    assert call(table, "battle_step", step="roll").ends_turn
    offers = by_name(table)
    assert props(offers["battle_step"])["step"]["enum"] == ["judge"]
    assert "situational_bonus" not in offers
    assert call(table, "battle_step", step="judge").ends_turn
    assert props(by_name(table)["battle_step"])["step"]["enum"] == ["narrate"]
    narrate = call(table, "battle_step", step="narrate")
    assert not narrate.ends_turn and "[MODE: NARRATIVE]" in narrate.text


def test_refused_actions_leave_the_table_unchanged(table: CombatTable) -> None:
    call(table, "start_battle", kind="雑魚戦", difficulty=[], enemy_name="狼")
    before = table.state_hash()
    dice_before = len(table.source.history)
    offer = by_name(table)["cast_spell"]
    with pytest.raises(ModelRetry):
        # 治癒 on someone not in the party: valid for the schema's type, refused by the engine
        offer.handler(offer.tool.model_validate({"caster": "カイ", "spell": "治癒", "target": None}))
    assert table.state_hash() == before
    assert len(table.source.history) == dice_before


def test_turn_runner_answers_an_out_of_order_step_with_the_allowed_values(table: CombatTable) -> None:
    call(table, "start_battle", kind="雑魚戦", difficulty=[], enemy_name="狼")
    script = [
        ("gm", response_with_calls(("battle_step", {"step": "judge"}))),
        ("gm", response_with_calls(("target_enemy", {"enemy": "狼C"}))),
        ("gm", response_with_calls(("battle_step", {"step": "roll"}))),
    ]
    with ScriptedBackend(script) as backend:
        result = asyncio.run(
            TurnRunner(backend).run(actor="gm", messages=[user_message("戦闘開始")], offers=table.offers)
        )
    assert "allowed: \"roll\"" in result.errors[0]
    assert "狼A" in result.errors[1] and "狼B" in result.errors[1]
    assert result.ended_by_tool and table.phase is not None and table.phase.value == "ROLL"


def test_dice_tools_roll_on_the_session_source() -> None:
    source = SeededSource(3)
    seen: list[str] = []
    offer = dice_offer("Cthulhu7th", source, lambda r, why: seen.append(r.text))
    out = offer.handler(offer.tool.model_validate({"command": "CC<=50", "reason": "聞き耳"}))
    assert isinstance(out, ToolOutput)
    data = json.loads(out.text)
    assert data["reason"] == "聞き耳" and data["detail"]["kind"] == "coc7_skill"
    assert len(source.history) == 2 and seen == [data["text"]]
    with pytest.raises(ModelRetry, match="not a dice command of Cthulhu7th"):
        offer.handler(offer.tool.model_validate({"command": "hello", "reason": "x"}))
    assert len(source.history) == 2
    check = check_offer(["カイ"], source)
    assert props(check)["character"]["enum"] == ["カイ"]
    args = check.tool.model_validate({"character": "カイ", "target": 10, "reason": "跳ぶ"})
    checked = check.handler(args)
    assert isinstance(checked, ToolOutput)
    result = json.loads(checked.text)
    assert result["text"].startswith("(3D6>=10)")
    assert len(source.history) == 5


def test_spell_fields_are_narrowed_to_values_of_legal_casts() -> None:
    t = CombatTable(SeededSource(0))
    call(t, "create_character", name="レイ", rank="英雄", weapon="長剣", armour="革", shield="小盾",
         spells=["限界突破", "治癒の波動", "魔力盾"])
    call(t, "start_battle", kind="雑魚戦", difficulty=[], enemy_name="狼")
    cast = props(by_name(t)["cast_spell"])
    assert cast["spell"]["enum"] == ["限界突破", "治癒の波動", "魔力盾"]
    amount = cast["amount"]  # optional: written as what it holds when given (no "or null")
    assert amount["enum"] == list(range(1, 30))  # HP 30 may convert at most 29 (HP never below 1)
    mode = cast["mode"]
    assert mode["enum"] == ["endure", "halve"]
    out = call(t, "cast_spell", caster="レイ", spell="限界突破", amount=5)
    assert "限界突破" in out.text
    assert t.current_party()[0].hp == 25


def test_rest_and_spell_change_outside_a_battle(table: CombatTable) -> None:
    call(table, "cast_out_of_combat", caster="カイ", spell="治癒", target="カイ")
    assert table.party[0].slots_left == 1
    assert "rest" in by_name(table)
    out = call(table, "rest")
    assert table.party[0].slots_left == 2 and "【魔法スロットの残り】 2/2" in out.text
    assert "rest" not in by_name(table)
    changed = call(table, "change_spells", character="カイ", spells=["火弾", "予見"])
    assert "【火弾】、【予見】" in changed.text
    assert [s.value for s in table.party[0].spells] == ["火弾", "予見"]
    before = table.state_hash()
    for bad in (["火弾", "予見", "治癒"], ["火弾", "火弾"]):
        with pytest.raises(ValueError, match=r"§5\.1"):
            call(table, "change_spells", character="カイ", spells=bad)
    with pytest.raises(ValueError, match="no character"):
        table.change_spells("ゼン", ["火弾"])
    assert table.state_hash() == before
    call(table, "start_battle", kind="雑魚戦", difficulty=[], enemy_name="狼")
    assert {"rest", "change_spells"}.isdisjoint(by_name(table))
    with pytest.raises(ValueError, match="battle"):
        table.rest()
    with pytest.raises(ValueError, match="battle"):
        table.change_spells("カイ", ["治癒"])


def test_status_is_compact_and_the_footer_shows_the_slots(table: CombatTable) -> None:
    status = table.status_text()
    assert "魔法スロット: 残り 2" in status and "残り 2 / 2" not in status  # §13.2
    footer = "【セッション状況】\n・カイ: HP 15/15 / 【魔法スロットの残り】 2/2 / 状態 正常"
    assert table.session_footer() == footer
    assert CombatTable(SeededSource(0)).session_footer() == ""


def test_the_players_wish_to_fight_is_recorded_by_a_tool(table: CombatTable) -> None:
    call(table, "start_battle", kind="雑魚戦", difficulty=[], enemy_name="狼")
    assert "fight_it_out" in by_name(table)
    call(table, "fight_it_out")
    assert table.battle is not None and table.battle.state.fight_requested
    assert {"fight_it_out", "resolve_by_narrative"}.isdisjoint(by_name(table))
