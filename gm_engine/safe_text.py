"""Text from a model (or a transcript, or a server's error body) made safe to show on a terminal.

A model writes speeches, vote reasons, narrator lines, a GM's narration and summaries;
all of it reaches the player's screen. A terminal obeys what it is sent, so a raw
``ESC [ 2 J`` clears the screen, ``ESC ] 0 ;`` sets the window title, a carriage return
or an RLO (U+202E) rewrites what the line seems to say. :func:`printable` makes every
such character visible instead of letting it act:

* C0 controls and DEL become their Unicode control pictures (``ESC`` -> ``␛``, ``CR`` ->
  ``␍``), so an escape sequence shows as the literal text ``␛[2J``; tab and newline stay
  (``newlines=False`` shows a newline as ``␤``, for a field that must stay one line);
* C1 controls (U+0080..U+009F, among them the one-byte CSI and OSC), bidi embeddings,
  overrides, isolates and marks, invisible format characters, line and paragraph
  separators and lone surrogates (undecodable bytes kept by ``surrogateescape``) become
  ``<U+XXXX>``;
* everything else is kept as it is: Japanese, full-width punctuation, emoji (the zero
  width joiner and non-joiner that emoji and scripts need stay).

Rich markup is not this module's business: the screen prints model text as
:class:`rich.text.Text` (never parsed as markup), so ``[bold]`` shows literally.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TextIO

# Every character of the general categories Cc, Cf, Zl, Zp and Cs (as of Unicode 15.1), except
# tab, newline, ZWNJ and ZWJ; tests/test_safe_text.py checks it against the running unicodedata.
_UNSAFE_RANGES = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "\ud800-\udfff"
)
_UNSAFE = re.compile(f"[{_UNSAFE_RANGES}]")
_UNSAFE_OR_NEWLINE = re.compile(f"[{_UNSAFE_RANGES}\n]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures block: ␀ ... ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def _visible_newline(match: re.Match[str]) -> str:
    return "\u2424" if match.group() == "\n" else _visible(match)  # ␤


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` with every terminal-affecting character shown as a visible token (see the
    module docstring); text without any comes back as it is."""
    pattern = _UNSAFE if newlines else _UNSAFE_OR_NEWLINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_visible if newlines else _visible_newline, text)


def safe_show(show: Callable[[str], None]) -> Callable[[str], None]:
    """A session's ``show`` that passes every line through :func:`printable` first."""

    def shown(line: str) -> None:
        show(printable(line))

    return shown


def safe_print(text: str, *, file: TextIO | None = None) -> None:
    """``print`` for a line that may carry outside text (a model's summary, a server's
    error message): made :func:`printable` first."""
    print(printable(text), file=file if file is not None else sys.stdout)
