"""One catalogue for every message the play sessions and the ``gm`` commands show the player.

Japanese by default, English when the player chooses it (``GM_LOCALE=en``, or ``--locale en``
of the roll commands, the same ``ja``/``en`` locale the dice results use). Each message is a
frozen value class of :mod:`.texts` with a stable key and typed parameters; its text is in the
data files ``ja.toml`` and ``en.toml`` (same keys, same placeholders: a test checks both
against every message class). Modules:

* :mod:`.catalogue`: :class:`Message`, :func:`render`, :func:`locale_from_env`;
* :mod:`.texts`: the messages, grouped as the data files are (``cli``, ``roll``, ``adventure``,
  ``werewolf``), and :class:`~.texts.Reason`, why the werewolf engine refused something;
* :mod:`.validation`: a pydantic validation error as messages (which field, what was wrong,
  what is accepted);

The package imports no game engine, so every engine may take its texts from here: the combat
engine's refusals (``combat.refused.*``) and the werewolf renderer's sentences do. Messages
built from the werewolf engine's own objects (a refusal by rule, the hint after a missed
choice of seat, the line that confirms an unsure reading) are in
:mod:`gm_engine.sessions.werewolf.wording`.

::

    from gm_engine.messages import render
    from gm_engine.messages.texts import Resumed
    print(render(Resumed(replayed=286, new=12, path=str(path)), locale))
"""

from gm_engine.messages import texts as texts  # defines the messages (fills MESSAGES)
from gm_engine.messages.catalogue import (
    DEFAULT_LOCALE,
    LOCALES,
    MESSAGES,
    CatalogueError,
    Message,
    catalogue,
    locale_from_env,
    placeholders,
    render,
)

__all__ = [
    "DEFAULT_LOCALE",
    "LOCALES",
    "MESSAGES",
    "CatalogueError",
    "Message",
    "catalogue",
    "locale_from_env",
    "placeholders",
    "render",
]
