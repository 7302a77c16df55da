"""The transcript file: one JSON object per line, chained by SHA-256.

Layout of a transcript (JSON Lines, UTF-8, ``\\n`` after every line):

* line 1, the header: ``{"type": "header", "format", "engine", "kind", "system", "options",
  "backend", "model", "assets", "seed_sha256"}`` (``system``: the game system of the dice,
  or the session kind when it has none). ``assets`` maps every prompt template and persona
  file shipped in the package to its SHA-256; ``seed_sha256`` is ``sha256(str(seed))``, a
  commitment to the seed made before the first move;
* one line per event: ``{"type", "seq", "prev", ...payload}`` where ``seq`` counts events
  from 1 and ``prev`` is the SHA-256 hex of the previous line's bytes (without its
  newline), so that editing, inserting or removing any line breaks the chain;
* the last line, ``{"type": "end", "seq", "prev", "seed", "summary", "figures", "hash"}``,
  reveals the seed; its ``hash`` is the SHA-256 of the line written without that field,
  so the last line is covered too.

A file without an ``end`` line belongs to a session that was cut off: the reader says so
(:class:`TranscriptTruncated`) and :mod:`gm_engine.transcripts.resume` continues it. The
writer writes each line with one ``write`` call followed by ``fsync``, so a killed
process loses at most a half-written last line, which the reader recognises by its
missing newline.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from gm_engine import __version__
from gm_engine.sessions.base import SessionOutcome, SessionSpec

#: Version of the file layout; a reader refuses files of a later version.
FORMAT_VERSION = 1

#: Keys every event line carries besides its payload; a payload may not use them.
RESERVED_KEYS = frozenset({"type", "seq", "prev"})

#: File suffixes under the package that are prompt templates, persona sheets or other
#: data a model's prompts are built from (their hashes go into the header).
ASSET_SUFFIXES = frozenset({".j2", ".jinja", ".jinja2", ".txt", ".md", ".toml", ".yaml", ".yml", ".json"})


class TranscriptError(ValueError):
    """A transcript cannot be read, written or replayed."""


class TranscriptFormatError(TranscriptError):
    """A line is not a transcript line: not JSON, not an object, or a field is missing or wrong."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


class TranscriptTampered(TranscriptError):
    """A line's ``prev`` hash does not match the line before it, or the seed its commitment:
    the file was edited after it was written."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class TranscriptTruncated(TranscriptError):
    """The file ends before its ``end`` line: the session was cut off (or the file cut short)."""


class TranscriptExists(TranscriptError):
    """A new recording was asked for at a path where a file already is: it is never overwritten."""


class TranscriptBusy(TranscriptError):
    """Another process holds the transcript's lock: it is recording or resuming that session."""


def lock_transcript(fd: int, path: Path) -> None:
    """Take the advisory lock (``flock``) every recorder holds on its transcript, without waiting.

    The lock goes with the open file and is released when it is closed (or the process
    dies), so a cut-off session's file is free for ``gm resume`` again.

    Raises:
        TranscriptBusy: another process holds it.
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise
        raise TranscriptBusy(
            f"{path} is in use by another process, which is recording or resuming that session; "
            "wait until it ends (then `gm resume` it if it was cut off) or record to another file"
        ) from None


def open_for_append(path: str | Path) -> int:
    """Open an existing transcript for reading and appending, under its lock (for ``gm resume``).

    Raises:
        OSError: it cannot be opened.
        TranscriptBusy: another process holds its lock.
    """
    path = Path(path)
    fd = os.open(path, os.O_RDWR)
    try:
        lock_transcript(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_private_dir(path: Path) -> None:
    """Create ``path`` and its missing parents, readable by the user only (existing ones kept as they are)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def seed_commitment(seed: int) -> str:
    """The SHA-256 hex of ``str(seed)``: what the header holds instead of the seed."""
    return hashlib.sha256(str(seed).encode("utf-8")).hexdigest()


def line_hash(line: bytes) -> str:
    """The SHA-256 hex of one line's bytes (without its newline)."""
    return hashlib.sha256(line).hexdigest()


def _json_default(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot record a {type(value).__name__} in a transcript: {value!r}")


def dumps(obj: object) -> str:
    """The canonical one-line JSON of ``obj`` as written to a transcript (keys kept in order)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_default)


def normalize(obj: object) -> Any:
    """``obj`` as it reads back from a transcript (tuples become lists, models dicts, ...)."""
    return json.loads(dumps(obj))


def asset_roots() -> list[tuple[str, Path]]:
    """The folders whose files a model's prompts are built from, each with the label its
    files are named under in the header: the package's data files, ``$GM_PROMPTS_DIR``
    then the project's ``prompts/`` (a template is read from the first that has it), and
    ``personas/`` (or ``$GM_PERSONAS_DIR``)."""
    package = Path(__file__).resolve().parent.parent
    project = package.parent
    prompts = os.environ.get("GM_PROMPTS_DIR")
    personas = os.environ.get("GM_PERSONAS_DIR")
    roots = [("gm_engine", package)]
    if prompts:  # searched before the project's templates, as the prompt loader does
        roots.append(("prompts", Path(prompts)))
    roots.append(("prompts", project / "prompts"))
    roots.append(("personas", Path(personas) if personas else project / "personas"))
    return roots


def asset_hashes() -> dict[str, str]:
    """SHA-256 of every prompt template, persona sheet and data file the prompts come from.

    A replay that finds other hashes than the recorded ones says which of them changed.
    """
    return dict(_asset_hashes(tuple((label, str(root)) for label, root in asset_roots())))


@lru_cache(maxsize=4)
def _asset_hashes(roots: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    hashes: dict[str, str] = {}
    for label, folder in roots:
        root = Path(folder)
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in ASSET_SUFFIXES and "__pycache__" not in path.parts:
                name = f"{label}/{path.relative_to(root).as_posix()}"
                if name not in hashes:  # the first folder that has a file is the one read
                    hashes[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return tuple(hashes.items())


class TranscriptHeader(BaseModel):
    """The first line: what fixes the session before its first input, with the seed committed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["header"] = "header"
    format: int = FORMAT_VERSION
    engine: str = __version__
    kind: str
    system: str = ""
    options: dict[str, Any] = {}
    backend: str = "offline"
    model: str | None = None
    assets: dict[str, str] = {}
    seed_sha256: str

    @classmethod
    def for_spec(cls, spec: SessionSpec, *, assets: Mapping[str, str] | None = None) -> TranscriptHeader:
        """The header of a session about to run under ``spec``."""
        return cls(
            kind=spec.kind,
            system=str(spec.options.get("system", spec.kind)),
            options=normalize(spec.options),
            backend=spec.backend,
            model=spec.model,
            assets=dict(asset_hashes() if assets is None else assets),
            seed_sha256=seed_commitment(spec.seed),
        )

    def spec(self, seed: int) -> SessionSpec:
        """The session spec again, with the seed (checked against the commitment).

        Raises:
            TranscriptError: ``seed`` is not the seed this header committed to.
        """
        if seed_commitment(seed) != self.seed_sha256:
            raise TranscriptError(
                f"seed {seed} does not match the header's commitment sha256={self.seed_sha256[:16]}..."
            )
        return SessionSpec(
            kind=self.kind, seed=seed, options=dict(self.options), backend=self.backend, model=self.model
        )


@dataclass(frozen=True)
class Event:
    """One recorded event: its number, type and payload, and the line it stood on."""

    seq: int
    type: str
    payload: dict[str, Any]
    line: int


@dataclass(frozen=True)
class EndRecord:
    """The last line: the seed revealed and how the session ended."""

    seq: int
    seed: int
    summary: str
    figures: dict[str, float]
    line: int


@dataclass
class Transcript:
    """A transcript read and verified: header, events, end (None when cut off).

    ``good_length`` is the byte length of the complete lines; ``partial_line`` holds the
    bytes of a half-written last line (dropped), if there was one; ``last_hash`` is the
    hash of the last complete line (what the next line's ``prev`` must be).
    """

    path: Path
    header: TranscriptHeader
    events: list[Event] = field(default_factory=list)
    end: EndRecord | None = None
    good_length: int = 0
    partial_line: bytes | None = None
    last_hash: str = ""

    @property
    def complete(self) -> bool:
        """True when the session ended and its seed is revealed."""
        return self.end is not None


def read_transcript(path: str | Path, *, require_end: bool = True) -> Transcript:
    """Read ``path`` and verify its hash chain, in one linear pass.

    A half-written last line (no newline at the end of the file) is set aside in
    :attr:`Transcript.partial_line`, never trusted.

    Raises:
        OSError: the file cannot be read.
        TranscriptFormatError: a line is not a valid transcript line.
        TranscriptTampered: a line's ``prev`` or the end line's ``hash`` or seed is wrong.
        TranscriptTruncated: ``require_end`` and the file has no ``end`` line.
    """
    path = Path(path)
    data = path.read_bytes()
    lines = data.split(b"\n")
    partial: bytes | None = lines.pop()  # after the last newline: b"" for a whole file
    if partial == b"":
        partial = None
    if not lines:
        if partial is not None:
            raise TranscriptTruncated(f"{path}: the header line is half-written; nothing was recorded")
        raise TranscriptFormatError(f"{path}: the file is empty")
    header_obj = _parse(lines[0], 1)
    if header_obj.get("type") != "header":
        raise TranscriptFormatError("the first line is not a transcript header", 1)
    if isinstance(header_obj.get("format"), int) and header_obj["format"] > FORMAT_VERSION:
        raise TranscriptFormatError(
            f"format {header_obj['format']} is newer than this reader (format {FORMAT_VERSION})", 1
        )
    try:
        header = TranscriptHeader.model_validate(header_obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise TranscriptFormatError(f"bad header: {first['msg']} at {first['loc']}", 1) from None
    transcript = Transcript(path=path, header=header)
    prev = line_hash(lines[0])
    offset = len(lines[0]) + 1
    for index in range(1, len(lines)):
        raw = lines[index]
        number = index + 1
        obj = _parse(raw, number)
        if transcript.end is not None:
            raise TranscriptTampered("a line follows the end line", number)
        if obj.get("prev") != prev:
            raise TranscriptTampered(
                f"the hash chain is broken: this line's prev does not match line {number - 1} "
                "(one of the two was edited, or a line was inserted or removed here)",
                number,
            )
        seq = obj.get("seq")
        if seq != index:
            raise TranscriptTampered(f"event number {seq!r} where {index} was expected", number)
        kind = obj.get("type")
        if not isinstance(kind, str) or not kind:
            raise TranscriptFormatError("the event has no type", number)
        if kind == "end":
            transcript.end = _end_record(obj, raw, number, header)
        elif kind == "header":
            raise TranscriptFormatError("a second header", number)
        else:
            payload = {k: v for k, v in obj.items() if k not in RESERVED_KEYS}
            transcript.events.append(Event(seq=index, type=kind, payload=payload, line=number))
        prev = line_hash(raw)
        offset += len(raw) + 1
    transcript.good_length = offset
    transcript.partial_line = partial
    transcript.last_hash = prev
    if require_end and transcript.end is None:
        tail = (
            f"; its last line ({len(partial)} bytes) is half-written and was dropped"
            if partial is not None
            else ""
        )
        raise TranscriptTruncated(
            f"{path}: the transcript ends after {len(transcript.events)} events without its end line "
            f"(the session was cut off or the file cut short{tail}); `gm resume` can continue it"
        )
    if partial is not None and transcript.end is not None:
        raise TranscriptTampered("bytes follow the end line", len(lines) + 1)
    return transcript


def _parse(raw: bytes, number: int) -> dict[str, Any]:
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TranscriptFormatError(f"not valid JSON ({exc})", number) from None
    except RecursionError:
        raise TranscriptFormatError("JSON nested too deeply", number) from None
    if not isinstance(obj, dict):
        raise TranscriptFormatError("not a JSON object", number)
    return obj


def _end_record(obj: dict[str, Any], raw: bytes, number: int, header: TranscriptHeader) -> EndRecord:
    body = dict(obj)
    claimed = body.pop("hash", None)
    try:
        canonical = dumps(body)
    except (TypeError, ValueError):  # e.g. 1e999 read back as infinity
        raise TranscriptFormatError("the end line holds a value a transcript cannot", number) from None
    if claimed != line_hash(canonical.encode("utf-8")):
        raise TranscriptTampered("the end line's own hash does not match its content", number)
    # No line follows the end line to chain its bytes, so they must be exactly as written
    # (``1e0`` for ``1.0`` reads the same, yet is an edit).
    if dumps(obj).encode("utf-8") != raw:
        raise TranscriptTampered("the end line is not byte for byte as it was written", number)
    seed = obj.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TranscriptFormatError("the end line's seed is not an integer", number)
    if seed_commitment(seed) != header.seed_sha256:
        raise TranscriptTampered("the revealed seed does not match the header's seed_sha256", number)
    summary = obj.get("summary")
    figures = obj.get("figures", {})
    if not isinstance(summary, str) or not isinstance(figures, dict):
        raise TranscriptFormatError("the end line needs a summary text and a figures object", number)
    return EndRecord(seq=int(obj["seq"]), seed=seed, summary=summary, figures=figures, line=number)


class TranscriptWriter:
    """An :class:`~gm_engine.sessions.base.EventSink` that appends events to a transcript.

    Every line goes out in one ``write`` followed by ``fsync`` (when ``durable``), so a
    killed process leaves every earlier line intact. Use :meth:`create` for a new file
    and :meth:`continue_from` to append to a cut-off one.
    """

    def __init__(self, path: Path, fd: int, *, seq: int, prev: str, durable: bool = True) -> None:
        self.path = path
        self._fd: int | None = fd
        self._seq = seq
        self._prev = prev
        self._durable = durable

    @classmethod
    def create(
        cls,
        path: str | Path,
        spec: SessionSpec,
        *,
        durable: bool = True,
        assets: Mapping[str, str] | None = None,
    ) -> TranscriptWriter:
        """Start a new transcript at ``path`` and write its header.

        The file is created anew (``O_EXCL``), readable by the user only, and locked for
        the writer's life: an existing file, another session's above all, is never
        truncated, and a second recorder is refused.

        Raises:
            TranscriptExists: a file is already at ``path``.
            TranscriptBusy: another process locked the new file first.
            OSError: the file cannot be created.
        """
        path = Path(path)
        make_private_dir(path.parent)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise TranscriptExists(
                f"{path} already exists, and a recording never overwrites a file: record to another "
                f"file, remove this one first, or continue a session that was cut off with "
                f"`gm resume {path}`"
            ) from None
        try:
            lock_transcript(fd, path)
        except BaseException:
            os.close(fd)
            raise
        writer = cls(path, fd, seq=0, prev="", durable=durable)
        header = TranscriptHeader.for_spec(spec, assets=assets)
        writer._write(dumps(header.model_dump(mode="json")), counts=False)
        return writer

    @classmethod
    def continue_from(
        cls, transcript: Transcript, *, durable: bool = True, fd: int | None = None
    ) -> TranscriptWriter:
        """Append to a cut-off transcript, first cutting off its half-written last line.

        ``fd`` is the file as :func:`open_for_append` opened and locked it before it was
        read (the writer then owns it); without it the file is opened and locked here.

        Raises:
            TranscriptError: the transcript already has its end line.
            TranscriptBusy: another process holds its lock.
        """
        if transcript.end is not None:
            raise TranscriptError(f"{transcript.path}: the session already ended; nothing to continue")
        if fd is None:
            fd = open_for_append(transcript.path)
        os.ftruncate(fd, transcript.good_length)
        os.lseek(fd, transcript.good_length, os.SEEK_SET)
        seq = len(transcript.events)
        return cls(transcript.path, fd, seq=seq, prev=transcript.last_hash, durable=durable)

    @property
    def events_written(self) -> int:
        """How many events (not counting header and end) the file holds."""
        return self._seq

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Append one event.

        Raises:
            TranscriptError: the writer is closed, the type is reserved or empty, or the
                payload uses a reserved key or is not JSON-ready.
        """
        if not event_type or event_type in ("header", "end"):
            raise TranscriptError(f"{event_type!r} is not a type an event may have")
        clash = RESERVED_KEYS.intersection(payload)
        if clash:
            raise TranscriptError(f"a {event_type} payload may not use the reserved keys {sorted(clash)}")
        obj: dict[str, Any] = {"type": event_type, "seq": self._seq + 1, "prev": self._prev}
        obj.update(payload)
        try:
            line = dumps(obj)
        except (TypeError, ValueError) as exc:
            raise TranscriptError(f"cannot record the {event_type} event: {exc}") from None
        self._write(line)

    def finish(self, seed: int, outcome: SessionOutcome) -> None:
        """Write the end line (revealing ``seed``) and close the file."""
        body: dict[str, Any] = {
            "type": "end",
            "seq": self._seq + 1,
            "prev": self._prev,
            "seed": seed,
            "summary": outcome.summary,
            "figures": normalize(outcome.figures),
        }
        body["hash"] = line_hash(dumps(body).encode("utf-8"))
        self._write(dumps(body))
        self.close()

    def close(self) -> None:
        """Close the file (without an end line, the session stays resumable)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, line: str, *, counts: bool = True) -> None:
        if self._fd is None:
            raise TranscriptError(f"{self.path}: the transcript is closed")
        data = line.encode("utf-8")
        if b"\n" in data:  # json.dumps escapes newlines; a raw one would split the line
            raise TranscriptError("a transcript line may not contain a raw newline")
        buffer = data + b"\n"
        written = 0
        while written < len(buffer):
            written += os.write(self._fd, buffer[written:])
        if self._durable:
            os.fsync(self._fd)
        if counts:
            self._seq += 1
        self._prev = line_hash(data)

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
