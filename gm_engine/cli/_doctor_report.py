"""``gm doctor``'s report in the player's language: the lines of
:func:`gm_engine.llm.doctor.report_lines` (which stays English, word for word the English
catalogue's, for logs and the tests of the probes), each from a catalogue message. The
server's and the client's own words (a refusal, a failure) are quoted as they came."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from gm_engine.cli._errors import backend_problem, server_said
from gm_engine.llm.doctor import (
    CAPABILITY_FLAGS,
    Findings,
    ProbeAnswer,
    UnknownWhy,
    any_profile_reads,
    equally_fitting,
    found_quirks,
    measured_flags,
    probe_target,
    read_flags,
    recommend,
)
from gm_engine.llm.profiles import profiles
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    DoctorACall,
    DoctorACallAfterText,
    DoctorAlike,
    DoctorButMeasured,
    DoctorCallInText,
    DoctorCalls,
    DoctorConfigured,
    DoctorContext,
    DoctorEmpty,
    DoctorFailed,
    DoctorFailedOnProblem,
    DoctorInEnum,
    DoctorLatency,
    DoctorLatencyOne,
    DoctorLoose,
    DoctorMeasured,
    DoctorModel,
    DoctorModels,
    DoctorNamed,
    DoctorNoRecommendation,
    DoctorNotProbed,
    DoctorOk,
    DoctorOneCall,
    DoctorOutsideEnum,
    DoctorParallelLeftOut,
    DoctorParallelOff,
    DoctorPlain,
    DoctorProblem,
    DoctorProfileOfTheServer,
    DoctorQuirk,
    DoctorReask,
    DoctorRecommended,
    DoctorRefused,
    DoctorRefusedByServer,
    DoctorRequired,
    DoctorServer,
    DoctorSlots,
    DoctorStrict,
    DoctorTextOnly,
    DoctorUnknown,
    DoctorUnreachable,
    DoctorUsageEstimated,
    DoctorUsageReported,
    QuirkCallsInText,
    QuirkNamedRefused,
    QuirkPaddedStrings,
    QuirkRequiredEmpty,
    QuirkSeveralCalls,
    QuirkStrictOnly,
    QuirkTextBeforeCall,
    QuirkToolChoiceIgnored,
    QuirkToolsDropped,
    ServerSaid,
    UnknownFailed,
    UnknownNoCallAtAll,
    UnknownNoCallHere,
    UnknownNotProbed,
    UnknownToolsDropped,
)

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale
    from gm_engine.llm.profiles import ServerProfile

#: The message of each quirk :func:`~gm_engine.llm.doctor.found_quirks` names.
QUIRKS: dict[str, Message] = {
    "tools_dropped": QuirkToolsDropped(),
    "calls_in_text": QuirkCallsInText(),
    "text_before_call": QuirkTextBeforeCall(),
    "required_empty": QuirkRequiredEmpty(),
    "tool_choice_ignored": QuirkToolChoiceIgnored(),
    "named_refused": QuirkNamedRefused(),
    "several_calls": QuirkSeveralCalls(),
    "strict_only": QuirkStrictOnly(),
    "padded_strings": QuirkPaddedStrings(),
}


#: Why a flag is unknown, in words (:data:`~gm_engine.llm.doctor.UnknownWhy`).
UNKNOWN: dict[UnknownWhy, Message] = {
    "tools_dropped": UnknownToolsDropped(),
    "no_call_at_all": UnknownNoCallAtAll(),
    "no_call_here": UnknownNoCallHere(),
    "failed": UnknownFailed(),
    "not_probed": UnknownNotProbed(),
}


def _answer(answer: ProbeAnswer | None, problems: list[str], *, plain: bool = False) -> Message:
    if answer is None:
        return DoctorNotProbed()
    if answer.kind == "call":
        return DoctorACallAfterText() if answer.text else DoctorACall()
    if answer.kind == "call_in_text":
        return DoctorCallInText()
    if answer.kind == "text":
        return DoctorOk() if plain else DoctorTextOnly()
    if answer.kind == "empty":
        return DoctorEmpty()
    if answer.kind == "refused":
        # the server's own words quoted; the client's English around them is not shown
        if answer.status is not None:
            return DoctorRefusedByServer(answer.status, answer.said)
        return DoctorRefused(answer.error)
    if answer.error in problems:  # a configuration error: said once, in words, below
        return DoctorFailedOnProblem()
    return DoctorFailed(answer.error)


def _calls(answer: ProbeAnswer | None, problems: list[str]) -> Message:
    if answer is None or not answer.called:
        return _answer(answer, problems)
    return DoctorCalls(len(answer.calls)) if len(answer.calls) != 1 else DoctorOneCall()


def _enum(answer: ProbeAnswer | None, problems: list[str]) -> Message:
    if answer is None or not answer.called:
        return _answer(answer, problems)
    return DoctorInEnum() if answer.in_enum else DoctorOutsideEnum(repr(probe_target(answer.calls[0])))


def report(findings: Findings, chosen: ServerProfile | None, locale: Locale) -> list[str]:
    """What ``gm doctor`` prints, in ``locale``."""
    lines: list[Message] = [DoctorServer(findings.base_url), DoctorModel(findings.model)]
    if findings.models:
        lines.append(DoctorModels(", ".join(findings.models[:8])))
    if findings.context_length is not None:
        lines.append(DoctorContext(findings.context_length))
    if findings.slots is not None:
        lines.append(DoctorSlots(findings.slots))
    if findings.unreachable is not None:
        lines.append(DoctorUnreachable(findings.unreachable))
        return [render(line, locale) for line in lines]
    shown = [render(line, locale) for line in lines]

    def add(message: Message) -> None:
        shown.append(render(message, locale))

    add(DoctorPlain(render(_answer(findings.plain, findings.problems, plain=True), locale)))
    if findings.usage_reported is not None:
        add(DoctorUsageReported() if findings.usage_reported else DoctorUsageEstimated())
    add(DoctorRequired(render(_answer(findings.required, findings.problems), locale)))
    if findings.reask is not None:
        add(DoctorReask(render(_answer(findings.reask, findings.problems), locale)))
    add(DoctorNamed(render(_answer(findings.named, findings.problems), locale)))
    add(DoctorParallelOff(render(_calls(findings.parallel_false, findings.problems), locale)))
    add(DoctorParallelLeftOut(render(_calls(findings.parallel_left_out, findings.problems), locale)))
    add(DoctorLoose(render(_enum(findings.loose, findings.problems), locale)))
    add(DoctorStrict(render(_enum(findings.strict, findings.problems), locale)))
    if findings.latencies:
        median = round(statistics.median(findings.latencies) * 1000)
        longest = round(max(findings.latencies) * 1000)
        count = len(findings.latencies)
        add(DoctorLatency(median, longest, count) if count != 1 else DoctorLatencyOne(median, longest))
    for quirk in found_quirks(findings):
        add(DoctorQuirk(render(QUIRKS[quirk], locale)))
    for error, text in zip(findings.problem_errors, findings.problems, strict=True):
        problem = backend_problem(error)
        if problem is None:
            add(DoctorProblem(text))
            continue
        words, said = render(problem, locale), server_said(error)
        add(DoctorProblem(render(ServerSaid(words, said), locale) if said else words))
    if findings.problems:
        return shown
    flags, unknown = read_flags(findings)
    if flags:
        add(DoctorMeasured(", ".join(f"{flag}={flags[flag]}" for flag in CAPABILITY_FLAGS if flag in flags)))
    for flag in CAPABILITY_FLAGS:
        if flag in unknown:
            add(DoctorUnknown(flag, render(UNKNOWN[unknown[flag]], locale)))
    best, differs = recommend(findings)
    if best is None and any_profile_reads(findings):
        add(DoctorProfileOfTheServer(", ".join(p.name for p in profiles())))
    elif best is None:
        add(DoctorNoRecommendation())
    else:
        add(DoctorRecommended(best.name))
        for flag, value in differs.items():
            add(DoctorButMeasured(flag, str(value), str(not value)))
        alike = equally_fitting(findings)
        if alike:
            add(DoctorAlike(", ".join(alike)))
    if chosen is not None:
        flags = measured_flags(findings)
        for flag in CAPABILITY_FLAGS:
            if flag in flags and getattr(chosen, flag) != flags[flag]:
                add(DoctorConfigured(chosen.name, flag, str(getattr(chosen, flag)), str(flags[flag])))
    return shown
