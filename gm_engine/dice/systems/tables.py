"""Table packs: the row texts of a game system's random tables, kept outside the repository.

Table texts are third-party prose, so the project ships none. A pack is a JSON file
named ``<system id>.json`` in the directory :meth:`RollContext.table_packs_dir` gives
(``RollContext.tables_dir``, else the ``GM_TABLES_DIR`` environment variable). It maps each table
command to ``{"title": str, "dice": "NDx", "rows": [str, ...]}`` with one row per
possible total, lowest first. An English pack may sit beside it as
``<system id>.en.json``; the English locale prefers it and falls back to the default.

A command whose pack is absent, unreadable or lacks the table still answers, with an
outcome that names the missing pack and how to set ``GM_TABLES_DIR``: no exception
reaches the caller. Packs are parsed once per path and re-read when the file changes.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.result import Detail, Locale, Outcome
from gm_engine.dice.system import RollContext

#: The environment variable the engine reads the table pack directory from.
TABLES_ENV = "GM_TABLES_DIR"

#: Largest dice expression a pack may declare (keeps a hostile pack from rolling forever).
MAX_TABLE_DICE = 100
MAX_TABLE_SIDES = 1000
#: Largest pack file read, so that a wrong path cannot make the engine swallow a huge file.
MAX_PACK_BYTES = 16 * 1024 * 1024

_DICE = re.compile(r"([0-9]+)D([0-9]+)", re.IGNORECASE | re.ASCII)

UnavailableReason = Literal["no_tables_dir", "pack_missing", "pack_malformed", "table_missing"]


class TablePackError(ValueError):
    """A pack file exists but is not a valid table pack (bad JSON or bad layout)."""


@dataclass(frozen=True)
class Table:
    """One table: roll ``dice_count`` dice of ``dice_sides`` and read row ``total - dice_count``."""

    command: str
    title: str
    dice_count: int
    dice_sides: int
    rows: tuple[str, ...]

    @property
    def dice(self) -> str:
        """The dice expression, e.g. ``1D100``."""
        return f"{self.dice_count}D{self.dice_sides}"

    def row_for(self, total: int) -> str:
        """The row of ``total``; Ruby's array reading (negative from the end, else empty)."""
        index = total - self.dice_count
        if -len(self.rows) <= index < len(self.rows):
            return self.rows[index]
        return ""


@dataclass(frozen=True)
class TablePack:
    """The tables of one pack file; ``broken`` holds the tables that failed validation."""

    system: str
    path: str
    tables: dict[str, Table]
    broken: dict[str, str] = field(default_factory=dict)


class FollowUpRoll(BaseModel):
    """A die rolled after the row, e.g. the duration of a bout of madness."""

    model_config = ConfigDict(frozen=True)

    dice: str
    value: int
    unit: str


class TableRollDetail(Detail):
    """A table roll: the dice, their total, the row read and any follow-up roll."""

    kind: Literal["table_roll"] = "table_roll"
    system: str
    command: str
    title: str
    dice_expression: str
    dice: tuple[int, ...]
    total: int
    row: str
    follow_up: FollowUpRoll | None = None
    pack: str


class TableUnavailableDetail(Detail):
    """A table command that could not be rolled because its pack is missing or broken."""

    kind: Literal["table_unavailable"] = "table_unavailable"
    system: str
    command: str
    reason: UnavailableReason
    pack: str | None = None
    message: str


@dataclass(frozen=True)
class FollowUp:
    """A die a system rolls after the row and prints after it, as ``(1D10＞7時間)``."""

    sides: int
    unit_ja: str
    unit_en: str


_CACHE: dict[str, tuple[tuple[int, int], TablePack]] = {}


def pack_path(tables_dir: str, system_id: str, locale: Locale = "ja") -> str:
    """Where the pack of ``system_id`` lives under ``tables_dir`` for ``locale``."""
    name = f"{system_id}.json" if locale == "ja" else f"{system_id}.{locale}.json"
    return os.path.abspath(os.path.join(tables_dir, name))


def load_pack(path: str, system_id: str) -> TablePack | None:
    """The pack at ``path`` (cached while the file is unchanged), or None if there is no file.

    Raises:
        TablePackError: the file cannot be read, is not JSON, or is not an object of tables.
    """
    try:
        stat = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise TablePackError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.st_size > MAX_PACK_BYTES:
        raise TablePackError(f"{path} is {stat.st_size} bytes; a table pack may hold {MAX_PACK_BYTES}")
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    pack = _parse_pack(path, system_id)
    _CACHE[path] = (stamp, pack)
    return pack


def _parse_pack(path: str, system_id: str) -> TablePack:
    try:
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
    except (OSError, UnicodeDecodeError) as exc:
        raise TablePackError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise TablePackError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise TablePackError(f"{path} is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(raw, dict):
        raise TablePackError(f"{path} must hold a JSON object keyed by table command")
    tables: dict[str, Table] = {}
    broken: dict[str, str] = {}
    for key, entry in raw.items():
        command = str(key).upper()
        try:
            tables[command] = _parse_table(command, entry)
        except TablePackError as exc:
            broken[command] = str(exc)
    return TablePack(system_id, path, tables, broken)


def _parse_table(command: str, entry: object) -> Table:
    if not isinstance(entry, dict):
        raise TablePackError(f"table {command} must be an object with title, dice and rows")
    title, dice, rows = entry.get("title"), entry.get("dice"), entry.get("rows")
    if not isinstance(title, str):
        raise TablePackError(f"table {command}: title must be a string")
    match = _DICE.fullmatch(dice) if isinstance(dice, str) else None
    if match is None:
        raise TablePackError(f"table {command}: dice must look like 1D100, not {dice!r}")
    count, sides = int(match.group(1)), int(match.group(2))
    if not (1 <= count <= MAX_TABLE_DICE and 1 <= sides <= MAX_TABLE_SIDES):
        raise TablePackError(
            f"table {command}: dice {dice} out of range "
            f"(1..{MAX_TABLE_DICE} dice of 1..{MAX_TABLE_SIDES} sides)"
        )
    if not isinstance(rows, list) or not all(isinstance(row, str) for row in rows):
        raise TablePackError(f"table {command}: rows must be a list of strings")
    expected = count * sides - count + 1
    if len(rows) != expected:
        raise TablePackError(f"table {command}: {dice} needs {expected} rows, the pack has {len(rows)}")
    return Table(command, title, count, sides, tuple(rows))


def _unavailable(
    ctx: RollContext, system_id: str, command: str, reason: UnavailableReason, pack: str | None, problem: str
) -> Outcome:
    file_name = f"{system_id}.json"
    if ctx.locale == "en":
        if reason == "no_tables_dir":
            text = (
                f"Table {command} needs the {system_id} table pack ({file_name}), which is not "
                f"bundled. Set the environment variable {TABLES_ENV} to the directory that holds it."
            )
        elif reason == "pack_missing":
            text = (
                f"Table {command}: table pack {pack} not found. Set {TABLES_ENV} to the directory "
                f"that holds {file_name}."
            )
        elif reason == "table_missing":
            text = (
                f"Table {command}: the table pack {pack} has no table {command}{problem}. "
                f"Point {TABLES_ENV} at a complete {file_name}."
            )
        else:
            text = (
                f"Table {command}: the table pack is malformed: {problem}. "
                f"Fix it or point {TABLES_ENV} elsewhere."
            )
    elif reason == "no_tables_dir":
        text = (
            f"表{command}には{system_id}の表パック（{file_name}）が必要です（同梱していません）。"
            f"環境変数{TABLES_ENV}に表パックのあるディレクトリを設定してください。"
        )
    elif reason == "pack_missing":
        text = (
            f"表{command}：表パック{pack}が見つかりません。"
            f"環境変数{TABLES_ENV}に{file_name}のあるディレクトリを設定してください。"
        )
    elif reason == "table_missing":
        text = (
            f"表{command}：表パック{pack}に表{command}がありません{problem}。"
            f"環境変数{TABLES_ENV}に完全な{file_name}のあるディレクトリを設定してください。"
        )
    else:
        text = (
            f"表{command}：表パックが壊れています：{problem}。"
            f"修正するか、環境変数{TABLES_ENV}を設定し直してください。"
        )
    detail = TableUnavailableDetail(system=system_id, command=command, reason=reason, pack=pack, message=text)
    return Outcome(text=text, detail=detail)


def find_table(ctx: RollContext, system_id: str, command: str) -> tuple[Table, str] | Outcome:
    """The table for ``command`` and its pack's path, or an outcome explaining why not."""
    tables_dir = ctx.table_packs_dir()
    if not tables_dir:
        return _unavailable(ctx, system_id, command, "no_tables_dir", None, "")
    paths = [pack_path(tables_dir, system_id)]
    if ctx.locale != "ja":
        paths.insert(0, pack_path(tables_dir, system_id, ctx.locale))
    missing_in: str | None = None
    for path in paths:
        try:
            pack = load_pack(path, system_id)
        except TablePackError as exc:
            return _unavailable(ctx, system_id, command, "pack_malformed", path, str(exc))
        if pack is None:
            continue
        table = pack.tables.get(command)
        if table is not None:
            return table, path
        if command in pack.broken:
            return _unavailable(ctx, system_id, command, "pack_malformed", path, pack.broken[command])
        missing_in = missing_in or path
    if missing_in is not None:
        return _unavailable(ctx, system_id, command, "table_missing", missing_in, "")
    return _unavailable(ctx, system_id, command, "pack_missing", paths[-1], "")


def roll_table(ctx: RollContext, system_id: str, command: str, follow_up: FollowUp | None = None) -> Outcome:
    """Roll the table ``command`` of ``system_id``: ``title(total) ＞ row``.

    With ``follow_up``, one more die is rolled after the row and printed after it, as
    ``(1D10＞7時間)``. Never raises for a missing or broken pack: see :func:`find_table`.
    """
    found = find_table(ctx, system_id, command)
    if isinstance(found, Outcome):
        return found
    table, path = found
    dice = tuple(ctx.source.roll(table.dice_sides) for _ in range(table.dice_count))
    total = sum(dice)
    row = table.row_for(total)
    english = ctx.locale == "en"
    arrow = ">" if english else "＞"
    text = f"{table.title}({total}) {arrow} {row}"
    extra: FollowUpRoll | None = None
    if follow_up is not None:
        value = ctx.source.roll(follow_up.sides)
        unit = follow_up.unit_en if english else follow_up.unit_ja
        extra = FollowUpRoll(dice=f"1D{follow_up.sides}", value=value, unit=unit)
        if english:
            text += f"(1D{follow_up.sides} > {value} {unit})"
        else:
            text += f"(1D{follow_up.sides}＞{value}{unit})"
    detail = TableRollDetail(
        system=system_id,
        command=command,
        title=table.title,
        dice_expression=table.dice,
        dice=dice,
        total=total,
        row=row,
        follow_up=extra,
        pack=path,
    )
    return Outcome(text=text, detail=detail)
