"""The game systems gm knows, one module each, and :func:`get_system`, which finds them by id.

A new system is a module of this package (its :class:`~gm_engine.dice.system.GameSystem`
subclass), its BCDice-format vector file under ``tests/data/``, and one line below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from gm_engine.dice.system import GameSystem, UnknownSystemError


def _dicebot() -> type[GameSystem]:
    from gm_engine.dice.systems.dicebot import DiceBot

    return DiceBot


def _cthulhu() -> type[GameSystem]:
    from gm_engine.dice.systems.cthulhu import Cthulhu

    return Cthulhu


def _cthulhu7th() -> type[GameSystem]:
    from gm_engine.dice.systems.cthulhu7th import Cthulhu7th

    return Cthulhu7th


def _the_one_ring2() -> type[GameSystem]:
    from gm_engine.dice.systems.the_one_ring2 import TheOneRing2nd

    return TheOneRing2nd


#: Every system by its BCDice id, DiceBot first, with the function that imports its class:
#: a system's module is imported when the system is first asked for, so that a session
#: that rolls in one system (and a replay of it) loads no other.
_SYSTEM_MODULES: dict[str, Callable[[], type[GameSystem]]] = {
    "DiceBot": _dicebot,
    "Cthulhu": _cthulhu,
    "Cthulhu7th": _cthulhu7th,
    "TheOneRing2nd": _the_one_ring2,
}


def system_ids() -> list[str]:
    """Every listed system's id, DiceBot first, then by id (as :func:`all_systems` orders
    them), without importing any system."""
    return sorted(_SYSTEM_MODULES, key=lambda system_id: (system_id != "DiceBot", system_id))


@cache
def system_class(system_id: str) -> type[GameSystem]:
    """The class of the system listed as ``system_id``, its module imported on first use.

    Raises:
        KeyError: no such system is listed.
    """
    cls = _SYSTEM_MODULES[system_id]()
    if cls.id != system_id:  # the list and the class must agree, or a lookup would lie
        raise TypeError(f"{cls.__name__} has the id {cls.id!r}, listed as {system_id!r}")
    return cls


if TYPE_CHECKING:
    #: Every system, DiceBot first (importing every system's module).
    SYSTEMS: tuple[type[GameSystem], ...]
    #: The systems by their BCDice id (read-only; importing every system's module).
    SYSTEMS_BY_ID: Mapping[str, type[GameSystem]]


def __getattr__(name: str) -> object:
    # SYSTEMS and SYSTEMS_BY_ID are built on first use: they need every system's module
    if name == "SYSTEMS":
        return tuple(system_class(system_id) for system_id in _SYSTEM_MODULES)
    if name == "SYSTEMS_BY_ID":
        return MappingProxyType({system_id: system_class(system_id) for system_id in _SYSTEM_MODULES})
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_system(system_id: str) -> GameSystem:
    """A fresh instance of the system listed as ``system_id``.

    Raises:
        UnknownSystemError: no such system; the message lists the known ones.
    """
    try:
        cls = system_class(system_id)
    except KeyError:
        listed = sorted(_SYSTEM_MODULES)
        known = ", ".join(listed)
        # ids are matched exactly, as in BCDice; a difference of case only is named
        alike = [name for name in listed if name.lower() == system_id.lower()]
        hint = f" (did you mean {alike[0]!r}?)" if alike else ""
        raise UnknownSystemError(
            f"unknown game system {system_id!r}{hint}; known: {known}",
            system_id=system_id,
            known=tuple(listed),
            alike=alike[0] if alike else "",
        ) from None
    return cls()


def all_systems() -> list[type[GameSystem]]:
    """Every listed system, DiceBot first, then by id."""
    return [system_class(system_id) for system_id in system_ids()]
