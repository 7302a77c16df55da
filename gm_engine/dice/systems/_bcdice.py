"""What the game systems of this package build their answers with: the outcome made
without re-validation, and the detail of a command refused with a message.

A system reads its command as the engine hands it over, preprocessed as BCDice does
(:func:`gm_engine.dice.engine.preprocess`): parenthesised arithmetic computed in place
before the upcase (so ``CC(-1)<=50`` is read as ``CC-1<=50`` while a lower-case
``(3/2r)`` stays as written), then upcased. A system never preprocesses again: the
second pass would fold what BCDice leaves.
"""

from __future__ import annotations

from typing import Literal

from gm_engine.dice.result import Detail, Outcome, new_outcome

#: An :class:`Outcome` built without validation (see :func:`gm_engine.dice.result.construct`).
outcome = new_outcome


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
