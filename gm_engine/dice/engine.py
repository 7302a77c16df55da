"""The one entry point of the dice engine: a chat line in, nothing or a result out.

The pipeline follows BCDice 3 (``Base#eval``):

1. Only the text before the first ASCII space is a command; the rest is a comment.
2. The game system's own commands come first. Their text is preprocessed as in
   BCDice: parenthesised arithmetic is computed (``CC(1)`` -> ``CC1``), the system's
   ``change_text`` applied, ``2D`` written ``2D6``, upcased, and a leading ``S``
   (secret) removed when the rest matches the system's :attr:`command_pattern`.
3. Otherwise the common commands, in BCDice's order (add dice, xBy, C(), choice, D66,
   repeat, xRy, tally, xUy, ...), read the line itself; a leading ``S`` makes the roll
   secret.

Nothing a user can type makes :func:`evaluate` raise: a line over one of the limits
of :mod:`gm_engine.dice.limits` (dice, commands run, characters read, characters of
result), an expression nested too deep or an unexpected fault inside a command all
come back as a result whose text says what went wrong (and whose detail is an
:class:`ErrorDetail`), with the source rolled back so that no half-rolled dice remain.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import NamedTuple

from gm_engine.dice.commands._arith import (
    SECRET_PREFIXES,
    ArithmeticFailure,
    TooComplexError,
    expand_implicit_d,
    first_word,
    fold_parentheses,
    is_secret,
)
from gm_engine.dice.commands.registry import COMMON_COMMANDS
from gm_engine.dice.limits import (
    MAX_COMMAND_LENGTH,
    MAX_DICE_PER_LINE,
    MAX_OUTPUT_PER_LINE,
    MAX_READ_PER_LINE,
    MAX_RUNS_PER_LINE,
    REPEAT_FACTOR,
    SECRET_FLAG,
    ErrorDetail,
    ErrorReason,
    LineBudget,
    TooManyDiceError,
    TooManyRepeatsError,
    TooMuchOutputError,
    TooMuchReadingError,
    error_outcome,
)
from gm_engine.dice.result import MODEL_SLOT_SETTERS, Locale, RollResult, construct
from gm_engine.dice.source import DiceQueueError, DiceSource, SeededSource, SourceMark
from gm_engine.dice.system import GameSystem, LineRun, RollContext, RoundType
from gm_engine.dice.systems.registry import get_system

# Names callers have imported from here; they live in the modules above.
__all__ = [
    "MAX_DICE_PER_LINE",
    "MAX_OUTPUT_PER_LINE",
    "MAX_READ_PER_LINE",
    "MAX_RUNS_PER_LINE",
    "REPEAT_FACTOR",
    "SECRET_FLAG",
    "ErrorDetail",
    "ErrorReason",
    "TooManyDiceError",
    "TooManyRepeatsError",
    "construct",
    "error_outcome",
    "evaluate",
    "preprocess",
    "run_line",
]

_RUBY_STRIP = " \t\n\v\f\r\0"


_log = logging.getLogger(__name__)


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
    in the result and in the source's history. A refused command (too many dice, too
    deep, internal fault) is a result with an :class:`ErrorDetail` and no dice. Table
    packs are read from ``tables_dir``, by default from the directory ``$GM_TABLES_DIR``
    names when a table is rolled.

    Raises:
        UnknownSystemError: ``system`` is not a registered id.
        DiceQueueError: an injected :class:`QueueSource` ran dry or disagrees with a
            die's sides (a fault of the injected dice, not of the line).
    """
    if not line.isascii():
        line = _without_surrogates(line)
    game = get_system(system) if isinstance(system, str) else system
    dice = source if source is not None else SeededSource(seed)
    history = dice.history
    start = len(history)
    # Snapshotting a seeded generator (random.Random.getstate) costs more than a whole
    # command; a seeded source is therefore marked by its history alone.
    # (a NamedTuple's own __new__ is a Python frame; tuple.__new__ builds the same value)
    mark = _new_tuple(SourceMark, (start, _NO_STATE)) if dice.__class__ is SeededSource else dice.mark()
    # positional, in the dataclass's order: this runs for every line
    budget = LineBudget()
    ctx = RollContext(dice, game, locale, tables_dir, {}, "", start + MAX_DICE_PER_LINE, budget, run_line)
    try:
        found = run_line(line, ctx)
    except DiceQueueError:
        _roll_back(dice, mark)
        raise
    except TooManyDiceError:
        return _refused(line, game, ctx, mark, "too_many_dice")
    except TooManyRepeatsError:
        return _refused(line, game, ctx, mark, "too_many_repeats")
    except TooMuchReadingError:
        return _refused(line, game, ctx, mark, "too_much_reading")
    except TooMuchOutputError:
        return _refused(line, game, ctx, mark, "too_much_output")
    except TooComplexError:
        return _refused(line, game, ctx, mark, "too_complex")
    except ArithmeticFailure:
        return _refused(line, game, ctx, mark, "overflow")
    except Exception as fault:  # a fault inside a command must not crash the caller
        _log.exception("dice command %r under %s failed", line, game.id)
        return _refused(line, game, ctx, mark, "internal", cause=f"{type(fault).__name__}: {fault}")
    if found is None:
        _roll_back(dice, mark)
        return None
    if len(history) > start + MAX_DICE_PER_LINE:
        # a command that does not reserve its dice still answers to the line's budget
        return _refused(line, game, ctx, mark, "too_many_dice")
    outcome, secret, command = found
    # RollResult's fields in declared order, all given (see construct)
    result = _new_object(RollResult)
    _set_dict(
        result,
        {
            "system": game.id,
            "command": command,
            "text": outcome.text,
            "locale": locale,
            "secret": secret,
            "success": outcome.success,
            "failure": outcome.failure,
            "critical": outcome.critical,
            "fumble": outcome.fumble,
            "dice": tuple(history[start:]),
            "detail": outcome.detail,
        },
    )
    _set_fields_set(result, _RESULT_FIELDS)
    _set_extra(result, None)
    _set_private(result, None)
    return result


# Every field is given, and a frozen result's fields set is never changed in place: the
# results share one (see result.model_builder, whose slot setters these are).
_RESULT_FIELDS = set(RollResult.model_fields)
_new_object = object.__new__
_set_dict = MODEL_SLOT_SETTERS["_set_dict"]
_set_fields_set = MODEL_SLOT_SETTERS["_set_fields_set"]
_set_extra = MODEL_SLOT_SETTERS["_set_extra"]
_set_private = MODEL_SLOT_SETTERS["_set_private"]
_new_tuple = tuple.__new__


def _without_surrogates(line: str) -> str:
    # A lone surrogate cannot come from any real chat text and cannot be written as
    # UTF-8 (so a result holding one would not serialise); it reads as U+FFFD.
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in line)
    return line


_NO_STATE = object()


def _roll_back(source: DiceSource, mark: SourceMark) -> None:
    """Forget the dice rolled since ``mark``. A seeded generator is not rewound: later
    rolls differ from a run without the refused line, but stay the same for the same
    seed and the same lines."""
    if mark.state is _NO_STATE:
        del source.history[mark.history_length :]
    else:
        source.restore(mark)


def _refused(
    line: str,
    game: GameSystem,
    ctx: RollContext,
    mark: SourceMark,
    reason: ErrorReason,
    cause: str | None = None,
) -> RollResult:
    _roll_back(ctx.source, mark)
    word = first_word(line)
    secret = is_secret(word)
    outcome = error_outcome(reason, ctx.locale, cause=cause)
    return construct(
        RollResult,
        system=game.id,
        command=word[1:] if secret else word,
        text=outcome.text,
        locale=ctx.locale,
        secret=secret,
        dice=(),
        detail=outcome.detail,
    )


def run_line(line: str, ctx: RollContext) -> LineRun | None:
    """Run one chat line through the system's commands, then the common ones.

    Returns the outcome, whether it is secret, and the command word, or None when the
    line is not a command. Commands that run other lines (repeat) call this again
    through :meth:`RollContext.run_line`, so that the budgets are shared.

    Raises:
        TooMuchReadingError: the line's reading is over its budget.
        TooMuchOutputError: the result text is over its budget.
    """
    budget = ctx.budget
    budget.read += len(line)
    if budget.read > MAX_READ_PER_LINE:
        raise TooMuchReadingError(f"more than {MAX_READ_PER_LINE} characters read for one line")
    game = ctx.system
    cls = game.__class__
    key = (cls, line)
    route = _ROUTES.get(key)
    if route is None:
        route = _route(line, game)
        if len(line) <= MAX_CACHED_LINE and not _traits(cls)[1]:
            if len(_ROUTES) >= _ROUTES_LIMIT:
                _ROUTES.clear()
            _ROUTES[key] = route
    word, matched = route
    if not word:
        return None
    ctx.line = line
    extras = ctx.extras
    if matched is not None:
        command, secret = matched
        extras.pop(SECRET_FLAG, None)
        outcome = game.eval_system_command(command, ctx)
        if outcome is not None and outcome.text:
            budget.charge_output(len(outcome.text))
            flag = extras.pop(SECRET_FLAG, None)
            return outcome, flag if flag.__class__ is bool else secret, command

    # As in BCDice, common commands read the line as typed (comment included) and
    # take a leading S themselves; no common command starts with S, so one that
    # answers such a line has read it as the secret prefix.
    text = line
    if _traits(cls)[1]:
        text = game.change_text(line)
        word = first_word(text)
    secret = is_secret(word)
    if secret:
        word = word[1:]
    extras.pop(SECRET_FLAG, None)
    for common in COMMON_COMMANDS:
        if common.prefix.match(text):
            outcome = common.evaluate(text, ctx)
            if outcome is not None:
                if not common.composes:
                    budget.charge_output(len(outcome.text))
                flag = extras.pop(SECRET_FLAG, None)
                return outcome, flag if flag.__class__ is bool else secret, word
    return None


#: Longest line whose route is cached (a chat palette's lines are short; a long one
#: would hold its memory in the cache).
MAX_CACHED_LINE = 1000
_ROUTES_LIMIT = 4096


class _Route(NamedTuple):
    """What preprocessing decided for one line under one system class: the command
    word ("" for a blank line) and the system command it is, with its secret flag."""

    word: str
    system: tuple[str, bool] | None


#: Routes of lines already read, per system class: the parse cache of the engine.
#: Only classes that do not rewrite lines (``change_text``) are cached, and only
#: lines up to :data:`MAX_CACHED_LINE`; the dice are drawn afresh for every line.
_ROUTES: dict[tuple[type[GameSystem], str], _Route] = {}


def _route(line: str, game: GameSystem) -> _Route:
    word = first_word(line)
    if len(word) > MAX_COMMAND_LENGTH:
        raise TooMuchReadingError(f"a command word of {len(word)} characters")
    if not word or not _traits(type(game))[0]:
        return _Route(word, None)
    # BCDice's preprocessor strips the line first, and Ruby's strip also removes NULs
    system_word = first_word(line.strip(_RUBY_STRIP)) if "\0" in line else word
    return _Route(word, _match_system_command(system_word, game) if system_word else None)


_TRAITS: dict[type[GameSystem], tuple[bool, bool]] = {}


def _traits(cls: type[GameSystem]) -> tuple[bool, bool]:
    """Whether a system class has commands of its own, and whether it rewrites lines."""
    traits = _TRAITS.get(cls)
    if traits is None:
        own = cls.command_pattern is not None or cls.eval_system_command is not GameSystem.eval_system_command
        traits = _TRAITS[cls] = (own, cls.change_text is not GameSystem.change_text)
    return traits


def preprocess(word: str, game: GameSystem) -> str:
    """BCDice's preprocessing of a game system's command word (see the module doc)."""
    if not _traits(type(game))[1]:
        return _preprocess_plain(word, game.round_type, game.sides_implicit_d, game.enabled_upcase_input)
    text = fold_parentheses(word, game.round_type)
    text = game.change_text(text)
    text = expand_implicit_d(text, game.sides_implicit_d)
    return text.upper() if game.enabled_upcase_input else text


@lru_cache(maxsize=4096)
def _preprocess_plain(word: str, round_type: RoundType, sides: int, upcase: bool) -> str:
    text = expand_implicit_d(fold_parentheses(word, round_type), sides)
    return text.upper() if upcase else text


def _match_system_command(word: str, game: GameSystem) -> tuple[str, bool] | None:
    """The system's command in ``word`` (preprocessed) and whether it is secret, or
    None when the word is not one of the system's commands."""
    command = preprocess(word, game)
    if not command:
        return None
    pattern = game.command_pattern
    rest = command[1:]
    if command.startswith(SECRET_PREFIXES) and rest and (pattern is None or pattern.match(rest)):
        return rest, True
    if pattern is not None and not pattern.match(command):
        return None
    return command, False
