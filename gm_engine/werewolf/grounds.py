"""The public grounds a seat can argue from: the facts of its observation, indexed by seat.

:class:`Grounds` reads one :class:`~gm_engine.werewolf.views.Observation`'s public log (never
its private log) into :class:`Fact` records, each with the :class:`CitedFact` that names its
entry, and answers the questions a speaker asks of the table: what is there against this
seat (:meth:`Grounds.against`), what speaks for it (:meth:`Grounds.for_seat`), what happened
this morning (:meth:`Grounds.news`), and who put a question to me since I last spoke
(:meth:`Grounds.questions`). The facts come out ordered by relevance, the strongest first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gm_engine.werewolf.addressing import Address, addresses
from gm_engine.werewolf.citations import CitedFact, CiteKind
from gm_engine.werewolf.log import (
    ClaimMade,
    ClaimRequested,
    Declined,
    DiscussionStarted,
    Executed,
    MorningReport,
    ResultStated,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.records import Colour, Role
from gm_engine.werewolf.views import Observation

#: The longest quotation of an earlier speech, in characters.
QUOTE_CHARS = 22


@dataclass(frozen=True, slots=True)
class Fact:
    """One public fact, with what its wording needs.

    ``seat`` is whom the fact is about (the claimant, the voter, the speaker, the seat
    executed or attacked); ``other`` is its object (a result's or a vote's target, a rival
    claimant, a second speech's day); ``text`` a vote's reason or a quotation.
    """

    kind: CiteKind
    day: int
    seat: int
    entry: int | None
    other: int = 0
    role: Role | None = None
    colour: Colour | None = None
    text: str = ""

    @property
    def cite(self) -> CitedFact:
        """The citation of this fact."""
        return CitedFact(kind=self.kind, day=self.day, seat=self.seat, entry=self.entry)


_SENTENCE_END = re.compile(r"(?<=[。！？!?])")
_JUDGEMENT = re.compile(
    r"気にな|怪し|疑|黒|白|信じ|投票|入れ|本物|偽|引っかか|見てる|見てい|本命|推し|筋|矛盾"
)
_ANSWERING = re.compile(r"質問|答え|聞かれ")


def quotation(text: str) -> str:
    """The telling sentence of ``text``: its last one that judges a seat in its own words (not
    one that quotes someone else or only answers a question), at most :data:`QUOTE_CHARS`
    characters (then ``…``), without its end mark; empty when no sentence judges anything."""
    sentences = [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    own = [s for s in sentences if "『" not in s and "』" not in s] or [
        s.replace("『", "").replace("』", "") for s in sentences
    ]
    if not own:
        return ""
    plain = [s for s in own if not _ANSWERING.search(s) and len(s) >= 8]
    telling = [s for s in plain if _JUDGEMENT.search(s)]
    if not telling:
        return ""  # a greeting or an answer: nothing to hold against anyone
    first = telling[-1].rstrip("。！？!?").strip("「」 ").lstrip("…")
    return first if len(first) <= QUOTE_CHARS else first[: QUOTE_CHARS - 1] + "…"


@dataclass
class Grounds:
    """The public facts of one observation (see the module docstring)."""

    obs: Observation
    claims: list[Fact] = field(default_factory=list)
    results: list[Fact] = field(default_factory=list)
    votes: dict[int, list[Fact]] = field(default_factory=dict)
    speeches: dict[int, list[Fact]] = field(default_factory=dict)
    executed: list[Fact] = field(default_factory=list)
    mornings: list[Fact] = field(default_factory=list)
    requests: list[Fact] = field(default_factory=list)
    spoke_on: set[tuple[int, int]] = field(default_factory=set)
    discussed: list[int] = field(default_factory=list)
    last_own: int = -1
    """Index of the seat's own last words in the log (-1: none yet)."""
    spoken_texts: set[str] = field(default_factory=set)
    reasons: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, obs: Observation) -> Grounds:
        """Index the public log of ``obs``."""
        grounds = cls(obs)
        me = obs.seat
        for index, entry in enumerate(obs.public_log):
            if isinstance(entry, Speech):
                if entry.text:
                    grounds.spoken_texts.add(entry.text)
                    grounds.spoke_on.add((entry.speaker, entry.day))
                    fact = Fact("speech", entry.day, entry.speaker, index, text=quotation(entry.text))
                    grounds.speeches.setdefault(entry.speaker, []).append(fact)
                if entry.speaker == me:
                    grounds.last_own = index
            elif isinstance(entry, ClaimMade):
                grounds.spoken_texts.add(entry.text)
                grounds.spoke_on.add((entry.speaker, entry.day))
                grounds.claims.append(Fact("claim", entry.day, entry.speaker, index, role=entry.role))
                if entry.target is not None and entry.colour is not None:
                    grounds.results.append(
                        Fact(
                            "result", entry.day, entry.speaker, index, entry.target, entry.role, entry.colour
                        )
                    )
                if entry.speaker == me:
                    grounds.last_own = index
            elif isinstance(entry, ResultStated):
                grounds.spoken_texts.add(entry.text)
                grounds.spoke_on.add((entry.speaker, entry.day))
                grounds.results.append(
                    Fact("result", entry.day, entry.speaker, index, entry.target, entry.role, entry.colour)
                )
                if entry.speaker == me:
                    grounds.last_own = index
            elif isinstance(entry, ClaimRequested | Declined):
                grounds.spoken_texts.add(entry.text)
                grounds.spoke_on.add((entry.speaker, entry.day))
                if isinstance(entry, ClaimRequested):
                    grounds.requests.append(Fact("request", entry.day, entry.speaker, index, role=entry.role))
                if entry.speaker == me:
                    grounds.last_own = index
            elif isinstance(entry, VoteTally):
                day_votes = grounds.votes.setdefault(entry.day, [])
                for vote in entry.votes:
                    grounds.reasons.add(vote.reason)
                    day_votes[:] = [v for v in day_votes if v.seat != vote.voter]  # the runoff's vote counts
                    day_votes.append(
                        Fact("vote", entry.day, vote.voter, index, vote.target, text=vote.reason)
                    )
            elif isinstance(entry, Executed):
                grounds.executed.append(Fact("executed", entry.day, entry.seat, index))
            elif isinstance(entry, MorningReport):
                if entry.victim is None:
                    grounds.mornings.append(Fact("peaceful_morning", entry.day, 0, index))
                else:
                    grounds.mornings.append(Fact("attack", entry.day, entry.victim, index))
            elif isinstance(entry, DiscussionStarted):
                grounds.discussed.append(entry.day)
        return grounds

    # ------------------------------------------------------------ questions of the table

    def living_others(self) -> list[int]:
        """The living seats other than the speaker."""
        return [s for s in self.obs.living() if s != self.obs.seat]

    def claimants(self, role: Role) -> list[int]:
        """The seats that claimed ``role``, in the order they came out."""
        return [f.seat for f in self.claims if f.role == role]

    def last_votes(self) -> list[Fact]:
        """The votes of the latest day with a tally before today (the runoff's where there was one)."""
        days = [d for d in self.votes if d < self.obs.day]
        return self.votes[max(days)] if days else []

    def vote_of(self, seat: int) -> Fact | None:
        """``seat``'s vote on the latest day with a tally, if it voted."""
        for fact in self.last_votes():
            if fact.seat == seat:
                return fact
        return None

    def silence(self, seat: int) -> Fact | None:
        """``seat`` said nothing on the latest finished day of discussion (it was alive then)."""
        days = [d for d in self.discussed if d < self.obs.day]
        if not days or not self.obs.alive[seat]:
            return None
        day = max(days)
        if (seat, day) in self.spoke_on:
            return None
        return Fact("silence", day, seat, None)

    def _counter(self, seat: int) -> Fact | None:
        for fact in self.claims:
            if fact.seat == seat and fact.role is not None:
                rivals = [s for s in self.claimants(fact.role) if s != seat]
                if rivals:
                    return Fact("counter_claim", fact.day, seat, fact.entry, rivals[0], fact.role)
        return None

    def against(self, seat: int) -> list[Fact]:
        """The public facts against ``seat``, strongest first."""
        facts: list[Fact] = [
            f
            for f in reversed(self.results)
            if f.other == seat and f.colour is Colour.BLACK and f.seat != seat
        ]
        counter = self._counter(seat)
        if counter is not None:
            facts.append(counter)
        for morning in reversed(self.mornings):
            if morning.kind == "attack":
                victim_vote = self.vote_of(morning.seat)
                if victim_vote is not None and victim_vote.other == seat and morning.day == self.obs.day:
                    facts.append(victim_vote)  # the wolves removed one who voted for this seat
                break
        vote = self.vote_of(seat)
        if vote is not None:
            facts.append(vote)
        quoted: set[str] = set()
        for said in reversed(self.speeches.get(seat, [])):
            if said.text and said.text not in quoted and len(quoted) < 2:
                quoted.add(said.text)
                facts.append(said)
        quiet = self.silence(seat)
        if quiet is not None:
            facts.append(quiet)
        return facts

    def pressed_since_own(self, seat: int, fact: Fact) -> bool:
        """Whether ``seat`` came under pressure since the speaker's own last words: ``fact``
        against it is new, or another seat's speech named it since."""
        last = self.last_own
        if fact.entry is not None and fact.entry > last:
            return True
        name = self.obs.names[seat]
        log = self.obs.public_log
        return any(
            isinstance(e, Speech) and e.speaker not in (self.obs.seat, seat) and name in e.text
            for e in log[last + 1 :]
        )

    def for_seat(self, seat: int) -> list[Fact]:
        """The public facts that speak for ``seat`` (白 results on it), latest first."""
        return [f for f in reversed(self.results) if f.other == seat and f.colour is Colour.WHITE]

    def voters_for(self, seat: int) -> list[Fact]:
        """The latest day's votes for ``seat``."""
        return [f for f in self.last_votes() if f.other == seat]

    def news(self) -> list[Fact]:
        """This morning and yesterday: the attack (or a quiet night), the execution."""
        facts = [f for f in self.mornings if f.day == self.obs.day]
        facts.extend(f for f in self.executed if f.day == self.obs.day - 1)
        return facts

    def questions(self) -> list[tuple[Fact, Address]]:
        """Questions put to the speaker by others since its own last words (the latest four, oldest first)."""
        me, names = self.obs.seat, self.obs.names
        found: list[tuple[Fact, Address]] = []
        log = self.obs.public_log
        for index in range(self.last_own + 1, len(log)):
            entry = log[index]
            if isinstance(entry, Speech) and entry.text and entry.speaker != me:
                for address in addresses(entry.text, names, entry.speaker):
                    if address.seat == me:
                        found.append((Fact("address", entry.day, entry.speaker, index), address))
        return found[-4:]
