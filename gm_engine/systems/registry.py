"""The game systems gm knows, one module each; :func:`gm_engine.dice.system.get_system`
finds them here by id.

A new system is a module of this package (its :class:`~gm_engine.dice.system.GameSystem`
subclass), its BCDice-format vector file under ``tests/data/``, and one line below.
"""

from __future__ import annotations

from types import MappingProxyType

from gm_engine.dice.system import GameSystem
from gm_engine.systems.cthulhu import Cthulhu
from gm_engine.systems.cthulhu7th import Cthulhu7th
from gm_engine.systems.dicebot import DiceBot
from gm_engine.systems.the_one_ring2 import TheOneRing2nd

#: Every system, DiceBot first.
SYSTEMS: tuple[type[GameSystem], ...] = (
    DiceBot,
    Cthulhu,
    Cthulhu7th,
    TheOneRing2nd,
)

#: The systems by their BCDice id (read-only).
SYSTEMS_BY_ID = MappingProxyType({cls.id: cls for cls in SYSTEMS})
