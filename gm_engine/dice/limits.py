"""What one chat line may cost, and how a line refused for its cost reads.

BCDice bounds a line by its dice (10,000 per line, 200 per ``xDy``) and forbids
repeating a repeat; it reads a line of any length and prints whatever the commands
produce. A lower-case check lets ``x100 REP100 ...`` through it, and then one line
runs 10,000 commands and can print megabytes. The engine keeps BCDice's dice limit
and adds three of its own, each checked as the work is done, so that a refused line
costs little more than the limit itself:

* :data:`MAX_DICE_PER_LINE` dice (BCDice's ``UPPER_LIMIT_RANDS``);
* :data:`MAX_RUNS_PER_LINE` commands run, nested repeats included;
* :data:`MAX_READ_PER_LINE` characters read, the line itself plus every line a
  repeat runs again, and :data:`MAX_COMMAND_LENGTH` characters of command word (the
  text before the first space; a comment may be longer);
* :data:`MAX_OUTPUT_PER_LINE` characters of result text.

A line over a limit is answered with an error result (:class:`ErrorDetail`) that says
which limit, never with an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gm_engine.dice.result import Detail, Locale, Outcome, construct

#: Most physical dice one chat line may roll (repeats included), as BCDice's
#: ``Randomizer::UPPER_LIMIT_RANDS``.
MAX_DICE_PER_LINE = 10_000

#: Most commands one line may run through nested repeats (``x10 REP100 ...``): ten
#: times BCDice's ``REPEAT_LIMIT``, which BCDice means to be the most (it refuses a
#: repeat of a repeat, but only when written in lower case).
MAX_RUNS_PER_LINE = 1_000

#: Most characters one line may have read: the line, and each line a repeat runs.
MAX_READ_PER_LINE = 200_000

#: Longest command word (the text before the first space) a line may have; the
#: engine caches what it parsed by command, so a longer one is refused.
MAX_COMMAND_LENGTH = 1_000

#: Most characters of result text one line may produce (repeats joined).
MAX_OUTPUT_PER_LINE = 200_000

#: ``ctx.extras`` key: a command sets it to True to make its result secret, or to False
#: to make it public whatever the line's prefix (BCDice drops the flag on some refusals).
SECRET_FLAG = "secret"
#: ``ctx.extras`` key: how many times the current command runs through enclosing repeats.
REPEAT_FACTOR = "repeat_factor"


class TooManyDiceError(ValueError):
    """A line would roll more dice than its budget allows.

    Raised by :meth:`gm_engine.dice.system.RollContext.reserve_dice`;
    :func:`gm_engine.dice.engine.evaluate` turns it into an error result.
    """


class TooManyRepeatsError(ValueError):
    """Nested repeats would run more than :data:`MAX_RUNS_PER_LINE` commands.

    Raised by the repeat command; :func:`gm_engine.dice.engine.evaluate` turns it into
    an error result.
    """


class TooMuchReadingError(ValueError):
    """A line, with the lines its repeats run, is longer than :data:`MAX_READ_PER_LINE`,
    or its command word is longer than :data:`MAX_COMMAND_LENGTH`."""


class TooMuchOutputError(ValueError):
    """A line's result text would be longer than :data:`MAX_OUTPUT_PER_LINE`."""


@dataclass(slots=True)
class LineBudget:
    """What the line being evaluated has used so far; shared by every run of a repeat."""

    read: int = 0
    output: int = 0

    def charge_read(self, characters: int) -> None:
        """Count ``characters`` more read.

        Raises:
            TooMuchReadingError: the line has now read past :data:`MAX_READ_PER_LINE`.
        """
        self.read += characters
        if self.read > MAX_READ_PER_LINE:
            raise TooMuchReadingError(f"more than {MAX_READ_PER_LINE} characters read for one line")

    def charge_output(self, characters: int) -> None:
        """Count ``characters`` more of result text.

        Raises:
            TooMuchOutputError: the line has now printed past :data:`MAX_OUTPUT_PER_LINE`.
        """
        self.output += characters
        if self.output > MAX_OUTPUT_PER_LINE:
            raise TooMuchOutputError(f"more than {MAX_OUTPUT_PER_LINE} characters of result text")


ErrorReason = Literal[
    "too_many_dice",
    "too_many_repeats",
    "too_much_reading",
    "too_much_output",
    "too_complex",
    "overflow",
    "internal",
]

_ERROR_TEXTS: dict[str, dict[str, str]] = {
    "too_many_dice": {
        "ja": f"ダイスが多すぎます（1回のコマンドで{MAX_DICE_PER_LINE}個まで）",
        "en": f"Too many dice (at most {MAX_DICE_PER_LINE} in one command)",
    },
    "too_many_repeats": {
        "ja": f"繰り返しが多すぎます（入れ子の繰り返しを含めて{MAX_RUNS_PER_LINE}回まで）",
        "en": f"Too many repeats (at most {MAX_RUNS_PER_LINE} runs, nested repeats included)",
    },
    "too_much_reading": {
        "ja": (
            f"コマンドが長すぎます（コマンド部分は{MAX_COMMAND_LENGTH}文字まで、"
            f"繰り返しで読む分を含めて{MAX_READ_PER_LINE}文字まで）"
        ),
        "en": (
            f"The command is too long (at most {MAX_COMMAND_LENGTH} characters before the first space, "
            f"{MAX_READ_PER_LINE} in all, repeated runs included)"
        ),
    },
    "too_much_output": {
        "ja": f"結果が長すぎます（1回のコマンドで{MAX_OUTPUT_PER_LINE}文字まで）",
        "en": f"The result is too long (at most {MAX_OUTPUT_PER_LINE} characters in one command)",
    },
    "too_complex": {
        "ja": "式の入れ子が深すぎるため計算できませんでした",
        "en": "The expression is nested too deeply to compute",
    },
    "overflow": {
        "ja": "数値が大きすぎるため計算できませんでした",
        "en": "The numbers are too large to compute",
    },
    "internal": {
        "ja": "内部エラーのためコマンドを実行できませんでした",
        "en": "The command could not be run because of an internal error",
    },
}


class ErrorDetail(Detail):
    """Why a command was refused: its text says it in words, this says it in a code.

    ``cause`` names the exception behind an ``"internal"`` refusal (a bug to report).
    """

    kind: Literal["error"] = "error"
    reason: ErrorReason
    message: str
    cause: str | None = None


def error_outcome(reason: ErrorReason, locale: Locale, *, cause: str | None = None) -> Outcome:
    """The result of a refused command: the message in ``locale`` and an :class:`ErrorDetail`."""
    message = _ERROR_TEXTS[reason].get(locale, _ERROR_TEXTS[reason]["ja"])
    detail = construct(ErrorDetail, reason=reason, message=message, cause=cause)
    return Outcome(text=message, detail=detail)
