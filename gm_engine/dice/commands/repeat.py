"""Repeat, BCDice's ``Repeat``: run one command several times (``x3 2D6``, ``rep3``,
``repeat3``).

The text after the space is run as a chat line of its own, ``times`` times (1 to 100),
and the results are joined as ``#1\\n...\\n\\n#2\\n...``. As in BCDice a repeat may not
directly repeat a lower-case repeat (``x2 rep3 1D6``); the engine further bounds nested
repeats written in capitals to :data:`~gm_engine.dice.limits.MAX_RUNS_PER_LINE`
runs in all, and every line to its dice budget.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.limits import MAX_RUNS_PER_LINE, REPEAT_FACTOR, SECRET_FLAG, TooManyRepeatsError
from gm_engine.dice.rands import RandKind, kinds_of
from gm_engine.dice.result import Detail, Outcome, RollResult, construct
from gm_engine.dice.system import RollContext

#: Most times one repeat runs its command (BCDice's REPEAT_LIMIT).
REPEAT_LIMIT = 100

_HEAD = re.compile(r"[S\u017f]?(repeat|rep|x)([0-9]+)[ \t\n\v\f\r]+", re.IGNORECASE)
# BCDice checks nesting case-sensitively: ``x2 rep3`` is refused, ``x2 REP3`` runs.
_NESTED = re.compile(r"(?:repeat|rep|x)[0-9]")

_TEXTS: dict[str, dict[str, str]] = {
    "nested": {"ja": "Repeatコマンドの重複はできません", "en": "Repeat commands cannot be nested"},
    "times": {
        "ja": f"繰り返し回数は1以上、{REPEAT_LIMIT}以下としてください",
        "en": f"The number of repeats must be from 1 to {REPEAT_LIMIT}",
    },
    "nothing": {
        "ja": "繰り返し対象のコマンドが実行できませんでした ({})",
        "en": "The command to repeat could not be run ({})",
    },
}


#: Why a repeat ran nothing: nested repeat, count out of range, not a command.
RepeatError = Literal["nested", "times", "nothing"]


class RepeatRun(BaseModel):
    """One run of the repeated command (``result`` None when it was not a command)."""

    model_config = ConfigDict(frozen=True)

    index: int
    result: RollResult | None


class RepeatDetail(Detail):
    """Structured result of a repeat: the command, the count and every run's result.

    ``error`` names why nothing ran: ``"nested"``, ``"times"`` or ``"nothing"``.
    """

    kind: Literal["repeat"] = "repeat"
    command: str
    times: int
    runs: tuple[RepeatRun, ...] = ()
    error: RepeatError | None = None

    def rand_kinds(self) -> tuple[RandKind, ...]:
        """The kinds of every run's dice, run after run."""
        kinds: tuple[RandKind, ...] = ()
        for run in self.runs:
            if run.result is not None:
                kinds += kinds_of(run.result)
        return kinds


def _refusal(reason: RepeatError, command: str, times: int, ctx: RollContext) -> Outcome:
    texts = _TEXTS[reason]
    text = texts.get(ctx.locale, texts["ja"]).format(command)
    detail = construct(RepeatDetail, command=command, times=times, runs=(), error=reason)
    return Outcome(text=text, detail=detail)


#: The cheap test of the engine before :func:`repeat` runs (matched at the line's start).
PREFIX = r"[S\u017f]?(?:repeat|rep|x)[0-9]"


def repeat(command: str, ctx: RollContext) -> Outcome | None:
    """``x<n> <command>``, ``rep<n> ...`` or ``repeat<n> ...``; None when not one."""
    head = _HEAD.match(command)
    if head is None:
        return None
    trailer = command[head.end() :]
    if not trailer:
        return None
    times = int(head.group(2))
    if _NESTED.match(trailer):
        return _refusal("nested", trailer, times, ctx)
    if not 1 <= times <= REPEAT_LIMIT:
        return _refusal("times", trailer, times, ctx)
    factor = ctx.extras.get(REPEAT_FACTOR, 1)
    assert isinstance(factor, int)
    if factor * times > MAX_RUNS_PER_LINE:
        raise TooManyRepeatsError(f"more than {MAX_RUNS_PER_LINE} repeated commands in one line")

    source = ctx.source
    runs: list[RepeatRun] = []
    any_secret = False
    ctx.extras[REPEAT_FACTOR] = factor * times
    try:
        for index in range(1, times + 1):
            start = len(source.history)
            found = replace(ctx).run_line(trailer)
            # every command's dice count against the line's budget, whoever rolled them
            ctx.reserve_dice(0)
            if found is None:
                runs.append(construct(RepeatRun, index=index, result=None))
                continue
            outcome, secret, word = found
            # the run's own text was counted when it ran; the heading and gap are new
            ctx.budget.charge_output(len(str(index)) + 4)
            any_secret = any_secret or secret
            result = construct(
                RollResult,
                system=ctx.system.id,
                command=word,
                text=outcome.text,
                locale=ctx.locale,
                secret=secret,
                success=outcome.success,
                failure=outcome.failure,
                critical=outcome.critical,
                fumble=outcome.fumble,
                dice=tuple(source.history[start:]),
                detail=outcome.detail,
            )
            runs.append(construct(RepeatRun, index=index, result=result))
    finally:
        ctx.extras[REPEAT_FACTOR] = factor

    if all(run.result is None for run in runs):
        return _refusal("nothing", trailer, times, ctx)
    # BCDice fails outright when only some runs are not commands; those show empty.
    text = "\n\n".join(f"#{run.index}\n{run.result.text if run.result else ''}" for run in runs)
    if any_secret:
        ctx.extras[SECRET_FLAG] = True
    detail = construct(RepeatDetail, command=trailer, times=times, runs=tuple(runs))
    return Outcome(text=text, detail=detail)
