"""A werewolf transcript as AIWolf's logs: the game log its viewer reads, and the JSON log.

The transcript is replayed (:func:`~gm_engine.transcripts.replay_file`, so a tampered or
diverging file is refused) and the finished game's records are written out: the
comma-separated game log, one line per fact (``day,status,...``, ``talk``, ``vote``,
``execute``, ``divine``, ``guard``, ``attackVote``, ``attack``, ``result``), talk lines
ending in a timestamp in milliseconds; and the JSON log (``game_id``, ``win_side``,
``agents``, one entry per decision: the seat, its request, its answer).

Timestamps: a transcript keeps no clock times (a replay must come out the same), so each
line gets ``start_ms`` plus one second per line; ``start_ms`` is the caller's.

Errors: :class:`ExportError` (a ValueError), a transcript that is not a finished werewolf
game or does not replay.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gm_engine.aiwolf.protocol import ROLE_NAMES, game_id, one_line, species, talk_text
from gm_engine.aiwolf.whisper import whispers_in
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.interrupt import run_interruptibly
from gm_engine.sessions.werewolf.session import WerewolfSession, session_options
from gm_engine.transcripts import read_transcript, replay_file
from gm_engine.werewolf import Game
from gm_engine.werewolf.log import (
    ActionTaken,
    AttackResolved,
    ClaimMade,
    ClaimRequested,
    Declined,
    DivineResult,
    Executed,
    GameEnded,
    ResultStated,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.records import Role, Team


class ExportError(ValueError):
    """The transcript is not a finished werewolf game, or its replay diverges."""


@dataclass(frozen=True)
class AIWolfLogs:
    """One game in AIWolf's two formats."""

    game_log: str
    """The game log, lines joined by ``\\n`` (the server's own files end without one)."""
    json_log: dict[str, Any]


def export_transcript(path: str | Path, *, start_ms: int = 0) -> AIWolfLogs:
    """The AIWolf logs of the finished werewolf game recorded at ``path``.

    Raises:
        ExportError: not a finished werewolf game, or it does not replay.
        OSError: the file cannot be read.
    """
    transcript = read_transcript(path)
    if transcript.header.kind != "werewolf" or transcript.end is None:
        raise ExportError(f"{path}: 終わった人狼ゲームのトランスクリプトではありません")
    kept: list[WerewolfSession] = []

    def runner(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
        session = WerewolfSession(spec, session_options(spec), io)
        kept.append(session)
        return run_interruptibly(session.run())

    report = replay_file(path, runner=runner)
    if not report.ok or not kept or not kept[0].game.is_over:
        raise ExportError(f"{path}: 再生が記録と一致しません: {report.describe()}")
    options = transcript.header.options
    agents = {int(seat): str(name) for seat, name in dict(options.get("seat_agents", {})).items()}
    seed = transcript.end.seed
    game = kept[0].game
    decisions = [
        (str(e.payload.get("actor", "")), e.payload)
        for e in transcript.events
        if (e.type == "tool_result" and e.payload.get("ok")) or e.type == "fallback"
    ]
    whispers = [
        line
        for e in transcript.events
        if e.type == "model_response"
        for line in whispers_in(e.payload.get("content"))
    ]
    return AIWolfLogs(
        game_log="\n".join(game_log_lines(game, agents, start_ms, whispers)),
        json_log=json_log(game, agents, seed, decisions, start_ms),
    )


def _original_name(seat: int, agents: Mapping[int, str]) -> str:
    if seat in agents:
        return agents[seat]
    return "human" if seat == 1 else f"gm_engine-P{seat}"


def _team(name: str) -> str:
    """The team of an agent's name: the name without its trailing number (the protocol's rule)."""
    return name.rstrip("0123456789") or name


def _roles(game: Game) -> dict[int, Role]:
    dealt = game.dealt_roles()
    if dealt is None:
        raise ExportError("the game was never dealt")
    return dict(enumerate(dealt, start=1))


def game_log_lines(
    game: Game, agents: Mapping[int, str], start_ms: int = 0, whispers: Sequence[Mapping[str, Any]] = ()
) -> list[str]:
    """The viewer's game log of a finished ``game`` (``agents``: the AIWolf agents' names by
    seat; ``whispers``: the 人狼's whispers, see :mod:`.whisper`)."""
    roles = _roles(game)
    names = ["", *(game.snapshot().names[1:])]
    public = list(game.public_log)
    ended = next((e for e in public if isinstance(e, GameEnded)), None)
    if ended is None:
        raise ExportError("the game has not ended")
    last = ended.day
    dead: dict[int, int] = {}  # seat -> the first day it is dead at the start of
    for entry in public:
        if isinstance(entry, Executed):
            dead.setdefault(entry.seat, entry.day + 1)
    for day, seat in game.victims:
        dead.setdefault(seat, day)
    lines: list[str] = []
    clock = [start_ms]

    def stamp() -> str:
        clock[0] += 1000
        return str(clock[0])

    def status(day: int, at_end: bool = False) -> None:
        for seat in range(1, 10):
            gone = dead.get(seat)
            alive = gone is None or (day < gone if not at_end else False)
            if at_end:
                alive = game.is_alive(seat)
            life = "ALIVE" if alive else "DEAD"
            role = ROLE_NAMES[roles[seat]]
            lines.append(f"{day},status,{seat},{role},{life},{_original_name(seat, agents)},{names[seat]}")

    def day_whispers(day: int) -> None:
        for whisper in whispers:
            if whisper.get("day") == day and whisper.get("agent") in names:
                seat = names.index(str(whisper["agent"]))
                text = one_line(str(whisper.get("text", "")))
                lines.append(
                    f"{day},whisper,{whisper.get('idx')},{whisper.get('turn')},{seat},{text},{stamp()}"
                )

    private = {seat: list(game.private_logs[seat]) for seat in range(1, 10)}
    seer = next(s for s, r in roles.items() if r is Role.SEER)
    guard = next(s for s, r in roles.items() if r is Role.BODYGUARD)
    wolves = [s for s, r in roles.items() if r is Role.WEREWOLF]
    status(0)
    day_whispers(0)
    for fact in private[seer]:
        if isinstance(fact, DivineResult) and fact.pre:
            lines.append(f"0,divine,{seer},{fact.target},{species(fact.colour)}")
    for day in range(1, last + 1):
        status(day)
        talk_index = 0
        turns: dict[int, int] = {}
        for entry in public:
            if entry.day != day:
                continue
            if isinstance(entry, Speech | ClaimMade | ResultStated | ClaimRequested | Declined):
                turn = turns.get(entry.speaker, 0)
                turns[entry.speaker] = turn + 1
                text = one_line(talk_text(entry, names))
                lines.append(f"{day},talk,{talk_index},{turn},{entry.speaker},{text},{stamp()}")
                talk_index += 1
            elif isinstance(entry, VoteTally):
                for vote in entry.votes:
                    lines.append(f"{day},vote,{vote.voter},{vote.target}")
            elif isinstance(entry, Executed):
                lines.append(f"{day},execute,{entry.seat},{ROLE_NAMES[roles[entry.seat]]}")
        day_whispers(day)
        lines.extend(_night_lines(day, private, seer, guard, wolves, roles))
    status(last, at_end=True)
    humans = sum(1 for s in range(1, 10) if game.is_alive(s) and roles[s] is not Role.WEREWOLF)
    werewolves = sum(1 for s in wolves if game.is_alive(s))
    side = "WEREWOLF" if ended.winner is Team.WEREWOLF else "VILLAGER"
    lines.append(f"{last},result,{humans},{werewolves},{side}")
    return lines


def _night_lines(
    day: int,
    private: Mapping[int, Sequence[object]],
    seer: int,
    guard: int,
    wolves: Sequence[int],
    roles: Mapping[int, Role],
) -> Iterable[str]:
    """The night of ``day``: the divination, the guard, each 人狼's choice, the attack."""
    told = False  # the 事前占い's choice comes before its result (day 0 in the log, not this night)
    for fact in private[seer]:
        told = told or (isinstance(fact, DivineResult) and fact.pre)
        if told and isinstance(fact, ActionTaken) and fact.ability == "divine" and fact.day == day:
            # the referee's record: what the divination showed, whether or not the seer lived to hear it
            result = "WEREWOLF" if roles[fact.target] is Role.WEREWOLF else "HUMAN"
            yield f"{day},divine,{seer},{fact.target},{result}"
    for fact in private[guard]:
        if isinstance(fact, ActionTaken) and fact.ability == "guard" and fact.day == day:
            yield f"{day},guard,{guard},{fact.target},{ROLE_NAMES[roles[fact.target]]}"
    for wolf in wolves:
        for fact in private[wolf]:
            if isinstance(fact, ActionTaken) and fact.ability == "attack" and fact.day == day:
                yield f"{day},attackVote,{wolf},{fact.target}"
    resolved = next(
        (f for w in wolves for f in private[w] if isinstance(f, AttackResolved) and f.day == day + 1), None
    )
    if resolved is not None:
        yield f"{day},attack,{resolved.target},{'true' if resolved.killed else 'false'}"


def json_log(
    game: Game,
    agents: Mapping[int, str],
    seed: int,
    decisions: Sequence[tuple[str, Mapping[str, Any]]],
    start_ms: int = 0,
) -> dict[str, Any]:
    """The JSON log: the game, its agents, and each decision applied (``decisions``: the
    transcript's applied tool calls, actor and payload)."""
    roles = _roles(game)
    names = game.snapshot().names
    ended = next(e for e in game.public_log if isinstance(e, GameEnded))
    entries: list[dict[str, Any]] = []
    clock = start_ms
    for actor, payload in decisions:
        if not (len(actor) == 2 and actor[0] == "P" and actor[1].isdigit()):
            continue
        seat = int(actor[1])
        arguments = _arguments(payload.get("arguments"))
        request = _REQUESTS.get(str(payload.get("tool", "")), "")
        if not request:
            continue
        answer = arguments.get("text") if "text" in arguments else arguments.get("target", "")
        if isinstance(answer, str) and len(answer) == 2 and answer.startswith("P") and answer[1].isdigit():
            answer = names[int(answer[1])]
        clock += 1000
        entry: dict[str, Any] = {
            "agent": names[seat],
            "request_timestamp": clock - 500,
            "response_timestamp": clock,
            "request": request,
            "response": one_line(str(answer or "")),
        }
        if "reason" in payload:  # the persona's offline play took the turn
            entry["error"] = str(payload["reason"])
        entries.append(entry)
    return {
        "game_id": game_id(seed),
        "win_side": "WEREWOLF" if ended.winner is Team.WEREWOLF else "VILLAGER",
        "agents": [
            {
                "idx": seat,
                "team": _original_name(seat, agents).rstrip("0123456789") or _original_name(seat, agents),
                "name": _original_name(seat, agents),
                "role": ROLE_NAMES[roles[seat]],
            }
            for seat in range(1, 10)
        ],
        "entries": entries,
    }


#: Our tools by the protocol request they answer.
_REQUESTS = {
    "speak": "TALK",
    "claim": "TALK",
    "state_result": "TALK",
    "request_claim": "TALK",
    "decline": "TALK",
    "vote": "VOTE",
    "divine": "DIVINE",
    "guard": "GUARD",
    "attack": "ATTACK",
}


def _arguments(raw: object) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return dict(raw) if isinstance(raw, dict) else {}


def write_logs(logs: AIWolfLogs, game_log: Path, json_path: Path) -> None:
    """Write both logs (UTF-8)."""
    game_log.write_text(logs.game_log, encoding="utf-8")
    json_path.write_text(json.dumps(logs.json_log, ensure_ascii=False, indent=1), encoding="utf-8")
