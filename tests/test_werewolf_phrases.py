"""Reading what a seat says: CO要求, claims, results, declines, passes and targets in Japanese
as players write it, and talk that merely mentions a role read as talk."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.werewolf.actions import Claim, Decline, RequestClaim, Speak, StateResult
from gm_engine.werewolf.phrases import (
    CoRequest,
    Declining,
    Meaning,
    Passing,
    Reading,
    ResultStatement,
    RoleClaim,
    Speech,
    Table,
    TargetFound,
    TargetMiss,
    meaning_action,
    read_line,
    read_target,
)
from gm_engine.werewolf.records import PERSONA_NAMES, Colour, Role

SEER, MEDIUM, GUARD = Role.SEER, Role.MEDIUM, Role.BODYGUARD
W, B = Colour.WHITE, Colour.BLACK

PLAIN = Table()
AS_SEER = Table(claimed=Role.SEER)
AS_MEDIUM = Table(claimed=Role.MEDIUM)
ANSWER_SEER = Table(answering=Role.SEER)
ANSWER_MEDIUM = Table(answering=Role.MEDIUM)

REQUESTS: list[tuple[str, Role]] = [
    ("占い師は名乗り出ろ", SEER),
    ("占い師さん出てきて", SEER),
    ("霊媒COお願い", MEDIUM),
    ("占い師は名乗り出てください", SEER),
    ("霊媒師さん、いたら名乗り出て！", MEDIUM),
    ("占いCOどうぞ", SEER),
    ("占い師の方、名乗り出てもらえますか？", SEER),
    ("霊媒師は出てこい", MEDIUM),
    ("占い師CO要求します", SEER),
    ("じゃあまず占い師さん、出てきてください", SEER),
    ("霊能者COお願いします", MEDIUM),
    ("本物の占い師は名乗り出て", SEER),
    ("霊媒師はCOしてね", MEDIUM),
    ("狩人さん出てきて", GUARD),  # the engine refuses it; the reading is still a CO要求
    ("ＣＯ要求：占い師", SEER),
    ("おはよう。早速だけど占い師は名乗り出てくれ。", SEER),
    ("ｳﾗﾅｲｼは名乗り出ろ", SEER),
    # 「…いたら」: the request opened by a condition on the role being there
    ("占い師いたらCOして", SEER),
    ("占い師いたら出て", SEER),
    ("霊媒師いたらCOお願い", MEDIUM),
    ("占い師がいたらCOしてください", SEER),
    ("霊媒師さんいたら早くCOして", MEDIUM),
    ("占い師がいたら出てきてくれ", SEER),
    ("霊媒師がいればCOお願いします", MEDIUM),
    ("占い師いるなら、COしてほしい", SEER),
    # asking who has a claim to make
    ("占いCOある人いますか", SEER),
    ("霊媒COある人いる？", MEDIUM),
    ("占い師COする人は？", SEER),
    # a role asked for its result
    ("霊媒師さん、結果を教えて", MEDIUM),
    ("占い師は結果を言ってください", SEER),
    ("霊媒の結果を教えてほしい", MEDIUM),
    ("占い師さん結果出して！", SEER),
]

CLAIMS: list[tuple[str, Table, RoleClaim]] = [
    ("占い師COします", PLAIN, RoleClaim(SEER)),
    ("僕が霊媒師です", PLAIN, RoleClaim(MEDIUM)),
    ("霊媒師です", PLAIN, RoleClaim(MEDIUM)),
    ("私は占い師です。", PLAIN, RoleClaim(SEER)),
    ("占いCO", PLAIN, RoleClaim(SEER)),
    ("狩人COします！", PLAIN, RoleClaim(GUARD)),
    ("騎士COします", PLAIN, RoleClaim(GUARD)),
    ("霊能CO", PLAIN, RoleClaim(MEDIUM)),
    ("占い師は僕です", PLAIN, RoleClaim(SEER)),
    ("オレ、狩人ね", PLAIN, RoleClaim(GUARD)),
    ("実は霊媒師なんだ", PLAIN, RoleClaim(MEDIUM)),
    ("対抗で占い師COします", PLAIN, RoleClaim(SEER)),
    ("俺が占い師だ", PLAIN, RoleClaim(SEER)),
    ("うちが霊媒師やで", PLAIN, RoleClaim(MEDIUM)),
    ("占い師としてCOする", PLAIN, RoleClaim(SEER)),
    # the role after the claim, full-width letters as a phone keyboard types them
    ("ＣＯします、占い師", PLAIN, RoleClaim(SEER)),
    ("CO、霊媒師です", PLAIN, RoleClaim(MEDIUM)),
    ("はい、僕です", ANSWER_SEER, RoleClaim(SEER)),
    ("出ます", ANSWER_MEDIUM, RoleClaim(MEDIUM)),
    ("占い師です", ANSWER_SEER, RoleClaim(SEER)),
    # a claim with its result
    ("占い師COします。アオトは白でした", PLAIN, RoleClaim(SEER, 4, W)),
    ("占い師です。P4黒", PLAIN, RoleClaim(SEER, 4, B)),
    ("霊媒師COします、シセンは人狼だった", PLAIN, RoleClaim(MEDIUM, 7, B)),
    ("占いCO、ミスノ○", PLAIN, RoleClaim(SEER, 5, W)),
    ("僕が占い師です。ヒミヤさんを占った結果、黒でした", PLAIN, RoleClaim(SEER, 3, B)),
    ("占い師CO！キウミは人間でした", PLAIN, RoleClaim(SEER, 6, W)),
    ("霊媒CO。昨日のトウダは白でした", PLAIN, RoleClaim(MEDIUM, 2, W)),
    ("占い師です、結果はイスイ黒", ANSWER_SEER, RoleClaim(SEER, 9, B)),
    # the result after a space, as often as after a 「、」 (white space of any width)
    ("占い師CO シセン白", PLAIN, RoleClaim(SEER, 7, W)),
    ("占い師です シセンは白でした", PLAIN, RoleClaim(SEER, 7, W)),
    ("霊媒です トウダ黒", PLAIN, RoleClaim(MEDIUM, 2, B)),
    ("占い師CO　アオト白", PLAIN, RoleClaim(SEER, 4, W)),
    ("占い師です  P4  黒", ANSWER_SEER, RoleClaim(SEER, 4, B)),
    # a space inside one clause is no break
    ("占い師 COします", PLAIN, RoleClaim(SEER)),
    ("僕が 霊媒師です", PLAIN, RoleClaim(MEDIUM)),
]

RESULTS: list[tuple[str, Table, ResultStatement]] = [
    ("アオトは白でした", AS_SEER, ResultStatement(4, W)),
    ("P4黒", AS_SEER, ResultStatement(4, B)),
    ("シセン人狼だった", AS_MEDIUM, ResultStatement(7, B)),
    ("７番は白です", AS_SEER, ResultStatement(7, W)),
    ("ハイオさん、黒でした！", AS_SEER, ResultStatement(8, B)),
    ("結果はイスイ白", AS_SEER, ResultStatement(9, W)),
    ("とうださんは人間でした", AS_MEDIUM, ResultStatement(2, W)),
    ("P9を占いました、白です", AS_SEER, ResultStatement(9, W)),
    ("イスイの結果は黒", AS_MEDIUM, ResultStatement(9, B)),
    ("今日の結果です。p3●", AS_SEER, ResultStatement(3, B)),
]

DECLINES: list[tuple[str, Table]] = [
    ("違います", ANSWER_SEER),
    ("村人です", ANSWER_SEER),
    ("僕は違います", ANSWER_MEDIUM),
    ("占い師ではありません", ANSWER_SEER),
    ("オレじゃないっす！パスで！", ANSWER_SEER),
    ("私は素村です", ANSWER_MEDIUM),
    ("名乗り出ません", ANSWER_MEDIUM),
    ("いいえ、違います", ANSWER_SEER),
    ("霊媒師じゃないよ", ANSWER_MEDIUM),
    ("ちがいまーす", ANSWER_SEER),
    # a decline with a reason, an apology or more words around it
    ("村人なので出ません", ANSWER_MEDIUM),
    ("ごめん、違うよ", ANSWER_SEER),
    ("違います、村人です", ANSWER_MEDIUM),
    ("違います 村人です", ANSWER_MEDIUM),
    ("対象外です", ANSWER_SEER),
    ("COなし", ANSWER_MEDIUM),
    ("私は霊媒師ではないので出ません", ANSWER_MEDIUM),
    ("すみません、占い師じゃないです", ANSWER_SEER),
    ("違う、占い師じゃない", ANSWER_SEER),
]

PASSES = ["パス", "パスで", "今回はパスします", "特になし", "特に言うことはないです", "ｽｷｯﾌﾟ"]

TARGETS: list[tuple[str, int]] = [
    ("シセン", 7),
    ("しせん", 7),
    ("7", 7),
    ("７", 7),
    ("P7", 7),
    ("p7", 7),
    ("Ｐ７", 7),
    ("P7 仕切りたがり", 7),
    ("シセンさん", 7),
    ("7番", 7),
    ("ｼｾﾝ", 7),
    ("P7 シセン", 7),
    ("アオト君", 4),
    ("  P4  ", 4),
    ("とうだ", 2),
    ("ｐ９", 9),
    # a seat as the engine writes it: the name with its P-number
    ("アオト(P4)", 4),
    ("シセン(P7)", 7),
    ("シセン（P7）", 7),
    ("シセン（Ｐ７）", 7),
    ("シセンP7", 7),
    ("シセン P7", 7),
    ("シセンさん(P7)", 7),
    ("P7(シセン)", 7),
    ("7番の人", 7),
]

#: Talk that mentions roles, results or CO without asking, claiming or stating anything.
SPEECH: list[str] = [
    "占い師が本物か怪しい",
    "霊媒の結果待ちかな",
    "占い師COが二人出たね",
    "狩人は護衛先を慎重に選んでほしいな",
    "霊媒師の結果次第で明日の投票が変わる",
    "占い師の真贋はまだ分からない",
    "本物の占い師は誰だろう",
    "アオトが占い師だとしたら辻褄が合わない",
    "もし僕が占い師だったら、まずシセンを占うよ",
    "アオトは白っぽいけど、まだ決めつけない",
    "シセンは黒寄りに見える",
    "キウミさんの占い結果で黒が出ているので",
    "人狼は二人いるはずだから慎重にいこう",
    "狂人がいることも忘れないで",
    "霊媒師が出てこないのは不自然だ",
    "占い師が出てきたら霊媒師も出るかな",
    "狩人CO？それはまだ早いと思う",
    "村人目線だとトウダが怪しい",
    "騎士がいるなら今夜は守ってほしい",
    "占いの結果を聞いてから投票先を決めたい",
    "昨日の霊媒師COは信用できるのかな",
    "僕は占い師を信じることにした",
    "私は霊媒師の結果を待ちたい",
    "人狼っぽい発言が多いのはヒミヤだね",
    "占い師と霊媒師が両方出たので情報は揃ってきた",
    "自分が狩人なら絶対に言わないけど",
    "ハイオは人間だと思うよ",
    "P4は白だと思う、理由は発言の一貫性",
    "占いCOしたアオトの結果が気になる",
    "霊媒師です、って言う人が出てくるのを待とう",
    "イスイは黒だ、間違いない",
    "占い師は名乗り出ろ、って言うのは明日にしよう",
    "「占い師COします」と言ったのはアオトだよね",
    "僕は人狼です（笑）",
    "霊能者が偽物の可能性もある",
    # a condition on a role without the request after it
    "占い師がいたら考えよう",
    "霊媒師いたら嬉しい",
    "占い師いたらCOするべきだと思う",
    "占い師がいたら出てくるはず",
    "霊媒師いたらCOしてたと思う",
    "狩人がいれば今夜は安心だね",
    # a result talked about, not asked for
    "霊媒師の結果を見てから考えよう",
    "占い師の結果を教えてもらったけど信じられない",
]


def test_the_lists_are_long_enough() -> None:
    recognised = len(REQUESTS) + len(CLAIMS) + len(RESULTS) + len(DECLINES) + len(PASSES) + len(TARGETS)
    assert recognised >= 60
    assert len(SPEECH) >= 30


@pytest.mark.parametrize(("text", "role"), REQUESTS)
def test_co_requests(text: str, role: Role) -> None:
    assert read_line(text) == Reading(CoRequest(role))


@pytest.mark.parametrize(("text", "table", "claim"), CLAIMS)
def test_claims(text: str, table: Table, claim: RoleClaim) -> None:
    assert read_line(text, table) == Reading(claim)


@pytest.mark.parametrize(("text", "table", "result"), RESULTS)
def test_results(text: str, table: Table, result: ResultStatement) -> None:
    assert read_line(text, table) == Reading(result)


@pytest.mark.parametrize(("text", "table"), DECLINES)
def test_declines(text: str, table: Table) -> None:
    assert read_line(text, table) == Reading(Declining())


@pytest.mark.parametrize("text", PASSES)
def test_passes(text: str) -> None:
    assert read_line(text) == Reading(Passing())


@pytest.mark.parametrize(("text", "seat"), TARGETS)
def test_targets(text: str, seat: int) -> None:
    assert read_target(text) == TargetFound(seat)


@pytest.mark.parametrize("text", SPEECH)
def test_mentions_are_speech(text: str) -> None:
    for table in (PLAIN, AS_SEER):
        assert read_line(text, table) == Reading(Speech()), table


@pytest.mark.parametrize("text", ["違います", "村人です", "僕は違います", "出ます", "はい、僕です"])
def test_answers_outside_a_co_request_are_speech(text: str) -> None:
    assert read_line(text) == Reading(Speech())


# ---------------------------------------------------------------- when the reading may be wrong


@pytest.mark.parametrize(
    ("text", "table", "meaning"),
    [
        ("P4黒", PLAIN, ResultStatement(4, B)),  # from a seat that never claimed: maybe an opinion
        ("アオトは白でした", PLAIN, ResultStatement(4, W)),
        ("占い師いますか？", PLAIN, CoRequest(SEER)),  # a question may be rhetorical
        ("霊媒師いる？", PLAIN, CoRequest(MEDIUM)),
        ("占い師さんいる？いたらCOして", PLAIN, CoRequest(SEER)),
        ("占い師さーん、そろそろ出番っすよ！名乗り出てちょうだい！", PLAIN, CoRequest(SEER)),
        ("占い師COします。霊媒師も名乗り出て", PLAIN, RoleClaim(SEER)),  # two actions in one turn
        ("占い師です。P4白、P5黒", PLAIN, RoleClaim(SEER, 4, W)),  # one result per claim
    ],
)
def test_unsure_readings(text: str, table: Table, meaning: Meaning) -> None:
    assert read_line(text, table) == Reading(meaning, sure=False)


@pytest.mark.parametrize("text", [t.replace("、", " ") for t in SPEECH if "、" in t])
def test_mentions_with_spaces_for_commas_are_speech(text: str) -> None:
    for table in (PLAIN, AS_SEER):
        assert read_line(text, table) == Reading(Speech()), table


def test_a_conflicting_name_and_p_number_say_which_seat_each_is() -> None:
    assert read_target("シセン(P4)") == TargetMiss("シセン(P4)", "conflict", tuple(range(1, 10)), 4, 7)


@pytest.mark.parametrize(
    ("text", "table"), [("違います、占い師です", ANSWER_SEER), ("違います。霊媒師です", ANSWER_MEDIUM)]
)
def test_a_no_followed_by_a_role_is_unsure(text: str, table: Table) -> None:
    assert read_line(text, table).sure is False


@pytest.mark.parametrize("text", ["占い師COします、霊媒師COします", "占い師は名乗り出ろ、霊媒師も名乗り出ろ"])
def test_two_roles_in_one_line_are_unsure_speech(text: str) -> None:
    assert read_line(text) == Reading(Speech(), sure=False)


def test_a_quoted_request_typed_alone_is_the_request() -> None:
    assert read_line("「占い師は名乗り出ろ」") == Reading(CoRequest(SEER))


def test_the_table_names_are_used_for_results() -> None:
    table = Table.of({**PERSONA_NAMES, 1: "プレイヤー"}, claimed=Role.SEER)
    assert read_line("プレイヤーさんは白でした", table) == Reading(ResultStatement(1, W))


# ---------------------------------------------------------------- targets that miss


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "empty"), ("   ", "empty"), ("P10", "unknown"), ("0", "unknown"), ("ジョン", "unknown"),
     ("P7 アオト", "conflict"), ("10番", "unknown"), ("/help", "unknown"), ("シセン(P4)", "conflict"),
     ("シセンP4", "conflict"), ("P7（アオト）", "conflict"), ("ジョン(P7)", "unknown")],
)
def test_target_misses(text: str, reason: str) -> None:
    miss = read_target(text)
    assert isinstance(miss, TargetMiss)
    assert miss.reason == reason
    assert miss.choices == tuple(range(1, 10))


def test_a_target_outside_the_choices_says_which_seat() -> None:
    assert read_target("シセン", choices=[2, 3, 4]) == TargetMiss("シセン", "not_a_choice", (2, 3, 4), 7)
    assert read_target("P3", choices=[2, 3, 4]) == TargetFound(3)


def test_the_human_is_named_by_its_table_name() -> None:
    names = {**PERSONA_NAMES, 1: "プレイヤー"}
    assert read_target("プレイヤーさん", names) == TargetFound(1)
    assert read_target("ぷれいやー", names) == TargetFound(1)


# ---------------------------------------------------------------- readings become actions


def test_meaning_action() -> None:
    text = "占い師COします。アオトは白でした"
    assert meaning_action(RoleClaim(SEER, 4, W), 1, text) == Claim(1, SEER, 4, W, text)
    assert meaning_action(CoRequest(MEDIUM), 3, "霊媒COお願い") == RequestClaim(3, MEDIUM, "霊媒COお願い")
    assert meaning_action(ResultStatement(4, B), 2, "P4黒") == StateResult(2, 4, B, "P4黒")
    assert meaning_action(Declining(), 5, "違います") == Decline(5, "違います")
    assert meaning_action(Passing(), 5, "パス") == Speak(5, "")
    assert meaning_action(Speech(), 5, "怪しい") == Speak(5, "怪しい")


# ---------------------------------------------------------------- the personas' own lines


def _voices() -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for path in sorted(Path(__file__).resolve().parent.parent.joinpath("personas").glob("*.toml")):
        voice = tomllib.loads(path.read_text(encoding="utf-8"))["voice"]
        for kind, texts in voice.items():
            lines.extend((kind, text) for text in texts)
    return lines


def test_every_persona_voice_line_reads_as_what_it_is_for() -> None:
    """The offline personas' lines (written for other purposes) read as their kind: their
    requests as CO要求, claims and results as such, every other line as speech."""
    filled = {"target": "アオト", "color": "白", "role": "占い師"}
    seen = set()
    for kind, template in _voices():
        text = template.format(**filled)
        expected: Meaning
        if kind == "request_seer":
            expected = CoRequest(SEER)
            got = read_line(text).meaning
        elif kind == "request_medium":
            expected, got = CoRequest(MEDIUM), read_line(text).meaning
        elif kind == "claim":
            expected, got = RoleClaim(SEER), read_line(text).meaning
        elif kind == "result":
            expected, got = ResultStatement(4, W), read_line(text, AS_SEER).meaning
        elif kind == "decline":
            expected, got = Declining(), read_line(text, ANSWER_SEER).meaning
        else:
            expected, got = Speech(), read_line(text).meaning
        assert got == expected, (kind, text)
        seen.add(kind)
    assert {"request_seer", "request_medium", "claim", "result", "decline", "suspect"} <= seen


# ---------------------------------------------------------------- any input


_ALPHABET = (
    "占い師霊媒狩人白黒はがのをでしたCO、。！？!?「」『』 　PpＰ1２3番"
    "アオトシセンしせんさん違いますパス村人ですw…ー\n\t\x00"
)


@given(st.text(alphabet=_ALPHABET, max_size=60) | st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_any_line_reads_without_error(text: str) -> None:
    for table in (PLAIN, ANSWER_SEER, AS_MEDIUM):
        reading = read_line(text, table)
        assert isinstance(reading.meaning, Meaning)
        assert read_line(text, table) == reading
    target = read_target(text)
    assert (isinstance(target, TargetFound) and 1 <= target.seat <= 9) or isinstance(target, TargetMiss)


@pytest.mark.parametrize(
    ("text", "seat"),
    [
        ("シセンくんかな", 7),
        ("アオトにします", 4),
        ("ミスノで", 5),
        ("ハイオに投票します。", 8),
        ("キウミだね！", 6),
        ("いすいさんでお願い", 9),
    ],
)
def test_a_name_followed_by_words_of_choosing_is_that_choice(text: str, seat: int) -> None:
    assert read_target(text) == TargetFound(seat)


@pytest.mark.parametrize("text", ["シセンは怪しい", "シセンかアオト", "アオトが言ってた", "ミスノではない"])
def test_a_remark_about_a_seat_is_not_a_choice(text: str) -> None:
    assert isinstance(read_target(text), TargetMiss)
