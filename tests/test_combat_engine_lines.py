"""The combat engine's own lines (a spell declared, a slot spent, 再生 at SETUP, the judge's
notes of 【蘇生】, 【崩壊】 and 【予見】) come from the catalogue: written in Japanese into
the state exactly as before, read back into their messages, and shown in English under
the English locale with only the rules' terms and the names left Japanese."""

from __future__ import annotations

import random

import pytest

from gm_engine.combat import Battle, CastSpell, Encounter, create_character, make_enemy
from gm_engine.combat.actions import Action
from gm_engine.combat.battle import cast_out_of_combat
from gm_engine.combat.characters import Character
from gm_engine.combat.lines import ENGINE_LINES, read_line, written
from gm_engine.combat.render import engine_line
from gm_engine.combat.spells import Spell
from gm_engine.dice.source import SeededSource
from gm_engine.messages import MESSAGES, Message, render
from gm_engine.messages import texts as t
from tests.test_adventure_english_screen import RULE_TERMS, japanese_left

#: Names that hold the lines' own words and punctuation, so a reading cannot lean on them.
NAMES = ("アリア", "は ベル", "カイ: 2", "ロウ（対象: X）")

#: The party and the enemies of the random fights: every spell known by someone.
PARTY_NAMES = ("アリア", "ベル", "カイ")
ENEMY_NAMES = ("オーガ", "黒騎士", "ゴブリン")


def samples(kind: type[Message]) -> list[Message]:
    """Instances of ``kind`` with every name of NAMES in its text fields."""
    out = []
    for name in NAMES:
        values: dict[str, object] = {}
        for field in kind.field_names:
            hint = kind.__annotations__.get(field)
            values[field] = 7 if hint in ("int", int) else name
        out.append(kind(**values))
    return out


@pytest.mark.parametrize("kind", ENGINE_LINES, ids=lambda k: k.key)
def test_every_engine_line_is_read_back_into_its_message(kind: type[Message]) -> None:
    for message in samples(kind):
        text = written(message)
        assert read_line(text) == message, text
        # and another locale's text holds no Japanese but what the parameters brought
        english = render(message, "en")
        assert japanese_left(english, (*RULE_TERMS, *NAMES)) == [], english


def test_every_line_message_is_read() -> None:
    lines = {k for k in MESSAGES.values() if k.key.startswith("combat.engine.")}
    not_lines = {
        t.EngineLastingCost, t.EngineAbilityAp, t.EngineAbilityArmour, t.EngineAbilityHinder,
        t.EngineAbilityRegeneration, t.EngineDiceLifeCheck, t.EngineDiceHeal,
    }  # fmt: skip
    assert lines - not_lines == set(ENGINE_LINES)


def test_any_other_text_is_not_read_and_stays_as_it_is() -> None:
    for text in ("", "アリアは走った", "攻撃目標", "ラウンド X 開始", "【蘇生】: アリア の次の生死判定"):
        assert read_line(text) is None
        assert engine_line(text, "en") == text


def test_the_japanese_lines_are_the_rules_documents_words() -> None:
    # the texts as the engine wrote them before they came from the catalogue
    cast = written(t.EngineCastAt("アリア", "【蘇生】", "ベル"))
    assert cast == "アリア は 【蘇生】 を唱えた（対象: ベル）"
    assert written(t.EngineOvercast("アリア", 5, 22, 17)) == (
        "アリア: スロット切れ — 因果の歪み、最大HP −5（22 → 17）"
    )
    assert written(t.EngineLimitBreak("アリア", 3, 19)) == "アリア: 【限界突破】 HP 3 → AP +3（HP 19）"
    assert written(t.EngineCheckRerollDied("アリア", "[1, 2, 3]", "[1, 1, 2]", 4)) == (
        "【予見】 アリア の生死判定を振り直し: [1, 2, 3] → [1, 1, 2] = 4 失敗 → 死亡"
    )
    assert written(t.EngineRegeneration("ゴブリン", 2, 3, 5)) == "ゴブリン 再生2: HP 3 → 5"


def _party() -> list[Character]:
    return [
        create_character(
            "アリア", "英雄", "長剣", "鎖帷子", spells=["火弾", "崩壊", "蘇生", "予見", "限界突破"]
        ),
        create_character("ベル", "英雄", "短剣", "革", spells=["雷撃", "鈍足", "魔力盾", "聖域", "治癒"]),
        create_character("カイ", "駆け出し", "長剣", "鎖帷子", spells=["治癒の波動", "蘇生"]),
    ]


def _encounter() -> Encounter:
    return Encounter(
        enemies=(
            make_enemy("オーガ", "ボス", 20, 40, [("ap", 2), ("hinder", 1)]),
            make_enemy("黒騎士", "エリート", 8, 14, [("armour", 1), ("regeneration", 3)]),
            make_enemy("ゴブリン", "雑魚", 5, 6, [("regeneration", 2)]),
        )
    )


def _fight(seed: int) -> tuple[list[str], list[str]]:
    """A fight of random legal actions; the engine's lines it wrote,
    and the English screen of every pause."""
    pick = random.Random(seed)
    battle = Battle.start(_party(), _encounter(), source=SeededSource(seed))
    lines: list[str] = []
    screens: list[str] = []
    for _ in range(400):
        if battle.is_over:
            break
        # a kind of action first (each spell a kind of its own), then one of that kind
        kinds: dict[str, list[Action]] = {}
        for legal in battle.legal_actions():
            early = battle.phase.value in ("SETUP", "ROLL")
            if seed % 2 and isinstance(legal, CastSpell) and legal.spell is Spell.REVIVE and early:
                continue  # in every other fight no 【蘇生】 ahead of time, so that someone dies
            kind = legal.spell.value if isinstance(legal, CastSpell) else type(legal).__name__
            kinds.setdefault(kind, []).append(legal)
        action = pick.choice(kinds[pick.choice(sorted(kinds))])
        step = battle.apply(action)
        lines.extend(step.events)
        screens.extend(engine_line(e, "en") for e in step.events)
        screens.append(battle.log_text("en"))
    for record in battle.state.rounds:
        lines.extend(record.setup_events)
        lines.extend(record.after_judge)
        if record.judge is not None:
            lines.extend(record.judge.notes)
    return lines, screens


def test_every_line_of_random_fights_is_read_and_english() -> None:
    seen: set[str] = set()
    for seed in range(80):
        lines, screens = _fight(seed)
        for line in lines:
            message = read_line(line)
            assert message is not None, line
            seen.add(message.key)
        left = japanese_left("\n".join(screens), (*RULE_TERMS, *PARTY_NAMES, *ENEMY_NAMES))
        assert left == [], (seed, left[:5])
    # the fights reached the lines this work is about, and nearly every other
    for kind in (
        t.EngineRegeneration, t.EngineCastAt, t.EngineCast, t.EngineCollapseChannelled,
        t.EngineReviveWard, t.EngineForesightRerolled, t.EngineLimitBreak, t.EngineOvercast,
        t.EngineSanctuaryDropsBonus, t.EngineReviveOverturns, t.EngineReviveOverturned,
        t.EngineCheckRerollSurvived, t.EngineCheckRerollDied, t.EngineCollapseFizzled,
    ):  # fmt: skip
        assert kind.key in seen, kind.key


def test_a_heal_outside_a_battle_is_english_under_en() -> None:
    party = [create_character("アリア", "英雄", "長剣", "鎖帷子", spells=[Spell.HEAL.value])]
    party[0] = party[0].evolve(hp=5)
    result = cast_out_of_combat(party, "アリア", "治癒", SeededSource(1), target="アリア")
    first = result.text.split("\n")[0]
    assert first == "アリア は 【治癒】 を唱えた"
    assert engine_line(first, "en") == "アリア casts 【治癒】"

