"""Every AIWolf seat of one table, told each day's start: :class:`Roster`.

The AIWolf server sends INITIALIZE and each day's DAILY_INITIALIZE to every agent of the
game, the dead ones included (``requestToEveryone``). Our session only ever asks a seat
whose turn it is, so a dead agent would hear nothing until FINISH: the roster tells every
agent seat, dead or alive, of a day as soon as the first agent of the table is asked
anything that day, from that seat's own observation. When no agent seat is left alive
nobody is asked anything, and the dead ones hear nothing more until FINISH.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from gm_engine.aiwolf.protocol import SeatChannel
from gm_engine.werewolf import Game
from gm_engine.werewolf.views import observe


class Member(Protocol):
    """An agent seat the roster tells (an :class:`~gm_engine.aiwolf.seat.AIWolfSeat`)."""

    @property
    def channel(self) -> SeatChannel:
        """What it has been sent."""
        ...

    async def notify(self, packet: dict[str, Any]) -> None:
        """Send it a packet it does not answer."""
        ...


class Roster:
    """The agent seats of the table playing ``game``."""

    def __init__(self, members: Mapping[int, Member], game: Game) -> None:
        self.members = dict(members)
        self.game = game

    async def day_begins(self, day: int) -> None:
        """Send every agent seat the notices of ``day`` it has not had (INITIALIZE first, then
        DAILY_INITIALIZE from day 1 on); ``day`` 0 is the 事前占い's night before day 1."""
        for seat, member in sorted(self.members.items()):
            obs = observe(self.game, seat)
            if obs.day != day:
                obs = obs._replace(day=day)
            for packet in member.channel.notices(obs, "TALK"):
                await member.notify(packet)
