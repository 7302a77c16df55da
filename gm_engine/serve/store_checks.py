"""The argument checks every :class:`~gm_engine.serve.store.TableStore` backend makes before it
touches its database, so that SQLite and PostgreSQL refuse the same inputs with the same
:class:`~gm_engine.serve.store.StoreError` messages."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from gm_engine.serve.store import StoreError, TableStatus

__all__ = [
    "STATUSES",
    "check_created_at",
    "check_holder",
    "check_lines",
    "check_name",
    "check_seat",
    "check_secret",
    "check_status",
    "check_table_id",
    "check_text",
    "check_token_digest",
    "check_ttl",
]

STATUSES: tuple[TableStatus, ...] = ("running", "finished", "failed")

_DIGEST = re.compile(r"[0-9a-f]{64}")


def check_text(what: str, value: str) -> None:
    """Refuse ``what`` when it is not a string or holds a NUL character (PostgreSQL's text
    cannot keep one, so neither backend takes it)."""
    if not isinstance(value, str):
        raise StoreError(f"{what} must be a string, not {type(value).__name__}")
    if "\x00" in value:
        raise StoreError(f"{what} holds a NUL character")


def check_name(what: str, value: str) -> None:
    """Refuse an empty ``what`` (a kind, a secret's name), or one :func:`check_text` refuses."""
    check_text(what, value)
    if not value:
        raise StoreError(f"{what} must not be empty")


def check_secret(table_id: str, name: str, value: bytes) -> None:
    """Refuse a secret to keep: an empty or non-text name, a table id that is not text, a
    value that is not bytes."""
    check_name("a secret's name", name)
    check_text("a table id", table_id)
    if not isinstance(value, bytes):
        raise StoreError(f"a secret is bytes, not {type(value).__name__}")


def check_table_id(table_id: str) -> None:
    """Refuse an empty table id (or one that is not text)."""
    check_name("a table id", table_id)


def check_created_at(created_at: float) -> float:
    """``created_at`` as a float, refusing what is not a finite number of seconds."""
    if (
        isinstance(created_at, bool)
        or not isinstance(created_at, int | float)
        or not math.isfinite(created_at)
    ):
        raise StoreError(f"a table's creation time is a finite number of seconds, not {created_at!r}")
    return float(created_at)


def check_holder(holder: str) -> None:
    """Refuse an empty lease holder: it would match no one, or everyone who forgot to set it."""
    check_name("a lease holder", holder)


def check_status(status: str) -> TableStatus:
    """``status`` as a :data:`~gm_engine.serve.store.TableStatus`, or a refusal."""
    for known in STATUSES:
        if status == known:
            return known
    raise StoreError(f"unknown table status {status!r} (one of {', '.join(STATUSES)})")


def check_ttl(ttl_seconds: float) -> None:
    """Refuse a lease time that is not a positive finite number of seconds."""
    if (
        isinstance(ttl_seconds, bool)
        or not isinstance(ttl_seconds, int | float)
        or not math.isfinite(ttl_seconds)
        or ttl_seconds <= 0
    ):
        raise StoreError(f"a lease lasts a positive, finite number of seconds, not {ttl_seconds!r}")


def check_seat(seat: int) -> None:
    """Refuse a seat that is not a non-negative integer."""
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise StoreError(f"a seat is a non-negative integer, not {seat!r}")


def check_token_digest(token_digest: str) -> None:
    """Refuse anything but a SHA-256 hex digest in lower case: a raw token stored by mistake
    would be readable by whoever reads the database."""
    if not isinstance(token_digest, str) or _DIGEST.fullmatch(token_digest) is None:
        raise StoreError("a seat token digest is 64 lower-case hex digits (the token's SHA-256)")


def check_lines(first_index: int, lines: Sequence[str]) -> list[str]:
    """``lines`` as a list, refusing a negative index, a line that is not text and a line
    holding a newline (a downloaded transcript has one line per event)."""
    if isinstance(first_index, bool) or not isinstance(first_index, int) or first_index < 0:
        raise StoreError(f"a line index is a non-negative integer, not {first_index!r}")
    if isinstance(lines, str):
        raise StoreError("lines are a sequence of strings, not one string")
    checked = list(lines)
    for offset, line in enumerate(checked):
        check_text(f"line {first_index + offset}", line)
        if "\n" in line or "\r" in line:
            raise StoreError(f"line {first_index + offset} holds a line break")
    return checked
