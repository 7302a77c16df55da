"""What the human types at the table: discussion commands (/co, /result, /request, /decline,
/pass), the words that stop the session, and the command a legal claim is typed as.
"""

from __future__ import annotations

from gm_engine.dice.result import Locale
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    DiscussionHelp,
    HelpHelpCommand,
    HelpLeaveThePage,
    HelpLogCommand,
    HelpQuitCommand,
    HelpVotesCommand,
    UnknownCommand,
    UsageClaim,
    UsageRequest,
    UsageResult,
)
from gm_engine.tools.werewolf import (
    COLOUR_BY_LABEL,
    ROLE_BY_LABEL,
    seat_label,
    seat_number,
)
from gm_engine.werewolf import (
    Action,
    Claim,
    Decline,
    RequestClaim,
    Speak,
    StateResult,
)
from gm_engine.werewolf.phrases import Table, meaning_action, read_line
from gm_engine.werewolf.records import Colour, Role

QUIT_WORDS = frozenset({"/quit", "/exit", "/end"})


#: How wide the command column of a help is: the discussion's, whose commands take arguments,
#: and every other question's.
DISCUSSION_COLUMN = 26
QUESTION_COLUMN = 8


def help_commands(locale: Locale, *, web: bool, column: int = QUESTION_COLUMN) -> str:
    """The last lines of every question's help: the commands each question takes (``/log``,
    ``/votes``, ``/help``, and ``/quit`` at a terminal), each padded to ``column``.

    A web table takes no ``/quit`` (the page is closed instead, and the table waits), so
    there the line saying so takes its place.
    """
    rows: list[tuple[str, Message]] = [
        ("/log", HelpLogCommand()),
        ("/votes", HelpVotesCommand()),
        ("/help", HelpHelpCommand()),
    ]
    if not web:
        rows.append(("/quit", HelpQuitCommand()))
    lines = [f"  {command.ljust(column)}{render(text, locale)}" for command, text in rows]
    if web:
        lines.append(render(HelpLeaveThePage(), locale))
    return "\n".join(lines)


#: The discussion's help at a terminal (the catalogue's, in the default locale).
HUMAN_HELP = render(DiscussionHelp(help_commands("ja", web=False, column=DISCUSSION_COLUMN)))


#: The words a command takes for a role and a colour: the rules' labels, and for a player of
#: the English locale the English names (case does not matter).
COMMAND_ROLES: dict[str, Role] = {
    **ROLE_BY_LABEL,
    "werewolf": Role.WEREWOLF, "villager": Role.VILLAGER, "seer": Role.SEER,
    "bodyguard": Role.BODYGUARD, "guard": Role.BODYGUARD, "hunter": Role.BODYGUARD,
    "medium": Role.MEDIUM, "madman": Role.MADMAN, "possessed": Role.MADMAN,
}
COMMAND_COLOURS: dict[str, Colour] = {**COLOUR_BY_LABEL, "white": Colour.WHITE, "black": Colour.BLACK}


class CommandError(ValueError):
    """A slash command typed in a wrong form; ``message`` (from the catalogue) says the right one."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.key)
        self.message = message


def _seat(label: str, usage: Message) -> int:
    try:
        return seat_number(label.upper())
    except ValueError:
        raise CommandError(usage) from None


def parse_discussion(text: str, seat: int, table: Table | None = None) -> Action:
    """The action a line typed at a discussion turn stands for.

    With ``table`` (the seat's situation), a line in words that surely means a CO要求, a claim,
    a result, a decline or a pass (:func:`gm_engine.werewolf.phrases.read_line`) is that
    action; an unsure reading stays speech until the session can confirm it back.

    Raises:
        CommandError: a command with a wrong form (its message says the right one).
    """
    line = " ".join(text.split())
    if not line.startswith("/"):
        reading = read_line(line, table) if table is not None and line else None
        if reading is not None and reading.sure:
            return meaning_action(reading.meaning, seat, line)
        return Speak(seat, line)
    command, _, rest = line.partition(" ")
    words = rest.split()
    if command == "/pass":
        return Speak(seat, "")
    lowered = [word.lower() for word in words]
    if command == "/co":
        if not words or lowered[0] not in COMMAND_ROLES:
            raise CommandError(UsageClaim())
        role = COMMAND_ROLES[lowered[0]]
        if len(words) >= 3 and lowered[2] in COMMAND_COLOURS:
            target = _seat(words[1], UsageClaim())
            return Claim(seat, role, target, COMMAND_COLOURS[lowered[2]], " ".join(words[3:]))
        return Claim(seat, role, text=" ".join(words[1:]))
    if command == "/result":
        if len(words) < 2 or lowered[1] not in COMMAND_COLOURS:
            raise CommandError(UsageResult())
        target = _seat(words[0], UsageResult())
        return StateResult(seat, target, COMMAND_COLOURS[lowered[1]], " ".join(words[2:]))
    if command == "/request":
        requested = COMMAND_ROLES.get(lowered[0]) if words else None
        if requested not in (Role.SEER, Role.MEDIUM):
            raise CommandError(UsageRequest())
        return RequestClaim(seat, requested, " ".join(words[1:]))
    if command == "/decline":
        return Decline(seat, rest)
    raise CommandError(UnknownCommand(command))


def claim_command(claim: Claim) -> str:
    """The command a human types for ``claim``."""
    result = ""
    if claim.target is not None and claim.colour is not None:
        result = f" {seat_label(claim.target)} {claim.colour.label}"
    return f"/co {claim.role.label}{result}"
