"""A Python port of the AIWolf viewer's archive reader (aiwolfdial/aiwolf-nlp-viewer,
src/lib/utils/archive.ts, ``processArchiveLog``), line by line, for the export tests.

Where the viewer would show an unknown value (a role, status, species or side its tables
lack) as ``undefined``, the port raises :class:`ViewerError`, so that a test sees it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ROLES = {"WEREWOLF", "POSSESSED", "SEER", "BODYGUARD", "VILLAGER", "MEDIUM"}
STATUSES = {"ALIVE", "DEAD"}
SPECIES = {"HUMAN", "WEREWOLF"}
TEAMS = {"VILLAGER", "WEREWOLF"}


class ViewerError(ValueError):
    """A line the viewer would read into an undefined value."""


@dataclass
class TalkEntry:
    talk_idx: str
    turn_idx: str
    agent_idx: str
    text: str
    timestamp: str | None = None


@dataclass
class DayLog:
    agents: dict[str, dict[str, str]] = field(default_factory=dict)
    before_whisper: list[TalkEntry] = field(default_factory=list)
    talks: list[TalkEntry] = field(default_factory=list)
    votes: list[tuple[str, str]] = field(default_factory=list)
    execution: tuple[str, str] | None = None
    divine: tuple[str, str, str] | None = None
    after_whisper: list[TalkEntry] = field(default_factory=list)
    guard: tuple[str, str, str] | None = None
    attack_votes: list[tuple[str, str]] = field(default_factory=list)
    attack: tuple[str, bool] | None = None
    result: tuple[str, str, str] | None = None
    unknown: list[str] = field(default_factory=list)


def _known(value: str, table: set[str], what: str) -> str:
    if value not in table:
        raise ViewerError(f"{what} {value!r} is not one the viewer knows")
    return value


def _looks_like_timestamp(token: str) -> bool:
    return re.fullmatch(r"\d{10,13}", token) is not None


def _talk(data: list[str]) -> TalkEntry | None:
    if len(data) < 4:
        return None
    if len(data) == 4:
        return TalkEntry(data[0], data[1], data[2], data[3])
    if _looks_like_timestamp(data[-1]):
        return TalkEntry(data[0], data[1], data[2], ",".join(data[3:-1]), data[-1])
    return TalkEntry(data[0], data[1], data[2], data[3])


def process_archive_log(text: str) -> dict[str, DayLog]:
    """The viewer's per-day reading of a game log."""
    result: dict[str, DayLog] = {}
    for line in (raw for raw in re.split(r"\r?\n", text) if raw.strip()):
        day, kind, *rest = line.split(",")
        log = result.setdefault(day, DayLog())
        if kind == "status":
            idx, role, status, original, game_name = [*rest, "", "", "", "", ""][:5]
            log.agents[idx] = {
                "role": _known(role, ROLES, "role"),
                "status": _known(status, STATUSES, "status"),
                "originalName": original or "",
                "gameName": game_name or f"Agent[{idx}]",
            }
        elif kind == "talk":
            entry = _talk(rest)
            if entry is not None:
                log.talks.append(entry)
        elif kind == "vote":
            log.votes.append((rest[0], rest[1]))
        elif kind == "execute":
            log.execution = (rest[0], _known(rest[1], ROLES, "role"))
        elif kind == "divine":
            log.divine = (rest[0], rest[1], _known(rest[2], SPECIES, "species"))
        elif kind == "whisper":
            entry = _talk(rest)
            if entry is not None:
                (log.after_whisper if log.talks else log.before_whisper).append(entry)
        elif kind == "guard":
            log.guard = (rest[0], rest[1], rest[2])
        elif kind == "attackVote":
            log.attack_votes.append((rest[0], rest[1]))
        elif kind == "attack":
            log.attack = (rest[0], rest[1] == "true")
        elif kind == "result":
            log.result = (rest[0], rest[1], _known(rest[2], TEAMS, "side"))
        else:  # the viewer has no handler: the line is dropped
            log.unknown.append(line)
    return result
