"""The records of 人狼ゲーム各処理, named and numbered as the document names them.

* PLAYER (P1..P9): ``R`` role, ``L`` life, ``U`` ability used tonight -> :class:`PlayerRecord`;
* PHASE (the document also says GAME): ``day``, ``T`` time of day, ``P`` step -> :class:`PhaseRecord`;
* ATTACK / DIVINE / GUARD / MEDIUM: ``A S T V`` -> :class:`AbilityRecord`.

The numeric values are the document's, so a record prints exactly as the document writes it
(``DIVINE:2 4 7 3``). Seats are the numbers 1..9 (P1 is the human).

Every number is defined once, as a plain int constant (as python-chess defines its colours and
pieces): the engine and the agents compare them on their hot paths (``role == WEREWOLF``),
where reading an enum member would cost an attribute lookup through the enum class. The enums
(:class:`Role`, :class:`Colour`, :class:`Life`, ...) are built from the same constants and are
what the API hands out: an ``IntEnum`` member equals its int, so either side may be compared.
The engine's stages (finer than PHASE.P, not the document's) are numbered here too
(``STAGE_VOTE``); :class:`Stage` names them for the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Final

# PLAYER.R: the roles
WEREWOLF: Final = 1
VILLAGER: Final = 2
SEER: Final = 3
BODYGUARD: Final = 4
MEDIUM: Final = 5
MADMAN: Final = 6

# PLAYER.L
ALIVE: Final = 1
DEAD: Final = 2

# PHASE.T
DAY: Final = 1
NIGHT: Final = 2

# PHASE.P
STEP_BEFORE_START: Final = 1
STEP_DISCUSSION: Final = 2
STEP_VOTE: Final = 3
STEP_EXECUTION: Final = 4
STEP_NIGHT_ACTIONS: Final = 5
STEP_MORNING: Final = 6
STEP_ENDED: Final = 7

# A of ATTACK / DIVINE / GUARD / MEDIUM
ABILITY_ATTACK: Final = 1
ABILITY_DIVINE: Final = 2
ABILITY_GUARD: Final = 3
ABILITY_MEDIUM: Final = 4

# V: 0 unprocessed; ATTACK / GUARD 1 success, 2 failure; DIVINE / MEDIUM 3 白, 4 黒
UNPROCESSED: Final = 0
SUCCESS: Final = 1
FAILURE: Final = 2
WHITE: Final = 3
BLACK: Final = 4

# The engine's stages, in the order a game passes them (the day loops back to discussion).
STAGE_CHOOSE_ROLE: Final = 0
STAGE_DEAL: Final = 1
STAGE_PRE_DIVINATION: Final = 2
STAGE_DISCUSSION: Final = 3
STAGE_VOTE: Final = 4
STAGE_RUNOFF: Final = 5
STAGE_EXECUTION: Final = 6
STAGE_NIGHT_START: Final = 7
STAGE_NIGHT: Final = 8
STAGE_ENDED: Final = 9


class Role(IntEnum):
    """PLAYER.R: the six roles, numbered as in the document."""

    WEREWOLF = WEREWOLF
    VILLAGER = VILLAGER
    SEER = SEER
    BODYGUARD = BODYGUARD
    MEDIUM = MEDIUM
    MADMAN = MADMAN

    @property
    def label(self) -> str:
        """The role's Japanese name (display text)."""
        return ROLE_LABELS[self]

    @property
    def team(self) -> Team:
        """The team the role wins with (the 狂人 wins with the werewolves)."""
        return Team.WEREWOLF if self in (WEREWOLF, MADMAN) else Team.VILLAGE


ROLE_LABELS: dict[Role, str] = {
    Role.WEREWOLF: "人狼",
    Role.VILLAGER: "村人",
    Role.SEER: "占い師",
    Role.BODYGUARD: "狩人",
    Role.MEDIUM: "霊媒師",
    Role.MADMAN: "狂人",
}

#: The composition [1,1,2,2,2,3,4,5,6]: 人狼2, 村人3, 占い師1, 狩人1, 霊媒師1, 狂人1.
COMPOSITION: tuple[Role, ...] = (
    Role.WEREWOLF,
    Role.WEREWOLF,
    Role.VILLAGER,
    Role.VILLAGER,
    Role.VILLAGER,
    Role.SEER,
    Role.BODYGUARD,
    Role.MEDIUM,
    Role.MADMAN,
)

#: The roles a claim (CO) can name: the three roles with an ability the village relies on.
CLAIMABLE_ROLES: tuple[Role, ...] = (Role.SEER, Role.BODYGUARD, Role.MEDIUM)

SEATS: tuple[int, ...] = tuple(range(1, 10))
HUMAN_SEAT = 1

#: The persona of each AI seat, in the order the document lists them (NOTES.md).
PERSONA_NAMES: dict[int, str] = {
    2: "トウダ",
    3: "ヒミヤ",
    4: "アオト",
    5: "ミスノ",
    6: "キウミ",
    7: "シセン",
    8: "ハイオ",
    9: "イスイ",
}


class Life(IntEnum):
    """PLAYER.L."""

    ALIVE = ALIVE
    DEAD = DEAD


class TimeOfDay(IntEnum):
    """PHASE.T."""

    DAY = DAY
    NIGHT = NIGHT

    @property
    def label(self) -> str:
        """昼 or 夜."""
        return "昼" if self == DAY else "夜"


class Step(IntEnum):
    """PHASE.P."""

    BEFORE_START = STEP_BEFORE_START
    DISCUSSION = STEP_DISCUSSION
    VOTE = STEP_VOTE
    EXECUTION = STEP_EXECUTION
    NIGHT_ACTIONS = STEP_NIGHT_ACTIONS
    MORNING = STEP_MORNING
    ENDED = STEP_ENDED

    @property
    def label(self) -> str:
        """The document's name of the step."""
        return STEP_LABELS[self]


STEP_LABELS: dict[Step, str] = {
    Step.BEFORE_START: "開始前",
    Step.DISCUSSION: "議論",
    Step.VOTE: "投票",
    Step.EXECUTION: "処刑",
    Step.NIGHT_ACTIONS: "夜能力",
    Step.MORNING: "朝結果",
    Step.ENDED: "終了",
}


class Ability(IntEnum):
    """The A field of ATTACK / DIVINE / GUARD / MEDIUM."""

    ATTACK = ABILITY_ATTACK
    DIVINE = ABILITY_DIVINE
    GUARD = ABILITY_GUARD
    MEDIUM = ABILITY_MEDIUM


class RecordValue(IntEnum):
    """The V field: 0 unprocessed; ATTACK/GUARD 1 success, 2 failure; DIVINE/MEDIUM 3 白, 4 黒."""

    UNPROCESSED = UNPROCESSED
    SUCCESS = SUCCESS
    FAILURE = FAILURE
    WHITE = WHITE
    BLACK = BLACK


class Colour(IntEnum):
    """A divine or medium result, with the document's V numbers."""

    WHITE = WHITE
    BLACK = BLACK

    @property
    def label(self) -> str:
        """白 or 黒."""
        return "白" if self == WHITE else "黒"

    @staticmethod
    def of(role: int) -> Colour:
        """黒 only for 人狼; everyone else, the 狂人 included, reads 白."""
        return COLOURS[BLACK if role == WEREWOLF else WHITE]


class Team(StrEnum):
    """The two teams of the win check."""

    VILLAGE = "村人陣営"
    WEREWOLF = "人狼陣営"


class Stage(StrEnum):
    """Where the game is, finer than PHASE.P: it tells who acts and which step comes next.

    ``STAGES[STAGE_VOTE]`` is ``Stage.VOTE``: the engine keeps the number, the API hands out
    the member (a ``str``, so ``stage == "vote"`` holds too).
    """

    CHOOSE_ROLE = "choose_role"
    """P1 must choose its role (CMD_役職選択)."""
    DEAL = "deal"
    """advance() deals the roles (CMD_ゲーム開始)."""
    PRE_DIVINATION = "pre_divination"
    """The 占い師 divines before day 1 (CMD_事前占い)."""
    DISCUSSION = "discussion"
    """Discussion turns (CMD_議論, CMD_CO, CMD_CO要求); advance() opens the vote when done."""
    VOTE = "vote"
    """Every living player votes (CMD_投票)."""
    RUNOFF = "runoff"
    """The one 決選投票 between the tied players."""
    EXECUTION = "execution"
    """advance() executes the top player and runs the win check (CMD_処刑, CMD_勝敗判定)."""
    NIGHT_START = "night_start"
    """advance() starts the night (CMD_夜開始)."""
    NIGHT = "night"
    """Night actions (CMD_襲撃, CMD_占い, CMD_護衛); advance() then runs CMD_霊媒 and CMD_朝結果."""
    ENDED = "ended"
    """【ゲーム終了】: nothing more is accepted."""


# The members by number, read with one index or dict lookup on the hot paths.
ROLES: dict[int, Role] = {int(role): role for role in Role}
COLOURS: dict[int, Colour] = {int(colour): colour for colour in Colour}
TIMES: tuple[TimeOfDay, ...] = (TimeOfDay.DAY, *TimeOfDay)
"""``TIMES[PHASE.T]`` (index 0 unused)."""
STEPS: tuple[Step, ...] = (Step.BEFORE_START, *Step)
"""``STEPS[PHASE.P]`` (index 0 unused)."""
STAGES: tuple[Stage, ...] = tuple(Stage)
"""``STAGES[STAGE_...]``: the stage numbers above, in the order Stage lists its members."""
TEAMS: tuple[Team, ...] = (Team.VILLAGE, Team.WEREWOLF)


@dataclass(slots=True)
class PlayerRecord:
    """PLAYER: R role, L life, U ability used tonight (0/1). ``R`` is 0 before the deal."""

    R: int = 0
    L: int = ALIVE
    U: int = 0


@dataclass(slots=True)
class PhaseRecord:
    """PHASE (GAME): day number, T time of day, P step."""

    day: int = 1
    T: int = DAY
    P: int = STEP_BEFORE_START

    def text(self) -> str:
        """``1日目・昼・開始前``."""
        return f"{self.day}日目・{TimeOfDay(self.T).label}・{Step(self.P).label}"


@dataclass(frozen=True, slots=True)
class AbilityRecord:
    """ATTACK / DIVINE / GUARD / MEDIUM: ``A S T V`` (kind, actor seat, target seat, outcome)."""

    A: int
    S: int
    T: int
    V: int = UNPROCESSED

    def text(self) -> str:
        """The document's form, e.g. ``DIVINE:2 4 7 3``."""
        return f"{Ability(self.A).name}:{self.A} {self.S} {self.T} {self.V}"
