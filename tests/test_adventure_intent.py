"""The player's words as intents: at least 80 phrasings in Japanese and English, and the
lines that must be asked back about rather than guessed."""

from __future__ import annotations

import pytest

from gm_engine.adventure.intent import IntentKind, read_intent

#: What is in reach in these phrasings: a scene of the fantasy scenario, with people and things.
WORDS: dict[str, tuple[str, ...]] = {
    "exit:forest": ("森の小道", "森", "小道", "forest", "path"),
    "exit:gate": ("祠の門", "門", "gate"),
    "feature:board": ("掲示板", "貼り紙", "board", "notice"),
    "feature:stone": ("封じの石", "石", "stone"),
    "npc:elder": ("長老", "老人", "elder", "old man"),
    "item:herb": ("薬草", "herb"),
    "held:charm": ("封じの札", "札", "charm"),
    "choice:decline": ("依頼を断って村を去る", "断る", "decline"),
}

BATTLE: dict[str, tuple[str, ...]] = {
    "enemy:小鬼A": ("小鬼A",),
    "enemy:頭目ガルグ": ("頭目ガルグ", "ガルグ", "頭目"),
    "pc:アリア": ("アリア",),
}

M, L, X, T, K, U = (
    IntentKind.MOVE,
    IntentKind.LOOK,
    IntentKind.EXAMINE,
    IntentKind.TALK,
    IntentKind.TAKE,
    IntentKind.USE,
)
A, C, F, R, S, H = (
    IntentKind.ATTACK,
    IntentKind.CAST,
    IntentKind.FLEE,
    IntentKind.REST,
    IntentKind.STATUS,
    IntentKind.HELP,
)

#: (line, kind, target or None)
PHRASES: list[tuple[str, IntentKind, str | None]] = [
    ("森へ行く", M, "exit:forest"),
    ("森に向かう", M, "exit:forest"),
    ("小道を進む", M, "exit:forest"),
    ("祠の門へ", M, "exit:gate"),
    ("門のほうへ歩いていく", M, "exit:gate"),
    ("門に入ろう", M, "exit:gate"),
    ("森の小道を抜ける", M, "exit:forest"),
    ("go to the forest", M, "exit:forest"),
    ("walk down the path", M, "exit:forest"),
    ("head for the gate", M, "exit:gate"),
    ("Enter the gate", M, "exit:gate"),
    ("to the forest", M, "exit:forest"),
    ("周りを見る", L, None),
    ("辺りを見回す", L, None),
    ("様子を見る", L, None),
    ("ここはどこ？", L, None),
    ("何がある？", L, None),
    ("look around", L, None),
    ("Look", L, None),
    ("where am i", L, None),
    ("describe the surroundings", L, None),
    ("掲示板を調べる", X, "feature:board"),
    ("貼り紙を読む", X, "feature:board"),
    ("石を調べてみる", X, "feature:stone"),
    ("封じの石をよく見る", X, "feature:stone"),
    ("石に触ってみる", X, "feature:stone"),
    ("掲示板を確認", X, "feature:board"),
    ("examine the stone", X, "feature:stone"),
    ("read the notice", X, "feature:board"),
    ("look at the board", X, "feature:board"),
    ("inspect stone", X, "feature:stone"),
    ("search the stone", X, "feature:stone"),
    ("長老に話しかける", T, "npc:elder"),
    ("長老と話す", T, "npc:elder"),
    ("長老に小鬼のことを聞く", T, "npc:elder"),
    ("老人に尋ねる", T, "npc:elder"),
    ("長老に挨拶する", T, "npc:elder"),
    ("talk to the elder", T, "npc:elder"),
    ("ask the old man about the goblins", T, "npc:elder"),
    ("speak with elder", T, "npc:elder"),
    ("薬草を拾う", K, "item:herb"),
    ("薬草を取る", K, "item:herb"),
    ("薬草をもらっていく", K, "item:herb"),
    ("薬草を手に取る", K, "item:herb"),
    ("take the herb", K, "item:herb"),
    ("pick up herb", K, "item:herb"),
    ("grab the herb", K, "item:herb"),
    ("札を使う", U, "held:charm"),
    ("封じの札を石に貼って使う", U, "held:charm"),
    ("札をかざす", U, "held:charm"),
    ("use the charm", U, "held:charm"),
    ("use charm on the stone", U, "held:charm"),
    ("依頼を断る", IntentKind.CHOOSE, "choice:decline"),
    ("断ります", IntentKind.CHOOSE, "choice:decline"),
    ("I decline", IntentKind.CHOOSE, "choice:decline"),
    ("休む", R, None),
    ("一晩休息する", R, None),
    ("ここで休憩しよう", R, None),
    ("野営する", R, None),
    ("rest", R, None),
    ("let's camp here", R, None),
    ("sleep", R, None),
    ("ステータス", S, None),
    ("状態を確認", S, None),
    ("残りHPは？", S, None),
    ("スロットいくつ残ってる？", S, None),
    ("status", S, None),
    ("show my stats", S, None),
    ("ヘルプ", H, None),
    ("何ができる？", H, None),
    ("?", H, None),
    ("help", H, None),
    ("what can i do", H, None),
    ("逃げる", F, None),
    ("逃げろ！", F, None),
    ("撤退する", F, None),
    ("run away", F, None),
    ("flee", F, None),
    ("Escape!", F, None),
]

#: In a fight.
BATTLE_PHRASES: list[tuple[str, IntentKind, str | None]] = [
    ("攻撃", A, None),
    ("攻撃する", A, None),
    ("頭目を斬る", A, "enemy:頭目ガルグ"),
    ("ガルグに斬りかかる", A, "enemy:頭目ガルグ"),
    ("小鬼Aを殴る", A, "enemy:小鬼A"),
    ("attack", A, None),
    ("attack the boss ガルグ", A, "enemy:頭目ガルグ"),
    ("fight!", A, None),
    ("火弾を唱える", C, None),
    ("火弾！", C, None),
    ("雷撃を撃つ", C, None),
    ("アリアに治癒", C, "pc:アリア"),
    ("cast fireball", C, None),
    ("cast heal on アリア", C, "pc:アリア"),
    ("戦闘開始", IntentKind.PROCEED, None),
    ("次へ", IntentKind.PROCEED, None),
    ("continue", IntentKind.PROCEED, None),
    ("ok", IntentKind.PROCEED, None),
    ("頭目以外に何匹いる？", L, None),
    ("how many are left?", L, None),
    ("逃げる", F, None),
]


def test_there_are_at_least_eighty_phrasings() -> None:
    assert len(PHRASES) + len(BATTLE_PHRASES) >= 80


@pytest.mark.parametrize(("line", "kind", "target"), PHRASES)
def test_a_phrase_outside_a_fight_maps_to_its_intent(line: str, kind: IntentKind, target: str | None) -> None:
    intent = read_intent(line, WORDS)
    assert (intent.kind, intent.target) == (kind, target)


@pytest.mark.parametrize(("line", "kind", "target"), BATTLE_PHRASES)
def test_a_phrase_in_a_fight_maps_to_its_intent(line: str, kind: IntentKind, target: str | None) -> None:
    intent = read_intent(line, BATTLE, in_battle=True)
    assert (intent.kind, intent.target) == (kind, target)


def test_spells_are_named_by_the_rules_names() -> None:
    assert read_intent("cast fireball", BATTLE, in_battle=True).spell == "火弾"
    assert read_intent("アリアに治癒", BATTLE, in_battle=True).spell == "治癒"
    assert read_intent("魔法を使う", BATTLE, in_battle=True).spell is None  # which one: asked back


@pytest.mark.parametrize(
    "line",
    ["こんにちは", "asdf", "🍣", "", "   ", "123", "森", "逃げない", "don't attack", "攻撃しない", "ううむ"],
)
def test_lines_that_do_not_say_what_to_do_are_unclear(line: str) -> None:
    intent = read_intent(line, WORDS)
    assert intent.kind is IntentKind.UNCLEAR and intent.target is None


def test_a_verb_without_its_thing_among_several_has_no_target() -> None:
    for line, kind in (("調べる", X), ("進む", M), ("go", M)):
        intent = read_intent(line, WORDS)
        assert intent.kind is kind and intent.target is None
    both = read_intent("門と森に行く", WORDS)
    assert both.kind is M and both.target is None and set(both.candidates) == {"exit:forest", "exit:gate"}


@pytest.mark.parametrize(
    ("line", "kind", "unknown"),
    [
        ("祠を調べる", X, "祠"),
        ("井戸を調べる", X, "井戸"),
        ("城へ行く", M, "城"),
        ("村人と話す", T, "村人"),
        ("剣を拾う", K, "剣"),
        ("examine the shrine", X, "shrine"),
        ("talk to the blacksmith", T, "blacksmith"),
    ],
)
def test_a_thing_named_that_is_not_in_reach_is_never_swapped_for_one_that_is(
    line: str, kind: IntentKind, unknown: str
) -> None:
    intent = read_intent(line, WORDS)
    assert (intent.kind, intent.target, intent.candidates, intent.unknown) == (kind, None, (), unknown)


@pytest.mark.parametrize("line", ["調べる", "それを調べる", "周りを調べる", "よく調べる", "掲示板を調べる"])
def test_a_line_that_names_nothing_unknown_has_no_unknown_thing(line: str) -> None:
    assert read_intent(line, WORDS).unknown == ""


@pytest.mark.parametrize("line", ["慎重に進む", "静かに進む", "すぐに行く", "一緒に行く"])
def test_how_something_is_done_is_not_a_thing_named(line: str) -> None:
    intent = read_intent(line, WORDS)
    assert intent.kind is M and intent.unknown == ""
