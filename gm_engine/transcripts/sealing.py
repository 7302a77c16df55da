"""Private events sealed: what a player may not know yet is written encrypted, under a key
of the game's own that is revealed at its end.

Why: a transcript is written while the game runs, into a file the player can open. In
plain text it would show every persona's prompt (the deal, the wolves' names, the
占い result), so ``tail -f`` would spoil the game. Formats 4 and 6 therefore seal every line
whose content is not public to P1 at that moment (:func:`is_public`) with AES-256-GCM
(authenticated encryption) under a random key made for this game alone:

* the key is kept apart from the transcript, in the data directory
  (``game-keys/<key id>.json``, the folder 0700, the file 0600, created anew), together
  with the seed, so that ``gm replay`` and ``gm resume`` can open the lines while the
  game runs; the header names the key's id and commits to it (``key_sha256``), as it
  commits to the seed;
* the end line of a finished game reveals the key next to the seed, so a finished
  transcript is fully readable and checkable without the key file, which is then deleted
  (it holds nothing the end line does not);
* each sealed line's box is bound to its place (the game's seed commitment and the
  line's event number, or in format 4 its blob number, are the associated data), so a box moved to
  another line, or another game's, does not open; the running hash and the signature
  cover the sealed bytes as written.

Which lines are sealed, in every kind of session but the open ones (:data:`OPEN_KINDS`,
the roll session, where the player sees every event as it happens): every event line but
``human_input``, each with the blobs it introduces inside its box (a blob may hold a
persona's prompt); a ``human_input`` line is written whole, with no blob of its own and
no reference to one (a blob number would tell how many private blobs came before). A human input holds what P1
was shown and typed, which P1 knows; every other event may hold another seat's
knowledge: a model request is a persona's prompt, its response that persona's thoughts
and actions, a tool result (a night action, a divine result) what only its actor was
told, a fallback the choice of a seat's agent, the dice the deal and every hidden draw,
a state hash the whole state (with few enough possible deals, a hash can be matched by
trying them all). The rule goes by the event's type alone, so that it holds in every
kind of session whatever its events say.

What a sealed line still shows: its number, that it is sealed, and its length. In format 4
the length was the line's own, rounded up to 32 bytes, and a blob line stood apart for
each new text; format 6 wrote each private event as ONE sealed line padded to a ladder of
sizes (:func:`padded_size`: :data:`BASE_SIZE`, or the next power of two that holds it),
which hid the content's length but not how many private events a step had (a night with
a dead 占い師 has fewer), nor an event's size class above 8 KiB. Format 7 (written now)
puts every event, P1's inputs too, into one stream and writes the file one chunk of
:data:`CHUNK_SIZE` at each public point (:meth:`~.format.TranscriptWriter.public_point`),
each box bound to its line (:func:`chunk_place`), so that the file's shape follows the
screen alone. (That is for a file; a ``gm serve`` store, which no player reads, gets each
event at once in a chunk of its own size, rounded to 32 bytes.) Why this hides what it
hides is argued in ``docs/transcripts.md``. Lengths are why nothing sealed is compressed
(:mod:`.packing`).
The key file is readable by the user who plays, as the seed file is: it keeps the key
out of sight, not out of reach of someone who goes looking for it.

Errors: :class:`SealError` (a ValueError), a box that does not open or a key file that
is not one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidTag

from gm_engine.messages import Message, locale_from_env, render
from gm_engine.messages.texts import (
    KeyFileOtherKey,
    KeyFileUnreadable,
    NotAKeyFile,
    NotAKeyId,
    SealFault,
    SealProblem,
)
from gm_engine.transcripts.paths import data_dir, make_private_dir

if TYPE_CHECKING:  # imported where a key is made or used: replaying a finished game needs no cipher
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

#: The cipher a format-4 header names.
CIPHER = "AES-256-GCM"

#: Format 4 padded a sealed text with spaces to a multiple of this many bytes (read only).
PAD = 32

#: Format 6: a sealed write is padded with spaces to this many bytes, or, when it is longer,
#: to the next power of two that holds it (:func:`padded_size`).
BASE_SIZE = 8192

#: Format 7: every sealed line holds one chunk of the game's private stream in a box of this
#: many bytes (after its nonce), whatever the chunk holds (:mod:`.format`, ``docs/transcripts.md``).
CHUNK_SIZE = 2048

#: The first byte of a chunk's text: the stream goes on (``CONTINUES``), or a resumed game
#: starts it again after the last whole event (``RESTARTS``: what the stream held after
#: that event, a write cut short, is dropped).
CONTINUES = b"C"
RESTARTS = b"R"

#: How many bytes of the stream one chunk holds: its size less the sealed length and the flag.
CHUNK_ROOM = CHUNK_SIZE - 4 - 16 - 1

#: What every box's associated data begins with: ties a box to this use.
CONTEXT = b"gm_engine sealed line v1\n"

#: The only event type public to P1 (see the module docstring).
PUBLIC_EVENT_TYPES = frozenset({"human_input"})

#: Session kinds with nothing hidden from the player: in a roll session every event is a
#: command the player typed and the roll it showed them at once. Their transcripts are
#: written in the clear; every other kind's are sealed.
OPEN_KINDS = frozenset({"roll"})

_NONCE = 12

#: A sealed length in a format-6 box: 4 bytes and their tag.
_LENGTH_BOX = 4 + 16

#: The base64 characters that hold a format-6 box's nonce and sealed length.
_HEAD_CHARS = -(-(_NONCE + _LENGTH_BOX) // 3) * 4


class SealError(ValueError):
    """A sealed line does not open with the game's key (it was edited, moved, or the key
    is wrong), or a key or key file is malformed. ``message`` says which, in the catalogue's
    words (the text of the exception is it in the player's locale, ``GM_LOCALE``)."""

    def __init__(self, message: Message) -> None:
        super().__init__(render(message, locale_from_env()))
        self.message = message


def seals(kind: str) -> bool:
    """Whether a session of ``kind`` is recorded sealed (every kind but :data:`OPEN_KINDS`)."""
    return kind not in OPEN_KINDS


def is_public(event_type: str) -> bool:
    """Whether an event line of ``event_type`` is written in the clear (see the module docstring)."""
    return event_type in PUBLIC_EVENT_TYPES


def key_commitment(key: bytes) -> str:
    """The SHA-256 hex of a game key: what the header holds instead of the key."""
    return hashlib.sha256(key).hexdigest()


@dataclass(frozen=True)
class GameKey:
    """A game's sealing key and the id its key file is named by."""

    key_id: str
    key: bytes

    @classmethod
    def generate(cls) -> GameKey:
        """A fresh random key. It comes from the operating system, not from the game's dice
        source: the dice are reproducible from the seed, and a key must not be."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return cls(key_id=secrets.token_hex(16), key=AESGCM.generate_key(bit_length=256))

    @classmethod
    def from_hex(cls, key_id: str, text: object) -> GameKey:
        """The key written as hex (on an end line or in a key file).

        Raises:
            SealError: ``text`` is not 64 hex digits.
        """
        if not isinstance(text, str) or not re.fullmatch(r"[0-9a-f]{64}", text):
            raise SealError(SealProblem(SealFault.KEY_HEX))
        return cls(key_id=key_id, key=bytes.fromhex(text))

    @property
    def commitment(self) -> str:
        """:func:`key_commitment` of the key."""
        return key_commitment(self.key)

    @cached_property
    def _cipher(self) -> AESGCM:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return AESGCM(hmac.digest(self.key, b"gm_engine seal", "sha256"))

    @cached_property
    def _nonce_key(self) -> bytes:
        return hmac.digest(self.key, b"gm_engine nonce", "sha256")

    def seal(self, plain: bytes, place: bytes) -> str:
        """``plain`` padded and sealed, bound to ``place``: the box as a line holds it (base64),
        as format 4 writes it (format 6: :meth:`seal_padded`).

        The nonce is a MAC of the place and the text (a synthetic nonce): one nonce never
        seals two texts, not even when a resumed game rewrites a line that was cut off
        with other content, and the same text at the same place seals to the same bytes,
        so a resumed game writes the file an uninterrupted one would have."""
        padded = plain + b" " * (-len(plain) % PAD)
        nonce = hmac.digest(self._nonce_key, place + b"\n" + padded, "sha256")[:_NONCE]
        sealed = self._cipher.encrypt(nonce, padded, CONTEXT + place)
        return base64.b64encode(nonce + sealed).decode("ascii")

    @cached_property
    def _length_cipher(self) -> AESGCM:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return AESGCM(hmac.digest(self.key, b"gm_engine seal length", "sha256"))

    @cached_property
    def _filler_key(self) -> bytes:
        return hmac.digest(self.key, b"gm_engine filler", "sha256")

    def seal_padded(self, plain: bytes, place: bytes, size: int) -> str:
        """``plain`` sealed at ``place`` in a box of ``size + 28`` bytes (format 6, :func:`padded_size`).

        The box is the nonce, the text's length sealed (4 bytes and a tag), the text sealed,
        then filler up to the size: bytes drawn from the key and the nonce, which look like
        the rest of the box to anyone without the key. Why not pad the text before sealing
        it (as :meth:`seal` does): a reader then decodes and decrypts only the text, not the
        filler, which is most of a box; the filler's bytes are covered by the file's running
        hash and the signature, like every byte of the file. The nonce is synthetic, as in
        :meth:`seal`, so the same text at the same place seals to the same box.

        Raises:
            ValueError: ``plain`` does not fit ``size``.
        """
        filler = size - len(plain) - _LENGTH_BOX
        if filler < 0:
            raise ValueError(f"{len(plain)} bytes do not fit a sealed size of {size}")
        nonce = hmac.digest(self._nonce_key, place + b"\n" + plain, "sha256")[:_NONCE]
        length = self._length_cipher.encrypt(nonce, len(plain).to_bytes(4, "big"), CONTEXT + place)
        sealed = self._cipher.encrypt(nonce, plain, CONTEXT + place)
        pad = hashlib.shake_256(self._filler_key + nonce).digest(filler)
        return base64.b64encode(nonce + length + sealed + pad).decode("ascii")

    def open_padded(self, box: object, place: bytes) -> bytes:
        """The text :meth:`seal_padded` sealed in ``box`` at ``place`` (the filler is not read).

        Raises:
            SealError: the box is not base64, or does not open with this key at this place.
        """
        if not isinstance(box, str):
            raise SealError(SealProblem(SealFault.BOX_NOT_TEXT))
        try:
            head = base64.b64decode(box[:_HEAD_CHARS], validate=True)
            if len(head) < _NONCE + _LENGTH_BOX:
                raise SealError(SealProblem(SealFault.BOX_SHORT))
            nonce = head[:_NONCE]
            try:
                sealed_length = head[_NONCE : _NONCE + _LENGTH_BOX]
                length = int.from_bytes(self._length_cipher.decrypt(nonce, sealed_length, CONTEXT + place))
            except InvalidTag:
                raise SealError(SealProblem(SealFault.DOES_NOT_OPEN)) from None
            end = _NONCE + _LENGTH_BOX + length + 16
            chars = -(-end // 3) * 4  # the base64 that holds the text, and no more
            if chars > len(box):
                raise SealError(SealProblem(SealFault.BOX_SHORT))
            raw = base64.b64decode(box[:chars], validate=True)
        except (binascii.Error, ValueError) as exc:
            if isinstance(exc, SealError):
                raise
            raise SealError(SealProblem(SealFault.BOX_NOT_BASE64)) from None
        try:
            return self._cipher.decrypt(nonce, raw[_NONCE + _LENGTH_BOX : end], CONTEXT + place)
        except InvalidTag:
            raise SealError(SealProblem(SealFault.DOES_NOT_OPEN)) from None

    def open(self, box: object, place: bytes) -> bytes:
        """The text sealed in ``box`` at ``place`` (its padding left on: JSON ignores it).

        Raises:
            SealError: the box is not base64, or does not open with this key at this place.
        """
        if not isinstance(box, str):
            raise SealError(SealProblem(SealFault.BOX_NOT_TEXT))
        try:
            raw = base64.b64decode(box, validate=True)
        except (binascii.Error, ValueError):
            raise SealError(SealProblem(SealFault.BOX_NOT_BASE64)) from None
        if len(raw) < _NONCE + 16:
            raise SealError(SealProblem(SealFault.BOX_SHORT))
        try:
            return self._cipher.decrypt(raw[:_NONCE], raw[_NONCE:], CONTEXT + place)
        except InvalidTag:
            raise SealError(SealProblem(SealFault.DOES_NOT_OPEN)) from None


def event_place(seed_sha256: str, seq: int) -> bytes:
    """The associated data of the sealed event numbered ``seq`` in the game committed to ``seed_sha256``."""
    return f"{seed_sha256}\nevent {seq}".encode("ascii")


def blob_place(seed_sha256: str, number: int) -> bytes:
    """The associated data of the sealed blob numbered ``number`` (format 4)."""
    return f"{seed_sha256}\nblob {number}".encode("ascii")


def write_place(seed_sha256: str, seq: int) -> bytes:
    """The associated data of the sealed write of event ``seq`` (format 6: the event's line
    with the blob lines it introduces); another place than :func:`event_place`, so that a
    format-4 box never opens as a format-6 one."""
    return f"{seed_sha256}\nwrite {seq}".encode("ascii")


def chunk_place(seed_sha256: str, line: int) -> bytes:
    """The associated data of the sealed chunk on the ``line``-th line after the header (format 7);
    another place than :func:`write_place`, so that no format-6 box opens as a chunk."""
    return f"{seed_sha256}\nchunk {line}".encode("ascii")


def rounded_size(length: int) -> int:
    """The size a sealed write of ``length`` bytes takes where no player reads it (a server's
    store): with its sealed length, rounded up to a multiple of :data:`PAD`."""
    size = length + _LENGTH_BOX
    return size + (-size % PAD)


def padded_size(length: int) -> int:
    """The size a sealed write of ``length`` bytes is padded to (format 6): :data:`BASE_SIZE`,
    or the smallest power of two above it that holds it with its sealed length."""
    size = BASE_SIZE
    while size < length + _LENGTH_BOX:
        size *= 2
    return size


def keys_dir() -> Path:
    """Where the keys (and seeds) of the games being played are kept."""
    return data_dir() / "game-keys"


def key_file(key_id: str) -> Path:
    """The key file of the game whose header names ``key_id``.

    Raises:
        SealError: ``key_id`` is not a key id (32 hex digits).
    """
    if not isinstance(key_id, str) or not re.fullmatch(r"[0-9a-f]{32}", key_id):
        raise SealError(NotAKeyId(key_id=repr(str(key_id)[:40])))
    return keys_dir() / f"{key_id}.json"


def keep_key(key: GameKey, seed: int | None) -> Path:
    """Write the key file of ``key`` (with the game's ``seed``, if given), owner-only, created anew.

    Raises:
        OSError: it cannot be written (or exists: ids are random, so only by tampering).
    """
    path = key_file(key.key_id)
    make_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, json.dumps({"key": key.key.hex(), "seed": seed}).encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def drop_key(key_id: str) -> None:
    """Delete the key file of a finished game (its end line, written and synced, reveals the
    key and the seed), if it is there.

    Raises:
        SealError: ``key_id`` is not a key id.
    """
    key_file(key_id).unlink(missing_ok=True)


@dataclass(frozen=True)
class KeptGame:
    """What a key file holds: the game's key and its seed."""

    key: GameKey
    seed: int | None


def find_key(key_id: str, commitment: str) -> KeptGame | None:
    """The kept key (and seed) of ``key_id`` if its file is there and the key is the one
    ``commitment`` names; None when there is no such file.

    Raises:
        SealError: the file is there but holds something else, or another key.
    """
    path = key_file(key_id)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SealError(KeyFileUnreadable(path=str(path))) from exc
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        raise SealError(NotAKeyFile(path=str(path))) from None
    seed = obj.get("seed") if isinstance(obj, dict) else None
    bad_seed = seed is not None and (not isinstance(seed, int) or isinstance(seed, bool))
    if not isinstance(obj, dict) or bad_seed:
        raise SealError(NotAKeyFile(path=str(path)))
    key = GameKey.from_hex(key_id, obj.get("key"))
    if key.commitment != commitment:
        raise SealError(KeyFileOtherKey(path=str(path)))
    return KeptGame(key=key, seed=seed)
