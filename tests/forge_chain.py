"""What a forger does after editing a transcript's lines: recompute every hash in it.

The tests edit a recorded file and then make its hashes consistent again, as someone
rewriting the file would, to show that what still catches the edit is the signature (or
the replay), not a hash anyone can recompute. Format 3 (the one written now) has a
running SHA-256 over every line's bytes: each ``CHECKPOINT_EVERY``-th event line holds
it, and the end line's ``hash`` is it.

A packed transcript (format 5, a finished game's) is edited as the lines it inflates to,
and packed again (:mod:`gm_engine.transcripts.packing`) with its ``packed_sha256``
recomputed, as its forger would. A sealed transcript (format 6, or 4) is edited as its opened
lines (:func:`opened`, with the game key its end line reveals, as a forger of a finished
game has it); :func:`rechain` seals them again with that key before it recomputes the
hashes over the sealed bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gm_engine.sessions.base import SessionOutcome
from gm_engine.transcripts.format import (
    CHECKPOINT_EVERY,
    CHECKPOINT_LENGTH,
    FORMAT_VERSION,
    STREAMED,
    WHOLE_WRITES,
    TranscriptStream,
    TranscriptWriter,
    dumps,
)
from gm_engine.transcripts.packing import PACKED_FORMAT, LinePacker, LineUnpacker
from gm_engine.transcripts.sealing import (
    CHUNK_ROOM,
    CHUNK_SIZE,
    CONTINUES,
    GameKey,
    blob_place,
    chunk_place,
    event_place,
    is_public,
    keep_key,
    padded_size,
    write_place,
)


def opened(path: Path) -> list[dict[str, Any]]:
    """Every line of the transcript at ``path`` as JSON, its sealed lines opened (an event
    as ``{"type", "seq", "chain"?, ...}``, a blob as ``{"type": "blob", "id", ...}``; a
    format-6 sealed write as the blob lines it holds, then its event)."""
    with TranscriptStream(path) as stream:
        key, header = stream.key, stream.header
    if header.format == PACKED_FORMAT:
        return [json.loads(line) for line in inflated(path)]
    objs = [json.loads(line) for line in path.read_bytes().splitlines()]
    if header.sealing is None:
        return objs
    assert key is not None
    out: list[dict[str, Any]] = []
    if header.format >= STREAMED:  # the stream's lines, each event numbered as it comes
        texts = b"".join(
            key.open_padded(obj["box"], chunk_place(header.seed_sha256, obj["seq"]))[1:]
            for obj in objs[1:]
            if obj["type"] == "sealed"
        )
        seq = 0
        for text in texts.split(b"\n")[:-1]:
            inner = json.loads(text)
            if inner["type"] != "blob":
                seq += 1
                inner = {"type": inner.pop("type"), "seq": seq, **inner}
            out.append(inner)
        return [objs[0], *out, *objs[-1:]] if objs[-1]["type"] == "end" else [objs[0], *out]
    for obj in objs:
        if obj["type"] == "sealed" and header.format == WHOLE_WRITES:
            plain = key.open_padded(obj["box"], write_place(header.seed_sha256, obj["seq"]))
            *blobs, last = plain.split(b"\n")
            out.extend(json.loads(blob) for blob in blobs)
            inner = json.loads(last)
            head = {"type": inner.pop("type"), "seq": obj["seq"]}
            if "chain" in obj:
                head["chain"] = obj["chain"]
            out.append({**head, **inner})
        elif obj["type"] == "sealed":
            inner = json.loads(key.open(obj["box"], event_place(header.seed_sha256, obj["seq"])))
            head = {"type": inner.pop("type"), "seq": obj["seq"]}
            if "chain" in obj:
                head["chain"] = obj["chain"]
            out.append({**head, **inner})
        elif obj["type"] == "blob":
            inner = json.loads(key.open(obj["box"], blob_place(header.seed_sha256, obj["id"])))
            out.append({"type": "blob", "id": obj["id"], **inner})
        else:
            out.append(obj)
    return out


def inflated(path: Path) -> list[bytes]:
    """The lines (without newlines) a packed transcript's lines inflate to, header and end included."""
    physical = path.read_bytes().split(b"\n")[:-1]
    unpacker = LineUnpacker()
    middle = [line[:-1] for chunk in physical[1:-1] for line, _ in unpacker.lines(chunk + b"\n")]
    return [physical[0], *middle, physical[-1]]


def sealed(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``objs`` (opened lines) sealed again with the key their end line reveals, as the
    writer seals them (format 6: each private event with the blob lines before it in one
    box; format 4: line by line); unsealed transcripts as they are."""
    header, end = objs[0], objs[-1]
    if not header.get("sealing") or "key" not in end or header.get("format") == PACKED_FORMAT:
        return objs
    key = GameKey.from_hex(header["sealing"]["key_id"], end["key"])
    commitment = header["seed_sha256"]
    if header.get("format", 0) >= STREAMED:
        return _chunked(objs, key, commitment)
    whole = header.get("format", 0) == WHOLE_WRITES
    out: list[dict[str, Any]] = [header]
    blobs: list[str] = []
    for obj in objs[1:-1]:
        if obj["type"] == "blob" and whole:
            blobs.append(dumps(obj))
        elif obj["type"] == "blob":
            content = {name: value for name, value in obj.items() if name not in ("type", "id")}
            box = key.seal(dumps(content).encode(), blob_place(commitment, obj["id"]))
            out.append({"type": "blob", "id": obj["id"], "box": box})
        elif obj["type"] != "sealed" and not is_public(obj["type"]):
            inner = {"type": obj["type"]}
            inner.update((name, value) for name, value in obj.items() if name not in ("type", "seq", "chain"))
            line: dict[str, Any] = {"type": "sealed", "seq": obj["seq"]}
            if "chain" in obj:
                line["chain"] = obj["chain"]
            if whole:
                plain = "\n".join([*blobs, dumps(inner)]).encode()
                blobs = []
                place = write_place(commitment, obj["seq"])
                line["box"] = key.seal_padded(plain, place, padded_size(len(plain)))
            else:
                line["box"] = key.seal(dumps(inner).encode(), event_place(commitment, obj["seq"]))
            out.append(line)
        else:
            out.extend(json.loads(blob) for blob in blobs)  # blobs before a public line: kept in sight
            blobs = []
            out.append(obj)
    out.append(end)
    return out


def _chunked(objs: list[dict[str, Any]], key: GameKey, commitment: str) -> list[dict[str, Any]]:
    """Opened lines of a format-7 file (header, stream lines, end) as its lines: the stream cut
    into chunks of the writer's size, the end numbered after them."""
    lines = []
    for obj in objs[1:-1]:
        inner = {name: value for name, value in obj.items() if name not in ("seq", "chain")}
        lines.append(dumps(inner).encode() + b"\n")
    stream = b"".join(lines)
    out: list[dict[str, Any]] = [objs[0]]
    while stream or len(out) == 1:
        piece, stream = stream[:CHUNK_ROOM], stream[CHUNK_ROOM:]
        place = chunk_place(commitment, len(out))
        box = key.seal_padded(CONTINUES + piece, place, CHUNK_SIZE)
        out.append({"type": "sealed", "seq": len(out), "box": box})
    end = dict(objs[-1])
    end["seq"] = len(out)
    return [*out, end]


def rechain(
    objs: list[dict[str, Any]], *, sign: Callable[[str], str | None] | None = None, renumber: bool = False
) -> bytes:
    """The file's bytes for ``objs`` (header first, end last) with the checkpoints and the
    end's hash recomputed. ``sign`` makes the end's signature from its hash (None: the
    signature stays as it was, or is left off when ``sign`` returns None); ``renumber``
    numbers the events 1, 2, ... again (after a line was dropped or inserted). Opened lines
    of a sealed transcript are sealed again first (:func:`sealed`)."""
    if renumber:
        seq = 0
        for index, obj in enumerate(objs):
            if index and obj["type"] != "blob":
                seq += 1
                obj["seq"] = seq
    objs = sealed(objs)
    running = hashlib.sha256()
    out: list[bytes] = []
    seq = 0
    for index, obj in enumerate(objs):
        if index and obj["type"] != "blob":
            seq += 1
            if renumber:
                obj["seq"] = seq
        if obj["type"] == "end":
            signature = obj.pop("signature", None)
            obj.pop("hash", None)
            if objs[0].get("format") == PACKED_FORMAT:
                packed = packed_lines(out[1:])
                obj["packed_sha256"] = hashlib.sha256(packed).hexdigest()
                out = [out[0], *packed.split(b"\n")[:-1]]
            digest = running.copy()
            digest.update(dumps(obj).encode())
            obj["hash"] = digest.hexdigest()
            if sign is not None:
                signature = sign(obj["hash"])
            if signature is not None:
                obj["signature"] = signature
        elif index and obj["type"] != "blob":
            obj.pop("chain", None)
            if obj["seq"] % CHECKPOINT_EVERY == 0:
                # the checkpoint comes right after type and seq, as the writer puts it
                rest = {name: value for name, value in obj.items() if name not in ("type", "seq")}
                chain = running.hexdigest()[:CHECKPOINT_LENGTH]
                head = {"type": obj["type"], "seq": obj["seq"], "chain": chain}
                obj.clear()
                obj.update(head)
                obj.update(rest)
        line = dumps(obj).encode()
        out.append(line)
        running.update(line + b"\n")
    return b"".join(line + b"\n" for line in out)


def packed_lines(lines: list[bytes]) -> bytes:
    """Lines of a transcript (between header and end, without newlines) packed as the
    writer packs them: one piece per event with the blob lines before it."""
    packer = LinePacker()
    out: list[bytes] = []
    group: list[bytes] = []
    for line in lines:
        group.append(line + b"\n")
        if not line.startswith(b'{"type":"blob"'):
            out.append(packer.pack(b"".join(group)))
            group = []
    if group:
        out.append(packer.pack(b"".join(group)))
    return b"".join(out)



def content(path: Path) -> list[dict[str, Any]]:
    """The transcript's lines opened, without what depends on its game key or its bytes
    (the checkpoints, the end's hash, signature and packed digest, the key and its commitment): what two
    recordings of the same game under two keys have alike."""
    objs = opened(path)
    for obj in objs:
        for name in ("chain", "hash", "signature", "key", "sealing", "packed_sha256"):
            obj.pop(name, None)
    return objs


def written(objs: list[dict[str, Any]]) -> bytes:
    """The file's bytes for ``objs`` laid out as the writer lays them (sealed again, or
    packed with ``packed_sha256`` made anew), without recomputing a hash of the chain: an
    edit made by someone who does not recompute them."""
    objs = sealed(objs)
    lines = [dumps(obj).encode() for obj in objs]
    if objs[0].get("format") != PACKED_FORMAT:
        return b"".join(line + b"\n" for line in lines)
    packed = packed_lines(lines[1:-1])
    end = dict(objs[-1])
    end["packed_sha256"] = hashlib.sha256(packed).hexdigest()
    return lines[0] + b"\n" + packed + dumps(end).encode() + b"\n"


def as_recorded(path: Path, sign: Callable[[str], str | None]) -> bytes:
    """A packed transcript's bytes as they were written while its session ran (format 6:
    its events written again by a sealing writer under the key its end reveals, the end
    signed by ``sign``): what a test cuts to stand for a session killed before its end,
    since the sealed writer is deterministic."""
    with TranscriptStream(path) as stream:
        header, key = stream.header, stream.key
        assert header.format == PACKED_FORMAT and key is not None
        out = _Memory()
        writer = TranscriptWriter(path, out, seq=0, game_key=key, seed_sha256=header.seed_sha256, ladder=True)
        writer._write([dumps(header.model_copy(update={"format": FORMAT_VERSION}).model_dump(mode="json"))])
        for event in stream:  # as if a line were shown after every event: one chunk each
            writer.write_event(event.type, event.payload)
            writer.public_point()
        assert stream.end is not None
        end = stream.end
    writer.finish(end.seed, SessionOutcome(summary=end.summary, figures=end.figures))
    *lines, last = out.data.split(b"\n")[:-1]
    obj = json.loads(last)
    signature = sign(obj["hash"])
    if signature is not None:
        obj["signature"] = signature
    return b"".join(line + b"\n" for line in [*lines, dumps(obj).encode()])


def keep_key_as_while_running(path: Path) -> None:
    """Put back the key file (with the seed) of the finished game at ``path``, as it was
    while the game ran: a finished game's key file is deleted, and a test that cuts the file
    to stand for a killed game needs it, as ``gm resume`` of a killed game has it."""
    with TranscriptStream(path) as stream:
        key = stream.key
        assert key is not None
        for _ in stream:
            pass
        assert stream.end is not None
        keep_key(key, stream.end.seed)


class _Memory:
    """A :class:`~gm_engine.transcripts.format.LineOutput` that keeps the bytes."""

    def __init__(self) -> None:
        self.data = b""

    def write_lines(self, lines: Sequence[str], data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass
