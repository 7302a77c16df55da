"""Where a session's human input comes from: a script or the person at the terminal.

(The automatic P1 of ``--auto`` games is :class:`gm_engine.sessions.werewolf_offline.AutoHuman`;
a replay's is :class:`gm_engine.transcripts.replay.ReplayHuman`.)
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from gm_engine.dice.result import Locale
from gm_engine.messages import render
from gm_engine.messages.texts import ChooseOneOf, UnreadableInput
from gm_engine.safe_text import printable
from gm_engine.sessions.base import HumanDefaults, SessionError

#: What the terminal human is told when a line held bytes that are not text (invalid UTF-8).
UNREADABLE_INPUT = render(UnreadableInput())

# what stops a session at any question, also one that offers choices
_STOP = frozenset({"/quit", "/exit", "/end"})

# lone surrogates: the bytes ``surrogateescape`` could not decode
_UNDECODED = re.compile("[\ud800-\udfff]")


def script_lines(path: str | Path) -> list[str]:
    """The lines of a ``--script FILE`` (UTF-8 text).

    Raises:
        OSError: the file cannot be read.
        SessionError: it is not UTF-8 text (said in Japanese, without a codec message).
    """
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise SessionError(
            f"{path}: {exc.start + 1}バイト目に読み取れない文字があります（UTF-8 のテキストにしてください）"
        ) from None


class ScriptedHuman(HumanDefaults):
    """A human whose lines come from a list; when they run out it says ``when_done``
    (or raises :class:`SessionError` when ``when_done`` is None)."""

    def __init__(self, lines: Iterable[str], *, when_done: str | None = "/quit") -> None:
        self.lines = list(lines)
        self.when_done = when_done
        self.asked = 0

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """The next scripted line.

        Raises:
            SessionError: the script ran out and there is no ``when_done`` line.
        """
        self.asked += 1
        if self.lines:
            return self.lines.pop(0)
        if self.when_done is None:
            raise SessionError(f"the scripted human has no line left for {prompt!r}")
        return self.when_done


class TerminalHuman(HumanDefaults):
    """A human at the terminal; end of input counts as ``/quit``.

    A line that does not decode (invalid UTF-8) is answered with :data:`UNREADABLE_INPUT`
    and asked again: the session never sees it, so it is never recorded.

    With ``check_choices`` a line that is not one of the offered ``choices`` is asked
    again here; without, every line is passed on for the session to check (and explain).
    ``prompt_end`` follows the prompt, e.g. ``"\\n> "`` for an answer on a line of its own;
    ``locale`` is the language of what it says itself.
    """

    def __init__(self, *, prompt_end: str = "", check_choices: bool = True, locale: Locale = "ja") -> None:
        self.prompt_end = prompt_end
        self.check_choices = check_choices
        self.locale = locale

    def _shown(self, prompt: str, choices: Sequence[str] | None) -> str:
        listed = f" ({' / '.join(choices)}) " if choices and self.check_choices else ""
        return printable(f"{prompt}{listed}{self.prompt_end}")

    def echo(self, prompt: str, choices: Sequence[str] | None, answer: str) -> None:
        """Show a question and the answer typed to it as the terminal showed them when
        they were asked (``gm resume`` re-shows the recorded part of a session so)."""
        print(self._shown(prompt, choices) + printable(answer))

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """Read one line from standard input."""
        shown = self._shown(prompt, choices)
        _keep_undecodable_bytes()
        while True:
            try:
                line = input(shown)
            except EOFError:
                return "/quit"
            except UnicodeDecodeError:  # a stream that could not be told to keep the bytes
                print(render(UnreadableInput(), self.locale))
                continue
            if _UNDECODED.search(line):
                print(render(UnreadableInput(), self.locale))
                continue
            if not self.check_choices or choices is None or line in choices or line.strip() in _STOP:
                return line
            print(printable(render(ChooseOneOf(", ".join(choices)), self.locale)))


def _keep_undecodable_bytes() -> None:
    """Make standard input decode invalid bytes as lone surrogates rather than raise: a
    strict decoder raising in the middle of a buffered read would lose the lines after the
    bad one, where this way exactly the bad line is refused."""
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper) and stdin.errors == "strict":
        stdin.reconfigure(errors="surrogateescape")


def werewolf_table_human(locale: Locale = "ja") -> TerminalHuman:
    """The person at P1 of a werewolf game, as ``gm werewolf play`` and ``gm resume`` both ask
    them: the answer on a line of its own after ``> ``, every line passed on to the session
    (which reads names, /help and /quit at every question and explains a refusal in the
    table's words)."""
    return TerminalHuman(prompt_end="\n> ", check_choices=False, locale=locale)
