"""``gm doctor``'s probes: a few small requests that find out what a model server supports.

:func:`probe_server` lists the server's models (and the context length, when it says
one), asks for a plain answer, then offers one tool (``vote``, an enum of two seats) in
the ways a session does and reads what comes back:

* ``tool_choice="required"``: a call (sent as a call, or written in the text), text
  before it, an empty reply, or text only; after text only or an empty reply, the turn
  runner's corrective re-ask is sent once under ``auto``, so that a server that ignores
  ``tool_choice`` or answers ``required`` with nothing (the call comes on the re-ask) is
  told from a template without tool support (never a call sent as one);
* a ``tool_choice`` naming the tool: honoured, ignored or refused;
* ``parallel_tool_calls`` sent False, and left out, when asked for two calls (these and the
  ``strict`` probes are asked as the re-ask was when only the re-ask got a call);
* ``strict``: accepted or refused, and whether the arguments keep to the enum with and
  without it;
* llama.cpp's ``/props``, when there: its slots (the requests it serves at once) and the
  context length it runs with.

Every configuration error :mod:`gm_engine.llm.diagnosis` recognises is reported with its
fix. :func:`recommend` turns the findings into the flags of a
:class:`~gm_engine.llm.profiles.ServerProfile` and names the registered profile that fits
them best; :func:`report_lines` is what the command prints. A real model answers each
probe as it likes, so one run is a reading, not a proof: the findings say what was seen.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from typing import Literal, TypeGuard

from gm_engine.llm.base import (
    BackendError,
    ConfigurationError,
    JsonDict,
    MalformedAnswerError,
    RefusedRequestError,
    ToolCall,
    ToolSpec,
    TransientBackendError,
)
from gm_engine.llm.openai_backend import OpenAIBackend, read_completion
from gm_engine.llm.profiles import ServerProfile, profiles
from gm_engine.llm.text_calls import calls_in_text, how_to_write_a_call

#: The longest answer a probe asks for.
PROBE_MAX_TOKENS = 128

#: The seats the probe tool's enum allows.
SEATS = ("P3", "P4")

PROBE_TOOL = ToolSpec(
    name="vote",
    description="Vote for the seat you want to leave the table.",
    parameters={
        "type": "object",
        "properties": {
            "target": {"type": "string", "enum": list(SEATS), "description": "the seat"},
            # a free string: a grammar built from a schema without a pattern may pad it
            "reason": {"type": "string", "maxLength": 40, "description": "a word on why"},
        },
        "required": ["target", "reason"],
        "additionalProperties": False,
    },
)

_SYSTEM = "You are testing a tool. Answer only by calling the tool you are given."
_ASK_ONE = "Call the tool vote with target P3 and reason quiet."
_ASK_TWO = (
    "Call the tool vote twice in this one answer: once with target P3 and once with target P4, "
    "each with reason quiet."
)

#: How an answer to a tool probe came back.
AnswerKind = Literal["call", "call_in_text", "text", "empty", "refused", "failed"]


@dataclass(frozen=True)
class ProbeAnswer:
    """What one probe got: how it came back, the calls (sent or read from the text), whether
    text came with them, the arguments' seats, the refusal's or failure's message, latency."""

    kind: AnswerKind
    calls: tuple[ToolCall, ...] = ()
    text: str | None = None
    error: str = ""
    latency_s: float = 0.0
    status: int | None = None
    """A refusal's HTTP status."""
    said: str = ""
    """A refusal's own words from the server (``error`` is the client's English around them)."""

    @property
    def called(self) -> bool:
        """Whether the answer held a call of the probe tool, sent or written in the text."""
        return self.kind in ("call", "call_in_text")

    @property
    def in_enum(self) -> bool:
        """Whether every call's ``target`` is one of :data:`SEATS`."""
        return bool(self.calls) and all(_target(call) in SEATS for call in self.calls)


@dataclass
class Findings:
    """Everything the probes saw (None: not probed, e.g. after a configuration error)."""

    base_url: str
    model: str
    models: list[str] = field(default_factory=list)
    context_length: int | None = None
    slots: int | None = None
    problems: list[str] = field(default_factory=list)
    problem_errors: list[ConfigurationError] = field(default_factory=list)
    """The errors of :attr:`problems`, one for each (for a report in the player's words)."""
    unreachable: str | None = None
    plain: ProbeAnswer | None = None
    usage_reported: bool | None = None
    required: ProbeAnswer | None = None
    reask: ProbeAnswer | None = None
    named: ProbeAnswer | None = None
    parallel_false: ProbeAnswer | None = None
    parallel_left_out: ProbeAnswer | None = None
    strict: ProbeAnswer | None = None
    loose: ProbeAnswer | None = None
    latencies: list[float] = field(default_factory=list)

    @property
    def tools_work(self) -> bool:
        """Whether any probe got a call sent as a call."""
        answers = (self.required, self.reask, self.named, self.parallel_false, self.parallel_left_out)
        return any(a is not None and a.kind == "call" for a in answers)

    @property
    def tools_dropped(self) -> bool:
        """Whether the server answered tool requests with text only, never a call sent as one,
        and the model wrote no call until the re-ask described the tool in words: a chat
        template without tool support drops ``tools`` silently."""
        first = [a for a in (self.required, self.named) if a is not None]
        return bool(first) and not self.tools_work and all(a.kind == "text" for a in first)

    @property
    def calls_in_text(self) -> bool:
        """Whether a call came written in the text."""
        answers = (self.required, self.reask, self.named, self.parallel_false, self.parallel_left_out)
        return any(a is not None and a.kind == "call_in_text" for a in answers)


def probe_body(
    model: str,
    ask: str,
    *,
    tool_choice: str | JsonDict | None = "required",
    parallel: bool | None = None,
    strict: bool = False,
    extra: tuple[JsonDict, ...] = (),
) -> JsonDict:
    """A probe's request body: the probe tool offered with ``tool_choice`` (None: left out)."""
    body: JsonDict = {
        "model": model,
        "messages": [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": ask}, *extra],
        "max_tokens": PROBE_MAX_TOKENS,
        "tools": [PROBE_TOOL.to_openai(strict=strict)],
    }
    if tool_choice is not None:
        body["tool_choice"] = tool_choice
    if parallel is not None:
        body["parallel_tool_calls"] = parallel
    return body


async def probe_server(backend: OpenAIBackend) -> Findings:
    """Run every probe against ``backend``'s server (its default model) and say what was seen."""
    findings = Findings(base_url=str(backend.base_url or "(the client's default)"), model=backend.model)
    try:
        await _probe_models(backend, findings)
        plain = await _ask(backend, {"model": backend.model, "max_tokens": 16,
                                     "messages": [{"role": "user", "content": "Say OK."}]}, findings)
        findings.plain = plain
        if plain.kind == "failed" or findings.unreachable is not None:
            return findings
        findings.required = await _ask(backend, probe_body(backend.model, _ASK_ONE), findings)
        choice: str = "required"
        extra: tuple[JsonDict, ...] = ()
        if findings.required.kind in ("text", "empty"):
            said = {"role": "assistant", "content": findings.required.text or ""}
            reask = {
                "role": "user",
                "content": "[engine] error: you answered without calling a tool; call exactly one of: vote\n"
                + how_to_write_a_call([PROBE_TOOL]),
            }
            # under auto, as a profile without required sends it: a server that answers
            # required with an empty reply, or ignores tool_choice, still shows its calls
            again = probe_body(backend.model, _ASK_ONE, tool_choice="auto", extra=(said, reask))
            findings.reask = await _ask(backend, again, findings)
            if findings.reask.called:
                # the later probes are asked the way that got a call, so that what they
                # would show (parallel calls, strict) is not lost to the empty or talking reply
                choice, extra = "auto", (said, reask)
        if findings.problems:
            return findings
        named = {"type": "function", "function": {"name": "vote"}}
        findings.named = await _ask(backend, probe_body(backend.model, _ASK_ONE, tool_choice=named), findings)
        def asked(ask: str, **options: bool) -> JsonDict:
            return probe_body(backend.model, ask, tool_choice=choice, extra=extra, **options)

        findings.parallel_false = await _ask(backend, asked(_ASK_TWO, parallel=False), findings)
        findings.parallel_left_out = await _ask(backend, asked(_ASK_TWO), findings)
        # outside the enum: only a grammar keeps it in
        ask_outside = "Call the tool vote with target P7 and reason quiet."
        findings.loose = await _ask(backend, asked(ask_outside), findings)
        findings.strict = await _ask(backend, asked(ask_outside, strict=True), findings)
    finally:
        await backend.aclose()
    return findings


async def _probe_models(backend: OpenAIBackend, findings: Findings) -> None:
    try:
        listing = await backend.list_models()
    except ConfigurationError as exc:
        _note_problem(findings, exc)
        return
    except TransientBackendError as exc:
        findings.unreachable = str(exc)
        return
    except BackendError:
        return  # some servers do not list their models
    await _probe_props(backend, findings)
    data = listing.get("data") if isinstance(listing, dict) else None
    for entry in data if isinstance(data, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        findings.models.append(entry["id"])
        meta = entry.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        for value in (entry.get("max_model_len"), entry.get("context_length"), meta.get("n_ctx_train")):
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                findings.context_length = findings.context_length or value
                break


async def _probe_props(backend: OpenAIBackend, findings: Findings) -> None:
    """llama.cpp's ``/props`` (beside ``/v1``): its slots and the context each request has."""
    base = str(backend.base_url or "").rstrip("/")
    if not base:
        return
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    try:
        props = await backend.get_json(f"{root}/props")
    except BackendError:
        return  # not llama.cpp, or it does not say
    if not isinstance(props, dict):
        return
    slots = props.get("total_slots")
    if isinstance(slots, int) and not isinstance(slots, bool) and slots > 0:
        findings.slots = slots
    settings = props.get("default_generation_settings")
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    if isinstance(n_ctx, int) and not isinstance(n_ctx, bool) and n_ctx > 0:
        findings.context_length = n_ctx  # the server's own, not the model's training length


def _note_problem(findings: Findings, error: ConfigurationError) -> None:
    if str(error) not in findings.problems:
        findings.problems.append(str(error))
        findings.problem_errors.append(error)


async def _ask(backend: OpenAIBackend, body: JsonDict, findings: Findings) -> ProbeAnswer:
    if findings.unreachable is not None:
        return ProbeAnswer("failed", error=findings.unreachable)
    try:
        raw, latency = await backend.send_once(body)
    except ConfigurationError as exc:
        _note_problem(findings, exc)
        return ProbeAnswer("failed", error=str(exc))
    except MalformedAnswerError as exc:
        return ProbeAnswer("failed", error=str(exc))
    except TransientBackendError as exc:
        if exc.status is None:  # no answer at all: the server is not there
            findings.unreachable = str(exc)
        return ProbeAnswer("failed", error=str(exc))
    except RefusedRequestError as exc:
        return ProbeAnswer("refused", error=str(exc), status=exc.status, said=exc.said)
    except BackendError as exc:
        return ProbeAnswer("refused", error=str(exc))
    findings.latencies.append(latency)
    try:
        content, calls, usage = read_completion(raw)
    except MalformedAnswerError as exc:
        return ProbeAnswer("failed", error=str(exc), latency_s=latency)
    if "tools" not in body:
        findings.usage_reported = usage is not None
    if calls:
        return ProbeAnswer("call", calls=calls, text=content or None, latency_s=latency)
    written = calls_in_text(content, {PROBE_TOOL.name})
    if written is not None:
        return ProbeAnswer("call_in_text", calls=written.calls, text=written.remaining, latency_s=latency)
    if not (content or "").strip():
        return ProbeAnswer("empty", latency_s=latency)
    return ProbeAnswer("text", text=content, latency_s=latency)


def probe_target(call: ToolCall) -> object:
    """The ``target`` argument of a probe's call (None when its arguments are not an object)."""
    return _target(call)


def _argument(call: ToolCall, name: str) -> object:
    try:
        arguments = json.loads(call.arguments)
    except json.JSONDecodeError:
        return None
    return arguments.get(name) if isinstance(arguments, dict) else None


def _target(call: ToolCall) -> object:
    return _argument(call, "target")


def _padded_strings(findings: Findings) -> bool:
    """Whether a call's free string (``reason``, no enum, no pattern) came with white space
    around it, as a grammar built from such a schema may write it."""
    answers = (findings.required, findings.reask, findings.named, findings.parallel_false,
               findings.parallel_left_out, findings.loose, findings.strict)
    reasons = [_argument(call, "reason") for a in answers if a is not None for call in a.calls]
    return any(isinstance(r, str) and r != r.strip() for r in reasons)


#: The profile flags :func:`recommend` reads from the findings, in the order it lists them.
CAPABILITY_FLAGS = (
    "supports_tool_choice_required",
    "supports_named_tool_choice",
    "honours_tool_choice",
    "text_before_call",
    "supports_parallel_tool_calls",
    "parallel_calls_unless_disabled",
    "supports_strict_schema",
    "strict_any_schema",
)


#: Why a capability flag could not be told from the probes: the server dropped the tools
#: (``tools_dropped``), no probe got a call sent as a call (``no_call_at_all``: calls only
#: written in the text are the model's writing, which no server-side setting shapes), the
#: probe that would show it got no call back (``no_call_here``), it failed (``failed``), or it
#: was not made (``not_probed``).
UnknownWhy = Literal["tools_dropped", "no_call_at_all", "no_call_here", "failed", "not_probed"]


def read_flags(findings: Findings) -> tuple[dict[str, bool], dict[str, UnknownWhy]]:
    """The profile flags the findings show, and why each other flag of
    :data:`CAPABILITY_FLAGS` cannot be told.

    A flag is shown only by an answer that could show it: a call sent as a call (or, for
    the flags that say a parameter is accepted, a refusal of it; for ``required``, an empty
    reply). An answer without a call shows nothing about ``parallel_tool_calls`` or
    ``strict``, and ``tool_choice`` is read as not honoured only when a call came back
    elsewhere: a server that never sent a call at all leaves them unknown."""
    flags: dict[str, bool] = {}
    unknown: dict[str, UnknownWhy] = {}
    works = findings.tools_work

    def why(answer: ProbeAnswer | None) -> UnknownWhy:
        if answer is None:
            return "not_probed"
        if answer.kind == "failed":
            return "failed"
        if findings.tools_dropped:
            return "tools_dropped"
        return "no_call_here" if works else "no_call_at_all"

    def no_call_but_calls_elsewhere(answer: ProbeAnswer | None) -> bool:
        return works and answer is not None and answer.kind in ("text", "empty", "call_in_text")

    required, named = findings.required, findings.named
    if _sent(required):
        flags["supports_tool_choice_required"] = True
        flags["text_before_call"] = bool(required.text)
    else:
        if required is not None and required.kind in ("empty", "refused"):
            flags["supports_tool_choice_required"] = False  # LM Studio's empty reply; a 400
        elif no_call_but_calls_elsewhere(required):
            flags["supports_tool_choice_required"] = False
        else:
            unknown["supports_tool_choice_required"] = why(required)
        unknown["text_before_call"] = why(required)
    if _sent(named) or (named is not None and named.kind == "refused"):
        flags["supports_named_tool_choice"] = _sent(named)
    elif no_call_but_calls_elsewhere(named):
        flags["supports_named_tool_choice"] = False
    else:
        unknown["supports_named_tool_choice"] = why(named)
    if _sent(required) or _sent(named) or (required is not None and required.kind == "empty"):
        # an empty reply to required is a reaction to it (under auto the model talks)
        flags["honours_tool_choice"] = True
    elif no_call_but_calls_elsewhere(required) and (named is None or named.kind != "failed"):
        flags["honours_tool_choice"] = False
    else:
        unknown["honours_tool_choice"] = why(required)
    off, left_out = findings.parallel_false, findings.parallel_left_out
    if _sent(off) or (off is not None and off.kind == "refused"):
        flags["supports_parallel_tool_calls"] = _sent(off)
    else:
        unknown["supports_parallel_tool_calls"] = why(off)
    if _sent(left_out):
        if len(left_out.calls) == 1:
            flags["parallel_calls_unless_disabled"] = False
        elif _sent(off):
            flags["parallel_calls_unless_disabled"] = len(off.calls) <= 1
        else:
            unknown["parallel_calls_unless_disabled"] = why(off)
    else:
        unknown["parallel_calls_unless_disabled"] = why(left_out)
    strict, loose = findings.strict, findings.loose
    if _sent(strict) or (strict is not None and strict.kind == "refused"):
        flags["supports_strict_schema"] = _sent(strict)
    else:
        unknown["supports_strict_schema"] = why(strict)
    if _sent(strict) and _sent(loose):
        flags["strict_any_schema"] = strict.in_enum and not loose.in_enum
    else:
        unknown["strict_any_schema"] = why(strict if not _sent(strict) else loose)
    return flags, unknown


def _sent(answer: ProbeAnswer | None) -> TypeGuard[ProbeAnswer]:
    """Whether ``answer`` holds a call sent as a call (not only written in the text)."""
    return answer is not None and answer.kind == "call"


def measured_flags(findings: Findings) -> dict[str, bool]:
    """The profile flags the findings show (see :func:`read_flags`)."""
    return read_flags(findings)[0]


def unknown_flags(findings: Findings) -> dict[str, UnknownWhy]:
    """The flags of :data:`CAPABILITY_FLAGS` the findings cannot tell, each with why."""
    return read_flags(findings)[1]


def recommend(findings: Findings) -> tuple[ServerProfile | None, dict[str, bool]]:
    """The registered profile that fits what was measured best (:func:`_agreement`; the first
    by name on a tie; None when nothing was measured), and the measured flags it differs on.
    Only the flags shown count (:func:`measured_flags`): one left unknown never decides."""
    flags = measured_flags(findings)
    if not flags:
        return None, {}
    best = max(profiles(), key=lambda p: _agreement(p, flags))
    return best, {k: v for k, v in flags.items() if getattr(best, k) != v}


def any_profile_reads(findings: Findings) -> bool:
    """Whether the probes got calls only written in the text (or after the re-ask that
    describes the tools in words): no server setting shows then, and gm reads such calls
    under every profile, so the profile is the server's kind, not a measured fit."""
    return not findings.tools_work and (findings.calls_in_text or findings.tools_dropped)


def equally_fitting(findings: Findings) -> list[str]:
    """The other profiles that agree with what was measured as well as the recommended one
    (what the probes saw cannot choose between them)."""
    best, _ = recommend(findings)
    if best is None:
        return []
    flags = measured_flags(findings)
    score = _agreement(best, flags)
    return [p.name for p in profiles() if p.name != best.name and _agreement(p, flags) == score]


def _agreement(profile: ServerProfile, flags: dict[str, bool]) -> int:
    """How well ``profile`` fits the measured ``flags``: each flag it says True where False
    was measured costs two (a request the server refuses, or answers with nothing), each it
    says False where True was measured one (a capability left unused)."""
    score = 0
    for flag, measured in flags.items():
        said = getattr(profile, flag)
        if said != measured:
            score -= 2 if said else 1
    return score


#: What each :data:`UnknownWhy` says, in the report's English.
UNKNOWN_TEXTS: dict[UnknownWhy, str] = {
    "tools_dropped": "the server dropped the tools, so no probe could show it",
    "no_call_at_all": "the server never sent a tool call as a call, so no probe could show it",
    "no_call_here": "its probe got no tool call back",
    "failed": "its probe failed",
    "not_probed": "not probed",
}


def _answer_text(answer: ProbeAnswer | None) -> str:
    if answer is None:
        return "not probed"
    if answer.kind == "call":
        return "a call" + (" (with text before it)" if answer.text else "")
    if answer.kind == "call_in_text":
        return "a call written in the text"
    if answer.kind == "text":
        return "text only"
    if answer.kind == "empty":
        return "an empty reply"
    if answer.kind == "refused":
        if answer.status is not None:
            return f"refused (HTTP {answer.status}): {answer.said}"
        return f"refused: {answer.error}"
    return f"failed: {answer.error}"


def report_lines(findings: Findings, chosen: ServerProfile | None = None) -> list[str]:
    """What ``gm doctor`` prints: each probe's reading, the quirks found by name, each
    configuration error with its fix, and the profile it recommends (and how ``chosen``,
    the profile configured, differs from what was measured)."""
    lines = [f"server: {findings.base_url}", f"model: {findings.model}"]
    if findings.models:
        lines.append(f"models listed: {', '.join(findings.models[:8])}")
    if findings.context_length is not None:
        lines.append(f"context length: {findings.context_length} tokens")
    if findings.slots is not None:
        lines.append(
            f"slots: {findings.slots} (requests it serves at once: --max-concurrent {findings.slots}, "
            f"or GM_MAX_CONCURRENT={findings.slots})"
        )
    if findings.unreachable is not None:
        lines.append(f"unreachable: {findings.unreachable} (is the server running, the base URL right?)")
        return lines
    lines.append(f"plain answer: {_answer_text(findings.plain)}".replace("text only", "ok"))
    if findings.usage_reported is not None:
        lines.append(f"token usage: {'reported' if findings.usage_reported else 'not reported (estimated)'}")
    lines.append(f'tool_choice "required": {_answer_text(findings.required)}')
    if findings.reask is not None:
        lines.append(f"after one corrective re-ask (tool_choice auto): {_answer_text(findings.reask)}")
    lines.append(f"tool_choice naming the tool: {_answer_text(findings.named)}")
    lines.append(f"parallel_tool_calls false, two calls asked: {_calls_seen(findings.parallel_false)}")
    lines.append(f"parallel_tool_calls left out, two calls asked: {_calls_seen(findings.parallel_left_out)}")
    lines.append(f"arguments outside the schema's enum asked, without strict: {_enum_seen(findings.loose)}")
    lines.append(f"the same with strict: {_enum_seen(findings.strict)}")
    if findings.latencies:
        lines.append(
            f"latency: median {statistics.median(findings.latencies) * 1000:.0f} ms, "
            f"longest {max(findings.latencies) * 1000:.0f} ms over {len(findings.latencies)} "
            f"request{'s' if len(findings.latencies) != 1 else ''}"
        )
    lines.extend(f"quirk: {quirk}" for quirk in quirks(findings))
    lines.extend(f"problem: {problem}" for problem in findings.problems)
    if findings.problems:
        return lines
    flags, unknown = read_flags(findings)
    if flags:
        shown = ", ".join(f"{flag}={flags[flag]}" for flag in CAPABILITY_FLAGS if flag in flags)
        lines.append(f"measured: {shown}")
    for flag in CAPABILITY_FLAGS:
        if flag in unknown:
            lines.append(f"unknown: {flag} ({UNKNOWN_TEXTS[unknown[flag]]})")
    best, differs = recommend(findings)
    if best is None and any_profile_reads(findings):
        lines.append(
            "recommended profile: none can be told from these answers; the calls come written in "
            "the text, which gm reads under every profile: choose the one of your server "
            f"({', '.join(p.name for p in profiles())})"
        )
    elif best is None:
        lines.append("recommended profile: none can be told from these answers")
    else:
        lines.append(f"recommended profile: {best.name} (--profile {best.name}, or GM_LLM_PROFILE)")
        for flag, value in differs.items():
            lines.append(f"  but measured {flag}={value} (the profile says {not value})")
        alike = equally_fitting(findings)
        if alike:
            lines.append(f"  as good a fit for what was measured: {', '.join(alike)}")
    if chosen is not None:
        flags = measured_flags(findings)
        for flag in CAPABILITY_FLAGS:
            if flag in flags and getattr(chosen, flag) != flags[flag]:
                said = getattr(chosen, flag)
                lines.append(f"configured profile {chosen.name}: {flag}={said}, measured {flags[flag]}")
    return lines


#: Each known quirk by name, as the issue tracker and the fake server name it, with what gm
#: does about it (the English of the report; ``gm doctor`` shows the catalogue's words).
QUIRK_TEXTS: dict[str, str] = {
    "tools_dropped": (
        "tools dropped silently (HTTP 200, plain text): the chat template has no tool support; "
        "use a model or template with tools (llama.cpp: --jinja, or --chat-template-file); gm "
        "reads calls written in the text and re-asks once with the tools described"
    ),
    "calls_in_text": "calls written in the text (<tool_call> tags or JSON): gm reads them",
    "text_before_call": "free text before the call under tool_choice=required (llama.cpp): gm keeps both",
    "required_empty": "tool_choice=required answered with an empty reply (LM Studio): send auto instead",
    "tool_choice_ignored": "tool_choice ignored (Ollama): the call came only on the re-ask; leave it out",
    "named_refused": "a tool_choice naming a function refused (LM Studio): never send one",
    "several_calls": "several calls when parallel_tool_calls is left out (llama.cpp): send false explicitly",
    "strict_only": "argument schemas enforced only with strict (vLLM): send every tool strict",
    "padded_strings": (
        "free strings padded with white space (a grammar built from a schema without a pattern): "
        "gm strips a name rather than refuse it"
    ),
}


def found_quirks(findings: Findings) -> list[str]:
    """The names (keys of :data:`QUIRK_TEXTS`) of the known quirks the findings show."""
    found: list[str] = []
    required, named, reask = findings.required, findings.named, findings.reask
    if findings.tools_dropped:
        found.append("tools_dropped")
    if findings.calls_in_text:
        found.append("calls_in_text")
    if required is not None and required.kind == "call" and required.text:
        found.append("text_before_call")
    if required is not None and required.kind == "empty":
        found.append("required_empty")
    elif (required is not None and required.kind == "text" and reask is not None and reask.kind == "call"
          and named is not None and not named.called):
        found.append("tool_choice_ignored")
    if named is not None and named.kind == "refused":
        found.append("named_refused")
    off, left_out = findings.parallel_false, findings.parallel_left_out
    if off is not None and left_out is not None and len(left_out.calls) > 1 and len(off.calls) <= 1:
        found.append("several_calls")
    strict, loose = findings.strict, findings.loose
    if strict is not None and loose is not None and strict.in_enum and loose.called and not loose.in_enum:
        found.append("strict_only")
    if _padded_strings(findings):
        found.append("padded_strings")
    return found


def quirks(findings: Findings) -> list[str]:
    """The known quirks the findings show, each named as the issue tracker and the fake
    server name it, with what gm does about it."""
    return [QUIRK_TEXTS[name] for name in found_quirks(findings)]


def _calls_seen(answer: ProbeAnswer | None) -> str:
    if answer is None or not answer.called:
        return _answer_text(answer)
    return f"{len(answer.calls)} call{'s' if len(answer.calls) != 1 else ''}"


def _enum_seen(answer: ProbeAnswer | None) -> str:
    if answer is None or not answer.called:
        return _answer_text(answer)
    return "kept to the enum" if answer.in_enum else f"outside the enum ({_target(answer.calls[0])!r})"
