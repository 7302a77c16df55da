"""The MCP session: an MCP client (a chat app's model, an agent) calls the engine's tools one
at a time, and the engine holds every number.

The client is played as the model of a GM turn: each ``tools/call`` is one
:class:`~gm_engine.tools.base.TurnRunner` turn whose backend answers with exactly that call
(:class:`ClientCall`), with no retry (``retry_budget=0``) and no fallback. So a call goes
through the same validation, narrowing and refusals as a model GM's (an unknown or
out-of-phase tool, arguments outside the legal choices, an engine's refusal), an error
changes nothing, and the turn's events (``model_request`` with the tools offered,
``model_response`` with the call, ``tool_result``, ``dice``, ``state``) are what the
transcript records. The client leaving is recorded as one more turn whose answer calls
nothing; a replay (:func:`run_mcp_session`, the registered runner) plays the recorded
answers turn by turn until that one.

What is offered (:meth:`McpGame.offers`) follows the game: at first the free-form
adventure's tools (any system's dice, character creation, fights) and ``start_scenario``;
once a scenario is chosen, its creation dialogue (``answer_creation``), then its scenes,
checks, fights and endings (the tools of :class:`~gm_engine.sessions.adventure_scenario.
ScenarioAdventure`); after the end, only the dice and the status.

Errors: :class:`~gm_engine.sessions.base.SessionError` (bad options).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gm_engine.adventure.brief import gm_brief
from gm_engine.adventure.creation import FantasyCreation, GuidedCreation
from gm_engine.adventure.scenario import GameSystem, Scenario, shipped_scenarios
from gm_engine.combat.render import master_data
from gm_engine.dice.result import RollResult
from gm_engine.events import EventSink
from gm_engine.llm.base import (
    BackendDefaults,
    JsonDict,
    ModelRequest,
    ModelResponse,
    ToolCall,
    system_message,
)
from gm_engine.llm.prompts import render_prompt
from gm_engine.messages import render
from gm_engine.messages.texts import McpSummary, McpUnfinished
from gm_engine.sessions.adventure import Adventure, AdventureOptions
from gm_engine.sessions.adventure_scenario import ScenarioAdventure
from gm_engine.sessions.base import (
    HumanDefaults,
    SessionError,
    SessionIO,
    SessionOutcome,
    SessionSpec,
    register_session,
)
from gm_engine.sessions.roll import NoModelBackend
from gm_engine.tools.base import ModelRetry, Offer, Tool, ToolOutput, TurnResult, TurnRunner
from gm_engine.tools.dice import any_system_dice_offer

#: Who the transcript says acted: the MCP client.
ACTOR = "client"

#: The one message of every turn's request (the client keeps its own conversation).
_MESSAGES: tuple[JsonDict, ...] = (
    system_message("An MCP client calls the engine's tools; each request is one call."),
)

#: What the answer of the client's leaving says (it calls nothing).
LEFT = "(the client closed the session)"


class McpOptions(BaseModel):
    """Options of an MCP session: the most calls it takes (the dice tool names its system on
    every call)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_calls: int = Field(default=100_000, ge=1)


class StartScenario(Tool):
    """Play one of the shipped scenarios instead of the free-form adventure (only before
    anything else happened): the engine then asks the character-creation questions
    (answer them with answer_creation), and offers the scenario's scenes, checks, fights
    and endings."""

    tool_name: ClassVar[str] = "start_scenario"
    scenario: str = Field(description="the scenario's id")


class AnswerCreation(Tool):
    """Answer the engine's character-creation question with the player's words (a name,
    a number or a choice from the list the question shows)."""

    tool_name: ClassVar[str] = "answer_creation"
    answer: str = Field(min_length=1, max_length=200, description="the player's answer, as they gave it")


class _NoHuman(HumanDefaults):
    """The human of an MCP session: there is none (the client's user talks to the client)."""

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Refuse.

        Raises:
            SessionError: always; nothing in an MCP session asks a human.
        """
        raise SessionError("an MCP session has no human to ask")


class ClientCall(BackendDefaults):
    """The backend of one turn: it answers with the client's call (or, for ``None``, with the
    client's leaving: no call at all)."""

    name = "mcp-client"

    def __init__(self, call: ToolCall | None) -> None:
        self.call = call

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """The client's call as the model's answer."""
        if self.call is None:
            return ModelResponse(content=LEFT)
        return ModelResponse(tool_calls=(self.call,))


@dataclass(frozen=True)
class CallOutcome:
    """What one call did: accepted or not, the text for the client, the structured data, and
    the engine's lines shown to the player during it that the text does not hold."""

    ok: bool
    text: str
    data: JsonDict
    shown: tuple[str, ...] = ()
    structured: bool = False
    """Whether ``data`` is the tool's declared output (:attr:`Tool.output_model`)."""


class McpGame:
    """The table an MCP client plays on: a free-form adventure, or a scenario once chosen."""

    def __init__(self, spec: SessionSpec, sink: EventSink) -> None:
        try:
            self.options = McpOptions.model_validate(spec.options)
            adventure_options = AdventureOptions()
        except (ValidationError, ValueError) as exc:
            raise SessionError(f"bad mcp session options: {exc}") from None
        self.spec = spec
        self.sink = sink
        self.shown: list[str] = []
        self.io = SessionIO(backend=NoModelBackend(), human=_NoHuman(), sink=sink, show=self.shown.append)
        self.adventure: Adventure = Adventure(spec, self.io, adventure_options)
        self.creation: FantasyCreation | GuidedCreation | None = None
        self.calls = 0

    # -- reading ------------------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario | None:
        """The scenario in play (None: the free-form adventure)."""
        return self.adventure.scenario if isinstance(self.adventure, ScenarioAdventure) else None

    def phase(self) -> str:
        """Where the game stands, in a word the transcript and the client read."""
        if self.adventure.finished:
            return "ended"
        if self.creation is not None:
            return "creation"
        table_phase = self.adventure.table.phase
        if table_phase is not None:
            return f"battle:{table_phase.value}"
        if self.scenario is not None:
            return "story"
        return "start" if self._fresh() else "free"

    def _fresh(self) -> bool:
        return (
            self.scenario is None
            and not self.adventure.table.party
            and not self.adventure.source.history
            and not self.adventure.finished
        )

    def state_hash(self) -> str:
        """The whole table's state: the adventure's, the dice drawn, whether it ended and where
        the creation dialogue stands."""
        adventure = self.adventure
        if isinstance(adventure, ScenarioAdventure):
            inner = adventure.state_hash()
        else:
            inner = adventure.table.state_hash()
        creation = repr(_state_of(self.creation)) if self.creation is not None else ""
        digest = hashlib.sha256(creation.encode("utf-8")).hexdigest()[:16]
        return f"{inner}:{len(adventure.source.history)}:{adventure.finished}:{digest}"

    def status_text(self) -> str:
        """The compact status (§13.2) of the party, and the battle's phase and enemies."""
        return self.adventure.status_text()

    def master_data(self) -> str:
        """Every character's master data in §13.1's format (or the sheet of a scenario's
        investigator or hero)."""
        adventure = self.adventure
        if isinstance(adventure, ScenarioAdventure) and adventure.system is not GameSystem.FAST_COMBAT:
            return adventure.status_text()
        party = adventure.table.current_party()
        return "\n\n".join(master_data(c) for c in party) or "（キャラクターはまだいない）"

    def battle_log(self) -> str:
        """The battle's current log in §13's format (BATTLE_SETUP, ROLL_LOG, ...), or a line
        saying there is no battle."""
        battle = self.adventure.table.battle
        if battle is None:
            return "（戦闘は行われていない）"
        return battle.current_log().text

    # -- what the client may do now --------------------------------------------------------------

    def offers(self) -> list[Offer[Any]]:
        """The tools legal now."""
        dice = any_system_dice_offer(self.adventure.source, self._rolled)
        if self.adventure.finished:
            return [dice, *(o for o in self.adventure.offers() if o.name == "show_status")]
        if self.creation is not None:
            return [dice, Offer.of(AnswerCreation, self._answer_creation)]
        offers: list[Offer[Any]] = [dice, *(o for o in self.adventure.offers() if o.name != "roll_dice")]
        if self._fresh():
            offers.append(Offer.of(StartScenario, self._start_scenario, scenario=sorted(shipped_scenarios())))
        return offers

    def _rolled(self, result: RollResult, reason: str) -> None:
        # the adventure's own record of a roll (its dice and state events)
        self.adventure._rolled(result, reason)

    def _start_scenario(self, args: StartScenario) -> ToolOutput:
        if not self._fresh():
            raise ModelRetry("a scenario is chosen before anything else happens in the session")
        options = AdventureOptions(scenario=args.scenario)
        # nothing was drawn yet, so the scenario's own source (from the same seed) is where
        # the free-form one stood
        adventure = ScenarioAdventure(self.spec, self.io, options)
        scenario = adventure.scenario
        self.adventure = adventure
        if adventure.system is GameSystem.FAST_COMBAT:
            self.creation = FantasyCreation(scenario.recommended_rank)
        else:
            assert scenario.creation is not None  # the schema requires it
            self.creation = GuidedCreation(adventure.system, scenario.creation)
        text = f"=== {scenario.title} ===\n{scenario.intro}\n\n{self.creation.question()}"
        return ToolOutput(text=text)

    def _answer_creation(self, args: AnswerCreation) -> ToolOutput:
        wizard = self.creation
        if wizard is None or not isinstance(self.adventure, ScenarioAdventure):
            raise ModelRetry("no character is being created now")
        reply = wizard.answer(args.answer)
        if not wizard.done:
            return ToolOutput(text="\n".join(t for t in (reply, wizard.question()) if t))
        adventure = self.adventure
        self.creation = None
        if isinstance(wizard, FantasyCreation):
            assert wizard.character is not None
            adventure.table.add_character(wizard.character)
        else:
            adventure.sheet = wizard.sheet
            adventure._changed("create_character")
        status = adventure.status_text()
        parts = [reply, "" if status in reply else status, adventure.story.describe()]
        return ToolOutput(text="\n".join(t for t in parts if t))

    # -- playing -------------------------------------------------------------------------------

    async def play(self, backend: ClientCall | Any) -> TurnResult:
        """One turn: ``backend``'s answer (the client's one call) applied to the tools legal now."""
        phase = self.phase()
        self.shown.clear()
        runner = TurnRunner(backend, self.sink, retry_budget=0, max_responses=1)
        result = await runner.run(
            actor=ACTOR,
            messages=_MESSAGES,
            offers=self.offers(),
            require_action=False,
            max_actions=1,
            turn=self.calls,
            phase=phase,
        )
        self.calls += 1
        return result

    async def call(self, name: str, arguments: JsonDict) -> CallOutcome:
        """Apply the client's call of ``name`` with ``arguments``."""
        text = json.dumps(arguments, ensure_ascii=False)
        result = await self.play(ClientCall(ToolCall(id=f"mcp_{self.calls}", name=name, arguments=text)))
        if not result.actions:
            error = result.errors[0] if result.errors else f"error: {name} was not applied"
            return CallOutcome(ok=False, text=error, data={})
        applied = result.actions[0]
        output = applied.output
        extra = tuple(line for line in self.shown if line and line not in output.text)
        structured = type(applied.arguments).output_model is not None
        return CallOutcome(
            ok=True, text=output.text, data=dict(output.data), shown=extra, structured=structured
        )

    async def leave(self) -> SessionOutcome:
        """The client left: its turn of no call is recorded, and the outcome is returned."""
        await self.play(ClientCall(None))
        return self.outcome()

    def outcome(self) -> SessionOutcome:
        """How the session ended."""
        rolled = len(self.adventure.source.history)
        ending = self.adventure.ending
        # recorded in Japanese, the default locale (an MCP session has no player's locale)
        calls = self.calls - 1
        summary = McpSummary(calls, ending, rolled) if ending else McpUnfinished(calls, rolled)
        return SessionOutcome(
            summary=render(summary),
            earlier_summaries=(_EARLIER_SUMMARY.format(calls, ending or _EARLIER_UNFINISHED, rolled),),
            figures={"calls": float(calls), "dice": float(rolled)},
        )


#: How a session's end was recorded before the summary was in the player's language.
_EARLIER_SUMMARY = "{} calls; {}; {} dice rolled"
_EARLIER_UNFINISHED = "the adventure was not finished"


def _state_of(value: object) -> object:
    """A plain, deterministic picture of a dialogue object's attributes (nested ones too)."""
    if isinstance(value, BaseModel | Enum) or not hasattr(value, "__dict__"):
        return repr(value)
    return {name: _state_of(inner) for name, inner in sorted(vars(value).items())}


def scenario_prompt(scenario: Scenario) -> str:
    """The GM brief of ``scenario`` as a model GM's system prompt gets it."""
    return render_prompt(
        "adventure_scenario_gm.j2",
        title=scenario.title,
        system=scenario.system.value,
        brief=gm_brief(scenario),
    )


@register_session("mcp")
def run_mcp_session(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
    """Play an MCP session's turns with ``io.backend`` answering each (a replay's recorded
    calls) until a turn's answer calls nothing (the client's leaving).

    Raises:
        SessionError: the options are invalid.
    """
    game = McpGame(spec, io.sink)

    async def main() -> SessionOutcome:
        for _ in range(game.options.max_calls + 1):
            result = await game.play(io.backend)
            if not result.actions and not result.errors:
                break
        return game.outcome()

    return asyncio.run(main())
