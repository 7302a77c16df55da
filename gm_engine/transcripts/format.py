"""The transcript file: one JSON object per line, covered by a running SHA-256, its end signed,
its private lines sealed, packed once it is finished. The whole picture, and why the file
written during a game tells the player nothing the screen does not: ``docs/transcripts.md``.

Format 7 is what a session writes while it runs: for a sealed session, the header, then
only chunk lines ``{"type": "sealed", "seq", "chain"?, "box"}`` (``seq`` numbers the
chunks, every 16th carries the running hash), then the end line (its ``seq`` after the
chunks'). Every event, P1's inputs too, goes into one private stream, the lines the
unsealed writer would write for it (its new blob lines, then its event line without
``seq``); a box holds a flag (:data:`~.sealing.CONTINUES`, or :data:`~.sealing.RESTARTS`
where a resumed game starts the stream again after its last whole event) and the next
piece of the stream, bound to the chunk's number (:func:`~.sealing.chunk_place`). A file's
writer writes one chunk of :data:`~.sealing.CHUNK_SIZE` at each public point
(:meth:`TranscriptWriter.public_point`), the rest at the end; see ``docs/transcripts.md``
for why. What waits for a later point is also in the game's tail journal beside its key
file (:mod:`.journal`), so a stop or a kill loses none of it. An unsealed session's lines
are laid out as in format 3.

Format 6 (written by earlier versions, read and replayed) was format 4 (below) but that
each private event was ONE sealed line whose box held the event's lines padded to a ladder
of sizes (:func:`~.sealing.padded_size`), bound to the event's number
(:func:`~.sealing.write_place`), and public lines (``human_input``) in the clear.

Format 5 is a finished format-7 (or 6, or 4) file packed (:mod:`.packing`): once the end line reveals
the seed and the game's key, :meth:`TranscriptWriter.finish` reads the file back (checked
as :class:`TranscriptStream` checks any), writes its events again in the clear, as the
format-3 writer lays them out, and deflates each write into one line of a deflate stream
that runs through the file; the header (``format`` 5) and the end line (with
``packed_sha256``, the digest of the packed lines) stay in the clear. The running hash,
the checkpoints and the signature cover the lines as they inflate, and through
``packed_sha256`` every packed byte. Nothing is compressed while it is secret: why, in
:mod:`.packing`. A session that was cut off stays in format 7 until its end (``gm
resume`` goes on from it); the reader reads every format from 1 to 7 (a cut-off format-4
or format-6 file is read and replayed, not continued).

Format 4 (written by earlier versions) is format 3 (below) with the lines P1 may not read
yet sealed (:mod:`.sealing`):
the header's ``sealing`` (``{"cipher", "key_id", "key_sha256"}``, or null for a session
kind that hides nothing) names the game's key file and commits to its key; a private
event line is ``{"type": "sealed", "seq", "chain"?, "box"}`` and a blob line ``{"type":
"blob", "id", "box"}``, where ``box`` is the base64 AES-256-GCM box of the line as format 3
would write it (an event line without its ``seq`` and ``chain``; a blob line without its
``type`` and ``id``); the end line carries ``key``, the game key, after ``seed``. The
running hash, the checkpoints and the signature cover the sealed bytes as written.
:class:`TranscriptStream` opens the boxes with the key the end line reveals or, while the
game runs, with its key file.

Layout of a transcript (format 3; JSON Lines, UTF-8, ``\\n`` after every line):

* line 1, the header: ``{"type": "header", "format", "engine", "kind", "system", "options",
  "backend", "model", "assets", "seed_sha256", "signer"}`` (``system``: the game system of
  the dice, or the session kind when it has none, as the options say). ``assets`` maps
  every prompt template and persona file shipped in the package to its SHA-256;
  ``seed_sha256`` is ``sha256(str(seed))``, a commitment to the seed made before the
  first move; ``signer`` names the key that signs the end (``ed25519:<hex>``, see
  :mod:`.signing`), or is null for a recording made without one;
* one line per event: ``{"type", "seq", "chain"?, ...payload, "refs"?}`` where ``seq``
  counts events from 1, and every :data:`CHECKPOINT_EVERY`-th event carries ``chain``,
  the running hash (below) of every byte before its line, cut to
  :data:`CHECKPOINT_LENGTH` hex digits;
* blob lines ``{"type": "blob", "id", "base" or "refs"?, "body"}`` among them (they carry
  no ``seq``): content stored once and referred to by its number from the lines after
  (``refs``, see :mod:`.blobs`); the reader puts the content back, so every event reads
  as it was emitted;
* the last line, ``{"type": "end", "seq", "seed", "summary", "figures", "hash",
  "signature"}``, reveals the seed; its ``hash`` is the running hash of every line
  before it and of this line written without ``hash`` and ``signature``, and
  ``signature`` is the signer's Ed25519 signature over that hash.

The running hash is one SHA-256 fed every byte of the file in order, newlines
included, from the header on. Why this is as forgery-evident as a ``prev`` link on every
line (format 2), at 70 bytes a line less:

* The end's ``hash`` is a digest of the whole file before the signature, so the
  signature covers every byte of every line, header and blobs included, exactly as
  the signed end of a ``prev`` chain did (that chain's end hash depended on every
  line through the links). Changing, inserting, removing or reordering any line
  changes the digest (SHA-256 is collision resistant), so a file edited after it was
  signed fails the signature; a forger who recomputes the digest cannot sign it
  without the private key. That is all the ``prev`` links ever proved against an
  adversary: anyone can recompute a chain of plain hashes, too.
* For a file without a signature (recorded without a key, or cut off before its end)
  neither layout proves anything against someone who rewrites it whole; both catch an
  edit made without recomputing the hashes. Format 2 caught it on the next line;
  format 3 on the next checkpoint (at most :data:`CHECKPOINT_EVERY` events on) or, for
  the lines after the last one, at the end line's hash. The reader names the lines
  the edit lies between. A cut-off file's lines after its last checkpoint are checked
  by no hash until the session goes on: ``gm resume`` reads the file, continues the
  running hash from its bytes, and the end it finally signs covers them, so an edit
  made to them before the resume is signed as if recorded (the same held in format 2
  for the last line of a cut-off file, which no ``prev`` covered).
* Because every blob's bytes are in the running hash, a blob need not be named by its
  own hash (format 2 checked a 32-digit key on every blob line): format 3 numbers
  blobs 1, 2, 3, ... in the order they come, which the reader checks.

A file without an ``end`` line belongs to a session that was cut off: the reader says so
(:class:`TranscriptTruncated`) and :mod:`gm_engine.transcripts.resume` continues it. The
writer writes each event, with the blob lines it needs before it, in one ``write``
followed by ``fsync``, so a killed process loses at most the event it was writing: the
reader recognises its half-written last line by the missing newline and sets it aside
with the blob lines written with it. The reader streams the file line by line
(:class:`TranscriptStream`): replay and resume consume the events as they are read.

The writer creates a file anew (never truncating one) and holds an advisory lock on it
(``flock``) while its session runs; ``gm resume`` takes the same lock before reading.

Format 2 (each line's ``prev``: the SHA-256 of the line before; blobs keyed by their
content's SHA-256, checked; the end's ``hash`` over its own line) and format 1 (before
blobs and signatures) are still read, verified as they were written, and replayed; a
format-1 file is reported as unsigned. Neither is resumed.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import hashlib
import io
import json
import os
import secrets
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from gm_engine import __version__
from gm_engine.dice.result import Locale
from gm_engine.events import EndEvent, SessionEvent
from gm_engine.messages import Message, locale_from_env, render
from gm_engine.messages.texts import (
    AtLine,
    BadHeaderField,
    ChainBroken,
    CheckpointMismatch,
    EndHashMismatch,
    Fault,
    FormatWithoutSealing,
    HeaderSystemMismatch,
    InFile,
    KeyFileMissing,
    LineSealed,
    NewerFormat,
    NotJson,
    NotSignedYet,
    Problem,
    PublicSealed,
    RecordingBusy,
    RecordingExists,
    SealedInClear,
    SealFault,
    SealProblem,
    SignatureInvalid,
    SignedByOwnKey,
    SignedByTrustedKey,
    SignedByUnknownKey,
    TranscriptCutMidLine,
    TranscriptCutOff,
    TranscriptHeaderCut,
    TranscriptPackedCut,
    UnknownFormat,
    UnsignedNoKey,
    UnsignedOldFormat,
    WrongEventNumber,
    WrongSeed,
)
from gm_engine.sessions.base import SessionOutcome, SessionSpec
from gm_engine.transcripts.blobs import SPILL_CHARS, BlobError, BlobPacker, BlobTable
from gm_engine.transcripts.journal import JournalError, TailJournal, drop_journal, read_journal
from gm_engine.transcripts.packing import (
    PACKED_FORMAT,
    LinePacker,
    LineUnpacker,
    PackedLineError,
    unpack_alone,
)
from gm_engine.transcripts.paths import keep_seed, make_private_dir, seed_commitment
from gm_engine.transcripts.sealing import (
    CHUNK_ROOM,
    CHUNK_SIZE,
    CONTINUES,
    RESTARTS,
    GameKey,
    KeptGame,
    SealError,
    blob_place,
    chunk_place,
    drop_key,
    event_place,
    find_key,
    is_public,
    keep_key,
    key_file,
    rounded_size,
    seals,
    write_place,
)
from gm_engine.transcripts.signing import (
    SigningKeyError,
    installation_public_key,
    load_or_create_key,
    public_key_text,
    sign_end,
    verify_end,
)

#: Version of the file layout written while a session runs (and continued by ``gm resume``);
#: a finished one is packed into :data:`~.packing.PACKED_FORMAT` (:mod:`.packing`).
FORMAT_VERSION = 7

#: The format whose sealed lines each hold a whole write (an event with its blobs), read only.
WHOLE_WRITES = 6

#: The first format whose sealed lines are chunks of one private stream (:data:`FORMAT_VERSION`).
STREAMED = 7

#: Versions this reader reads (format 1: no blobs, no signature; format 2: a ``prev`` link
#: on every line and blobs named by their hash; format 4: sealed line by line; format 5: a
#: finished transcript packed).
READABLE_FORMATS = frozenset({1, 2, 3, 4, PACKED_FORMAT, WHOLE_WRITES, STREAMED})

#: The most stream bytes a chunk holds where its size tells nothing (a chunk written at the
#: end, or to a store no player reads): what a reader opens at once stays small.
LAST_CHUNKS = 1 << 16

#: Keys every event line carries besides its payload; a payload may not use them.
RESERVED_KEYS = frozenset({"type", "seq", "prev", "refs", "chain"})

#: Every this many events, the event line carries ``chain``: the running hash so far.
CHECKPOINT_EVERY = 16

#: Hex digits of the running hash a checkpoint holds (128 bits).
CHECKPOINT_LENGTH = 32

#: Line types that are not events: an event may not have them.
RESERVED_TYPES = frozenset({"header", "end", "blob", "sealed"})

#: File suffixes under the package that are prompt templates, persona sheets or other
#: data a model's prompts are built from (their hashes go into the header).
ASSET_SUFFIXES = frozenset({".j2", ".jinja", ".jinja2", ".txt", ".md", ".toml", ".yaml", ".yml", ".json"})


class TranscriptError(ValueError):
    """A transcript cannot be read, written or replayed."""


def _at_line(problem: Message, line: int | None) -> str:
    """``problem`` in the player's locale (``GM_LOCALE``), after the line it is on."""
    locale = locale_from_env()
    text = render(problem, locale)
    return text if line is None else render(AtLine(line=line, problem=text), locale)


class TranscriptFormatError(TranscriptError):
    """A line is not a transcript line: not JSON, not an object, or a field is missing or wrong.
    ``message`` says which, in the catalogue's words (the text of the exception is it, after
    the line, in the player's locale, ``GM_LOCALE``)."""

    def __init__(self, message: Message, line: int | None = None) -> None:
        super().__init__(_at_line(message, line))
        self.message = message
        self.line = line


class _CatalogueError(TranscriptError):
    """A transcript error a player reads: ``message`` in the catalogue's words (the text of
    the exception is it in the player's locale, ``GM_LOCALE``)."""

    def __init__(self, message: Message) -> None:
        super().__init__(render(message, locale_from_env()))
        self.message = message


class TranscriptTampered(TranscriptError):
    """A line's ``prev`` hash does not match the line before it, or the seed its commitment:
    the file was edited after it was written. ``message`` says how, in the catalogue's words
    (the text of the exception is it, after the line, in the player's locale)."""

    def __init__(self, message: Message, line: int) -> None:
        super().__init__(_at_line(message, line))
        self.message = message
        self.line = line


class _HeaderProblem(ValueError):
    """A header's fields disagree (raised inside its validation: ``message`` says how)."""

    def __init__(self, message: Message) -> None:
        super().__init__(render(message, "en"))
        self.message = message


class TranscriptTruncated(_CatalogueError):
    """The file ends before its ``end`` line: the session was cut off (or the file cut short)."""


class TranscriptExists(_CatalogueError):
    """A new recording was asked for at a path where a file already is: it is never overwritten."""


class TranscriptBusy(_CatalogueError):
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
        raise TranscriptBusy(RecordingBusy(path=str(path))) from None


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


class Sealing(BaseModel):
    """How a format-4 transcript's private lines are sealed: the cipher, the id of the
    game's key file and a commitment to the key (see :mod:`.sealing`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cipher: Literal["AES-256-GCM"] = "AES-256-GCM"
    key_id: str
    key_sha256: str


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
    signer: str | None = None
    sealing: Sealing | None = None

    @model_validator(mode="after")
    def _system_follows_the_options(self) -> TranscriptHeader:
        expected = str(self.options.get("system", self.kind))
        if self.system != expected:
            raise _HeaderProblem(HeaderSystemMismatch(system=repr(self.system), expected=repr(expected)))
        return self

    @classmethod
    def for_spec(
        cls,
        spec: SessionSpec,
        *,
        assets: Mapping[str, str] | None = None,
        signer: str | None = None,
        sealing: Sealing | None = None,
    ) -> TranscriptHeader:
        """The header of a session about to run under ``spec``, its end to be signed by
        ``signer``, its private lines sealed as ``sealing`` says."""
        return cls(
            kind=spec.kind,
            system=str(spec.options.get("system", spec.kind)),
            options=normalize(spec.options),
            backend=spec.backend,
            model=spec.model,
            assets=dict(asset_hashes() if assets is None else assets),
            seed_sha256=seed_commitment(spec.seed),
            signer=signer,
            sealing=sealing,
        )

    def spec(self, seed: int) -> SessionSpec:
        """The session spec again, with the seed (checked against the commitment).

        Raises:
            TranscriptError: ``seed`` is not the seed this header committed to.
        """
        if seed_commitment(seed) != self.seed_sha256:
            wrong = WrongSeed(seed=seed, commitment=self.seed_sha256[:16])
            raise TranscriptError(render(wrong, locale_from_env()))
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


@dataclass(frozen=True)
class Authenticity:
    """What the signature of a transcript showed.

    ``status``: ``"signed"`` (the signature over the chain's end verifies with the key the
    header names; ``trusted`` says whether that key is this installation's or one the
    caller trusts), ``"unsigned"`` (format 1, or recorded without a key: the chain shows
    the file was not edited, but anyone could have rewritten it whole) or ``"open"`` (no
    end line yet, so nothing is signed).
    """

    status: Literal["signed", "unsigned", "open"]
    signer: str | None = None
    trusted: bool = False
    #: What a report says of it, in the catalogue's words.
    message: Message = field(default_factory=NotSignedYet)

    @property
    def verified(self) -> bool:
        """Signed by a key this reader trusts: no one without that private key rewrote it."""
        return self.status == "signed" and self.trusted

    def describe(self, locale: Locale | None = None) -> str:
        """One line for a report: what was verified and what could not be (in ``locale``,
        by default the player's, ``GM_LOCALE``)."""
        return render(self.message, locale_from_env() if locale is None else locale)


@dataclass
class Transcript:
    """A transcript read and verified: header, events, end (None when cut off).

    ``good_length`` is the byte length of the lines up to the last complete event;
    ``partial_line`` holds the bytes after it (a half-written last line, with the blob
    lines written with it), dropped, if there were any; ``last_hash`` is the hash of the
    last line kept (what the next line's ``prev`` must be, format 2) and ``chain`` the
    running SHA-256 over every byte kept (format 3, a ``hashlib`` object to go on with);
    ``blob_keys`` the keys of the blobs kept; ``authenticity`` what the signature showed;
    ``key`` the game key that opened its sealed lines (format 4) and ``kept_seed`` the
    seed its key file holds, if it was found; ``lines`` how many whole chunk lines a sealed
    format-7 file holds (what a resumed writer numbers its chunks on from); ``recovered`` the
    stream text of the events read from the game's tail journal after the file's
    (:mod:`.journal`), which a resumed writer's stream begins with.
    """

    path: Path
    header: TranscriptHeader
    events: list[Event] = field(default_factory=list)
    end: EndRecord | None = None
    good_length: int = 0
    partial_line: bytes | None = None
    last_hash: str = ""
    chain: Any = None
    blob_keys: frozenset[str | int] = frozenset()
    authenticity: Authenticity = Authenticity("open")
    key: GameKey | None = None
    kept_seed: int | None = None
    lines: int = 0
    recovered: bytes = b""

    @property
    def complete(self) -> bool:
        """True when the session ended and its seed is revealed."""
        return self.end is not None


def read_transcript(
    path: str | Path, *, require_end: bool = True, trusted_keys: Collection[str] = ()
) -> Transcript:
    """Read ``path`` line by line, verify its hash chain, its blobs and the signature of its
    end, and keep every event (for a file of any size, :class:`TranscriptStream` reads the
    events one at a time instead).

    A half-written last line (no newline at the end of the file) is set aside in
    :attr:`Transcript.partial_line`, never trusted. The signature is checked against the
    key the header names; that key is trusted when it is this installation's or among
    ``trusted_keys`` (see :attr:`Transcript.authenticity`).

    Raises:
        OSError: the file cannot be read.
        TranscriptFormatError: a line is not a valid transcript line, or the file is of a
            format this reader does not read.
        TranscriptTampered: a line's ``prev``, the end line's ``hash``, seed or signature is wrong.
        TranscriptSealed: a line is sealed and the game's key is not at hand.
        TranscriptTruncated: ``require_end`` and the file has no ``end`` line.
    """
    with TranscriptStream(path) as stream:
        events = list(stream)
        transcript = stream.transcript(events)
    if require_end:
        stream.require_end()
    transcript.authenticity = stream.authenticity(trusted_keys)
    return transcript


class TranscriptSealed(_CatalogueError):
    """The transcript's private lines are sealed and the game's key is not at hand: the
    game is not over (no end line reveals it) and its key file is gone."""


#: The longest end line the reader looks for before reading the file (a key it reveals).
MAX_END_LINE = 1 << 20


def _last_line(read_at: Callable[[int, int], bytes], size: int) -> bytes | None:
    """The file's last complete line (without its newline) if it is at most
    :data:`MAX_END_LINE` bytes long and the file ends with a newline; else None
    (``read_at(length, offset)`` reads its bytes)."""
    if size == 0 or read_at(1, size - 1) != b"\n":
        return None
    position = size - 1  # the final newline
    pieces: list[bytes] = []
    while position > 0 and size - position <= MAX_END_LINE:
        step = min(1 << 14, position)
        data = read_at(step, position - step)
        position -= step
        cut = data.rfind(b"\n")
        if cut >= 0:
            pieces.append(data[cut + 1 :])
            return b"".join(reversed(pieces))
        pieces.append(data)
    return b"".join(reversed(pieces)) if position == 0 else None


@dataclass(frozen=True)
class _Span:
    """A format-7 chunk line as a reader finds it again: where its text begins in the stream
    (``begin``) and how long it is (``size``), where its line is in the file (``offset``,
    ``length``), its line number and chunk number, and the digest of its bytes."""

    begin: int
    size: int
    offset: int
    length: int
    number: int
    seq: int
    digest: bytes


def _sealed_kind(inner: dict[str, Any], number: int) -> str:
    """The type of the event a sealed line (of line ``number``) holds, taken out of
    ``inner``; a box that holds no event (a reserved type, or its own ``seq`` or ``chain``)
    is refused."""
    kind = inner.pop("type", None)
    if not isinstance(kind, str) or kind in RESERVED_TYPES or "seq" in inner or "chain" in inner:
        raise TranscriptFormatError(Problem(Fault.SEALED_NO_EVENT), number)
    return kind


class TranscriptStream:
    """A transcript read as a stream: the header at once, then each event verified as it
    is read (:meth:`__iter__`, once), so that memory grows with the largest event, not
    with the file.

    What a line's event needs is checked before the event is given out: its place in the
    running hash's checkpoints, its number, its blobs (a long text blob is not kept, but
    read again when referred to, see :class:`~.blobs.BlobTable`) and, for a sealed line,
    its box. What only the end can show (the signature, the hash over the lines after the
    last checkpoint) is checked when the end line is read; a consumer learns the verdict
    from :meth:`authenticity` after the last event, or from the exception the iteration
    raises. After the iteration, :attr:`end`, :attr:`partial_line`, :attr:`good_length`,
    :attr:`chain` and :attr:`blob_keys` say what :class:`Transcript` would.

    Sealed lines (format 4) are opened with the key the end line reveals, else with the
    game's key file (:mod:`.sealing`), else :class:`TranscriptSealed` is raised when the
    first one comes.

    A transcript kept elsewhere than in a file (a ``gm serve`` table's lines, in its store)
    is read from ``data``, its bytes, with ``path`` only naming it in messages; ``kept``
    is then its key and seed, which the store keeps instead of the key file.

    Raises (on opening):
        OSError: the file cannot be read.
        TranscriptFormatError: the header is not a valid header.
        TranscriptTruncated: the header is half-written.
    """

    def __init__(self, path: str | Path, *, data: bytes | None = None, kept: KeptGame | None = None) -> None:
        self.path = Path(path)
        self.data = data
        self._kept = kept
        self._file: io.BufferedIOBase = self.path.open("rb") if data is None else io.BytesIO(data)
        try:
            first = self._file.readline()
            if not first:
                empty = render(Problem(Fault.EMPTY_FILE), locale_from_env())
                raise TranscriptFormatError(InFile(path=str(self.path), problem=empty))
            if not first.endswith(b"\n"):
                raise TranscriptTruncated(TranscriptHeaderCut(path=str(self.path)))
            self.header = _header(first[:-1])
            self._first = first
            self.key: GameKey | None = None
            self.kept_seed: int | None = None
            self._key_problem: Message | None = None
            self.peeked_end = self._peek_end()
            if self.header.sealing is not None:
                self._find_key()
        except BaseException:
            self._file.close()
            raise
        self.end: EndRecord | None = None
        self.partial_line: bytes | None = None
        self.good_length = len(first)
        self.last_hash = ""
        self.chain: Any = None
        self.blob_keys: frozenset[str | int] = frozenset()
        self.events_read = 0
        self.lines = 0
        self.recovered = b""
        self.done = False
        self._started = False
        self._blob_digests: dict[object, bytes] = {}
        self._packed_digest = ""

    def _peek_end(self) -> dict[str, Any] | None:
        """The last line if it looks like an end line (checked in full when it is read)."""
        size = len(self.data) if self.data is not None else os.fstat(self._file.fileno()).st_size
        last = _last_line(self._read_at, size)
        if last is None or not last.startswith(b'{"type":"end"'):
            return None
        try:
            obj = json.loads(last)
        except ValueError:
            return None
        return obj if isinstance(obj, dict) else None

    @property
    def revealed_seed(self) -> int | None:
        """The seed the end line reveals, read before the rest of the file (None when the
        file does not end with an end line whose seed matches the header's commitment)."""
        seed = (self.peeked_end or {}).get("seed")
        if type(seed) is not int or seed_commitment(seed) != self.header.seed_sha256:
            return None
        return seed

    @property
    def ends(self) -> bool:
        """Whether the file's last line looks like an end line (before it is checked)."""
        return self.peeked_end is not None

    def _find_key(self) -> None:
        sealing = self.header.sealing
        assert sealing is not None
        if self.peeked_end is not None:
            try:
                key = GameKey.from_hex(sealing.key_id, self.peeked_end.get("key"))
            except SealError:
                key = None
            if key is not None and key.commitment == sealing.key_sha256:
                self.key = key  # the end line is checked in full when it is read
                return
        try:
            kept = self._kept if self._kept is not None else find_key(sealing.key_id, sealing.key_sha256)
            if kept is not None and kept.key.commitment != sealing.key_sha256:
                raise SealError(SealProblem(SealFault.KEPT_OTHER_KEY))
        except SealError as exc:
            self._key_problem = exc.message
            return
        if kept is None:
            self._key_problem = KeyFileMissing(path=str(key_file(sealing.key_id)))
            return
        self.key, self.kept_seed = kept.key, kept.seed

    def __enter__(self) -> TranscriptStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (an iteration still going on then fails)."""
        self._file.close()

    def transcript(self, events: list[Event] | None = None) -> Transcript:
        """What was read, as a :class:`Transcript` (with ``events``, if the caller kept them)."""
        return Transcript(
            path=self.path,
            header=self.header,
            events=events or [],
            end=self.end,
            good_length=self.good_length,
            partial_line=self.partial_line,
            last_hash=self.last_hash,
            chain=self.chain,
            blob_keys=self.blob_keys,
            key=self.key,
            kept_seed=self.kept_seed,
            lines=self.lines,
            recovered=self.recovered,
        )

    def require_end(self) -> None:
        """After the iteration: refuse a file without its end line.

        Raises:
            TranscriptTruncated: it has none.
        """
        if self.end is not None:
            return
        partial = self.partial_line
        message: Message = TranscriptCutOff(path=str(self.path), events=self.events_read)
        if self.header.format == PACKED_FORMAT:
            # only a finished game is packed: a packed file without its end is damaged,
            # not a session that stopped (there is nothing to resume)
            message = TranscriptPackedCut(path=str(self.path), events=self.events_read)
        elif partial is not None:
            message = TranscriptCutMidLine(path=str(self.path), events=self.events_read, size=len(partial))
        raise TranscriptTruncated(message)

    def authenticity(self, trusted_keys: Collection[str] = ()) -> Authenticity:
        """What the signature showed (after the iteration)."""
        return _authenticity(self.header, self.end, trusted_keys)

    def _open(self, obj: dict[str, Any], place: bytes, number: int) -> dict[str, Any]:
        """A sealed line's content: the line as it would be written unsealed (format 4)."""
        return _parse(self._open_plain(obj, place, number), number)

    def _open_plain(self, obj: dict[str, Any], place: bytes, number: int, *, padded: bool = False) -> bytes:
        """The bytes a sealed line's box holds (format 4: its padding left on; ``padded``,
        format 6: the text without its filler)."""
        if self.key is None:
            problem = "" if self._key_problem is None else render(self._key_problem, locale_from_env())
            raise TranscriptSealed(LineSealed(path=str(self.path), line=number, problem=problem))
        try:
            if padded:
                return self.key.open_padded(obj.get("box"), place)
            return self.key.open(obj.get("box"), place)
        except SealError as exc:
            raise TranscriptTampered(exc.message, number) from None

    def _read_at(self, length: int, offset: int) -> bytes:
        if self.data is not None:
            return self.data[offset : offset + length]
        return os.pread(self._file.fileno(), length, offset)

    def _reload_chunked(self, spans: tuple[_Span, ...], begin: int, size: int) -> bytes:
        """The ``size`` bytes of a format-7 stream that begin at ``begin``, read again from
        the chunk lines ``spans`` (each checked against what was read the first time)."""
        parts: list[bytes] = []
        for span in spans:
            raw = self._read_at(span.length, span.offset)
            if hashlib.blake2b(raw, digest_size=16).digest() != span.digest:
                raise BlobError(f"line {span.number} changed while the transcript was being read")
            place = chunk_place(self.header.seed_sha256, span.seq)
            parts.append(self._open_plain(_parse(raw, span.number), place, span.number, padded=True)[1:])
        first = begin - spans[0].begin
        return b"".join(parts)[first : first + size]

    def _reload_blob(self, where: object) -> Mapping[str, Any]:
        assert isinstance(where, tuple)
        if where[0] == "chunks":
            _, spans, begin, size = where
            return _parse(self._reload_chunked(spans, begin, size), spans[-1].number)
        offset, length, number = where[:3]
        raw = self._read_at(length, offset)
        if hashlib.blake2b(raw, digest_size=16).digest() != self._blob_digests[where]:
            raise BlobError(f"line {number} changed while the transcript was being read")
        if len(where) == 5:  # a blob in a format-6 sealed write: open the write again
            seq, blob_id = where[3:]
            place = write_place(self.header.seed_sha256, seq)
            for line in self._open_plain(_parse(raw, number), place, number, padded=True).split(b"\n"):
                if line.startswith(b'{"type":"blob","id":%d,' % blob_id):
                    return _parse(line, number)
            raise BlobError(f"line {number} changed while the transcript was being read")
        if self.header.format == PACKED_FORMAT:
            raw = unpack_alone(raw)[:-1]  # it inflated the same the first time
        obj = _parse(raw, number)
        if "box" in obj:
            obj = self._open(obj, blob_place(self.header.seed_sha256, int(obj["id"])), number)
        return obj

    def __iter__(self) -> Iterator[Event]:
        if self._started:
            raise TranscriptError(f"{self.path}: a transcript stream is read once")
        self._started = True
        return self._events()

    def _events(self) -> Iterator[Event]:
        if self.header.sealing is not None and self.header.format >= STREAMED:
            yield from self._streamed_events()
            return
        header, first = self.header, self._first
        version = header.format
        packed = version == PACKED_FORMAT
        sealed = header.sealing is not None and not packed  # a packed file's lines are all in the clear
        blobs = BlobTable(version, reload=self._reload_blob if version >= 3 else None)
        prev = line_hash(first[:-1])
        running = hashlib.sha256(first)  # format 3: every byte, newlines included
        kept_running = running.copy()
        before = running.copy()
        checked = 1  # format 3: the line of the last checkpoint that held (the header's, to begin)
        # An event goes out in one write with the blob lines before it: blob lines after the
        # last complete event belong to a write cut short, and are set aside with it.
        kept_length = offset = len(first)
        kept_hash = prev
        tail: list[bytes] = []
        tail_keys: list[str | int] = []
        seq = 0
        number = 1
        for chunk, spot in self._lines():
            number += 1
            if not chunk.endswith(b"\n"):
                if self.end is not None:
                    raise TranscriptTampered(Problem(Fault.BYTES_AFTER_END), number)
                tail.append(chunk)
                break
            raw = chunk[:-1]
            obj = _parse(raw, number)
            if self.end is not None:
                raise TranscriptTampered(Problem(Fault.LINE_AFTER_END), number)
            if version < 3 and obj.get("prev") != prev:
                raise TranscriptTampered(ChainBroken(previous=number - 1), number)
            kind = obj.get("type")
            if not isinstance(kind, str) or not kind:
                raise TranscriptFormatError(Problem(Fault.NO_TYPE), number)
            if version < 3:
                prev = line_hash(raw)
            else:
                before = running.copy()
                running.update(chunk)
            offset += len(chunk)
            if kind == "blob" and version >= 2:
                where: object = None
                if sealed and version >= WHOLE_WRITES:  # format 6 keeps every blob in a box
                    raise TranscriptFormatError(SealedInClear(kind="blob"), number)
                if sealed:
                    obj = self._open_blob(obj, number)
                if version >= 3 and len(raw) >= SPILL_CHARS and spot is not None:
                    where = (spot[0], len(spot[1]), number)
                    self._blob_digests[where] = hashlib.blake2b(spot[1], digest_size=16).digest()
                try:
                    blobs.add(obj, raw, where)
                except BlobError as exc:  # its own words are for the developer: the cause
                    raise TranscriptFormatError(Problem(Fault.BLOB), number) from exc
                tail.append(chunk)
                tail_keys.append(obj["id"] if version >= 3 else str(obj["sha256"]))
                continue
            seq += 1
            if obj.get("seq") != seq:
                raise TranscriptTampered(WrongEventNumber(found=repr(obj.get("seq")), expected=seq), number)
            if kind == "end":
                if tail:
                    raise TranscriptFormatError(Problem(Fault.BLOBS_BEFORE_END), number)
                self.end = _end_record(obj, raw, number, header, before if version >= 3 else None, checked)
                if header.sealing is not None:
                    self._check_revealed_key(obj, number)
                if packed and obj.get("packed_sha256") != self._packed_digest:
                    raise TranscriptTampered(Problem(Fault.PACKED_DIGEST), number)
            elif kind == "header":
                raise TranscriptFormatError(Problem(Fault.SECOND_HEADER), number)
            else:
                if version >= 3:
                    if _check_point(obj.pop("chain", None), before, seq, number, checked):
                        checked = number
                    if "prev" in obj:  # the writer never puts one on a format-3 line
                        raise TranscriptFormatError(Problem(Fault.NO_PREV), number)
                    if packed and kind == "sealed":
                        raise TranscriptFormatError(Problem(Fault.PACKED_SEALED), number)
                    if sealed and version >= WHOLE_WRITES:
                        kind, obj = self._open_write(kind, obj, seq, number, blobs, spot)
                    elif kind == "sealed" or sealed:
                        kind, obj = self._open_event(kind, obj, seq, number)
                    else:
                        del obj["type"], obj["seq"]
                    refs = obj.pop("refs", None)
                else:
                    refs = obj.pop("refs", None) if version >= 2 else None
                    for name in ("type", "seq", "prev"):
                        del obj[name]
                payload = obj  # what is left of the line, parsed for this event alone
                if refs is not None:
                    try:
                        blobs.resolve(payload, refs)
                    except BlobError as exc:  # its own words are for the developer: the cause
                        raise TranscriptFormatError(Problem(Fault.BLOB), number) from exc
                self.events_read = seq
                kept_length, kept_hash = offset, prev
                if version >= 3:
                    kept_running = running.copy()
                tail, tail_keys = [], []
                self.good_length = kept_length
                yield Event(seq=seq, type=kind, payload=payload, line=number)
                continue
            kept_length, kept_hash = offset, prev
            if version >= 3:
                kept_running = running.copy()
            tail, tail_keys = [], []
        if tail:
            self.partial_line = b"".join(tail)
        self.good_length = kept_length
        self.last_hash = kept_hash
        self.chain = kept_running if version >= 3 else None
        self.blob_keys = frozenset(blobs.values).difference(tail_keys)
        self.done = True

    def _streamed_events(self) -> Iterator[Event]:
        """The events of a sealed format-7 file: every line after the header is a chunk of the
        private stream (numbered 1, 2, ... by ``seq``, every 16th with its checkpoint), then
        the end line. The stream is the chunks' texts after their flag, one after the other:
        the lines the unsealed writer would write (blob lines, then an event line without
        ``seq``), so an event is given out once its line is whole, with the blob lines of its
        write; a chunk flagged :data:`~.sealing.RESTARTS` (a resumed game's first) drops
        what came after the last whole event. Every whole line of the file is kept (a
        resumed writer goes on after it); what the stream holds after the last whole event
        belongs to a write the game makes again when it goes on."""
        header, first = self.header, self._first
        blobs = BlobTable(header.format, reload=self._reload_blob)
        running = hashlib.sha256(first)
        before = running.copy()
        checked = 1
        offset = len(first)
        pending = bytearray()  # the stream after its last whole line
        write: list[tuple[bytes, object]] = []  # the blob lines of the write under way
        # the chunk lines the pending bytes come from (where each begins in the stream, and
        # how to read it again: a long text is not kept, but read again from its chunks)
        spans: list[_Span] = []
        start = 0  # where in the stream the pending bytes begin
        number, line = 1, 0
        for chunk, _ in self._lines():
            number += 1
            if not chunk.endswith(b"\n"):
                if self.end is not None:
                    raise TranscriptTampered(Problem(Fault.BYTES_AFTER_END), number)
                self.partial_line = chunk
                break
            raw = chunk[:-1]
            obj = _parse(raw, number)
            if self.end is not None:
                raise TranscriptTampered(Problem(Fault.LINE_AFTER_END), number)
            kind = obj.get("type")
            if not isinstance(kind, str) or not kind:
                raise TranscriptFormatError(Problem(Fault.NO_TYPE), number)
            before = running.copy()
            running.update(chunk)
            offset += len(chunk)
            line += 1
            if obj.get("seq") != line:
                raise TranscriptTampered(WrongEventNumber(found=repr(obj.get("seq")), expected=line), number)
            if kind == "end":
                if pending or write:
                    raise TranscriptFormatError(Problem(Fault.BLOBS_BEFORE_END), number)
                self.end = _end_record(obj, raw, number, header, before, checked)
                self._check_revealed_key(obj, number)
            elif kind == "header":
                raise TranscriptFormatError(Problem(Fault.SECOND_HEADER), number)
            elif kind != "sealed":
                raise TranscriptFormatError(SealedInClear(kind=kind), number)
            else:
                if _check_point(obj.pop("chain", None), before, line, number, checked):
                    checked = number
                if set(obj) != {"type", "seq", "box"}:
                    raise TranscriptFormatError(Problem(Fault.SEALED_LINE_SHAPE), number)
                plain = self._open_plain(obj, chunk_place(header.seed_sha256, line), number, padded=True)
                flag = plain[:1]
                if flag == RESTARTS:
                    start += len(pending)
                    pending, write, spans = bytearray(), [], []
                elif flag != CONTINUES:
                    raise TranscriptFormatError(Problem(Fault.SEALED_NO_EVENT), number)
                digest = hashlib.blake2b(raw, digest_size=16).digest()
                began = start + len(pending)
                where_from = offset - len(chunk)
                spans.append(_Span(began, len(plain) - 1, where_from, len(raw), number, line, digest))
                scan = len(pending)
                pending += memoryview(plain)[1:]
                self.good_length = offset
                self.chain = running.copy()
                self.lines = line
                cut = pending.find(b"\n", scan)
                while cut >= 0:
                    text = bytes(pending[:cut])
                    where: object = None
                    if len(text) >= SPILL_CHARS:
                        kept = tuple(span for span in spans if span.begin < start + cut)
                        where = ("chunks", kept, start, cut)
                    del pending[: cut + 1]
                    start += cut + 1
                    spans = [span for span in spans if span.begin + span.size > start]
                    cut = pending.find(b"\n")
                    if text.startswith(b'{"type":"blob"'):
                        write.append((text, where))
                        continue
                    event = self._stream_event(text, write, blobs, number)
                    write = []
                    self.events_read += 1
                    yield Event(seq=self.events_read, type=event[0], payload=event[1], line=number)
            self.good_length = offset
            self.chain = running.copy()
            self.lines = line
        if self.end is None and self.key is not None and self.data is None:
            # what the chunks hold of the next event: its whole blob lines, then the rest
            begun = b"".join(raw + b"\n" for raw, _ in write) + bytes(pending)
            yield from self._journal_events(begun, blobs, number)
        self.blob_keys = frozenset(blobs.values)
        self.done = True

    def _journal_events(self, pending: bytes, blobs: BlobTable, number: int) -> Iterator[Event]:
        """The events of a running format-7 file's tail journal (:mod:`.journal`) that follow
        its last whole event, in order, as recorded events: what the writer held back when
        the process stopped. ``pending``, the bytes of the next event the file's chunks hold,
        must begin the first one's text; ``number`` is the file's last line (where errors point)."""
        assert self.key is not None
        recovered = bytearray()
        expected = self.events_read + 1
        try:
            for seq, text in read_journal(self.key, self.header.seed_sha256):
                if seq < expected:
                    continue  # in the file already
                if seq > expected:
                    break  # a gap (a journal not written to the end): what follows has no place
                if not recovered and not text.startswith(pending):
                    raise TranscriptTampered(Problem(Fault.JOURNAL_MISMATCH), number)
                lines = text.split(b"\n")
                if lines[-1] or len(lines) < 2:
                    raise TranscriptTampered(Problem(Fault.JOURNAL_LINE), number)
                write: list[tuple[bytes, object]] = [
                    (raw, None) for raw in lines[:-2] if raw.startswith(b'{"type":"blob"')
                ]
                if len(write) != len(lines) - 2:
                    raise TranscriptTampered(Problem(Fault.JOURNAL_LINE), number)
                event = self._stream_event(lines[-2], write, blobs, number)
                recovered += text
                self.recovered = bytes(recovered)
                self.events_read += 1
                expected += 1
                yield Event(seq=self.events_read, type=event[0], payload=event[1], line=number)
        except JournalError as exc:
            raise TranscriptTampered(Problem(Fault.JOURNAL_LINE), number) from exc

    def _stream_event(
        self, text: bytes, write: list[tuple[bytes, object]], blobs: BlobTable, number: int
    ) -> tuple[str, dict[str, Any]]:
        """The event whose line ``text`` ends a write of the stream (format 7), the blob lines
        ``write`` before it stored in ``blobs`` first (each with where to read it again, if it
        is long); ``number`` is the file's line it ends on."""
        for raw, where in write:
            try:
                blobs.add(_parse(raw, number), raw, where)
            except BlobError as exc:  # its own words are for the developer: the cause
                raise TranscriptFormatError(Problem(Fault.BLOB), number) from exc
        inner = _parse(text, number)
        kind = _sealed_kind(inner, number)
        refs = inner.pop("refs", None)
        if refs is not None:
            try:
                blobs.resolve(inner, refs)
            except BlobError as exc:
                raise TranscriptFormatError(Problem(Fault.BLOB), number) from exc
        return kind, inner

    def _lines(self) -> Iterator[tuple[bytes, tuple[int, bytes] | None]]:
        """The transcript's lines after the header, as they read (a packed file's inflated,
        :mod:`.packing`), each with, when the line can be read again by itself, where it
        begins in the file and its bytes there (without the newline)."""
        offset = len(self._first)
        if self.header.format != PACKED_FORMAT:
            for chunk in self._file:
                yield chunk, (offset, chunk[:-1])
                offset += len(chunk)
            return
        unpacker = LineUnpacker()
        for number, chunk in enumerate(self._file, start=2):
            if chunk.startswith(b'{"type":"end"') or not chunk.endswith(b"\n"):
                self._packed_digest = unpacker.digest.hexdigest()
                yield chunk, None  # in the clear (or half-written, which the caller sets aside)
            else:
                try:
                    for line, alone in unpacker.lines(chunk):
                        yield line, (offset, chunk[:-1]) if alone else None
                except PackedLineError as exc:
                    raise TranscriptTampered(Problem(Fault.PACKED_LINE), number) from exc
            offset += len(chunk)

    def _open_blob(self, obj: dict[str, Any], number: int) -> dict[str, Any]:
        """A sealed blob line as it would be written unsealed."""
        blob_id = obj.get("id")
        if type(blob_id) is not int or set(obj) != {"type", "id", "box"}:
            raise TranscriptFormatError(Problem(Fault.SEALED_BLOB_SHAPE), number)
        inner = self._open(obj, blob_place(self.header.seed_sha256, blob_id), number)
        return {"type": "blob", "id": blob_id, **inner}

    def _open_event(
        self, kind: str, obj: dict[str, Any], seq: int, number: int
    ) -> tuple[str, dict[str, Any]]:
        """An event line of a sealed transcript (``type`` and ``seq`` taken off): a sealed
        line opened, a public one as it is; a private event in the clear is refused."""
        if kind != "sealed":
            if self.header.sealing is not None and not is_public(kind):
                raise TranscriptFormatError(SealedInClear(kind=kind), number)
            del obj["type"], obj["seq"]
            return kind, obj
        if self.header.sealing is None or set(obj) != {"type", "seq", "box"}:
            raise TranscriptFormatError(Problem(Fault.SEALED_LINE_SHAPE), number)
        inner = self._open(obj, event_place(self.header.seed_sha256, seq), number)
        kind = _sealed_kind(inner, number)
        if is_public(kind):
            raise TranscriptFormatError(PublicSealed(kind=kind), number)
        return kind, inner

    def _open_write(
        self,
        kind: str,
        obj: dict[str, Any],
        seq: int,
        number: int,
        blobs: BlobTable,
        spot: tuple[int, bytes] | None,
    ) -> tuple[str, dict[str, Any]]:
        """An event line of a sealed format-6 transcript (``type`` and ``seq`` taken off): a
        sealed write opened (its blob lines into ``blobs``, its event given back), a public
        line as it is; a private event in the clear, or a public one with references, is refused."""
        if kind != "sealed":
            if not is_public(kind):
                raise TranscriptFormatError(SealedInClear(kind=kind), number)
            if "refs" in obj:  # the writer stores no blob for a public line
                raise TranscriptFormatError(Problem(Fault.BLOB), number)
            del obj["type"], obj["seq"]
            return kind, obj
        if set(obj) != {"type", "seq", "box"}:
            raise TranscriptFormatError(Problem(Fault.SEALED_LINE_SHAPE), number)
        plain = self._open_plain(obj, write_place(self.header.seed_sha256, seq), number, padded=True)
        *blob_lines, last = plain.split(b"\n")
        for raw in blob_lines:
            line = _parse(raw, number)
            if line.get("type") != "blob":
                raise TranscriptFormatError(Problem(Fault.SEALED_NO_EVENT), number)
            where: object = None
            if len(raw) >= SPILL_CHARS and spot is not None and type(line.get("id")) is int:
                # a long text is not kept: read again from the sealed line when referred to
                where = (spot[0], len(spot[1]), number, seq, line["id"])
                self._blob_digests[where] = hashlib.blake2b(spot[1], digest_size=16).digest()
            try:
                blobs.add(line, raw, where)
            except BlobError as exc:  # its own words are for the developer: the cause
                raise TranscriptFormatError(Problem(Fault.BLOB), number) from exc
        inner = _parse(last, number)
        kind = _sealed_kind(inner, number)
        if is_public(kind):
            raise TranscriptFormatError(PublicSealed(kind=kind), number)
        return kind, inner

    def _check_revealed_key(self, obj: Mapping[str, Any], number: int) -> None:
        sealing = self.header.sealing
        assert sealing is not None
        try:
            key = GameKey.from_hex(sealing.key_id, obj.get("key"))
        except SealError:
            raise TranscriptTampered(Problem(Fault.NO_REVEALED_KEY), number) from None
        if key.commitment != sealing.key_sha256:
            raise TranscriptTampered(Problem(Fault.REVEALED_KEY), number)


def _check_point(claimed: object, before: Any, seq: int, number: int, since: int) -> bool:
    """Check a format-3 event's checkpoint, and say whether it had one: every
    :data:`CHECKPOINT_EVERY`-th event holds the running hash of the bytes before it, so an
    edit is found where the file is read (and before ``gm resume`` goes on from it), not
    only at the signed end. ``since`` is the line of the last checkpoint that held."""
    expected = seq % CHECKPOINT_EVERY == 0
    if claimed is None and not expected:
        return False
    if not expected or claimed != before.hexdigest()[:CHECKPOINT_LENGTH]:
        raise TranscriptTampered(CheckpointMismatch(since=since), number)
    return True


def _header(raw: bytes) -> TranscriptHeader:
    header_obj = _parse(raw, 1)
    if header_obj.get("type") != "header":
        raise TranscriptFormatError(Problem(Fault.NOT_A_HEADER), 1)
    version = header_obj.get("format")
    if version is None:
        raise TranscriptFormatError(Problem(Fault.NO_FORMAT), 1)
    if not isinstance(version, int) or isinstance(version, bool) or version not in READABLE_FORMATS:
        readable = ", ".join(map(str, sorted(READABLE_FORMATS)))
        unknown: Message = UnknownFormat(version=repr(version), engine=__version__, readable=readable)
        if isinstance(version, int) and not isinstance(version, bool) and version > max(READABLE_FORMATS):
            unknown = NewerFormat(version=version, engine=__version__, readable=readable)
        raise TranscriptFormatError(unknown, 1)
    if version < 2 and "signer" in header_obj:
        raise TranscriptFormatError(Problem(Fault.FORMAT1_NO_SIGNER), 1)
    if version < 4 and "sealing" in header_obj:
        raise TranscriptFormatError(FormatWithoutSealing(version=version), 1)
    try:
        return TranscriptHeader.model_validate(header_obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        cause = first.get("ctx", {}).get("error")
        if isinstance(cause, _HeaderProblem):
            raise TranscriptFormatError(cause.message, 1) from None
        field = ".".join(str(step) for step in first["loc"]) or "?"
        raise TranscriptFormatError(BadHeaderField(field=field), 1) from None


_DECODER = json.JSONDecoder()


def _parse(raw: bytes, number: int) -> dict[str, Any]:
    try:
        obj = _DECODER.decode(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        at = exc.pos if isinstance(exc, json.JSONDecodeError) else exc.start
        raise TranscriptFormatError(NotJson(column=at + 1), number) from None
    except RecursionError:
        raise TranscriptFormatError(Problem(Fault.TOO_DEEP), number) from None
    if not isinstance(obj, dict):
        raise TranscriptFormatError(Problem(Fault.NOT_AN_OBJECT), number)
    return obj


def _end_record(
    obj: dict[str, Any],
    raw: bytes,
    number: int,
    header: TranscriptHeader,
    running: Any = None,
    since: int = 1,
) -> EndRecord:
    body = dict(obj)
    claimed = body.pop("hash", None)
    signature = body.pop("signature", None) if header.format >= 2 else None
    try:
        canonical = dumps(body)
    except (TypeError, ValueError):  # e.g. 1e999 read back as infinity
        raise TranscriptFormatError(Problem(Fault.END_VALUE), number) from None
    if running is None:  # formats 1 and 2: the line's own hash; ``prev`` chains the rest
        end_hash = line_hash(canonical.encode("utf-8"))
        if claimed != end_hash:
            raise TranscriptTampered(Problem(Fault.END_OWN_HASH), number)
    else:  # format 3: the running hash over every line before and this one's content
        digest = running.copy()
        digest.update(canonical.encode("utf-8"))
        end_hash = digest.hexdigest()
        if claimed != end_hash:
            raise TranscriptTampered(EndHashMismatch(since=since), number)
    # No line follows the end line to chain its bytes, so they must be exactly as written
    # (``1e0`` for ``1.0`` reads the same, yet is an edit).
    if dumps(obj).encode("utf-8") != raw:
        raise TranscriptTampered(Problem(Fault.END_AS_WRITTEN), number)
    if header.format >= 2:
        _check_signature(header.signer, end_hash, signature, number)
    seed = obj.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TranscriptFormatError(Problem(Fault.END_SEED), number)
    if seed_commitment(seed) != header.seed_sha256:
        raise TranscriptTampered(Problem(Fault.SEED), number)
    summary = obj.get("summary")
    figures = obj.get("figures", {})
    if not isinstance(summary, str) or not isinstance(figures, dict):
        raise TranscriptFormatError(Problem(Fault.END_SUMMARY), number)
    return EndRecord(seq=int(obj["seq"]), seed=seed, summary=summary, figures=figures, line=number)


def _check_signature(signer: str | None, end_hash: str, signature: object, number: int) -> None:
    if signer is None:
        if signature is not None:
            raise TranscriptTampered(Problem(Fault.SIGNED_NO_SIGNER), number)
        return
    if not isinstance(signature, str):
        raise TranscriptTampered(Problem(Fault.UNSIGNED), number)
    try:
        valid = verify_end(signer, end_hash, signature)
    except SigningKeyError as exc:
        raise TranscriptTampered(Problem(Fault.SIGNATURE_UNCHECKED), number) from exc
    if not valid:
        raise TranscriptTampered(SignatureInvalid(signer=signer[:24]), number)


def _authenticity(
    header: TranscriptHeader, end: EndRecord | None, trusted_keys: Collection[str]
) -> Authenticity:
    if end is None:
        return Authenticity("open", signer=header.signer, message=NotSignedYet())
    if header.format < 2:
        return Authenticity("unsigned", message=UnsignedOldFormat(format=header.format))
    if header.signer is None:
        return Authenticity("unsigned", message=UnsignedNoKey())
    key = header.signer[:24]
    if header.signer == installation_public_key():
        return Authenticity("signed", signer=header.signer, trusted=True, message=SignedByOwnKey(signer=key))
    if header.signer in trusted_keys:
        trusted = SignedByTrustedKey(signer=key)
        return Authenticity("signed", signer=header.signer, trusted=True, message=trusted)
    # The whole key, not a prefix: it is what the reader passes to ``gm replay --trust-key``.
    unknown = SignedByUnknownKey(signer=header.signer)
    return Authenticity("signed", signer=header.signer, trusted=False, message=unknown)


def signing_key_or_none() -> Ed25519PrivateKey | None:
    """This installation's signing key, created on first use; None (with a note on standard
    error) when it cannot be had, so a session is still recorded, unsigned."""
    try:
        return load_or_create_key()
    except (OSError, SigningKeyError) as exc:
        print(f"note: the transcript will not be signed: no signing key ({exc})", file=sys.stderr)
        return None


class LineOutput(Protocol):
    """Where a :class:`TranscriptWriter` puts its lines: a file (:class:`FileOutput`) or a
    ``gm serve`` table's store."""

    def write_lines(self, lines: Sequence[str], data: bytes) -> None:
        """Append ``lines`` at once (``data``: them encoded, each followed by its newline),
        durable when it returns (a reader finds all of them or none, or at worst a
        half-written last line)."""
        ...

    def close(self) -> None:
        """Nothing more is written."""
        ...


class FileOutput:
    """A transcript file's open descriptor as a :class:`LineOutput`: one ``write`` per call,
    then ``fsync`` when ``durable``."""

    def __init__(self, fd: int, durable: bool = True) -> None:
        self.fd = fd
        self.durable = durable

    def write_lines(self, lines: Sequence[str], data: bytes) -> None:
        """Write ``data`` at the end of the file."""
        written = 0
        while written < len(data):
            written += os.write(self.fd, data[written:])
        if self.durable:
            os.fsync(self.fd)

    def close(self) -> None:
        """Close the descriptor."""
        os.close(self.fd)


class TranscriptWriter:
    """An :class:`~gm_engine.sessions.base.EventSink` that appends events to a transcript.

    :meth:`emit` takes an event as ``(type, payload)``; the payload's long texts and large
    values go out as blob lines the first time and as references after (:mod:`.blobs`).
    Every event goes out in one ``write`` followed by ``fsync`` (when ``durable``), so a
    killed process leaves every earlier line intact. Use :meth:`create` for a new file
    and :meth:`continue_from` to append to a cut-off one.
    """

    def __init__(
        self,
        path: Path,
        fd: int | LineOutput,
        *,
        seq: int,
        durable: bool = True,
        signing_key: Ed25519PrivateKey | None = None,
        packer: BlobPacker | None = None,
        chain: Any = None,
        game_key: GameKey | None = None,
        seed_sha256: str = "",
        pack: bool = False,
        ladder: bool | None = None,
        lines: int = 0,
        journal: TailJournal | None = None,
        recovered: bytes = b"",
    ) -> None:
        self.path = path
        # a finished transcript is rewritten packed (:mod:`.packing`)
        self._pack = pack
        # private lines are sealed with ``game_key`` (None: nothing is sealed)
        self._game_key = game_key
        self._seed_sha256 = seed_sha256
        # ``fd``: a file's descriptor, or another output (``path`` then names it in messages)
        self._out: LineOutput | None = FileOutput(fd, durable) if isinstance(fd, int) else fd
        # a file is what a player may open while the game runs: its sealed lines are padded to
        # the ladder; another output (a server's store, which holds the key beside the lines
        # and which no player reads) only to a multiple of 32 bytes, as the reader accepts any
        # (``ladder`` says otherwise, for a copy of a file written elsewhere first)
        self._ladder = isinstance(self._out, FileOutput) if ladder is None else ladder
        self._seq = seq
        # a sealed file's private stream (format 7): the text of the events not written yet,
        # the chunk lines written so far, and whether the next chunk starts the stream again
        # after a resume (see :meth:`public_point`); a resumed writer's stream begins with the
        # events its tail journal kept (:mod:`.journal`), which the file does not hold whole
        self._stream = bytearray(recovered)
        # where every event of the stream goes at once, so that a stop loses none (:mod:`.journal`)
        self._journal = journal
        self._chunks = lines
        self._restart = lines > 0
        # a person's answers are read on a worker thread, whose screen lines are public points
        self._lock = threading.Lock()
        # the running SHA-256 over every byte written (format 3), continued on resume
        self._chain = chain if chain is not None else hashlib.sha256()
        self._durable = durable
        self._signing_key = signing_key
        self._packer = packer or BlobPacker()

    @classmethod
    def create(
        cls,
        path: str | Path,
        spec: SessionSpec,
        *,
        durable: bool = True,
        assets: Mapping[str, str] | None = None,
        sign: bool = True,
        seal: bool | None = None,
        game_key: GameKey | None = None,
        remember_seed: bool = True,
        pack: bool = True,
    ) -> TranscriptWriter:
        """Start a new transcript at ``path`` and write its header.

        The file is created anew (``O_EXCL``), readable by the user only, and locked for
        the writer's life: an existing file, another session's above all, is never
        truncated, and a second recorder is refused. With ``sign`` (the default) the end
        is signed with this installation's key (:mod:`.signing`), which the header names.
        With ``seal`` (by default: unless the session's kind hides nothing from the player,
        :func:`~.sealing.seals`) the private lines are sealed under ``game_key`` (by
        default a fresh random one), kept in the game's key file with the seed (without
        it unless ``remember_seed``; unsealed, the seed goes to the seed file) until
        :meth:`finish` reveals it (:mod:`.sealing`). With ``pack`` (the default) :meth:`finish`
        rewrites the finished file packed (:mod:`.packing`).

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
            raise TranscriptExists(RecordingExists(path=str(path))) from None
        try:
            lock_transcript(fd, path)
        except BaseException:
            os.close(fd)
            raise
        key = signing_key_or_none() if sign else None
        journal: TailJournal | None = None
        if seal if seal is not None else seals(spec.kind):
            game_key = game_key or GameKey.generate()
            try:
                keep_key(game_key, spec.seed if remember_seed else None)
            except OSError as exc:  # the game goes on; only replaying or resuming it before its end cannot
                print(
                    f"note: cannot keep the game's key ({exc}): until the game ends, its transcript cannot "
                    "be replayed or resumed",
                    file=sys.stderr,
                )
            else:  # without the key file nothing could be resumed, the journal's events neither
                journal = _open_journal(game_key, seed_commitment(spec.seed), durable=durable, new=True)
        else:
            game_key = None
            if remember_seed:  # nothing is hidden in this kind of session: the seed may be kept on its own
                try:
                    keep_seed(spec.seed)
                except OSError as exc:  # resuming will need --seed then; the session itself is not at stake
                    print(f"note: cannot keep the seed for `gm resume` ({exc})", file=sys.stderr)
        out = FileOutput(fd, durable)
        return cls.start(
            out, path, spec, signing_key=key, game_key=game_key, assets=assets, pack=pack, journal=journal
        )

    @classmethod
    def start(
        cls,
        out: LineOutput,
        path: Path,
        spec: SessionSpec,
        *,
        signing_key: Ed25519PrivateKey | None,
        game_key: GameKey | None,
        assets: Mapping[str, str] | None = None,
        pack: bool = False,
        journal: TailJournal | None = None,
    ) -> TranscriptWriter:
        """Start a new transcript on ``out`` (named ``path`` in messages) and write its
        header: its end signed with ``signing_key``, its private lines sealed with
        ``game_key`` (None: nothing sealed). The caller keeps the key and the seed
        (:meth:`create` in the key file; ``gm serve`` in its store). With ``pack``, :meth:`finish`
        rewrites the finished file packed (:mod:`.packing`): for a file output only, since it
        reads the file back by ``path``. ``journal`` gets every event of the private stream
        at once (:mod:`.journal`)."""
        sealing = None
        if game_key is not None:
            sealing = Sealing(key_id=game_key.key_id, key_sha256=game_key.commitment)
        commitment = seed_commitment(spec.seed)
        writer = cls(
            path, out, seq=0, signing_key=signing_key, game_key=game_key, seed_sha256=commitment, pack=pack,
            durable=out.durable if isinstance(out, FileOutput) else True, journal=journal,
        )
        signer = public_key_text(signing_key) if signing_key is not None else None
        header = TranscriptHeader.for_spec(spec, assets=assets, signer=signer, sealing=sealing)
        writer._write([dumps(header.model_dump(mode="json"))])
        return writer

    @classmethod
    def continue_from(
        cls,
        transcript: Transcript,
        *,
        durable: bool = True,
        fd: int | LineOutput | None = None,
        signing_key: Ed25519PrivateKey | None = None,
        payloads: Iterable[tuple[str, Mapping[str, Any]]] | None = None,
        events: int | None = None,
        pack: bool = True,
    ) -> TranscriptWriter:
        """Append to a cut-off transcript, first cutting off its half-written last line
        (and, with ``pack``, pack it when it is finished).

        ``fd`` is the file as :func:`open_for_append` opened and locked it before it was
        read (the writer then owns it); without it the file is opened and locked here.
        Another :class:`LineOutput` (a store, which never holds half a line) is appended to
        as it is.
        ``signing_key`` must be the key the header names (:func:`signing_key_for`). The
        file's events are ``transcript.events`` unless the caller read them as a stream
        and gives their types and ``payloads`` (read again, one at a time) and how many
        ``events`` there are; a sealed transcript's lines go on sealed with ``transcript.key``.

        Raises:
            TranscriptError: the transcript already has its end line, is of an older
                format, or ``signing_key`` is not the one its header names.
            TranscriptBusy: another process holds its lock.
        """
        if transcript.end is not None:
            raise TranscriptError(f"{transcript.path}: the session already ended; nothing to continue")
        if transcript.header.format != FORMAT_VERSION:
            raise TranscriptError(
                f"{transcript.path}: a format-{transcript.header.format} transcript can be replayed but "
                f"not continued by this version (which writes format {FORMAT_VERSION})"
            )
        signer = public_key_text(signing_key) if signing_key is not None else None
        if signer != transcript.header.signer:
            raise TranscriptError(f"{transcript.path}: the signing key is not the one its header names")
        sealing = transcript.header.sealing
        if sealing is not None and transcript.key is None:
            raise TranscriptError(
                f"{transcript.path}: the game's key is not at hand, so it cannot go on sealed"
            )
        if payloads is None:
            payloads = ((e.type, e.payload) for e in transcript.events)
        try:
            packer = BlobPacker.rebuild((payload for _, payload in payloads), transcript.blob_keys)
        except BlobError as exc:
            raise TranscriptError(f"{transcript.path}: cannot continue it: {exc}") from None
        if fd is None:
            fd = open_for_append(transcript.path)
        if isinstance(fd, int):
            os.ftruncate(fd, transcript.good_length)
            os.lseek(fd, transcript.good_length, os.SEEK_SET)
        seq = len(transcript.events) if events is None else events
        journal = None
        if isinstance(fd, int) and transcript.key is not None and sealing is not None:
            journal = _open_journal(transcript.key, transcript.header.seed_sha256, durable=durable, new=False)
        return cls(
            transcript.path,
            fd,
            seq=seq,
            durable=durable,
            signing_key=signing_key,
            packer=packer,
            chain=transcript.chain.copy() if transcript.chain is not None else None,
            game_key=transcript.key if transcript.header.sealing is not None else None,
            seed_sha256=transcript.header.seed_sha256,
            pack=pack and isinstance(fd, int),  # packing reads the file back: a file output only
            lines=transcript.lines if sealing is not None else 0,
            journal=journal,
            recovered=transcript.recovered if sealing is not None else b"",
        )

    @property
    def events_written(self) -> int:
        """How many events (not counting header, blobs and end) the file holds."""
        return self._seq

    def emit(self, event: SessionEvent) -> None:
        """Append one session event (see :meth:`write_event`).

        Raises:
            TranscriptError: the writer is closed, or the payload is not JSON-ready.
        """
        self.write_event(event.type, event.payload())

    def write_event(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Append one event line of ``event_type`` holding ``payload`` (and the blob lines of
        its content not stored yet): the one place a line is written.

        Raises:
            TranscriptError: the writer is closed, or the payload is not JSON-ready.
        """
        if not event_type or event_type in RESERVED_TYPES:
            raise TranscriptError(f"{event_type!r} is not a type an event may have")
        clash = RESERVED_KEYS.intersection(payload)
        if clash:
            raise TranscriptError(f"a {event_type} payload may not use the reserved keys {sorted(clash)}")
        key = self._game_key
        if key is not None:
            self._stream_event(event_type, payload)
            return
        seq = self._seq + 1
        obj: dict[str, Any] = {"type": event_type, "seq": seq}
        if seq % CHECKPOINT_EVERY == 0:
            obj["chain"] = self._chain.hexdigest()[:CHECKPOINT_LENGTH]
        try:
            packed, refs, blobs = self._packer.pack(normalize(dict(payload)))
        except (TypeError, ValueError) as exc:
            raise TranscriptError(f"cannot record the {event_type} event: {exc}") from None
        lines = [dumps({"type": "blob", **blob}) for blob in blobs]
        if blobs and "chain" in obj:  # the checkpoint covers the blob lines before its line
            running = self._chain.copy()
            for line in lines:
                running.update(line.encode("utf-8") + b"\n")
            obj["chain"] = running.hexdigest()[:CHECKPOINT_LENGTH]
        obj.update(packed)
        if refs:
            obj["refs"] = refs
        lines.append(dumps(obj))
        self._write(lines)
        self._packer.commit()
        self._seq += 1

    def _stream_event(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Add one event to the private stream (format 7): the blob lines it introduces, then
        its line without ``seq``, as the unsealed writer would write them; a file gets them
        at the next public points (:meth:`public_point`), another output at once, in a chunk
        of their own."""
        try:
            packed, refs, blobs = self._packer.pack(normalize(dict(payload)))
        except (TypeError, ValueError) as exc:
            raise TranscriptError(f"cannot record the {event_type} event: {exc}") from None
        inner: dict[str, Any] = {"type": event_type, **packed}
        if refs:
            inner["refs"] = refs
        lines = [dumps({"type": "blob", **blob}) for blob in blobs]
        lines.append(dumps(inner))
        text = "".join(line + "\n" for line in lines).encode("utf-8")
        if text.count(b"\n") != len(lines):  # json.dumps escapes newlines; a raw one would split
            raise TranscriptError("a transcript line may not contain a raw newline")
        with self._lock:
            self._stream += text
            self._packer.commit()
            self._seq += 1
            if self._journal is not None:
                self._journal.add(self._seq, text)
            while not self._ladder and self._stream:  # no player reads this output: nothing to hide
                self._write_chunk(LAST_CHUNKS, None)

    def public_point(self) -> None:
        """A public point of the session (a line shown to P1): a file's sealed writer writes
        exactly one chunk of the private stream, :data:`~.sealing.CHUNK_SIZE` bytes whatever
        it holds (the stream's next :data:`~.sealing.CHUNK_ROOM` bytes, or what there is and
        filler), so that the file grows by one line of one length at every public point and
        at no other time. What does not fit waits for the next point; :meth:`finish` writes
        what is left. Other writers (no sealing, or an output no player reads) do nothing."""
        if self._game_key is None or not self._ladder:
            return
        with self._lock:
            self._write_chunk(CHUNK_ROOM, CHUNK_SIZE)
            # what is held back is in the journal, durable before P1 sees the line (:mod:`.journal`)
            if self._journal is not None:
                if self._stream:
                    self._journal.sync()
                else:
                    self._journal.clear()

    def _write_chunk(self, room: int, size: int | None) -> None:
        """Write one chunk line holding the stream's next ``room`` bytes, sealed in a box of
        ``size`` (None: the chunk's own size, rounded, :func:`~.sealing.rounded_size`)."""
        key = self._game_key
        assert key is not None
        flag = RESTARTS if self._restart else CONTINUES
        plain = flag + bytes(self._stream[:room])
        del self._stream[:room]
        self._restart = False
        self._chunks += 1
        obj: dict[str, Any] = {"type": "sealed", "seq": self._chunks}
        if self._chunks % CHECKPOINT_EVERY == 0:
            obj["chain"] = self._chain.hexdigest()[:CHECKPOINT_LENGTH]
        place = chunk_place(self._seed_sha256, self._chunks)
        obj["box"] = key.seal_padded(plain, place, rounded_size(len(plain)) if size is None else size)
        self._write([dumps(obj)])

    def finish(self, seed: int, outcome: SessionOutcome) -> None:
        """Write the end line (revealing ``seed``, signing the chain's end) and close the file,
        then (if the writer packs) rewrite it packed (:func:`pack_transcript`)."""
        if self._game_key is not None:
            # the game is over, and the chunks' sizes tell nothing any more: what is left of
            # the stream, in chunks of their own sizes (small enough to be read one by one)
            with self._lock:
                while self._stream or self._restart:
                    self._write_chunk(LAST_CHUNKS, None)
        self._write_end(seed, outcome, self._game_key)
        if self._journal is not None:  # the file holds every event now, the end line too
            self._journal.remove()
            self._journal = None
            # the end line reveals the key and the seed: the key file (kept where a journal
            # is, by the writer of a file) holds nothing more, and would only pile up
            assert self._game_key is not None
            drop_key(self._game_key.key_id)
        try:
            if self._pack:
                pack_transcript(self.path, self._signing_key, durable=self._durable)
        finally:
            self.close()

    def _write_end(
        self, seed: int, outcome: SessionOutcome, key: GameKey | None, extra: Mapping[str, Any] | None = None
    ) -> None:
        end = EndEvent(seed=seed, summary=outcome.summary, figures=normalize(outcome.figures))
        number = self._chunks + 1 if self._game_key is not None else self._seq + 1  # format 7 numbers lines
        body: dict[str, Any] = {"type": end.type, "seq": number, **end.payload()}
        if key is not None:  # the game is over: its secrets are not secret any more
            body = {"type": end.type, "seq": body["seq"], "seed": seed, "key": key.key.hex(),
                    **{name: value for name, value in body.items() if name not in ("type", "seq", "seed")}}
        body.update(extra or {})
        running = self._chain.copy()
        running.update(dumps(body).encode("utf-8"))
        body["hash"] = running.hexdigest()
        if self._signing_key is not None:
            body["signature"] = sign_end(self._signing_key, body["hash"])
        self._write([dumps(body)])

    def close(self) -> None:
        """Close the file (without an end line, the session stays resumable, and its tail
        journal, synced, keeps what the file does not hold yet)."""
        if self._journal is not None:
            try:
                self._journal.close()
            finally:
                self._journal = None
        if self._out is not None:
            self._out.close()
            self._out = None

    def _write(self, lines: list[str]) -> None:
        if self._out is None:
            raise TranscriptError(f"{self.path}: the transcript is closed")
        encoded = [line.encode("utf-8") for line in lines]
        if any(b"\n" in data for data in encoded):  # json.dumps escapes newlines; a raw one would split
            raise TranscriptError("a transcript line may not contain a raw newline")
        buffer = b"".join(data + b"\n" for data in encoded)
        self._put(buffer)
        self._chain.update(buffer)

    def _put(self, buffer: bytes) -> None:
        """Write ``buffer`` (whole lines) to the output."""
        assert self._out is not None
        self._out.write_lines(buffer.decode("utf-8").splitlines(), buffer)

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _PackedWriter(TranscriptWriter):
    """The writer of a finished transcript's packed copy: every line in the clear, each
    write but the header and the end deflated (:mod:`.packing`)."""

    def __init__(self, path: Path, fd: int, *, durable: bool, signing_key: Ed25519PrivateKey | None) -> None:
        super().__init__(path, fd, seq=0, durable=durable, signing_key=signing_key)
        self._lines = LinePacker()
        self._in_clear = True  # the header goes out as it is

    def _put(self, buffer: bytes) -> None:
        super()._put(buffer if self._in_clear else self._lines.pack(buffer))
        self._in_clear = False

    def finish_as(self, end: EndRecord, key: GameKey | None) -> None:
        """Write the end line of ``end`` (revealing ``key``) and close the file."""
        self._in_clear = True
        outcome = SessionOutcome(summary=end.summary, figures=end.figures)
        self._write_end(end.seed, outcome, key, {"packed_sha256": self._lines.digest.hexdigest()})
        self.close()


def pack_transcript(
    path: Path,
    signing_key: Ed25519PrivateKey | None,
    *,
    durable: bool = True,
    replace: Callable[[Path, Path], None] = os.replace,
) -> bool:
    """Rewrite the finished transcript at ``path`` packed (:mod:`.packing`), in place, and say
    whether it was: it is read and checked first (its end signed by ``signing_key``, the key
    its header names), written anew beside it and moved over it (``replace``, the rename: a
    test puts a crash there), so that a file cut short by a crash is never left. With
    ``durable`` the new file is synced before the rename and the folder after it, so that
    the rename itself survives a crash. A file already packed, cut off, or that does not
    read back as written (it was edited meanwhile) is left as it is, with a note on standard
    error for the last.

    A process killed after the end line and before the rename leaves the finished file
    unpacked, maybe with its half-written packed copy beside it (``.NAME.*.packing``) and the
    game's tail journal (:mod:`.journal`): ``gm resume`` packs such a file
    (:func:`~.resume.pack_finished`), and once it is packed, the copies are deleted.
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.packing")
    try:
        with TranscriptStream(path) as stream:
            if stream.header.format == PACKED_FORMAT or not stream.ends:
                return False
            header = stream.header.model_copy(update={"format": PACKED_FORMAT})
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            writer = _PackedWriter(temporary, fd, durable=durable, signing_key=signing_key)
            try:
                writer._write([dumps(header.model_dump(mode="json"))])
                for event in stream:
                    writer.write_event(event.type, event.payload)
                stream.require_end()
                assert stream.end is not None
                writer.finish_as(stream.end, stream.key)
            finally:
                writer.close()
        replace(temporary, path)
        if durable:  # the rename is an entry of the folder: synced, it survives a crash
            _sync_folder(path.parent)
    except (OSError, TranscriptError) as exc:
        temporary.unlink(missing_ok=True)
        print(f"note: the finished transcript {path} is kept unpacked ({exc})", file=sys.stderr)
        return False
    except BaseException:  # interrupted: the finished file stays as it was, whole
        temporary.unlink(missing_ok=True)
        raise
    _drop_leftovers(path, header)
    return True


def _sync_folder(folder: Path) -> None:
    """``fsync`` the folder itself (what a rename in it changed)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _drop_leftovers(path: Path, header: TranscriptHeader) -> None:
    """Once ``path`` is packed: delete the packed copies an earlier packing left half-written
    beside it (killed before its rename) and the game's tail journal and key file, if still
    there (its end line reveals the key)."""
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.packing"):
        stale.unlink(missing_ok=True)
    if header.sealing is not None:
        drop_journal(header.sealing.key_id)
        drop_key(header.sealing.key_id)


def _open_journal(key: GameKey, seed_sha256: str, *, durable: bool, new: bool) -> TailJournal | None:
    """The tail journal of a sealed file's game (:mod:`.journal`), or None (with a note on
    standard error) when it cannot be opened: the game goes on, and only what a stop holds
    back would be made again on resume."""
    try:
        return TailJournal.open(key, seed_sha256, durable=durable, new=new)
    except OSError as exc:
        print(f"note: cannot keep the game's tail journal ({exc}): a stop may lose its last events",
              file=sys.stderr)
        return None


def signing_key_for(header: TranscriptHeader) -> Ed25519PrivateKey | None:
    """The key that may sign the end of the transcript ``header`` opens: None for an unsigned
    one, this installation's key when the header names it.

    Raises:
        TranscriptError: the header names another key (it was recorded on another
            installation, whose private key is not here), or the key cannot be read.
    """
    if header.signer is None:
        return None
    try:
        key = load_or_create_key()
    except (OSError, SigningKeyError) as exc:
        raise TranscriptError(f"the signing key cannot be read ({exc})") from None
    if public_key_text(key) != header.signer:
        raise TranscriptError(
            f"the transcript is signed by another installation's key ({header.signer[:24]}...), not this "
            "one's: only that installation can continue it"
        )
    return key
