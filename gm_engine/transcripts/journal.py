"""The tail journal: what a format-7 writer holds back from the file, kept where no player
reads it, so that a stop or a ``kill -9`` loses nothing P1 has seen and no model answer.

Why a tail at all. A sealed file grows by exactly one chunk of
:data:`~.sealing.CHUNK_SIZE` at each public point (:mod:`.format`), so what a step adds to
the private stream beyond that chunk waits for later points. Measured on three offline
``--auto`` games (seeds 5, 31 and 77; 169 to 205 public points each): the tail is non-empty
at 40 to 43 points, up to 14,065 bytes (seven chunks); at 28 to 36 points it holds a model
answer, and at 14 to 16 points it holds the very answer whose speech is being shown at
that moment (the personas' replies to a CO要求, a 占い師's claim). A process killed there
left that answer unwritten: ``gm resume`` asked the model again, which with the offline
model answers the same, but a live model may say something else, and the record then
differs from what P1 read.

Why not write the tail into the file at a stop. A stop (``/quit``, Ctrl-C, an error) is a
public point, but the tail is not one chunk long: flushed as whole chunks, their number
tells how much private work the last steps held. Measured on the layout test's first pair
of deals P1 cannot tell apart (the 狩人 and a 村人 trading seats, seed 77, ``--auto``): at 3
of the 189 public points where the screens are alike, one game's tail needs a chunk the
other's does not (0 bytes against 79, 139, 304), so P1 stopping there would learn it from
the file. And a ``kill -9`` runs no code at all. Why not a chunk per model answer: how many
answers a step needed (a night's actors, a turn asked again) is what the file must not show.

So the tail goes to a sidecar: ``game-keys/<key id>.tail`` beside the game's key file (the
folder 0700, the file 0600), which holds the key that opens every box anyway, so what is
written there (and its size) tells nothing to someone who cannot read the key. Every event
the writer adds to the private stream is appended there at once, whole: one line
``{"n": N, "box": B}``, N the event's number in the game (1, 2, ..., a resumed part going on
with the numbers), B its stream text (its blob lines and its event line, exactly as the
chunks carry it) sealed under the game's key and bound to the game and N
(:func:`journal_place`). Each line is one ``write``, so a kill leaves every earlier line and
at worst half of the last one (set aside). At every public point, before the line is shown,
the writer syncs the journal (a durable recording: even a power cut then loses nothing P1
saw), or empties it when the chunk just written left nothing held back (the file holds
every event then). At a stop the journal stays; at the end, once the end line is written,
it is removed.

Reading it (:class:`~.format.TranscriptStream`, for ``gm replay`` of a running file and for
``gm resume``): after the file's last whole event n, the journal's events n+1, n+2, ... are
read as recorded events; the bytes the file's chunks hold of event n+1 must begin its text.
A resumed writer starts its stream with those texts (its first chunk flagged
:data:`~.sealing.RESTARTS`, so the partial bytes in the file are dropped), which is what the
uninterrupted writer's stream held, and writes a chunk only at the points past the file's:
the resumed file has the lines, of the lengths, the uninterrupted one has.

Errors: :class:`JournalError` (a ValueError), a journal line that is not one or whose box
does not open with the game's key.
"""

from __future__ import annotations

import binascii
import json
import os
from collections.abc import Iterator
from pathlib import Path

from gm_engine.transcripts.paths import make_private_dir
from gm_engine.transcripts.sealing import GameKey, SealError, keys_dir, rounded_size


class JournalError(ValueError):
    """A line of a tail journal is not one: not JSON, not ``{"n", "box"}``, or its box does
    not open with the game's key at its number (edited, or another game's)."""


def journal_file(key_id: str) -> Path:
    """The tail journal of the game whose key id is ``key_id`` (beside its key file)."""
    return keys_dir() / f"{key_id}.tail"


def journal_place(seed_sha256: str, number: int) -> bytes:
    """The associated data of the journal's box of event ``number``: another place than any
    chunk's or line's, so that no box of the file opens as a journal entry, nor one the other way."""
    return f"{seed_sha256}\njournal {number}".encode("ascii")


class TailJournal:
    """The writer's side: appends each event's stream text, sealed; see the module docstring."""

    def __init__(self, fd: int, path: Path, key: GameKey, seed_sha256: str, durable: bool) -> None:
        self._fd: int | None = fd
        self.path = path
        self._key = key
        self._seed_sha256 = seed_sha256
        self._durable = durable
        self._unsynced = False
        # nothing appended since it was created or last emptied (a resumed game's journal
        # may hold the events it recovered: it counts as not empty)
        self._empty = False

    @classmethod
    def open(cls, key: GameKey, seed_sha256: str, *, durable: bool, new: bool) -> TailJournal:
        """The journal of ``key``'s game, created anew (``new``, a game starting: one already
        there is refused, as ids are random) or appended to (a resumed game).

        Raises:
            OSError: it cannot be created or opened.
        """
        path = journal_file(key.key_id)
        make_private_dir(path.parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_EXCL if new else 0)
        fd = os.open(path, flags, 0o600)
        journal = cls(fd, path, key, seed_sha256, durable)
        journal._empty = new
        return journal

    def add(self, number: int, text: bytes) -> None:
        """Append event ``number``'s stream text, in one write."""
        if self._fd is None:
            return
        place = journal_place(self._seed_sha256, number)
        box = self._key.seal_padded(text, place, rounded_size(len(text)))
        line = json.dumps({"n": number, "box": box}, separators=(",", ":")).encode("ascii") + b"\n"
        written = 0
        while written < len(line):
            written += os.write(self._fd, line[written:])
        self._unsynced = True
        self._empty = False

    def sync(self) -> None:
        """Make what was appended durable (a durable journal only)."""
        if self._fd is not None and self._durable and self._unsynced:
            os.fsync(self._fd)
        self._unsynced = False

    def clear(self) -> None:
        """Empty it: the file holds every event so far."""
        if self._fd is not None and not self._empty:
            os.ftruncate(self._fd, 0)
            self._unsynced = self._durable
            self._empty = True

    def close(self) -> None:
        """Sync and close it; it stays for ``gm resume``."""
        if self._fd is not None:
            try:
                self.sync()
            finally:
                os.close(self._fd)
                self._fd = None

    def remove(self) -> None:
        """Close it and delete it: the game is over, its end line written."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.path.unlink(missing_ok=True)


def read_journal(key: GameKey, seed_sha256: str) -> Iterator[tuple[int, bytes]]:
    """The entries of ``key``'s game's journal, in order, each its event number and stream
    text; nothing when there is no journal. A half-written last line is set aside.

    Raises:
        OSError: it is there but cannot be read.
        JournalError: a line is not a journal line, or its box does not open.
    """
    path = journal_file(key.key_id)
    try:
        file = path.open("rb")
    except FileNotFoundError:
        return
    with file:
        for raw in file:
            if not raw.endswith(b"\n"):
                return  # killed mid-write: that event is made again
            try:
                obj = json.loads(raw)
                number, box = obj["n"], obj["box"]
            except (ValueError, TypeError, KeyError):
                raise JournalError(f"{path}: a line is not a journal line") from None
            if type(number) is not int or number < 1 or set(obj) != {"n", "box"}:
                raise JournalError(f"{path}: a line is not a journal line")
            try:
                text = key.open_padded(box, journal_place(seed_sha256, number))
            except (SealError, binascii.Error) as exc:
                raise JournalError(f"{path}: the entry of event {number} does not open: {exc}") from None
            yield number, text


def drop_journal(key_id: str) -> None:
    """Delete the journal of a finished game, if one is left (the end line was written, and
    the process stopped before it removed it)."""
    journal_file(key_id).unlink(missing_ok=True)

