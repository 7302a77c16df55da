"""Where transcripts and the seeds of unfinished sessions are kept.

The data directory is ``$GM_DATA_DIR``, else ``$XDG_DATA_HOME/gm_engine``, else
``~/.local/share/gm_engine``. Transcripts go to its ``transcripts/`` folder (so by
default ``~/.local/share/gm_engine/transcripts``), seeds of running sessions to ``seeds/``.

Why a seed file at all: a transcript commits to its seed by hash and reveals it only in
its end line, so that nobody (the player included) can read the deal from the file
during play. A session that was cut off has no end line, yet :mod:`.resume` must re-run
it with the same seed. The recorder therefore keeps the seed, readable by the user only,
in ``seeds/<seed_sha256>.seed``; ``gm resume`` finds it there by the header's commitment,
or takes ``--seed`` and checks it against the commitment.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import UTC, datetime
from pathlib import Path


def make_private_dir(path: Path) -> None:
    """Create ``path`` and its missing parents, readable by the user only (existing ones kept as they are)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def seed_commitment(seed: int) -> str:
    """The SHA-256 hex of ``str(seed)``: what the header holds instead of the seed."""
    return hashlib.sha256(str(seed).encode("utf-8")).hexdigest()




def data_dir() -> Path:
    """The user data directory of gm_engine (not created)."""
    explicit = os.environ.get("GM_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg).expanduser() / "gm_engine"
    return Path.home() / ".local" / "share" / "gm_engine"


def transcripts_dir() -> Path:
    """Where transcripts are recorded by default."""
    return data_dir() / "transcripts"


def seeds_dir() -> Path:
    """Where the seeds of sessions recorded on this machine are kept for :mod:`.resume`."""
    return data_dir() / "seeds"


def default_transcript_path(kind: str, seed: int, *, now: datetime | None = None) -> Path:
    """A fresh file name for a session of ``kind``: ``<kind>-<UTC time>-<seed hash>.jsonl``,
    with ``-2``, ``-3``, ... before the suffix when sessions of one seed start in the same
    second (a recording never overwrites a file, so the name must be free)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    safe_kind = re.sub(r"[^A-Za-z0-9_.-]", "_", kind) or "session"
    stem = f"{safe_kind}-{stamp}-{seed_commitment(seed)[:8]}"
    path = transcripts_dir() / f"{stem}.jsonl"
    number = 1
    while path.exists():
        number += 1
        path = transcripts_dir() / f"{stem}-{number}.jsonl"
    return path


def seed_file(seed_sha256: str) -> Path:
    """The seed file of the session that committed to ``seed_sha256``."""
    if not re.fullmatch(r"[0-9a-f]{64}", seed_sha256):
        raise ValueError(f"not a SHA-256 hex digest: {seed_sha256!r}")
    return seeds_dir() / f"{seed_sha256}.seed"


def keep_seed(seed: int) -> Path:
    """Store ``seed`` where :func:`find_seed` finds it by its commitment; only the user can read it."""
    path = seed_file(seed_commitment(seed))
    make_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, f"{seed}\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def find_seed(seed_sha256: str) -> int | None:
    """The kept seed whose commitment is ``seed_sha256``, or None when none was kept (or it is wrong)."""
    path = seed_file(seed_sha256)
    try:
        seed = int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    return seed if seed_commitment(seed) == seed_sha256 else None
