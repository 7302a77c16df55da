"""Game systems, one module each, listed in :mod:`gm_engine.systems.registry`."""
