"""The offline personas' words: phrase material from data, combined from the facts they weigh.

Each persona has a phrase book, ``personas/phrases/<id>.toml`` (the auto-played P1 has
``player.toml``), and all share the fact clauses of ``personas/phrases/facts.toml``: plain
clauses that state one public fact (「{seat}が{other}に黒を出している」), which a persona's
``frames`` wrap in its own manner (「{fact}のが気になるな」). :class:`Composer` builds a line
from a seat's :class:`~gm_engine.werewolf.grounds.Grounds` (its public facts) and its agent's
suspicion scores: whom it suspects and how strongly decide which facts it cites and how many
sentences it says; its manner (a few knobs in its book) decides what it looks at first.
Every line comes back with the :class:`CitedFact` records of the facts it names.

Choices are a stable hash of the recorded facts, the seat, the turn and the game's seed, so
the same game says the same words; a line already said in the game is never said again
(the public log holds every earlier line, so the check needs no memory of its own).

Errors: :class:`PhraseError` (a ValueError): a phrase file is missing or invalid.
"""

from __future__ import annotations

import re
import string
import tomllib
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gm_engine.werewolf.addressing import Address
from gm_engine.werewolf.citations import CitedFact
from gm_engine.werewolf.grounds import Fact, Grounds
from gm_engine.werewolf.records import Colour

#: A spoken line's length cap (the speak tool's).
MAX_LINE_CHARS = 400
#: A vote reason's length cap (the vote tool's).
MAX_REASON_CHARS = 120


class PhraseError(ValueError):
    """A phrase file is missing, unreadable or invalid (the message names the file and the field)."""


_FACT_FIELDS: dict[str, frozenset[str]] = {
    "result_black": frozenset({"seat", "other", "role"}),
    "result_white": frozenset({"seat", "other", "role"}),
    "claim": frozenset({"seat", "role"}),
    "counter_claim": frozenset({"seat", "other", "role"}),
    "vote": frozenset({"seat", "other", "reason"}),
    "victim_vote": frozenset({"seat", "other"}),
    "speech": frozenset({"seat", "quote", "day"}),
    "words_votes": frozenset({"seat", "quote", "other"}),
    "compare": frozenset({"seat", "quote", "before"}),
    "silence": frozenset({"seat", "day"}),
    "executed": frozenset({"seat"}),
    "attack": frozenset({"seat"}),
    "peaceful_morning": frozenset(),
    "voters": frozenset({"voters", "other"}),
    "request": frozenset({"seat", "role"}),
}

_BOOK_FIELDS: dict[str, frozenset[str]] = {
    "frames": frozenset({"fact"}),
    "opening": frozenset(),
    "lead": frozenset(),
    "suspect_strong": frozenset({"target"}),
    "suspect": frozenset({"target"}),
    "suspect_weak": frozenset({"target"}),
    "trust": frozenset({"target"}),
    "ask_vote": frozenset({"target"}),
    "ask_claim": frozenset({"target"}),
    "ask_opinion": frozenset({"target"}),
    "answer_vote": frozenset({"asker", "target", "reason"}),
    "answer_claim": frozenset({"asker", "target"}),
    "answer_opinion": frozenset({"asker", "target"}),
    "answer_own_claim": frozenset({"asker"}),
    "answer_plan": frozenset({"asker", "target"}),
    "answer_unsure": frozenset({"asker"}),
    "defend": frozenset({"seat"}),
    "cover": frozenset({"target"}),
    "cut": frozenset({"target"}),
    "close": frozenset(),
    "reason_frames": frozenset({"fact"}),
    "reason_plain": frozenset({"target"}),
    "decline": frozenset(),
    "claim": frozenset({"role"}),
    "result": frozenset({"target", "color"}),
    "request_seer": frozenset(),
    "request_medium": frozenset(),
}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _check(
    lines: dict[str, tuple[str, ...]], allowed: dict[str, frozenset[str]]
) -> dict[str, tuple[str, ...]]:
    for kind, templates in lines.items():
        if kind not in allowed:
            raise ValueError(f"unknown kind of line {kind!r} (known: {', '.join(sorted(allowed))})")
        if not templates:
            raise ValueError(f"{kind}: no lines")
        for template in templates:
            try:
                unknown = _fields(template) - allowed[kind]
            except ValueError as exc:
                raise ValueError(f"{kind}: broken braces in {template!r} ({exc})") from None
            if unknown or not template.strip() or "\n" in template:
                raise ValueError(
                    f"{kind}: a bad line {template!r} (placeholders allowed: {sorted(allowed[kind])})"
                )
    missing = sorted(set(allowed) - set(lines))
    if missing:
        raise ValueError(f"missing kinds of line: {', '.join(missing)}")
    return lines


class FactClauses(BaseModel):
    """The shared plain clauses stating each kind of fact (``personas/phrases/facts.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    clauses: dict[str, tuple[str, ...]]

    @field_validator("clauses")
    @classmethod
    def _valid(cls, clauses: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        return _check(clauses, _FACT_FIELDS)


class Manner(BaseModel):
    """What a persona looks at and how much it says (the rules document's traits as knobs)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    facts: int = Field(default=2, ge=1, le=4)
    """Facts cited in an ordinary speech."""
    grows: bool = False
    """Says more (facts and a question) as its suspicion grows."""
    asks: int = Field(default=30, ge=0, le=100)
    """Percent of speeches that end with a question to the suspect."""
    rates_white: bool = False
    """Also names the seat it trusts most, with its reason."""
    contrary: bool = False
    """Leans away from the seat the table voted for most."""
    follows: bool = False
    """Cites whom the others voted for."""
    compares: bool = False
    """Sets a seat's earlier words against its later ones."""
    checks_votes: bool = False
    """Sets a seat's words against its vote."""


class PhraseBook(BaseModel):
    """One persona's phrase material (``personas/phrases/<id>.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    honorific: str = Field(default="さん", max_length=4)
    manner: Manner = Manner()
    lines: dict[str, tuple[str, ...]]

    @field_validator("lines")
    @classmethod
    def _valid(cls, lines: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        return _check(lines, _BOOK_FIELDS)


def default_phrases_dir() -> Path:
    """``phrases/`` in the personas directory."""
    from gm_engine.sessions.personas import default_personas_dir

    return default_personas_dir() / "phrases"


def read_phrase_file(path: Path) -> dict[str, object]:
    """The TOML table of a phrase file.

    Raises:
        PhraseError: the file cannot be read or is not UTF-8 TOML.
    """
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PhraseError(f"{path}: cannot read phrase file ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PhraseError(f"{path}: not valid UTF-8 TOML: {exc}") from None


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}" for e in exc.errors())


@lru_cache(maxsize=64)
def load_book(directory: Path, book_id: str) -> PhraseBook:
    """The phrase book ``<directory>/<book_id>.toml`` (read once per process).

    Raises:
        PhraseError: the file is missing or invalid.
    """
    path = directory / f"{book_id}.toml"
    try:
        return PhraseBook.model_validate(read_phrase_file(path))
    except ValidationError as exc:
        raise PhraseError(f"{path}: invalid phrase book: {_problems(exc)}") from None


@lru_cache(maxsize=8)
def load_clauses(directory: Path) -> FactClauses:
    """The shared fact clauses, ``<directory>/facts.toml``.

    Raises:
        PhraseError: the file is missing or invalid.
    """
    path = directory / "facts.toml"
    try:
        return FactClauses.model_validate({"clauses": read_phrase_file(path)})
    except ValidationError as exc:
        raise PhraseError(f"{path}: invalid fact clauses: {_problems(exc)}") from None


def stable_pick(lines: Sequence[str], *key: object) -> str:
    """One of ``lines``, by a stable hash of ``key`` (same facts, same choice)."""
    digest = zlib.crc32(":".join(str(k) for k in key).encode("utf-8"))
    return lines[digest % len(lines)]


def _sentence(text: str) -> str:
    return text if text.endswith(("。", "！", "？", "…", "!", "?")) else text + "。"


@dataclass
class Line:
    """A composed line and the facts it cites."""

    text: str
    cites: list[CitedFact] = field(default_factory=list)

    def cite(self, fact: Fact) -> None:
        """Add ``fact`` to the citations (once)."""
        cite = fact.cite
        if cite not in self.cites:
            self.cites.append(cite)


@dataclass
class Composer:
    """Composes one seat's lines from its grounds, its suspicion scores and its phrase book.

    ``scores`` are the agent's suspicion (index 0 unused); ``trusts`` its belief in each
    claimant; ``partners`` a 人狼's partner (empty otherwise: the werewolf manner is used only
    for a 人狼); ``salt`` the game's seed and ``turn`` the session's turn number, which keep
    the choices of one game apart from another's.
    """

    book: PhraseBook
    clauses: FactClauses
    grounds: Grounds
    scores: tuple[float, ...]
    trusts: dict[int, float]
    partners: tuple[int, ...]
    salt: object
    turn: int
    first_person: str = "私"
    attempt: int = 0
    _frames_used: set[str] = field(default_factory=set)

    # ------------------------------------------------------------ wording

    def _key(self, *parts: object) -> tuple[object, ...]:
        obs = self.grounds.obs
        return (self.salt, obs.seat, obs.day, self.turn, self.attempt, *parts)

    def chance(self, percent: int, *parts: object) -> bool:
        """True for ``percent`` in a hundred keys (a stable hash, like :meth:`pick`)."""
        return zlib.crc32(":".join(map(str, self._key(*parts))).encode("utf-8")) % 100 < percent

    def pick(self, kind: str, *parts: object) -> str:
        """A line of the book's ``kind``."""
        return stable_pick(self.book.lines[kind], *self._key(kind, *parts))

    def name(self, seat: int) -> str:
        """``seat``'s name as this persona says it (its own seat: its first person)."""
        if seat == self.grounds.obs.seat:
            return self.first_person
        return f"{self.grounds.obs.names[seat]}{self.book.honorific}"

    def clause(self, fact: Fact, kind: str | None = None, **extra: str) -> str:
        """The plain clause stating ``fact`` (``kind`` overrides the clause kind)."""
        if kind is None:
            kind = fact.kind
            if kind == "result":
                kind = "result_black" if fact.colour is Colour.BLACK else "result_white"
        role = fact.role.label if fact.role is not None else ""
        values = {
            "seat": self.name(fact.seat) if fact.seat else "",
            "other": self.name(fact.other) if 0 < fact.other < len(self.grounds.obs.names) else "",
            "role": role,
            "reason": _clipped(fact.text.removesuffix("から"), 40),
            "quote": fact.text,
            "day": f"{fact.day}日目",
            **extra,
        }
        templates = self.clauses.clauses[kind]
        if fact.seat == self.grounds.obs.seat:  # its own claim or result: said as its own act
            templates = tuple(t for t in templates if t.startswith("{seat}が")) or templates
        if fact.other == self.grounds.obs.seat:  # 「僕がぶつかってきている」: nobody comes at itself
            templates = tuple(t for t in templates if not _COMING_AT.search(t)) or templates
        if kind == "vote" and ("『" in fact.text or not fact.text.strip()):
            # a reason that quotes is not quoted again; a vote without a reason has none to quote
            templates = tuple(t for t in templates if "{reason}" not in t) or templates
        template = stable_pick(templates, *self._key("clause", kind, fact.entry, fact.seat))
        return template.format(**values)

    def framed(self, clause: str, *key: object) -> str:
        """``clause`` in one of the persona's frames, as a sentence (no frame twice in a line)."""
        frames = self.book.lines["frames"]
        start = frames.index(self.pick("frames", clause, *key))
        for step in range(len(frames)):
            frame = frames[(start + step) % len(frames)]
            if frame not in self._frames_used:
                break
        self._frames_used.add(frame)
        return _sentence(frame.format(fact=clause))

    # ------------------------------------------------------------ what to say

    def targets(self) -> list[int]:
        """The living others it may argue against, most suspected first (never its partner)."""
        others = [s for s in self.grounds.living_others() if s not in self.partners]
        return sorted(others, key=lambda s: (-self.scores[s], s))

    def confidence(self, target: int) -> float:
        """How far ``target`` stands out of the others (score over the median of the rest)."""
        rest = sorted(self.scores[s] for s in self.grounds.living_others() if s != target)
        median = rest[len(rest) // 2] if rest else 0.0
        return self.scores[target] - median

    def main_target(self) -> int | None:
        """The seat this persona talks about: its top suspect (a contrary one may take the second)."""
        ranked = self.targets()
        if not ranked:
            return None
        top = ranked[0]
        if self.book.manner.contrary and len(ranked) > 1:
            voted = [f.other for f in self.grounds.last_votes()]
            if voted and max(set(voted), key=lambda s: (voted.count(s), -s)) == top:
                second = ranked[1]
                if self.scores[top] - self.scores[second] < 4:
                    return second
        return top

    def facts_against(self, target: int) -> list[Fact]:
        """The facts against ``target`` in the order this persona looks at them (what came
        up since its own last words first, so that a second turn moves on)."""
        grounds, manner = self.grounds, self.book.manner
        facts = grounds.against(target)
        last = grounds.last_own
        facts = [f for f in facts if f.entry is not None and f.entry > last] + [
            f for f in facts if f.entry is None or f.entry <= last
        ]
        ordered: list[Fact] = [f for f in facts if f.kind in ("result", "counter_claim")]
        if manner.checks_votes or manner.compares:
            ordered = [f for f in facts if f.kind in ("vote", "speech")] + ordered
        ordered.extend(f for f in facts if f not in ordered)
        return ordered

    def fact_sentence(self, fact: Fact, target: int) -> tuple[str, list[Fact]]:
        """One sentence about ``fact`` (sometimes with a second fact it is set against)."""
        grounds, manner = self.grounds, self.book.manner
        used = [fact]
        if fact.kind == "vote" and fact.seat != target:  # the victim's vote for the target
            return self.framed(self.clause(fact, "victim_vote")), used
        if fact.kind == "vote" and manner.checks_votes:
            # words against the vote: that day's words that do not name the seat it voted for
            voted = grounds.obs.names[fact.other]
            said = [
                s
                for s in grounds.speeches.get(target, [])
                if s.day == fact.day and s.text and voted not in s.text
            ]
            if said:
                used.append(said[-1])
                text = self.clause(fact, "words_votes", quote=said[-1].text)
                return self.framed(text), used
        if fact.kind == "speech" and manner.compares:
            earlier = [
                s
                for s in grounds.speeches.get(target, [])
                if s.entry is not None and s.day < fact.day and s.text
            ]
            earlier = [s for s in earlier if s.text != fact.text]  # the same words are no change
            if earlier:
                used.append(earlier[-1])
                return self.framed(self.clause(fact, "compare", before=earlier[-1].text)), used
        if fact.kind == "vote" and manner.follows:
            voters = [f for f in grounds.voters_for(target) if f.seat != self.grounds.obs.seat][:2]
            if voters:
                used = voters
                names = "と".join(self.name(f.seat) for f in voters)
                return self.framed(self.clause(fact, "voters", voters=names)), used
        return self.framed(self.clause(fact)), used

    def conclusion(self, target: int) -> str:
        """Whom it suspects, as strongly as its scores say."""
        confidence = self.confidence(target)
        kind = "suspect_strong" if confidence >= 8 else "suspect" if confidence >= 2.5 else "suspect_weak"
        return self.pick(kind, target).format(target=self.name(target))

    def question(self, target: int, about: Fact | None) -> str:
        """A question to ``target`` on the point of ``about``."""
        if about is not None and about.kind == "vote" and about.seat == target:
            kind = "ask_vote"
        elif (
            about is not None
            and about.kind in ("counter_claim", "claim", "result")
            and any(f.seat == target for f in self.grounds.claims)  # only a claimant is asked of its claim
        ):
            kind = "ask_claim"
        else:
            kind = "ask_opinion"
        return self.pick(kind, target).format(target=self.name(target))

    def answers(self, line: Line) -> list[str]:
        """The answers to the questions put to this seat since its last words: one per point,
        naming everyone who asked it."""
        by_topic: dict[str, tuple[list[Fact], Address]] = {}
        for asked, address in self.grounds.questions():
            askers, _ = by_topic.setdefault(address.topic, ([], address))
            if all(a.seat != asked.seat for a in askers):
                askers.append(asked)
            else:
                line.cite(asked)
        return [_sentence(self.answer(askers, address, line)) for askers, address in by_topic.values()]

    def answer(self, askers: Sequence[Fact], address: Address, line: Line) -> str:
        """The answer to the question of ``askers`` (one point, ``address.topic``)."""
        grounds = self.grounds
        asker = "と".join(self.name(a.seat) for a in askers)
        asked = askers[0]
        for one in askers:
            line.cite(one)
        if address.topic == "vote":
            own = grounds.vote_of(grounds.obs.seat)
            if own is not None and own.text.strip():  # a vote without a reason has none to give
                line.cite(own)
                reason = own.text.removesuffix("から")  # whole: a cut reason reads as a broken clause
                return self.pick("answer_vote", asked.entry).format(
                    asker=asker, target=self.name(own.other), reason=reason
                )
        if address.topic == "claim" and any(f.seat == grounds.obs.seat for f in grounds.claims):
            line.cite(next(f for f in grounds.claims if f.seat == grounds.obs.seat))
            return self.pick("answer_own_claim", asked.entry).format(asker=asker)
        if address.topic == "claim":
            claimants = [
                f for f in grounds.claims if f.seat != grounds.obs.seat and grounds.obs.alive[f.seat]
            ]
            if claimants:
                best = max(
                    claimants,
                    key=lambda f: (self.trusts.get(f.seat, 0.5) - self.scores[f.seat] / 100, -f.seat),
                )
                line.cite(best)
                return self.pick("answer_claim", asked.entry).format(asker=asker, target=self.name(best.seat))
        ranked = self.targets()
        if ranked:
            top = ranked[0]
            for fact in self.facts_against(top)[:1]:
                line.cite(fact)
            kind = "answer_plan" if address.topic == "vote" else "answer_opinion"
            return self.pick(kind, asked.entry).format(asker=asker, target=self.name(top))
        return self.pick("answer_unsure", asked.entry).format(asker=asker)

    # ------------------------------------------------------------ whole lines

    def speech(self) -> Line:
        """A free-talk line (see the module docstring)."""
        grounds, manner = self.grounds, self.book.manner
        obs = grounds.obs
        line = Line("")
        self._frames_used = set()
        parts: list[str] = []
        parts.extend(self.answers(line))
        blacks = [f for f in grounds.results if f.other == obs.seat and f.colour is Colour.BLACK]
        if blacks and blacks[-1].entry is not None and blacks[-1].entry > grounds.last_own:
            line.cite(blacks[-1])
            parts.append(
                _sentence(self.pick("defend", blacks[-1].entry).format(seat=self.name(blacks[-1].seat)))
            )
        living_partners = [p for p in self.partners if obs.alive[p]]
        for partner in living_partners:
            against = [f for f in grounds.against(partner) if f.kind in ("result", "counter_claim")]
            if against and grounds.pressed_since_own(partner, against[0]):
                fact = against[0]
                line.cite(fact)
                public_doubt = self.scores[partner] > 8
                kind = "cut" if public_doubt and self.attempt % 2 == 1 else "cover"
                parts.append(self.framed(self.clause(fact), "wolf"))
                parts.append(_sentence(self.pick(kind, partner).format(target=self.name(partner))))
                break
        target = self.main_target()
        if obs.day >= 2 and not parts and self.turn % 3 == 0:
            for fact in grounds.news()[:1]:
                line.cite(fact)
                parts.append(self.framed(self.clause(fact), "news"))
        if target is not None:
            facts = self.facts_against(target)
            count = manner.facts
            confidence = self.confidence(target)
            if manner.grows:
                count += (confidence >= 2.5) + (confidence >= 8)
            if obs.day == 1 and not facts and not grounds.claims:
                parts.insert(0, self.pick("opening"))
            elif not parts and self.chance(33, "lead"):
                parts.append(self.pick("lead"))
            said: list[Fact] = []
            for fact in facts:
                if len(said) >= count:
                    break
                if fact.cite in line.cites:
                    continue  # said already in this line (set against another fact)
                sentence, used = self.fact_sentence(fact, target)
                if sentence in parts:
                    continue
                parts.append(sentence)
                said.append(fact)
                for one in used:
                    line.cite(one)
            if not said and grounds.claims:
                claims = grounds.claims[-1:]
                for fact in claims:
                    line.cite(fact)
                    counter = [c for c in grounds.claims if c.role == fact.role and c.seat != fact.seat]
                    if counter:
                        fact = Fact(
                            "counter_claim", fact.day, fact.seat, fact.entry, counter[0].seat, fact.role
                        )
                    parts.append(self.framed(self.clause(fact)))
            parts.append(_sentence(self.conclusion(target)))
            if manner.rates_white:
                ranked = self.targets()
                trusted = ranked[-1] if len(ranked) > 1 else None
                if trusted is not None and trusted != target:
                    for fact in grounds.for_seat(trusted)[:1]:
                        line.cite(fact)
                        parts.append(self.framed(self.clause(fact), "white"))
                    parts.append(_sentence(self.pick("trust", trusted).format(target=self.name(trusted))))
            asks = manner.asks + (25 if manner.grows and confidence >= 8 else 0)
            if self.chance(asks, "ask") and obs.alive[target]:
                parts.append(_sentence(self.question(target, said[0] if said else None)))
        elif not parts:
            parts.append(self.pick("opening"))
        if self.chance(25, "close"):
            parts.append(self.pick("close"))
        line.text = _fit("".join(parts), MAX_LINE_CHARS)
        return line

    def vote_reason(self, target: int, focus: bool) -> Line:
        """A vote reason for ``target`` from the strongest fact against it whose wording fits
        the reason's length (else a plain reason naming the seat)."""
        line = Line("")
        self._frames_used = set()
        lead = "票をまとめたいし、" if focus else ""
        for fact in self.facts_against(target)[:3]:
            kind = "victim_vote" if fact.kind == "vote" and fact.seat != target else None
            clause = self.clause(fact, kind)
            text = lead + self.pick("reason_frames", target, fact.entry).format(fact=clause)
            if len(text) <= MAX_REASON_CHARS:
                line.cite(fact)
                line.text = text.rstrip("。")
                return line
        line.text = lead + self.pick("reason_plain", target).format(target=self.name(target))
        return line

    def plain(self, kind: str, **values: str) -> Line:
        """A short set line of ``kind`` (a claim, a result, a decline, a request) with the
        answers to any questions put to this seat first."""
        line = Line("")
        parts = self.answers(line)
        parts.append(self.pick(kind, *values.values()).format(**values))
        if self.attempt:
            parts.insert(0, self.pick("lead", "plain"))
        line.text = _fit("".join(parts), MAX_LINE_CHARS)
        return line


#: A clause whose {other} comes at {seat} (「{seat}の占い師COに{other}がぶつかってきている」):
#: not said when {other} is the speaker.
_COMING_AT = re.compile(r"\{other\}が[^{}]*てき")


def _clipped(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, marked with ``…`` where cut (for a quotation)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fit(text: str, limit: int) -> str:
    """``text`` cut at its last sentence end within ``limit`` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [cut.rfind(mark) for mark in "。！？"]
    end = max(ends)
    return cut[: end + 1] if end > 0 else cut


def unsaid(
    compose: Composer, make: Callable[[], Line], taken: set[str], tries: int = 8, limit: int = MAX_LINE_CHARS
) -> Line:
    """The first of ``tries`` compositions by ``make`` (a method of ``compose``, each try with
    the next ``attempt``) whose text is not in ``taken``."""
    line = Line("")
    for attempt in range(tries):
        compose.attempt = attempt
        line = make()
        if line.text not in taken:
            return line
    # every variant was said already: the day and turn make this one new
    mark = f"（{compose.grounds.obs.day}日目・{compose.turn}）"
    line.text = _clipped(line.text, limit - len(mark)) + mark
    return line


__all__ = [
    "Composer",
    "FactClauses",
    "Line",
    "Manner",
    "PhraseBook",
    "PhraseError",
    "default_phrases_dir",
    "load_book",
    "load_clauses",
    "read_phrase_file",
    "stable_pick",
    "unsaid",
]
