"""One seat played by an AIWolf agent: :class:`AIWolfSeat`, the seat's decision source.

The werewolf session asks every seat that is not P1 through a
:class:`~gm_engine.llm.base.ModelBackend` (``WerewolfSession(seat_backends=...)``): the
request, and as context the seat's :class:`~gm_engine.sessions.werewolf_offline.PersonaTurnContext`
(its own observation and its legal actions). :class:`AIWolfSeat` is such a backend: it
turns the turn into the protocol's packets, sends them over its :class:`AgentLink`, and
answers the session with the one tool call the agent's answer stands for. The session,
and the engine behind it, stay the referee: the call is checked and applied like a
persona's, and the transcript records it like a model's answer, so ``gm replay`` replays
the game without the agent.

An agent that does not answer in time, answers what cannot be played, or is gone, makes
the answer unreadable (:class:`~gm_engine.llm.base.MalformedAnswerError`): the session's
turn runner then plays the seat's offline persona for that turn and records why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from gm_engine.aiwolf.protocol import (
    OVER,
    SKIP,
    AnswerError,
    Request,
    SeatChannel,
    TalkRules,
    answer_text,
    seat_named,
    truncated,
)
from gm_engine.aiwolf.roster import Roster
from gm_engine.aiwolf.whisper import WhisperChannel
from gm_engine.llm.base import BackendDefaults, MalformedAnswerError, ModelRequest, ModelResponse, ToolCall
from gm_engine.sessions.werewolf_offline import PersonaTurnContext
from gm_engine.tools.werewolf import MAX_SPEECH_CHARS, seat_label
from gm_engine.werewolf import (
    Action,
    Attack,
    Claim,
    Decline,
    Divine,
    Guard,
    RequestClaim,
    Speak,
    StateResult,
    Vote,
)
from gm_engine.werewolf.phrases import Speech as PlainTalk
from gm_engine.werewolf.phrases import Table, meaning_action, read_line

#: The reason a vote of an agent carries (the protocol has none; our tally shows one).
VOTE_REASON = "（AIWolfエージェントの投票）"


class AgentLink(Protocol):
    """The connection to one agent."""

    @property
    def name(self) -> str:
        """The name the agent gave at NAME."""
        ...

    async def notify(self, packet: dict[str, Any]) -> None:
        """Send a packet the agent does not answer (nothing happens if it is gone)."""
        ...

    async def ask(self, packet: dict[str, Any]) -> str | None:
        """Send a packet and wait for the answer: None if none came in time, or the agent is gone."""
        ...

    @property
    def connection_number(self) -> int:
        """Which connection the agent is on (it goes up when an agent connects anew, at a
        table whose seats agents may leave and rejoin): a new connection is a new
        conversation, told the game afresh from INITIALIZE on."""
        ...


class AIWolfSeat(BackendDefaults):
    """The decision source of one seat played by an AIWolf agent (a :class:`ModelBackend`)."""

    name = "aiwolf"

    def __init__(
        self,
        seat: int,
        link: AgentLink,
        rules: TalkRules,
        seed: int,
        profile: str | None = None,
        whispers: WhisperChannel | None = None,
    ) -> None:
        self.seat = seat
        self.link = link
        self._channel = SeatChannel(seat=seat, rules=rules, seed=seed, profile=profile)
        self._connection = link.connection_number
        self.whispers = whispers
        #: set by :func:`~gm_engine.aiwolf.host.play_hosted`: tells every agent seat of each day
        self.roster: Roster | None = None

    @property
    def channel(self) -> SeatChannel:
        """What the agent on the seat's current connection has been sent. An agent that
        connects anew is told the game afresh (INITIALIZE, the day's notices, the whole
        talk and its whispers, as the sample agent forgets its history at INITIALIZE); the
        seat's talk counts of the day stay, since its turns were taken meanwhile."""
        number = self.link.connection_number
        if number != self._connection:
            self._connection = number
            self._channel = self._channel.afresh()
            if self.whispers is not None:
                self.whispers.forget(self.seat)
        return self._channel

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Ask the agent for this turn; the answer as one tool call.

        Raises:
            MalformedAnswerError: no usable answer (timeout, gone, a name that is not a
                choice, words the rules refuse): the persona's offline play takes the turn.
        """
        if not isinstance(context, PersonaTurnContext) or context.seat != self.seat:
            raise MalformedAnswerError(f"P{self.seat}: no turn of this seat to ask the AIWolf agent about")
        if any(m.get("role") in ("tool", "assistant") for m in request.messages):
            # this turn was answered already and the answer could not be played (the engine
            # refused it, or it named no choice): the protocol has no way to ask again
            raise MalformedAnswerError(f"P{self.seat}: the AIWolf agent's answer could not be played")
        obs, legal = context.observation, context.legal
        if request.phase == "pre_divination":
            obs = obs._replace(day=0)  # the protocol's day 0: the seer's first divination
        kind = _request_of(request.phase, legal)
        if self.roster is not None:
            await self.roster.before(obs.day, kind)
        else:
            for packet in self.channel.notices(obs, kind):
                await self.link.notify(packet)
        if kind == "TALK":
            self.channel.spend(obs, answering=request.phase == "answer")
        if kind == "TALK" and self.channel.over_day == obs.day:
            return _call(context.turn, *_talk_call(OVER, self.seat, legal, obs))
        carried: str | None = None
        packet = self.channel.request(obs, kind)
        if kind == "ATTACK" and self.whispers is not None:
            carried = await self.whispers.night(self, obs)
            packet["whisper_history"] = self.whispers.history(self.seat)
        answer = await self.link.ask(packet)
        if answer is None:
            if carried is not None:
                return ModelResponse(content=carried)  # as for an answer that names no choice
            raise MalformedAnswerError(
                f"P{self.seat}: the AIWolf agent {self.link.name} did not answer {kind}"
            )
        if kind == "TALK":
            said = self.channel.talked(obs.day, answer_text(answer))
            return _call(context.turn, *_talk_call(said, self.seat, legal, obs))
        names = dict(enumerate(obs.names))
        targets = [a.target for a in legal if isinstance(a, Vote | Attack | Divine | Guard)]
        try:
            target = seat_named(answer, names, sorted(set(targets)))
        except AnswerError as exc:
            if carried is not None:
                # the night's whispers stay on record: a text-only answer, and the persona
                # plays the attack when the turn asks again
                return ModelResponse(content=carried)
            raise MalformedAnswerError(f"P{self.seat}: {exc}") from None
        if kind == "VOTE":
            return _call(context.turn, "vote", {"target": seat_label(target), "reason": VOTE_REASON})
        return _call(context.turn, kind.lower(), {"target": seat_label(target)}, carried)

    async def notify(self, packet: dict[str, Any]) -> None:
        """Send the agent a packet it does not answer."""
        await self.link.notify(packet)

    async def whisper(self, packet: dict[str, Any]) -> str | None:
        """Ask the agent one WHISPER (see :mod:`.whisper`)."""
        return await self.link.ask(packet)

    async def finish(self, packet: dict[str, Any]) -> None:
        """Send the game's FINISH packet."""
        await self.link.notify(packet)


def _request_of(phase: str, legal: Sequence[Action]) -> Request:
    if phase in ("discussion", "answer"):
        return "TALK"
    if phase in ("vote", "runoff"):
        return "VOTE"
    if legal and isinstance(legal[0], Attack):
        return "ATTACK"
    if legal and isinstance(legal[0], Guard):
        return "GUARD"
    return "DIVINE"


def _call(turn: int, name: str, arguments: dict[str, Any], content: str | None = None) -> ModelResponse:
    call = ToolCall(id=f"aiwolf-{turn}", name=name, arguments=json.dumps(arguments, ensure_ascii=False))
    return ModelResponse(content=content, tool_calls=(call,))


def _talk_call(said: str, seat: int, legal: Sequence[Action], obs: Any) -> tuple[str, dict[str, Any]]:
    """The tool call of a talk answer: read by the same reader as the human's words (a sure
    claim, result, CO要求 or pass is that action; anything else is speech), cut as the
    server cuts a talk."""
    names = obs.names
    passing = said in (OVER, SKIP, "")
    text = "" if passing else truncated(" ".join(said.split()), names[1:], names[seat])[:MAX_SPEECH_CHARS]
    claims = {s: r for s, r in obs.claims}
    table = Table.of({s: names[s] for s in range(1, 10)}, obs.awaiting_claim, claims.get(seat))
    action: Action = Speak(seat, text)
    if text:
        reading = read_line(text, table)
        if reading.sure and not isinstance(reading.meaning, PlainTalk):
            action = meaning_action(reading.meaning, seat, text)
    elif passing:
        action = Speak(seat, "")
    if obs.awaiting_claim is not None:
        return _answer_call(action, legal, text)
    if isinstance(action, Speak):
        # a pass is said as a pass: the session reads 「パス」 as one
        return "speak", {"text": action.text or "パス"}
    return _claim_call(action, text)


def _answer_call(action: Action, legal: Sequence[Action], text: str) -> tuple[str, dict[str, Any]]:
    """An answer to a CO要求: the claim the words make if it is a legal one, else a decline
    (which the rules refuse to the one who must come out: its persona's play answers)."""
    if isinstance(action, Claim | StateResult) and any(_same_claim(action, a) for a in legal):
        return _claim_call(action, text)
    if not any(isinstance(a, Decline) for a in legal):
        raise MalformedAnswerError(f"P{action.actor}: the words do not make the claim the rules require")
    return "decline", {"text": text}


def _same_claim(said: Action, legal: Action) -> bool:
    if isinstance(said, Claim) and isinstance(legal, Claim):
        return (said.role, said.target, said.colour) == (legal.role, legal.target, legal.colour)
    if isinstance(said, StateResult) and isinstance(legal, StateResult):
        return (said.target, said.colour) == (legal.target, legal.colour)
    return False


def _claim_call(action: Action, text: str) -> tuple[str, dict[str, Any]]:
    if isinstance(action, Claim):
        args: dict[str, Any] = {"role": action.role.label, "text": text}
        if action.target is not None and action.colour is not None:
            args["target"] = seat_label(action.target)
            args["result"] = action.colour.label
        return "claim", args
    if isinstance(action, StateResult):
        return "state_result", {
            "target": seat_label(action.target),
            "result": action.colour.label,
            "text": text,
        }
    if isinstance(action, RequestClaim):
        return "request_claim", {"role": action.role.label, "text": text}
    if isinstance(action, Decline):
        return "decline", {"text": text}
    return "speak", {"text": text or "パス"}
