"""The combat engine's other errors (a character, party, enemy or encounter that breaks a rule,
an action at the wrong pause, a saved file that cannot be read) and a rule option that is not
valid reach the player in their language, from the catalogue: ``GM_LOCALE=ja`` (the default)
and ``en``, as ``gm combat`` prints them. ``str(exc)`` stays the informative English a model
or a tool caller reads, whatever the locale."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.combat import (
    Battle,
    CombatError,
    CombatOptions,
    Encounter,
    InvalidCharacterError,
    Judge,
    OutOfOrderError,
    create_character,
    make_enemy,
    storage,
)
from gm_engine.combat.enemies import propose_encounter
from gm_engine.dice.source import QueueSource
from gm_engine.messages import catalogue

#: An English sentence: three ASCII words in a row (a clause id or a quoted name is not one).
ENGLISH_SENTENCE = re.compile(r"\b[a-z]{2,}(?: [a-z']{2,}){2,}\b", re.IGNORECASE)
#: What pydantic writes when its own text leaks.
PYDANTIC = ("validation error", "errors.pydantic.dev", "Input should", "Field required", "type=")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def _japanese_only(text: str) -> bool:
    text = re.sub(r"^gm combat [a-z]+: ", "", text)
    return not ENGLISH_SENTENCE.search(text) and not any(p in text for p in PYDANTIC)


# --------------------------------------------------------------------------- the engine's errors


def _battle() -> Battle:
    party = [create_character("M", "英雄", "素手", "布")]
    return Battle.start(party, Encounter(enemies=(make_enemy("X", "雑魚", 1, 9),)), source=QueueSource([]))


#: Each family: how it is provoked, the words in Japanese, the words in English (= str(exc)).
FAMILIES: list[tuple[str, Callable[[], object], type[ValueError], str, str]] = [
    (
        "wrong pause",
        lambda: _battle().apply(Judge()),
        OutOfOrderError,
        "'judge' は ROLL で行うものです。いまはSETUP（ラウンド1）で、できるのは 宣言、魔法、または 'roll'",
        "'judge' is taken at ROLL; the battle is at SETUP (round 1); expected now: declarations, spells",
    ),
    (
        "weapon above the rank",
        lambda: create_character("A", "駆け出し", "伝説武器", "布"),
        InvalidCharacterError,
        "はランク英雄以上でないと持てません（Aは駆け出し）（§9.2）",
        "needs rank 英雄 or higher; A is 駆け出し",
    ),
    (
        "shield with a two-handed weapon",
        lambda: create_character("A", "熟練", "大剣", "布", "小盾"),
        InvalidCharacterError,
        "両手武器（大剣）では盾（小盾）を持てません（§10.1）",
        "§10.1: no shield (小盾) with a two-handed weapon (大剣)",
    ),
    (
        "unknown weapon",
        lambda: create_character("A", "熟練", "光線銃", "布"),
        InvalidCharacterError,
        "'光線銃' という武器は一覧にありません",
        "no weapon '光線銃' in the list",
    ),
    (
        "name too long",
        lambda: create_character("A" * 41, "熟練", "短剣", "布"),
        InvalidCharacterError,
        "name: 「" + "A" * 41 + "」は長すぎます（40文字まで）",
        "name: \"" + "A" * 41 + "\" is too long (at most 40 characters)",
    ),
    (
        "enemy kind",
        lambda: make_enemy("X", "ドラゴン", 1, 9),
        InvalidCharacterError,
        "'ドラゴン' は敵の種類ではありません（雑魚, エリート, ボス から選んでください）（§1.2）",
        "'ドラゴン' is not an enemy kind; choose 雑魚, エリート, ボス (§1.2)",
    ),
    (
        "regeneration",
        lambda: make_enemy("X", "雑魚", 1, 9, [("regeneration", 9)]),
        InvalidCharacterError,
        "再生は1ラウンドに1～5です。9にはできません（§3.1）",
        "§3.1: regeneration is 1..5 per round, not 9",
    ),
    (
        "two enemies, one name",
        lambda: Encounter(enemies=(make_enemy("X", "雑魚", 1, 9), make_enemy("X", "雑魚", 1, 9))),
        ValueError,
        "同じ名前の敵がいます",
        "two enemies share a name",
    ),
    (
        "fight kind",
        lambda: propose_encounter([create_character("A", "熟練", "短剣", "布")], "竜戦"),
        InvalidCharacterError,
        "'竜戦' は戦闘の種類でも難易度調整でもありません",
        "'竜戦' is not a fight kind or difficulty",
    ),
]


@pytest.mark.parametrize(
    ("family", "attempt", "kind", "japanese", "english"), FAMILIES, ids=[f[0] for f in FAMILIES]
)
def test_each_family_of_combat_error_reads_in_the_players_language(
    family: str, attempt: Callable[[], object], kind: type[ValueError], japanese: str, english: str
) -> None:
    with pytest.raises(kind) as caught:
        attempt()
    error = caught.value
    if not isinstance(error, CombatError):  # pydantic's wrapper of a model's own check
        from pydantic import ValidationError

        from gm_engine.cli._errors import error_text

        assert isinstance(error, ValidationError)
        ja, en = error_text(error, "ja"), error_text(error, "en")
    else:
        ja, en = error.describe("ja"), error.describe("en")
        assert str(error) == en  # the model's informative English, whatever the locale
    assert japanese in ja, ja
    assert _japanese_only(ja), ja
    assert english in en, en


def test_no_combat_text_of_the_japanese_catalogue_is_english() -> None:
    prefixes = ("combat.invalid.", "combat.order.", "combat.storage.", "validation.")
    texts = {k: v for k, v in catalogue("ja").items() if k.startswith(prefixes)}
    assert len(texts) >= 80
    for key, text in texts.items():
        bare = re.sub(r"\{[a-z_]+\}", "", text)
        assert not ENGLISH_SENTENCE.search(bare), key


# --------------------------------------------------------------------------- gm combat, as a player runs it


@pytest.mark.parametrize(
    ("data", "japanese", "english"),
    [
        (
            {"name": "A", "rank": "駆け出し", "weapon": {"name": "伝説の剣", "ap_bonus": 5},
             "armour": {"name": "布", "reduction": 0}, "max_slots": 1, "slots_left": 1, "hp": 10},
            "伝説武器（+5）はランク英雄以上でないと持てません（Aは駆け出し）（§9.2）",
            "§9.2: 伝説武器 (+5) needs rank 英雄 or higher; A is 駆け出し",
        ),
        (
            {"name": "A", "rank": "駆け出し", "weapon": {"name": "短剣", "ap_bonus": 1},
             "armour": {"name": "布", "reduction": 0}, "max_slots": 1, "slots_left": 1, "hp": -3, "mood": 1},
            "hp: 「-3」は小さすぎます（0以上）。mood: そういう項目はありません（使える項目: name, rank,",
            "hp: -3 is too small (at least 0); mood: no such field (the fields are: name, rank,",
        ),
    ],
)
def test_gm_combat_show_explains_a_bad_character_file_in_the_players_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    data: dict[str, object], japanese: str, english: str,
) -> None:
    path = tmp_path / "pc.json"
    path.write_text(json.dumps({"format": "gm_engine.combat.character", "version": 1, "data": data}))
    monkeypatch.setenv("GM_LOCALE", "ja")
    code, shown = _run(capsys, "combat", "show", str(path))
    assert code == 2 and japanese in shown, shown
    assert _japanese_only(shown.replace(str(path), "")), shown
    monkeypatch.setenv("GM_LOCALE", "en")
    code, shown = _run(capsys, "combat", "show", str(path))
    assert code == 2 and english in shown, shown


def test_gm_combat_show_explains_a_broken_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "party.json"
    storage.save_party(path, [create_character("A", "熟練", "短剣", "布")])
    path.write_text(path.read_text()[:-20])
    code, shown = _run(capsys, "combat", "show", str(path))
    assert code == 2 and "JSON として読めません" in shown  # an unknown kind: the command's own words
    path.write_text('{"format": "gm_engine.combat.party", "version": 1, "data": {"a": 1}}')
    code, shown = _run(capsys, "combat", "show", str(path))
    assert code == 2 and "パーティーのデータはキャラクターのリストです" in shown, shown
    monkeypatch.setenv("GM_LOCALE", "en")
    code, shown = _run(capsys, "combat", "show", str(path))
    assert code == 2 and "a party's data is a list of characters" in shown, shown


@pytest.mark.parametrize(
    ("options", "japanese", "english"),
    [
        ("x", "--options が正しくありません: 1行1文字目から JSON として読めません",
         "bad --options: not valid JSON from line 1, column 1 on"),
        ('{"mana_shield": 3}', "mana_shield: そういう項目はありません（使える項目: mana_shield_amount,",
         "mana_shield: no such field (the fields are: mana_shield_amount,"),
        ('{"narrative_priority_ratio": "a"}', "narrative_priority_ratio: 「a」は数ではありません",
         "narrative_priority_ratio: 'a' is not a number"),
        ('{"encounter_basis": "zz"}', "encounter_basis: 「zz」は選べません（選べるもの: forecast, rank_dice,",
         "encounter_basis: 'zz' is not a choice (choose from forecast, rank_dice,"),
        ('{"overcasts_per_character": -1, "mana_shield_amount": true}',
         "overcasts_per_character: 「-1」は小さすぎます（0以上）",
         "overcasts_per_character: -1 is too small (at least 0)"),
        ("[1]", "JSON のオブジェクト", "must be a JSON object"),
    ],
)
@pytest.mark.parametrize("command", ["demo", "simulate"])
def test_bad_rule_options_name_the_option_what_was_wrong_and_what_is_accepted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    command: str, options: str, japanese: str, english: str,
) -> None:
    monkeypatch.delenv("GM_LOCALE", raising=False)
    code, shown = _run(capsys, "combat", command, "--options", options)
    assert code == 2 and japanese in shown, shown
    assert _japanese_only(shown), shown
    monkeypatch.setenv("GM_LOCALE", "en")
    code, shown = _run(capsys, "combat", command, "--options", options)
    assert code == 2 and english in shown, shown
    assert not any(p in shown for p in PYDANTIC), shown


def test_good_rule_options_still_play() -> None:
    from gm_engine.cli.combat import rule_options

    assert rule_options('{"life_check_target": 12}') == CombatOptions(life_check_target=12)
    assert rule_options(None) == CombatOptions()


@pytest.mark.parametrize(
    ("argv", "japanese", "english"),
    [
        (["--kind", "竜戦"], "--kind: 「竜戦」は選べません（選べるもの: 雑魚戦, エリート戦, ボス戦）",
         "--kind: '竜戦' is not a choice"),
        (["--sizes", "a"], "--sizes: 「a」は整数ではありません", "--sizes: 'a' is not a whole number"),
        (["--fights", "0"], "--fights は1～100000です", "--fights is 1..100000"),
    ],
)
def test_gm_combat_simulates_arguments_are_explained_in_the_players_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    argv: list[str], japanese: str, english: str,
) -> None:
    code, shown = _run(capsys, "combat", "simulate", *argv)
    assert code == 2 and japanese in shown, shown
    monkeypatch.setenv("GM_LOCALE", "en")
    code, shown = _run(capsys, "combat", "simulate", *argv)
    assert code == 2 and english in shown, shown


@pytest.mark.parametrize(
    ("argv", "japanese", "english"),
    [
        (["werewolf", "play", "--rounds", "0", "--no-record"],
         "ゲームの設定が正しくありません: discussion_rounds: 「0」は小さすぎます（1以上）",
         "the game's options are not valid: discussion_rounds: 0 is too small (at least 1)"),
        (["adventure", "--max-turns", "0", "--no-record"],
         "ゲームの設定が正しくありません: max_turns: 「0」は小さすぎます（1以上）",
         "the game's options are not valid: max_turns: 0 is too small (at least 1)"),
    ],
)
def test_the_play_commands_options_say_what_was_wrong_in_the_players_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    argv: list[str], japanese: str, english: str,
) -> None:
    for locale, expected in (("ja", japanese), ("en", english)):
        monkeypatch.setenv("GM_LOCALE", locale)
        code, shown = _run(capsys, *argv)
        assert code == 2 and expected in shown, shown
