"""Replay a transcript through the engine and check that every rule outcome comes out the same.

A replay re-runs the session from its spec and revealed seed, with

* :class:`ReplayBackend` answering each model request with the recorded response. In
  strict mode a request must carry exactly the recorded messages and tools; in tolerant
  mode it is matched by ``(actor, day, phase, turn)`` alone, so a reworded prompt still
  replays;
* :class:`ReplayHuman` giving back the recorded human inputs;
* :class:`CheckingSink` comparing every event the session emits with the recorded one
  (in tolerant mode, model requests by where they stand and human inputs by their text).

Before that, :func:`~.format.read_transcript` checks every line against the running hash
(or, in format 2, the hash chain) and its end against the signature (the header's fields, a model's answers,
their usage and call ids included: a replay cannot re-derive those, the signature
covers them), and the report says what the signature showed.

The first divergence stops the replay and is reported as a :class:`Divergence`: which
event, what was recorded, what came out, and a unified diff (for a model request, also
the closest recorded call). Nothing sleeps and every lookup is amortised constant time,
so a replay costs about as much as the engine's own work.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import time
from collections import defaultdict, deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gm_engine import __version__
from gm_engine.events import (
    EventFormatError,
    EventSink,
    HumanInputEvent,
    ModelRequestEvent,
    ModelResponseEvent,
    SessionEvent,
    parse_event,
)
from gm_engine.llm.base import (
    BackendDefaults,
    BackendError,
    MalformedAnswerError,
    ModelBackend,
    ModelRequest,
    ModelResponse,
)
from gm_engine.sessions.base import (
    HumanInput,
    SessionIO,
    SessionOutcome,
    SessionRunner,
)
from gm_engine.sessions.registry import get_runner
from gm_engine.transcripts.format import (
    Authenticity,
    Event,
    Transcript,
    TranscriptError,
    normalize,
    read_transcript,
)


def measures_time(key: str) -> bool:
    """Whether a payload or figure key measures wall-clock time (``*latency*``, ``*_s``,
    ``*seconds``): such values differ from run to run and are never compared."""
    return "latency" in key or key.endswith(("_s", "seconds"))

#: Longest diff a report shows, in lines.
MAX_DIFF_LINES = 80


@dataclass(frozen=True)
class Divergence:
    """The first place a replay differs from its recording."""

    message: str
    seq: int | None = None
    line: int | None = None
    event_type: str | None = None
    closest: str | None = None
    diff: str = ""

    def __str__(self) -> str:
        where = f"event {self.seq} (line {self.line}, {self.event_type})" if self.seq is not None else "end"
        parts = [f"divergence at {where}: {self.message}"]
        if self.closest:
            parts.append(f"closest recorded call: {self.closest}")
        if self.diff:
            parts.append(self.diff.rstrip("\n"))
        return "\n".join(parts)


class ReplayMismatch(TranscriptError):
    """The replayed session did something other than the recording: see :attr:`divergence`."""

    def __init__(self, divergence: Divergence) -> None:
        super().__init__(str(divergence))
        self.divergence = divergence


class DivergenceLog:
    """Keeps the first divergence, so a session that catches the exception cannot hide it."""

    def __init__(self) -> None:
        self.first: Divergence | None = None

    def fail(self, divergence: Divergence) -> ReplayMismatch:
        """Note ``divergence`` (if it is the first) and return the exception to raise."""
        if self.first is None:
            self.first = divergence
        return ReplayMismatch(self.first)


def unified_diff(
    expected: object, actual: object, *, labels: tuple[str, str] = ("recorded", "replayed")
) -> str:
    """A unified diff of two JSON values, pretty-printed one key per line (capped in length)."""
    a = _pretty(expected).splitlines(keepends=True)
    b = _pretty(actual).splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, fromfile=labels[0], tofile=labels[1], n=2))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... ({len(lines) - MAX_DIFF_LINES} more diff lines)\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _pretty(value: object) -> str:
    return json.dumps(_split_text(value), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _split_text(value: object) -> object:
    """Multi-line strings as lists of their lines, so that a diff points at the line that changed."""
    if isinstance(value, str) and "\n" in value:
        return value.split("\n")
    if isinstance(value, dict):
        return {k: _split_text(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_split_text(v) for v in value]
    return value


def _comparable(payload: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if not measures_time(k)}


def typed_event(event: Event) -> SessionEvent:
    """The typed event a recorded line holds (:func:`gm_engine.events.parse_event`).

    Raises:
        TranscriptError: the line is no known event, or a field of it is wrong.
    """
    try:
        return parse_event({"type": event.type, **event.payload})
    except EventFormatError as exc:
        raise TranscriptError(f"line {event.line}: {exc}") from None


# --------------------------------------------------------------------------- model calls


@dataclass
class RecordedCall:
    """A recorded model request and the response recorded for it (None if cut off before it)."""

    number: int
    request: Event
    asked: ModelRequestEvent
    response: Event | None = None
    answer: ModelResponseEvent | None = None
    used: bool = False

    @property
    def key(self) -> tuple[str, int, str, int]:
        """``(actor, day, phase, turn)`` as recorded."""
        return self.asked.key

    def describe(self) -> str:
        """Where the call stands, for a report."""
        actor, day, phase, turn = self.key
        return (
            f"event {self.request.seq} (line {self.request.line}): actor {actor}, day {day}, "
            f"phase {phase!r}, turn {turn}"
        )


def recorded_calls(events: Sequence[Event]) -> list[RecordedCall]:
    """Pair each ``model_request`` with its ``model_response`` (the next one by the same actor).

    Raises:
        TranscriptError: a recorded request or response is not a valid event.
    """
    calls: list[RecordedCall] = []
    pending: dict[str, deque[RecordedCall]] = defaultdict(deque)
    for event in events:
        if event.type == "model_request":
            asked = typed_event(event)
            assert isinstance(asked, ModelRequestEvent)
            call = RecordedCall(number=len(calls), request=event, asked=asked)
            calls.append(call)
            pending[asked.actor].append(call)
        elif event.type == "model_response":
            answer = typed_event(event)
            assert isinstance(answer, ModelResponseEvent)
            queue = pending.get(answer.actor)
            if queue:
                call = queue.popleft()
                call.response, call.answer = event, answer
    return calls


def response_from_event(event: Event) -> ModelResponse:
    """The :class:`ModelResponse` a ``model_response`` event recorded.

    Raises:
        MalformedAnswerError: the event records a server answer that could not be read
            (its ``error``): replayed as the same failure.
        TranscriptError: the recorded response is not a valid ``model_response`` event.
    """
    answer = typed_event(event)
    if not isinstance(answer, ModelResponseEvent):
        raise TranscriptError(f"line {event.line}: a {event.type} event where a model response was expected")
    if answer.error is not None:
        raise MalformedAnswerError(answer.error)
    return answer.response()


def _request_key(request: ModelRequest) -> tuple[str, int, str, int]:
    return (request.actor, request.day, request.phase, request.turn)


def _message_text(messages: object) -> str:
    if not isinstance(messages, list):
        return str(messages)
    parts = []
    for message in messages:
        if isinstance(message, dict):
            parts.append(f"[{message.get('role')}] {message.get('content') or ''}")
        else:
            parts.append(str(message))
    return "\n".join(parts)


class ReplayBackend(BackendDefaults):
    """A :class:`~gm_engine.llm.base.ModelBackend` that answers from a transcript.

    ``fallback``, when given, answers the requests made after the recorded ones ran out
    (how :mod:`.resume` goes on live); without it such a request is a divergence. With
    ``shadow``, the fallback is also asked every replayed request and its answer dropped,
    so that a model with state of its own (the offline model's agents) is in the same
    state when the session goes on live as it was when the session was cut off.
    """

    name = "replay"

    def __init__(
        self,
        events: Sequence[Event],
        *,
        tolerant: bool = False,
        fallback: ModelBackend | None = None,
        shadow: bool = False,
        log: DivergenceLog | None = None,
    ) -> None:
        self.calls = recorded_calls(events)
        self.tolerant = tolerant
        self.fallback = fallback
        self.shadow = shadow and fallback is not None
        self.log = log or DivergenceLog()
        self._next = 0  # every call before this one is used
        self.served = 0
        #: Requests no recorded call answered (each with its closest call and a diff).
        self.unrecorded: list[Divergence] = []

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Answer ``request`` with its recorded response (or the fallback's, past the recording).

        Raises:
            ReplayMismatch: no recorded call matches and there is no fallback to go on with.
        """
        if self.fallback is not None and not self._has_unused():
            return await self.fallback.complete(request, context)
        call = self.take(request)
        if call is None:
            # Not an error by itself: a session may make a call whose events it never emits
            # (a concurrent round cut short by /quit). If its events are emitted, the
            # checking sink reports them, with the closest recorded call; if not, the
            # report notes the call. Meanwhile the session gets an empty answer.
            self.unrecorded.append(self.describe_miss(request))
            return ModelResponse()
        if call.response is None:
            if self.fallback is not None:  # cut off while the model was thinking: ask again, live
                return await self.fallback.complete(request, context)
            raise self.log.fail(
                Divergence(
                    "the recording stops before the model answered this request",
                    seq=call.request.seq,
                    line=call.request.line,
                    event_type="model_request",
                )
            )
        if self.shadow and self.fallback is not None:
            # A model with state of its own (the offline agents' dice) must live through the
            # replayed part too, to be where it was when the session goes on live. Its answer,
            # or its failure, does not matter: the recorded answer is what the session gets.
            with contextlib.suppress(BackendError):
                await self.fallback.complete(request, context)
        assert call.answer is not None
        if call.answer.error is not None:  # the server's answer could not be read: fail the same way
            raise MalformedAnswerError(call.answer.error)
        return call.answer.response()

    def prepare(self) -> None:
        """Prepare the backend that goes on past the recording, if any."""
        if self.fallback is not None:
            self.fallback.prepare()

    async def aclose(self) -> None:
        """Close the backend that goes on past the recording, if any."""
        if self.fallback is not None:
            await self.fallback.aclose()

    def take(self, request: ModelRequest) -> RecordedCall | None:
        """Find the recorded call answering ``request`` and mark it used (None: no call matches).

        Raises:
            ReplayMismatch: the replay already diverged.
        """
        if self.log.first is not None:
            raise ReplayMismatch(self.log.first)
        call = self._match(request)
        if call is None:
            return None
        call.used = True
        self.served += 1
        while self._next < len(self.calls) and self.calls[self._next].used:
            self._next += 1
        return call

    def _has_unused(self) -> bool:
        return self._next < len(self.calls)

    def unused(self) -> list[RecordedCall]:
        """The recorded calls the replay never made."""
        return [call for call in self.calls[self._next :] if not call.used]

    def _matches(self, call: RecordedCall, request: ModelRequest, key: tuple[str, int, str, int]) -> bool:
        if call.used or call.key != key:
            return False
        if self.tolerant:
            return True
        recorded = call.asked
        if recorded.tools != request.tools:
            return False
        messages = list(request.messages)
        # plain dicts of strings compare equal as they are; normalise only when they do not
        return recorded.messages == messages or recorded.messages == normalize(messages)

    def _match(self, request: ModelRequest) -> RecordedCall | None:
        # Almost always the very next unused call matches; the scan only serves sessions
        # that issue calls concurrently (recorded in the order the answers came).
        key = _request_key(request)
        for index in range(self._next, len(self.calls)):
            call = self.calls[index]
            if self._matches(call, request, key):
                return call
        return None

    def describe_miss(self, request: ModelRequest) -> Divergence:
        """How ``request`` differs from the recording: the closest recorded call and a diff."""
        actual = normalize(list(request.messages))
        closest = self.closest(request)
        actor, day, phase, turn = _request_key(request)
        what = f"model request (actor {actor}, day {day}, phase {phase!r}, turn {turn})"
        if closest is None:
            return Divergence(f"{what}: the recording has no more model calls", event_type="model_request")
        recorded = closest.request.payload
        if closest.key == _request_key(request) and recorded.get("messages") == actual:
            message = f"{what}: the tools offered differ from the recorded call"
            diff = unified_diff(recorded.get("tools"), normalize([t.model_dump() for t in request.tools]))
        else:
            reason = "matches no recorded call" if self.tolerant else "differs from every unused recorded one"
            message = f"{what} {reason}"
            diff = unified_diff(recorded.get("messages"), actual)
        return Divergence(
            message,
            seq=closest.request.seq,
            line=closest.request.line,
            event_type="model_request",
            closest=closest.describe(),
            diff=diff,
        )

    def closest(self, request: ModelRequest) -> RecordedCall | None:
        """The recorded call nearest ``request`` (see :func:`closest_call`), unused calls first."""
        candidates = [c for c in self.calls if not c.used] or list(self.calls)
        return closest_call(candidates, _request_key(request), normalize(list(request.messages)))


def closest_call(
    candidates: Sequence[RecordedCall], key: tuple[str, int, str, int], messages: object
) -> RecordedCall | None:
    """The candidate nearest a request at ``key`` with ``messages``: the most of (actor, day,
    phase, turn) equal (the actor counting most), then the most similar message text (difflib)."""
    if not candidates:
        return None

    def key_score(call: RecordedCall) -> int:
        same: int = sum(1 for a, b in zip(call.key, key, strict=True) if a == b)
        return same + (2 if call.key[0] == key[0] else 0)

    best_key = max(key_score(c) for c in candidates)
    shortlist = [c for c in candidates if key_score(c) == best_key][:12]
    text = _message_text(messages)

    def similarity(call: RecordedCall) -> float:
        matcher = difflib.SequenceMatcher(None, _message_text(call.request.payload.get("messages")), text)
        return matcher.quick_ratio() if len(text) > 20000 else matcher.ratio()

    return max(shortlist, key=lambda c: (similarity(c), -c.number))


# --------------------------------------------------------------------------- human


class ReplayHuman:
    """A :class:`~gm_engine.sessions.base.HumanInput` that gives back the recorded inputs.

    ``fallback`` answers once the recorded inputs ran out; with ``shadow`` it is also
    asked each replayed question (its answer dropped), for an automatic player whose
    state must follow the game. A terminal human is never shadowed.
    """

    def __init__(
        self,
        events: Sequence[Event],
        *,
        tolerant: bool = False,
        fallback: HumanInput | None = None,
        shadow: bool = False,
        log: DivergenceLog | None = None,
    ) -> None:
        self.inputs = [e for e in events if e.type == "human_input"]
        self._answers: list[HumanInputEvent] = []
        for event in self.inputs:
            answer = typed_event(event)
            assert isinstance(answer, HumanInputEvent)
            self._answers.append(answer)
        self.tolerant = tolerant
        self.fallback = fallback
        self.shadow = shadow and fallback is not None
        self.log = log or DivergenceLog()
        self.given = 0

    @property
    def exhausted(self) -> bool:
        """True once every recorded input was given."""
        return self.given >= len(self.inputs)

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        """The next recorded input.

        The recorded answer is given back even when it is not among ``choices``: the
        human typed it, and how the session took it is what the replay checks.

        Raises:
            ReplayMismatch: the prompt differs (strict mode), or the recording has no more
                inputs and there is no fallback.
        """
        if self.log.first is not None:
            raise ReplayMismatch(self.log.first)
        if self.exhausted:
            if self.fallback is not None:
                return self.fallback.ask(prompt, choices)
            raise self.log.fail(
                Divergence(
                    f"the session asks the human once more than recorded "
                    f"({len(self.inputs)} inputs): {prompt!r}",
                    event_type="human_input",
                )
            )
        event = self.inputs[self.given]
        recorded_prompt = self._answers[self.given].prompt
        text = self._answers[self.given].text
        if not self.tolerant and recorded_prompt != prompt:
            raise self.log.fail(
                Divergence(
                    "the session asks the human with another prompt",
                    event.seq,
                    event.line,
                    event.type,
                    diff=unified_diff(recorded_prompt, prompt),
                )
            )
        if self.shadow and self.fallback is not None:
            self.fallback.ask(prompt, choices)  # an automatic player lives through it too
        self.given += 1
        return text

    @property
    def answers_at_once(self) -> bool:
        """A recorded answer is there at once; past the recording, as the fallback answers."""
        return not self.exhausted or self.fallback is None or self.fallback.answers_at_once

    def observe(self, observation: object, legal: Sequence[object]) -> None:
        """Pass what the session shows on to the fallback (an automatic player follows the game)."""
        if self.fallback is not None:
            self.fallback.observe(observation, legal)


# --------------------------------------------------------------------------- events


class CheckingSink:
    """An :class:`~gm_engine.sessions.base.EventSink` that compares each emitted event with
    the recording, in order.

    Strict mode compares every event whole; tolerant mode compares model requests by
    ``(actor, day, phase, turn)`` only and human inputs by their text. Events emitted
    after the recorded ones ran out go to ``then`` (how :mod:`.resume` appends), or are
    a divergence.
    """

    def __init__(
        self,
        events: Sequence[Event],
        *,
        tolerant: bool = False,
        then: EventSink | None = None,
        log: DivergenceLog | None = None,
    ) -> None:
        self.tolerant = tolerant
        self.events = events
        self.expected = list(events)
        self.then = then
        self.log = log or DivergenceLog()
        self.checked = 0
        self.emitted = 0
        self.passed_on = 0

    @property
    def exhausted(self) -> bool:
        """True once every recorded event was matched."""
        return self.checked >= len(self.expected)

    def emit(self, event: SessionEvent) -> None:
        """Check one event against the recording.

        Raises:
            ReplayMismatch: it differs from the recorded event at its place.
            TranscriptError: the recorded event at its place is not a valid event.
        """
        self.emitted += 1
        if self.log.first is not None:
            raise ReplayMismatch(self.log.first)
        if self.exhausted and self.then is not None:
            self.passed_on += 1
            self.then.emit(event)
            return
        if self.exhausted:
            raise self.log.fail(
                Divergence(
                    f"the replay goes on after the recording ended: it emits a {event.type} event",
                    event_type=event.type,
                    diff=unified_diff(None, {"type": event.type, **_comparable(event.payload())}),
                )
            )
        expected_line = self.expected[self.checked]
        expected = typed_event(expected_line) if expected_line.type == event.type else None
        if expected is not None and _same_event(expected, event, tolerant=self.tolerant):
            self.checked += 1
            return
        recorded = _comparable(expected_line.payload)
        actual = _comparable(normalize(event.payload()))
        closest = None
        if isinstance(event, ModelRequestEvent):
            calls = [c for c in recorded_calls(self.events) if c.request.seq >= expected_line.seq]
            nearest = closest_call(calls, event.key, actual.get("messages"))
            closest = nearest.describe() if nearest is not None else None
        if expected is None:
            message = f"the replay emits {event.type}, the recording has {expected_line.type}"
        elif isinstance(event, ModelRequestEvent):
            actor, day, phase, turn = event.key
            where = "where it stands" if self.tolerant else "its messages or tools"
            message = (
                f"the model request (actor {actor}, day {day}, phase {phase!r}, turn {turn}) differs "
                f"from the recorded one in {where}"
            )
        else:
            message = f"the {event.type} event differs from the recording"
        raise self.log.fail(
            Divergence(
                message,
                expected_line.seq,
                expected_line.line,
                expected_line.type,
                closest=closest,
                diff=unified_diff({"type": expected_line.type, **recorded}, {"type": event.type, **actual}),
            )
        )

    def missing(self) -> Divergence | None:
        """A divergence naming the first recorded event the replay never emitted, if any."""
        if self.exhausted:
            return None
        event = self.expected[self.checked]
        return Divergence(
            f"the replayed session ended, but the recording goes on ({len(self.expected) - self.checked} "
            "more events)",
            event.seq,
            event.line,
            event.type,
            diff=unified_diff({"type": event.type, **event.payload}, None),
        )


def _same_event(expected: SessionEvent, actual: SessionEvent, *, tolerant: bool) -> bool:
    """Whether ``actual`` is the recorded ``expected`` event (of the same type); tolerant
    mode compares model requests by where they stand and human inputs by their text."""
    if tolerant and isinstance(expected, ModelRequestEvent) and isinstance(actual, ModelRequestEvent):
        return expected.key == actual.key
    if tolerant and isinstance(expected, HumanInputEvent) and isinstance(actual, HumanInputEvent):
        return expected.text == actual.text
    if expected == actual:
        return True
    # a value the session holds in another form than JSON reads it back (a tuple, a model)
    return _comparable(expected.payload()) == _comparable(normalize(actual.payload()))


# --------------------------------------------------------------------------- driver


@dataclass
class ReplayReport:
    """What a replay found: ok or the first divergence, with its figures."""

    path: Path
    ok: bool
    events: int
    model_calls: int
    human_inputs: int
    seconds: float
    tolerant: bool
    divergence: Divergence | None = None
    notes: list[str] = field(default_factory=list)
    authenticity: Authenticity | None = None

    def describe(self) -> str:
        """A short report for the terminal: the replay's result, then what the signature showed."""
        mode = "tolerant" if self.tolerant else "strict"
        head = (
            f"{self.path}: {'OK' if self.ok else 'FAILED'} ({mode}; {self.events} events, "
            f"{self.model_calls} model calls, {self.human_inputs} human inputs, {self.seconds * 1000:.1f} ms)"
        )
        lines = [head]
        if self.authenticity is not None:
            lines.append(f"  {self.authenticity.describe()}")
        lines.extend(f"  note: {note}" for note in self.notes)
        if self.divergence is not None:
            lines.extend("  " + line for line in str(self.divergence).splitlines())
        return "\n".join(lines)


def _discard(text: str) -> None:
    """Replays show nothing."""


def replay_transcript(
    transcript: Transcript,
    *,
    tolerant: bool = False,
    runner: SessionRunner | None = None,
) -> ReplayReport:
    """Re-run a complete transcript's session and compare it with the recording.

    Raises:
        TranscriptError: the transcript has no end line (so no seed) or its session kind
            has no runner.
    """
    if transcript.end is None:
        raise TranscriptError(f"{transcript.path}: no end line, so no seed to replay with")
    notes = _notes(transcript)
    spec = transcript.header.spec(transcript.end.seed)
    run = runner or get_runner(spec.kind)
    log = DivergenceLog()
    backend = ReplayBackend(transcript.events, tolerant=tolerant, log=log)
    human = ReplayHuman(transcript.events, tolerant=tolerant, log=log)
    sink = CheckingSink(transcript.events, tolerant=tolerant, log=log)
    started = time.perf_counter()
    outcome: SessionOutcome | None = None
    try:
        outcome = run(spec, SessionIO(backend=backend, human=human, sink=sink, show=_discard))
    except ReplayMismatch:
        pass
    except Exception as exc:  # the engine itself failed: that is a divergence too
        crash = f"the session raised {type(exc).__name__}: {exc}"
        if backend.unrecorded:  # most likely on the empty answer to a call the recording lacks
            miss = backend.unrecorded[0]
            log.fail(dataclasses.replace(miss, message=f"{miss.message}; then {crash}"))
        else:
            log.fail(Divergence(crash, event_type="exception", diff=_next_expected(sink)))
    seconds = time.perf_counter() - started
    divergence = log.first
    if divergence is None and outcome is not None:
        divergence = _final_checks(transcript, backend, human, sink, outcome)
    if divergence is None and backend.unrecorded:
        notes.append(
            f"{len(backend.unrecorded)} model call(s) of the replay are not in the recording and "
            "none of their events was emitted (as when a concurrent round is cut short by /quit); "
            f"the first: {backend.unrecorded[0].message}"
        )
    return ReplayReport(
        path=transcript.path,
        ok=divergence is None,
        events=len(transcript.events),
        model_calls=len(backend.calls),
        human_inputs=len(human.inputs),
        seconds=seconds,
        tolerant=tolerant,
        divergence=divergence,
        notes=notes,
        authenticity=transcript.authenticity,
    )


def replay_file(
    path: str | Path, *, tolerant: bool = False, trusted_keys: Collection[str] = ()
) -> ReplayReport:
    """Read, verify and replay the transcript at ``path`` (``trusted_keys``: signers
    trusted besides this installation's own key, see :func:`~.format.read_transcript`).

    Raises:
        OSError: the file cannot be read.
        TranscriptError: the file is malformed, tampered with (its signature included),
            truncated, or of an unknown kind.
    """
    return replay_transcript(read_transcript(path, trusted_keys=trusted_keys), tolerant=tolerant)


def _next_expected(sink: CheckingSink) -> str:
    missing = sink.missing()
    return f"(next recorded event: {missing.event_type} at line {missing.line})\n" if missing else ""


def _final_checks(
    transcript: Transcript,
    backend: ReplayBackend,
    human: ReplayHuman,
    sink: CheckingSink,
    outcome: SessionOutcome,
) -> Divergence | None:
    missing = sink.missing()
    if missing is not None:
        return missing
    unused = backend.unused()
    if unused:
        call = unused[0]
        return Divergence(
            f"{len(unused)} recorded model call(s) were never made",
            call.request.seq,
            call.request.line,
            "model_request",
            closest=call.describe(),
        )
    if not human.exhausted:
        event = human.inputs[human.given]
        return Divergence(
            f"{len(human.inputs) - human.given} recorded human input(s) were never asked for",
            event.seq,
            event.line,
            event.type,
        )
    end = transcript.end
    assert end is not None
    recorded = {"summary": end.summary, "figures": _comparable(end.figures)}
    actual = {"summary": outcome.summary, "figures": _comparable(normalize(outcome.figures))}
    if recorded != actual:
        return Divergence(
            "the session ends with another outcome",
            end.seq,
            end.line,
            "end",
            diff=unified_diff(recorded, actual),
        )
    return None


def _notes(transcript: Transcript) -> list[str]:
    from gm_engine.transcripts.format import asset_hashes

    notes = []
    header = transcript.header
    if header.engine != __version__:
        notes.append(f"recorded with engine {header.engine}, replayed with {__version__}")
    current = asset_hashes()
    changed = sorted(
        name for name, digest in header.assets.items() if current.get(name, digest) != digest
    )
    gone = sorted(name for name in header.assets if name not in current)
    if changed:
        notes.append(f"prompt/persona files changed since recording: {', '.join(changed)}")
    if gone:
        notes.append(f"prompt/persona files gone since recording: {', '.join(gone)}")
    return notes


__all__: list[str] = [
    "CheckingSink",
    "Divergence",
    "DivergenceLog",
    "RecordedCall",
    "ReplayBackend",
    "ReplayHuman",
    "ReplayMismatch",
    "ReplayReport",
    "recorded_calls",
    "replay_file",
    "replay_transcript",
    "response_from_event",
    "unified_diff",
]
