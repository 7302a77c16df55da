"""The words of ``gm serve``'s pages in a locale, from the message catalogue.

The pages hold no text of their own: the lobby's and a table's HTML name each word with a
``{{word}}`` mark (a :class:`~gm_engine.messages.texts.PageWord` value), which
:func:`render_page` fills in, escaped, in the page's locale; the scripts read every word they
show from :func:`page_strings`, embedded in the page as a JSON data block (never run: the
content security policy allows no inline script) and served as ``/api/strings/{locale}`` for
a table's page whose table speaks another language than the page was served in. A text with
``{placeholders}`` reaches a script with them left in (the script fills them in).

::

    page_strings("en")["send"]        # 'Send'
    page_strings("ja")["day_time"]    # '{day}日目 {time}　'
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources

from starlette.requests import HTTPConnection

from gm_engine.dice.result import Locale
from gm_engine.messages import DEFAULT_LOCALE, LOCALES, Message, render
from gm_engine.messages.texts import (
    ListSeparator,
    PageAIWolfAddress,
    PageCoBadge,
    PageDayTime,
    PageFold,
    PageInBattle,
    PageNameWith,
    PageNoModelServers,
    PagePartners,
    PageSkillPair,
    PageSkills,
    PageText,
    PageWord,
    PageYourRole,
    YourPartners,
    YourRole,
)

__all__ = ["PAGES", "page_strings", "render_page", "requester_locale", "word"]

#: The pages :func:`render_page` fills in (their files in the package's ``static`` folder).
PAGES = ("lobby", "table")

#: Each language by its own name (the lobby links to the other one).
LANGUAGE_NAMES: dict[Locale, str] = {"ja": "日本語", "en": "English"}

#: The command the lobby's note on model servers shows as code.
MODEL_SERVER_OPTION = "gm serve --model-server URL"

_MARK = re.compile(r"\{\{([a-z_]+)\}\}")


@cache
def word(which: PageWord, locale: Locale) -> str:
    """One word of the pages in ``locale`` (looked up once: a table's every question shows some)."""
    return render(PageText(which), locale)


def _template(message: Message, locale: Locale) -> str:
    """``message``'s text with its placeholders left in (each field set to ``{name}``)."""
    return render(type(message)(**{name: f"{{{name}}}" for name in message.field_names}), locale)


def _prefix(message: Message, locale: Locale) -> str:
    """What a screen line of ``message`` starts with, before its first placeholder."""
    return _template(message, locale).split("{", 1)[0]


@cache
def page_strings(locale: Locale) -> dict[str, str]:
    """Every word and template the pages' scripts show, by name, in ``locale``."""
    strings = {w.value: word(w, locale) for w in PageWord}
    templates: dict[str, Message] = {
        "day_time": PageDayTime("", ""),
        "your_role_line": PageYourRole(""),
        "partners_line": PagePartners(""),
        "co_badge": PageCoBadge(""),
        "name_with": PageNameWith("", ""),
        "skills_line": PageSkills(""),
        "skill_pair": PageSkillPair("", ""),
        "in_battle": PageInBattle(""),
        "fold": PageFold(""),
        "aiwolf_address": PageAIWolfAddress(""),
    }
    strings.update({name: _template(message, locale) for name, message in templates.items()})
    strings["list_separator"] = render(ListSeparator(), locale)
    # the screen lines that are P1's own notes (its role, its partners), shown apart
    strings["role_note"] = _prefix(YourRole(""), locale)
    strings["partners_note"] = _prefix(YourPartners(""), locale)
    strings["lang"] = locale
    return strings


def _script_json(value: object) -> str:
    """``value`` as JSON that a ``<script type="application/json">`` block holds safely."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@cache
def render_page(page: str, locale: Locale) -> str:
    """The HTML of ``page`` (one of :data:`PAGES`) in ``locale``: every ``{{word}}`` mark
    filled in, escaped; ``{{lang}}`` the locale; ``{{strings}}`` the scripts' words as JSON;
    ``{{other_language}}`` a link to the page in the other language, named in it.

    Raises:
        KeyError: the page names a word the catalogue does not have (a test keeps this
            from shipping).
    """
    source = resources.files("gm_engine.serve").joinpath("static", f"{page}.html").read_text("utf-8")
    strings = page_strings(locale)
    note = html.escape(render(PageNoModelServers("\0"), locale)).split("\0")
    other: Locale = "ja" if locale == "en" else "en"
    name = LANGUAGE_NAMES[other]
    link = f'<a class="sub" href="?lang={other}" lang="{other}" hreflang="{other}">{name}</a>'
    specials = {
        "other_language": link,
        "lang": locale,
        "strings": _script_json(strings),
        "no_model_servers": f"<code>{html.escape(MODEL_SERVER_OPTION)}</code>".join(note),
    }

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in specials:
            return specials[name]
        return html.escape(strings[name])

    return _MARK.sub(fill, source)


def requester_locale(request: HTTPConnection) -> Locale:
    """The language the requester reads: the one of Japanese and English its
    ``Accept-Language`` prefers (by its q weights), Japanese when it names neither."""
    best: tuple[float, Locale] = (0.0, DEFAULT_LOCALE)
    for part in request.headers.get("accept-language", "").split(","):
        tag, _, params = part.strip().partition(";")
        language = tag.strip().lower().split("-")[0]
        if language not in LOCALES:
            continue
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if weight > best[0]:
            best = (weight, "en" if language == "en" else "ja")
    return best[1]
