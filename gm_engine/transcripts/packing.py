"""A finished transcript packed: its lines deflated once nothing in them is secret.

Why only a finished one: while a game runs, a sealed line's length is all a player who
opens the file learns of it (:mod:`.sealing`), and a compressed length would tell more.
Deflate writes a repeat as a short reference, so a box that held both a text the player
chose (their speech, quoted in every persona's prompt) and a secret (「仲間の人狼: アオト」)
would come out shorter when the two share words: the CRIME attack, a secret guessed
from lengths one typed line at a time. Padding to a bucket only makes the guess take
more lines. So nothing sealed is compressed. At the end the end line reveals the seed
and the game's key, every line can be opened by anyone who has the file, and a length
can tell nothing a reader cannot read anyway: the writer then rewrites the file packed
(:data:`PACKED_FORMAT`), about six times smaller than its sealed form.

The packed file's lines (JSON Lines still, ``\\n`` after each):

* the header, in the clear, as the game's header with ``format`` 5 (its ``sealing``
  still names the key the game was sealed under, which the end line reveals);
* ``{"z": base64}``: a piece of one deflate stream (raw deflate, level 9, ended by a
  sync flush) that runs through the whole file, so a later piece refers back to the
  text of earlier ones; each piece inflates to the whole lines of one write of the
  unsealed writer (an event and the blob lines before it), as format 3 lays them out;
* ``{"z1": base64}``: one line of :data:`LONG_LINE` bytes or more deflated alone, so
  that a reader that does not keep a long text in memory can read its line again
  (:class:`~.blobs.BlobTable`) without inflating the file from the start;
* the end line, in the clear, with ``packed_sha256`` after ``figures``: the SHA-256 of
  every byte of the packed lines between the header and the end line.

The lines as they inflate are a format-3 transcript in the clear, with its own running
hash, checkpoints and signed end (:mod:`.format`): what the signature covers is every
inflated line, header and end included, and through ``packed_sha256`` (part of the
signed end line) every packed byte as written, so a re-deflated piece that inflates to
the same lines is an edit too.

Errors: :class:`PackedLineError` (a ValueError), a packed line that is not one or does
not inflate.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import zlib
from collections.abc import Iterator

#: The format number of a packed transcript.
PACKED_FORMAT = 5

#: A line this long (bytes, without its newline) or longer is deflated alone (``z1``).
#: It matches :data:`~.blobs.SPILL_CHARS`: every text a reader may set aside is on such a line.
LONG_LINE = 32_768

#: The most a packed line may inflate to: more is not a line this writer wrote.
MAX_INFLATED = 64 << 20

_STREAM = b'{"z":"'
_ALONE = b'{"z1":"'
_TAIL = b'"}'


class PackedLineError(ValueError):
    """A line of a packed transcript is not a packed line, or does not inflate to whole lines."""


def _deflater() -> zlib._Compress:
    return zlib.compressobj(9, zlib.DEFLATED, -15, 9)


class LinePacker:
    """The writer's side: the unsealed lines of each write, as packed lines."""

    def __init__(self) -> None:
        self._stream = _deflater()
        self.digest = hashlib.sha256()

    def pack(self, data: bytes) -> bytes:
        """The packed lines (each with its newline) for ``data``: whole lines, each ending with ``\\n``."""
        out: list[bytes] = []
        run: list[bytes] = []
        for line in _whole_lines(data):
            if len(line) - 1 < LONG_LINE:
                run.append(line)
                continue
            if run:
                out.append(self._piece(b"".join(run)))
                run = []
            alone = _deflater()
            out.append(_ALONE + base64.b64encode(alone.compress(line) + alone.flush()) + _TAIL + b"\n")
        if run:
            out.append(self._piece(b"".join(run)))
        packed = b"".join(out)
        self.digest.update(packed)
        return packed

    def _piece(self, data: bytes) -> bytes:
        deflated = self._stream.compress(data) + self._stream.flush(zlib.Z_SYNC_FLUSH)
        return _STREAM + base64.b64encode(deflated) + _TAIL + b"\n"


def _whole_lines(data: bytes) -> list[bytes]:
    """``data`` (whole lines) cut after each ``\\n`` (``bytes.splitlines`` would cut at ``\\r`` too)."""
    return [line + b"\n" for line in data.split(b"\n")[:-1]]


def _inflate(inflater: zlib._Decompress, raw: bytes, prefix: bytes) -> bytes:
    if not raw.endswith(_TAIL):
        raise PackedLineError("a packed line is not laid out as written")
    try:
        deflated = base64.b64decode(raw[len(prefix) : -len(_TAIL)], validate=True)
        data = inflater.decompress(deflated, MAX_INFLATED)
    except (binascii.Error, ValueError, zlib.error):
        raise PackedLineError("a packed line does not inflate: it was edited") from None
    if inflater.unconsumed_tail:
        raise PackedLineError(f"a packed line inflates to more than {MAX_INFLATED} bytes")
    if not data.endswith(b"\n"):
        raise PackedLineError("a packed line does not inflate to whole lines: it was edited")
    return data


def unpack_alone(raw: bytes) -> bytes:
    """The one line (with its newline) a ``z1`` packed line holds (``raw`` without its newline).

    Raises:
        PackedLineError: it is no ``z1`` line, or does not inflate to one line.
    """
    if not raw.startswith(_ALONE):
        raise PackedLineError("not a line deflated alone")
    inflater = zlib.decompressobj(-15)
    data = _inflate(inflater, raw, _ALONE)
    if not inflater.eof or data.count(b"\n") != 1:
        raise PackedLineError("a line deflated alone does not inflate to one line: it was edited")
    return data


class LineUnpacker:
    """The reader's side: the lines a packed file's lines inflate to, in order.

    :attr:`digest` is the SHA-256 of every packed line given so far (what the end line's
    ``packed_sha256`` must be).
    """

    def __init__(self) -> None:
        self._stream = zlib.decompressobj(-15)
        self.digest = hashlib.sha256()

    def lines(self, chunk: bytes) -> Iterator[tuple[bytes, bool]]:
        """The lines (each with its newline) that the packed line ``chunk`` (with its
        newline) inflates to, each with whether it was deflated alone.

        Raises:
            PackedLineError: ``chunk`` is not a packed line or does not inflate.
        """
        self.digest.update(chunk)
        raw = chunk[:-1]
        if raw.startswith(_STREAM):
            data = _inflate(self._stream, raw, _STREAM)
            for line in _whole_lines(data):
                yield line, False
        elif raw.startswith(_ALONE):
            yield unpack_alone(raw), True
        else:
            raise PackedLineError("a line of a packed transcript is neither a z nor a z1 line")
