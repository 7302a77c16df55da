"""The narration guard: a narration that misstates HP, damage, a die or a check's outcome is
sent back to the model and not shown; a correct one is shown; both are recorded."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gm_engine.adventure.guard import TurnFacts, vet_narration
from gm_engine.llm.base import ModelRequest, ModelResponse
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.adventure import AdventureOptions
from gm_engine.sessions.adventure_scenario import ScenarioAdventure
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.tools.base import response_with_calls

ROUND = TurnFacts(
    engine_texts=(
        "・ダメージ: 小鬼A ← 差分 5 = 5（HP 5 → 0）\nPC_Dice: [2, 5] (Total: 7)\n"
        "・PC陣営最終AP: 9（ダイス 7 + 装備補正 2）",
    ),
    hp=frozenset({15, 0, 5}),
    slots=frozenset({2}),
    dice=frozenset({2, 5}),
)


@pytest.mark.parametrize(
    "text",
    [
        "小鬼Aに5ダメージ、HPは0になった。",
        "出目は2と5、合計7。AP9で押し切った。",
        "アリアのHPは15のまま。スロット2が残っている。",
        "刃が閃き、小鬼は倒れた。",
        "deals 5 damage; the goblin's HP drops to 0.",
    ],
)
def test_a_narration_of_the_engine_s_facts_passes(text: str) -> None:
    assert vet_narration(text, ROUND) == []


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("アリアのHPは12になった。", "HP"),
        ("小鬼Aに8ダメージ！", "damage"),
        ("出目は6、会心の一撃だ。", "die"),
        ("AP12の猛攻。", "AP"),
        ("スロットは残り3。", "slots"),
        ("the goblin takes 9 damage", "damage"),
        ("rolled a 11", "die"),
        ("ＨＰは９９", "HP"),  # full-width digits are read too
    ],
)
def test_a_misstated_number_is_caught(text: str, what: str) -> None:
    problems = vet_narration(text, ROUND)
    assert problems and what in problems[0]


def test_a_check_s_outcome_must_match() -> None:
    failed = TurnFacts(
        engine_texts=("🎲 《足跡をたどる》 (3D6>=10) ＞ 7[1,2,4] ＞ 7 ＞ 失敗",), checks=(False,)
    )
    assert vet_narration("判定に成功し、獣道を見つけた。", failed)
    assert vet_narration("足跡の判定は失敗。霧に見失った。", failed) == []
    nothing = TurnFacts()
    assert "no check was rolled" in vet_narration("判定成功！", nothing)[0]
    assert vet_narration("作戦はうまくいった。", nothing) == []


# -- through the session, with a scripted model --------------------------------------------------


def _session(
    script: list[Any], lines: list[str], scenario: str = "goblin_shrine"
) -> tuple[ScenarioAdventure, ListSink, list[str], ScriptedBackend]:
    backend = ScriptedBackend(script)
    sink = ListSink()
    shown: list[str] = []
    spec = SessionSpec(kind="adventure", seed=4, options={"scenario": scenario, "max_turns": 6})
    io = SessionIO(
        backend=backend, human=ScriptedHuman(lines, when_done="/quit"), sink=sink, show=shown.append
    )
    adventure = ScenarioAdventure(spec, io, AdventureOptions.model_validate(spec.options))
    asyncio.run(adventure.run())
    return adventure, sink, shown, backend


def test_a_model_misstating_hp_is_sent_back_and_its_correction_shown() -> None:
    script = [
        ("gm", ModelResponse(content="村の広場に霧が出ている。アリアのHPは22だ。どうする？")),
        ("gm", ModelResponse(content="村の広場に霧が出ている。アリアのHPは15。どうする？")),
    ]
    _adventure, sink, shown, backend = _session(script, ["アリア", "駆け出し", "おまかせ"])
    narrations = [p for k, p in sink.payloads() if k == "narration"]
    assert [n["shown"] for n in narrations] == [False, True]
    assert "22 is nobody's HP" in narrations[0]["problems"][0]
    assert (
        "HPは22" not in "\n".join(shown) and "GM: 村の広場に霧が出ている。アリアのHPは15。どうする？" in shown
    )
    # the model was told why, in the retry's conversation
    assert "does not match the engine" in str(backend.requests[1].messages[-1]["content"])


def test_a_model_misstating_a_check_s_outcome_is_caught_and_nothing_of_that_answer_applied() -> None:
    def wrong(request: ModelRequest) -> ModelResponse:
        result = str(request.messages[-1]["content"])
        claim = "失敗" if ": success)" in result else "成功"
        return ModelResponse(content=f"空を読む判定は{claim}した。どうする？")

    def right(request: ModelRequest) -> ModelResponse:
        said = str(request.messages[-3]["content"])  # the check's result, before the refusal
        claim = "成功" if ": success)" in said else "失敗"
        return ModelResponse(content=f"空を読む判定は{claim}した。どうする？")

    script = [
        ("gm", response_with_calls(("take_item", {"item": "medicine"}))),
        ("gm", response_with_calls(("move_to", {"exit": "trail"}))),
        ("gm", response_with_calls(("examine", {"thing": "sky"}))),
        ("gm", wrong),
        ("gm", right),
    ]
    adventure, sink, _shown, _backend = _session(script, ["ロサ", "1", "探索"], scenario="grey_pass")
    narrations = [p for k, p in sink.payloads() if k == "narration"]
    assert [n["shown"] for n in narrations] == [False, True]
    assert "check" in narrations[0]["problems"][0]
    assert adventure.story.state.scene == "trail"


def test_a_model_gm_gets_the_brief_and_reaches_numbers_only_through_tools() -> None:
    script = [("gm", ModelResponse(content="霧の村へようこそ。どうする？"))]
    adventure, _sink, shown, backend = _session(script, ["アリア", "駆け出し", "おまかせ"])
    request = backend.requests[0]
    system = str(request.messages[0]["content"])
    assert adventure.scenario.brief.splitlines()[0] in system and "■ lair「社殿の奥」" in system
    tools = {t.name for t in request.tools}
    assert {"look_around", "move_to", "talk_to", "take_item", "make_choice", "show_status"} <= tools
    # no dice of its own, no character or fight made up: the scenario and the engine decide
    assert not tools & {"roll_dice", "skill_check", "create_character", "start_battle", "end_adventure"}
    assert "GM: 霧の村へようこそ。どうする？" in shown
