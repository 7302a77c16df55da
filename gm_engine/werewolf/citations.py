"""The public facts a spoken line cites, and the check that the speaker could see them.

An offline persona's speech or vote reason is composed from public facts (a claim, a stated
result, a vote, an earlier speech, an execution, an attack, a seat's silence, a question put
to the speaker). Each line carries the facts it cites as :class:`CitedFact` records, naming
the public log entry they come from, so a check can confirm every one of them:
:func:`citation_problems` reads them against the speaker's :class:`Observation` at the moment
it spoke and says what it could not find. Only public entries are ever cited: a 人狼's
partner, an attack target or an unstated result has no entry a citation could name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.werewolf.addressing import addresses
from gm_engine.werewolf.log import (
    ClaimMade,
    ClaimRequested,
    Declined,
    DiscussionStarted,
    Executed,
    MorningReport,
    PublicEntry,
    ResultStated,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.views import Observation

CiteKind = Literal[
    "claim",
    "counter_claim",
    "result",
    "vote",
    "speech",
    "executed",
    "attack",
    "peaceful_morning",
    "silence",
    "request",
    "address",
]

#: The kinds that name a public log entry (every kind but a silence, which is an absence).
ENTRY_KINDS: frozenset[str] = frozenset(
    {
        "claim",
        "counter_claim",
        "result",
        "vote",
        "speech",
        "executed",
        "attack",
        "peaceful_morning",
        "request",
        "address",
    }
)


class CitedFact(BaseModel):
    """One public fact a line cites.

    ``entry`` is the index of the fact's entry in the public log (None for a silence);
    ``seat`` is the seat the fact is about (the claimant, the voter, the speaker quoted, the
    seat executed or attacked, the silent seat; 0 for a morning without a victim); ``day``
    is the day of the entry (for a silence, the day the seat kept quiet).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: CiteKind
    day: int
    seat: int
    entry: int | None = None


def _spoke(entry: PublicEntry, seat: int, day: int) -> bool:
    if isinstance(entry, Speech):
        return entry.speaker == seat and entry.day == day and bool(entry.text)
    if isinstance(entry, ClaimMade | ResultStated | ClaimRequested | Declined):
        return entry.speaker == seat and entry.day == day
    return False


def _entry_problem(fact: CitedFact, entry: PublicEntry, obs: Observation) -> str | None:
    """Why ``entry`` (at ``fact.entry``) does not hold the fact, or None when it does."""
    kind, seat, log = fact.kind, fact.seat, obs.public_log
    if getattr(entry, "day", None) != fact.day:
        return "the entry is of another day"
    if kind == "claim":
        ok = isinstance(entry, ClaimMade) and entry.speaker == seat
    elif kind == "counter_claim":
        ok = isinstance(entry, ClaimMade) and entry.speaker == seat
        if ok and isinstance(entry, ClaimMade):
            role = entry.role
            ok = any(
                isinstance(other, ClaimMade) and other.role == role and other.speaker != seat for other in log
            )
    elif kind == "result":
        ok = (isinstance(entry, ClaimMade) and entry.speaker == seat and entry.target is not None) or (
            isinstance(entry, ResultStated) and entry.speaker == seat
        )
    elif kind == "vote":
        ok = isinstance(entry, VoteTally) and any(v.voter == seat for v in entry.votes)
    elif kind == "speech":
        ok = isinstance(entry, Speech) and entry.speaker == seat and bool(entry.text)
    elif kind == "executed":
        ok = isinstance(entry, Executed) and entry.seat == seat
    elif kind == "attack":
        ok = isinstance(entry, MorningReport) and entry.victim == seat
    elif kind == "peaceful_morning":
        ok = isinstance(entry, MorningReport) and entry.victim is None and seat == 0
    elif kind == "request":
        ok = isinstance(entry, ClaimRequested) and entry.speaker == seat
    else:  # an address: a speech that put a question to the citing seat
        ok = (
            isinstance(entry, Speech)
            and entry.speaker == seat
            and any(a.seat == obs.seat for a in addresses(entry.text, obs.names, entry.speaker))
        )
    return None if ok else f"entry {fact.entry} is not a {kind} of P{seat}"


def _silence_problem(fact: CitedFact, obs: Observation) -> str | None:
    day, seat = fact.day, fact.seat
    if not 0 < day <= obs.day:
        return f"no day {day} yet"
    log = obs.public_log
    started = [i for i, e in enumerate(log) if isinstance(e, DiscussionStarted) and e.day == day]
    if not started:
        return f"no discussion on day {day} to keep quiet in"
    for entry in log[: started[0]]:
        gone = (isinstance(entry, Executed) and entry.seat == seat) or (
            isinstance(entry, MorningReport) and entry.victim == seat
        )
        if gone:
            return f"P{seat} had left the table before day {day}"
    if day == obs.day:
        return "a silence is cited only for a day whose discussion is over"
    if any(_spoke(e, seat, day) for e in log):
        return f"P{seat} spoke on day {day}"
    return None


def citation_problems(obs: Observation, cites: Iterable[CitedFact]) -> list[str]:
    """What in ``cites`` the seat of ``obs`` could not see: one line per unconfirmed fact.

    Every cited entry must be in the seat's public log as it stood (``obs``) and say what the
    citation says; a cited silence must be a finished day on which that living seat said
    nothing. An empty list means every fact is confirmed.
    """
    log = obs.public_log
    problems: list[str] = []
    for fact in cites:
        if fact.kind == "silence":
            problem = _silence_problem(fact, obs) if fact.entry is None else "a silence names no entry"
        elif fact.entry is None or not 0 <= fact.entry < len(log):
            problem = f"entry {fact.entry} is not in P{obs.seat}'s public log ({len(log)} entries)"
        else:
            problem = _entry_problem(fact, log[fact.entry], obs)
        if problem is not None:
            problems.append(f"{fact.kind} P{fact.seat} day {fact.day}: {problem}")
    return problems
