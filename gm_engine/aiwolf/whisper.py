"""The 人狼's whispers at a table with AIWolf agents: :class:`WhisperChannel`, one per table.

Our engine has no whisper phase: the 人狼 agree through the rules (each proposes a victim,
the rules pick). When the living 人狼 are agents, or an agent and a persona
(:mod:`.persona_wolf`), the protocol's whispers run among them at night before their
ATTACK: each gets WHISPER requests, the agents first in seat order, up to ``rounds`` each,
with the whispers since its last packet, until each has said Over. The whispers are cut
like talk (:func:`~.protocol.truncated`) and told to no other seat; the lowest agent
seat's ATTACK answer carries them in its text (the transcript records them, so a replay
and the export see them). Personas alone do not whisper (no protocol runs among them).
Day 0's whispers (:meth:`WhisperChannel.day_zero`) need every living 人狼 an agent.

Each night's exchange starts once every whisperer has reached its ATTACK request (the
night's turns run at once), so it does not depend on which arrives first."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gm_engine.aiwolf.protocol import OVER, SKIP, SeatChannel, answer_text, one_line, truncated
from gm_engine.werewolf.views import Observation

#: How the whispers ride in the lowest seat's ATTACK answer.
WHISPER_PREFIX = "whispers: "


class Whisperer(Protocol):
    """A seat that can be asked to whisper."""

    @property
    def seat(self) -> int:
        """Its seat."""
        ...

    @property
    def channel(self) -> SeatChannel:
        """What it has been sent."""
        ...

    async def whisper(self, packet: dict[str, Any]) -> str | None:
        """Ask it one WHISPER; None: no answer."""
        ...


@dataclass
class _Night:
    arrived: dict[int, tuple[Whisperer, Observation]] = field(default_factory=dict)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    lines: list[dict[str, Any]] = field(default_factory=list)


class WhisperChannel:
    """The whispers of one table's AIWolf 人狼 (``agent_seats``: the seats agents play)."""

    def __init__(self, agent_seats: Sequence[int], rounds: int = 2) -> None:
        self.agent_seats = frozenset(agent_seats)
        #: the persona seats that take part (see :mod:`.persona_wolf`)
        self.persona_seats: set[int] = set()
        self.rounds = rounds
        self.lines: list[dict[str, Any]] = []
        self.sent: dict[int, int] = {}
        self._nights: dict[int, _Night] = {}
        self._day_zero_done = False
        #: whispers no ATTACK answer has carried yet (day 0's, until the first night's)
        self.pending: list[dict[str, Any]] = []

    def whisperers(self, obs: Observation) -> list[int]:
        """The seats that whisper tonight (empty: a persona is among the living 人狼, or one
        人狼 is left)."""
        wolves = {obs.seat, *(p for p in obs.partners if obs.alive[p])}
        if len(wolves) < 2 or not wolves <= self.agent_seats | self.persona_seats:
            return []
        if not wolves & self.agent_seats:
            return []  # personas alone have no protocol to whisper in
        # the agents first, so that a persona hears their words before it whispers
        return sorted(wolves, key=lambda seat: (seat not in self.agent_seats, seat))

    def forget(self, seat: int) -> None:
        """Send ``seat`` every whisper again from the first (its agent connected anew)."""
        self.sent.pop(seat, None)

    def history(self, seat: int) -> list[dict[str, Any]]:
        """The whispers ``seat`` has not been sent yet (and marks them sent)."""
        start = self.sent.get(seat, 0)
        self.sent[seat] = len(self.lines)
        return self.lines[start:]

    async def day_zero(self, arrived: Mapping[int, tuple[Whisperer, Observation]]) -> None:
        """Day 0's whispers, once, before the first night (the server's morning whispers of
        day 0): among ``arrived``, every agent 人狼 with its day-0 observation, when they are
        all the living 人狼. ATTACK answers carry them later (see :meth:`night`)."""
        if self._day_zero_done or not arrived:
            return
        self._day_zero_done = True
        wolves = self.whisperers(next(iter(arrived.values()))[1])
        if not wolves or set(wolves) != set(arrived):
            return
        night = _Night(arrived=dict(arrived))
        await self._exchange(night, 0, wolves)
        self.pending.extend(night.lines)

    async def night(self, member: Whisperer, obs: Observation) -> str | None:
        """Take part in tonight's whispers; the lowest seat gets them back as the text its
        ATTACK answer carries (the others None), with any whispers not carried yet; a lone
        agent 人狼 carries those."""
        wolves = self.whisperers(obs)
        if not wolves:
            if not self.pending or member.seat not in self.agent_seats:
                return None
            carried, self.pending = self.pending, []
            return WHISPER_PREFIX + json.dumps(carried, ensure_ascii=False)
        night = self._nights.setdefault(obs.day, _Night())
        night.arrived[member.seat] = (member, obs)
        if set(night.arrived) == set(wolves):
            await self._exchange(night, obs.day, wolves)
            night.done.set()
        else:
            await night.done.wait()
        if member.seat != wolves[0]:  # the lowest agent seat (the agents come first)
            return None
        carried, self.pending = [*self.pending, *night.lines], []
        return WHISPER_PREFIX + json.dumps(carried, ensure_ascii=False)

    async def _exchange(self, night: _Night, day: int, wolves: list[int]) -> None:
        over: set[int] = set()
        for turn in range(self.rounds):
            for seat in wolves:
                if seat in over:
                    continue
                member, obs = night.arrived[seat]
                info = member.channel.info(obs)
                info["remain_count"] = self.rounds - turn - 1  # as the server: this one counted
                info["remain_length"] = None
                info["remain_skip"] = 0
                packet = {"request": "WHISPER", "info": info, "whisper_history": self.history(seat)}
                answer = await member.whisper(packet)
                said = "" if answer is None else " ".join(answer_text(answer).split())
                if said in ("", OVER, SKIP):
                    over.add(seat)
                    text = OVER
                else:
                    text = one_line(truncated(said, obs.names[1:], obs.names[seat]))
                line = {
                    "idx": len(self.lines),
                    "day": day,
                    "turn": turn,
                    "agent": obs.names[seat],
                    "text": text,
                    "skip": False,
                    "over": text == OVER,
                }
                self.lines.append(line)
                night.lines.append(line)
            if len(over) == len(wolves):
                break


def whispers_in(content: str | None) -> list[dict[str, Any]]:
    """The whispers an ATTACK answer's text carries (none if it carries none)."""
    if not content or not content.startswith(WHISPER_PREFIX):
        return []
    try:
        lines = json.loads(content.removeprefix(WHISPER_PREFIX))
    except ValueError:
        return []
    return [line for line in lines if isinstance(line, dict)] if isinstance(lines, list) else []
