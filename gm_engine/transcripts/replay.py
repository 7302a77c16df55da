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
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gm_engine import __version__
from gm_engine.dice.result import Locale
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
from gm_engine.messages import Message, locale_from_env, render
from gm_engine.messages.texts import (
    AsksOnceMore,
    AsksOtherPrompt,
    AssetsChanged,
    AssetsGone,
    CallsNeverMade,
    ClosestCall,
    DiffersFromUnusedCalls,
    DiffRecorded,
    DiffReplayed,
    DivergenceAt,
    DivergenceAtEnd,
    EndedEarly,
    EngineChanged,
    EventDiffers,
    Fault,
    GoesOnAfterEnd,
    InFile,
    InputsNeverAsked,
    MatchesNoCall,
    MoreDiffLines,
    NextRecordedEvent,
    NoAnswerRecorded,
    NoMoreCalls,
    OtherEventType,
    OtherOutcome,
    PackedOpened,
    Problem,
    RecordedCallAt,
    ReplayHead,
    ReplayNote,
    RequestElsewhere,
    RequestReworded,
    SealedOpened,
    SessionRaised,
    ThenRaised,
    ToolsDiffer,
    UnrecordedCalls,
    Verdict,
    VerdictWord,
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
    EndRecord,
    Event,
    Transcript,
    TranscriptError,
    TranscriptFormatError,
    TranscriptHeader,
    TranscriptStream,
    normalize,
)
from gm_engine.transcripts.packing import PACKED_FORMAT


def measures_time(key: str) -> bool:
    """Whether a payload or figure key measures wall-clock time (``*latency*``, ``*_s``,
    ``*seconds``): such values differ from run to run and are never compared."""
    return "latency" in key or key.endswith(("_s", "seconds"))

#: Longest diff a report shows, in lines.
MAX_DIFF_LINES = 80


@dataclass(frozen=True)
class Divergence:
    """The first place a replay differs from its recording (``message``: what differs, a
    message of the catalogue, shown in the player's language)."""

    message: Message
    seq: int | None = None
    line: int | None = None
    event_type: str | None = None
    closest: RecordedCallAt | None = None
    diff: str = ""

    def __str__(self) -> str:
        return self.describe()

    def describe(self, locale: Locale | None = None) -> str:
        """Where, what, the closest recorded call and the diff, with the labels in ``locale``
        (by default the player's, ``GM_LOCALE``)."""
        locale = locale_from_env() if locale is None else locale
        where: Message = DivergenceAtEnd(problem=self.message)
        if self.seq is not None and self.line is not None:
            kind = str(self.event_type)
            where = DivergenceAt(seq=self.seq, line=self.line, event_type=kind, problem=self.message)
        parts = [render(where, locale)]
        if self.closest:
            parts.append(render(ClosestCall(call=render(self.closest, locale)), locale))
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


def unified_diff(expected: object, actual: object, *, labels: tuple[str, str] | None = None) -> str:
    """A unified diff of two JSON values, pretty-printed one key per line (capped in length);
    its sides are labelled ``labels``, by default "recorded" and "replayed" in the player's
    locale (``GM_LOCALE``)."""
    if labels is None:
        locale = locale_from_env()
        labels = (render(DiffRecorded(), locale), render(DiffReplayed(), locale))
    a = _pretty(expected).splitlines(keepends=True)
    b = _pretty(actual).splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, fromfile=labels[0], tofile=labels[1], n=2))
    if len(lines) > MAX_DIFF_LINES:
        more = render(MoreDiffLines(count=len(lines) - MAX_DIFF_LINES), locale_from_env())
        lines = [*lines[:MAX_DIFF_LINES], more + "\n"]
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
        raise TranscriptFormatError(Problem(Fault.EVENT), event.line) from exc


# --------------------------------------------------------------------------- the recorded events


#: How many events past the first unused recorded call the replay looks for a matching one
#: (calls made at once are recorded in the order their answers came, a round apart at most).
LOOKAHEAD = 2048


class EventFeed:
    """The recorded events as the replay needs them: read from a stream one at a time and
    kept only while a reader (the backend, the human, the checking sink) may still need
    them, so that a replay's memory grows with the events in play, not with the file.

    Each reader asks for events by index (``seq - 1``) with :meth:`get` and says which it
    no longer needs with :meth:`release`. An error the stream raises (a line found edited
    on the way) is kept in :attr:`error` and raised again to every later reader, so a
    session that catches it cannot hide it.
    """

    def __init__(self, events: Iterable[Event]) -> None:
        self._source: Iterator[Event] = iter(events)
        self._buffer: list[Event] = []
        self._offset = 0  # the index of _buffer[0]
        self._marks: dict[str, int] = {}
        self._skipped = 0  # events read by drain and not kept
        self._sought: set[str] = set()
        self._kept: dict[int, Event] = {}  # events of the sought types let go by the others
        self.ended = False
        self.error: TranscriptError | None = None
        #: The most events held at once (what a replay's memory grows with).
        self.peak = 0

    @classmethod
    def of(cls, events: EventFeed | Iterable[Event]) -> EventFeed:
        """``events`` as a feed (a feed stays itself, so that readers can share it)."""
        return events if isinstance(events, EventFeed) else cls(events)

    @property
    def count(self) -> int:
        """How many events were read so far."""
        return self._offset + len(self._buffer) + self._skipped

    def get(self, index: int) -> Event | None:
        """The event at ``index``, or None past the last one.

        Raises:
            TranscriptError: the stream found a bad line on the way (also raised again later).
        """
        while index >= self._offset + len(self._buffer):
            if self.error is not None:
                raise self.error
            if self.ended:
                return None
            try:
                event = next(self._source)
            except StopIteration:
                self.ended = True
                return None
            except TranscriptError as exc:
                self.error = exc
                raise
            self._buffer.append(event)
            self.peak = max(self.peak, len(self._buffer))
        if index < self._offset:
            raise TranscriptError(f"event {index + 1} was read and let go already")
        return self._buffer[index - self._offset]

    def release(self, reader: str, index: int) -> None:
        """``reader`` needs no event before ``index`` any more."""
        self._marks[reader] = index
        drop = min(self._marks.values()) - self._offset
        if drop > 8:
            for event in self._buffer[:drop]:
                if event.type in self._sought:
                    self._kept[event.seq - 1] = event
            del self._buffer[:drop]
            self._offset += drop

    def seek(self, kind: str) -> None:
        """Keep the events of ``kind`` for :meth:`find` when the others let them go (the
        human's inputs: a reader of those alone must not hold every event in between)."""
        self._sought.add(kind)

    def find(self, start: int, kind: str) -> tuple[int, Event] | None:
        """The first event of ``kind`` (see :meth:`seek`) at ``start`` or later, with its index."""
        if start < self._offset:
            for index, kept in self._kept.items():  # in the order they were let go
                if index >= start and kept.type == kind:
                    return index, kept
            start = self._offset
        while (event := self.get(start)) is not None:
            if event.type == kind:
                return start, event
            start += 1
        return None

    def forget(self, before: int) -> None:
        """Drop the events kept for :meth:`find` before ``before``."""
        for index in [index for index in self._kept if index < before]:
            del self._kept[index]

    def drain(self) -> int:
        """Read to the end, keeping none of the events not read yet (the replay is over);
        how many there are in all.

        Raises:
            TranscriptError: the stream found a bad line on the way.
        """
        while not self.ended:
            if self.error is not None:
                raise self.error
            try:
                next(self._source)
            except StopIteration:
                self.ended = True
            except TranscriptError as exc:
                self.error = exc
                raise
            else:
                self._skipped += 1
        if self.error is not None:
            raise self.error
        return self.count


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

    def where(self) -> RecordedCallAt:
        """Where the call stands, for a report."""
        actor, day, phase, turn = self.key
        return RecordedCallAt(
            seq=self.request.seq, line=self.request.line, actor=actor, day=day, phase=repr(phase), turn=turn
        )

    def describe(self, locale: Locale | None = None) -> str:
        """:meth:`where` in ``locale`` (by default the player's, ``GM_LOCALE``)."""
        return render(self.where(), locale_from_env() if locale is None else locale)


def recorded_calls(events: Iterable[Event]) -> list[RecordedCall]:
    """Pair each ``model_request`` with its ``model_response`` (the next one by the same actor).

    Raises:
        TranscriptError: a recorded request or response is not a valid event.
    """
    pairing = CallPairing()
    for event in events:
        pairing.add(event)
    return pairing.calls


class CallPairing:
    """Pairs requests with responses as the events come (see :func:`recorded_calls`)."""

    def __init__(self) -> None:
        self.calls: list[RecordedCall] = []
        self.made = 0
        self._pending: dict[str, deque[RecordedCall]] = defaultdict(deque)

    def add(self, event: Event) -> RecordedCall | None:
        """Take one event; the new call if it is a request.

        Raises:
            TranscriptError: a recorded request or response is not a valid event.
        """
        if event.type == "model_request":
            asked = typed_event(event)
            assert isinstance(asked, ModelRequestEvent)
            call = RecordedCall(number=self.made, request=event, asked=asked)
            self.made += 1
            self.calls.append(call)
            self._pending[asked.actor].append(call)
            return call
        if event.type == "model_response":
            answer = typed_event(event)
            assert isinstance(answer, ModelResponseEvent)
            queue = self._pending.get(answer.actor)
            if queue:
                call = queue.popleft()
                call.response, call.answer = event, answer
        return None


def response_from_event(event: Event) -> ModelResponse:
    """The :class:`ModelResponse` a ``model_response`` event recorded.

    Raises:
        MalformedAnswerError: the event records a server answer that could not be read
            (its ``error``): replayed as the same failure.
        TranscriptError: the recorded response is not a valid ``model_response`` event.
    """
    answer = typed_event(event)
    if not isinstance(answer, ModelResponseEvent):
        raise TranscriptFormatError(Problem(Fault.UNEXPECTED_EVENT), event.line)
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
        events: EventFeed | Iterable[Event],
        *,
        tolerant: bool = False,
        fallback: ModelBackend | None = None,
        shadow: bool = False,
        log: DivergenceLog | None = None,
    ) -> None:
        self.feed = EventFeed.of(events)
        self.feed.release("backend", 0)
        self._pairing = CallPairing()
        #: The recorded calls read so far from the first one not used yet on.
        self.calls = self._pairing.calls
        self._scanned = 0  # the next event to look at for calls
        self.tolerant = tolerant
        self.fallback = fallback
        self.shadow = shadow and fallback is not None
        self.log = log or DivergenceLog()
        self.served = 0
        #: Requests no recorded call answered (each with its closest call and a diff).
        self.unrecorded: list[Divergence] = []

    @property
    def calls_recorded(self) -> int:
        """How many recorded calls were read so far (all of them once the replay is done)."""
        return self._pairing.made

    def _read_call(self) -> bool:
        """Read the next event (a call, perhaps, or its answer); False at the end."""
        event = self.feed.get(self._scanned)
        if event is None:
            return False
        self._scanned += 1
        self._pairing.add(event)
        return True

    def _let_go(self) -> None:
        calls = self.calls
        used = 0
        while used < len(calls) and calls[used].used and calls[used].response is not None:
            used += 1
        if used:
            del calls[:used]
        self.feed.release("backend", calls[0].request.seq - 1 if calls else self._scanned)

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
                    NoAnswerRecorded(),
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
        answer = call.answer
        assert answer is not None
        if answer.error is not None:  # the server's answer could not be read: fail the same way
            raise MalformedAnswerError(answer.error)
        return answer.response()

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
        while call.response is None and self._read_call():  # its answer comes a few events on
            pass
        self._let_go()
        return call

    def _has_unused(self) -> bool:
        while True:
            if any(not call.used for call in self.calls):
                return True
            if not self._read_call():
                return False

    def unused(self) -> list[RecordedCall]:
        """The recorded calls the replay never made (the rest of the recording is read)."""
        while self._read_call():
            pass
        return [call for call in self.calls if not call.used]

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
        for call in self.calls:
            if self._matches(call, request, key):
                return call
        first = next((call.request.seq for call in self.calls if not call.used), self._scanned + 1)
        while self._scanned < first + LOOKAHEAD:
            known = len(self.calls)
            if not self._read_call():
                return None
            if len(self.calls) > known and self._matches(self.calls[-1], request, key):
                return self.calls[-1]
        return None

    def describe_miss(self, request: ModelRequest) -> Divergence:
        """How ``request`` differs from the recording: the closest recorded call and a diff."""
        actual = normalize(list(request.messages))
        closest = self.closest(request)
        actor, day, phase, turn = _request_key(request)
        where = (actor, day, repr(phase), turn)
        if closest is None:
            return Divergence(NoMoreCalls(*where), event_type="model_request")
        recorded = closest.request.payload
        message: Message
        if closest.key == _request_key(request) and recorded.get("messages") == actual:
            message = ToolsDiffer(*where)
            diff = unified_diff(recorded.get("tools"), normalize([t.model_dump() for t in request.tools]))
        else:
            message = MatchesNoCall(*where) if self.tolerant else DiffersFromUnusedCalls(*where)
            diff = unified_diff(recorded.get("messages"), actual)
        return Divergence(
            message,
            seq=closest.request.seq,
            line=closest.request.line,
            event_type="model_request",
            closest=closest.where(),
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
        events: EventFeed | Iterable[Event],
        *,
        tolerant: bool = False,
        fallback: HumanInput | None = None,
        shadow: bool = False,
        log: DivergenceLog | None = None,
    ) -> None:
        self.feed = EventFeed.of(events)
        self.feed.seek("human_input")
        self._scanned = 0  # the next event to look at for an input
        self._next: tuple[Event, HumanInputEvent] | None = None
        self.tolerant = tolerant
        self.fallback = fallback
        self.shadow = shadow and fallback is not None
        self.log = log or DivergenceLog()
        self.given = 0

    def _upcoming(self) -> tuple[Event, HumanInputEvent] | None:
        """The next recorded input, read as far as it is."""
        if self._next is None:
            found = self.feed.find(self._scanned, "human_input")
            if found is None:
                return None
            index, event = found
            self._scanned = index + 1
            self.feed.forget(self._scanned)
            answer = typed_event(event)
            assert isinstance(answer, HumanInputEvent)
            self._next = (event, answer)
        return self._next

    @property
    def exhausted(self) -> bool:
        """True once every recorded input was given."""
        return self._upcoming() is None

    @property
    def recorded(self) -> int:
        """How many inputs are recorded: those given and those still to come (all are read)."""
        count = self.given
        scanned = self._scanned if self._next is None else self._next[0].seq - 1
        while (found := self.feed.find(scanned, "human_input")) is not None:
            scanned = found[0] + 1
            count += 1
        return count

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
        upcoming = self._upcoming()
        if upcoming is None:
            if self.fallback is not None:
                return self.fallback.ask(prompt, choices)
            raise self.log.fail(
                Divergence(
                    AsksOnceMore(given=self.given, prompt=repr(prompt)),
                    event_type="human_input",
                )
            )
        event, answer = upcoming
        recorded_prompt = answer.prompt
        text = answer.text
        if not self.tolerant and recorded_prompt != prompt:
            raise self.log.fail(
                Divergence(
                    AsksOtherPrompt(),
                    event.seq,
                    event.line,
                    event.type,
                    diff=unified_diff(recorded_prompt, prompt),
                )
            )
        if self.shadow and self.fallback is not None:
            self.fallback.ask(prompt, choices)  # an automatic player lives through it too
        self.given += 1
        self._next = None
        return text

    @property
    def answers_at_once(self) -> bool:
        """A recorded answer is there at once; past the recording, as the fallback answers."""
        return self.fallback is None or not self.exhausted or self.fallback.answers_at_once

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
        events: EventFeed | Iterable[Event],
        *,
        tolerant: bool = False,
        then: EventSink | None = None,
        log: DivergenceLog | None = None,
    ) -> None:
        self.tolerant = tolerant
        self.feed = EventFeed.of(events)
        self.feed.release("sink", 0)
        self.then = then
        self.log = log or DivergenceLog()
        self.checked = 0
        self.emitted = 0
        self.passed_on = 0

    @property
    def exhausted(self) -> bool:
        """True once every recorded event was matched."""
        return self.feed.get(self.checked) is None

    def emit(self, event: SessionEvent) -> None:
        """Check one event against the recording.

        Raises:
            ReplayMismatch: it differs from the recorded event at its place.
            TranscriptError: the recorded event at its place is not a valid event.
        """
        self.emitted += 1
        if self.log.first is not None:
            raise ReplayMismatch(self.log.first)
        expected_line = self.feed.get(self.checked)
        if expected_line is None and self.then is not None:
            self.passed_on += 1
            self.then.emit(event)
            return
        if expected_line is None:
            raise self.log.fail(
                Divergence(
                    GoesOnAfterEnd(event_type=event.type),
                    event_type=event.type,
                    diff=unified_diff(None, {"type": event.type, **_comparable(event.payload())}),
                )
            )
        expected = typed_event(expected_line) if expected_line.type == event.type else None
        if expected is not None and _same_event(expected, event, tolerant=self.tolerant):
            self.checked += 1
            self.feed.release("sink", self.checked)
            return
        recorded = _comparable(expected_line.payload)
        actual = _comparable(normalize(event.payload()))
        closest = None
        if isinstance(event, ModelRequestEvent):
            calls = recorded_calls(self._ahead(expected_line.seq - 1))
            nearest = closest_call(calls, event.key, actual.get("messages"))
            closest = nearest.where() if nearest is not None else None
        message: Message
        if expected is None:
            message = OtherEventType(emitted=event.type, recorded=expected_line.type)
        elif isinstance(event, ModelRequestEvent):
            actor, day, phase, turn = event.key
            where = (actor, day, repr(phase), turn)
            message = RequestElsewhere(*where) if self.tolerant else RequestReworded(*where)
        else:
            message = EventDiffers(event_type=event.type)
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

    def _ahead(self, index: int) -> Iterator[Event]:
        """The recorded events from ``index`` on, as far as :data:`LOOKAHEAD` reaches."""
        for position in range(index, index + LOOKAHEAD):
            event = self.feed.get(position)
            if event is None:
                return
            yield event

    def missing(self) -> Divergence | None:
        """A divergence naming the first recorded event the replay never emitted, if any."""
        event = self.feed.get(self.checked)
        if event is None:
            return None
        more = self.feed.drain() - self.checked
        return Divergence(
            EndedEarly(more=more),
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
    notes: list[Message] = field(default_factory=list)
    authenticity: Authenticity | None = None

    def describe(self, locale: Locale | None = None) -> str:
        """A short report for the terminal: the replay's result, then what the signature
        showed, in ``locale`` (by default the player's, ``GM_LOCALE``)."""
        locale = locale_from_env() if locale is None else locale
        head = ReplayHead(
            path=str(self.path),
            verdict=render(VerdictWord(Verdict.OK if self.ok else Verdict.FAILED), locale),
            mode=render(VerdictWord(Verdict.TOLERANT if self.tolerant else Verdict.STRICT), locale),
            events=self.events,
            calls=self.model_calls,
            inputs=self.human_inputs,
            milliseconds=f"{self.seconds * 1000:.1f}",
        )
        lines = [render(head, locale)]
        if self.authenticity is not None:
            lines.append(f"  {self.authenticity.describe(locale)}")
        lines.extend(f"  {render(ReplayNote(render(note, locale)), locale)}" for note in self.notes)
        if self.divergence is not None:
            lines.extend("  " + line for line in self.divergence.describe(locale).splitlines())
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
        no_end = render(Problem(Fault.NO_END), locale_from_env())
        raise TranscriptFormatError(InFile(path=str(transcript.path), problem=no_end))
    end = transcript.end
    replay = _Replay(transcript.path, transcript.header, end.seed, transcript.events, tolerant, runner)
    return replay.report(lambda: end, transcript.authenticity)


def replay_file(
    path: str | Path,
    *,
    tolerant: bool = False,
    trusted_keys: Collection[str] = (),
    runner: SessionRunner | None = None,
) -> ReplayReport:
    """Read, verify and replay the transcript at ``path`` as a stream (``trusted_keys``:
    signers trusted besides this installation's own key, see :func:`~.format.read_transcript`).

    The events are read and checked one at a time while the session re-runs, and let go
    once the replay is past them, so memory grows with the largest event, not the file.
    The seed comes from the end line, read first; the end line, and the signature over
    the whole file, are checked when the stream reaches them. A line found bad on the
    way stops the replay with that error, as reading the whole file first would have.

    Raises:
        OSError: the file cannot be read.
        TranscriptError: the file is malformed, tampered with (its signature included),
            truncated, sealed without its key at hand, or of an unknown kind.
    """
    with TranscriptStream(path) as stream:
        seed = stream.revealed_seed
        if seed is None:  # no end line to be seen: read the file for the exact reason
            for _ in stream:
                pass
            stream.require_end()
            early = render(Problem(Fault.END_BEFORE_REST), locale_from_env())
            raise TranscriptFormatError(InFile(path=str(stream.path), problem=early))
        replay = _Replay(stream.path, stream.header, seed, stream, tolerant, runner)

        def ended() -> EndRecord:
            stream.require_end()
            assert stream.end is not None
            return stream.end

        return replay.report(ended, None, stream, trusted_keys)


class _Replay:
    """One replay: the session re-run against one feed of recorded events."""

    def __init__(
        self,
        path: Path,
        header: TranscriptHeader,
        seed: int,
        events: Iterable[Event],
        tolerant: bool,
        runner: SessionRunner | None,
    ) -> None:
        self.path = path
        self.header = header
        self.spec = header.spec(seed)
        self.run = runner or get_runner(self.spec.kind)
        self.tolerant = tolerant
        self.feed = EventFeed(events)
        self.log = DivergenceLog()
        self.backend = ReplayBackend(self.feed, tolerant=tolerant, log=self.log)
        self.human = ReplayHuman(self.feed, tolerant=tolerant, log=self.log)
        self.sink = CheckingSink(self.feed, tolerant=tolerant, log=self.log)

    def report(
        self,
        ended: Callable[[], EndRecord],
        authenticity: Authenticity | None,
        stream: TranscriptStream | None = None,
        trusted_keys: Collection[str] = (),
    ) -> ReplayReport:
        """Run the session, read the rest of the recording, and report.

        Raises:
            TranscriptError: the recording is bad (found on the way or at its end).
        """
        notes = _notes(self.header)
        backend, human, sink, log = self.backend, self.human, self.sink, self.log
        started = time.perf_counter()
        outcome: SessionOutcome | None = None
        try:
            outcome = self.run(self.spec, SessionIO(backend=backend, human=human, sink=sink, show=_discard))
        except ReplayMismatch:
            pass
        except Exception as exc:  # the engine itself failed: that is a divergence too
            if self.feed.error is not None:
                raise self.feed.error from None
            crash = SessionRaised(error_type=type(exc).__name__, error=str(exc))
            if backend.unrecorded:  # most likely on the empty answer to a call the recording lacks
                miss = backend.unrecorded[0]
                log.fail(dataclasses.replace(miss, message=ThenRaised(problem=miss.message, raised=crash)))
            else:
                log.fail(Divergence(crash, event_type="exception", diff=_next_expected(sink)))
        seconds = time.perf_counter() - started
        if self.feed.error is not None:  # a bad line stops the replay, whatever the session made of it
            raise self.feed.error
        divergence = log.first
        if divergence is None and outcome is not None:
            divergence = _final_checks(ended, backend, human, sink, outcome)
        events = self.feed.drain()
        end = ended()  # the whole file is read and checked now
        if stream is not None:
            authenticity = stream.authenticity(trusted_keys)
        if divergence is None and backend.unrecorded:
            notes.append(UnrecordedCalls(count=len(backend.unrecorded), first=backend.unrecorded[0].message))
        if self.header.sealing is not None:
            notes.append(_sealing_note(self.header, end, stream))
        return ReplayReport(
            path=self.path,
            ok=divergence is None,
            events=events,
            model_calls=backend.calls_recorded,
            human_inputs=human.recorded,
            seconds=seconds,
            tolerant=self.tolerant,
            divergence=divergence,
            notes=notes,
            authenticity=authenticity,
        )


def _sealing_note(header: TranscriptHeader, end: EndRecord, stream: TranscriptStream | None) -> Message:
    """What a report says of a sealed transcript's private lines."""
    return PackedOpened() if header.format == PACKED_FORMAT else SealedOpened()


def _next_expected(sink: CheckingSink) -> str:
    missing = sink.missing()
    if missing is None or missing.line is None:
        return ""
    upcoming = NextRecordedEvent(event_type=str(missing.event_type), line=missing.line)
    return render(upcoming, locale_from_env()) + "\n"


def _final_checks(
    ended: Callable[[], EndRecord],
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
            CallsNeverMade(count=len(unused)),
            call.request.seq,
            call.request.line,
            "model_request",
            closest=call.where(),
        )
    upcoming = human._upcoming()
    if upcoming is not None:
        event = upcoming[0]
        return Divergence(
            InputsNeverAsked(count=human.recorded - human.given),
            event.seq,
            event.line,
            event.type,
        )
    end = ended()
    # a transcript of an earlier version may hold that version's words for the same outcome
    said = outcome.summary if end.summary in outcome.earlier_summaries else end.summary
    recorded = {"summary": said, "figures": _comparable(end.figures)}
    actual = {"summary": outcome.summary, "figures": _comparable(normalize(outcome.figures))}
    if recorded != actual:
        return Divergence(
            OtherOutcome(),
            end.seq,
            end.line,
            "end",
            diff=unified_diff(recorded, actual),
        )
    return None


def _notes(header: TranscriptHeader) -> list[Message]:
    from gm_engine.transcripts.format import asset_hashes

    notes: list[Message] = []
    if header.engine != __version__:
        notes.append(EngineChanged(recorded=header.engine, current=__version__))
    current = asset_hashes()
    changed = sorted(
        name for name, digest in header.assets.items() if current.get(name, digest) != digest
    )
    gone = sorted(name for name in header.assets if name not in current)
    if changed:
        notes.append(AssetsChanged(names=", ".join(changed)))
    if gone:
        notes.append(AssetsGone(names=", ".join(gone)))
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
