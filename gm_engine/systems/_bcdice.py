"""BCDice's input conventions, shared by the game systems of this package.

BCDice reads a command after two steps the game systems rely on: parenthesised
arithmetic such as ``(1+1)`` or ``(-1)`` is computed in place (so ``CC(-1)<=50`` is
read as ``CC-1<=50``), and the command is upper-cased. :func:`normalize` performs both
with the engine's own preprocessor (:func:`gm_engine.dice.commands._arith.fold_parentheses`);
it is idempotent, so a command the engine already preprocessed loses nothing, and a
system called directly reads its command the same way.

Also here: the outcome a system builds without re-validation, and the detail a
system returns when it refuses a command with a message.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from gm_engine.dice.commands._arith import fold_parentheses
from gm_engine.dice.result import Detail, Outcome, construct
from gm_engine.dice.system import RoundType


def outcome(
    text: str,
    detail: Detail | None,
    success: bool = False,
    failure: bool = False,
    critical: bool = False,
    fumble: bool = False,
) -> Outcome:
    """An :class:`Outcome` built without validation (see :func:`gm_engine.dice.engine.construct`)."""
    return construct(
        Outcome,
        text=text,
        success=success,
        failure=failure,
        critical=critical,
        fumble=fumble,
        detail=detail,
    )


class SystemRefusalDetail(Detail):
    """A system command that was recognised but refused: ``reason`` is the message shown."""

    kind: Literal["system_refusal"] = "system_refusal"
    system: str
    command: str
    reason: str


def refusal(system: str, command: str, text: str) -> Outcome:
    """An outcome with only a message (BCDice answers bad arguments this way: no flags)."""
    detail = SystemRefusalDetail(system=system, command=command, reason=text)
    return Outcome(text=text, detail=detail)


@lru_cache(maxsize=4096)
def normalize(command: str, round_type: RoundType = "floor") -> str:
    """Compute parenthesised arithmetic in place, then upper-case, as BCDice does."""
    return fold_parentheses(command, round_type).upper()
