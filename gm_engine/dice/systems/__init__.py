"""Game systems, one module each, listed in :mod:`gm_engine.dice.systems.registry`."""
