"""The player's free text read as an intent, in Japanese and English as people write them.

:func:`read_intent` takes a line and the words of what is in reach (exits, things, people,
items, the scene's decisions: :func:`gm_engine.adventure.story.vocabulary`) and returns an
:class:`Intent`: what the player wants (move, look, examine, talk, take, use, attack,
cast, flee, rest, status, help, choose, proceed), the thing named, and — when the line
names no thing or several — the candidates to ask back about. It never fills in what the
player left out when there is more than one way to read it: a missing target with
several candidates, a negated verb ("逃げない", "don't attack") or a line with no verb
it knows comes back as :attr:`IntentKind.UNCLEAR` or with ``candidates`` to ask about.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from gm_engine.combat.spells import Spell


class IntentKind(StrEnum):
    """What a line asks for."""

    MOVE = "move"
    LOOK = "look"
    EXAMINE = "examine"
    TALK = "talk"
    TAKE = "take"
    USE = "use"
    ATTACK = "attack"
    CAST = "cast"
    FLEE = "flee"
    REST = "rest"
    STATUS = "status"
    HELP = "help"
    CHOOSE = "choose"
    PROCEED = "proceed"
    UNCLEAR = "unclear"


@dataclass(frozen=True)
class Intent:
    """One reading of a line: its kind, the thing named (a vocabulary key such as
    ``exit:forest``), the candidates when the line did not settle on one, a spell named,
    and the words the player used (for a topic or what an item is used on)."""

    kind: IntentKind
    target: str | None = None
    candidates: tuple[str, ...] = ()
    spell: str | None = None
    text: str = ""
    unknown: str = ""
    """Words the line uses for a thing this verb cannot take here (「祠を調べる」 where no
    祠 can be examined): never read as the one thing that can, so the GM can say so."""


#: English spell names people type, to the rules' names.
SPELL_WORDS: dict[str, str] = {
    "fireball": "火弾",
    "fire": "火弾",
    "lightning": "雷撃",
    "thunder": "雷撃",
    "collapse": "崩壊",
    "slow": "鈍足",
    "shield spell": "魔力盾",
    "mana shield": "魔力盾",
    "sanctuary": "聖域",
    "foresight": "予見",
    "limit break": "限界突破",
    "heal": "治癒",
    "cure": "治癒",
    "revive": "蘇生",
    "healing wave": "治癒の波動",
    "ファイアボール": "火弾",
    "ヒール": "治癒",
    "回復魔法": "治癒",
}

# Each kind's verbs: Japanese stems matched anywhere, English words matched as words.
_VERBS: tuple[tuple[IntentKind, str, str], ...] = (
    (
        IntentKind.HELP,
        r"ヘルプ|助けて|何ができる|なにができる|何をすれば|どうすればいい|使い方|遊び方",
        r"help|what can i do|commands|how do i play",
    ),
    (
        IntentKind.STATUS,
        r"ステータス|状態|体力|残りHP|HPは|HPを|スロット|能力値|技能値|シート|キャラ(?:クター)?を確認",
        r"status|stats|my hp|hit points|slots|character sheet|how am i",
    ),
    (
        IntentKind.FLEE,
        r"逃げ|逃走|撤退|退却|にげ|ずらかる|離脱",
        r"flee|run away|escape|retreat|run for it|get away",
    ),
    (IntentKind.REST, r"休む|休息|休憩|眠る|寝る|野営|一晩|仮眠|やすむ", r"rest|sleep|camp|take a break|nap"),
    (IntentKind.CAST, r"唱え|詠唱|魔法|呪文|術を", r"cast|spell|magic"),
    (
        IntentKind.ATTACK,
        r"攻撃|斬り|斬る|切り[かつ]|殴|戦う|たたか|倒す|突[くき]|撃つ|叩|仕掛け|襲いかか|かかって",
        r"attack|hit|strike|fight|kill|slash|stab|shoot|charge|punch",
    ),
    (
        IntentKind.TALK,
        r"話|聞く|聞いて|聞き出|尋ね|訊|質問|声をかけ|挨拶|相談|問いただ|しゃべ",
        r"talk|speak|ask|chat|greet|question|tell me|say hello",
    ),
    (
        IntentKind.TAKE,
        r"取る|とる|取って|拾|手に取|持っていく|持って行|もらう|もらっ|盗|入手|回収|手に入れ",
        r"take|pick up|grab|get|pocket|collect|steal|loot",
    ),
    (
        IntentKind.USE,
        r"使う|使って|使い|つかう|使用|かざす|差し込|飲む|飲ませ|塗る|掲げ|投げ",
        r"use|apply|drink|hold up|throw|unlock with",
    ),
    (
        IntentKind.EXAMINE,
        r"調べ|しらべ|探す|探る|捜|観察|よく見|眺め|覗|のぞ|確認|読む|読んで|調査|見てみ|見る|見て|触",
        r"examine|inspect|search|check|investigate|read|look at|look in|look into|study|look closer|touch",
    ),
    (
        IntentKind.LOOK,
        r"見回|見渡|周り|周囲|辺り|あたり|ここはどこ|様子|何がある|何匹|何体|何人|敵は|状況",
        r"look|look around|where am i|describe|surroundings|what is here|what's here|how many",
    ),
    (
        IntentKind.MOVE,
        r"行く|いく|行こう|行きたい|向かう|向か|進む|進も|入る|入ろう|戻る|もど|出る|出よう|移動|歩|登る|登|上る|下る|降り|下り|渡る|抜ける|帰る|訪ね|行って",
        r"go|move|walk|head|enter|leave|travel|return|climb|cross|go back|proceed to|visit",
    ),
    (
        IntentKind.PROCEED,
        r"次へ|次に|つぎ|続け|つづけ|進めて|戦闘開始|開始|先へ|はい|うん|おk|OK|よし",
        r"next|continue|go on|ok|okay|yes|start|begin|ready|fight on",
    ),
)

_COMPILED = tuple(
    (kind, re.compile(ja), re.compile(rf"\b(?:{en})\b", re.IGNORECASE)) for kind, ja, en in _VERBS
)

#: A negated verb: the player says what they will not do.
_NEGATION = re.compile(
    r"(?:ない|ません|ず[にで。]|やめ|しないで|まだ)|\b(?:don't|do not|not|never|no)\b", re.I
)

#: A verb-kind whose target is of this vocabulary kind.
_TARGET_KINDS: dict[IntentKind, tuple[str, ...]] = {
    IntentKind.MOVE: ("exit",),
    IntentKind.EXAMINE: ("feature", "item", "npc", "held"),
    IntentKind.TALK: ("npc",),
    IntentKind.TAKE: ("item",),
    IntentKind.USE: ("held",),
    IntentKind.CHOOSE: ("choice",),
    IntentKind.ATTACK: ("enemy",),
    IntentKind.CAST: ("enemy", "pc"),
}


def normalise(text: str) -> str:
    """Full-width letters and digits folded (NFKC), spaces trimmed."""
    return unicodedata.normalize("NFKC", text).strip()


#: A verb's dictionary ending and the stems it takes in polite and te forms (断る → 断り, 断っ).
_STEMS = {"る": ("り", "っ"), "す": ("し",), "う": ("い", "っ"), "く": ("き", "い"), "む": ("み", "ん")}


def _forms(name: str) -> tuple[str, ...]:
    """A word and, for a Japanese verb, its conjugated stems."""
    if len(name) >= 2 and not name.isascii() and name[-1] in _STEMS:
        return (name, *(name[:-1] + ending for ending in _STEMS[name[-1]]))
    return (name,)


def _mentioned(text: str, words: Mapping[str, Sequence[str]]) -> list[str]:
    """Keys whose words appear in ``text``, longest match first; a key whose match lies
    inside a longer match of another key is dropped."""
    low = text.lower()
    spans: list[tuple[int, int, str]] = []
    for key, names in words.items():
        best: tuple[int, int] | None = None
        for name in (form for word in names for form in _forms(normalise(word).lower())):
            if not name:
                continue
            if name.isascii():
                m = re.search(rf"\b{re.escape(name)}\b", low)
                found = (m.start(), m.end()) if m else None
            else:
                at = low.find(name)
                found = (at, at + len(name)) if at >= 0 else None
            if found and (best is None or found[1] - found[0] > best[1] - best[0]):
                best = found
        if best is not None:
            spans.append((best[0], best[1], key))
    spans.sort(key=lambda s: -(s[1] - s[0]))
    kept: list[tuple[int, int, str]] = []
    for start, end, key in spans:
        if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in kept):
            kept.append((start, end, key))
    kept.sort()
    return [key for _, _, key in kept]


def _spell(text: str) -> str | None:
    names = sorted((s.value for s in Spell), key=len, reverse=True)
    for name in names:
        if name in text:
            return name
    low = text.lower()
    for word in sorted(SPELL_WORDS, key=len, reverse=True):
        if re.search(rf"\b{re.escape(word)}\b", low) if word.isascii() else word in text:
            return SPELL_WORDS[word]
    return None


def verbs_in(text: str) -> list[IntentKind]:
    """The kinds whose verbs appear in ``text``, in the order of :data:`_VERBS`."""
    return [kind for kind, ja, en in _COMPILED if ja.search(text) or en.search(text)]


def read_intent(text: str, words: Mapping[str, Sequence[str]], *, in_battle: bool = False) -> Intent:
    """Read ``text`` (see the module docstring). ``words`` maps vocabulary keys
    (``kind:id``) to the words naming them; in a battle, ``enemy:NAME`` and ``pc:NAME``."""
    line = normalise(text)
    if not line:
        return Intent(IntentKind.UNCLEAR, text=line)
    if line in ("?", "？", "/?"):
        return Intent(IntentKind.HELP, text=line)
    mentioned = _mentioned(line, words)
    verbs = verbs_in(line)
    spell = _spell(line)
    if spell is not None and IntentKind.CAST not in verbs and (in_battle or IntentKind.USE in verbs):
        verbs.insert(0, IntentKind.CAST)
    if _NEGATION.search(line) and verbs and not _is_question(line):
        return Intent(IntentKind.UNCLEAR, text=line)
    choices = [k for k in mentioned if k.startswith("choice:")]
    if choices and not (set(verbs) & {IntentKind.HELP, IntentKind.STATUS, IntentKind.FLEE}):
        return _pick(IntentKind.CHOOSE, choices, line)
    exits = [k for k in mentioned if k.startswith("exit:")]
    if exits and not verbs and re.search(r"へ|\bto\b|\binto\b", line, re.I):
        return _pick(IntentKind.MOVE, exits, line)  # 「尾根へ」, "to the ridge"
    if not verbs:
        if _is_question(line) and in_battle:
            return Intent(IntentKind.LOOK, text=line)
        return Intent(IntentKind.UNCLEAR, candidates=tuple(mentioned), text=line)
    kind = _main_verb(verbs, mentioned)
    if kind is IntentKind.CAST:
        targets = [k for k in mentioned if k.split(":")[0] in ("enemy", "pc")]
        return Intent(
            kind,
            target=targets[0] if len(targets) == 1 else None,
            spell=spell,
            text=line,
            candidates=tuple(targets) if len(targets) > 1 else (),
        )
    allowed = _TARGET_KINDS.get(kind)
    if allowed is None:
        return Intent(kind, text=line)
    named = [k for k in mentioned if k.split(":")[0] in allowed]
    if (
        kind is IntentKind.EXAMINE
        and not named
        and (IntentKind.LOOK in verbs or re.search(r"見回|見渡|周り|周囲|辺り|あたり|around", line, re.I))
    ):
        return Intent(IntentKind.LOOK, text=line)  # 「様子を見る」: no thing named, a look around
    if not named:
        # Something named, but not of this verb's kind (「祠を調べる」 where 祠 is the way to
        # the forest) or not here at all: said back, never read as the one thing that is.
        unknown = _unknown_thing(line) or (_first_word(line, mentioned, words) if mentioned else "")
        if unknown:
            return Intent(kind, text=line, unknown=unknown)
    return _pick(kind, named, line)


#: The thing a Japanese line names before its particle (「祠を調べる」 → 祠).
_JA_OBJECT = re.compile(r"^(?P<thing>[^、。！？!?\s]+?)(?:について|を|に|と|へ|の中)")
#: The thing an English line names after its verb ("examine the shrine" → shrine).
_EN_OBJECT = re.compile(
    r"^(?:examine|inspect|search|check|investigate|read|look (?:at|in|into)|study|touch|talk to|"
    r"speak (?:to|with)|ask|take|pick up|grab|get|use|go to|head to|walk to|enter|visit)\s+"
    r"(?:the\s+|a\s+|an\s+)?(?P<thing>[a-z][a-z' -]*?)\s*[.!?]?$",
    re.IGNORECASE,
)
#: Words that point at something without naming it: nothing unknown was named.
_POINTING = frozenset(
    [
        "これ",
        "それ",
        "あれ",
        "ここ",
        "そこ",
        "あそこ",
        "辺り",
        "あたり",
        "周り",
        "周囲",
        "何か",
        "なにか",
        "様子",
        "全部",
        "色々",
        "いろいろ",
        "もう一度",
        "もう少し",
        "よく",
        "it",
        "this",
        "that",
        "here",
        "around",
        "everything",
        "something",
        "more",
    ]
)


#: Words that take に to say how something is done, not to what.
_MANNER = frozenset(
    [
        "慎重",
        "静か",
        "丁寧",
        "素早",
        "一緒",
        "すぐ",
        "先",
        "次",
        "更",
        "さら",
        "一気",
        "大胆",
        "念入り",
        "本当",
        "確実",
        "最初",
        "最後",
        "早め",
        "真っ直ぐ",
        "まっすぐ",
        "正直",
        "冷静",
        "勇敢",
        "適当",
        "手短",
        "簡単",
        "徹底的",
        "しずか",
        "そっと",
        "こっそり",
        "ついで",
        "試し",
        "順番",
        "一人",
        "ひとり",
    ]
)


def _first_word(line: str, keys: Sequence[str], words: Mapping[str, Sequence[str]]) -> str:
    """The word of the first of ``keys`` that ``line`` uses (as the player wrote it)."""
    low = line.lower()
    for word in words[keys[0]]:
        if normalise(word).lower() in low:
            return normalise(word)
    return str(words[keys[0]][0])


def _unknown_thing(line: str) -> str:
    """What the line names as its object when none of the words in reach matched, or ""."""
    found = _JA_OBJECT.match(line) or _EN_OBJECT.match(line)
    if found is None:
        return ""
    thing = found.group("thing").strip()
    if not thing or thing.lower() in _POINTING or verbs_in(thing):
        return ""
    if found.re is _JA_OBJECT and line[found.end("thing")] == "に" and thing in _MANNER:
        return ""  # 「慎重に進む」: how, not where
    return thing


def _is_question(line: str) -> bool:
    return line.endswith(("?", "？")) or bool(
        re.search(r"何|いくつ|どれ|どこ|how many|what|where|which", line)
    )


def _main_verb(verbs: list[IntentKind], mentioned: list[str]) -> IntentKind:
    """The verb the line is about: a verb whose target kind is named wins over one that is
    not (「鍵を使って扉を開けて進む」 uses the key)."""
    kinds = {k.split(":")[0] for k in mentioned}
    for verb in verbs:
        if verb in (IntentKind.HELP, IntentKind.STATUS, IntentKind.FLEE, IntentKind.CAST):
            return verb
    for verb in verbs:
        if set(_TARGET_KINDS.get(verb, ())) & kinds:
            return verb
    return verbs[0]


def _pick(kind: IntentKind, targets: list[str], line: str) -> Intent:
    if len(targets) == 1:
        return Intent(kind, target=targets[0], text=line)
    return Intent(kind, candidates=tuple(targets), text=line)
