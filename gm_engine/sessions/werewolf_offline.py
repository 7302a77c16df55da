"""The offline model's werewolf player: the engine's offline agents, speaking in persona.

:func:`decide_werewolf` is registered with :mod:`gm_engine.llm.offline` under the kind
``"werewolf"``. It answers a persona's request from the :class:`PersonaTurnContext` the
session passed with it: that persona's own observation (the same information as its
public and private view, from which the prompt was rendered), its legal actions, its
notes and its persona data, never anything else. The choice itself is the werewolf
engine's :class:`~gm_engine.werewolf.agents.OfflineAgent`'s; the words are composed by
:mod:`gm_engine.sessions.voices` from that persona's phrase book, its public grounds and the
agent's suspicion scores (the werewolf lines only while its own role is 人狼), and every tool
call carries the public facts its words cite (``cites``, checked by
:func:`gm_engine.werewolf.citations.citation_problems`). The persona file's sample lines are
for the model personas' prompts.

:class:`AutoHuman` plays P1 for ``gm werewolf play --auto``: it is a
:class:`~gm_engine.sessions.base.HumanInput` whose answers come from an offline agent that
sees P1's observation, typed as the commands a human would type; its words come from the
``player`` phrase book the same way.

``"werewolf_narrator"`` answers the GM narrator's requests from the public facts
(:mod:`gm_engine.sessions.narration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gm_engine.dice.result import Locale
from gm_engine.llm.base import ModelRequest, ModelResponse
from gm_engine.llm.offline import offline_calls, register_offline_decider
from gm_engine.messages import LOCALES, render
from gm_engine.messages.texts import NarratorGameStarts, VoteReasonPrompt
from gm_engine.sessions.base import HumanDefaults
from gm_engine.sessions.personas import MAX_NOTE_CHARS, MAX_NOTE_LINES, Notes, Persona
from gm_engine.tools.werewolf import seat_label
from gm_engine.werewolf.actions import (
    Action,
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Guard,
    RequestClaim,
    Speak,
    StateResult,
    Vote,
)
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.grounds import Grounds
from gm_engine.werewolf.log import PublicEntry
from gm_engine.werewolf.records import Role
from gm_engine.werewolf.views import Observation

if TYPE_CHECKING:
    from gm_engine.sessions.voices import Composer, Line

# The phrase books (gm_engine.sessions.voices, .narration) are imported by the functions that
# compose words, when an offline seat or a fallback first speaks: a session whose seats are all
# played by a model (and the replay of one) never reads them.

TaskKind = Literal["discussion", "answer", "vote", "night", "pre_divination"]


@dataclass
class PersonaTurnContext:
    """What a persona's turn is decided from: exactly the facts its prompt was rendered from.

    ``agent`` is that seat's offline agent; its state is built from this seat's own
    observations and its own dice only.
    """

    seat: int
    persona: Persona
    notes: Notes
    observation: Observation
    legal: tuple[Action, ...]
    task: TaskKind
    turn: int
    agent: OfflineAgent
    offline_kind: str = field(default="werewolf", init=False)


@dataclass
class NarratorContext:
    """The narrator's request: the event it comments on and the public facts (P1's public
    log and the table's names; nothing private)."""

    event: str
    day: int
    log: tuple[PublicEntry, ...] = ()
    names: tuple[str, ...] = ()
    opening: bool = False
    """The event is the game's start (the first line opens the game, never "continues")."""
    locale: Locale = "ja"
    """The table's language (the offline narrator speaks it)."""
    offline_kind: str = field(default="werewolf_narrator", init=False)


def _pick(lines: Sequence[str], *key: object) -> str:
    """One of ``lines``, chosen by a stable hash of ``key`` (same game, same words)."""
    from gm_engine.sessions.voices import stable_pick

    return stable_pick(lines, *key)


#: The phrase book of P1 when an offline agent plays it (``--auto``).
PLAYER_BOOK = "player"


def composer_for(
    book_id: str,
    obs: Observation,
    agent: OfflineAgent,
    turn: int,
    *,
    first_person: str = "私",
    phrases: Path | None = None,
) -> Composer:
    """The composer of ``obs.seat``'s lines: its public grounds, its agent's scores, its book.

    Call it after the agent chose this turn's action from ``obs`` (see
    :meth:`OfflineAgent.suspicion`). A 人狼's partner is passed only while its own role is 人狼.
    """
    from gm_engine.sessions.voices import Composer, default_phrases_dir, load_book, load_clauses

    directory = phrases if phrases is not None else default_phrases_dir()
    scores = agent.suspicion(obs)
    trusts = {seat: agent.trusts(seat) for seat, _ in obs.claims}
    partners = obs.partners if obs.role is Role.WEREWOLF else ()
    return Composer(
        book=load_book(directory, book_id),
        clauses=load_clauses(directory),
        grounds=Grounds.of(obs),
        scores=scores,
        trusts=trusts,
        partners=partners,
        salt=agent.source.seed,
        turn=turn,
        first_person=first_person,
    )


def _composer(ctx: PersonaTurnContext) -> Composer:
    persona = ctx.persona
    return composer_for(persona.id, ctx.observation, ctx.agent, ctx.turn, first_person=persona.first_person)


def speech_line(compose: Composer) -> Line:
    """A free-talk line not said before in this game, with the facts it cites."""
    from gm_engine.sessions.voices import unsaid

    return unsaid(compose, compose.speech, compose.grounds.spoken_texts)


def vote_line(compose: Composer, vote: Vote) -> Line:
    """A vote reason for ``vote`` not given before in this game, with the facts it cites."""
    from gm_engine.sessions.voices import MAX_REASON_CHARS, unsaid

    focus = "票" in vote.reason  # the agent concentrates the village's votes
    return unsaid(
        compose,
        lambda: compose.vote_reason(vote.target, focus),
        compose.grounds.reasons,
        limit=MAX_REASON_CHARS,
    )


def speech_for(ctx: PersonaTurnContext) -> str:
    """A free-talk line in the persona's voice, about the agent's current suspicion."""
    return speech_line(_composer(ctx)).text


def _said(compose: Composer, kind: str, **values: str) -> Line:
    from gm_engine.sessions.voices import unsaid

    return unsaid(compose, lambda: compose.plain(kind, **values), compose.grounds.spoken_texts)


def _cites(line: Line) -> list[dict[str, Any]]:
    return [cite.model_dump() for cite in line.cites]


def tool_call_for(ctx: PersonaTurnContext, action: Action) -> tuple[str, dict[str, Any]]:
    """The tool call that plays ``action``, with words in the persona's voice and the facts
    they cite (``cites``)."""
    if isinstance(action, Attack):
        return "attack", {"target": seat_label(action.target)}
    if isinstance(action, Divine):
        return "divine", {"target": seat_label(action.target)}
    if isinstance(action, Guard):
        return "guard", {"target": seat_label(action.target)}
    compose = _composer(ctx)
    if isinstance(action, Speak):
        line = speech_line(compose)
        return "speak", {"text": line.text, "cites": _cites(line)}
    if isinstance(action, Claim):
        args: dict[str, Any] = {"role": action.role.label}
        line = _said(compose, "claim", role=action.role.label)
        if action.target is not None and action.colour is not None:
            args["target"] = seat_label(action.target)
            args["result"] = action.colour.label
            result = compose.pick("result", action.target).format(
                target=compose.name(action.target), color=action.colour.label
            )
            line.text = line.text + result
        args["text"] = line.text
        args["cites"] = _cites(line)
        return "claim", args
    if isinstance(action, StateResult):
        line = _said(compose, "result", target=compose.name(action.target), color=action.colour.label)
        args = {"target": seat_label(action.target), "result": action.colour.label, "text": line.text}
        args["cites"] = _cites(line)
        return "state_result", args
    if isinstance(action, RequestClaim):
        kind = "request_seer" if action.role is Role.SEER else "request_medium"
        line = _said(compose, kind)
        return "request_claim", {"role": action.role.label, "text": line.text, "cites": _cites(line)}
    if isinstance(action, Decline):
        line = _said(compose, "decline")
        return "decline", {"text": line.text, "cites": _cites(line)}
    if isinstance(action, Vote):
        line = vote_line(compose, action)
        return "vote", {"target": seat_label(action.target), "reason": line.text, "cites": _cites(line)}
    raise ValueError(f"no tool plays {type(action).__name__}")


def notes_after_vote(ctx: PersonaTurnContext, target: int, reason: str) -> list[str]:
    """The notes the offline persona keeps: one line per day's vote, the latest five."""
    line = f"{ctx.observation.day}日目: {ctx.observation.names[target]}に投票"
    if reason:
        line += f"（{reason}）"
    lines = [*ctx.notes.lines, line[:MAX_NOTE_CHARS]]
    return lines[-MAX_NOTE_LINES:]


def decide_action(ctx: PersonaTurnContext) -> Action:
    """The offline agent's choice among the legal actions of this turn."""
    return ctx.agent.choose(ctx.observation, list(ctx.legal))


def decide_werewolf(request: ModelRequest, context: object | None) -> ModelResponse:
    """The offline persona's answer: an optional ``update_notes`` then one action's tool call."""
    if not isinstance(context, PersonaTurnContext):
        raise TypeError("the werewolf offline decider needs a PersonaTurnContext")
    action = decide_action(context)
    calls: list[tuple[str, dict[str, Any]]] = []
    call = tool_call_for(context, action)
    if isinstance(action, Vote) and context.observation.stage != "runoff":
        notes = notes_after_vote(context, action.target, str(call[1]["reason"]))
        calls.append(("update_notes", {"lines": notes}))
    calls.append(call)
    return ModelResponse(content=None, tool_calls=offline_calls(request, calls))


#: The narrator's event at the start of a game (its first line opens the game), in Japanese.
GAME_START_EVENT = render(NarratorGameStarts())


def decide_narration(request: ModelRequest, context: object | None) -> ModelResponse:
    """The offline GM narrator: what P1 can see, in a line or two that steers nothing, in the
    table's language."""
    from gm_engine.sessions.narration import load_narrator, narration
    from gm_engine.sessions.voices import default_phrases_dir

    if not isinstance(context, NarratorContext) or not context.names:
        if isinstance(context, NarratorContext):
            day, book = context.day, load_narrator(default_phrases_dir(), context.locale)
        else:
            day, book = request.day, load_narrator(default_phrases_dir())
        return ModelResponse(content=_pick(book.closing, day).format(day=book.day(day)))
    book = load_narrator(default_phrases_dir(), context.locale)
    opening = context.opening or context.event == GAME_START_EVENT
    return ModelResponse(content=narration(book, context.log, context.names, context.day, opening))


register_offline_decider("werewolf", decide_werewolf)
register_offline_decider("werewolf_narrator", decide_narration)


# ---------------------------------------------------------------- P1 played by an agent


def command_for(action: Action, obs: Observation) -> str:
    """The line a human at the terminal would type to play ``action``."""
    if isinstance(action, ChooseRole):
        return str(int(action.role))
    if isinstance(action, Speak):
        return action.text or "/pass"
    if isinstance(action, Claim):
        result = ""
        if action.target is not None and action.colour is not None:
            result = f" {seat_label(action.target)} {action.colour.label}"
        return f"/co {action.role.label}{result}"
    if isinstance(action, StateResult):
        return f"/result {seat_label(action.target)} {action.colour.label}"
    if isinstance(action, RequestClaim):
        return f"/request {action.role.label}"
    if isinstance(action, Decline):
        return "/decline"
    if isinstance(action, Vote):
        return seat_label(action.target)
    if isinstance(action, Attack | Divine | Guard):
        return seat_label(action.target)
    raise ValueError(f"no command plays {type(action).__name__}")


#: The vote-reason question in every locale (the seat asks it right after a vote is chosen).
_REASON_PROMPTS = frozenset(render(VoteReasonPrompt(), locale) for locale in LOCALES)


class AutoHuman(HumanDefaults):
    """P1 played by an offline agent (``--auto``): answers every question as typed commands.

    The session calls :meth:`observe` with P1's own observation and legal actions before
    each question; the agent never sees anything else.
    """

    #: It answers without waiting for a person, so a session may ask it on its own event
    #: loop (a person is asked on a worker thread while the personas' requests run).
    answers_at_once = True

    def __init__(self, agent: OfflineAgent) -> None:
        self.agent = agent
        self._observation: Observation | None = None
        self._legal: tuple[Action, ...] = ()
        self._pending_reason: str = ""

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """What P1 knows and may do now (a werewolf :class:`Observation` and its actions).

        Raises:
            TypeError: it is shown something other than a werewolf observation.
        """
        if not isinstance(observation, Observation):
            raise TypeError(f"AutoHuman plays werewolf only; it was shown a {type(observation).__name__}")
        self._observation = observation
        self._legal = tuple(a for a in legal if isinstance(a, Action))

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Answer the question as P1's agent would."""
        if prompt in _REASON_PROMPTS:
            reason = self._pending_reason or "なんとなく気になるから"
            self._pending_reason = ""
            return reason
        if self._observation is None or not self._legal:
            return choices[0] if choices else "/pass"
        obs = self._observation
        action = self.agent.choose(obs, list(self._legal))
        if isinstance(action, Speak | Vote):
            # P1's words come from its own view and its agent's scores, like a persona's
            compose = composer_for(PLAYER_BOOK, obs, self.agent, len(obs.public_log))
            if isinstance(action, Vote):
                self._pending_reason = vote_line(compose, action).text
            elif action.text:
                action = Speak(action.actor, speech_line(compose).text)
        return command_for(action, obs)


# ---------------------------------------------------------------- a model that reads only the request


def first_choice_calls(
    tools: Sequence[Any], *, text: str = "うーん、まだ様子見かな。"
) -> list[tuple[str, dict[str, Any]]]:
    """The tool call a trivial model makes from the offered tools alone (for fake servers).

    ``tools`` are OpenAI ``tools`` entries or tool spec dicts (``name``/``parameters``). It
    picks, in order of preference, a vote or night action, ``decline``, ``speak``, then a
    ``claim`` (the only choice of a real role holder answering a CO要求), filling each
    field with the first value of its enum. It never reads a prompt, so it knows nothing.
    """
    specs: dict[str, dict[str, Any]] = {}
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(function, dict) and "name" in function:
            specs[str(function["name"])] = dict(function.get("parameters", {}))
    for name in ("vote", "attack", "divine", "guard", "decline", "speak", "claim"):
        if name not in specs:
            continue
        args: dict[str, Any] = {}
        properties = specs[name].get("properties", {})
        wanted = [*specs[name].get("required", []), *(k for k in properties if k in ("target", "result"))]
        for field_name in wanted:
            schema = properties.get(field_name, {})
            enum = _first_enum(schema)
            if enum is not None:
                args[field_name] = enum
            elif field_name in ("text", "reason"):
                args[field_name] = text
        if name in ("speak",) or "text" in properties:
            args.setdefault("text", text)
        return [(name, args)]
    return []


def _first_enum(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    for option in schema.get("anyOf", []):
        found = _first_enum(option)
        if found is not None:
            return found
    return None
