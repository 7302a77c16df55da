"""Reading what a seat says at the table: CO要求, claims, results, declines, passes, targets.

A player types Japanese as people write it at a werewolf table (「占い師は名乗り出ろ」,
「僕が霊媒師です」, 「アオトは白でした」, 「違います」), and a model's speech is the same kind of
text: the rules document says a seat that declares its role in public has made a CO, so a
claim in words must be read as a claim whoever wrote it. This module turns one line into a
typed :class:`Reading`; it decides nothing about legality (the engine does) and knows
nothing of the session.

* :func:`read_line` reads a line of discussion: a :class:`CoRequest`, a :class:`RoleClaim`
  (with the result stated with it, if any), a :class:`ResultStatement`, a :class:`Declining`
  (only while a CO要求 is being answered), a :class:`Passing` or plain :class:`Speech`.
  ``Reading.sure`` is False when the reading could be wrong (a question that may be
  rhetorical, a result from a seat that has not claimed, two readings in one line): the
  session then confirms back in one line before acting on it, or treats the line as speech.
* :func:`meaning_action` turns a reading into the engine's action for a seat.
* :func:`read_target` reads a choice of seat: persona name (シセン, ｼｾﾝ), its reading in
  hiragana (しせん), a seat number (7, ７, 7番), a P-number (P7, p7, Ｐ７), with an honorific
  (シセンさん) or words after the P-number (``P7 仕切りたがり``). A miss says why
  (:class:`TargetMiss`), so the session can list the accepted forms.

How it reads: the line is normalised (NFKC, katakana folded to hiragana, white space
removed, quoted speech 「…」 blanked, since quoting someone is not saying it), split into
sentences, and every sentence is matched against the pattern table :data:`PATTERNS` (one row
per way of saying a thing, written with the placeholders ``{role}``, ``{me}``, ``{target}``,
``{colour}``, ``{honorific}`` and ``{end}``); the words the placeholders stand for are the
vocabulary tables below. The hits of all sentences are then combined by :func:`_combine`.
Patterns are anchored at the end of a sentence (``{end}``), which is what separates 「霊媒師は
名乗り出て」 (a request) from 「霊媒師が出てきたら考えよう」 (talk), and 「アオトは白でした」 (a
result) from 「アオトは白だと思う」 (an opinion).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from gm_engine.werewolf.actions import Action, Claim, Decline, RequestClaim, Speak, StateResult
from gm_engine.werewolf.records import CLAIMABLE_ROLES, PERSONA_NAMES, Colour, Role

# ---------------------------------------------------------------- the readings


@dataclass(frozen=True, slots=True)
class CoRequest:
    """CMD_CO要求: 「{role}は名乗り出ろ」 in any wording."""

    role: Role


@dataclass(frozen=True, slots=True)
class RoleClaim:
    """A CO: the speaker declares ``role``, with the result stated alongside (if any)."""

    role: Role
    target: int | None = None
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class ResultStatement:
    """A divine or medium result stated by the speaker: ``target`` is ``colour``."""

    target: int
    colour: Colour


@dataclass(frozen=True, slots=True)
class Declining:
    """An answer to a CO要求 that does not come out (「違います」「村人です」)."""


@dataclass(frozen=True, slots=True)
class Passing:
    """The speaker passes the turn (「パス」「特になし」)."""


@dataclass(frozen=True, slots=True)
class Speech:
    """Plain talk: nothing the engine acts on."""


Meaning = CoRequest | RoleClaim | ResultStatement | Declining | Passing | Speech
"""What a line means to the engine."""


@dataclass(frozen=True, slots=True)
class Reading:
    """The reading of one line: its ``meaning`` and whether it is ``sure``.

    ``sure`` is False when the line could mean something else; a caller acting on such a
    reading should confirm it first (one line back to the speaker).
    """

    meaning: Meaning
    sure: bool = True


@dataclass(frozen=True, slots=True)
class Table:
    """What the reader needs to know about the table and the speaker's situation.

    ``names``: the seats' display names (P1's name included when it has one);
    ``answering``: the role of the CO要求 the speaker is answering now, if any (only then is
    「違います」 a decline, or 「出ます」 a claim); ``claimed``: the speaker's own earlier claim
    (a bare 「P4黒」 from a claimed 占い師 is a result; from anyone else it may be an opinion).
    """

    names: tuple[tuple[int, str], ...] = tuple(PERSONA_NAMES.items())
    answering: Role | None = None
    claimed: Role | None = None

    @staticmethod
    def of(names: Mapping[int, str], answering: Role | None = None, claimed: Role | None = None) -> Table:
        """A table from a seat → name mapping."""
        return Table(tuple(sorted(names.items())), answering, claimed)


# ---------------------------------------------------------------- vocabulary

#: The words for each role, as players write them (full names, short forms, other tables' names).
ROLE_WORDS: dict[Role, tuple[str, ...]] = {
    Role.SEER: ("占い師", "占師", "占い", "うらない師", "うらないし", "うらない", "予言者"),
    Role.MEDIUM: ("霊媒師", "霊媒", "霊能者", "霊能", "れいばい師", "れいばいし", "れいばい", "れいのう"),
    Role.BODYGUARD: ("狩人", "狩り人", "かりゅうど", "騎士", "ハンター", "狩"),
    Role.WEREWOLF: ("人狼", "狼", "オオカミ", "おおかみ"),
    Role.VILLAGER: ("村人", "素村", "むらびと"),
    Role.MADMAN: ("狂人",),
}

#: Result words. The first group reads as a result on its own (「P4黒」); the second only
#: with a result word around it (「シセンは人狼だった」, never 「シセンは人狼だ！」, an accusation).
COLOUR_WORDS: dict[Colour, tuple[str, ...]] = {
    Colour.WHITE: ("白", "シロ", "○", "◯"),
    Colour.BLACK: ("黒", "クロ", "●"),
}
COLOUR_WORDY: dict[Colour, tuple[str, ...]] = {
    Colour.WHITE: ("人間", "村人", "村側"),
    Colour.BLACK: ("人狼", "狼"),
}

#: How a speaker names itself.
ME_WORDS = (
    "僕",
    "ぼく",
    "ボク",
    "私",
    "わたし",
    "ワタシ",
    "あたし",
    "俺",
    "おれ",
    "オレ",
    "自分",
    "うち",
    "ウチ",
    "わし",
)

HONORIFICS = ("さん", "くん", "君", "ちゃん", "氏", "様")

#: What may trail a statement: particles, long vowels, exclamation, laughter.
END_WORDS = ("よね", "よ", "ね", "ぞ", "わ", "さ", "っす", "ー", "〜", "~", "w", "!", "?", "♪", "…")

# ---------------------------------------------------------------- the pattern table

Kind = Literal[
    "request", "claim", "claim_answering", "result", "result_bare", "decline", "decline_within", "pass"
]


@dataclass(frozen=True, slots=True)
class Pattern:
    """One way of saying something: ``kind``, a regular-expression template, and whether
    a hit is sure. ``questions``: the row also reads a sentence that ends in a question mark
    (a CO要求 may be asked; a claim or a result may not)."""

    kind: Kind
    template: str
    sure: bool = True
    questions: bool = False


def _any(*words: str) -> str:
    """A regular-expression alternation of ``words``, each argument a space-separated list
    (a word may hold placeholders and regular-expression syntax, never a space)."""
    return "(?:" + "|".join(w for group in words for w in group.split()) + ")"


# Pieces the rows share.
_POLITE = (
    _any(
        "ください 下さい もらえますか もらえませんか もらえるかな いただけますか いただけませんか",
        "くれますか くれませんか くれるかな くれないかな くれ くれる くれない ほしい 欲しい ちょうだい",
        "もらえる なさい ね よ な ー",
    )
    + "*"
)
_SOON = _any("早く すぐ そろそろ 今すぐ もう よければ 良ければ できれば") + "?"
_COME_OUT = _any(
    "名乗り出ろ 名乗り出て 名乗り出よう 名乗り出なさい 名乗りでて 出てきて 出て来て 出てこい",
    "出てきな 出ろ 出て 手を?挙げて 挙手",
)
_TELL_RESULT = "(?:結果を" + _any("教えて 聞かせて 言って") + ")?"
_WHO = "(?:の人|の方|の方々)?"
_COPULA = _any("です だ だよ だぞ なんだ なんです なの っす やで でーす だった でした")
_FILLER = _any("はい 実は えっと えー あの じゃあ では うん 一応 ここで") + "?、?"
_NO = "^" + _any("いいえ いや いえ うーん") + "?、?(?:{me}(?:は|も)?)?、?"  # how a decline opens
_PAST = _any("でした だった だったよ と出ました と出た が出ました が出た 判定です 判定 確定 出ました 出た")
_AFTER_TARGET = "{honorific}?" + _any("は、 が、 [はが、:=→]") + "?"
#: The phrases that answer a CO要求 with no, wherever they end a clause (the rows below).
_DECLINE_WORDS = (
    "違います 違う ちがう ちがいます ちゃいます 違いまーす ちがいまーす",
    "名乗り出ません 名乗り出ない 出ません 出ないです 出ないよ 出ない COしません COはしません COしない",
    "COなし CO無し COはなし COはありません 潜伏します 該当しません 該当しない 該当なし",
    "対象外です 対象外 当てはまりません",
    "(?:{role})?(?:では|じゃ)" + _any("ない ありません ないです ないっす ねえ ねー"),
)
#: 「占い師（が）いたら…」: a condition on the role being at the table, as a request opens
#: (the request itself must follow: 「占い師がいたら考えよう」 stays talk).
_IF_THERE = "(?:が?" + _any("いたら いるなら 居たら 居るなら おったら おるなら いれば") + "、?)?"

#: Every way of saying a thing the engine acts on. Rows of one kind are alternative wordings.
PATTERNS: tuple[Pattern, ...] = (
    # ---- CO要求
    Pattern(
        "request",
        "{role}{honorific}?"
        + _WHO
        + "[はもの、]?"
        + _IF_THERE
        + _SOON
        + _COME_OUT
        + _TELL_RESULT
        + _POLITE
        + "{stop}",
        questions=True,
    ),
    Pattern(
        "request",
        "{role}{honorific}?"
        + _WHO
        + "[は、]?"
        + _IF_THERE
        + _SOON
        + "(?:CO|カミングアウト)(?:を|は)?"
        + _any("お願い(?:します|しまーす|ね|な)? どうぞ ください しろ よろしく 求む 希望", "して" + _POLITE)
        + "{end}",
        questions=True,
    ),
    Pattern(
        "request",
        "{role}{honorific}?[は、]?"
        + _SOON
        + "出て(?:も)?(?:いい|良い)"
        + _any("んじゃない と思う よ んだよ")
        + "{end}",
        sure=False,
        questions=True,
    ),
    # no role named: the role mentioned elsewhere in the line (「占い師さーん、…名乗り出て！」)
    Pattern(
        "request",
        "(?:^|、)(?:じゃあ|さあ)?"
        + _SOON
        + _any("名乗り出て 名乗り出ろ 出てきて 出て来て")
        + _TELL_RESULT
        + _POLITE
        + "{end}",
        sure=False,
        questions=True,
    ),
    # 「霊媒師さん、結果を教えて」: a role asked for its result is asked to come out with it
    Pattern(
        "request",
        "{role}{honorific}?"
        + _WHO
        + "[はの、]?"
        + _IF_THERE
        + _SOON
        + "(?:の)?結果(?:を|は)?"
        + _any("教えて 聞かせて 言って 出して 見せて 発表して")
        + _POLITE
        + "{stop}",
        questions=True,
    ),
    Pattern("request", "{role}(?:の)?CO要求"),
    Pattern("request", "CO要求[:、]?{role}"),
    Pattern(
        "request",
        "{role}{honorific}?"
        + _WHO
        + "[は]?"
        + _any("いますか いる います いらっしゃいますか 誰 だれ どなた")
        + "(?:ですか|かな)?\\?",
        sure=False,
        questions=True,
    ),
    # 「占いCOある人いますか」: asking who has a claim to make
    Pattern(
        "request",
        "{role}{honorific}?(?:の)?(?:CO|カミングアウト)(?:が|を|する|できる)?"
        + _any("ある人 いる人 する人 できる人 の人 者")
        + _any("は いますか います いる いない いませんか どなた 誰 だれ")
        + "?(?:ですか|かな)?{end}",
        questions=True,
    ),
    # ---- claims
    Pattern(
        "claim",
        "^" + _FILLER + "(?:CO|カミングアウト)" + _any("します する しました です") + "?[、:]"
        "(?:真の?|本物の)?{role}" + _any("です だ で") + "?{stop}",
    ),
    Pattern(
        "claim",
        "(?<!の){role}(?:として|で)?(?:CO|カミングアウト)"
        + _any(
            "します する しました した しとく しておく させてください させてもらいます です だ",
            "で",
        )
        + "?{stop}",
    ),
    Pattern(
        "claim",
        "{me}[がは、も]?(?:実は|本当は|一応)?、?(?:真の?|本物の)?{role}"
        + _any(_COPULA + "(?=$|、|が|けど|から|ので)", "(?=$|、)", "[ねよ](?=$|、)"),
    ),
    Pattern("claim", "(?:真の?|本物の)?{role}は{me}" + _COPULA + "?{end}"),
    Pattern(
        "claim",
        "^"
        + _FILLER
        + "(?:真の?|本物の)?{role}"
        + _any("です だよ だ なんです なんだ なんだよね でーす っす やで")
        + "{stop}",
    ),
    Pattern(
        "claim_answering",
        "^(?:はい|うん)?、?"
        + _any("{me}(?:が|です|だ|だよ)? (?:名乗り)?出ます 出るよ COします CO 手を?挙げます")
        + "{end}",
    ),
    # ---- results: marked (でした, 判定, 占った結果, の結果は), then bare (「P4黒」)
    Pattern("result", "{target}" + _AFTER_TARGET + "(?:結果)?[は]?{colour}(?:判定)?" + _PAST + "{end}"),
    Pattern(
        "result",
        "{target}{honorific}?を(?:占|うらな)"
        + _any("った いました ったら ったところ")
        + "(?:結果)?、?[はが]?{colour}"
        + _any("でした", "だった", "です", "だ", _PAST)
        + "?{end}",
    ),
    Pattern("result", "{target}{honorific}?の(?:霊媒|占い)?結果は{colour}(?:でした|だった|です)?{end}"),
    Pattern("result_bare", "{target}" + _AFTER_TARGET + "{colour_bare}(?:(?:です|だ|だよ){end}|{stop})"),
    # ---- answers to a CO要求 that do not come out
    Pattern(
        "decline",
        _NO
        + _any(
            "違います 違う ちがう ちがいます ちゃいます ちゃう 違いまーす ちがいまーす",
        )
        + "{end}",
    ),
    Pattern(
        "decline",
        _NO + "(?:{role})?(?:では|じゃ)" + _any("ない ありません ないです ないっす ねえ ねー") + "{end}",
    ),
    Pattern(
        "decline",
        _NO
        + "(?:ただの|普通の)?"
        + _any("村人 素村 一般人 村人陣営")
        + _any("です だよ だ でーす っす なんです")
        + "?{end}",
    ),
    Pattern(
        "decline",
        _NO
        + _any(
            "名乗り出ません 名乗り出ない 出ません 出ない COしません COはしません COしない 潜伏します",
            "潜伏する 潜伏で 該当しません 該当しない 該当なし",
        )
        + "{end}",
    ),
    Pattern("decline", "^" + _any("いいえ ノー なし ないです") + "{end}"),
    # a decline with a reason or an apology before it, or a word after it (「村人なので出ません」
    # 「ごめん、違うよ」「違います、村人です」): while answering, a clause that ends in a decline
    # phrase is a decline wherever it stands in the sentence
    Pattern("decline_within", "(?<!間)" + _any(*_DECLINE_WORDS) + "{stop}"),
    # ---- passing the turn
    Pattern(
        "pass",
        "^(?:今は|今回は|ここは)?"
        + _any(
            "パス pass スキップ skip 特になし 特にない 特にありません ノーコメント",
            "特に(?:言う|話す)こと(?:は)?(?:ない|ありません)",
        )
        + _any("です で します しまーす でお願いします")
        + "?{end}",
    ),
)


# ---------------------------------------------------------------- normalising

_KATAKANA = "".join(chr(c) for c in range(0x30A1, 0x30F7))
_FOLD = str.maketrans(_KATAKANA, "".join(chr(ord(c) - 0x60) for c in _KATAKANA))
_QUOTED = re.compile(r"「[^」]*」|『[^』]*』|“[^”]*”|\"[^\"]*\"")
_SENTENCE = re.compile(r"[^。!?\n]+[。!?]*|[。!?]+")


def fold(text: str) -> str:
    """NFKC (full-width letters and digits, half-width kana), katakana → hiragana, no white space."""
    return "".join(unicodedata.normalize("NFKC", text).translate(_FOLD).split())


_SPACES = re.compile(r"\s+")
_PUNCTUATION = "、。!?,"


def _fold_spaced(text: str) -> str:
    """:func:`fold`, but each run of white space between two words becomes a 「、」 (none
    next to a punctuation mark, which already ends the clause)."""
    words = [fold(word) for word in _SPACES.split(unicodedata.normalize("NFKC", text).strip())]
    line = ""
    for word in filter(None, words):
        if line and line[-1] not in _PUNCTUATION and word[0] not in _PUNCTUATION:
            line += "、"
        line += word
    return line


def _alternation(words: Sequence[str]) -> str:
    folded = sorted({fold(w) for w in words}, key=len, reverse=True)  # longest first: 占い師 before 占い
    return "(?:" + "|".join(re.escape(w) for w in folded) + ")"


def _word_index(table: Mapping[Role, tuple[str, ...]] | Mapping[Colour, tuple[str, ...]]) -> dict[str, int]:
    return {fold(word): int(key) for key, words in table.items() for word in words}


_ROLE_OF = _word_index(ROLE_WORDS)
_COLOUR_OF = {**_word_index(COLOUR_WORDY), **_word_index(COLOUR_WORDS)}


def _target_words(names: tuple[tuple[int, str], ...]) -> dict[str, int]:
    words = {f"p{seat}": seat for seat in range(1, 10)}
    words.update({f"{seat}番": seat for seat in range(1, 10)})
    words.update({fold(name): seat for seat, name in names})
    return words


@dataclass(frozen=True, slots=True)
class _Compiled:
    kind: Kind
    regex: re.Pattern[str]
    sure: bool
    questions: bool


@lru_cache(maxsize=32)
def _compiled(names: tuple[tuple[int, str], ...]) -> tuple[tuple[_Compiled, ...], dict[str, int]]:
    targets = _target_words(names)
    words = {
        "role": "(?P<role>" + _alternation([w for ws in ROLE_WORDS.values() for w in ws]) + ")",
        "me": _alternation(ME_WORDS),
        "honorific": _alternation(HONORIFICS),
        "target": "(?P<target>" + _alternation(list(targets)) + ")",
        "colour": "(?P<colour>"
        + _alternation([w for t in (COLOUR_WORDS, COLOUR_WORDY) for ws in t.values() for w in ws])
        + ")",
        "colour_bare": "(?P<colour>" + _alternation([w for ws in COLOUR_WORDS.values() for w in ws]) + ")",
        "end": "(?:" + _alternation(END_WORDS) + ")*$",
        # the end of a clause: the sentence's end or a comma, unless the comma quotes (「…、って」)
        "stop": "(?:" + _alternation(END_WORDS) + ")*(?:$|(?=、(?!って|と(?:言|いう|か|思))))",
    }
    rows = tuple(
        _Compiled(p.kind, re.compile(fold(p.template).format(**words), re.IGNORECASE), p.sure, p.questions)
        for p in PATTERNS
    )
    return rows, targets


# ---------------------------------------------------------------- reading a line


@dataclass(frozen=True, slots=True)
class _Hit:
    kind: Kind
    sure: bool
    role: Role | None = None
    target: int | None = None
    colour: Colour | None = None
    span: tuple[int, int] = (0, 0)

    @property
    def group(self) -> str:
        """Rows of one group are alternative wordings of one thing: one hit per stretch of text."""
        return {"claim_answering": "claim", "result_bare": "result", "decline_within": "decline"}.get(
            self.kind, self.kind
        )


def _sentences(text: str, *, spaces_break: bool = False) -> list[tuple[str, bool]]:
    """The sentences of a folded line, each without its end marks, and whether it asked.

    ``spaces_break``: a space between words ends a clause, as a 「、」 does (「占い師CO シセン白」
    is 「占い師CO、シセン白」); else spaces are dropped (「占い師 COします」 is one clause).
    """
    line = _fold_spaced(text) if spaces_break else fold(text)
    stripped = _QUOTED.sub("", line)
    # a line that is one quotation is what the speaker says (typed in 「」); else quotes are not
    line = line[1:-1] if line and not stripped.strip("。、!?") else _QUOTED.sub("「」", line)
    out: list[tuple[str, bool]] = []
    for match in _SENTENCE.finditer(line):
        sentence = match.group(0)
        body = sentence.rstrip("。!?").lstrip(".・、")
        if body:
            out.append((body, "?" in sentence[len(sentence.rstrip("。!?")) :]))
    return out


def _hits(body: str, asked: bool, table: Table) -> list[_Hit]:
    """Every hit of the pattern table in one sentence, one per group and stretch of text
    (the first row that reads a stretch wins)."""
    rows, targets = _compiled(table.names)
    hits: list[_Hit] = []
    subject = body + "?" if asked else body
    for row in rows:
        if asked and not row.questions:
            continue
        if row.kind in ("decline", "decline_within", "claim_answering") and table.answering is None:
            continue
        for found in row.regex.finditer(subject):
            groups = found.groupdict()
            role = Role(_ROLE_OF[groups["role"].lower()]) if groups.get("role") else None
            if row.kind == "claim_answering":
                role = table.answering
            if row.kind == "claim" and role not in CLAIMABLE_ROLES:
                continue  # 「村人です」 / 「僕は人狼です（笑）」: no CO (a decline when answering, else talk)
            target = targets[groups["target"].lower()] if groups.get("target") else None
            colour = Colour(_COLOUR_OF[groups["colour"]]) if groups.get("colour") else None
            sure = row.sure
            if row.kind == "decline_within" and _mentioned_roles([body[found.end() :]]):
                sure = False  # 「違います、占い師です」: a role named after the no may be a claim
            hit = _Hit(row.kind, sure, role, target, colour, found.span())
            if not any(h.group == hit.group and _overlap(h.span, hit.span) for h in hits):
                hits.append(hit)
    if any(h.group == "decline" for h in hits):
        # 「僕は違います」 answering: the decline, not a claim of the requested role by 「僕」
        hits = [h for h in hits if h.kind != "claim_answering"]
    return sorted(hits, key=lambda h: h.span)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def read_line(text: str, table: Table | None = None) -> Reading:
    """What one line of discussion means (see the module docstring).

    A line with spaces between its words is read twice, the spaces dropped and the spaces as
    clause breaks (players separate a claim from its result by a space as often as by a 「、」:
    「占い師CO シセン白」); the reading that says more wins (sure over unsure, an action over
    speech), the spaces dropped on a tie, so that 「占い師 COします」 stays one claim.
    """
    table = table or Table()
    joined = _read(_sentences(text), table)
    if _rank(joined) == 2 or len(text.split()) < 2:
        return joined
    spaced = _read(_sentences(text, spaces_break=True), table)
    return spaced if _rank(spaced) > _rank(joined) else joined


def _read(sentences: list[tuple[str, bool]], table: Table) -> Reading:
    per_sentence = [_hits(body, asked, table) for body, asked in sentences]
    return _combine(per_sentence, _mentioned_roles(body for body, _ in sentences), table)


def _rank(reading: Reading) -> int:
    """How much a reading says: 2 a sure action, 1 an unsure one, 0 speech."""
    if isinstance(reading.meaning, Speech):
        return 0
    return 2 if reading.sure else 1


def _mentioned_roles(bodies: Iterable[str]) -> set[Role]:
    """The roles a CO要求 can name that the sentences mention anywhere."""
    line = "、".join(bodies)
    return {Role(role) for word, role in _ROLE_OF.items() if word in line and Role(role) in CLAIMABLE_ROLES}


def _combine(per_sentence: list[list[_Hit]], mentioned: set[Role], table: Table) -> Reading:
    """One reading from the hits of every sentence.

    A claim takes the result stated with it; a CO要求 and a claim in one line, two roles or
    two results are ambiguous (not sure). A bare result (「P4黒」) is sure only from a seat
    that claims (now or before); a result from a seat that has not claimed is not sure. A
    decline counts only while answering a CO要求 (its rows do not match otherwise), and is
    not sure when a role is named after its last no (「違います、占い師です」); a pass only
    when every sentence passes.
    """
    hits = [hit for sentence in per_sentence for hit in sentence]
    claims = [h for h in hits if h.kind in ("claim", "claim_answering")]
    requests = [h for h in hits if h.kind == "request"]
    results = [h for h in hits if h.kind in ("result", "result_bare")]
    declines = [h for h in hits if h.group == "decline"]
    claiming = bool(claims) or table.claimed in (Role.SEER, Role.MEDIUM)
    results_sure = claiming and all(h.sure for h in results)
    stated = {(h.target, h.colour) for h in results}
    if claims:
        roles = {h.role for h in claims if h.role is not None}
        if len(roles) != 1 or not roles <= set(CLAIMABLE_ROLES):
            return Reading(Speech(), sure=False)
        first = results[0] if results else None
        sure = all(h.sure for h in claims) and not requests and not declines and len(stated) <= 1
        meaning = RoleClaim(roles.pop(), first.target if first else None, first.colour if first else None)
        return Reading(meaning, sure=sure and (first is None or results_sure))
    if requests:
        roles = {h.role for h in requests if h.role is not None}
        if not roles and len(mentioned) == 1:
            roles = set(mentioned)
        if len(roles) != 1:
            return Reading(Speech(), sure=False)
        sure = all(h.sure for h in requests) and not results and not declines
        return Reading(CoRequest(roles.pop()), sure=sure)
    if results:
        first = results[0]
        assert first.target is not None and first.colour is not None
        return Reading(ResultStatement(first.target, first.colour), sure=results_sure and len(stated) == 1)
    if declines:
        return Reading(Declining(), sure=declines[-1].sure)  # the last no decides
    if per_sentence and all(any(h.kind == "pass" for h in s) for s in per_sentence):
        return Reading(Passing())
    return Reading(Speech())


def meaning_action(meaning: Meaning, seat: int, text: str) -> Action:
    """The engine action ``seat`` takes by saying ``text`` that means ``meaning``.

    The words are kept as the action's text; a pass is an empty speech.
    """
    if isinstance(meaning, CoRequest):
        return RequestClaim(seat, meaning.role, text)
    if isinstance(meaning, RoleClaim):
        return Claim(seat, meaning.role, meaning.target, meaning.colour, text)
    if isinstance(meaning, ResultStatement):
        return StateResult(seat, meaning.target, meaning.colour, text)
    if isinstance(meaning, Declining):
        return Decline(seat, text)
    if isinstance(meaning, Passing):
        return Speak(seat, "")
    return Speak(seat, text)


# ---------------------------------------------------------------- reading a target


@dataclass(frozen=True, slots=True)
class TargetFound:
    """The seat a choice names."""

    seat: int


@dataclass(frozen=True, slots=True)
class TargetMiss:
    """A choice that names no seat that may be chosen.

    ``reason``: ``empty`` (nothing typed), ``unknown`` (no seat by that name or number),
    ``conflict`` (a P-number and a name of different seats: ``seat`` is the P-number's,
    ``named`` the name's), ``not_a_choice`` (a seat that cannot be chosen now; ``seat`` is
    it). ``choices`` are the seats that may be chosen.
    """

    text: str
    reason: Literal["empty", "unknown", "conflict", "not_a_choice"]
    choices: tuple[int, ...]
    seat: int | None = None
    named: int | None = None


_P_NUMBER = re.compile(r"^p([1-9])(?![0-9])(.*)$", re.IGNORECASE)
_NUMBER = re.compile("^([1-9])(?:番)?" + "(?:" + "|".join(fold(w) for w in ("の人", "の方", "さん")) + ")?$")
#: A name with its P-number after it, as the engine writes a seat: 「シセン(P7)」「シセンP7」
#: (folded, so full-width parentheses are these too).
_NAME_P_NUMBER = re.compile(r"^(.+?)[(\[:、,.-]?p([1-9])[)\]]?$", re.IGNORECASE)


def read_target(
    text: str, names: Mapping[int, str] | None = None, choices: Sequence[int] | None = None
) -> TargetFound | TargetMiss:
    """The seat ``text`` names, among ``choices`` (default: every seat).

    Accepted: ``P7`` / ``p7`` / ``Ｐ７`` (optionally followed by words: ``P7 仕切りたがり``, or the
    seat's name: ``P7 シセン``, ``P7(シセン)``), ``7`` / ``７`` / ``7番`` / ``7番の人``, the name
    (シセン, ｼｾﾝ) or its hiragana reading (しせん), each with or without an honorific
    (シセンさん), and the name with its P-number as the engine writes a seat (``シセン(P7)``,
    ``シセン（P7）``, ``シセンP7``). A P-number and a name of different seats is a ``conflict``.
    """
    table = dict(PERSONA_NAMES if names is None else names)
    allowed = tuple(choices) if choices is not None else tuple(range(1, 10))
    line = fold(text)
    if not line:
        return TargetMiss(text, "empty", allowed)
    by_name = {fold(name): seat for seat, name in table.items()}
    seat: int | None = None
    found = _P_NUMBER.match(line)
    named = _NAME_P_NUMBER.match(line)
    if found:
        seat = int(found.group(1))
        rest = _strip_honorific(found.group(2).lstrip(":、,.-").removeprefix("(").removesuffix(")"))
        if rest in by_name and by_name[rest] != seat:
            return TargetMiss(text, "conflict", allowed, seat, by_name[rest])
    elif _NUMBER.match(line):
        seat = int(line[0])
    elif named and _strip_honorific(named.group(1)) in by_name:
        seat = int(named.group(2))
        other = by_name[_strip_honorific(named.group(1))]
        if other != seat:
            return TargetMiss(text, "conflict", allowed, seat, other)
    else:
        seat = by_name.get(_strip_honorific(line))
        if seat is None:
            seat = _name_with_choosing_words(line, by_name)
    if seat is None:
        return TargetMiss(text, "unknown", allowed)
    if seat not in allowed:
        return TargetMiss(text, "not_a_choice", allowed, seat)
    return TargetFound(seat)


#: What may follow a name given as a choice (「シセンくんかな」「アオトにします」「ミスノで」): words
#: of choosing only, so that a remark about a seat (「シセンは怪しい」) is not read as a choice.
_CHOOSING_TAIL = re.compile(
    "(?:"
    + "|".join(fold(h) for h in HONORIFICS)
    + ")?"
    + "(?:"
    + "|".join(
        fold(word)
        for word in (
            "かな",
            "かなあ",
            "かも",
            "で",
            "です",
            "でお願い",
            "にする",
            "にします",
            "に投票",
            "に投票します",
            "を選ぶ",
            "を選びます",
            "だ",
            "だね",
        )
    )
    + ")?[。、!?！？…~〜ー]*"
)


def _name_with_choosing_words(line: str, by_name: Mapping[str, int]) -> int | None:
    """The seat whose name begins ``line`` when only words of choosing follow it (the longest
    name first, so that one name that begins another is not taken for it)."""
    for name in sorted(by_name, key=len, reverse=True):
        if name and line.startswith(name) and _CHOOSING_TAIL.fullmatch(line[len(name) :]):
            return by_name[name]
    return None


def _strip_honorific(word: str) -> str:
    for honorific in sorted(HONORIFICS, key=len, reverse=True):
        folded = fold(honorific)
        if word.endswith(folded) and len(word) > len(folded):
            return word[: -len(folded)]
    return word
