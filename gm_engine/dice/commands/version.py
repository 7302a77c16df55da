"""Version, BCDice's ``BCDiceVersion``: every system answers with the BCDice version
whose behaviour the engine reproduces.

As in BCDice the command word (up to the first space) must be ``BCDiceVersion`` in
any case (Ruby's: the dotless and dotted I are not I), with no secret prefix.
"""

from __future__ import annotations

import re
from typing import Literal

from gm_engine.dice.commands._arith import first_word
from gm_engine.dice.result import Detail, Outcome, construct
from gm_engine.dice.system import RollContext

#: The BCDice release whose texts and rules the engine follows.
BCDICE_VERSION = "3.16.1"

#: The cheap test of the engine before :func:`version` runs (matched at the line's start).
PREFIX = r"[ \t\n\v\f\r]*BCDiceVersion"

# Ruby's /i folds U+0130/U+0131 to no ASCII letter, and Python's would: the letter i
# is matched case-sensitively, the others as Ruby does (K, the Kelvin sign, is k).
_WORD = re.compile(r"BCD(?-i:[iI])ceVers(?-i:[iI])on", re.IGNORECASE)


class VersionDetail(Detail):
    """The answer to ``BCDiceVersion``: the BCDice version the engine follows."""

    kind: Literal["bcdice_version"] = "bcdice_version"
    version: str


def version(command: str, ctx: RollContext) -> Outcome | None:
    """``BCDiceVersion``; None when the line is not it."""
    if _WORD.fullmatch(first_word(command)) is None:
        return None
    detail = construct(VersionDetail, version=BCDICE_VERSION)
    return Outcome(text=f"BCDice {BCDICE_VERSION}", detail=detail)
