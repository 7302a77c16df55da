"""A scan of the whole message catalogue: every key of ja.toml is in en.toml and the other way
round, every key a message class names has a text in both, each text's placeholders are
exactly its class's fields, and every message renders in both languages with values of its
fields' types (a message inside a message too), leaving no brace unfilled."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

import pytest

from gm_engine.dice.result import Locale
from gm_engine.messages import LOCALES, MESSAGES, Message, catalogue, placeholders, render
from gm_engine.messages.texts import (
    CombatWord,
    CombatWordKind,
    Fault,
    GmCanBe,
    GmWhich,
    PageText,
    PageWord,
    Problem,
    Reason,
    SealFault,
    SealProblem,
    ThingKind,
    Verdict,
    VerdictWord,
    Why,
)

#: The classes whose text is chosen by an enum field: each value is a text of its own.
BY_ENUM: dict[type[Message], list[Message]] = {
    Why: [Why(reason) for reason in Reason],
    Problem: [Problem(fault) for fault in Fault],
    SealProblem: [SealProblem(fault) for fault in SealFault],
    VerdictWord: [VerdictWord(verdict) for verdict in Verdict],
    GmWhich: [GmWhich(kind) for kind in ThingKind],
    GmCanBe: [GmCanBe(kind) for kind in ThingKind],
    CombatWord: [CombatWord(kind) for kind in CombatWordKind],
    PageText: [PageText(word) for word in PageWord],
}


def _keys(locale: str) -> set[str]:
    """The keys of a data file as written (not through the catalogue's reader)."""
    text = resources.files("gm_engine.messages").joinpath(f"{locale}.toml").read_text(encoding="utf-8")

    def walk(table: dict[str, Any], prefix: str = "") -> set[str]:
        keys: set[str] = set()
        for name, value in table.items():
            keys |= walk(value, f"{prefix}{name}.") if isinstance(value, dict) else {f"{prefix}{name}"}
        return keys

    return walk(tomllib.loads(text))


def _sample(cls: type[Message]) -> Message:
    """An instance of ``cls`` with a value of each field's type."""
    values: dict[str, object] = {}
    for name, kind in field_types(cls).items():
        if kind == "int":
            values[name] = 7
        elif "Message" in kind:
            values[name] = Why(Reason.OTHER)  # a message inside the message
        else:
            values[name] = f"<{name}>"
    return cls(**values)


def field_types(cls: type[Message]) -> dict[str, str]:
    """Each parameter of ``cls`` with its annotation's text (the classes are declared with
    ``from __future__ import annotations``: their annotations are text)."""
    annotations: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        annotations.update({k: str(v) for k, v in vars(klass).get("__annotations__", {}).items()})
    return {name: annotations[name] for name in cls.field_names}


def test_both_data_files_hold_the_same_keys() -> None:
    ja, en = _keys("ja"), _keys("en")
    assert ja - en == set(), "in ja.toml only"
    assert en - ja == set(), "in en.toml only"


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_renders_with_its_fields(locale: Locale) -> None:
    texts = catalogue(locale)
    nested = render(Why(Reason.OTHER), locale)
    rendered = 0
    for cls in MESSAGES.values():
        messages = BY_ENUM.get(cls) or [_sample(cls)]
        for message in messages:
            key = message.text_key()
            assert key in texts, f"{key} has no text in {locale}.toml"
            fields = set(cls.field_names) if cls not in BY_ENUM else set()
            assert placeholders(texts[key]) == fields, key  # every field used, no other placeholder
            text = render(message, locale)
            assert text.strip() and "{" not in text.replace("{{", "") and "}" not in text, key
            for name in fields:
                value = getattr(message, name)
                shown = nested if isinstance(value, Message) else str(value)
                assert shown in text, (key, name)
            rendered += 1
    assert rendered >= len(MESSAGES) > 200
