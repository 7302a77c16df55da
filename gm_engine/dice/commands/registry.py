"""The common commands, in the order BCDice tries them (``BCDice::CommonCommand::COMMANDS``).

Every game system answers these after its own commands. A new common command is a
module of this package with a handler and its ``PREFIX``, and one line below.
"""

from __future__ import annotations

import re

from gm_engine.dice.commands import (
    add_dice,
    barabara_dice,
    calc,
    choice,
    d66_dice,
    repeat,
    reroll_dice,
    tally_dice,
    upper_dice,
    version,
)
from gm_engine.dice.system import CommandFunc, CommonCommand


def _command(name: str, prefix: str, handler: CommandFunc, *, composes: bool = False) -> CommonCommand:
    # BCDice matches its prefixes case-insensitively at the start of the line
    return CommonCommand(name, re.compile(prefix, re.IGNORECASE), handler, composes)


COMMON_COMMANDS: tuple[CommonCommand, ...] = (
    _command("AddDice", add_dice.PREFIX, add_dice.add_dice),
    _command("BarabaraDice", barabara_dice.PREFIX, barabara_dice.barabara_dice),
    _command("TallyDice", tally_dice.PREFIX, tally_dice.tally_dice),
    _command("Calc", calc.PREFIX, calc.calc),
    _command("Choice", choice.PREFIX, choice.choice),
    _command("D66Dice", d66_dice.PREFIX, d66_dice.d66_dice),
    _command("Repeat", repeat.PREFIX, repeat.repeat, composes=True),
    _command("RerollDice", reroll_dice.PREFIX, reroll_dice.reroll_dice),
    _command("UpperDice", upper_dice.PREFIX, upper_dice.upper_dice),
    _command("Version", version.PREFIX, version.version),
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
