"""The dice engine: BCDice-compatible commands over one injectable, recorded source of dice.

Use :func:`gm_engine.dice.engine.evaluate` for a chat line; the source of dice is in
:mod:`gm_engine.dice.source`, results in :mod:`gm_engine.dice.result`, game systems in
:mod:`gm_engine.dice.systems` (listed in :mod:`gm_engine.dice.systems.registry`), the common
commands in :mod:`gm_engine.dice.commands`, and what one line may cost in
:mod:`gm_engine.dice.limits`. The systems, commands and limits, and where the text differs
from BCDice: docs/dice.md.

This package module imports nothing: a game that only draws dice from
:mod:`gm_engine.dice.source` (werewolf) or names a :data:`~gm_engine.dice.result.Locale`
does not load the command parser and every game system with it.
"""
