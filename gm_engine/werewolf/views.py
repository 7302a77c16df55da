"""What a seat may know: the public view, each seat's private view, and the agents' observation.

Every prompt and every screen is built from these and nothing else:

* :class:`PublicView`: what everyone at the table knows (the public log, who is alive, the
  claims, the stated results, whose turn it is, the vote candidates). Built by
  :func:`public_view` from public facts alone.
* :class:`PrivateView`: one seat's own facts (its role, a 人狼's partner, its own divine /
  medium results, its own secret choices, and what a 人狼 / 狩人 learns of its own night).
* :class:`PlayerView`: both, for one seat: :func:`player_view`.
* :class:`Observation`: the same information as :class:`PlayerView` as a cheap frozen
  dataclass, for the offline agents in the simulation's hot path (:func:`observe`);
  ``PlayerView.from_observation`` turns one into the other, so the two cannot drift apart.

No view ever holds another seat's role (before 【ゲーム終了】), an attack or guard target, an
unstated result or this round's votes before the tally.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from gm_engine.werewolf.game import PublicSnapshot, checked_seat
from gm_engine.werewolf.log import (
    ActionTaken,
    ClaimMade,
    DivineResult,
    Executed,
    GameEnded,
    MediumResult,
    MorningReport,
    PrivateEntry,
    PublicEntry,
    ResultStated,
    RoleDealt,
)
from gm_engine.werewolf.records import (
    HUMAN_SEAT,
    PERSONA_NAMES,
    SEATS,
    Colour,
    Role,
    Step,
    Team,
    TimeOfDay,
)

if TYPE_CHECKING:
    from gm_engine.werewolf.game import Game


class Observation(NamedTuple):
    """One seat's knowledge now, cheaply: exactly the information of its :class:`PlayerView`.

    It is the game's :class:`~gm_engine.werewolf.game.PublicSnapshot` (the fields from
    ``names`` to ``winner``, in the same order) with the seat and its own private log around it.
    """

    seat: int
    names: tuple[str, ...]
    """names[seat] for seats 1..9 (index 0 unused)."""
    day: int
    time: TimeOfDay
    step: Step
    stage: str
    """The :class:`Stage` member (a ``str``, so ``obs.stage == "vote"`` holds too; a caller
    building a hypothetical observation may put the plain value)."""
    alive: tuple[bool, ...]
    """alive[seat] for seats 1..9 (index 0 unused)."""
    current_speaker: int | None
    awaiting_claim: Role | None
    candidates: tuple[int, ...]
    public_log: tuple[PublicEntry, ...]
    claims: tuple[tuple[int, Role], ...]
    """(seat, claimed role) of every claim so far, in order (public: CO状況)."""
    executions: tuple[tuple[int, int], ...]
    victims: tuple[tuple[int, int], ...]
    winner: Team | None
    private_log: tuple[PrivateEntry, ...]

    @property
    def role(self) -> Role | None:
        """This seat's own role (None before the deal)."""
        for entry in self.private_log:
            if isinstance(entry, RoleDealt):
                return entry.role
        return None

    @property
    def partners(self) -> tuple[int, ...]:
        """For a 人狼, the other 人狼's seat (人狼情報); empty otherwise."""
        for entry in self.private_log:
            if isinstance(entry, RoleDealt):
                return entry.partners
        return ()

    def living(self) -> list[int]:
        """The living seats."""
        return [s for s in SEATS if self.alive[s]]


if Observation._fields[1:-1] != PublicSnapshot._fields:  # pragma: no cover - a programming error
    raise ImportError("Observation must hold PublicSnapshot's fields in its order (observe copies them)")


_new_tuple = tuple.__new__


def observe(game: Game, seat: int) -> Observation:
    """``seat``'s observation of ``game`` now: the game's public snapshot and the seat's own log.

    Raises:
        SeatError: ``seat`` is not an int 1..9 (a bool is not a seat).
    """
    if type(seat) is not int or not 0 < seat < 10:
        seat = checked_seat(seat)
    # The observation's public fields are the snapshot's, in the same order (public_fields:
    # the snapshot's values without building the snapshot); tuple.__new__ skips NamedTuple's
    # Python-level __new__, and concatenation beats unpacking (this runs once per decision).
    private = tuple(game.private_logs[seat])
    return _new_tuple(Observation, (seat,) + game.public_fields() + (private,))  # noqa: RUF005


# ---------------------------------------------------------------- pydantic views

Entry = Annotated[PublicEntry, Field(discriminator="kind")]
Private = Annotated[PrivateEntry, Field(discriminator="kind")]


class SeatInfo(BaseModel):
    """One seat as everyone sees it."""

    model_config = ConfigDict(frozen=True)

    seat: int
    name: str
    alive: bool
    claim: Role | None
    """The role this seat has claimed (CO), true or not; None if it has not claimed."""


class StatedResult(BaseModel):
    """A divine / medium result a claimant stated in public."""

    model_config = ConfigDict(frozen=True)

    day: int
    speaker: int
    role: Role
    target: int
    colour: Colour


class PublicView(BaseModel):
    """What everyone at the table knows."""

    model_config = ConfigDict(frozen=True)

    day: int
    time: TimeOfDay
    step: Step
    stage: str
    seats: tuple[SeatInfo, ...]
    current_speaker: int | None
    awaiting_claim: Role | None
    """The role of the CO要求 being answered now, if any."""
    candidates: tuple[int, ...]
    """Who may be voted for in the vote (or 決選投票) in progress."""
    executed: tuple[tuple[int, int], ...]
    """(day, seat) of each execution (追放者)."""
    victims: tuple[tuple[int, int], ...]
    """(day, seat) of each attack victim (襲撃死者), by the morning they were found."""
    stated_results: tuple[StatedResult, ...]
    log: tuple[Entry, ...]
    winner: Team | None
    final_roles: tuple[tuple[int, Role], ...] | None
    """The 最終役職一覧: only after 【ゲーム終了】."""

    def name(self, seat: int) -> str:
        """The display name of ``seat``."""
        return self.seats[seat - 1].name


class PrivateView(BaseModel):
    """One seat's own facts."""

    model_config = ConfigDict(frozen=True)

    seat: int
    name: str
    role: Role | None
    partners: tuple[int, ...]
    divine_results: tuple[DivineResult, ...]
    medium_results: tuple[MediumResult, ...]
    current_vote: int | None
    """This seat's vote in the round in progress (secret until the tally)."""
    tonight: tuple[ActionTaken, ...]
    """This seat's own choices tonight (attack / divine / guard)."""
    log: tuple[Private, ...]


class PlayerView(BaseModel):
    """Everything one seat may know: the public view and its private view."""

    model_config = ConfigDict(frozen=True)

    public: PublicView
    private: PrivateView

    @classmethod
    def from_observation(cls, obs: Observation) -> PlayerView:
        """The view holding exactly the information of ``obs``."""
        return cls(public=_public_from(obs), private=_private_from(obs))


def _public_from(obs: Observation) -> PublicView:
    claims: dict[int, Role] = {}
    stated: list[StatedResult] = []
    executed: list[tuple[int, int]] = []
    victims: list[tuple[int, int]] = []
    winner: Team | None = None
    final_roles: tuple[tuple[int, Role], ...] | None = None
    for entry in obs.public_log:
        if isinstance(entry, ClaimMade):
            claims[entry.speaker] = entry.role
            if entry.target is not None and entry.colour is not None:
                stated.append(
                    StatedResult(
                        day=entry.day,
                        speaker=entry.speaker,
                        role=entry.role,
                        target=entry.target,
                        colour=entry.colour,
                    )
                )
        elif isinstance(entry, ResultStated):
            stated.append(
                StatedResult(
                    day=entry.day,
                    speaker=entry.speaker,
                    role=entry.role,
                    target=entry.target,
                    colour=entry.colour,
                )
            )
        elif isinstance(entry, Executed):
            executed.append((entry.day, entry.seat))
        elif isinstance(entry, MorningReport) and entry.victim is not None:
            victims.append((entry.day, entry.victim))
        elif isinstance(entry, GameEnded):
            winner = entry.winner
            final_roles = entry.roles
    seats = tuple(SeatInfo(seat=s, name=obs.names[s], alive=obs.alive[s], claim=claims.get(s)) for s in SEATS)
    return PublicView(
        day=obs.day,
        time=obs.time,
        step=obs.step,
        stage=obs.stage,
        seats=seats,
        current_speaker=obs.current_speaker,
        awaiting_claim=obs.awaiting_claim,
        candidates=obs.candidates,
        executed=tuple(executed),
        victims=tuple(victims),
        stated_results=tuple(stated),
        log=obs.public_log,
        winner=winner,
        final_roles=final_roles,
    )


def _private_from(obs: Observation) -> PrivateView:
    divine = tuple(e for e in obs.private_log if isinstance(e, DivineResult))
    medium = tuple(e for e in obs.private_log if isinstance(e, MediumResult))
    current_vote: int | None = None
    tonight: list[ActionTaken] = []
    # A living seat has voted once in every round so far, so its vote is in the round still
    # open exactly when it holds as many votes as rounds have been opened.
    votes = [e for e in obs.private_log if isinstance(e, ActionTaken) and e.ability == "vote"]
    if obs.stage in ("vote", "runoff") and votes:
        opened = sum(1 for e in obs.public_log if e.kind == "voting_opened")
        if len(votes) == opened:
            current_vote = votes[-1].target
    if obs.stage == "night":
        tonight = [
            e
            for e in obs.private_log
            if isinstance(e, ActionTaken) and e.ability != "vote" and e.day == obs.day
        ]
    return PrivateView(
        seat=obs.seat,
        name=obs.names[obs.seat],
        role=obs.role,
        partners=obs.partners,
        divine_results=divine,
        medium_results=medium,
        current_vote=current_vote,
        tonight=tuple(tonight),
        log=obs.private_log,
    )


def public_view(game: Game) -> PublicView:
    """What everyone knows (the same for every seat)."""
    return _public_from(observe(game, HUMAN_SEAT))


def player_view(game: Game, seat: int) -> PlayerView:
    """Everything ``seat`` may know now.

    Raises:
        SeatError: ``seat`` is not an int 1..9 (a bool is not a seat).
    """
    return PlayerView.from_observation(observe(game, seat))


def display_names(human_name: str) -> dict[int, str]:
    """The seat names of a table with ``human_name`` at P1."""
    return {HUMAN_SEAT: human_name, **PERSONA_NAMES}


def names_of(view: PublicView, seats: Sequence[int]) -> list[str]:
    """Display names of ``seats`` in a public view."""
    return [view.name(s) for s in seats]
