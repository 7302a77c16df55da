"""The dice engine: BCDice-compatible commands over one injectable, recorded source of dice.

Use :func:`evaluate` for a chat line; game systems live in :mod:`gm_engine.systems`. The
systems, commands and limits, and where the text differs from BCDice: docs/dice.md.
"""

from gm_engine.dice.engine import MAX_LINE_LENGTH, CommandTooLongError, evaluate
from gm_engine.dice.result import Detail, Locale, Outcome, RollResult
from gm_engine.dice.source import DiceError, DiceQueueError, DiceSource, Die, QueueSource, SeededSource
from gm_engine.dice.system import (
    GameSystem,
    RollContext,
    UnknownSystemError,
    all_systems,
    get_system,
    register_command,
    register_system,
)

__all__ = [
    "MAX_LINE_LENGTH",
    "CommandTooLongError",
    "Detail",
    "DiceError",
    "DiceQueueError",
    "DiceSource",
    "Die",
    "GameSystem",
    "Locale",
    "Outcome",
    "QueueSource",
    "RollContext",
    "RollResult",
    "SeededSource",
    "UnknownSystemError",
    "all_systems",
    "evaluate",
    "get_system",
    "register_command",
    "register_system",
]
