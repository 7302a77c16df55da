"""Common commands that every game system answers, as in BCDice. Each module registers itself."""
