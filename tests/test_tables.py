"""Table packs: loaded from GM_TABLES_DIR, missing or broken packs answered, never raised."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Locale, RollResult
from gm_engine.dice.source import QueueSource, SeededSource
from gm_engine.dice.system import RollContext
from gm_engine.dice.systems import tables
from gm_engine.dice.systems.registry import get_system
from gm_engine.dice.systems.tables import TablePackError, TableRollDetail, TableUnavailableDetail, load_pack

SYSTEM = "Cthulhu7th"


@pytest.fixture
def pack_dir(placeholder_pack_dir: Path) -> Path:
    """The shipped pack: the project's layout of Cthulhu7th's tables, placeholder rows."""
    return placeholder_pack_dir


def roll(
    line: str, dice: list[tuple[int, int]], tables_dir: str | Path | None, locale: Locale = "ja"
) -> RollResult:
    result = evaluate(
        line,
        SYSTEM,
        source=QueueSource(dice),
        locale=locale,
        tables_dir=None if tables_dir is None else str(tables_dir),
    )
    assert result is not None
    return result


def write_pack(directory: Path, content: object, name: str = "Cthulhu7th.json") -> Path:
    path = directory / name
    path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return path


def small_table(title: str = "テスト表", dice: str = "1D4", rows: int = 4) -> dict[str, object]:
    return {"title": title, "dice": dice, "rows": [f"行{n}" for n in range(1, rows + 1)]}


@pytest.mark.parametrize(
    "line,dice,text",
    [
        ("PH", [(1, 100)], "恐怖症表(1) ＞ PH row 1 (placeholder)"),
        ("MA", [(100, 100)], "マニア表(100) ＞ MA row 100 (placeholder)"),
        ("FCM", [(3, 8)], "キャスティング・ロール失敗(大)表(3) ＞ FCM row 3 (placeholder)"),
        ("fcm", [(3, 8)], "キャスティング・ロール失敗(大)表(3) ＞ FCM row 3 (placeholder)"),
    ],
)
def test_table_row_is_read_from_the_pack(
    line: str, dice: list[tuple[int, int]], text: str, pack_dir: Path
) -> None:
    result = roll(line, dice, pack_dir)
    assert result.text == text
    detail = result.detail
    assert isinstance(detail, TableRollDetail)
    assert detail.pack == os.path.abspath(pack_dir / "Cthulhu7th.json")
    assert detail.total == dice[0][0] and detail.dice_expression in ("1D100", "1D8")


def test_bouts_of_madness_add_a_duration_roll(pack_dir: Path) -> None:
    result = roll("BMS", [(7, 10), (7, 10)], pack_dir)
    assert result.text.endswith("(1D10＞7時間)")
    assert result.dice == ((7, 10), (7, 10))


def test_without_tables_dir_the_answer_names_the_pack_and_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GM_TABLES_DIR", raising=False)
    result = roll("BMR", [], None)
    assert "Cthulhu7th.json" in result.text and "GM_TABLES_DIR" in result.text
    assert result.dice == () and not any(result.flags.values())
    detail = result.detail
    assert isinstance(detail, TableUnavailableDetail) and detail.reason == "no_tables_dir"


def test_tables_dir_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, pack_dir: Path) -> None:
    monkeypatch.setenv("GM_TABLES_DIR", str(pack_dir))
    assert roll("PH", [(1, 100)], None).text.startswith("恐怖症表(1) ＞ ")


def test_missing_pack_file_is_named(tmp_path: Path) -> None:
    result = roll("PH", [], tmp_path)
    detail = result.detail
    assert isinstance(detail, TableUnavailableDetail) and detail.reason == "pack_missing"
    assert str(tmp_path / "Cthulhu7th.json") in result.text and "GM_TABLES_DIR" in result.text


def test_pack_without_the_table_is_named(tmp_path: Path) -> None:
    write_pack(tmp_path, {"PH": small_table(dice="1D100", rows=100)})
    result = roll("MA", [], tmp_path)
    detail = result.detail
    assert isinstance(detail, TableUnavailableDetail) and detail.reason == "table_missing"
    assert "MA" in result.text


@pytest.mark.parametrize(
    "content,problem",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_malformed_pack_gives_a_clear_message(tmp_path: Path, content: str, problem: str) -> None:
    (tmp_path / "Cthulhu7th.json").write_text(content, encoding="utf-8")
    result = roll("PH", [], tmp_path, locale="en")
    detail = result.detail
    assert isinstance(detail, TableUnavailableDetail) and detail.reason == "pack_malformed"
    assert problem in result.text and result.dice == ()


def test_a_broken_table_does_not_break_the_rest_of_the_pack(tmp_path: Path) -> None:
    write_pack(
        tmp_path,
        {"FCL": small_table(dice="1D8", rows=7), "FCM": small_table(dice="1D8", rows=8), "PH": "oops"},
    )
    broken = roll("FCL", [], tmp_path, locale="en")
    assert isinstance(broken.detail, TableUnavailableDetail)
    assert "1D8 needs 8 rows, the pack has 7" in broken.text
    assert "must be an object" in roll("PH", [], tmp_path, locale="en").text
    assert roll("FCM", [(2, 8)], tmp_path).text == "テスト表(2) ＞ 行2"


def test_dice_expression_is_validated(tmp_path: Path) -> None:
    write_pack(tmp_path, {"PH": small_table(dice="D100")})
    assert "dice must look like 1D100" in roll("PH", [], tmp_path, locale="en").text


def test_packs_are_cached_per_path_and_reloaded_when_changed(tmp_path: Path) -> None:
    path = write_pack(tmp_path, {"FCL": small_table(dice="1D8", rows=8)})
    first = load_pack(str(path), SYSTEM)
    assert first is not None and load_pack(str(path), SYSTEM) is first
    write_pack(tmp_path, {"FCL": small_table(title="新しい表", dice="1D8", rows=8)})
    os.utime(path, ns=(1, 1))  # a different stamp even within the clock's resolution
    second = load_pack(str(path), SYSTEM)
    assert second is not None and second is not first and second.tables["FCL"].title == "新しい表"


def test_load_pack_raises_only_for_a_malformed_file(tmp_path: Path) -> None:
    assert load_pack(str(tmp_path / "absent.json"), SYSTEM) is None
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(TablePackError):
        load_pack(str(tmp_path / "bad.json"), SYSTEM)


def test_english_pack_is_preferred_for_the_english_locale(tmp_path: Path) -> None:
    write_pack(tmp_path, {"FCL": small_table(dice="1D8", rows=8)})
    english = {"FCL": small_table(title="Casting table", dice="1D8", rows=8)}
    write_pack(tmp_path, english, "Cthulhu7th.en.json")
    assert roll("FCL", [(1, 8)], tmp_path, locale="en").text == "Casting table(1) > 行1"
    assert roll("FCL", [(1, 8)], tmp_path).text == "テスト表(1) ＞ 行1"
    write_pack(tmp_path, {}, "Cthulhu7th.en.json")
    assert roll("FCL", [(1, 8)], tmp_path, locale="en").text == "テスト表(1) > 行1"


def test_english_message_for_missing_pack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GM_TABLES_DIR", raising=False)
    text = roll("MA", [], None, locale="en").text
    assert text.startswith("Table MA needs the Cthulhu7th table pack (Cthulhu7th.json)")
    assert tables.TABLES_ENV in text


def test_out_of_range_injected_total_reads_like_ruby(tmp_path: Path) -> None:
    write_pack(tmp_path, {"FCL": small_table(dice="1D8", rows=8)})
    assert roll("FCL", [(0, 8)], tmp_path).text == "テスト表(0) ＞ 行8"
    assert roll("FCL", [(20, 8)], tmp_path).text == "テスト表(20) ＞ "


def test_tables_dir_that_is_a_file_reads_as_a_missing_pack(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("x", encoding="utf-8")
    detail = roll("PH", [], not_a_dir).detail
    assert isinstance(detail, TableUnavailableDetail) and detail.reason == "pack_missing"


def test_deeply_nested_json_is_a_malformed_pack_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "Cthulhu7th.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    detail = roll("PH", [], tmp_path).detail
    assert isinstance(detail, TableUnavailableDetail) and detail.reason == "pack_malformed"


def test_the_environment_is_read_when_a_table_is_rolled(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ctx = RollContext(source=SeededSource(1), system=get_system("Cthulhu7th"))
    monkeypatch.setenv("GM_TABLES_DIR", str(tmp_path))
    assert ctx.table_packs_dir() == str(tmp_path)  # the context was made before the variable was set
    monkeypatch.delenv("GM_TABLES_DIR")
    assert ctx.table_packs_dir() is None
    explicit = RollContext(source=SeededSource(1), system=get_system("Cthulhu7th"), tables_dir="")
    monkeypatch.setenv("GM_TABLES_DIR", str(tmp_path))
    assert explicit.table_packs_dir() == ""  # an explicit value, even empty, wins
