"""The combat engine's exceptions. All subclass :class:`ValueError`, so a caller that
only knows "bad input" can catch that; every one says what was wrong.

Each carries its ``reason`` as a message of the catalogue (:mod:`gm_engine.messages.texts`,
``combat.*``) and ``rule``, the clause of the document or option it breaks (may be empty):
a player is shown :meth:`CombatError.describe` in their language. ``str(exc)`` is the English
text, for a model or a tool caller (the same words whatever the player's locale, so a
recorded tool result replays byte for byte).
"""

from __future__ import annotations

from gm_engine.dice.result import Locale
from gm_engine.messages.catalogue import Message, render
from gm_engine.messages.texts import WithClause


class CombatError(ValueError):
    """Base class of every error the combat engine raises on bad input (see the module
    docstring for ``reason``, ``rule`` and :meth:`describe`)."""

    def __init__(self, reason: Message, rule: str = "") -> None:
        self.reason = reason
        self.rule = rule
        super().__init__(render(self.explanation(), "en"))

    def explanation(self) -> Message:
        """What was wrong, with the clause it breaks (a catalogue message)."""
        return WithClause(self.reason, self.rule) if self.rule else self.reason

    def describe(self, locale: Locale) -> str:
        """What was wrong, in ``locale``, with the clause it breaks."""
        return render(self.explanation(), locale)


class InvalidCharacterError(CombatError):
    """A character, party, enemy or encounter breaks a rule of the document.

    ``rule`` names the clause (e.g. ``"§10.1"``).
    """


class OutOfOrderError(CombatError):
    """An action was taken at a pause where it does not belong (e.g. judging before rolling).

    The battle is unchanged. ``phase`` is the pause the battle is at.
    """

    def __init__(self, reason: Message, phase: str = "") -> None:
        super().__init__(reason)
        self.phase = phase


class IllegalActionError(CombatError):
    """An action is in the right phase but breaks a rule (no slot, unknown target, cap exceeded…).

    The battle is unchanged. ``reason`` says why (``combat.refused.*``); ``rule`` names the
    clause of the document or option.
    """


class StorageError(CombatError):
    """A saved file could not be read: not JSON, the wrong kind of record, or invalid data."""
