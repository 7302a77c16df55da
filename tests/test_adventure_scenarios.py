"""Shipped scenarios played by the offline GM: every ending is reached by a scripted player,
a player typing only nonsense or only 「逃げる」 is never stuck and never has a choice made
for them, and a cut-off adventure resumes to the same end."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gm_engine.adventure.scenario import shipped_scenarios
from gm_engine.combat.enemies import EncounterKind
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.adventure import AdventureOptions
from gm_engine.sessions.adventure_scenario import ScenarioAdventure
from gm_engine.sessions.base import HumanDefaults, ListSink, SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner
from gm_engine.tools.combat import FLED
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.transcripts.resume import resume_session

#: Tools that change the story or the fight by a choice: the offline GM calls one only when
#: the player's line asked for it.
CHOOSING_TOOLS = frozenset(
    {
        "move_to",
        "examine",
        "talk_to",
        "take_item",
        "use_item",
        "make_choice",
        "cast_spell",
        "situational_bonus",
        "target_enemy",
        "target_character",
        "cast_out_of_combat",
        "rest",
        "flee",
        "change_spells",
        "battle_step",
    }
)


class PlannedHuman(HumanDefaults):
    """Answers a fight with ``in_battle`` (「攻撃」 by default) and otherwise says the plan's next
    line; /quit when the plan is done."""

    def __init__(self, plan: Sequence[str], in_battle: str = "攻撃") -> None:
        self.plan = list(plan)
        self.in_battle = in_battle
        self.adventure: ScenarioAdventure | None = None
        self.asked = 0

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        self.asked += 1
        if self.adventure is not None and self.adventure.table.battle is not None:
            return self.in_battle
        return self.plan.pop(0) if self.plan else "/quit"


def play(
    scenario: str, seed: int, plan: Sequence[str], *, in_battle: str = "攻撃", max_turns: int = 200
) -> tuple[ScenarioAdventure, SessionOutcome, ListSink, list[str]]:
    human = PlannedHuman(plan, in_battle)
    sink = ListSink()
    shown: list[str] = []
    spec = SessionSpec(kind="adventure", seed=seed, options={"scenario": scenario, "max_turns": max_turns})
    io = SessionIO(backend=OfflineBackend(), human=human, sink=sink, show=shown.append)
    adventure = ScenarioAdventure(spec, io, AdventureOptions.model_validate(spec.options))
    human.adventure = adventure
    outcome = asyncio.run(adventure.run())
    return adventure, outcome, sink, shown


HERO = ["アリア", "英雄", "おまかせ"]
TO_THE_BOSS = ["長老に小鬼のことを聞く", "長老と話す", "森へ行く", "祠の門へ", "中庭へ", "社殿の奥へ"]
INVESTIGATOR = ["マーロウ", "古書店主", "オカルト、説得"]
TO_THE_CELLAR = [
    "アビゲイルに兄のことを聞く",
    "館へ向かう",
    "台所へ",
    "マッチを拾う",
    "鍵を床板に使う",
    "地下へ降りる",
]
RANGER = ["ロサ", "1", "探索"]

#: (scenario, ending, plan): the plan reaches the ending for some seed (a fight or a check
#: decides the others).
PLANS: list[tuple[str, str, list[str]]] = [
    ("goblin_shrine", "declined", [*HERO, "依頼を断って村を去る"]),
    ("goblin_shrine", "sealed", [*HERO, *TO_THE_BOSS, "封じの札を石に貼って使う"]),
    ("goblin_shrine", "returned", [*HERO, *TO_THE_BOSS, "村へ帰る"]),
    ("goblin_shrine", "plunder", [*HERO, *TO_THE_BOSS, "銀杯を拾う", "宝を抱えて旅に出る"]),
    ("goblin_shrine", "fallen", ["ボブ", "一般人", "未選択", *TO_THE_BOSS]),
    ("manor_diary", "unknown", [*INVESTIGATOR, "依頼を断る"]),
    (
        "manor_diary",
        "silenced",
        [
            *INVESTIGATOR,
            "アビゲイルに兄のことを聞く",
            "館へ向かう",
            "書斎へ",
            "日記を取る",
            "広間に戻る",
            "台所へ",
            "マッチを拾う",
            "鍵を床板に使う",
            "地下へ降りる",
            "日記を燃やす",
        ],
    ),
    ("manor_diary", "rescued", [*INVESTIGATOR, *TO_THE_CELLAR, "エドガーを説得する"]),
    ("manor_diary", "drowned", [*INVESTIGATOR, *TO_THE_CELLAR, "エドガーを説得する"]),
    ("grey_pass", "turned_back", [*RANGER, "旅を諦めて宿に残る"]),
    (
        "grey_pass",
        "arrived",
        [
            *RANGER,
            "薬を受け取る",
            "縄を拾う",
            "峠道へ",
            "坑道に入る",
            "縄を岩に使う",
            "右の道へ",
            "谷村へ下る",
        ],
    ),
    ("grey_pass", "lost", [*RANGER, "薬を受け取る", "峠道へ", "尾根道へ", "頂へ進む"]),
]


def test_the_plans_cover_every_ending_of_every_shipped_scenario() -> None:
    planned = {(s, e) for s, e, _ in PLANS}
    shipped = {(sid, e) for sid, scenario in shipped_scenarios().items() for e in scenario.endings}
    assert planned == shipped


@pytest.mark.parametrize(("scenario", "ending", "plan"), PLANS, ids=[f"{s}-{e}" for s, e, _ in PLANS])
def test_a_scripted_player_reaches_the_ending(scenario: str, ending: str, plan: list[str]) -> None:
    reached = []
    for seed in range(40):
        adventure, outcome, sink, shown = play(scenario, seed, plan)
        reached.append(adventure.story.state.ending)
        if adventure.story.state.ending == ending:
            break
    else:
        pytest.fail(f"{ending} not reached in 40 seeds; reached {sorted(set(map(str, reached)))}")
    assert outcome.finished and outcome.summary == adventure.scenario.endings[ending].title
    assert adventure.scenario.endings[ending].text in "\n".join(shown)
    # the offline GM never took a step the rules refused
    assert not [p for k, p in sink.payloads() if k == "tool_result" and not p["ok"]]


def test_the_fantasy_scenario_fights_mobs_an_elite_and_a_boss() -> None:
    scenario = shipped_scenarios()["goblin_shrine"]
    kinds = {s.encounter.kind for s in scenario.scenes.values() if s.encounter is not None}
    assert kinds == {EncounterKind.MOBS, EncounterKind.ELITE, EncounterKind.BOSS}
    _adventure, _outcome, _sink, shown = play("goblin_shrine", 1, [*HERO, *TO_THE_BOSS, "村へ帰る"])
    text = "\n".join(shown)
    assert text.count("【BATTLE_SETUP】ラウンド 1") == 3 and text.count("【戦闘終了】") == 3
    # the narration after a fight says how it ended: a won fight is not a foe that ran away
    assert "最後の敵が倒れ" in text and "逃げ延びた" not in text
    # §13.2's compact status after the GM's turns
    assert "【魔法スロットの残り】" in text


NONSENSE = ["asdf", "ほげほげ", "🍣", "123", "。", "qwerty uiop", "", "ああああ", "zzz", "ぬるぽ"]


@pytest.mark.parametrize("scenario", ["goblin_shrine", "manor_diary", "grey_pass"])
def test_a_player_typing_only_nonsense_is_asked_back_and_nothing_is_chosen(scenario: str) -> None:
    creation = {"goblin_shrine": HERO, "manor_diary": INVESTIGATOR, "grey_pass": RANGER}[scenario]
    plan = [*creation, *(NONSENSE * 3)]
    adventure, _outcome, sink, shown = play(scenario, 3, plan, max_turns=len(plan) + 5)
    calls = [p["tool"] for k, p in sink.payloads() if k == "tool_result" and p["ok"]]
    assert set(calls) <= {"look_around"}  # the opening look; nothing chosen for the player
    assert adventure.story.state.scene == adventure.scenario.start and not adventure.story.state.flags
    asked_back = [s for s in shown if s.startswith("GM: ") and "（" in s]
    typed = [line for line in NONSENSE if line.strip()]
    assert len(asked_back) >= len(typed) * 3  # every nonsense line got options back
    empty = "何も入力されていません。GMに行動や言葉を伝えてください（/help でコマンド）"
    assert shown.count(empty) == (len(NONSENSE) - len(typed)) * 3  # an empty line is asked again, not a turn


def test_nonsense_during_creation_makes_no_character_and_ends_with_the_turns() -> None:
    adventure, outcome, _sink, shown = play("goblin_shrine", 0, NONSENSE * 2, max_turns=8)
    assert outcome.summary == "冒険はターン数の上限に達しました" and not adventure.table.party
    assert "名前" in "\n".join(shown)


def test_a_player_typing_only_flee_gets_out_of_every_fight_without_a_choice_made() -> None:
    for seed in range(6):
        adventure, _outcome, sink, shown = play(
            "goblin_shrine", seed, [*HERO, "長老に話を聞く", "森へ行く", *["逃げる"] * 30], in_battle="逃げる"
        )
        assert adventure.table.battle is None  # never stuck in the fight
        tools = [p["tool"] for k, p in sink.payloads() if k == "tool_result" and p["ok"]]
        assert not set(tools) & {"cast_spell", "situational_bonus", "target_enemy", "target_character"}
        if adventure.table.outcomes[-1] == FLED:
            assert adventure.story.state.scene == "village" and "逃げ延びた" in "\n".join(shown)
        else:  # the round the failed flight forced was the last
            assert adventure.story.state.ending == "fallen" or adventure.story.state.scene == "forest"


def test_only_flee_from_the_start_never_crashes_and_chooses_nothing() -> None:
    _adventure, _outcome, sink, shown = play("goblin_shrine", 2, [*HERO, *["逃げる"] * 10], max_turns=12)
    calls = {p["tool"] for k, p in sink.payloads() if k == "tool_result" and p["ok"]}
    assert not calls & CHOOSING_TOOLS
    assert "ここに逃げる相手はいない" in "\n".join(shown)


def test_a_greeting_is_not_silently_a_name() -> None:
    adventure, _outcome, _sink, shown = play(
        "goblin_shrine", 0, ["こんにちは", "いいえ", "アリア", "駆け出し", "未選択"], max_turns=12
    )
    text = "\n".join(shown)
    assert "「こんにちは」を名前にしますか？" in text and adventure.table.party[0].name == "アリア"
    adventure, *_ = play("goblin_shrine", 0, ["こんにちは", "はい", "2", "1"], max_turns=12)
    assert adventure.table.party[0].name == "こんにちは"  # confirmed: the player's to decide


def test_custom_equipment_follows_the_rules_and_refusals_say_why() -> None:
    plan = [
        "カイ",
        "熟練",
        "自分で選ぶ",
        "伝説の剣",
        "大剣",
        "鎖帷子",
        "小盾",
        "なし",
        "火弾、雷撃、治癒、予見",
        "火弾、雷撃",
    ]
    adventure, _outcome, _sink, shown = play("goblin_shrine", 0, plan, max_turns=12)
    text = "\n".join(shown)
    assert "両手武器なので盾は持てません" in text
    assert "熟練が覚えられる魔法は3個までです（4個指定）" in text
    kai = adventure.table.party[0]
    assert (
        kai.weapon.name == "大剣"
        and kai.shield.value == "なし"
        and [s.value for s in kai.spells] == ["火弾", "雷撃"]
    )


def test_a_cut_off_adventure_resumes_to_the_same_end(tmp_path: Path) -> None:
    lines = [*HERO, *TO_THE_BOSS, "村へ帰る"]
    spec = SessionSpec(kind="adventure", seed=1, options={"scenario": "goblin_shrine"}, backend="offline")

    def io(human: Any) -> SessionIO:
        return SessionIO(backend=OfflineBackend(), human=human, show=lambda _: None)

    battle = ["攻撃"] * 60
    whole = tmp_path / "whole.jsonl"
    expected = record_session(
        spec, io(ScriptedHuman(_interleave(lines, battle), when_done="/quit")), whole, durable=False
    )
    cut = tmp_path / "cut.jsonl"
    record_session(
        spec, io(ScriptedHuman(_interleave(lines, battle)[:12], when_done="/quit")), cut, durable=False
    )
    assert read_transcript(cut, require_end=False).end is None  # quit: no end line, resumable
    result = resume_session(
        cut, io(ScriptedHuman(_interleave(lines, battle)[12:], when_done="/quit")), durable=False
    )
    assert result.outcome.summary == expected.summary
    assert replay_transcript(read_transcript(cut)).ok


def _interleave(lines: list[str], battle: list[str]) -> list[str]:
    """The plan with enough 「攻撃」 after each fight's scene for a ScriptedHuman (a line
    said outside a fight is answered with the options and changes nothing)."""
    out: list[str] = []
    for line in lines:
        out.append(line)
        if line in ("森へ行く", "祠の門へ", "社殿の奥へ"):
            out.extend(battle[:20])
    return out


def test_the_runner_plays_a_scenario_from_the_options() -> None:
    shown: list[str] = []
    io = SessionIO(
        backend=OfflineBackend(), human=ScriptedHuman([*HERO, "依頼を断って村を去る"]), show=shown.append
    )
    outcome = get_runner("adventure")(
        SessionSpec(kind="adventure", seed=0, options={"scenario": "goblin_shrine"}), io
    )
    assert outcome.summary == "通りすがりの旅人"


def test_asking_about_the_enemies_in_a_fight_shows_them_and_changes_nothing() -> None:
    plan = [*HERO, "長老に話を聞く", "森へ行く"]
    adventure, _, _sink, shown = play("goblin_shrine", 0, plan, in_battle="頭目以外に何匹いる？", max_turns=8)
    text = "\n".join(shown)
    assert "・小鬼A HP" in text and "立っている敵は 小鬼A" in text
    assert adventure.table.battle is not None and adventure.table.battle.round_number == 1


@pytest.mark.parametrize("line", ["祠を調べる", "井戸を調べる", "城を調べる"])
def test_examining_something_not_in_the_scene_is_asked_back_never_read_as_what_is(line: str) -> None:
    adventure, _outcome, sink, shown = play("goblin_shrine", 0, [*HERO, line], max_turns=len(HERO) + 3)
    examined = [p for k, p in sink.payloads() if k == "tool_result" and p["tool"] == "examine"]
    assert examined == []  # the 掲示板 was not read in its place
    thing = line.removesuffix("を調べる")
    answer = next(s for s in shown if f"「{thing}」は、ここで調べられるものの中にありません" in s)
    assert "調べる: 掲示板" in answer  # what can be examined here is listed
    assert adventure.story.state.scene == adventure.scenario.start and not adventure.story.state.flags
