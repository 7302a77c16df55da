"""Character creation in ``gm adventure`` speaks the player's language: Japanese by default
(the same words as ever), English under ``GM_LOCALE=en``, refusals included; the rule terms
(ranks, weapons, spells) stay the rules' Japanese and are answered as shown. Each case runs
``gm adventure --script`` as a player would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gm_engine.cli import main

#: A line of the creation dialogue that is Japanese prose (kana after a rule term is not enough:
#: a question or a refusal ends in です/ください/ました/ますか or 。).
JAPANESE_PROSE = re.compile(r"(ください|ました|ますか|です|しょう)[。）]?$|。$", re.MULTILINE)


def _play(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
          locale: str, scenario: str, lines: list[str]) -> str:
    monkeypatch.setenv("GM_LOCALE", locale)
    script = tmp_path / f"{locale}-{scenario}.txt"
    script.write_text("\n".join([*lines, "/quit"]) + "\n", encoding="utf-8")
    code = main(["adventure", "--seed", "1", "--scenario", scenario, "--script", str(script), "--no-record"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


#: What the player types (a greeting taken back, a bad rank, a two-handed weapon with a shield,
#: too many spells), and what the dialogue says in each language.
FANTASY = ["こんにちは", "no", "ロイ", "伝説", "9", "novice", "custom", "大剣", "1", "小盾", "1",
           "火弾, 雷撃, 治癒", "火弾"]
FANTASY_JA = [
    "あなたのキャラクターの名前を教えてください。",
    "「こんにちは」を名前にしますか？（はい／いいえ）",
    "では、名前をもう一度どうぞ。",
    "名前は「ロイ」に決まりました。",
    "ランクを選んでください（おすすめ: 駆け出し）。\n  1. 一般人: HP10 APダイス1d6 魔法スロット0",
    "ランクは 一般人・駆け出し・熟練・英雄 のどれか（または番号 1〜4）で答えてください。",
    "ランクは駆け出しです。",
    "装備を一つずつ選びましょう。",
    "武器を選んでください: 1.素手(+0)、2.棍棒(+0)、3.短剣(+1)",
    "7.大剣(+3・両手)",
    "防具を選んでください: 1.布(防具0)、2.革(防具1)",
    "盾を選んでください: 1.なし、2.小盾、3.大盾",
    "大剣は両手武器なので盾は持てません。「なし」を選ぶか、番号 1 を。",
    "駆け出しが覚えられる魔法は2個までです（3個指定）。",
    "キャラクターができました。",
]
FANTASY_EN = [
    "What is your character's name?",
    "Name your character \"こんにちは\"? (yes/no)",
    "Then give the name again.",
    "Your character's name is \"ロイ\".",
    "Choose a rank (recommended: 駆け出し).\n  1. 一般人: HP 10, AP dice 1d6, spell slots 0",
    "Answer with a rank: 一般人, 駆け出し, 熟練 or 英雄 (or its number, 1 to 4).",
    "Rank: 駆け出し.",
    "Choose the equipment one piece at a time.",
    "Choose a weapon: 1.素手(+0), 2.棍棒(+0), 3.短剣(+1)",
    "7.大剣(+3, two-handed)",
    "Choose armour: 1.布(armour 0), 2.革(armour 1)",
    "Choose a shield: 1.なし, 2.小盾, 3.大盾",
    "大剣 is two-handed, so no shield: choose なし (none), number 1.",
    "A 駆け出し knows at most 2 spells (3 given).",
    "Your character is made.",
]


def test_the_fast_combat_creation_speaks_japanese_by_default_and_english_under_gm_locale_en(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ja = _play(capsys, monkeypatch, tmp_path, "ja", "goblin_shrine", FANTASY)
    for text in FANTASY_JA:
        assert text in ja, text
    en = _play(capsys, monkeypatch, tmp_path, "en", "goblin_shrine", FANTASY)
    for text in FANTASY_EN:
        assert text in en, text
    # the master data that follows is the combat log's, in English too (its rule terms stay)
    creation = en[en.index("What is your character's name?") : en.index("[Character master data]")]
    assert not JAPANESE_PROSE.search(creation), JAPANESE_PROSE.findall(creation)
    assert "(+3, two-handed)" in creation and "・両手" not in creation


def test_a_weapon_above_the_rank_and_a_shield_with_a_two_handed_weapon_are_refused_in_english(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = ["ロイ", "2", "3", "名匠武器", "7", "1", "2", "1", "なし"]
    ja = _play(capsys, monkeypatch, tmp_path, "ja", "goblin_shrine", lines)
    assert "名匠武器は熟練以上でないと持てません。別の武器を選んでください。" in ja
    assert "大剣は両手武器なので盾は持てません。「なし」を選ぶか、番号 1 を。" in ja
    en = _play(capsys, monkeypatch, tmp_path, "en", "goblin_shrine", lines)
    assert "名匠武器 needs rank 熟練 or higher. Choose another weapon." in en
    assert "大剣 is two-handed, so no shield: choose なし (none), number 1." in en
    assert "Your character is made." in en


def test_english_answers_choose_the_way_of_making(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    en = _play(capsys, monkeypatch, tmp_path, "en", "goblin_shrine", ["Roy", "veteran", "auto"])
    assert "Made with おまかせ (auto)." in en and "- Basics: Roy / 熟練" in en
    en = _play(capsys, monkeypatch, tmp_path, "en", "goblin_shrine", ["Roy", "hero", "unselected"])
    assert "Made with 未選択 (unselected)." in en


def test_the_guided_creation_and_its_help_speak_the_players_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = ["/help", "ミナ", "9", "1", "1", "1,2"]
    ja = _play(capsys, monkeypatch, tmp_path, "ja", "manor_diary", lines)
    for text in ("質問に答えてキャラクターを作ります。番号でも名前でも答えられます。/quit で終了。",
                 "職業を選んでください。\n  1. 私立探偵: 足で稼ぐ調査の専門家（目星60%",
                 "一覧の名前か番号（1〜3）で答えてください。", "私立探偵ですね。",
                 "得意な技能を2つ選んでください（60%になります）。読点で区切って: 1.目星、2.聞き耳",
                 "違う技能をちょうど2つ選んでください（1つ指定）。",
                 "キャラクターができました。\nミナ（私立探偵）"):
        assert text in ja, text
    en = _play(capsys, monkeypatch, tmp_path, "en", "manor_diary", lines)
    for text in ("Answer the questions to make your character, by number or by name. /quit leaves.",
                 "Choose an occupation.\n  1. Private investigator: an expert of legwork and inquiries "
                 "(Spot Hidden60%",
                 "Answer with a name or number (1 to 3) from the list.", "Private investigator, then.",
                 "Choose 2 skills you are good at (they become 60%), separated by commas: 1.Spot Hidden, "
                 "2.Listen",
                 "Choose exactly 2 different skills (1 given).",
                 "Your character is made.\nミナ (Private investigator)"):
        assert text in en, text
    en = _play(capsys, monkeypatch, tmp_path, "en", "grey_pass", ["Bree"])
    assert "Choose a calling." in en
