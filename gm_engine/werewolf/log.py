"""The entries of the public log and of each player's private log.

The game appends a :data:`PublicEntry` for every public fact (everyone at the table saw or
heard it) and a :data:`PrivateEntry` to one seat's private log for every fact only that seat
knows. Views are built from these two logs alone, so an entry type is the unit of secrecy:
nothing hidden is ever written to the public log, and a private entry only ever reaches its
owner. Entries are frozen dataclasses (cheap in the simulation's hot path); pydantic validates
and serialises them inside the view models, with ``kind`` as the discriminator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gm_engine.werewolf.records import Colour, Role, Team

# ---------------------------------------------------------------- public entries


@dataclass(frozen=True, slots=True)
class GameStarted:
    """ゲーム開始: roles were dealt and checked (the deal itself is secret)."""

    day: int
    kind: Literal["game_started"] = "game_started"


@dataclass(frozen=True, slots=True)
class PreDivinationDone:
    """「占い師が事前占いを完了しました」."""

    day: int
    kind: Literal["pre_divination_done"] = "pre_divination_done"


@dataclass(frozen=True, slots=True)
class DiscussionStarted:
    """CMD_議論: the day's discussion begins."""

    day: int
    kind: Literal["discussion_started"] = "discussion_started"


@dataclass(frozen=True, slots=True)
class Speech:
    """A player's free talk on its discussion turn (an empty text is a pass)."""

    day: int
    speaker: int
    text: str
    kind: Literal["speech"] = "speech"


@dataclass(frozen=True, slots=True)
class ClaimMade:
    """CMD_CO: ``speaker`` claims ``role`` (a public fact; the engine never says if it is true)."""

    day: int
    speaker: int
    role: Role
    target: int | None
    colour: Colour | None
    text: str
    kind: Literal["claim"] = "claim"


@dataclass(frozen=True, slots=True)
class ResultStated:
    """A claimed 占い師 / 霊媒師 states a result: it becomes public information."""

    day: int
    speaker: int
    role: Role
    target: int
    colour: Colour
    text: str
    kind: Literal["result_stated"] = "result_stated"


@dataclass(frozen=True, slots=True)
class ClaimRequested:
    """CMD_CO要求: 「〇〇は名乗り出ろ」."""

    day: int
    speaker: int
    role: Role
    text: str
    kind: Literal["claim_requested"] = "claim_requested"


@dataclass(frozen=True, slots=True)
class Declined:
    """A player answered a CO要求 without coming out."""

    day: int
    speaker: int
    text: str
    kind: Literal["declined"] = "declined"


@dataclass(frozen=True, slots=True)
class VotingOpened:
    """CMD_投票 (or the 決選投票): every living player must vote for one of ``candidates``."""

    day: int
    runoff: bool
    candidates: tuple[int, ...]
    kind: Literal["voting_opened"] = "voting_opened"


@dataclass(frozen=True, slots=True)
class CastVote:
    """One vote as published after everyone voted."""

    voter: int
    target: int
    reason: str


@dataclass(frozen=True, slots=True)
class VoteTally:
    """The published votes of one round: 【投票結果】 and 【投票集計】.

    ``outcome`` is ``"execute"`` (one top player), ``"runoff"`` (a first tie) or
    ``"no_execution"`` (a tie in the 決選投票).
    """

    day: int
    runoff: bool
    votes: tuple[CastVote, ...]
    counts: tuple[tuple[int, int], ...]
    top: tuple[int, ...]
    outcome: Literal["execute", "runoff", "no_execution"]
    kind: Literal["vote_tally"] = "vote_tally"


@dataclass(frozen=True, slots=True)
class Executed:
    """CMD_処刑: 【〇〇が退席しました】 (no role, no last words)."""

    day: int
    seat: int
    kind: Literal["executed"] = "executed"


@dataclass(frozen=True, slots=True)
class NoExecution:
    """The 決選投票 tied again: nobody leaves the table today."""

    day: int
    kind: Literal["no_execution"] = "no_execution"


@dataclass(frozen=True, slots=True)
class NightStarted:
    """CMD_夜開始."""

    day: int
    kind: Literal["night_started"] = "night_started"


@dataclass(frozen=True, slots=True)
class MorningReport:
    """CMD_朝結果 of the morning of ``day``: the attack victim, or ``None`` when nobody died."""

    day: int
    victim: int | None
    kind: Literal["morning"] = "morning"


@dataclass(frozen=True, slots=True)
class GameEnded:
    """【ゲーム終了】: the winning team, survivors, the dead and the final role list."""

    day: int
    winner: Team
    survivors: tuple[int, ...]
    dead: tuple[int, ...]
    roles: tuple[tuple[int, Role], ...]
    kind: Literal["game_ended"] = "game_ended"


PublicEntry = (
    GameStarted
    | PreDivinationDone
    | DiscussionStarted
    | Speech
    | ClaimMade
    | ResultStated
    | ClaimRequested
    | Declined
    | VotingOpened
    | VoteTally
    | Executed
    | NoExecution
    | NightStarted
    | MorningReport
    | GameEnded
)
"""Any public log entry."""

# ---------------------------------------------------------------- private entries


@dataclass(frozen=True, slots=True)
class RoleDealt:
    """Your role (and, for a 人狼, the partner's seat: 人狼情報)."""

    day: int
    role: Role
    partners: tuple[int, ...]
    kind: Literal["role_dealt"] = "role_dealt"


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """Your own secret choice: a vote before the tally, or tonight's attack / divine / guard."""

    day: int
    ability: Literal["vote", "attack", "divine", "guard"]
    target: int
    kind: Literal["action_taken"] = "action_taken"


@dataclass(frozen=True, slots=True)
class DivineResult:
    """Your 占い result (``pre``: the 事前占い before day 1; ``day`` is the day it was learned)."""

    day: int
    target: int
    colour: Colour
    pre: bool
    kind: Literal["divine_result"] = "divine_result"


@dataclass(frozen=True, slots=True)
class MediumResult:
    """Your 霊媒 result: the colour of the player executed on ``executed_day``."""

    day: int
    executed_day: int
    target: int
    colour: Colour
    kind: Literal["medium_result"] = "medium_result"


@dataclass(frozen=True, slots=True)
class AttackResolved:
    """For the 人狼 team's members who are werewolves: last night's attack and who decided it."""

    day: int
    target: int
    decided_by: int
    killed: bool
    kind: Literal["attack_resolved"] = "attack_resolved"


@dataclass(frozen=True, slots=True)
class GuardResolved:
    """For the 狩人: last night's guard and whether it stopped an attack."""

    day: int
    target: int
    success: bool
    kind: Literal["guard_resolved"] = "guard_resolved"


PrivateEntry = RoleDealt | ActionTaken | DivineResult | MediumResult | AttackResolved | GuardResolved
"""Any private log entry."""
