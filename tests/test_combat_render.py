"""The document's display formats: §7 / §13.2 status, §14.2 master data, §4.1–§4.4 logs."""

from __future__ import annotations

from gm_engine.combat import (
    Battle,
    CastSpell,
    Encounter,
    Judge,
    Narrate,
    RollDice,
    create_character,
    make_enemy,
)
from gm_engine.combat.render import PAUSE, master_data, status_display
from gm_engine.dice.source import QueueSource

HERO = create_character("アリア", "熟練", "長剣", "鎖帷子", "小盾", ["火弾", "治癒"])


def test_status_display_7() -> None:
    assert status_display(HERO.evolve(hp=18, slots_left=1)) == (
        "HP: 18 / 22\nAP: 3d6 + 2\n魔法スロット: 残り 1 / 3\n状態: 正常"
    )


def test_status_display_compact_13_2() -> None:
    assert status_display(HERO, compact=True).splitlines()[2] == "魔法スロット: 残り 3"


def test_status_shows_lasting_costs_and_negative_equipment() -> None:
    from gm_engine.combat import LastingCost, Spell

    burdened = create_character("B", "一般人", "素手", "布", "大盾").evolve(
        lasting_costs=(LastingCost(spell=Spell.FIREBALL, max_hp_loss=5),), hp=5
    )
    lines = status_display(burdened).splitlines()
    assert lines[0] == "HP: 5 / 5"
    assert lines[1] == "AP: 1d6 - 1"
    assert lines[3] == "状態: 正常（因果の歪み: 最大HP−5）"


def test_master_data_14_2() -> None:
    assert master_data(HERO).splitlines() == [
        "【キャラクターマスターデータ】",
        "■ 基本情報：アリア / 熟練 / Bレベル",
        "■ 戦闘ステータス：最大HP 22 / 現在HP 22 / 基礎AP(3d6) / 装備補正(+2)",
        "■ 装備：長剣（AP+2・片手） / 鎖帷子（軽減2） / 小盾（防護+1）",
        "■ 魔法：スロット(3/3) / 【火弾】、【治癒】",
        "■ 状態：正常 / 特記事項 なし",
    ]


def test_logs_4_1_to_4_4() -> None:
    encounter = Encounter(enemies=(make_enemy("首領", "ボス", 6, 20), make_enemy("手下", "雑魚", 3, 5)))
    source = QueueSource([(v, 6) for v in [2, 3, 4, 5, 6, 6, 1]])
    battle = Battle.start([HERO], encounter, source=source)
    setup = battle.apply(CastSpell(caster="アリア", spell="火弾")).text.splitlines()
    assert setup[0] == "【BATTLE_SETUP】ラウンド 1"
    assert setup[1] == "・PC陣営基礎AP: 3d6（アリア 3d6） + 装備補正[+2] + 【火弾】(アリア) 1d6"
    assert setup[2] == "・敵陣営基礎AP: 固定[9] + 3d6（首領 3d6） + 補正[+2]（群れ補正 +2）"
    assert setup[-2] == (
        "・待機メッセージ: 「両陣営のAP算出ダイスを振ります。『戦闘開始』と入力してください。」"
    )
    assert setup[-1] == PAUSE
    roll = battle.apply(RollDice()).text.splitlines()
    assert roll[:7] == [
        "〈ROLL_LOG〉ラウンド 1",
        "PC_Dice: [2, 3, 4] (Total: 9)",  # the rank dice only (§4.2's code)
        "  アリア AP 3d6 [2, 3, 4]",
        "Spell_Dice: [5] (Total: 5)",
        "  アリア 火弾 1d6 [5]",
        "Enemy_Dice: [6, 6, 1] (Total: 13)",
        "  首領 AP 3d6 [6, 6, 1]",
    ]
    assert roll[-1] == PAUSE
    judge = battle.apply(Judge()).text.splitlines()
    assert judge[:4] == [
        "〈BATTLE_JUDGE LOG〉ラウンド 1",
        "・PC陣営最終AP: 16（ダイス 9 + 装備補正 2 + 【火弾】(アリア) 5）",
        "・敵陣営最終AP: 24（ダイス 13 + 固定AP 9 + 群れ補正 2）",
        "・差分: 8 → 敵陣営の勝利",
    ]
    assert "・ダメージ: アリア ← 差分 8 − 防具(鎖帷子) 2 − 小盾 1 = 5（HP 22 → 17）" in judge
    assert judge[-1] == PAUSE
    brief = battle.apply(Narrate()).text
    assert brief.startswith("[MODE: NARRATIVE] ラウンド 1")
    assert "アリア に 5 ダメージ（HP 22 → 17）" in brief
    assert "次のラウンドの [MODE: SETUP]" in brief


def test_session_status_names_slots_left_5_2() -> None:
    from gm_engine.combat.render import session_status

    assert session_status([HERO.evolve(slots_left=2)]).splitlines() == [
        "【セッション状況】",
        "・アリア: HP 22/22 / 【魔法スロットの残り】 2/3 / 状態 正常",
    ]
