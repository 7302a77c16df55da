"""The actions a player can take: frozen value objects, one class per command of the document.

Every action names its ``actor`` (seat 1..9). Free text (``text`` of a discussion action,
``reason`` of a vote) is stored and shown, never interpreted: the engine decides legality
from the structured fields alone, so ``legal_actions`` hands out templates with empty text
and a caller fills the text in with :func:`with_text`.

=====================  ==========================================================
action                 document command
=====================  ==========================================================
:class:`ChooseRole`    CMD_役職選択 (P1 only, before ゲーム開始)
:class:`Speak`         CMD_議論: one discussion turn of free talk ("" = pass)
:class:`Claim`         CMD_CO: a claim, with a divine/medium result for 占い師/霊媒師
:class:`StateResult`   stating a further result after one's 占い師/霊媒師 claim
:class:`RequestClaim`  CMD_CO要求: 「占い師は名乗り出ろ」 (day 1) / 「霊媒師は名乗り出ろ」 (day 2+)
:class:`Decline`       answering a CO要求 without coming out
:class:`Vote`          CMD_投票 and the 決選投票, with the stated reason
:class:`Attack`        CMD_襲撃 (each living 人狼 proposes; see the game's docstring)
:class:`Divine`        CMD_占い, and CMD_事前占い before day 1
:class:`Guard`         CMD_護衛
=====================  ==========================================================

CMD_霊媒 needs no choice (its target is the previous day's executed player), so it is an
engine step of the night, like 処刑, 勝敗判定, 夜開始 and 朝結果.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from gm_engine.werewolf.records import Colour, Role


@dataclass(frozen=True, slots=True)
class ChooseRole:
    """CMD_役職選択: P1 fixes its own role before the deal. Final: never re-chosen."""

    actor: int
    role: Role


@dataclass(frozen=True, slots=True)
class Speak:
    """One discussion turn of free talk. An empty ``text`` is a pass."""

    actor: int
    text: str = ""


@dataclass(frozen=True, slots=True)
class Claim:
    """CMD_CO: the actor publicly claims ``role``.

    A 占い師 or 霊媒師 claim may carry one result (``target`` and ``colour`` together);
    answering a CO要求 it must (the 事前占い result on day 1, the latest medium result after).
    """

    actor: int
    role: Role
    target: int | None = None
    colour: Colour | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class StateResult:
    """A player who claimed 占い師 or 霊媒師 states one more result publicly."""

    actor: int
    target: int
    colour: Colour
    text: str = ""


@dataclass(frozen=True, slots=True)
class RequestClaim:
    """CMD_CO要求: 「占い師は名乗り出ろ」 on day 1, 「霊媒師は名乗り出ろ」 on day 2 and later."""

    actor: int
    role: Role
    text: str = ""


@dataclass(frozen=True, slots=True)
class Decline:
    """An answer to a CO要求 that does not come out (not open to the real role holder)."""

    actor: int
    text: str = ""


@dataclass(frozen=True, slots=True)
class Vote:
    """CMD_投票 / 決選投票: a vote for ``target`` with the reason the voter states."""

    actor: int
    target: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Attack:
    """CMD_襲撃: a living 人狼's choice of victim for tonight."""

    actor: int
    target: int


@dataclass(frozen=True, slots=True)
class Divine:
    """CMD_占い (and CMD_事前占い): the 占い師's target."""

    actor: int
    target: int


@dataclass(frozen=True, slots=True)
class Guard:
    """CMD_護衛: the 狩人's target (never itself; the same target on consecutive nights is fine)."""

    actor: int
    target: int


Action = ChooseRole | Speak | Claim | StateResult | RequestClaim | Decline | Vote | Attack | Divine | Guard
"""Any action."""

DiscussionAction = Speak | Claim | StateResult | RequestClaim | Decline
NightAction = Attack | Divine | Guard

TEXT_ACTIONS: tuple[type, ...] = (Speak, Claim, StateResult, RequestClaim, Decline)

A = TypeVar("A", bound=Action)


def with_text(action: A, text: str) -> A:
    """The same action carrying ``text`` (the reason of a :class:`Vote`, the speech otherwise).

    Actions without free text (ChooseRole, Attack, Divine, Guard) are returned unchanged.
    """
    if isinstance(action, Vote):
        return Vote(action.actor, action.target, text)  # type: ignore[return-value]
    if isinstance(action, Speak):
        return Speak(action.actor, text)  # type: ignore[return-value]
    if isinstance(action, Decline):
        return Decline(action.actor, text)  # type: ignore[return-value]
    # direct constructors: dataclasses.replace costs several times more
    if isinstance(action, Claim):
        return Claim(action.actor, action.role, action.target, action.colour, text)  # type: ignore[return-value]
    if isinstance(action, StateResult):
        return StateResult(action.actor, action.target, action.colour, text)  # type: ignore[return-value]
    if isinstance(action, RequestClaim):
        return RequestClaim(action.actor, action.role, text)  # type: ignore[return-value]
    return action


def describe(action: Action) -> str:
    """A short Japanese description of the structured part of an action (for menus and errors)."""
    if isinstance(action, ChooseRole):
        return f"役職選択: {action.role.label}"
    if isinstance(action, Speak):
        return "発言"
    if isinstance(action, Claim):
        result = ""
        if action.target is not None and action.colour is not None:
            result = f" (P{action.target}は{action.colour.label})"
        return f"{action.role.label}CO{result}"
    if isinstance(action, StateResult):
        return f"結果発表: P{action.target}は{action.colour.label}"
    if isinstance(action, RequestClaim):
        return f"CO要求: {action.role.label}は名乗り出ろ"
    if isinstance(action, Decline):
        return "名乗り出ない"
    if isinstance(action, Vote):
        return f"投票: P{action.target}"
    if isinstance(action, Attack):
        return f"襲撃: P{action.target}"
    if isinstance(action, Divine):
        return f"占い: P{action.target}"
    return f"護衛: P{action.target}"
