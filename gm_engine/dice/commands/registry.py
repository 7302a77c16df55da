"""The common commands, in the order BCDice tries them (``BCDice::CommonCommand::COMMANDS``).

Every game system answers these after its own commands. A new common command is a
module of this package with a handler and its ``PREFIX``, and one line below, which
repeats that ``PREFIX`` (a test holds the two equal).

A command's module is imported the first time a line matches its prefix, not before: a
session (and the replay of one) that only adds dice loads none of the other commands'
parsers and result models. The prefix is the cheap test that decides it, which is why
it is written here rather than read from the module.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gm_engine.dice.system import CommandFunc, CommonCommand

if TYPE_CHECKING:
    from gm_engine.dice.result import Outcome
    from gm_engine.dice.system import RollContext

#: What the common commands' prefixes allow before the command itself, as
#: :data:`gm_engine.dice.commands.barabara_dice.LINE_HEAD`.
_LINE_HEAD = r"[ \t\n\v\f\r]*S?"


# Each handler imports its command's module on its first call (an import already done is a
# dictionary look-up); named one by one, as the systems' registry does, so that nothing
# looks a module up by a computed name.


def _add_dice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.add_dice import add_dice

    return add_dice(command, ctx)


def _barabara_dice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.barabara_dice import barabara_dice

    return barabara_dice(command, ctx)


def _tally_dice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.tally_dice import tally_dice

    return tally_dice(command, ctx)


def _calc(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.calc import calc

    return calc(command, ctx)


def _choice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.choice import choice

    return choice(command, ctx)


def _d66_dice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.d66_dice import d66_dice

    return d66_dice(command, ctx)


def _repeat(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.repeat import repeat

    return repeat(command, ctx)


def _reroll_dice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.reroll_dice import reroll_dice

    return reroll_dice(command, ctx)


def _upper_dice(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.upper_dice import upper_dice

    return upper_dice(command, ctx)


def _version(command: str, ctx: RollContext) -> Outcome | None:
    from gm_engine.dice.commands.version import version

    return version(command, ctx)


def _command(name: str, prefix: str, handler: CommandFunc, *, composes: bool = False) -> CommonCommand:
    # BCDice matches its prefixes case-insensitively at the start of the line
    return CommonCommand(name, re.compile(prefix, re.IGNORECASE), handler, composes)


#: Every common command with its prefix, which repeats its module's ``PREFIX``.
COMMON_COMMANDS: tuple[CommonCommand, ...] = (
    _command("AddDice", r"[ \t\n\v\f\r]*[S\u017f]?[0-9(+\-D]", _add_dice),
    _command("BarabaraDice", _LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*B", _barabara_dice),
    _command("TallyDice", _LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*T[YZ]", _tally_dice),
    _command("Calc", r"[ \t\n\v\f\r]*[S\u017f]?C", _calc),
    _command("Choice", _LINE_HEAD + "choice", _choice),
    _command("D66Dice", _LINE_HEAD + "D66", _d66_dice),
    _command("Repeat", r"[S\u017f]?(?:repeat|rep|x)[0-9]", _repeat, composes=True),
    _command("RerollDice", _LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*R", _reroll_dice),
    _command("UpperDice", _LINE_HEAD + r"[0-9(][^ \t\n\v\f\r]*U", _upper_dice),
    _command("Version", r"[ \t\n\v\f\r]*BCDiceVersion", _version),
)

#: BCDice's ``PREFIX_PATTERN`` of each common command, in the order above, as regexp
#: source: with each system's :attr:`~gm_engine.dice.system.GameSystem.prefixes` they
#: make BCDice-API's ``command_pattern``, the test a chat client applies to decide whether
#: a line may be a command. (The engine's own prefixes above are looser or stricter
#: where gm's reading needs it; these are BCDice's, for clients.)
CLIENT_PREFIXES: tuple[str, ...] = (
    r"[+\-(]*(\d+|D\d+)",
    r"\d+B\d+",
    r"\d+T[YZ]\d+",
    r"C[+\-(]*\d+",
    r"choice",
    r"D66",
    r"(repeat|rep|x)\d+",
    r"\d+R\d+",
    r"\d+U\d+",
    r"BCDiceVersion",
)
