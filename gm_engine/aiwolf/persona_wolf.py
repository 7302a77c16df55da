"""A persona 人狼 in the whispers of its AIWolf partner: :class:`PersonaWolf`.

At a table with AIWolf agents every persona seat is asked through a :class:`PersonaWolf`,
which hands each turn to the persona's own backend unchanged, except a 人狼's night
attack while its living partner is an agent: then the persona takes part in the night's
whispers (:class:`~.whisper.WhisperChannel`). The agents whisper first; the persona's
backend is asked its attack with their whispers added to its prompt (a model persona reads
them; the offline persona decides from its own observation, as always), and its choice
goes back to the agents as its whisper (``今夜は{name}を襲撃したい``), in their
``whisper_history`` and nobody else's. The lowest agent seat's ATTACK answer carries the
night's whispers, the persona's included, so the transcript holds them.
"""

from __future__ import annotations

import json
from typing import Any

from gm_engine.aiwolf.protocol import OVER, SeatChannel, TalkRules
from gm_engine.aiwolf.whisper import WhisperChannel
from gm_engine.llm.base import ModelBackend, ModelRequest, ModelResponse, user_message
from gm_engine.sessions.werewolf_offline import PersonaTurnContext
from gm_engine.werewolf import Attack
from gm_engine.werewolf.views import Observation

#: How the persona is told its partner's whispers.
HEARD_HEADER = "仲間の人狼の囁き:"


class PersonaWolf:
    """The decision source of persona seat ``seat`` at a table with AIWolf agents."""

    def __init__(
        self, seat: int, backend: ModelBackend, whispers: WhisperChannel, rules: TalkRules, seed: int
    ) -> None:
        self.seat = seat
        self.backend = backend
        self.name = backend.name
        self.whispers = whispers
        self.channel = SeatChannel(seat=seat, rules=rules, seed=seed)
        whispers.persona_seats.add(seat)
        self._turn: tuple[ModelRequest, PersonaTurnContext] | None = None
        self._answer: ModelResponse | None = None

    @property
    def keeps_state(self) -> bool:
        """As the persona's backend."""
        return self.backend.keeps_state

    def prepare(self) -> None:
        """As the persona's backend."""
        self.backend.prepare()

    async def aclose(self) -> None:
        """As the persona's backend."""
        await self.backend.aclose()

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """The persona's backend's answer; a night attack of a 人狼 with an agent partner
        is asked inside the night's whispers (see the module doc).

        Raises:
            Whatever the persona's backend raises.
        """
        attacking = (
            isinstance(context, PersonaTurnContext)
            and context.seat == self.seat
            and bool(context.legal)
            and isinstance(context.legal[0], Attack)
            # a second asking of the same turn (the first answer could not be played)
            and not any(m.get("role") in ("tool", "assistant") for m in request.messages)
        )
        if not attacking:
            return await self.backend.complete(request, context)
        assert isinstance(context, PersonaTurnContext)
        self._turn, self._answer = (request, context), None
        await self.whispers.night(self, context.observation)
        answer, self._turn, self._answer = self._answer, None, None
        if answer is None:  # no whispers tonight: asked as any turn
            return await self.backend.complete(request, context)
        return answer

    async def whisper(self, packet: dict[str, Any]) -> str | None:
        """One WHISPER of the night: the first asks the persona's backend its attack, with
        the whispers heard so far; its choice is its whisper, then Over."""
        if self._answer is not None or self._turn is None:
            return OVER
        request, context = self._turn
        heard = [f"{w['agent']}: {w['text']}" for w in packet.get("whisper_history") or []]
        if heard:
            told = user_message("\n".join([HEARD_HEADER, *heard]))
            request = request.model_copy(update={"messages": (*request.messages, told)})
        self._answer = await self.backend.complete(request, context)
        target = _target_of(self._answer, context.observation)
        return f"今夜は{target}を襲撃したい" if target else OVER


def _target_of(answer: ModelResponse, obs: Observation) -> str | None:
    """The name of the seat an attack answer chose (None: it chose none that can be read)."""
    for call in answer.tool_calls:
        try:
            arguments = json.loads(call.arguments)
        except ValueError:
            continue
        label = str(arguments.get("target", "")) if isinstance(arguments, dict) else ""
        if label.startswith("P") and label[1:].isdigit() and 1 <= int(label[1:]) <= 9:
            return obs.names[int(label[1:])]
    return None
