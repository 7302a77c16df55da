"""What a forger does after editing a transcript's lines: recompute every hash in it.

The tests edit a recorded file and then make its hashes consistent again, as someone
rewriting the file would, to show that what still catches the edit is the signature (or
the replay), not a hash anyone can recompute. Format 3 (the one written now) has a
running SHA-256 over every line's bytes: each ``CHECKPOINT_EVERY``-th event line holds
it, and the end line's ``hash`` is it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from gm_engine.transcripts.format import CHECKPOINT_EVERY, CHECKPOINT_LENGTH, dumps


def rechain(
    objs: list[dict[str, Any]], *, sign: Callable[[str], str | None] | None = None, renumber: bool = False
) -> bytes:
    """The file's bytes for ``objs`` (header first, end last) with the checkpoints and the
    end's hash recomputed. ``sign`` makes the end's signature from its hash (None: the
    signature stays as it was, or is left off when ``sign`` returns None); ``renumber``
    numbers the events 1, 2, ... again (after a line was dropped or inserted)."""
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

