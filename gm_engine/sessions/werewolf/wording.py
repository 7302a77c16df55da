"""The werewolf game's messages that are built from the engine's own objects: a refusal
(:class:`~gm_engine.werewolf.game.IllegalActionError`) in the player's words, the hint after
a choice that names no seat, and the one line that confirms an unsure reading.

Kept apart from :mod:`gm_engine.messages`, which loads no game engine (so that any engine,
the werewolf one's renderer too, may take its texts from the catalogue without a cycle).
"""

from __future__ import annotations

from collections.abc import Mapping

from gm_engine.dice.result import Locale
from gm_engine.messages.catalogue import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import (
    ConfirmReading,
    ListSeparator,
    ReadAsClaim,
    ReadAsClaimWithResult,
    ReadAsDecline,
    ReadAsPass,
    ReadAsRequest,
    ReadAsResult,
    Reason,
    TargetConflict,
    TargetConflictSeats,
    TargetEmpty,
    TargetForms,
    TargetHint,
    TargetNotAChoice,
    TargetUnknown,
    Why,
)
from gm_engine.werewolf.actions import Action, Claim, Decline, RequestClaim, StateResult
from gm_engine.werewolf.game import (
    RULE_AFTER_END,
    RULE_ATTACK_DEAD,
    RULE_ATTACK_FIRST,
    RULE_ATTACK_WOLF,
    RULE_CO_FORCED,
    RULE_CO_MADMAN,
    RULE_CO_ONCE,
    RULE_CO_OTHER_ROLE,
    RULE_CO_REQUEST,
    RULE_CO_RESTATE,
    RULE_CO_RESULT,
    RULE_CO_ROLE,
    RULE_CO_VILLAGER,
    RULE_DEAD_ACT,
    RULE_DEAL,
    RULE_DIVINE,
    RULE_FORM,
    RULE_GUARD,
    RULE_PENDING,
    RULE_PHASE,
    RULE_RESULT,
    RULE_ROLE_ABILITY,
    RULE_ROLE_CHOICE,
    RULE_RUNOFF,
    RULE_SEAT,
    RULE_TEXT,
    RULE_TURN,
    RULE_VOTE,
    RULE_VOTE_ONCE,
    IllegalActionError,
)
from gm_engine.werewolf.phrases import (
    CoRequest,
    Declining,
    Meaning,
    Passing,
    ResultStatement,
    RoleClaim,
    TargetMiss,
    fold,
)
from gm_engine.werewolf.records import PERSONA_NAMES

#: The reason a refusal gives, by the rule the engine names. Where one rule covers several
#: refusals, the action's kind picks the reason (``(rule, kind)`` first, then ``(rule, None)``).
REASONS: dict[tuple[str, type[Action] | None], Reason] = {
    (RULE_AFTER_END, None): Reason.GAME_OVER,
    (RULE_ROLE_CHOICE, None): Reason.ROLE_FIXED,
    (RULE_PHASE, None): Reason.PHASE,
    (RULE_DEAD_ACT, None): Reason.DEAD,
    (RULE_TURN, None): Reason.NOT_YOUR_TURN,
    (RULE_CO_VILLAGER, None): Reason.VILLAGER_CLAIMS,
    (RULE_CO_OTHER_ROLE, None): Reason.OTHER_ROLE_CLAIMS,
    (RULE_CO_MADMAN, None): Reason.MADMAN_CLAIMS,
    (RULE_CO_ONCE, None): Reason.CLAIM_ONCE,
    (RULE_CO_ROLE, None): Reason.CLAIMABLE_ROLES,
    (RULE_CO_RESULT, Claim): Reason.CLAIM_NEEDS_RESULT,
    (RULE_CO_RESULT, None): Reason.RESULT_NOT_YOURS,
    (RULE_CO_REQUEST, Decline): Reason.NOTHING_TO_DECLINE,
    (RULE_CO_REQUEST, Claim): Reason.ANSWER_WITH_REQUESTED_ROLE,
    (RULE_CO_REQUEST, RequestClaim): Reason.REQUEST_DAY,
    (RULE_CO_REQUEST, None): Reason.REQUEST_DAY,
    (RULE_CO_FORCED, Decline): Reason.MUST_COME_OUT,
    (RULE_CO_RESTATE, None): Reason.STATE_RESULT_NOW,
    (RULE_CO_FORCED, None): Reason.ANSWER_FIRST,
    (RULE_RESULT, StateResult): Reason.RESULT_NEEDS_CLAIM,
    (RULE_RESULT, None): Reason.RESULT_NEEDS_CLAIM,
    (RULE_VOTE, None): Reason.VOTE_TARGET,
    (RULE_VOTE_ONCE, None): Reason.VOTED_ALREADY,
    (RULE_RUNOFF, None): Reason.RUNOFF_CANDIDATES,
    (RULE_ATTACK_WOLF, None): Reason.ATTACK_WOLF,
    (RULE_ATTACK_DEAD, None): Reason.ATTACK_TARGET,
    (RULE_ATTACK_FIRST, None): Reason.ATTACK_BEFORE_EXECUTION,
    (RULE_DIVINE, None): Reason.DIVINE_TARGET,
    (RULE_GUARD, None): Reason.GUARD_TARGET,
    (RULE_ROLE_ABILITY, None): Reason.NOT_YOUR_ABILITY,
    (RULE_PENDING, None): Reason.PENDING,
    (RULE_TEXT, None): Reason.TEXT_TOO_LONG,
    (RULE_SEAT, None): Reason.SEAT,
    (RULE_FORM, None): Reason.FORM,
    (RULE_DEAL, None): Reason.DEAL,
}


def refusal(error: IllegalActionError, action: Action | None = None) -> Why:
    """Why the engine refused ``action``, in the player's terms (a rule the table does not
    know yet reads as :attr:`Reason.OTHER`, never as the engine's internal message)."""
    kind = type(action) if action is not None else None
    reason = REASONS.get((error.rule, kind)) or REASONS.get((error.rule, None), Reason.OTHER)
    return Why(reason)


def render_refusal(
    error: IllegalActionError, action: Action | None = None, locale: Locale = DEFAULT_LOCALE
) -> str:
    """:func:`refusal` as text: one sentence, no Python text, no enum repr."""
    return render(refusal(error, action), locale)


def target_hint(
    miss: TargetMiss, names: Mapping[int, str] | None = None, locale: Locale = DEFAULT_LOCALE
) -> str:
    """What to tell a player whose choice named no seat that may be chosen: why, then the
    choices and every accepted form, by the example of the first choice."""
    table = dict(PERSONA_NAMES if names is None else names)

    def name(seat: int) -> str:
        return table.get(seat, f"P{seat}")

    why: Message
    if miss.reason == "empty":
        why = TargetEmpty()
    elif miss.reason == "conflict" and miss.seat is not None and miss.named is not None:
        why = TargetConflictSeats(
            miss.text.strip(), f"P{miss.seat}", name(miss.seat), name(miss.named), f"P{miss.named}"
        )
    elif miss.reason == "conflict":
        why = TargetConflict(miss.text.strip())
    elif miss.reason == "not_a_choice" and miss.seat is not None:
        why = TargetNotAChoice(name(miss.seat))
    else:
        why = TargetUnknown(miss.text.strip())
    if not miss.choices:
        return render(why, locale)
    first = miss.choices[0]
    choices = render(ListSeparator(), locale).join(f"P{seat} {name(seat)}" for seat in miss.choices)
    forms = TargetForms(choices, f"P{first}", first, name(first), fold(name(first)))
    return render(TargetHint(render(why, locale), render(forms, locale)), locale)


def reading_message(meaning: Meaning, names: Mapping[int, str] | None = None) -> Message | None:
    """How a reading is named back to the speaker (None for plain speech)."""
    table = dict(PERSONA_NAMES if names is None else names)

    def who(seat: int) -> str:
        return f"{table[seat]}(P{seat})" if seat in table else f"P{seat}"

    if isinstance(meaning, CoRequest):
        return ReadAsRequest(meaning.role.label)
    if isinstance(meaning, RoleClaim):
        if meaning.target is not None and meaning.colour is not None:
            return ReadAsClaimWithResult(meaning.role.label, who(meaning.target), meaning.colour.label)
        return ReadAsClaim(meaning.role.label)
    if isinstance(meaning, ResultStatement):
        return ReadAsResult(who(meaning.target), meaning.colour.label)
    if isinstance(meaning, Declining):
        return ReadAsDecline()
    if isinstance(meaning, Passing):
        return ReadAsPass()
    return None


def confirm_reading(
    meaning: Meaning, names: Mapping[int, str] | None = None, locale: Locale = DEFAULT_LOCALE
) -> str | None:
    """The one-line question that confirms an unsure reading (None for plain speech)."""
    named = reading_message(meaning, names)
    if named is None:
        return None
    return render(ConfirmReading(render(named, locale)), locale)
