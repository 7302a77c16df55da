"""One shared instance per value for the werewolf package's frozen objects.

The engine writes the same log entries, records and action templates again and again (a pass,
one's own secret choice, ``ATTACK:1 2 5 0``, a claim template), and the offline agents say the
same few vote reasons; each is a frozen dataclass, so an equal one may stand for another, and
building one costs a Python-level call per field. :func:`interned` hands out one instance per
``(kind, fields)``.

One eviction policy for all of it: the table holds at most :data:`LIMIT` values and is emptied
when full. Free text (a model's or a human's speech) may be anything, so the table must be
bounded; emptying it is O(1), deterministic and never changes a value, only which equal
instance a caller receives.

Callers pass fields already normalised to the types the object holds (``Role`` members, not
plain ints): ``(Claim, 2, 3)`` and ``(Claim, 2, Role.SEER)`` are equal keys.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

LIMIT = 65536
"""The most values the table holds before it is emptied."""

_TABLE: dict[tuple[Hashable, ...], object] = {}


def interned(kind: Callable[..., T], *fields: Hashable) -> T:
    """``kind(*fields)``, the same instance for equal ``(kind, fields)`` until the table is emptied."""
    key = (kind, *fields)
    found = _TABLE.get(key)
    if found is None:
        if len(_TABLE) >= LIMIT:
            _TABLE.clear()
        found = _TABLE[key] = kind(*fields)
    return found  # type: ignore[return-value]


shared_get = _TABLE.get
"""The table's lookup by ``(kind, *fields)``: the hot paths try ``shared_get(key) or
interned(kind, *fields)``, which saves a call when the value is there (the table object is
never replaced, only emptied, so this stays bound to it)."""


def size() -> int:
    """How many values the table holds now (for tests and measurements)."""
    return len(_TABLE)
