"""Game systems and common commands, each found by name through a registry.

A game system (Cthulhu7th, TheOneRing2nd, ...) answers its own commands first; every
system, as in BCDice, also answers the common commands (add dice, xBy, choice, ...).
Modules under :mod:`gm_engine.systems` and :mod:`gm_engine.dice.commands` register
themselves when imported; :func:`load_all` imports every one of them.
"""

from __future__ import annotations

import importlib
import operator
import os
import pkgutil
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal, TypeVar

from gm_engine.dice.result import Locale, Outcome
from gm_engine.dice.source import DiceSource, Die

RoundType = Literal["floor", "ceil", "round"]

#: The environment variable naming the directory of table packs.
TABLES_DIR_VARIABLE = "GM_TABLES_DIR"

#: A comparison as BCDice normalises it (``=`` is ``==``, ``<>`` is ``!=``).
CompareOp = Literal["==", "!=", "<", ">", "<=", ">="]


#: Each comparison as a function of (left, right), for the counting loops of dice pools.
COMPARISONS: Final[dict[CompareOp, Callable[[int, int], bool]]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


def compare(left: int, op: CompareOp, right: int) -> bool:
    """``left op right`` for one of BCDice's normalised comparison operators."""
    return COMPARISONS[op](left, right)


# Shared, frozen answers of the default judgement, one pair per locale.
_JUDGEMENTS: dict[str, tuple[Outcome, Outcome]] = {
    locale: (Outcome(text=success, success=True), Outcome(text=failure, failure=True))
    for locale, (success, failure) in {"ja": ("成功", "失敗"), "en": ("Success", "Failure")}.items()
}


class UnknownSystemError(ValueError):
    """No game system is registered under the id asked for."""


class TooManyDiceError(ValueError):
    """A line would roll more dice than its budget allows.

    Raised by :meth:`RollContext.reserve_dice`; :func:`gm_engine.dice.engine.evaluate`
    turns it into an error result, so it never reaches the caller.
    """


@dataclass(slots=True)
class RollContext:
    """What a command handler may use: the dice, the locale, the system and table packs."""

    source: DiceSource
    system: GameSystem
    locale: Locale = "ja"
    #: The directory of table packs; None: the one ``$GM_TABLES_DIR`` names, looked up
    #: only when a table is rolled (see :meth:`table_packs_dir`).
    tables_dir: str | None = None
    extras: dict[str, object] = field(default_factory=dict)
    #: The chat line being evaluated, as typed (comment included).
    line: str = ""
    #: The length of ``source.history`` past which no more dice may be rolled for
    #: this line (None: no budget); the engine sets it for each line.
    dice_limit: int | None = None

    def table_packs_dir(self) -> str | None:
        """Where the table packs are: :attr:`tables_dir`, else ``$GM_TABLES_DIR`` as it
        is now (read here rather than for every line: few lines roll a table)."""
        if self.tables_dir is not None:
            return self.tables_dir
        return os.environ.get(TABLES_DIR_VARIABLE)

    def reserve_dice(self, count: int) -> None:
        """Check, before rolling ``count`` more dice, that the line stays within its budget.

        Commands call it before a roll whose size the user chose, so that a huge
        request is refused before a single die is drawn.

        Raises:
            TooManyDiceError: the line would roll past :attr:`dice_limit`.
        """
        limit = self.dice_limit
        if limit is not None and len(self.source.history) + count > limit:
            raise TooManyDiceError(f"more dice than this line's budget ({limit} in the history)")


class GameSystem:
    """Base class of the game systems. Subclasses set the class attributes and may
    override :meth:`eval_system_command`; :func:`register_system` files them by id."""

    id: ClassVar[str] = "DiceBot"
    name: ClassVar[str] = "DiceBot"
    help_text: ClassVar[str] = ""
    #: Regular expression of the system's own command prefixes (matched at the start,
    #: case-insensitively), or None when it has none.
    command_pattern: ClassVar[re.Pattern[str] | None] = None

    # System-wide settings that change how common commands behave (as in BCDice).
    sort_add_dice: ClassVar[bool] = False
    sort_barabara_dice: ClassVar[bool] = False
    round_type: ClassVar[RoundType] = "floor"
    upper_dice_reroll_threshold: ClassVar[int | None] = None
    reroll_dice_reroll_threshold: ClassVar[int | None] = None
    d66_sort_type: ClassVar[Literal["no_sort", "asc", "desc"]] = "no_sort"
    #: Sides of a die written without them (``2D`` is ``2D6``), as BCDice's ``sides_implicit_d``.
    sides_implicit_d: ClassVar[int] = 6
    #: Whether the system's own commands are upcased before matching (BCDice's default).
    enabled_upcase_input: ClassVar[bool] = True
    #: Whether the common ``D66`` command is answered (BCDice's ``enabled_d66``).
    enabled_d66: ClassVar[bool] = True
    #: The comparison the dice-pool commands (``xBy``, ``xRy``, ``xUy``) use when the
    #: command gives none (BCDice's ``default_cmp_op``); None: count no successes.
    default_cmp_op: ClassVar[CompareOp | None] = None
    #: The target of that default comparison (BCDice's ``default_target_number``);
    #: a pool command with :attr:`default_cmp_op` but no target counts 0 successes.
    default_target_number: ClassVar[int | None] = None

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        """Evaluate one of the system's own commands, or return None when it is not one.

        As in BCDice, ``command`` has been preprocessed: only the text before the first
        space, parenthesised arithmetic such as ``(1+2)`` computed (``CC(1)`` arrives as
        ``CC1``), :meth:`change_text` applied, ``2D`` written ``2D6``, upcased when
        :attr:`enabled_upcase_input`, and the secret ``S`` prefix removed.
        """
        return None

    def grich_text(self, ones: int, dice_count: int, successes: int) -> str | None:
        """A note appended to a dice-pool result (BCDice's ``grich_text``), or None.

        Called by ``xBy`` and ``xRy`` with the number of dice showing 1, the number of
        dice rolled and the successes counted (0 without a comparison). The default
        adds nothing; a system whose pools can glitch overrides it.
        """
        return None

    def change_text(self, text: str) -> str:
        """Rewrite a chat line before any command reads it (BCDice's ``change_text``)."""
        return text

    def check_result(
        self,
        total: int,
        dice: Sequence[Die],
        op: CompareOp,
        target: int | None,
        ctx: RollContext,
    ) -> Outcome | None:
        """Judge an add-dice roll with a target, as BCDice's ``check_result``.

        ``dice`` are the add dice as ``Die(value, sides)`` (a d66 counts as one die of
        66 sides); ``target`` is None for the undecided target ``?``. Return the words
        and flags to append, or None to append nothing. The default is plain
        success or failure.
        """
        if target is None:
            return None
        success, failure = _JUDGEMENTS.get(ctx.locale, _JUDGEMENTS["ja"])
        return success if compare(total, op, target) else failure


_S = TypeVar("_S", bound=type[GameSystem])
_SYSTEMS: dict[str, type[GameSystem]] = {}


def register_system(cls: _S) -> _S:
    """Class decorator: file a game system under its ``id``."""
    _SYSTEMS[cls.id] = cls
    return cls


def get_system(system_id: str) -> GameSystem:
    """A fresh instance of the system registered as ``system_id``.

    Raises:
        UnknownSystemError: no such system; the message lists the known ones.
    """
    load_all()
    try:
        return _SYSTEMS[system_id]()
    except KeyError:
        known = ", ".join(sorted(_SYSTEMS))
        # ids are matched exactly, as in BCDice; a difference of case only is named
        alike = [name for name in sorted(_SYSTEMS) if name.lower() == system_id.lower()]
        hint = f" (did you mean {alike[0]!r}?)" if alike else ""
        raise UnknownSystemError(f"unknown game system {system_id!r}{hint}; known: {known}") from None


def all_systems() -> list[type[GameSystem]]:
    """Every registered system, DiceBot first, then by id."""
    load_all()
    return sorted(_SYSTEMS.values(), key=lambda cls: (cls.id != "DiceBot", cls.id))


CommandFunc = Callable[[str, RollContext], Outcome | None]


@dataclass(frozen=True)
class CommonCommand:
    """A command every system answers. ``order`` follows BCDice's order of trial."""

    name: str
    order: int
    prefix: re.Pattern[str]
    evaluate: CommandFunc


_COMMANDS: list[CommonCommand] = []
#: ``_COMMANDS`` as the engine reads it for every line, rebuilt on each registration.
_ORDERED: tuple[CommonCommand, ...] = ()


def register_command(name: str, order: int, prefix: str) -> Callable[[CommandFunc], CommandFunc]:
    """Decorator: register ``func(command, ctx)`` as a common command.

    As in BCDice, ``command`` is the chat line as typed: not upcased, the comment
    after the first space included, a secret ``S`` prefix not removed (the engine
    marks the result secret when the line starts with one). ``prefix`` is a regular
    expression matched case-insensitively at the start of the line, a cheap test
    before the handler runs.
    """

    def decorate(func: CommandFunc) -> CommandFunc:
        global _ORDERED
        _COMMANDS.append(CommonCommand(name, order, re.compile(prefix, re.IGNORECASE), func))
        _COMMANDS.sort(key=lambda c: c.order)
        _ORDERED = tuple(_COMMANDS)
        return func

    return decorate


def common_commands() -> tuple[CommonCommand, ...]:
    """The registered common commands in order of trial."""
    load_all()
    return _ORDERED


_loaded = False


def load_all() -> None:
    """Import every module of :mod:`gm_engine.systems` and :mod:`gm_engine.dice.commands`."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package_name in ("gm_engine.dice.commands", "gm_engine.systems"):
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"{package_name}.{info.name}")
