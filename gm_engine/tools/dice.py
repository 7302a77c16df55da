"""Dice tools: any dice command of the session's game system, and the 3d6 non-combat check.

The model names a command; the dice engine rolls it on the session's one source and
the result (BCDice's text, flags and structure) is what the model gets back. The model
never supplies a number that the engine takes on trust.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import DiceSource
from gm_engine.dice.system import GameSystem
from gm_engine.dice.systems.registry import get_system, system_ids
from gm_engine.tools.base import ModelRetry, Offer, Tool, ToolOutput


class RollOutput(BaseModel):
    """The structured result of a roll: the dice engine's :class:`RollResult` (BCDice's text,
    the dice, the flags and the command's own detail)."""

    model_config = ConfigDict(frozen=True)

    result: RollResult


class RollDice(Tool):
    """Roll a dice command of the session's game system (e.g. 2D6+1, 3D6>=10, CC<=50) on the
    engine's dice. Use it for every random outcome; never invent a roll."""

    tool_name: ClassVar[str] = "roll_dice"
    output_model: ClassVar[type[BaseModel] | None] = RollOutput
    command: str = Field(max_length=200, description="the dice command, as typed in a BCDice chat")
    reason: str = Field(max_length=200, description="what the roll is for, in a few words")


class SkillCheck(Tool):
    """A non-combat check (§2.2: 3d6 for every rank): succeeds when 3d6 reaches the target."""

    tool_name: ClassVar[str] = "skill_check"
    output_model: ClassVar[type[BaseModel] | None] = RollOutput
    character: str = Field(description="who attempts it")
    target: int = Field(ge=3, le=18, description="the number 3d6 must reach (10 is an ordinary task)")
    reason: str = Field(max_length=200, description="what is attempted")


class RollDiceIn(Tool):
    """Roll a dice command of any game system (e.g. Cthulhu7th CC(1)<=53, TheOneRing2nd 14RG3,
    DiceBot 2D6+1) on the engine's dice. Use it for every random outcome; never invent a roll."""

    tool_name: ClassVar[str] = "roll_dice_in"
    output_model: ClassVar[type[BaseModel] | None] = RollOutput
    system: str = Field(description="the game system's id (see `gm systems`)")
    command: str = Field(max_length=200, description="the dice command, as typed in a BCDice chat")
    reason: str = Field(max_length=200, description="what the roll is for, in a few words")


OnRoll = Callable[[RollResult, str], None]


def result_text(result: RollResult, reason: str) -> str:
    """What the model reads back: the result line and its structured form as JSON."""
    data = {
        "text": result.text,
        "reason": reason,
        "dice": [list(d) for d in result.dice],
        **{k: v for k, v in result.flags.items() if v},
    }
    if result.detail is not None:
        data["detail"] = result.detail.model_dump(mode="json")
    return json.dumps(data, ensure_ascii=False)


def roll(command: str, system: GameSystem | str, source: DiceSource, locale: Locale = "ja") -> RollResult:
    """Evaluate ``command`` on ``source`` (the result's text in ``locale``).

    Raises:
        ModelRetry: the line is not a command of ``system`` (the message names the system),
            or the engine refuses it; no die is consumed.
    """
    game = get_system(system) if isinstance(system, str) else system
    result = evaluate(command, game, source=source, locale=locale)
    if result is None:
        raise ModelRetry(f"{command!r} is not a dice command of {game.id}; see `gm systems` for its commands")
    return result


def dice_offer(
    system: str, source: DiceSource, on_roll: OnRoll | None = None, locale: Locale = "ja"
) -> Offer[RollDice]:
    """Offer :class:`RollDice` under ``system``, rolling on ``source``; ``on_roll`` sees each
    result (its text in ``locale``)."""
    game = get_system(system)

    def handle(args: RollDice) -> ToolOutput:
        result = roll(args.command, game, source, locale)
        if on_roll is not None:
            on_roll(result, args.reason)
        data = {"result": result.model_dump(mode="json")}
        return ToolOutput(text=result_text(result, args.reason), data=data)

    return Offer.of(RollDice, handle)


def any_system_dice_offer(source: DiceSource, on_roll: OnRoll | None = None) -> Offer[RollDiceIn]:
    """Offer :class:`RollDiceIn` under every game system (an enum of their ids), rolling on
    ``source``; ``on_roll`` sees each result."""

    def handle(args: RollDiceIn) -> ToolOutput:
        result = roll(args.command, args.system, source)
        if on_roll is not None:
            on_roll(result, args.reason)
        data = {"result": result.model_dump(mode="json")}
        return ToolOutput(text=result_text(result, args.reason), data=data)

    return Offer.of(RollDiceIn, handle, system=system_ids())


def check_offer(
    characters: Sequence[str], source: DiceSource, on_roll: OnRoll | None = None, locale: Locale = "ja"
) -> Offer[SkillCheck]:
    """Offer :class:`SkillCheck` for ``characters`` (an enum), rolling ``3D6>=target`` on
    ``source`` (the result's text in ``locale``)."""

    def handle(args: SkillCheck) -> ToolOutput:
        result = roll(f"3D6>={args.target}", "DiceBot", source, locale)
        reason = f"{args.character}: {args.reason}"
        if on_roll is not None:
            on_roll(result, reason)
        return ToolOutput(text=result_text(result, reason), data={"result": result.model_dump(mode="json")})

    return Offer.of(SkillCheck, handle, character=list(characters))
