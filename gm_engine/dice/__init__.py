"""The dice engine: BCDice-compatible commands over one injectable, recorded source of dice.

Use :func:`evaluate` for a chat line; game systems live in :mod:`gm_engine.dice.systems`
(listed in :mod:`gm_engine.dice.systems.registry`), the common commands in
:mod:`gm_engine.dice.commands`, and what one line may cost in :mod:`gm_engine.dice.limits`.
The systems, commands and limits, and where the text differs from BCDice: docs/dice.md.
"""

from gm_engine.dice.engine import evaluate
from gm_engine.dice.limits import (
    MAX_DICE_PER_LINE,
    MAX_OUTPUT_PER_LINE,
    MAX_READ_PER_LINE,
    MAX_RUNS_PER_LINE,
    ErrorDetail,
)
from gm_engine.dice.result import Detail, Locale, Outcome, RollResult
from gm_engine.dice.source import DiceError, DiceQueueError, DiceSource, Die, QueueSource, SeededSource
from gm_engine.dice.system import GameSystem, RollContext, UnknownSystemError
from gm_engine.dice.systems.registry import all_systems, get_system

__all__ = [
    "MAX_DICE_PER_LINE",
    "MAX_OUTPUT_PER_LINE",
    "MAX_READ_PER_LINE",
    "MAX_RUNS_PER_LINE",
    "Detail",
    "DiceError",
    "DiceQueueError",
    "DiceSource",
    "Die",
    "ErrorDetail",
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
]
