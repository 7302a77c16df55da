"""The catalogue machinery: a :class:`Message` names its text by a stable key and carries
its parameters as typed fields; :func:`render` looks the key up in the locale's data file
(``ja.toml``, ``en.toml`` next to this module) and fills the fields in.

A message's text lives only in the data files, once per locale; code names the message by
its class, so a typo in a key or a missing parameter is a type error, not a blank on the
player's screen. The two data files hold the same keys with the same parameters (a test
checks it against every :class:`Message` subclass).
"""

from __future__ import annotations

import json
import os
import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from functools import cache
from importlib import resources
from typing import Any, ClassVar, dataclass_transform, get_origin

from gm_engine.dice.result import Locale

LOCALES: tuple[Locale, ...] = ("ja", "en")
DEFAULT_LOCALE: Locale = "ja"

#: Every message class by key, filled in as the classes are defined.
MESSAGES: dict[str, type[Message]] = {}


class CatalogueError(ValueError):
    """A data file that cannot be read, or that lacks a key a message needs."""


def _is_class_variable(annotation: object) -> bool:
    # annotations are strings under ``from __future__ import annotations``, objects otherwise
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or get_origin(annotation) is ClassVar


@dataclass_transform(frozen_default=True)
class Message:
    """A message to the player. A subclass sets ``key`` (the stable id the data files use)
    and declares the parameters as annotated fields (``str``, ``int`` or a text-choosing
    enum); the text's placeholders are exactly the field names.

    A subclass is a frozen value like a frozen dataclass (keyword or positional
    construction, ``==``, ``hash``, ``repr``, assignment refused with
    :class:`dataclasses.FrozenInstanceError`) without being decorated: the catalogue
    declares over a hundred messages and ``gm`` defines them at every start, where
    ``@dataclass`` generates and compiles five methods per class (about 2.7 million
    instructions each, more than all of ``gm replay``'s other message work). The methods
    here are shared and read :attr:`field_names`. A subclass that is decorated with
    ``@dataclass(frozen=True)`` all the same still works (its generated methods take over).
    """

    key: ClassVar[str] = ""
    #: The parameters' names in declaration order (a base's first), set for each subclass.
    field_names: ClassVar[tuple[str, ...]] = ()
    #: The parameters that have a default, with it.
    _defaults: ClassVar[Mapping[str, object]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.key:
            raise TypeError(f"{cls.__name__} sets no key")
        if cls.key in MESSAGES:
            raise TypeError(f"message key {cls.key!r} is used by {MESSAGES[cls.key].__name__} already")
        own = [
            name
            for name, annotation in vars(cls).get("__annotations__", {}).items()
            if not _is_class_variable(annotation)
        ]
        cls.field_names = cls.field_names + tuple(name for name in own if name not in cls.field_names)
        cls._defaults = {**cls._defaults, **{name: vars(cls)[name] for name in own if name in vars(cls)}}
        MESSAGES[cls.key] = cls

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        names = cls.field_names
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, {len(args)} were given")
        values = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
            values[name] = value
        if len(values) < len(names):
            for name, default in cls._defaults.items():
                values.setdefault(name, default)
            missing = [name for name in names if name not in values]
            if missing:
                raise TypeError(f"{cls.__name__}() missing arguments: {', '.join(missing)}")
        vars(self).update(values)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.field_names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.field_names)
        return f"{type(self).__qualname__}({shown})"

    def text_key(self) -> str:
        """The key of this message's text (``key``, unless a subclass picks among texts)."""
        return self.key

    def params(self) -> Mapping[str, str | int | Message]:
        """The parameters by name."""
        return {name: getattr(self, name) for name in self.field_names}


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


# The shapes of line the data files are written in: a table header, a one-line basic string
# (escapes only of the kinds JSON shares with TOML) and the opening of a multi-line one.
_TABLE = re.compile(r"\[([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\][ \t]*(?:#.*)?")
_PLAIN = r'[^"\\\x00-\x08\x0a-\x1f\x7f]*'
_STRING = re.compile(rf'([A-Za-z0-9_]+)[ \t]*=[ \t]*"({_PLAIN}(?:\\[\\"ntrbf]{_PLAIN})*)"[ \t]*(?:#.*)?')
_MULTILINE = re.compile(r'([A-Za-z0-9_]+)[ \t]*=[ \t]*"""')


def _read_plain(text: str) -> dict[str, str] | None:
    """The texts of a data file written only in the catalogue's plain shapes, by dotted key;
    None for a file that is not (any other TOML is left to :mod:`tomllib`).

    ``tomllib`` reads a catalogue in about six milliseconds, which every ``gm`` command that
    speaks to the player pays at its start (more than a third of what rendering costs a
    whole replay); these files need a sliver of TOML: ``[a.b]`` tables, ``key = "…"`` and
    ``key = \"\"\"…\"\"\"`` with no escapes inside. A duplicate table or key, an inline
    table, a literal string, a rarer escape or anything else gives None, so that
    :mod:`tomllib` reads it and reports what is wrong as before
    (``tests/test_messages.py`` checks both readers agree on the shipped files).
    """
    out: dict[str, str] = {}
    tables: set[str] = set()
    prefix = ""
    lines = text.split("\n")
    count = len(lines)
    index = 0
    while index < count:
        line = lines[index].rstrip("\r")
        index += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            table = _TABLE.fullmatch(stripped)
            if table is None or table.group(1) in tables or table.group(1) in out:
                return None
            tables.add(table.group(1))
            prefix = table.group(1) + "."
            continue
        single = _STRING.fullmatch(stripped)
        if single is not None:
            value = single.group(2)
            if "\\" in value:
                value = json.loads(f'"{value}"')
            name = single.group(1)
        else:
            opening = _MULTILINE.match(stripped)
            if opening is None:
                return None
            name = opening.group(1)
            # the body runs to the next \"\"\"; a newline right after the opening is dropped
            body = [stripped[opening.end() :]]
            while '"""' not in body[-1]:
                if index >= count:
                    return None
                body.append(lines[index].rstrip("\r"))
                index += 1
            joined = "\n".join(body)
            end = joined.index('"""')
            value, rest = joined[:end], joined[end + 3 :].strip()
            if "\\" in value or '"' in rest or (rest and not rest.startswith("#")):
                return None
            value = value.removeprefix("\n")
        key = prefix + name
        if key in out or key in tables:
            return None
        out[key] = value
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
        return read_catalogue(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"message catalogue {locale}.toml: {exc}") from None


def read_catalogue(text: str) -> dict[str, str]:
    """The texts of a data file by dotted key, as :mod:`tomllib` reads them.

    Raises:
        tomllib.TOMLDecodeError: the text is not TOML.
        CatalogueError: a value is not a string.
    """
    plain = _read_plain(text)
    return plain if plain is not None else _flatten(tomllib.loads(text))


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
