"""Game systems and common commands, each found by name through a registry.

A game system (Cthulhu7th, TheOneRing2nd, ...) answers its own commands first; every
system, as in BCDice, also answers the common commands (add dice, xBy, choice, ...).
Modules under :mod:`gm_engine.systems` and :mod:`gm_engine.dice.commands` register
themselves when imported; :func:`load_all` imports every one of them.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeVar

from gm_engine.dice.result import Locale, Outcome
from gm_engine.dice.source import DiceSource

RoundType = Literal["floor", "ceil", "round"]


class UnknownSystemError(ValueError):
    """No game system is registered under the id asked for."""


@dataclass
class RollContext:
    """What a command handler may use: the dice, the locale, the system and table packs."""

    source: DiceSource
    system: GameSystem
    locale: Locale = "ja"
    tables_dir: str | None = None
    extras: dict[str, object] = field(default_factory=dict)


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

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        """Evaluate one of the system's own commands, or return None when it is not one."""
        return None


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
        raise UnknownSystemError(f"unknown game system {system_id!r}; known: {known}") from None


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


def register_command(name: str, order: int, prefix: str) -> Callable[[CommandFunc], CommandFunc]:
    """Decorator: register ``func(command, ctx)`` as a common command.

    ``prefix`` is a regular expression matched case-insensitively at the start of the
    command, a cheap test before the handler runs.
    """

    def decorate(func: CommandFunc) -> CommandFunc:
        _COMMANDS.append(CommonCommand(name, order, re.compile(prefix, re.IGNORECASE), func))
        _COMMANDS.sort(key=lambda c: c.order)
        return func

    return decorate


def common_commands() -> list[CommonCommand]:
    """The registered common commands in order of trial."""
    load_all()
    return list(_COMMANDS)


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
