"""The catalogue's reader of its data files: the shipped ``ja.toml`` and ``en.toml`` are read
without :mod:`tomllib` (its six milliseconds are paid at every start) and give exactly what
``tomllib`` gives; any other TOML, valid or not, is left to ``tomllib``."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

import pytest

from gm_engine.messages import LOCALES
from gm_engine.messages.catalogue import CatalogueError, _read_plain, read_catalogue


def _by_tomllib(text: str) -> dict[str, str]:
    def walk(table: dict[str, Any], prefix: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, value in table.items():
            if isinstance(value, dict):
                out.update(walk(value, f"{prefix}{name}."))
            else:
                out[f"{prefix}{name}"] = value
        return out

    return walk(tomllib.loads(text), "")


@pytest.mark.parametrize("locale", LOCALES)
def test_a_shipped_catalogue_is_read_without_tomllib_and_as_tomllib_reads_it(locale: str) -> None:
    text = resources.files("gm_engine.messages").joinpath(f"{locale}.toml").read_text(encoding="utf-8")
    plain = _read_plain(text)
    assert plain is not None, f"{locale}.toml has a line the plain reader leaves to tomllib"
    assert plain == _by_tomllib(text)
    assert len(plain) > 600


#: Texts in the plain shapes: each must read as tomllib reads it.
PLAIN = [
    '[a]\nx = "one"\ny = "two"  # a comment\n',
    '# top\n\n[a.b]\nx = "tab\\there \\"quoted\\" back\\\\slash\\nline"\n[c]\nx = ""\n',
    '[a]\nhelp = """\nfirst\n  [not a table]\nlast"""\nnext = "n"\n',
    '[a]\nhelp = """same line"""\n',
    '[a]\r\nx = "crlf"\r\n',
    'top = "before any table"\n[a]\nx = "y"\n',
    '[a]\nx = "日本語の{name}"\n',
    '[a]\nx = """one""" # after\n',
]

#: Valid TOML outside the plain shapes: tomllib reads it.
OTHER = [
    "[a]\nx = 'literal'\n",
    '[a]\nx = "\\u00e9t\\u00e9"\n',
    '[a]\nx = """\nline \\\n  joined"""\n',
    'a = { x = "inline" }\n',
    '[a]\n"quoted key" = "v"\n',
    '[a]\nx.y = "dotted"\n',
    '[ a ]\nx = "spaced header"\n',
    '[a]\nx = """say "hi""""\n',
]

#: Not TOML: tomllib's error, as before.
BROKEN = [
    '[a]\nx = "one"\nx = "again"\n',
    '[a]\nx = "v"\n[a]\ny = "w"\n',
    '[a]\nx = "v"\n[a.x]\ny = "w"\n',
    '[a]\nx = "unterminated\n',
    '[a]\nx = """never closed\n',
    "[a]\nx = \n",
    '[a\nx = "v"\n',
]


@pytest.mark.parametrize("text", PLAIN + OTHER)
def test_any_valid_text_reads_as_tomllib_reads_it(text: str) -> None:
    assert read_catalogue(text) == _by_tomllib(text)


@pytest.mark.parametrize("text", PLAIN)
def test_the_plain_shapes_are_read_without_tomllib(text: str) -> None:
    assert _read_plain(text) == _by_tomllib(text)


@pytest.mark.parametrize("text", OTHER + BROKEN)
def test_anything_else_is_left_to_tomllib(text: str) -> None:
    assert _read_plain(text) is None


@pytest.mark.parametrize("text", BROKEN)
def test_a_broken_text_gets_tomllibs_error(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        read_catalogue(text)


def test_a_value_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(CatalogueError, match=r"a\.x: a message text must be a string, not int"):
        read_catalogue("[a]\nx = 3\n")
