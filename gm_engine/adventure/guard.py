"""The narration guard: a GM's narration is checked against the engine before it is shown.

:func:`vet_narration` finds the game facts a narration states — HP, damage, a die or a
total, AP, magic slots, and a check's outcome (成功 / 失敗, success / failure) — and
compares each with :class:`TurnFacts`: what the engine wrote and rolled this turn, and the
state now. A number stated as HP must be someone's HP (now or as the engine reported it
this turn); damage, AP and dice must be numbers the engine produced this turn; slots must
be someone's slots; a stated success needs a check that succeeded this turn, a stated
failure one that failed. Each mismatch is a problem, said in words the model can act on.

Numbers written in kanji (三点) are not read; digits in any width are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gm_engine.adventure.intent import normalise

_NUMBER = re.compile(r"\d+")
_GAP = r"[^。\n\d]{0,8}?"


@dataclass(frozen=True)
class TurnFacts:
    """What the engine produced this turn and the state now (see the module docstring)."""

    engine_texts: tuple[str, ...] = ()
    hp: frozenset[int] = frozenset()
    slots: frozenset[int] = frozenset()
    dice: frozenset[int] = frozenset()
    checks: tuple[bool, ...] = ()

    def engine_numbers(self, about: str = "") -> frozenset[int]:
        """The numbers in the engine's texts this turn, on lines matching ``about`` (all lines
        when empty)."""
        wanted = re.compile(about, re.I) if about else None
        return frozenset(
            int(n)
            for text in self.engine_texts
            for line in normalise(text).splitlines()
            if wanted is None or wanted.search(line)
            for n in _NUMBER.findall(line)
        )

    @property
    def engine_hp(self) -> frozenset[int]:
        """Numbers the engine wrote as HP this turn (``HP 12→9``, ``HP 9/15``)."""
        found: set[int] = set()
        for text in self.engine_texts:
            for m in re.finditer(rf"HP{_GAP}(\d+)(?:\s*(?:/|→|->)\s*(\d+))*", normalise(text)):
                found.update(int(n) for n in _NUMBER.findall(m.group(0)))
        return frozenset(found)


_CLAIMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("HP", re.compile(rf"(?:HP|体力|hit points){_GAP}(\d+)(?:\s*(?:/|→|->|から)\s*(\d+))?", re.I)),
    ("HP", re.compile(r"(\d+)\s*(?:HP|hit points)", re.I)),
    ("damage", re.compile(r"(\d+)\s*(?:点)?(?:の)?\s*(?:ダメージ|(?:points? of )?damage)", re.I)),
    ("damage", re.compile(rf"(?:ダメージ|damage){_GAP}(\d+)", re.I)),
    ("die", re.compile(rf"(?:出目|ダイス|達成値|合計|rolled|roll of|total){_GAP}(\d+)", re.I)),
    ("die", re.compile(r"(\d+)\s*(?:の出目|が出|を出|を振)", re.I)),
    ("AP", re.compile(rf"AP{_GAP}(\d+)|(\d+)\s*AP")),
    ("slots", re.compile(rf"(?:スロット|slots?){_GAP}(\d+)|(\d+)\s*(?:spell )?slots?", re.I)),
)

_SUCCESS = re.compile(r"(?<!不)成功|succe(?:ed|ss)|passed", re.I)
_FAILURE = re.compile(r"失敗|fail", re.I)
_CHECK_CONTEXT = re.compile(r"判定|ロール|ダイス|出目|《|逃走|逃げ|check|roll|dice|escape|flee", re.I)


def _numbers(match: re.Match[str]) -> Iterable[int]:
    return (int(g) for g in match.groups() if g is not None)


def vet_narration(text: str, facts: TurnFacts) -> list[str]:
    """The problems of ``text`` against ``facts`` (empty when every fact it states holds)."""
    line = normalise(text)
    problems: list[str] = []
    allowed = {
        "HP": facts.hp | facts.engine_hp,
        "damage": facts.engine_numbers(r"ダメージ|damage|差分|←"),
        "die": facts.dice | facts.engine_numbers(r"dice|ダイス|出目|達成値|total|＞|>|\["),
        "AP": facts.engine_numbers(r"AP"),
        "slots": facts.slots | facts.engine_numbers(r"スロット|slot"),
    }
    seen: set[tuple[str, int]] = set()
    for kind, pattern in _CLAIMS:
        for match in pattern.finditer(line):
            for number in _numbers(match):
                if number not in allowed[kind] and (kind, number) not in seen:
                    seen.add((kind, number))
                    problems.append(_explain(kind, number, match.group(0), facts))
    for sentence in re.split(r"[。！？!?\n]", line):
        if not _CHECK_CONTEXT.search(sentence):
            continue
        says_success = bool(_SUCCESS.search(sentence))
        says_failure = bool(_FAILURE.search(sentence))
        if says_success and not any(facts.checks):
            problems.append(
                f"「{sentence.strip()}」 says a check succeeded, but "
                + ("no check succeeded this turn" if facts.checks else "no check was rolled this turn")
            )
        if says_failure and all(facts.checks):
            problems.append(
                f"「{sentence.strip()}」 says a check failed, but "
                + ("every check this turn succeeded" if facts.checks else "no check was rolled this turn")
            )
    return problems


def _explain(kind: str, number: int, said: str, facts: TurnFacts) -> str:
    if kind == "HP":
        known = sorted(facts.hp | facts.engine_hp)
        return f"「{said}」: {number} is nobody's HP (the HP on the table: {known or 'none'})"
    if kind == "slots":
        slots = sorted(facts.slots) or "none"
        return f"「{said}」: {number} is nobody's magic slots (slots on the table: {slots})"
    if not facts.engine_texts and not facts.dice:
        return f"「{said}」: the engine produced no {kind} this turn; state only what its tools returned"
    return (
        f"「{said}」: the engine produced no {kind} of {number} this turn; use the numbers its tools returned"
    )
