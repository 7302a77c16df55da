"""Who a spoken line addresses, and on what point.

A line addresses a seat when one of its sentences names that seat (by name, ``P5`` or
``5番``) and either opens with it as a call (「P5、…」「キウミさん、…」) or asks something
(a question mark, or なんで / なぜ / どう思う / 誰 / 教えて …). The point is read from the same
sentence: a vote (投票, 入れ, 票), a claim (CO, 占い, 霊媒, 本物, 偽 …), else the seat's
opinion. The seat named first in the sentence is the one addressed; the speaker never
addresses itself, and words quoted in 『』 (someone else's) address nobody.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Topic = Literal["vote", "claim", "opinion"]

_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
_QUESTION = re.compile(r"[？?]|なんで|なぜ|何で|どう(?:思|見|し|な|考)|誰|教えて|聞きたい|聞かせて|説明して")
_VOTE = re.compile(r"投票|入れ|票")
_CLAIM = re.compile(r"CO|ＣＯ|占い|霊媒|狩人|本物|偽|真")
_SEAT = re.compile(r"P([1-9])|([1-9１-９])番")
_CALL = re.compile(r"(?:さん|くん|ちゃん)?[、,]")
_QUOTED = re.compile(r"『[^』]*』")  # a quotation of someone else's words addresses nobody
_ZENKAKU = str.maketrans("１２３４５６７８９", "123456789")


@dataclass(frozen=True, slots=True)
class Address:
    """``seat`` was asked about ``topic`` in ``sentence``."""

    seat: int
    topic: Topic
    sentence: str


def _mentions(sentence: str, names: tuple[str, ...]) -> list[tuple[int, int, int]]:
    """(start, end, seat) of every seat named in ``sentence``, in order of position."""
    found: list[tuple[int, int, int]] = []
    for seat in range(1, len(names)):
        name = names[seat]
        if name:
            at = sentence.find(name)
            if at >= 0:
                found.append((at, at + len(name), seat))
    for match in _SEAT.finditer(sentence):
        digit = (match.group(1) or match.group(2)).translate(_ZENKAKU)
        if int(digit) < len(names):
            found.append((match.start(), match.end(), int(digit)))
    return sorted(found)


def _topic(sentence: str) -> Topic:
    if _VOTE.search(sentence):
        return "vote"
    if _CLAIM.search(sentence):
        return "claim"
    return "opinion"


def addresses(text: str, names: tuple[str, ...], speaker: int) -> list[Address]:
    """The seats ``text`` (spoken by ``speaker``) addresses, each at most once, in order.

    ``names`` is the table's names by seat (index 0 unused).
    """
    found: list[Address] = []
    seen: set[int] = set()
    for match in _SENTENCE.finditer(_QUOTED.sub("", text)):
        sentence = match.group(0).strip()
        mentions = [m for m in _mentions(sentence, names) if m[2] != speaker]
        if not mentions:
            continue
        at, end, seat = mentions[0]
        called = at == 0 and _CALL.match(sentence, end) is not None
        if seat in seen or not (called or _QUESTION.search(sentence)):
            continue
        seen.add(seat)
        found.append(Address(seat, _topic(sentence), sentence))
    return found
