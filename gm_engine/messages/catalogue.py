"""The catalogue machinery: a :class:`Message` names its text by a stable key and carries
its parameters as typed fields; :func:`render` looks the key up in the locale's data file
(``ja.toml``, ``en.toml`` next to this module) and fills the fields in.

A message's text lives only in the data files, once per locale; code names the message by
its class, so a typo in a key or a missing parameter is a type error, not a blank on the
player's screen. The two data files hold the same keys with the same parameters (a test
checks it against every :class:`Message` subclass).
"""

from __future__ import annotations

import os
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from gm_engine.dice.result import Locale

LOCALES: tuple[Locale, ...] = ("ja", "en")
DEFAULT_LOCALE: Locale = "ja"

#: Every message class by key, filled in as the classes are defined.
MESSAGES: dict[str, type[Message]] = {}


class CatalogueError(ValueError):
    """A data file that cannot be read, or that lacks a key a message needs."""


@dataclass(frozen=True)
class Message:
    """A message to the player. Subclasses are frozen dataclasses that set ``key`` (the
    stable id the data files use) and declare the parameters as fields (``str`` or ``int``);
    the text's placeholders are exactly the field names."""

    key: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.key:
            raise TypeError(f"{cls.__name__} sets no key")
        if cls.key in MESSAGES:
            raise TypeError(f"message key {cls.key!r} is used by {MESSAGES[cls.key].__name__} already")
        MESSAGES[cls.key] = cls

    def text_key(self) -> str:
        """The key of this message's text (``key``, unless a subclass picks among texts)."""
        return self.key

    def params(self) -> Mapping[str, str | int | Message]:
        """The parameters by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, key + "."))
        elif isinstance(value, str):
            out[key] = value
        else:
            raise CatalogueError(f"{key}: a message text must be a string, not {type(value).__name__}")
    return out


@cache
def catalogue(locale: Locale) -> Mapping[str, str]:
    """The texts of ``locale`` by key (read once).

    Raises:
        CatalogueError: the data file is missing or is not valid TOML of strings.
    """
    if locale not in LOCALES:
        raise CatalogueError(f"no message catalogue for locale {locale!r} (known: {', '.join(LOCALES)})")
    try:
        text = resources.files(__package__).joinpath(f"{locale}.toml").read_text(encoding="utf-8")
        return _flatten(tomllib.loads(text))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"message catalogue {locale}.toml: {exc}") from None


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a text."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def render(message: Message, locale: Locale = DEFAULT_LOCALE) -> str:
    """The text of ``message`` in ``locale`` with its parameters filled in.

    Raises:
        CatalogueError: the catalogue lacks the key (a test keeps this from shipping).
    """
    texts = catalogue(locale)
    key = message.text_key()
    try:
        template = texts[key]
    except KeyError:
        raise CatalogueError(f"message {key!r} is missing from {locale}.toml") from None
    # a parameter that is a message itself (a problem inside a report) speaks the same language
    values = {
        name: render(value, locale) if isinstance(value, Message) else value
        for name, value in message.params().items()
    }
    return template.format_map(values)


def locale_from_env(environ: Mapping[str, str] | None = None) -> Locale:
    """The player's locale: ``GM_LOCALE`` (``ja`` or ``en``, or a value starting with one,
    like ``en_US.UTF-8``), else Japanese. ``LANG`` is not consulted: the games are Japanese,
    and English is a choice, not a side effect of a terminal's settings."""
    value = (os.environ if environ is None else environ).get("GM_LOCALE", "").strip().lower()
    return "en" if value.startswith("en") else DEFAULT_LOCALE
