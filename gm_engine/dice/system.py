"""What a game system is and what a command handler is handed.

A game system (Cthulhu7th, TheOneRing2nd, ...) answers its own commands first; every
system, as in BCDice, also answers the common commands (add dice, xBy, choice, ...).
The systems are listed in :mod:`gm_engine.dice.systems.registry` and the common commands in
:mod:`gm_engine.dice.commands.registry`; this module imports neither (the systems and
the commands import it). A system is looked up by id with
:func:`gm_engine.dice.systems.registry.get_system`.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal

from gm_engine.dice.limits import LineBudget, TooManyDiceError
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
    """No game system is registered under the id asked for: ``system_id``, with the ``known``
    ids (for a message in the player's language; the text of the exception is English)."""

    def __init__(
        self, message: str, system_id: str = "", known: tuple[str, ...] = (), alike: str = ""
    ) -> None:
        super().__init__(message)
        self.system_id = system_id
        self.known = known
        #: The known id that differs from ``system_id`` in case only, or empty.
        self.alike = alike


__all__ = [
    "COMPARISONS",
    "CommandFunc",
    "CommonCommand",
    "CompareOp",
    "GameSystem",
    "LineRun",
    "RollContext",
    "RoundType",
    "TooManyDiceError",
    "UnknownSystemError",
    "compare",
]

#: What running one line gives: the outcome, whether it is secret, and the command word.
LineRun = tuple[Outcome, bool, str]


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
    #: What the line has read and printed so far (shared by the runs of a repeat).
    budget: LineBudget = field(default_factory=LineBudget)
    #: The engine's way to run another line in this context (a repeat's command);
    #: the engine sets it, so that commands need not import the engine.
    line_runner: Callable[[str, RollContext], LineRun | None] | None = None

    def run_line(self, line: str) -> LineRun | None:
        """Run ``line`` as a chat line of its own, on this line's dice and budgets.

        Raises:
            RuntimeError: no engine set :attr:`line_runner` (a context built by hand).
        """
        if self.line_runner is None:
            raise RuntimeError("this RollContext was not made by the engine: it cannot run lines")
        return self.line_runner(line, self)

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
    #: BCDice's ``SORT_KEY``: the name in kana without voicing marks, by which BCDice
    #: and BCDice-API order the systems.
    sort_key: ClassVar[str] = ""
    #: What the commands are, in the game's language (BCDice's ``HELP_MESSAGE`` is Japanese,
    #: and BCDice-API's ``help_message`` carries it); :attr:`help_text_en` in English.
    help_text: ClassVar[str] = ""
    help_text_en: ClassVar[str] = ""

    @classmethod
    def help_in(cls, locale: Locale) -> str:
        """The help text in ``locale`` (the Japanese one where there is no English)."""
        return cls.help_text_en if locale == "en" and cls.help_text_en else cls.help_text
    #: BCDice's ``register_prefix`` list: the system's command prefixes as regexp source,
    #: from which BCDice-API builds the ``command_pattern`` a chat client tests lines
    #: with (:mod:`gm_engine.serve.bcdice_api`). The engine itself matches with
    #: :attr:`command_pattern`.
    prefixes: ClassVar[tuple[str, ...]] = ()
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


CommandFunc = Callable[[str, RollContext], Outcome | None]


@dataclass(frozen=True)
class CommonCommand:
    """A command every system answers (see :mod:`gm_engine.dice.commands.registry`).

    ``evaluate(command, ctx)`` gets the chat line as typed: not upcased, the comment
    after the first space included, a secret ``S`` prefix not removed (the engine
    marks the result secret when the line starts with one). ``prefix`` is matched at
    the start of the line, a cheap test before the handler runs.
    """

    name: str
    prefix: re.Pattern[str]
    evaluate: CommandFunc
    #: Whether its text is made of the results of lines it ran (a repeat), whose
    #: text was counted against the line's output budget as they ran.
    composes: bool = False
