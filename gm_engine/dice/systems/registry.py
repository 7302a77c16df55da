"""The game systems gm knows, one module each, and :func:`get_system`, which finds them by id.

A new system is a module of this package (its :class:`~gm_engine.dice.system.GameSystem`
subclass), its BCDice-format vector file under ``tests/data/``, and one line below.
"""

from __future__ import annotations

from types import MappingProxyType

from gm_engine.dice.system import GameSystem, UnknownSystemError
from gm_engine.dice.systems.cthulhu import Cthulhu
from gm_engine.dice.systems.cthulhu7th import Cthulhu7th
from gm_engine.dice.systems.dicebot import DiceBot
from gm_engine.dice.systems.the_one_ring2 import TheOneRing2nd

#: Every system, DiceBot first.
SYSTEMS: tuple[type[GameSystem], ...] = (
    DiceBot,
    Cthulhu,
    Cthulhu7th,
    TheOneRing2nd,
)

#: The systems by their BCDice id (read-only).
SYSTEMS_BY_ID = MappingProxyType({cls.id: cls for cls in SYSTEMS})


def get_system(system_id: str) -> GameSystem:
    """A fresh instance of the system listed as ``system_id``.

    Raises:
        UnknownSystemError: no such system; the message lists the known ones.
    """
    try:
        return SYSTEMS_BY_ID[system_id]()
    except KeyError:
        known = ", ".join(sorted(SYSTEMS_BY_ID))
        # ids are matched exactly, as in BCDice; a difference of case only is named
        alike = [name for name in sorted(SYSTEMS_BY_ID) if name.lower() == system_id.lower()]
        hint = f" (did you mean {alike[0]!r}?)" if alike else ""
        raise UnknownSystemError(
            f"unknown game system {system_id!r}{hint}; known: {known}",
            system_id=system_id,
            known=tuple(sorted(SYSTEMS_BY_ID)),
            alike=alike[0] if alike else "",
        ) from None


def all_systems() -> list[type[GameSystem]]:
    """Every listed system, DiceBot first, then by id."""
    return sorted(SYSTEMS_BY_ID.values(), key=lambda cls: (cls.id != "DiceBot", cls.id))
