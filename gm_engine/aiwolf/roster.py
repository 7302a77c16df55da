"""Every AIWolf seat of one table, told each day's start: :class:`Roster`.

The AIWolf server sends INITIALIZE and each day's DAILY_INITIALIZE to every agent of the
game, the dead ones included (``requestToEveryone``). Our session only ever asks a seat
whose turn it is, so a dead agent would hear nothing until FINISH: the roster tells every
agent seat, dead or alive, of a day as soon as the first agent of the table is asked
anything that day, and of its end (DAILY_FINISH, which the server sends everyone at the
start of the night section) as soon as one is asked anything but TALK, each from that
seat's own observation; before the first day, it runs day 0's whispers among the agent 人狼
(:meth:`~.whisper.WhisperChannel.day_zero`). When no agent seat is left alive
nobody is asked anything, and the dead ones hear nothing more until FINISH.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from gm_engine.aiwolf.protocol import Request
from gm_engine.aiwolf.whisper import WhisperChannel, Whisperer
from gm_engine.werewolf import Game
from gm_engine.werewolf.records import Role
from gm_engine.werewolf.views import Observation, observe


class Member(Whisperer, Protocol):
    """An agent seat the roster tells (an :class:`~gm_engine.aiwolf.seat.AIWolfSeat`)."""

    async def notify(self, packet: dict[str, Any]) -> None:
        """Send it a packet it does not answer."""
        ...


class Roster:
    """The agent seats of the table playing ``game``."""

    def __init__(
        self, members: Mapping[int, Member], game: Game, whispers: WhisperChannel | None = None
    ) -> None:
        self.members = dict(members)
        self.game = game
        self.whispers = whispers

    async def before(self, day: int, request: Request) -> None:
        """Send every agent seat the notices due before an agent is asked ``request`` on
        ``day`` that it has not had, in the server's order: INITIALIZE and day 0's
        DAILY_INITIALIZE, day 0's whispers among the agent 人狼, day 0's DAILY_FINISH; then
        from day 1 on the day's DAILY_INITIALIZE, and before any request but TALK (the day's
        talk is over) its DAILY_FINISH. ``day`` 0 is the 事前占い's night before day 1."""
        await self._tell(0, start=True)
        if self.whispers is not None:
            wolves = {
                seat: (member, self._observe(seat, 0))
                for seat, member in sorted(self.members.items())
                if self._observe(seat, 0).role is Role.WEREWOLF
            }
            await self.whispers.day_zero(wolves)
        await self._tell(0, start=False)
        if day > 0:
            await self._tell(day, start=True)
            if request != "TALK":
                await self._tell(day, start=False)

    def _observe(self, seat: int, day: int) -> Observation:
        obs = observe(self.game, seat)
        return obs if obs.day == day else obs._replace(day=day)

    async def _tell(self, day: int, *, start: bool) -> None:
        for seat, member in sorted(self.members.items()):
            obs = self._observe(seat, day)
            if start:
                packets = member.channel.day_starts(obs)
            elif member.channel.day_finished < day:
                wolf = self.whispers is not None and obs.role is Role.WEREWOLF
                heard = self.whispers.history(seat) if self.whispers is not None and wolf else []
                packets = member.channel.day_ends(obs, heard)
            else:
                packets = []
            for packet in packets:
                await member.notify(packet)
