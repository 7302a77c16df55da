"""What a seat's page shows besides its screen lines: the panel and the buttons of the question.

Built from what the session hands the human before each question
(:meth:`~gm_engine.sessions.base.HumanInput.observe`): for werewolf, P1's own
:class:`~gm_engine.werewolf.views.Observation` and legal actions; for an adventure, the
party as the GM's view shows it. Nothing here reads the game itself, so a panel holds what
the seat may know and nothing else (another seat's role is never in an observation
before 【ゲーム終了】), and a button is a legal action typed as the terminal player would
type it (the session reads and checks it as it reads every line).

Every value is plain JSON-ready data (:data:`Panel`, :class:`Button`); texts from the
game (names, the prompt) are passed through :func:`~gm_engine.safe_text.printable`, and the
page inserts them as text, never as markup. The words of the panel and the buttons are the
catalogue's (:mod:`gm_engine.serve.page_text`) in the table's locale; the rules' terms (the
roles, 白 and 黒, CO要求) stay as the rules document writes them, as on the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypedDict

from gm_engine.adventure.scenario import GameSystem
from gm_engine.adventure.story import Sheet
from gm_engine.combat.characters import Character
from gm_engine.combat.render import condition
from gm_engine.combat.state import Phase
from gm_engine.dice.result import Locale
from gm_engine.messages import DEFAULT_LOCALE, render
from gm_engine.messages.texts import (
    ConfirmReading,
    PageBattle,
    PageClaimWithResult,
    PageCoBadge,
    PageRequest,
    PageResult,
    PageWord,
)
from gm_engine.safe_text import printable
from gm_engine.serve.page_text import word
from gm_engine.sessions.werewolf.commands import claim_command
from gm_engine.tools.werewolf import seat_label
from gm_engine.werewolf import (
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Guard,
    RequestClaim,
    Role,
    Speak,
    StateResult,
    Vote,
)
from gm_engine.werewolf.records import TimeOfDay
from gm_engine.werewolf.views import Observation

__all__ = [
    "PHASE_LABELS",
    "PHASE_WORDS",
    "Button",
    "Fold",
    "Panel",
    "adventure_panel",
    "phase_label",
    "question_buttons",
    "werewolf_panel",
]

Panel = dict[str, Any]
"""A JSON object: ``{"kind": "werewolf", ...}`` or ``{"kind": "adventure", ...}``."""


class Fold(TypedDict):
    """Where a page folds a button away: under ``head`` (one line for the buttons of the same
    head), the button reading ``choice`` there."""

    head: str
    choice: str


@dataclass(frozen=True, slots=True)
class Button:
    """One button of a question: what it reads and the line it sends."""

    label: str
    send: str
    group: str
    """Where the page puts it: ``target``, ``role``, ``co``, ``request``, ``answer``,
    ``pass``, ``confirm``."""
    fold: Fold | None = None
    """A claim with a result (one button per seat and colour) is folded under its role."""

    def as_json(self) -> dict[str, Any]:
        """The button as the page reads it (``fold`` only when it has one)."""
        shown: dict[str, Any] = {"label": self.label, "send": self.send, "group": self.group}
        if self.fold is not None:
            shown["fold"] = dict(self.fold)
        return shown


def werewolf_panel(obs: Observation, locale: Locale = DEFAULT_LOCALE) -> Panel:
    """P1's panel: the day, the time of day (in ``locale``), its own role (and a 人狼's
    partner), the nine seats with their names, alive or 退席, and their latest CO."""
    claimed: dict[int, str] = {}
    for seat, role in obs.claims:
        claimed[seat] = role.label
    own = obs.role
    dealt = any(obs.alive[1:])  # before the deal nobody is marked alive yet: nobody has left either
    seats = [
        {
            "seat": seat,
            "label": seat_label(seat),
            "name": printable(obs.names[seat], newlines=False),
            "alive": bool(obs.alive[seat]) or not dealt,
            "co": claimed.get(seat),
            "speaking": obs.current_speaker == seat,
            "you": seat == obs.seat,
        }
        for seat in range(1, 10)
    ]
    return {
        "kind": "werewolf",
        "day": obs.day,
        "time": word(PageWord.DAYTIME if obs.time == TimeOfDay.DAY else PageWord.NIGHTTIME, locale),
        "role": own.label if own is not None else None,
        "partners": [printable(obs.names[p], newlines=False) for p in obs.partners],
        "seats": seats,
        "over": obs.winner is not None,
    }


#: A battle's pauses as the fast-combat rules name their modes, as catalogue words.
PHASE_WORDS: dict[Phase, PageWord] = {
    Phase.SETUP: PageWord.BATTLE_SETUP,
    Phase.ROLL: PageWord.BATTLE_ROLL,
    Phase.JUDGE: PageWord.BATTLE_JUDGE,
    Phase.NARRATIVE: PageWord.BATTLE_NARRATIVE,
    Phase.ENDED: PageWord.BATTLE_ENDED,
}


def phase_label(phase: Phase, locale: Locale = DEFAULT_LOCALE) -> str:
    """A battle's pause as the page shows it, in ``locale``."""
    return word(PHASE_WORDS[phase], locale)


#: A battle's pauses in the rules' Japanese words (the page of a Japanese table shows these).
PHASE_LABELS: dict[Phase, str] = {phase: phase_label(phase) for phase in PHASE_WORDS}


def adventure_panel(
    party: Sequence[Character],
    battle_round: int,
    phase: Phase | None,
    sheet: tuple[Sheet, GameSystem] | None = None,
    locale: Locale = DEFAULT_LOCALE,
) -> Panel:
    """The status panel of an adventure: every character's HP, AP dice, magic slots and
    state, and the battle's round and pause when one is on, in ``locale``; under other rules
    than fast combat, the character's ``sheet`` (name, occupation, HP, skills; The One
    Ring's TN) with the rules it is played under."""
    battle = (
        render(PageBattle(battle_round, phase_label(phase, locale)), locale) if phase is not None else None
    )
    return {
        "kind": "adventure",
        "battle": battle,
        "sheet": _sheet(*sheet) if sheet is not None else None,
        "party": [
            {
                "name": printable(c.name, newlines=False),
                "rank": c.rank.value,
                "hp": c.hp,
                "max_hp": c.max_hp,
                "ap_dice": f"{c.ap_dice}d6",
                "slots_left": c.slots_left,
                "max_slots": c.max_slots,
                "state": condition(c, locale),
            }
            for c in party
        ],
    }


def _sheet(sheet: Sheet, system: GameSystem) -> dict[str, Any]:
    unit = "%" if system is GameSystem.CTHULHU7 else "d"
    return {
        "name": printable(sheet.name, newlines=False),
        "occupation": printable(sheet.occupation, newlines=False),
        "hp": sheet.hp,
        "skills": [
            f"{printable(name, newlines=False)} {value}{unit}" for name, value in sheet.skills.items()
        ],
        "target_number": sheet.target_number if system is GameSystem.ONE_RING2 else None,
    }


@cache
def _confirmation_frame(locale: Locale) -> tuple[str, str]:
    """What the seat's confirmation of a reading says before and after the reading."""
    before, _, after = render(ConfirmReading("\0"), locale).partition("\0")
    return before, after


def _is_confirmation(prompt: str, locale: Locale) -> bool:
    """Whether ``prompt`` is the seat's yes/no confirmation of a reading (see
    ``HumanSeat._confirm``): the catalogue's question around the reading."""
    before, after = _confirmation_frame(locale)
    return len(prompt) > len(before) + len(after) and prompt.startswith(before) and prompt.endswith(after)


def question_buttons(
    prompt: str,
    choices: Sequence[str] | None,
    legal: Sequence[object],
    names: Sequence[str] | None,
    locale: Locale = DEFAULT_LOCALE,
) -> list[Button]:
    """The buttons of a werewolf question: the offered choices (a role, a seat among the
    legal targets) or, at a discussion turn, the CO, CO要求, answer and pass the legal
    actions allow; yes / no for a confirmation; a pass for a vote's reason. Their words are
    in ``locale``; what they send is what the terminal player would type."""

    def say(which: PageWord) -> str:
        return word(which, locale)

    def named(seat: int) -> str:
        label = seat_label(seat)
        return f"{label} {printable(names[seat], newlines=False)}" if names is not None else label

    buttons: list[Button] = []
    if choices is not None:
        roles = {str(int(a.role)): a.role for a in legal if isinstance(a, ChooseRole)}
        targets = {
            seat_label(a.target): a.target for a in legal if isinstance(a, Vote | Attack | Divine | Guard)
        }
        for choice in choices:
            if choice in targets:
                buttons.append(Button(named(targets[choice]), choice, "target"))
            elif choice in roles or choice.isdigit():
                role = roles.get(choice) or Role(int(choice))
                buttons.append(Button(f"{choice} {role.label}", choice, "role"))
            else:
                buttons.append(Button(choice, choice, "target"))
        return buttons
    if _is_confirmation(prompt, locale):
        yes, no = say(PageWord.YES), say(PageWord.NO)
        return [Button(yes, yes, "confirm"), Button(no, no, "confirm")]
    if not any(isinstance(a, Speak | Decline | Claim | StateResult | RequestClaim) for a in legal):
        # a vote's reason: the vote is chosen, the reason may be left out
        if any(isinstance(a, Vote) for a in legal):
            return [Button(say(PageWord.VOTE_WITHOUT_REASON), "/pass", "pass")]
        return []
    for action in legal:
        if isinstance(action, Claim):
            plain = render(PageCoBadge(action.role.label), locale)
            if action.target is not None and action.colour is not None:
                target, colour = named(action.target), action.colour.label
                label = render(PageClaimWithResult(action.role.label, target, colour), locale)
                fold = Fold(head=plain, choice=f"{target} {colour}")
                buttons.append(Button(label, claim_command(action), "co", fold))
            else:
                buttons.append(Button(plain, claim_command(action), "co"))
        elif isinstance(action, StateResult):
            text = render(PageResult(named(action.target), action.colour.label), locale)
            buttons.append(Button(text, f"/result {seat_label(action.target)} {action.colour.label}", "co"))
        elif isinstance(action, RequestClaim):
            text = render(PageRequest(action.role.label), locale)
            buttons.append(Button(text, f"/request {action.role.label}", "request"))
        elif isinstance(action, Decline):
            buttons.append(Button(say(PageWord.DECLINE), "/decline", "answer"))
    if any(isinstance(a, Speak) for a in legal):
        buttons.append(Button(say(PageWord.PASS), "/pass", "pass"))
    return buttons
