"""A refused combat action carries its reason as a catalogue message: the player reads it in
their language (ja, en), while ``str(exc)`` stays the same informative English for a model or
a tool caller, whatever the player's locale (a recorded tool result replays byte for byte).

One test per family of refusal, each as the player meets it: the battle's own refusals, the
spells cast outside a battle, the adventure's ``/rest`` and ``[魔法変更: …]``, and ``gm combat``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from gm_engine.combat import (
    Battle,
    CastSpell,
    Character,
    CombatOptions,
    Encounter,
    Enemy,
    IllegalActionError,
    SetSituationalBonus,
    TargetEnemy,
    cast_out_of_combat,
    create_character,
    make_enemy,
)
from gm_engine.combat.actions import parse_action
from gm_engine.dice.source import QueueSource
from gm_engine.llm.offline import OfflineBackend
from gm_engine.messages import catalogue
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner
from gm_engine.tools.combat import CombatTable

#: An English sentence: three ASCII words in a row (a clause id or a quoted name is not one).
ENGLISH_SENTENCE = re.compile(r"\b[a-z]{2,}(?: [a-z']{2,}){2,}\b", re.IGNORECASE)


def _mage(name: str = "M", spells: Sequence[str] = ("雷撃",), rank: str = "英雄") -> Character:
    return create_character(name, rank, "素手", "布", "なし", spells)


def _battle(party: Sequence[Character], enemies: Sequence[Enemy], **options: Any) -> Battle:
    source = QueueSource([(1, 6)] * 40)
    encounter = Encounter(enemies=tuple(enemies))
    return Battle.start(party, encounter, source=source, options=CombatOptions(**options))


def _refusal(attempt: Callable[[], object]) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as caught:
        attempt()
    return caught.value


def _a_battle() -> Battle:
    return _battle([_mage(), _mage("N", spells=("治癒",))], [make_enemy("X", "雑魚", 1, 9)])


#: Each family of refusal: how it is provoked, and the words it must hold in Japanese and in
#: English (``str(exc)``, the model's words, is the English one with the clause). A tool call
#: that is no well-formed action (NotWellFormed) is a model's mistake only, and carries the
#: validator's own English words as its parameter: not a family a player meets.
FAMILIES: list[tuple[str, Callable[[], object], str, str]] = [
    (
        "lookup",
        lambda: _a_battle().apply(TargetEnemy(enemy="Y")),
        "'Y' という敵はいません（敵: X）",
        "no enemy called 'Y'; the enemies are X",
    ),
    (
        "situational bonus",
        lambda: _a_battle().apply(SetSituationalBonus(character="M", bonus=9)),
        "Mの状況補正は-5～+5です（ランク英雄）。+9にはできません（§9.1, §14.1 状況補正上限）",
        "M's situational bonus must be -5..+5 (rank 英雄), not +9 (§9.1, §14.1 状況補正上限)",
    ),
    (
        "spell not known",
        lambda: _a_battle().apply(CastSpell(caster="M", spell="火弾")),
        "Mは【火弾】を覚えていません（覚えている魔法: 雷撃）（§5.1）",
        "M does not know 【火弾】 (knows: 雷撃) (§5.1)",
    ),
    (
        "spell target",
        lambda: _a_battle().apply(CastSpell(caster="N", spell="治癒")),
        "【治癒】には対象のPCが必要です",
        "【治癒】 needs a target PC",
    ),
    (
        "narrative priority",
        lambda: _battle([_mage(rank="駆け出し", spells=())], [make_enemy("X", "ボス", 40, 99)]).apply(
            parse_action({"kind": "narrative_priority", "reason": "r"})
        ),
        "PC側が圧倒的ではありません",
        "the PC side is not overwhelming",
    ),
    (
        "out of combat",
        lambda: cast_out_of_combat([_mage()], "M", "雷撃", QueueSource([])),
        "【雷撃】は戦闘の外では効果がありません（§6.2）",
        "【雷撃】 has no effect outside a battle (§6.2)",
    ),
    (
        "table",
        lambda: CombatTable(QueueSource([])).rest(),
        "休息するキャラクターがまだいません",
        "there is no character to rest",
    ),
]


@pytest.mark.parametrize(("family", "attempt", "japanese", "english"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_each_family_of_refusal_reads_in_the_players_language(
    monkeypatch: pytest.MonkeyPatch, family: str, attempt: Callable[[], object], japanese: str, english: str
) -> None:
    monkeypatch.setenv("GM_LOCALE", "ja")  # the model's words do not follow the player's locale
    error = _refusal(attempt)
    ja, en = error.describe("ja"), error.describe("en")
    assert japanese in ja, ja
    assert not ENGLISH_SENTENCE.search(ja.replace("narrative_priority_ratio", "")), ja
    assert english in en, en
    assert str(error) == en  # the model's (and a tool caller's) informative English
    assert error.reason.key.startswith("combat.refused.")


def test_every_combat_refusal_is_japanese_in_the_japanese_catalogue() -> None:
    texts = {k: v for k, v in catalogue("ja").items() if k.startswith("combat.refused.")}
    assert len(texts) >= 40
    for key, text in texts.items():
        bare = re.sub(r"\{[a-z_]+\}", "", text).replace("narrative_priority_ratio", "")
        bare = bare.replace("overcasts_per_character", "").replace("halve か endure", "")
        assert not ENGLISH_SENTENCE.search(bare), key


# --------------------------------------------------------------------------- the adventure


def _adventure(lines: list[str], **options: Any) -> list[str]:
    shown: list[str] = []
    spec = SessionSpec(kind="adventure", seed=3, options=options)
    io = SessionIO(backend=OfflineBackend(), human=ScriptedHuman(lines, when_done="次へ"), sink=ListSink(),
                   show=shown.append)
    get_runner("adventure")(spec, io)
    return shown


#: What the player types, and what the engine answers in each language.
ADVENTURE = [
    (["/rest", "ロイ 熟練 おまかせ"], "休息できません: 休息するキャラクターがまだいません",
     "cannot rest: there is no character to rest"),
    (["[魔法変更: 火弾]", "ロイ 熟練 おまかせ"], "魔法変更できません: キャラクターがまだいません",
     "cannot change spells: there is no character yet"),
    (["ロイ 熟練 おまかせ", "慎重に進む", "/rest"], "休息できません: 戦闘中は休息できません",
     "cannot rest: no rest during a battle"),
    (["ロイ 熟練 おまかせ", "慎重に進む", "[魔法変更: 火弾]"],
     "魔法変更できません: 戦闘中は魔法を変更できません",
     "cannot change spells: spells cannot be changed during a battle"),
    (["ロイ 熟練 おまかせ", "[魔法変更: 大爆発]"], "魔法変更できません: 知らない魔法 大爆発",
     "cannot change spells: unknown spells 大爆発"),
    (["ロイ 熟練 おまかせ", "[魔法変更: 火弾, 火弾]"], "魔法変更できません: 同じ魔法が二度書かれています",
     "cannot change spells: a spell is named twice"),
]


@pytest.mark.parametrize(("lines", "japanese", "english"), ADVENTURE)
def test_the_adventures_refusals_are_in_the_players_language(
    lines: list[str], japanese: str, english: str
) -> None:
    shown_ja = "\n".join(_adventure(lines))
    assert japanese in shown_ja
    assert english not in shown_ja
    shown_en = "\n".join(_adventure(lines, locale="en"))
    assert english in shown_en
    assert japanese not in shown_en


def test_gm_adventure_takes_the_locale_from_gm_locale(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from gm_engine.cli import main
    from gm_engine.transcripts.format import read_transcript

    script = tmp_path / "lines.txt"
    script.write_text("/rest\n/quit\n", encoding="utf-8")
    for locale, expected in (("en", {"locale": "en"}), ("ja", {})):
        monkeypatch.setenv("GM_LOCALE", locale)
        path = tmp_path / f"{locale}.jsonl"
        main(["adventure", "--seed", "1", "--scenario", "none", "--script", str(script),
              "--record", str(path)])
        options = read_transcript(path, require_end=False).header.options
        assert {k: v for k, v in options.items() if k == "locale"} == expected


# --------------------------------------------------------------------------- the play commands' own words


@pytest.mark.parametrize(
    ("locale", "japanese", "english"),
    [("ja", "そのファイルかフォルダーはありません", None), ("en", None, "there is no such file")],
)
def test_a_missing_file_is_said_in_the_players_words_not_pythons(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    locale: str, japanese: str | None, english: str | None,
) -> None:
    from gm_engine.cli import main

    monkeypatch.setenv("GM_LOCALE", locale)
    missing = tmp_path / "nope.jsonl"
    commands = [
        ["resume", str(missing)],
        ["adventure", "--script", str(missing), "--no-record"],
    ]
    for command in commands:
        capsys.readouterr()
        assert main(command) == 2
        err = capsys.readouterr().err
        assert "Errno" not in err and "No such file" not in err, err
        assert (japanese or english or "") in err, err


def test_an_adventure_left_early_is_summed_up_in_the_players_language() -> None:
    from gm_engine.sessions.base import SessionOutcome

    def summary(**options: Any) -> SessionOutcome:
        spec = SessionSpec(kind="adventure", seed=1, options=options)
        io = SessionIO(backend=OfflineBackend(), human=ScriptedHuman(["/quit"]), sink=ListSink(),
                       show=lambda _: None)
        return get_runner("adventure")(spec, io)

    assert summary().summary == "プレイヤーが卓を離れました"
    assert summary(locale="en").summary == "the player left the table"


def test_the_adventure_asks_and_helps_in_the_players_language() -> None:
    for locale, prompt, help_line in (
        ("ja", "あなた> ", "  /rest    一日休息して魔法スロットを回復（戦闘の外で）"),
        ("en", "you> ", "  /rest    rest a day: the spell slots come back (outside a fight)"),
    ):
        sink = ListSink()
        shown: list[str] = []
        human = ScriptedHuman(["/help", "/quit"])
        spec = SessionSpec(kind="adventure", seed=1, options={} if locale == "ja" else {"locale": locale})
        get_runner("adventure")(spec, SessionIO(backend=OfflineBackend(), human=human, sink=sink,
                                                show=shown.append))
        assert [p["prompt"] for k, p in sink.payloads() if k == "human_input"] == [prompt]
        assert any(help_line in text for text in shown), shown
