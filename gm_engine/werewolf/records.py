"""The records of 人狼ゲーム各処理, named and numbered as the document names them.

* PLAYER (P1..P9): ``R`` role, ``L`` life, ``U`` ability used tonight -> :class:`PlayerRecord`;
* PHASE (the document also says GAME): ``day``, ``T`` time of day, ``P`` step -> :class:`PhaseRecord`;
* ATTACK / DIVINE / GUARD / MEDIUM: ``A S T V`` -> :class:`AbilityRecord`.

The numeric values are the document's, so a record prints exactly as the document writes it
(``DIVINE:2 4 7 3``). Seats are the numbers 1..9 (P1 is the human).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum


class Role(IntEnum):
    """PLAYER.R: the six roles, numbered as in the document."""

    WEREWOLF = 1
    VILLAGER = 2
    SEER = 3
    BODYGUARD = 4
    MEDIUM = 5
    MADMAN = 6

    @property
    def label(self) -> str:
        """The role's Japanese name (display text)."""
        return ROLE_LABELS[self]

    @property
    def team(self) -> Team:
        """The team the role wins with (the 狂人 wins with the werewolves)."""
        return Team.WEREWOLF if self in (Role.WEREWOLF, Role.MADMAN) else Team.VILLAGE


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

    ALIVE = 1
    DEAD = 2


class TimeOfDay(IntEnum):
    """PHASE.T."""

    DAY = 1
    NIGHT = 2

    @property
    def label(self) -> str:
        """昼 or 夜."""
        return "昼" if self is TimeOfDay.DAY else "夜"


class Step(IntEnum):
    """PHASE.P."""

    BEFORE_START = 1
    DISCUSSION = 2
    VOTE = 3
    EXECUTION = 4
    NIGHT_ACTIONS = 5
    MORNING = 6
    ENDED = 7

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

    ATTACK = 1
    DIVINE = 2
    GUARD = 3
    MEDIUM = 4


class RecordValue(IntEnum):
    """The V field: 0 unprocessed; ATTACK/GUARD 1 success, 2 failure; DIVINE/MEDIUM 3 白, 4 黒."""

    UNPROCESSED = 0
    SUCCESS = 1
    FAILURE = 2
    WHITE = 3
    BLACK = 4


class Colour(IntEnum):
    """A divine or medium result, with the document's V numbers."""

    WHITE = 3
    BLACK = 4

    @property
    def label(self) -> str:
        """白 or 黒."""
        return "白" if self is Colour.WHITE else "黒"

    @staticmethod
    def of(role: Role) -> Colour:
        """黒 only for 人狼; everyone else, the 狂人 included, reads 白."""
        return Colour.BLACK if role is Role.WEREWOLF else Colour.WHITE


class Team(StrEnum):
    """The two teams of the win check."""

    VILLAGE = "村人陣営"
    WEREWOLF = "人狼陣営"


@dataclass(slots=True)
class PlayerRecord:
    """PLAYER: R role, L life, U ability used tonight (0/1). ``R`` is 0 before the deal."""

    R: int = 0
    L: int = Life.ALIVE
    U: int = 0


@dataclass(slots=True)
class PhaseRecord:
    """PHASE (GAME): day number, T time of day, P step."""

    day: int = 1
    T: int = TimeOfDay.DAY
    P: int = Step.BEFORE_START

    def text(self) -> str:
        """``1日目・昼・開始前``."""
        return f"{self.day}日目・{TimeOfDay(self.T).label}・{Step(self.P).label}"


@dataclass(frozen=True, slots=True)
class AbilityRecord:
    """ATTACK / DIVINE / GUARD / MEDIUM: ``A S T V`` (kind, actor seat, target seat, outcome)."""

    A: int
    S: int
    T: int
    V: int = RecordValue.UNPROCESSED

    def text(self) -> str:
        """The document's form, e.g. ``DIVINE:2 4 7 3``."""
        return f"{Ability(self.A).name}:{self.A} {self.S} {self.T} {self.V}"
