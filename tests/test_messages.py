"""The message catalogue: the Japanese and English catalogues hold the same keys with the same
parameters as the message classes, and a werewolf refusal reaches the player in words,
never as an enum repr or the engine's internal English."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import ClassVar

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.messages import LOCALES, MESSAGES, Message, catalogue, locale_from_env, placeholders, render
from gm_engine.messages.texts import (
    CombatWord,
    CombatWordKind,
    Fault,
    GmCanBe,
    GmWhich,
    PageText,
    PageWord,
    Problem,
    Reason,
    Resumed,
    SealFault,
    SealProblem,
    TargetForms,
    ThingKind,
    Verdict,
    VerdictWord,
    Why,
)
from gm_engine.sessions.werewolf.wording import (
    REASONS,
    confirm_reading,
    refusal,
    render_refusal,
    target_hint,
)
from gm_engine.werewolf import game as engine
from gm_engine.werewolf.actions import (
    Action,
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Guard,
    RequestClaim,
    Speak,
    StateResult,
    Vote,
)
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.game import Game, IllegalActionError
from gm_engine.werewolf.phrases import CoRequest, RoleClaim, Speech, TargetMiss, read_target
from gm_engine.werewolf.records import CLAIMABLE_ROLES, SEATS, Colour, Role
from gm_engine.werewolf.views import observe


def _expected_keys() -> dict[str, set[str]]:
    """Every text key the message classes use, with the placeholders it must have."""
    keys: dict[str, set[str]] = {}
    for key, cls in MESSAGES.items():
        if cls is Why:
            keys.update({Why(reason).text_key(): set() for reason in Reason})
        elif cls is Problem:
            keys.update({Problem(fault).text_key(): set() for fault in Fault})
        elif cls is SealProblem:
            keys.update({SealProblem(fault).text_key(): set() for fault in SealFault})
        elif cls is VerdictWord:
            keys.update({VerdictWord(verdict).text_key(): set() for verdict in Verdict})
        elif cls is GmWhich:
            keys.update({GmWhich(kind).text_key(): set() for kind in ThingKind})
        elif cls is GmCanBe:
            keys.update({GmCanBe(kind).text_key(): set() for kind in ThingKind})
        elif cls is CombatWord:
            keys.update({CombatWord(kind).text_key(): set() for kind in CombatWordKind})
        elif cls is PageText:
            keys.update({PageText(word).text_key(): set() for word in PageWord})
        else:
            keys[key] = set(cls.field_names)
    return keys


@pytest.mark.parametrize("locale", LOCALES)
def test_each_catalogue_holds_exactly_the_messages_with_their_parameters(locale: str) -> None:
    texts = catalogue("en" if locale == "en" else "ja")
    expected = _expected_keys()
    assert set(texts) - set(expected) == set(), "texts no message class uses"
    assert set(expected) - set(texts) == set(), "messages without a text"
    for key, params in expected.items():
        assert placeholders(texts[key]) == params, key
        assert texts[key].strip(), key


def test_both_catalogues_have_the_same_keys_and_parameters() -> None:
    ja, en = catalogue("ja"), catalogue("en")
    assert set(ja) == set(en)
    assert {k: placeholders(v) for k, v in ja.items()} == {k: placeholders(v) for k, v in en.items()}


def test_the_japanese_catalogue_is_japanese() -> None:
    # Japanese punctuation counts: a frame of placeholders in （） is written for a Japanese line
    japanese = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")
    # a command's own name, a prompt or a path holder may be all ASCII; a sentence may not
    untranslated = [k for k, v in catalogue("ja").items() if len(v) > 20 and not japanese.search(v)]
    assert untranslated == []


def test_render_fills_in_the_parameters() -> None:
    message = Resumed(replayed=286, new=12, path="/tmp/g.jsonl")
    assert render(message) == "記録済みの286件の続きから再開し、12件を /tmp/g.jsonl に追記しました"
    english = "resumed after 286 recorded events; 12 new events appended to /tmp/g.jsonl"
    assert render(message, "en") == english
    assert render(Why(Reason.ANSWER_FIRST)) == "先にCO要求に答えてください（COするか、名乗り出ない）。"


def test_a_message_class_needs_its_own_key() -> None:
    with pytest.raises(TypeError):

        @dataclasses.dataclass(frozen=True)
        class Again(Message):
            key = "cli.resumed"

    with pytest.raises(TypeError):

        @dataclasses.dataclass(frozen=True)
        class Nameless(Message):
            pass


def test_a_message_is_a_frozen_value() -> None:
    message = Resumed(replayed=286, new=12, path="/tmp/g.jsonl")
    same = Resumed(286, 12, "/tmp/g.jsonl")
    assert message == same and hash(message) == hash(same)
    assert message != Resumed(replayed=286, new=13, path="/tmp/g.jsonl")
    assert message != Why(Reason.DEAD) and Why(Reason.DEAD) == Why(reason=Reason.DEAD)
    assert repr(message) == "Resumed(replayed=286, new=12, path='/tmp/g.jsonl')"
    assert Resumed.field_names == ("replayed", "new", "path") and Why.field_names == ("reason",)
    assert message.params() == {"replayed": 286, "new": 12, "path": "/tmp/g.jsonl"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.new = 13  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del message.new
    assert message.new == 12


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((286, 12), {}, "missing arguments: path"),
        ((286, 12, "p", 1), {}, "takes 3 arguments, 4 were given"),
        ((286, 12), {"path": "p", "size": 1}, "unexpected keyword argument 'size'"),
        ((286, 12, "p"), {"replayed": 1}, "multiple values for argument 'replayed'"),
    ],
)
def test_a_message_built_with_wrong_arguments_says_which(
    args: tuple[object, ...], kwargs: dict[str, object], error: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(error)):
        Resumed(*args, **kwargs)  # type: ignore[arg-type]


def test_no_message_class_is_a_generated_dataclass() -> None:
    """``@dataclass`` on a message costs the start of every ``gm`` command about 2.7 million
    instructions (it compiles five methods per class); :class:`Message` gives the same value
    semantics to an undecorated subclass, as ``class Resumed(Message):`` with its fields."""
    decorated = sorted(cls.__name__ for cls in MESSAGES.values() if dataclasses.is_dataclass(cls))
    assert decorated == [], f"drop @dataclass(frozen=True) from {decorated}"


def test_a_message_declared_as_a_dataclass_still_works() -> None:
    """A message written the old way (``@dataclass(frozen=True)``) is still a frozen message."""

    @dataclasses.dataclass(frozen=True)
    class Decorated(Message):
        key: ClassVar[str] = "test.decorated_message"
        path: str
        size: int = 0

    try:
        message = Decorated("/tmp/a")
        assert Decorated.field_names == ("path", "size") and message.params() == {"path": "/tmp/a", "size": 0}
        with pytest.raises(dataclasses.FrozenInstanceError):
            message.path = "/tmp/b"  # type: ignore[misc]
    finally:
        del MESSAGES[Decorated.key]


def test_a_field_may_have_a_default() -> None:
    class WithDefault(Message):
        key: ClassVar[str] = "test.message_with_default"
        path: str
        size: int = 7

    try:
        assert WithDefault("/tmp/a").params() == {"path": "/tmp/a", "size": 7}
        assert WithDefault("/tmp/a", size=1) == WithDefault(path="/tmp/a", size=1)
    finally:
        del MESSAGES[WithDefault.key]


@pytest.mark.parametrize(
    ("value", "locale"),
    [(None, "ja"), ("", "ja"), ("ja", "ja"), ("en", "en"), ("EN", "en"), ("en_US.UTF-8", "en"),
     ("fr", "ja")],
)
def test_locale_from_env(value: str | None, locale: str) -> None:
    environ = {} if value is None else {"GM_LOCALE": value}
    assert locale_from_env(environ) == locale


def test_the_root_package_loads_no_game_engine() -> None:
    probe = "import sys, gm_engine.messages; print(sorted(m for m in sys.modules if 'gm_engine' in m))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "gm_engine.werewolf" not in loaded and "gm_engine.sessions" not in loaded


# ---------------------------------------------------------------- refusals


def test_every_rule_of_the_engine_has_a_reason() -> None:
    rules = {value for name, value in vars(engine).items() if name.startswith("RULE_")}
    mapped = {rule for rule, _ in REASONS}
    assert rules - mapped == set(), "give these rules a Reason in gm_engine/sessions/werewolf/wording.py"


def _probes(seat: int) -> Iterator[Action]:
    yield Speak(seat, "x" * 5000)
    yield ChooseRole(seat, Role.SEER)
    yield Decline(seat)
    for role in Role:
        yield Claim(seat, role)
        yield RequestClaim(seat, role)
    for target in (*SEATS, 12):
        for role in CLAIMABLE_ROLES:
            yield Claim(seat, role, target, Colour.BLACK)
        yield StateResult(seat, target, Colour.WHITE)
        yield Vote(seat, target)
        yield Attack(seat, target)
        yield Divine(seat, target)
        yield Guard(seat, target)


def _refusals(seed: int, deal: list[int]) -> Iterator[tuple[IllegalActionError, Action]]:
    """Every refusal of a battery of actions at every step of an offline game."""
    game = Game.from_deal(deal, source=SeededSource(seed))
    agents = {seat: OfflineAgent(seat, SeededSource(f"{seed}/{seat}")) for seat in SEATS}
    while True:
        before = game.state_hash()
        for seat in (*SEATS, 0):
            for action in _probes(seat):
                if not game.is_legal(action):
                    with pytest.raises(IllegalActionError) as caught:
                        game.apply(action)
                    yield caught.value, action
        assert game.state_hash() == before  # refused actions changed nothing
        if game.is_over:
            return
        seats = game.to_act()
        if not seats:
            game.advance()
            continue
        for seat in seats:
            game.apply(agents[seat].choose(observe(game, seat), game.legal_actions(seat)))


ENGLISH = re.compile(r"\b(?:the|is|not|cannot|must|already|only|first|Role|Colour|Error|dead|night)\b")


def test_refusals_of_real_games_are_rendered_in_words() -> None:
    """Three offline games (the human as 占い師, 人狼, 村人), each step probed with every kind
    of action for every seat: each refusal reads as one of the catalogue's reasons, in
    Japanese (and in English), never with an enum repr or the engine's own message."""
    reasons_ja = {catalogue("ja")[Why(r).text_key()] for r in Reason}
    seen: set[Reason] = set()
    deals = ([3, 1, 1, 2, 2, 2, 4, 5, 6], [1, 1, 2, 2, 2, 3, 4, 5, 6], [2, 1, 1, 2, 2, 3, 4, 5, 6])
    for seed, deal in enumerate(deals):
        for error, action in _refusals(seed, deal):
            why = refusal(error, action)
            assert why.reason is not Reason.OTHER, (error.rule, action)
            seen.add(why.reason)
            ja = render_refusal(error, action)
            en = render_refusal(error, action, "en")
            assert ja in reasons_ja
            assert error.detail not in ja and "<" not in ja and "Role." not in ja and not ENGLISH.search(ja)
            assert "<" not in en and "Role." not in en and error.detail not in en
    # the refusals a player meets at the table all occurred
    assert {
        Reason.GAME_OVER, Reason.NOT_YOUR_TURN, Reason.VILLAGER_CLAIMS, Reason.CLAIM_ONCE,
        Reason.REQUEST_DAY, Reason.ANSWER_FIRST, Reason.MUST_COME_OUT, Reason.VOTE_TARGET,
        Reason.TEXT_TOO_LONG, Reason.SEAT, Reason.PHASE, Reason.DEAD, Reason.RESULT_NEEDS_CLAIM,
        Reason.NOTHING_TO_DECLINE, Reason.NOT_YOUR_ABILITY, Reason.GUARD_TARGET, Reason.DIVINE_TARGET,
    } <= seen


@pytest.mark.parametrize(
    ("rule", "detail", "action", "expected"),
    [
        (engine.RULE_CO_REQUEST, "cannot request <Role.MEDIUM: 5> CO on day 2 (or again)",
         RequestClaim(1, Role.MEDIUM), "CO要求は1日目は占い師、2日目以降は霊媒師にだけ、1日1回できます。"),
        (engine.RULE_CO_FORCED, "answer the CO要求 first: come out or decline",
         Speak(1, "僕は違います"), "先にCO要求に答えてください（COするか、名乗り出ない）。"),
        (engine.RULE_TEXT, "text must be a string of at most 2000 characters", Speak(1, "x"),
         "発言が長すぎます。短くしてもう一度どうぞ。"),
        (engine.RULE_CO_FORCED, "the real 占い師 must come out", Decline(1),
         "あなたの役職では必ず名乗り出ます（真占い師・真霊媒師は必ず名乗り出ること）。"),
        ("a rule this table has never heard of", "internal words", None,
         "その行動は今はルール上できません。"),
    ],
)
def test_the_refusals_of_issue_11(rule: str, detail: str, action: Action | None, expected: str) -> None:
    assert render_refusal(IllegalActionError(rule, detail), action) == expected


# ---------------------------------------------------------------- hints and confirmations


def test_a_missed_target_lists_the_choices_and_the_forms() -> None:
    miss = read_target("ジョン", choices=[4, 7])
    assert isinstance(miss, TargetMiss)
    assert target_hint(miss) == (
        "「ジョン」に当たる参加者がいません。"
        "選べる相手: P4 アオト、P7 シセン（P4・4・アオト・あおと のどの書き方でも選べます）"
    )
    conflict = read_target("P7 アオト", choices=[4, 7])
    assert isinstance(conflict, TargetMiss)
    assert target_hint(conflict).startswith(
        "「P7 アオト」はP番号と名前が別の参加者を指しています（P7はシセン、アオトはP4）。"
        "選べる相手: P4 アオト"
    )
    outside = read_target("トウダ", choices=[4, 7])
    assert isinstance(outside, TargetMiss)
    hint = target_hint(outside, locale="en")
    assert hint.startswith("トウダ cannot be chosen now. You may choose: P4 アオト")
    forms = render(TargetForms("P4 アオト", "P4", 4, "アオト", "あおと"), "en")
    assert forms.endswith("(write it as P4, 4, アオト or あおと)")


def test_an_unsure_reading_is_confirmed_in_one_line() -> None:
    line = confirm_reading(RoleClaim(Role.SEER, 4, Colour.WHITE))
    assert line == (
        "「占い師CO（アオト(P4)は白）」として受け取ってよいですか？"
        "（はい / いいえ。いいえなら普通の発言になります）"
    )
    assert confirm_reading(CoRequest(Role.MEDIUM), locale="en") == (
        "Shall I take this as a CO request (霊媒師, come out)? (yes / no; no keeps it as plain talk)"
    )
    assert confirm_reading(Speech()) is None


def test_resume_refusals_speak_the_players_language(monkeypatch: pytest.MonkeyPatch) -> None:
    from gm_engine.messages.texts import ResumeEnded
    from gm_engine.transcripts.resume import ResumeError

    monkeypatch.delenv("GM_LOCALE", raising=False)
    japanese = ResumeError(ResumeEnded("game.jsonl", "村人陣営の勝利"))
    assert str(japanese) == "game.jsonl: このセッションはもう終わっています（村人陣営の勝利）"
    assert isinstance(japanese.message, ResumeEnded)
    monkeypatch.setenv("GM_LOCALE", "en")
    assert str(ResumeError(ResumeEnded("game.jsonl", "x"))) == "game.jsonl: the session already ended (x)"
