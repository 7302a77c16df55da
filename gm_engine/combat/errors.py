"""The combat engine's exceptions. All subclass :class:`ValueError`, so a caller that
only knows "bad input" can catch that; every message says what was wrong."""

from __future__ import annotations

from gm_engine.dice.result import Locale
from gm_engine.messages.catalogue import Message, render


class CombatError(ValueError):
    """Base class of every error the combat engine raises on bad input."""


class InvalidCharacterError(CombatError):
    """A character, party, enemy or encounter breaks a rule of the document.

    ``rule`` names the clause (e.g. ``"§10.1"``).
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} ({rule})" if rule else message)
        self.rule = rule


class OutOfOrderError(CombatError):
    """An action was taken at a pause where it does not belong (e.g. judging before rolling).

    The battle is unchanged. ``phase`` is the pause the battle is at.
    """

    def __init__(self, message: str, phase: str = "") -> None:
        super().__init__(message)
        self.phase = phase


class IllegalActionError(CombatError):
    """An action is in the right phase but breaks a rule (no slot, unknown target, cap exceeded…).

    The battle is unchanged. ``reason`` says why, as a message of the catalogue
    (:mod:`gm_engine.messages.texts`, ``combat.refused.*``): a player is shown
    :meth:`describe` in their language. ``str(exc)`` is the English text, for a model or a
    tool caller (the same words whatever the player's locale, so a recorded tool result
    replays byte for byte). ``rule`` names the clause of the document or option.
    """

    def __init__(self, reason: Message, rule: str = "") -> None:
        english = render(reason, "en")
        super().__init__(f"{english} ({rule})" if rule else english)
        self.reason = reason
        self.rule = rule

    def describe(self, locale: Locale) -> str:
        """Why, in ``locale``, with the clause it breaks."""
        text = render(self.reason, locale)
        if not self.rule:
            return text
        return f"{text}（{self.rule}）" if locale == "ja" else f"{text} ({self.rule})"


class StorageError(CombatError):
    """A saved file could not be read: not JSON, the wrong kind of record, or invalid data."""
