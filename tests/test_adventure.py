"""The solo adventure end to end: with the scripted backend and with the offline GM."""

from __future__ import annotations

from typing import Any

import pytest

from gm_engine.llm.base import ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.adventure import parse_character_answer
from gm_engine.sessions.base import ListSink, SessionError, SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner
from gm_engine.tools.base import response_with_calls


def play(backend: Any, lines: list[str], seed: int, *, when_done: str = "次へ", **options: Any) -> tuple[
    SessionOutcome, ListSink, list[str], ScriptedHuman
]:
    sink = ListSink()
    shown: list[str] = []
    human = ScriptedHuman(lines, when_done=when_done)
    spec = SessionSpec(kind="adventure", seed=seed, options=options)
    io = SessionIO(backend=backend, human=human, sink=sink, show=shown.append)
    outcome = get_runner("adventure")(spec, io)
    return outcome, sink, shown, human


def offers(request: ModelRequest) -> set[str]:
    return {t.name for t in request.tools}


def offered(*names: str) -> Any:
    def match(request: ModelRequest) -> bool:
        return request.actor == "gm" and set(names) <= offers(request)

    match.__name__ = f"offers {', '.join(names)}"
    return match


def test_offline_adventure_plays_a_fight_to_the_end() -> None:
    lines = ["アリア 駆け出し おまかせ", "慎重に進む", "火弾で攻撃"]
    outcome, sink, shown, human = play(OfflineBackend(), lines, seed=0)
    assert outcome.summary == "アリアは小鬼の頭目を退けた（PC陣営の勝利）"
    assert outcome.figures["battles"] == 1
    assert outcome.figures["model_calls"] == outcome.figures["turns"] + 6  # tool round trips within turns
    text = "\n".join(shown)
    labels = (
        "【キャラクターマスターデータ】",
        "【BATTLE_SETUP】",
        "〈ROLL_LOG〉",
        "〈BATTLE_JUDGE LOG〉",
        "【戦闘終了】",
    )
    for label in labels:
        assert label in text
    assert "(3D6>=10)" in text  # the check went through the dice engine
    assert "【火弾】" in text  # the spell was cast through the engine
    assert "一日休息した" in text  # the offline GM rests the party after the fight
    assert "【セッション状況】" in shown[-2] and "【魔法スロットの残り】 2/2" in shown[-2]
    kinds = [k for k, _ in sink.payloads()]
    assert kinds.count("human_input") == human.asked
    assert "dice" in kinds and "state" in kinds
    assert not [p for k, p in sink.payloads() if k == "tool_result" and not p["ok"]]
    assert "モデルの呼び出し（adventure）" in shown[-1]  # not the seed: shown when the player quits too


def test_offline_adventure_is_the_same_game_for_the_same_seed() -> None:
    first = play(OfflineBackend(), ["ボブ 一般人 未選択"], seed=7)
    second = play(OfflineBackend(), ["ボブ 一般人 未選択"], seed=7)
    assert first[1].payloads() == second[1].payloads()
    assert first[2][:-1] == second[2][:-1]  # the last line is the ledger, with measured latency
    third = play(OfflineBackend(), ["ボブ 一般人 未選択"], seed=8)
    dice = [p for k, p in first[1].payloads() if k == "dice"]
    assert [p for k, p in third[1].payloads() if k == "dice"] != dice


def test_scripted_gm_reaches_the_engine_only_through_tools_and_errors_change_nothing() -> None:
    kai = {"name": "カイ", "rank": "駆け出し", "weapon": "大剣", "armour": "革", "shield": "小盾"}
    kai["spells"] = ["雷撃"]  # type: ignore[assignment]
    script = [
        # turn 0: greet
        (offered("create_character", "roll_dice"), ModelResponse(content="ようこそ。あなたの名前は？")),
        # turn 1: a two-handed sword with a shield is refused by the rules, then a legal sheet
        ("gm", response_with_calls(("create_character", kai))),
        ("gm", response_with_calls(("create_character", {**kai, "weapon": "長剣"}))),
        (offered("start_battle", "skill_check"), ModelResponse(content="カイ、準備はいいか？")),
        # turn 2: the fight starts; the engine pauses at BATTLE_SETUP
        ("gm", response_with_calls(("start_battle", {"kind": "エリート戦", "difficulty": ["弱い", "長引く"],
                                                     "enemy_name": "狼"}))),
        # turn 3: skipping to judge is not offered; then the spell and the roll
        (offered("cast_spell", "battle_step"), response_with_calls(("battle_step", {"step": "judge"}))),
        ("gm", response_with_calls(("cast_spell", {"caster": "カイ", "spell": "雷撃"}))),
        ("gm", response_with_calls(("battle_step", {"step": "roll"}))),
        # turn 4: judge; turn 5: narrate, then the narration
        ("gm", response_with_calls(("battle_step", {"step": "judge"}))),
        ("gm", response_with_calls(("battle_step", {"step": "narrate"}))),
        ("gm", ModelResponse(content="狼は倒れた。")),
        # turn 6: end the battle, close the story
        ("gm", response_with_calls(("battle_step", {"step": "end"}))),
        (offered("end_adventure"), response_with_calls(("end_adventure", {"summary": "カイは狼を退けた"}),
                                                       content="森に静けさが戻った。")),
    ]
    with ScriptedBackend(script) as backend:
        lines = ["カイ", "戦う", "雷撃！戦闘開始", "ok", "ok", "ok"]
        outcome, sink, shown, human = play(backend, lines, seed=0)
    assert outcome.summary == "カイは狼を退けた"
    assert human.asked == 6
    results = [p for k, p in sink.payloads() if k == "tool_result"]
    failed = [p for p in results if not p["ok"]]
    assert len(failed) == 2
    assert "two-handed" in failed[0]["result"] or "両手" in failed[0]["result"]
    assert "step" in failed[1]["result"] and '"roll"' in failed[1]["result"]
    # the refused calls changed nothing: one character, and the state hash did not move on them
    states = [p["step"] for k, p in sink.payloads() if k == "state"]
    assert states[0] == "create_character" and states.count("create_character") == 1
    assert states.count("cast") == 1
    text = "\n".join(shown)
    assert "〈BATTLE_JUDGE LOG〉" in text and "【雷撃】" in text
    # each engine pause handed the turn back: the human was asked right after it
    kinds = [k for k, _ in sink.payloads()]
    for i, (kind, payload) in enumerate(sink.payloads()):
        if kind == "tool_result" and payload["ok"] and payload["tool"] == "battle_step" and (
            '"roll"' in payload["arguments"] or '"judge"' in payload["arguments"]
        ):
            assert "human_input" in kinds[i + 1 : i + 4]


def test_scripted_gm_breaking_the_budget_hands_the_turn_back() -> None:
    bad = response_with_calls(("roll_dice", {"command": "not a roll", "reason": "x"}))
    script = [("gm", bad)] * 3  # a fourth call would fail the scripted backend
    with ScriptedBackend(script) as backend:
        outcome, sink, _, human = play(backend, ["/quit"], seed=1, retry_budget=2, when_done="/quit")
    assert outcome.summary == "プレイヤーが卓を離れました"
    errors = [p["result"] for k, p in sink.payloads() if k == "tool_result" and not p["ok"]]
    assert len(errors) == 3 and "not a dice command of DiceBot" in errors[0]
    assert not [k for k, _ in sink.payloads() if k == "dice"]  # no die was consumed by the refused lines
    assert human.asked == 1  # the turn ended at the budget and the player was asked


def test_bad_options_and_character_answers() -> None:
    with pytest.raises(SessionError, match="unknown game system"):
        play(OfflineBackend(), [], seed=1, system="NoSuchSystem")
    assert parse_character_answer("アリア 熟練 未選択") == ("アリア", "熟練", "未選択")
    assert parse_character_answer("  ") == ("名無しの旅人", "駆け出し", "おまかせ")
    assert parse_character_answer("  ", "en") == ("Nameless Traveller", "駆け出し", "おまかせ")
    assert parse_character_answer("熟練 auto", "en") == ("Nameless Traveller", "熟練", "おまかせ")


KIND = "雑魚戦"
YUU = {"name": "ユウ", "rank": "英雄", "preset": "未選択"}


def test_budget_running_out_in_a_battle_moves_it_on_and_is_recorded() -> None:
    bad = response_with_calls(("battle_step", {"step": "judge"}))  # not legal at SETUP
    script = [
        ("gm", ModelResponse(content="名前は？")),
        ("gm", response_with_calls(("create_character_preset", YUU))),
        ("gm", response_with_calls(("start_battle", {"kind": KIND, "difficulty": [], "enemy_name": "蟻"}))),
        *[("gm", bad)] * 3,
    ]
    with ScriptedBackend(script) as backend:
        outcome, sink, shown, human = play(
            backend, ["ユウ", "戦闘開始"], seed=2, retry_budget=2, history_turns=1, when_done="/quit"
        )
    fallbacks = [p for k, p in sink.payloads() if k == "fallback"]
    assert fallbacks == [{"actor": "gm", "tool": "battle_step", "arguments": {"step": "roll"},
                          "reason": fallbacks[0]["reason"]}]
    assert "allowed: \"roll\"" in fallbacks[0]["reason"]
    assert "〈ROLL_LOG〉" in "\n".join(shown)
    assert human.asked == 3 and outcome.summary == "プレイヤーが卓を離れました"
    # history_turns=1: after the first player line, the GM is sent the system prompt and the last turn only
    fourth = backend.requests[3]
    assert fourth.messages[0]["role"] == "system"
    assert fourth.messages[1]["role"] == "user" and fourth.messages[1]["content"].startswith("戦闘開始")
    assert len(fourth.messages) == 2


def test_a_recorded_adventure_replays_and_a_changed_rule_outcome_is_caught(tmp_path: Any) -> None:
    from gm_engine.transcripts.format import read_transcript
    from gm_engine.transcripts.record import record_session
    from gm_engine.transcripts.replay import replay_transcript

    path = tmp_path / "adventure.jsonl"
    spec = SessionSpec(kind="adventure", seed=4)
    human = ScriptedHuman(["レン 熟練 おまかせ"], when_done="次へ")
    io = SessionIO(backend=OfflineBackend(), human=human, show=lambda t: None)
    record_session(spec, io, path, remember_seed=False, durable=False)
    report = replay_transcript(read_transcript(path))
    assert report.ok, report.describe()
    assert report.model_calls > 5 and report.human_inputs >= 3

    # a GM that behaves differently (skips the check) is a divergence the replay reports
    def other_runner(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
        from gm_engine.sessions import adventure, adventure_runner

        original = adventure.Adventure.offers

        def offers(self: adventure.Adventure) -> list[Any]:
            return [o for o in original(self) if o.name != "skill_check"]

        adventure.Adventure.offers = offers  # type: ignore[method-assign]
        try:
            return adventure_runner.run_adventure(spec, io)
        finally:
            adventure.Adventure.offers = original  # type: ignore[method-assign]

    diverged = replay_transcript(read_transcript(path), runner=other_runner)
    assert not diverged.ok and diverged.divergence is not None


def test_status_and_help_are_answered_by_the_engine_without_a_gm_turn() -> None:
    outcome, sink, shown, _ = play(OfflineBackend(), ["/status", "/help", "ロイ", "/status"], seed=3)
    assert "（キャラクターはまだいない）" in shown
    assert any("/status" in line for line in shown)
    assert any(line.startswith("【ロイ】") for line in shown)  # the status after the character exists
    said = [p["content"] or "" for k, p in sink.payloads() if k == "model_response"]
    greetings = [text for text in said if "ようこそ" in text]
    assert len(greetings) == 1
    assert outcome.summary.startswith("ロイは")


def test_an_empty_line_is_asked_again_and_is_not_a_gm_turn() -> None:
    plain, plain_sink, plain_shown, _ = play(OfflineBackend(), ["ロイ", "慎重に進む"], seed=3)
    lines = ["", "ロイ", "  ", "\u3000", "慎重に進む"]
    blank, blank_sink, blank_shown, _ = play(OfflineBackend(), lines, seed=3)
    asked_again = "何も入力されていません。GMに行動や言葉を伝えてください（/help でコマンド）"
    assert blank_shown.count(asked_again) == 3
    assert asked_again not in plain_shown
    timing = {"model_latency_s"}
    assert {k: v for k, v in blank.figures.items() if k not in timing} == {
        k: v for k, v in plain.figures.items() if k not in timing
    }
    def untimed(shown: list[str]) -> list[str]:  # the model-call ledger line holds wall-clock times
        return [line for line in shown if line != asked_again and "応答時間" not in line]

    assert untimed(blank_shown) == untimed(plain_shown)
    assert len(untimed(plain_shown)) == len(plain_shown) - 1
    said = [p for k, p in blank_sink.payloads() if k == "model_response"]
    assert said == [p for k, p in plain_sink.payloads() if k == "model_response"]


def test_player_commands_rest_and_spell_change_are_answered_by_the_engine() -> None:
    lines = ["ロイ 熟練 おまかせ", "[魔法変更: 雷撃, 予見, 大爆発]", "[魔法変更: 雷撃, 予見, 治癒, 火弾]",
             "［魔法変更：雷撃、【予見】］", "/rest", "慎重に進む"]
    outcome, sink, shown, _ = play(OfflineBackend(), lines, seed=3)
    text = "\n".join(shown)
    assert "魔法変更できません: 知らない魔法 大爆発" in text
    assert "スロットの数（3）まで" in text
    assert "■ 魔法：スロット(3/3) / 【雷撃】、【予見】" in text
    assert "戦闘中は" not in text
    steps = [p["step"] for k, p in sink.payloads() if k == "state"]
    assert steps.count("change_spells") == 1 and "rest" in steps
    said = [p["content"] or "" for k, p in sink.payloads() if k == "model_response"]
    assert not any("呪文書" in line for line in said)  # the bracket command is the engine's, not the GM's
    footers = [line for line in shown if line.startswith("【セッション状況】")]
    assert footers and all("【魔法スロットの残り】" in line for line in footers)
    assert outcome.summary.startswith("ロイは")


def test_offline_gm_changes_spells_the_player_asks_for_in_words() -> None:
    _, sink, shown, _ = play(OfflineBackend(), ["ミナ 駆け出し おまかせ", "魔法は雷撃と予見にしたい"], seed=4)
    assert "■ 魔法：スロット(2/2) / 【雷撃】、【予見】" in "\n".join(shown)
    calls = [p for k, p in sink.payloads() if k == "tool_result" and p.get("tool") == "change_spells"]
    assert calls and all(p["ok"] for p in calls)


def test_the_free_form_offline_gm_casts_nothing_and_grants_no_bonus_unasked() -> None:
    _outcome, sink, shown, _human = play(OfflineBackend(), ["アリア 駆け出し おまかせ", "慎重に進む"], seed=0)
    tools = [p["tool"] for k, p in sink.payloads() if k == "tool_result" and p["ok"]]
    assert "situational_bonus" not in tools and "cast_spell" not in tools
    assert "逃げ去った" not in "\n".join(shown)  # the foe fell: the ending says so
