"""Repeated content stored once: texts and JSON values as content-addressed blob lines.

Every model request carries its whole prompt (the system text, the conversation so far,
the tools offered), so a transcript that stored each request as it is would grow with
the square of a conversation and repeat the same persona sheet and tool schemas
hundreds of times. Instead, when an event is written:

* every text of at least :data:`MIN_TEXT` bytes is stored once, as a blob line, and
  referred to by its key wherever it comes (the first time too, so later texts can be
  edits of it);
* every object or array whose written form reaches :data:`MIN_VALUE` bytes stays where
  it is the first time, and is a blob from its second occurrence on: content that never
  comes again costs no blob line;
* an array of :data:`MIN_EDIT_ITEMS` items and :data:`MIN_EDIT_LIST` bytes or more (a
  conversation, the tools offered) is a blob from the first time, and one that shares
  items with arrays stored before is written as an edit of them, so a conversation
  resent with every request costs the file its new messages only.

Lines (format 3; format 2 had ``"prev", "sha256"`` where ``"id"`` is, see below):

* a blob line is ``{"type": "blob", "id", "refs"?, "body"}``: ``body`` is the
  value with each of its own blobs replaced by ``null`` and named in ``refs``;
* a text that shares lines with texts stored before (the next prompt of a game: the same
  sections, one more speech) is stored as an edit of them: ``{"type": "blob", "id",
  "base", "body"}``, ``base`` listing those texts' keys and ``body`` listing
  ``[base index, first line, count]`` (copy those lines) and texts (new lines); an array
  is edited the same way, ``body`` listing ``[base index, first item, count]`` and
  ``{"items": [...]}`` (new items, with their own blobs in ``refs``);
* ``refs`` (on a blob or an event line) lists ``[key, index, ..., sha256]``: the path to a
  ``null`` in the line's value and the key of the blob that stands there.

A blob's key (its ``id``) is its number in the file: 1 for the first blob line, 2 for the
next, and so on. What a blob holds is vouched for by the file's running hash and the
signature over it, like every other line's bytes (:mod:`gm_engine.transcripts.format`),
so the key only has to name it. In format 2 the key was the SHA-256 of the blob's
content as written (:func:`blob_key`: the JSON of ``base`` or ``refs`` and ``body``), cut
to :data:`KEY_LENGTH` hex digits, and checked against the line's bytes; those files are
still read that way (:class:`BlobTable`). Numbers save the file about 33 bytes per blob
line and per reference (about 9% of the shipped transcripts in format 2). The writer knows every value it
stored by the value's own SHA-256 (:func:`content_digest`), so a value is stored once
however often, and wherever, it comes. A blob line comes before the first line that refers to it;
the reader puts each blob back where it was referred to, so every event reads as it
was emitted, and a value referred to a hundred times is one object in memory.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: Texts at least this long (UTF-8 bytes) are stored as blobs.
MIN_TEXT = 200

#: Objects and arrays whose written form (their own blobs left out, each reference
#: counted at about 60 bytes) reaches this many bytes are blobs from their second time on.
MIN_VALUE = 240

#: A text is written as an edit only when that is at most this share of its own size.
MAX_EDIT_SHARE = 0.8

#: Arrays of at least this many items and bytes (a conversation) are blobs from the first
#: time, so that the next, longer one can be written as an edit of it.
MIN_EDIT_ITEMS = 3
MIN_EDIT_LIST = 300

#: Hex digits of a blob's digest that named it in format 2 (128 bits); format 3 numbers
#: its blobs 1, 2, 3, ... instead (see :class:`BlobTable`).
KEY_LENGTH = 32

#: About how many bytes a reference to a base costs an edit (a number and its comma).
BASE_COST = 5

#: Lines of this many characters or more the writer knows by their digest (:func:`_line_form`).
LONG_LINE = 512

#: How many base texts' lines a reader keeps split (the rest are split again when needed).
LINE_CACHE = 256


class BlobError(ValueError):
    """A blob or a reference is malformed, or refers to a blob not stored before it."""


def _dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def content_digest(value: object) -> bytes:
    """The SHA-256 of ``value``'s canonical JSON: how the writer knows a value it stored
    (however it was written: whole, with blobs of its own, or as an edit).

    Raises:
        TypeError, ValueError: ``value`` is not JSON.
    """
    return hashlib.sha256(_dumps(value).encode("utf-8")).digest()


def blob_key(content: Mapping[str, Any]) -> str:
    """The SHA-256 hex of a blob's content as written (``base`` or ``refs``, then ``body``):
    the line's bytes after its key, so a reader checks it without writing anything anew."""
    return hashlib.sha256(_dumps(dict(content)).encode("utf-8")).hexdigest()


class BlobPacker:
    """The writer's side: which blobs the file holds already, and packing a payload.

    :meth:`pack` does not change what the packer knows; the writer calls :meth:`commit`
    once the lines are written, so an event refused (or a write that failed) leaves the
    packer as it was. The packer's state follows from the payloads packed alone, so
    :meth:`rebuild` sets it up again from a file's events (how a resumed session writes
    the same bytes as one never cut off).
    """

    def __init__(self) -> None:
        #: The number of every blob the file holds, by its content's digest (hex).
        self.keys: dict[str, int] = {}
        self._taken: set[int] = set()
        #: Digests of the objects and arrays met once: the next time, a blob.
        self._seen: set[bytes] = set()
        #: Each stored text's lines, by key, and where each line was last stored.
        #: (Lines are known by :func:`_line_form`: a long line by its digest, so the writer's
        #: memory does not grow with the long answers it stored.)
        self._lines: dict[int, list[str | bytes]] = {}
        self._line_index: dict[str | bytes, tuple[int, int]] = {}
        #: The same for long arrays: each one's items (by digest), where each item was last.
        self._items: dict[int, list[bytes]] = {}
        self._item_index: dict[bytes, tuple[int, int]] = {}
        # what the last pack would add, applied by commit
        self._new: dict[str, dict[str, Any]] = {}
        self._new_seen: set[bytes] = set()
        self._new_texts: list[tuple[int, list[str | bytes]]] = []
        self._new_lists: list[tuple[int, list[bytes]]] = []

    @classmethod
    def rebuild(
        cls, payloads: Iterable[Mapping[str, Any]], file_keys: Iterable[str | int] = ()
    ) -> BlobPacker:
        """The packer as it stood after writing ``payloads`` (the events of a file, as read
        back). ``file_keys``, the blobs the file holds, must all be known then; one that is
        not (a write cut short after its blob lines) is refused.

        Raises:
            BlobError: the file holds a blob these payloads would not have written.
        """
        packer = cls()
        for payload in payloads:
            packer.pack(payload)
            packer.commit()
        stray = set(file_keys) - packer._taken
        if stray:
            raise BlobError(f"the file holds {len(stray)} blob(s) no complete event refers to")
        return packer

    def pack(
        self, payload: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[list[Any]], list[dict[str, Any]]]:
        """``payload`` (JSON values only) as written: the packed payload, its refs, and the
        new blob lines' content (``id``, then ``base`` or ``refs``, then ``body``),
        children before parents."""
        self._new = {}
        self._new_seen = set()
        self._new_texts = []
        self._new_lists = []
        packed: dict[str, Any] = {}
        refs: list[list[Any]] = []
        for name, value in payload.items():
            inline, inner = self._pack(value)
            packed[name] = inline
            refs.extend([name, *ref] for ref in inner)
        return packed, refs, list(self._new.values())

    def commit(self) -> None:
        """Note that the blobs of the last :meth:`pack` are now in the file."""
        for digest, blob in self._new.items():
            self.keys[digest] = blob["id"]
            self._taken.add(blob["id"])
        self._seen.update(self._new_seen)
        for key, lines in self._new_texts:
            self._lines[key] = lines
            for index, line in enumerate(lines):
                self._line_index[line] = (key, index)
        for key, items in self._new_lists:
            self._items[key] = items
            for index, item in enumerate(items):
                self._item_index[item] = (key, index)
        self._new = {}
        self._new_seen = set()
        self._new_texts = []
        self._new_lists = []

    def _pack(self, value: Any) -> tuple[Any, list[list[Any]]]:
        """``(inline form, refs)`` of ``value``."""
        if isinstance(value, str):
            if len(value) * 3 >= MIN_TEXT and len(value.encode("utf-8")) >= MIN_TEXT:
                return None, [[self._store_text(value)]]
            return value, []
        inline: Any
        refs: list[list[Any]] = []
        if isinstance(value, dict):
            inline = {}
            for name, item in value.items():
                inline[name], inner = self._pack(item)
                refs.extend([name, *ref] for ref in inner)
        elif isinstance(value, list):
            if len(value) >= MIN_EDIT_ITEMS and len(_dumps(value)) >= MIN_EDIT_LIST:
                return None, [[self._store_list(value)]]
            inline = []
            for index, item in enumerate(value):
                packed, inner = self._pack(item)
                inline.append(packed)
                refs.extend([index, *ref] for ref in inner)
        else:
            return value, []
        if len(_dumps(inline)) + 60 * len(refs) >= MIN_VALUE:
            digest = content_digest(value)
            if digest in self._seen or digest in self._new_seen:
                content: dict[str, Any] = {"refs": refs, "body": inline} if refs else {"body": inline}
                return None, [[self._store(digest, content)]]
            self._new_seen.add(digest)
        return inline, refs

    def _store(self, digest: bytes, content: dict[str, Any]) -> int:
        hexdigest = digest.hex()
        key = self.keys.get(hexdigest)
        if key is not None:
            return key
        pending = self._new.get(hexdigest)
        if pending is not None:
            return int(pending["id"])
        key = len(self._taken) + len(self._new) + 1
        self._new[hexdigest] = {"id": key, **content}
        return key

    def _store_text(self, text: str) -> int:
        digest = content_digest(text)
        hexdigest = digest.hex()
        if hexdigest in self.keys or hexdigest in self._new:
            return self._store(digest, {})
        lines = text.splitlines(keepends=True)
        forms = [_line_form(line) for line in lines]
        content = self._edit(text, lines, forms) or {"body": text}
        key = self._store(digest, content)
        self._new_texts.append((key, forms))
        return key

    def _store_list(self, value: list[Any]) -> int:
        """A long array as a blob: as runs of the items of arrays stored before and its new
        items when it shares any, else whole; only the items written out are packed."""
        digest = content_digest(value)
        if digest.hex() in self.keys or digest.hex() in self._new:
            return self._store(digest, {})
        items = [content_digest(item) for item in value]
        content = self._list_edit(value, items)
        if content is None:
            packed = [self._pack(item) for item in value]
            refs = [[index, *ref] for index, (_, inner) in enumerate(packed) for ref in inner]
            inline = [form for form, _ in packed]
            content = {"refs": refs, "body": inline} if refs else {"body": inline}
        key = self._store(digest, content)
        self._new_lists.append((key, items))
        return key

    def _list_edit(self, value: list[Any], items: list[bytes]) -> dict[str, Any] | None:
        """Runs of items of arrays stored before (``[base, first, count]``) and new items
        (``{"items": [...]}``, their references in ``refs``); None when no run is found."""
        runs: list[tuple[int, int, int] | int] = []  # a run of a base, or the index of a new item
        index = 0
        while index < len(items):
            hit = self._item_index.get(items[index])
            if hit is None:
                runs.append(index)
                index += 1
                continue
            key, first = hit
            base_items = self._items[key]
            count = 1
            while (
                index + count < len(items)
                and first + count < len(base_items)
                and base_items[first + count] == items[index + count]
            ):
                count += 1
            runs.append((key, first, count))
            index += count
        if all(isinstance(run, int) for run in runs):
            return None
        bases: list[int] = []
        ops: list[Any] = []
        refs: list[list[Any]] = []
        for run in runs:
            if isinstance(run, int):
                form, inner = self._pack(value[run])
                if not ops or not isinstance(ops[-1], dict):
                    ops.append({"items": []})
                new_items = ops[-1]["items"]
                refs.extend([len(ops) - 1, "items", len(new_items), *ref] for ref in inner)
                new_items.append(form)
            else:
                key, first, count = run
                if key not in bases:
                    bases.append(key)
                ops.append([bases.index(key), first, count])
        edit: dict[str, Any] = {"base": bases}
        if refs:
            edit["refs"] = refs
        edit["body"] = ops
        return edit

    def _edit(self, text: str, lines: list[str], forms: list[str | bytes]) -> dict[str, Any] | None:
        """``text`` as copies of runs of lines stored before and new text, if that is smaller
        (``forms``: its lines' :func:`_line_form`)."""
        if len(lines) < 2 or not self._line_index:
            return None
        bases: list[int] = []
        ops: list[Any] = []
        new: list[str] = []
        index = 0
        while index < len(lines):
            hit = self._line_index.get(forms[index])
            if hit is None:
                new.append(lines[index])
                index += 1
                continue
            key, first = hit
            base_lines = self._lines[key]
            count = 1
            while (
                index + count < len(lines)
                and first + count < len(base_lines)
                and base_lines[first + count] == forms[index + count]
            ):
                count += 1
            if new:
                ops.append("".join(new))
                new = []
            if key not in bases:
                bases.append(key)
            ops.append([bases.index(key), first, count])
            index += count
        if new:
            ops.append("".join(new))
        if not bases:
            return None
        size = len(_dumps(ops).encode("utf-8")) + BASE_COST * len(bases)
        if size > MAX_EDIT_SHARE * len(text.encode("utf-8")):
            return None
        return {"base": bases, "body": ops}


#: A text blob this long (characters) or longer is not kept in memory by a reader that
#: can read its line again (:attr:`BlobTable.reload`): it is read back when referred to,
#: so a reader's memory grows with the largest blob, not with the file.
SPILL_CHARS = 32_768

#: How many characters of spilled texts a reader keeps at hand (most recently used first).
SPILL_CACHE_CHARS = 2_000_000


class _Spilled:
    """Where a text blob not kept in memory is: the reader's handle to read its line again."""

    __slots__ = ("where",)

    def __init__(self, where: object) -> None:
        self.where = where


def _line_form(line: str) -> str | bytes:
    """How the writer knows a line of a stored text: itself when short, else its digest."""
    if len(line) < LONG_LINE:
        return line
    return hashlib.blake2b(line.encode("utf-8"), digest_size=20).digest()


class BlobTable:
    """The reader's side: every blob read so far, by key, with its references resolved.

    In format 2 a blob is named by (a prefix of) its SHA-256, checked here against the
    line's bytes. In format 3 blobs are numbered 1, 2, 3, ... in the order they come, and
    their content is covered by the file's running hash like every other line's (see
    :mod:`gm_engine.transcripts.format`): a key that only names a blob need not hash it
    again, and a number is 30 bytes shorter, in every reference too.

    With :attr:`reload` set (a function that reads a blob line again from the handle
    :meth:`add` was given, checked against what was read the first time), a text of
    :data:`SPILL_CHARS` or more is not kept: it is made again from its line when it is
    referred to, and the last few are kept at hand.
    """

    def __init__(self, version: int = 3, reload: Callable[[object], Mapping[str, Any]] | None = None) -> None:
        self.version = version
        self.reload = reload
        self.values: dict[str | int, Any] = {}
        self._split: OrderedDict[str | int, list[str]] = OrderedDict()
        self._split_chars = 0
        self._at_hand: OrderedDict[str | int, str] = OrderedDict()
        self._at_hand_chars = 0

    def add(self, line: Mapping[str, Any], raw: bytes, where: object = None) -> None:
        """Check and keep one blob line's content (its key, ``base`` or ``refs``, ``body``);
        ``raw`` is the line as read (in format 2, its bytes after the key are what the key
        hashes), ``where`` the handle :attr:`reload` reads it again by.

        Raises:
            BlobError: the key is not the content's (format 2) or not the next number
                (format 3), is stored twice, the line is not laid out as written, or a
                reference or an edit is bad.
        """
        key: str | int
        if self.version >= 3:
            number = line.get("id")
            if type(number) is not int or number != len(self.values) + 1:
                raise BlobError(f"a blob numbered {number!r} where {len(self.values) + 1} was expected")
            if "body" not in line or set(line) - {"type", "id", "base", "refs", "body"}:
                raise BlobError("a blob line needs a body and holds nothing but base, refs and body")
            key = number
        else:
            key = self._hashed_key(line, raw)
        value = self._decode(key, line)
        if self.reload is not None and where is not None and type(value) is str and len(value) >= SPILL_CHARS:
            self.values[key] = _Spilled(where)
            self._keep_at_hand(key, value)
        else:
            self.values[key] = value

    def _decode(self, key: str | int, line: Mapping[str, Any]) -> Any:
        """The value a blob line holds (its edits applied, its references resolved)."""
        bases = line.get("base")
        if bases is not None and self._edits_lists(bases):
            return self._apply_list_edit(bases, self.resolve(line["body"], line.get("refs")))
        if bases is not None:
            if "refs" in line:
                raise BlobError("an edited text has no references")
            lines = self._apply_edit(bases, line["body"])
            self._keep_lines(key, lines)
            return "".join(lines)
        return self.resolve(line["body"], line.get("refs"))

    def value(self, key: str | int) -> Any:
        """The value of blob ``key`` (read again if it was not kept).

        Raises:
            BlobError: its line, read again, is not what it was (the file changed meanwhile).
        """
        value = self.values[key]
        if type(value) is not _Spilled:
            return value
        text = self._at_hand.get(key)
        if text is not None:
            self._at_hand.move_to_end(key)
            return text
        assert self.reload is not None
        text = self._decode(key, self.reload(value.where))
        self._keep_at_hand(key, text)
        return text

    def _keep_at_hand(self, key: str | int, text: str) -> None:
        self._at_hand[key] = text
        self._at_hand_chars += len(text)
        while self._at_hand_chars > SPILL_CACHE_CHARS and len(self._at_hand) > 1:
            _, old = self._at_hand.popitem(last=False)
            self._at_hand_chars -= len(old)

    def _kind(self, key: object) -> type | None:
        """The type of blob ``key``'s value (``str`` for a text not kept), None if unknown."""
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            return None
        value = self.values.get(key)
        return str if type(value) is _Spilled else type(value)

    def _hashed_key(self, line: Mapping[str, Any], raw: bytes) -> str:
        """A format-2 blob's key, checked against the line's bytes."""
        key = line.get("sha256")
        if not isinstance(key, str) or not KEY_LENGTH <= len(key) <= 64:
            raise BlobError("a blob line without its key (sha256)")
        if key in self.values:
            raise BlobError(f"blob {key[:16]}... is stored twice")
        if "body" not in line or set(line) - {"type", "prev", "sha256", "base", "refs", "body"}:
            raise BlobError("a blob line needs a body and holds nothing but base, refs and body")
        head = f'{{"type":"blob","prev":"{line.get("prev")}","sha256":"{key}",'.encode()
        if not raw.startswith(head):
            raise BlobError("a blob line must begin with its type, prev and sha256, as written")
        if not hashlib.sha256(b"{" + raw[len(head) :]).hexdigest().startswith(key):
            raise BlobError(f"blob {key[:16]}...: its content does not hash to its key")
        return key

    def resolve(self, value: Any, refs: object) -> Any:
        """``value`` with each reference in ``refs`` replaced by its blob.

        Every place is found before any is filled, so that a reference can only ever fill
        a ``null`` of this line, never reach into a blob shared with other lines.

        Raises:
            BlobError: a reference is malformed, names no ``null``, or an unknown blob.
        """
        if refs is None:
            return value
        if not isinstance(refs, list):
            raise BlobError("refs is not a list of references")
        places: list[tuple[Any, str | int, str | int]] = []
        for ref in refs:
            if not isinstance(ref, list) or len(ref) < 2:
                raise BlobError("a reference needs a path and a key")
            *path, key = ref
            if not isinstance(key, (str, int)) or isinstance(key, bool) or key not in self.values:
                raise BlobError(f"a reference to a blob not stored before it: {str(key)[:16]}...")
            holder = value
            for step in path[:-1]:
                holder = _step(holder, step)
            last = path[-1]
            if _step(holder, last) is not None:
                raise BlobError(f"a reference at {path} where the value is not null")
            places.append((holder, last, key))
        for holder, last, key in places:
            holder[last] = self.value(key)
        return value

    def _lines_of(self, key: str | int) -> list[str]:
        lines = self._split.get(key)
        if lines is None:
            lines = self.value(key).splitlines(keepends=True)
            self._keep_lines(key, lines)
        else:
            self._split.move_to_end(key)
        return lines

    def _keep_lines(self, key: str | int, lines: list[str]) -> None:
        old = self._split.pop(key, None)
        if old is not None:
            self._split_chars -= _chars(old)
        self._split[key] = lines
        self._split_chars += _chars(lines)
        while len(self._split) > 1 and (
            len(self._split) > LINE_CACHE or self._split_chars > SPILL_CACHE_CHARS
        ):
            _, dropped = self._split.popitem(last=False)
            self._split_chars -= _chars(dropped)

    def _edits_lists(self, bases: object) -> bool:
        """Whether an edit's bases are arrays (else they must all be texts)."""
        if not isinstance(bases, list) or not bases:
            raise BlobError("an edit's base is not a list of blobs")
        kinds = {self._kind(base) for base in bases}
        if kinds == {list}:
            return True
        if kinds == {str}:
            return False
        raise BlobError("an edit's bases are not all texts or all arrays stored before it")

    def _apply_list_edit(self, bases: list[str | int], ops: object) -> list[Any]:
        if not isinstance(ops, list):
            raise BlobError("an edit's body is not a list")
        items: list[Any] = []
        for op in ops:
            if type(op) is dict and len(op) == 1 and type(op.get("items")) is list:
                items.extend(op["items"])
                continue
            if type(op) is list and len(op) == 3:
                which, start, count = op
                if type(which) is type(start) is type(count) is int and 0 <= which < len(bases):
                    base = self.values[bases[which]]
                    if start >= 0 and count > 0 and start + count <= len(base):
                        items.extend(base[start : start + count])
                        continue
            raise BlobError(f"an edit step {str(op)[:40]} is neither new items nor items of its base")
        return items

    def _apply_edit(self, bases: object, ops: object) -> list[str]:
        """The lines of the text an edit makes (its new texts split into lines too)."""
        if not isinstance(bases, list) or not bases:
            raise BlobError("an edit's base is not a list of texts")
        for base in bases:
            if self._kind(base) is not str:
                raise BlobError(f"an edit of a text not stored before it: {str(base)[:16]}...")
        if not isinstance(ops, list):
            raise BlobError("an edit's body is not a list")
        parts: list[str] = []
        lines_of = [self._lines_of(base) for base in bases]
        for op in ops:
            if type(op) is str:
                parts.extend(op.splitlines(keepends=True))
                continue
            if type(op) is list and len(op) == 3:
                which, start, count = op
                # type() rather than isinstance: a bool is an int, and no index
                if type(which) is type(start) is type(count) is int and 0 <= which < len(bases):
                    lines = lines_of[which]
                    if start >= 0 and count > 0 and start + count <= len(lines):
                        parts.extend(lines[start : start + count])
                        continue
            raise BlobError(f"an edit step {str(op)[:40]} is neither new text nor lines of its base")
        return parts


def _chars(lines: list[str]) -> int:
    return sum(map(len, lines))


def _is_key(value: object) -> bool:
    """Whether ``value`` can name a blob: a format-2 hex key or a format-3 number."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _step(holder: Any, step: object) -> Any:
    if isinstance(holder, dict) and isinstance(step, str) and step in holder:
        return holder[step]
    if (
        isinstance(holder, list)
        and isinstance(step, int)
        and not isinstance(step, bool)
        and 0 <= step < len(holder)
    ):
        return holder[step]
    raise BlobError(f"a reference's path step {step!r} leads nowhere")
