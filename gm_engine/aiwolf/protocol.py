"""The AIWolf protocol's words and packets, as our 9-seat table speaks them (docs/aiwolf.md).

The server sends JSON packets ``{request, info?, setting?, talk_history?, whisper_history?}``;
the agent answers a plain string. This module builds the packets from one seat's
:class:`~gm_engine.werewolf.views.Observation` (its own knowledge, nothing more) and
reads the answers back; it knows nothing of sockets.

Errors: :class:`AnswerError` (a ValueError), an answer that names nobody at the table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from gm_engine.werewolf.log import (
    ActionTaken,
    AttackResolved,
    ClaimMade,
    ClaimRequested,
    Declined,
    DivineResult,
    Executed,
    MediumResult,
    MorningReport,
    ResultStated,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.records import Colour, Role
from gm_engine.werewolf.views import Observation

#: The requests of the protocol that this table sends.
Request = Literal[
    "NAME",
    "INITIALIZE",
    "DAILY_INITIALIZE",
    "TALK",
    "WHISPER",
    "DAILY_FINISH",
    "VOTE",
    "DIVINE",
    "GUARD",
    "ATTACK",
    "FINISH",
]

#: The requests an agent answers (the others are notices).
ANSWERED: frozenset[str] = frozenset({"NAME", "TALK", "WHISPER", "VOTE", "DIVINE", "GUARD", "ATTACK"})

#: Our roles by the protocol's names.
ROLE_NAMES: dict[Role, str] = {
    Role.WEREWOLF: "WEREWOLF",
    Role.VILLAGER: "VILLAGER",
    Role.SEER: "SEER",
    Role.BODYGUARD: "BODYGUARD",
    Role.MEDIUM: "MEDIUM",
    Role.MADMAN: "POSSESSED",
}

#: The 9-player composition as the protocol's ``role_num_map``.
ROLE_COUNTS: dict[str, int] = {
    "WEREWOLF": 2,
    "POSSESSED": 1,
    "SEER": 1,
    "BODYGUARD": 1,
    "VILLAGER": 3,
    "MEDIUM": 1,
}

#: What an agent says to end its talk for the day, and to let a turn go by.
OVER = "Over"
SKIP = "Skip"

#: The server's length rules (its 9- and 13-player configurations): a line is cut to
#: ``BASE_LENGTH`` characters, and the words after its first ``@Name`` mention to
#: ``MENTION_LENGTH`` more; nothing counts against a daily allowance.
BASE_LENGTH = 50
MENTION_LENGTH = 50


class AnswerError(ValueError):
    """An agent's answer to VOTE / DIVINE / GUARD / ATTACK names no seat it may choose."""


def species(colour: Colour) -> str:
    """白 -> HUMAN, 黒 -> WEREWOLF."""
    return "HUMAN" if colour is Colour.WHITE else "WEREWOLF"


def game_id(seed: int) -> str:
    """A ULID-shaped identifier (26 characters of Crockford's base 32) fixed by the seed:
    the same game has the same id, and the id tells nothing of the deal."""
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    number = int.from_bytes(hashlib.sha256(f"aiwolf-game/{seed}".encode()).digest()[:17], "big")
    number >>= 136 - 130  # 26 digits of 5 bits
    digits = []
    for _ in range(26):
        digits.append(alphabet[number & 31])
        number >>= 5
    return "".join(reversed(digits))


def one_line(text: str) -> str:
    """``text`` as one talk line: white space folded, no half-width comma (the server's log
    is comma-separated, so its agents are told never to write one; ours become 、)."""
    return " ".join(text.split()).replace(",", "、")


def cut(text: str, length: int) -> str:
    """``text`` cut after its ``length``-th character that is not white space (the server's
    ``TrimLength`` with ``count_spaces`` false, as :func:`setting` says: white space does
    not count); unchanged when it has no more."""
    count = 0
    for index, char in enumerate(text):
        if not char.isspace():
            count += 1
            if count == length:
                return text[: index + 1]
    return text


def truncated(text: str, names: Sequence[str], own: str) -> str:
    """``text`` cut as the server cuts a talk: at most :data:`BASE_LENGTH` characters, or
    with an ``@Name`` mention of another seat that many before it and
    :data:`MENTION_LENGTH` after it, the mention written `` @Name `` (white space does not
    count, see :func:`cut`); "" becomes Over."""
    mentions = [(text.find("@" + n), "@" + n) for n in names if n != own and "@" + n in text]
    if mentions:
        at, mention = min(mentions)
        before = cut(text[:at], BASE_LENGTH)
        after = cut(text[at + len(mention) :], MENTION_LENGTH)
        text = before + " " + mention + " " + after
    else:
        text = cut(text, BASE_LENGTH)
    return text if text.strip() else OVER


def answer_text(answer: str) -> str:
    """An agent's answer as the server reads it: every newline removed (the client library
    adds one), white space around it dropped."""
    return answer.replace("\n", "").strip()


def seat_named(answer: str, names: Mapping[int, str], choices: Sequence[int]) -> int:
    """The seat among ``choices`` whose exact name ``answer`` is (white space around it and a
    trailing newline, which the client library adds, are ignored).

    Raises:
        AnswerError: no such seat (the message lists the names that may be given).
    """
    said = answer_text(answer)
    for seat in choices:
        if names[seat] == said:
            return seat
    allowed = "、".join(names[s] for s in choices)
    raise AnswerError(f"「{said[:40]}」は選べる名前ではありません（選べるのは {allowed}）")


@dataclass(frozen=True)
class TalkRules:
    """How much an agent may talk: ``per_agent`` talk requests a day at most (our
    discussion rounds), whether an answer to a CO要求 is the answering seat's next turn
    (the werewolf option ``answer_takes_turn``), the timeouts in milliseconds."""

    per_agent: int
    answer_takes_turn: bool = False
    action_timeout_ms: int = 60_000
    response_timeout_ms: int = 120_000


def setting(rules: TalkRules) -> dict[str, Any]:
    """The ``setting`` of INITIALIZE and DAILY_INITIALIZE."""

    def channel(per_agent: int) -> dict[str, Any]:
        return {
            "max_count": {"per_agent": per_agent, "per_day": per_agent * 9},
            "max_length": {
                "count_in_word": False,
                "count_spaces": False,
                "per_talk": None,
                "mention_length": MENTION_LENGTH,
                "per_agent": None,
                "base_length": BASE_LENGTH,
            },
            "max_skip": per_agent,
        }

    return {
        "agent_count": 9,
        "max_day": None,
        "role_num_map": dict(ROLE_COUNTS),
        "vote_visibility": True,
        "talk": channel(rules.per_agent),
        "whisper": channel(0),
        "vote": {"max_count": 1, "allow_self_vote": False},
        "attack_vote": {"max_count": 0, "allow_self_vote": False, "allow_no_target": False},
        "timeout": {"action": rules.action_timeout_ms, "response": rules.response_timeout_ms},
    }


_TALKING = (Speech, ClaimMade, ResultStated, ClaimRequested, Declined)


def talk_text(
    entry: Speech | ClaimMade | ResultStated | ClaimRequested | Declined, names: Sequence[str]
) -> str:
    """One public discussion entry as the talk line an agent reads: the words said, with a
    claim, a stated result or a CO要求 written out in front (an agent cannot see our
    structured entries, only words)."""
    said = one_line(entry.text)
    if isinstance(entry, Speech):
        return said or OVER
    if isinstance(entry, ClaimMade):
        head = f"{entry.role.label}CO"
        if entry.target is not None and entry.colour is not None:
            head += f" {names[entry.target]}は{entry.colour.label}（{species(entry.colour)}）"
    elif isinstance(entry, ResultStated):
        head = (
            f"{entry.role.label}結果 {names[entry.target]}は{entry.colour.label}（{species(entry.colour)}）"
        )
    elif isinstance(entry, ClaimRequested):
        head = f"CO要求: {entry.role.label}は名乗り出てください"
    else:
        head = "COしません"
    return f"【{head}】{said}" if said else f"【{head}】"


def attack_votes(obs: Observation) -> list[dict[str, Any]] | None:
    """The last night's attack votes as ``attack_vote_list``, to a 人狼 only (None to any
    other seat, and before the first night): its own choice, and the choice that decided
    the attack when its partner made it (what its seat knows; the rules tell a 人狼 no more
    of its partner's proposal)."""
    if obs.role is not Role.WEREWOLF:
        return None
    night = obs.day - 1
    votes: dict[int, int] = {}
    for fact in obs.private_log:
        if isinstance(fact, ActionTaken) and fact.ability == "attack" and fact.day == night:
            votes[obs.seat] = fact.target
        elif isinstance(fact, AttackResolved) and fact.day == obs.day:
            votes.setdefault(fact.decided_by, fact.target)
    if not votes:
        return None
    names = obs.names
    return [{"day": night, "agent": names[s], "target": names[t]} for s, t in sorted(votes.items())]


def _caller(obs: Observation) -> int | None:
    """The seat whose CO要求 is being answered (the latest one the seat has seen)."""
    for entry in reversed(obs.public_log):
        if isinstance(entry, ClaimRequested):
            return entry.speaker
    return None


@dataclass
class SeatChannel:
    """What one seat has been sent so far: the talk it has seen (as differences since the
    last packet), the day it was told about, whether it said Over today."""

    seat: int
    rules: TalkRules
    seed: int
    profile: str | None = None
    sent_log: int = 0
    initialized: bool = False
    day_started: int = -1
    day_finished: int = -1
    over_day: int = -1
    turns_used: int = 0
    turn_day: int = -1
    skips_in_a_row: int = 0
    skip_day: int = -1

    def afresh(self) -> SeatChannel:
        """This seat's channel as for an agent told nothing yet (a new connection): the talk
        counts of the day kept, everything sent to be sent again."""
        return replace(self, sent_log=0, initialized=False, day_started=-1, day_finished=-1)

    def info(self, obs: Observation, *, talking: bool = False, profile: bool = False) -> dict[str, Any]:
        """The ``info`` of a packet to this seat, from its own observation only."""
        names = obs.names
        role = obs.role
        role_map: dict[str, str] = {}
        if role is not None:
            role_map[names[obs.seat]] = ROLE_NAMES[role]
            for partner in obs.partners:
                role_map[names[partner]] = "WEREWOLF"
        divine: dict[str, Any] | None = None
        medium: dict[str, Any] | None = None
        for fact in obs.private_log:
            if isinstance(fact, DivineResult):
                divine = {
                    "day": 0 if fact.pre else fact.day - 1,
                    "agent": names[obs.seat],
                    "target": names[fact.target],
                    "result": species(fact.colour),
                }
            elif isinstance(fact, MediumResult):
                medium = {
                    "day": fact.executed_day,
                    "agent": names[obs.seat],
                    "target": names[fact.target],
                    "result": species(fact.colour),
                }
        executed: str | None = None
        attacked: str | None = None
        votes: list[dict[str, Any]] | None = None
        for entry in obs.public_log:
            if isinstance(entry, Executed) and entry.day == obs.day - 1:
                executed = names[entry.seat]
            elif isinstance(entry, MorningReport) and entry.day == obs.day and entry.victim is not None:
                attacked = names[entry.victim]
            elif isinstance(entry, VoteTally):
                votes = [
                    {"day": entry.day, "agent": names[v.voter], "target": names[v.target]}
                    for v in entry.votes
                ]
        info: dict[str, Any] = {
            "game_id": game_id(self.seed),
            "day": obs.day,
            "agent": names[obs.seat],
            "profile": self.profile if profile else None,
            "medium_result": medium,
            "divine_result": divine,
            "executed_agent": executed,
            "attacked_agent": attacked,
            "vote_list": votes,
            "attack_vote_list": attack_votes(obs),
            "status_map": {names[s]: "ALIVE" if obs.alive[s] else "DEAD" for s in range(1, 10)},
            "role_map": role_map,
        }
        if talking:
            used = self.turns_used if self.turn_day == obs.day else 0
            info["remain_count"] = max(self.rules.per_agent - used, 0)
            info["remain_length"] = None
            skipped = self.skips_in_a_row if self.skip_day == obs.day else 0
            info["remain_skip"] = max(self.rules.per_agent - skipped, 0)
        return info

    def talk_history(self, obs: Observation) -> list[dict[str, Any]]:
        """The talk of the days up to ``obs.day`` since the last packet to this seat (and
        marks it sent)."""
        names = obs.names
        history: list[dict[str, Any]] = []
        counters: dict[int, int] = {}
        turns: dict[tuple[int, int], int] = {}
        end = len(obs.public_log)
        for position, entry in enumerate(obs.public_log):
            if entry.day > obs.day:  # a later day's (a late notice of an earlier day)
                end = position
                break
            if not isinstance(entry, _TALKING):
                continue
            idx = counters.get(entry.day, 0)
            counters[entry.day] = idx + 1
            turn = turns.get((entry.day, entry.speaker), 0)
            turns[(entry.day, entry.speaker)] = turn + 1
            if position < self.sent_log:
                continue
            text = talk_text(entry, names)
            history.append(
                {
                    "idx": idx,
                    "day": entry.day,
                    "turn": turn,
                    "agent": names[entry.speaker],
                    "text": text,
                    "skip": False,
                    "over": text == OVER,
                }
            )
        self.sent_log = max(self.sent_log, end)
        return history

    def day_starts(self, obs: Observation) -> list[dict[str, Any]]:
        """The notices of the start of ``obs.day`` not sent yet, marked sent: on the first,
        INITIALIZE and day 0's DAILY_INITIALIZE (the server starts with day 0's day
        section, greetings included), then DAILY_INITIALIZE of ``obs.day`` from day 1 on."""
        due: list[dict[str, Any]] = []
        if not self.initialized:
            self.initialized = True
            zero = obs._replace(day=0)
            due.append(
                {
                    "request": "INITIALIZE",
                    "info": self.info(zero, profile=True),
                    "setting": setting(self.rules),
                }
            )
            due.append(
                {"request": "DAILY_INITIALIZE", "info": self.info(zero), "setting": setting(self.rules)}
            )
            self.day_started = 0
        if obs.day > self.day_started:
            self.day_started = obs.day
            due.append(
                {"request": "DAILY_INITIALIZE", "info": self.info(obs), "setting": setting(self.rules)}
            )
        return due

    def day_ends(
        self, obs: Observation, whispers: list[dict[str, Any]] | None = None
    ) -> list[dict[str, Any]]:
        """DAILY_FINISH of ``obs.day`` if not sent yet (marked sent): as the server sends it at
        the start of the night section, before the vote (day 0: before the 事前占い), to
        every agent, the dead included, with the talk it has not been sent; a 人狼 also
        gets ``whispers``, the whispers it has not been sent (an empty list when there are
        none: the server sends a 人狼 its whisper history even with no whisper phase)."""
        if self.day_finished >= obs.day:
            return []
        self.day_finished = obs.day
        packet: dict[str, Any] = {
            "request": "DAILY_FINISH",
            "info": self.info(obs),
            "talk_history": self.talk_history(obs),
        }
        if obs.role is Role.WEREWOLF:
            packet["whisper_history"] = list(whispers or [])
        return [packet]

    def notices(self, obs: Observation, request: Request) -> list[dict[str, Any]]:
        """The notices due before ``request`` for a seat told alone (no
        :class:`~gm_engine.aiwolf.roster.Roster`): the day's start, day 0's end, and the
        day's end before any request but TALK."""
        due = self.day_starts(obs._replace(day=0))
        due += self.day_ends(obs._replace(day=0))
        if obs.day > 0:
            due += self.day_starts(obs)
            if request != "TALK":
                due += self.day_ends(obs)
        return due

    def request(self, obs: Observation, request: Request) -> dict[str, Any]:
        """The packet of an answered request."""
        if request == "TALK":
            return {
                "request": "TALK",
                "info": self.info(obs, talking=True),
                "talk_history": self.talk_history(obs),
            }
        return {"request": request, "info": self.info(obs)}

    def spend(self, obs: Observation, *, answering: bool) -> None:
        """Count the talk request about to be sent, as the server does before it asks (so
        ``remain_count`` is what is left after this one): a discussion turn spends one of
        the day's turns; an answer to a CO要求 (``answering``) spends none, unless answers
        take turns and the seat is not the one who asked (whose call took its turn)."""
        if self.turn_day != obs.day:
            self.turn_day, self.turns_used = obs.day, 0
        if not answering or (self.rules.answer_takes_turn and _caller(obs) != self.seat):
            self.turns_used += 1

    def talked(self, day: int, said: str) -> str:
        """Take note of a talk answer of ``day``; what it counts as, as the server's
        ``conductCommunication`` takes it: a Skip counts against ``remain_skip`` (the day's
        skips, which any other words reset), and one with no skip left is Over; Over ends
        the agent's day."""
        if self.skip_day != day:
            self.skip_day, self.skips_in_a_row = day, 0
        if said == SKIP:
            if self.skips_in_a_row < self.rules.per_agent:
                self.skips_in_a_row += 1
                return SKIP
            said = OVER
        if said == OVER:
            self.over_day = day
            return OVER
        self.skips_in_a_row = 0
        return said

    def finish(self, obs: Observation, roles: Mapping[int, Role]) -> dict[str, Any]:
        """The FINISH packet: the whole role map (the game is over: nothing is secret)."""
        info = self.info(obs)
        info["role_map"] = {obs.names[s]: ROLE_NAMES[r] for s, r in sorted(roles.items())}
        return {"request": "FINISH", "info": info}
