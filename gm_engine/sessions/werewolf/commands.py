"""What the human types at the table: discussion commands (/co, /result, /request, /decline,
/pass), the words that stop the session, and the command a legal claim is typed as.
"""

from __future__ import annotations

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

QUIT_WORDS = frozenset({"/quit", "/exit", "/end"})


HUMAN_HELP = (
    "発言はそのまま入力してください。コマンド: /co 役職 [Pn 白|黒] (CO), /result Pn 白|黒 (結果発表), "
    "/request 占い師|霊媒師 (CO要求), /decline (名乗り出ない), /pass, /help"
)


def parse_discussion(text: str, seat: int, table: Table | None = None) -> Action:
    """The action a line typed at a discussion turn stands for.

    With ``table`` (the seat's situation), a line in words that surely means a CO要求, a claim,
    a result, a decline or a pass (:func:`gm_engine.werewolf.phrases.read_line`) is that
    action; an unsure reading stays speech until the session can confirm it back.

    Raises:
        ValueError: a command with a wrong form (the message says the right one).
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
    if command == "/co":
        if not words or words[0] not in ROLE_BY_LABEL:
            raise ValueError("使い方: /co 占い師|狩人|霊媒師 [Pn 白|黒] [発言]")
        role = ROLE_BY_LABEL[words[0]]
        if len(words) >= 3 and words[2] in COLOUR_BY_LABEL:
            return Claim(seat, role, seat_number(words[1]), COLOUR_BY_LABEL[words[2]], " ".join(words[3:]))
        return Claim(seat, role, text=" ".join(words[1:]))
    if command == "/result":
        if len(words) < 2 or words[1] not in COLOUR_BY_LABEL:
            raise ValueError("使い方: /result Pn 白|黒 [発言]")
        return StateResult(seat, seat_number(words[0]), COLOUR_BY_LABEL[words[1]], " ".join(words[2:]))
    if command == "/request":
        if not words or words[0] not in ("占い師", "霊媒師"):
            raise ValueError("使い方: /request 占い師|霊媒師 [発言]")
        return RequestClaim(seat, ROLE_BY_LABEL[words[0]], " ".join(words[1:]))
    if command == "/decline":
        return Decline(seat, rest)
    raise ValueError(f"知らないコマンドです: {command}。{HUMAN_HELP}")


def claim_command(claim: Claim) -> str:
    """The command a human types for ``claim``."""
    result = ""
    if claim.target is not None and claim.colour is not None:
        result = f" {seat_label(claim.target)} {claim.colour.label}"
    return f"/co {claim.role.label}{result}"
