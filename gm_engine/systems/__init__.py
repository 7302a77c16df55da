"""Game systems. Each module registers its system with :func:`gm_engine.dice.system.register_system`."""
