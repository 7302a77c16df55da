"""The one entry point of the dice engine: a chat line in, nothing or a result out."""

from __future__ import annotations

import os

from gm_engine.dice.result import Locale, Outcome, RollResult
from gm_engine.dice.source import DiceSource, SeededSource
from gm_engine.dice.system import GameSystem, RollContext, common_commands, get_system

#: Longest chat line the engine reads; a longer one is refused before any parsing.
MAX_LINE_LENGTH = 1000


class CommandTooLongError(ValueError):
    """The chat line is longer than :data:`MAX_LINE_LENGTH` characters."""


def evaluate(
    line: str,
    system: str | GameSystem = "DiceBot",
    *,
    source: DiceSource | None = None,
    seed: int | None = None,
    locale: Locale = "ja",
    tables_dir: str | None = None,
) -> RollResult | None:
    """Evaluate a chat line under a game system.

    Returns None when the line is not a command, else the :class:`RollResult`. Dice
    come from ``source`` (default: a :class:`SeededSource` of ``seed``); every die is
    in the result and in the source's history.

    Raises:
        CommandTooLongError: the line is over :data:`MAX_LINE_LENGTH` characters.
        UnknownSystemError: ``system`` is not a registered id.
    """
    if len(line) > MAX_LINE_LENGTH:
        raise CommandTooLongError(
            f"the line is {len(line)} characters long; at most {MAX_LINE_LENGTH} are read"
        )
    game = get_system(system) if isinstance(system, str) else system
    dice = source if source is not None else SeededSource(seed)
    ctx = RollContext(
        source=dice,
        system=game,
        locale=locale,
        tables_dir=tables_dir if tables_dir is not None else os.environ.get("GM_TABLES_DIR"),
    )
    stripped = line.strip()
    if not stripped:
        return None
    command = stripped.split(None, 1)[0]
    secret = False
    if len(command) > 1 and command[0] in "Ss":
        secret = True
        command = command[1:]
    mark = dice.mark()
    outcome = _dispatch(command, ctx)
    if outcome is None:
        dice.restore(mark)
        return None
    return RollResult(
        system=game.id,
        command=command,
        text=outcome.text,
        locale=locale,
        secret=secret,
        success=outcome.success,
        failure=outcome.failure,
        critical=outcome.critical,
        fumble=outcome.fumble,
        dice=dice.dice_since(mark),
        detail=outcome.detail,
    )


def _dispatch(command: str, ctx: RollContext) -> Outcome | None:
    system = ctx.system
    if system.command_pattern is None or system.command_pattern.match(command):
        outcome = system.eval_system_command(command, ctx)
        if outcome is not None:
            return outcome
    for common in common_commands():
        if common.prefix.match(command):
            outcome = common.evaluate(command, ctx)
            if outcome is not None:
                return outcome
    return None
