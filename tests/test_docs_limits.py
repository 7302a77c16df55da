"""The dice limits as docs/dice.md tells a user: the table's figures are the engine's own
constants (it once said 10,000 repeats and a 1,000-character line, the limits of an
earlier version), and a line past each limit reads as the table says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gm_engine.dice import limits
from gm_engine.dice.engine import evaluate

DOC = Path(__file__).resolve().parent.parent / "docs" / "dice.md"


def _limits_table() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Limits the engine adds") :]
    section = section[: section.index("\n## ", 3)]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): cells[1].strip() for cells in rows[1:]}


def _number(value: str) -> int:
    found = re.search(r"\d[\d,]*", value)
    assert found is not None, value
    return int(found.group().replace(",", ""))


@pytest.mark.parametrize(
    ("row", "constant"),
    [
        ("command word (the text before the first space)", limits.MAX_COMMAND_LENGTH),
        ("characters read: the line, plus each line a repeat runs again", limits.MAX_READ_PER_LINE),
        ("dice per line", limits.MAX_DICE_PER_LINE),
        ("commands run through nested repeats", limits.MAX_RUNS_PER_LINE),
        ("result text per line", limits.MAX_OUTPUT_PER_LINE),
    ],
)
def test_the_documented_limit_is_the_engines(row: str, constant: int) -> None:
    assert _number(_limits_table()[row]) == constant


@pytest.mark.parametrize(
    ("line", "beginning"),
    [
        ("1" * (limits.MAX_COMMAND_LENGTH + 1) + "D6", "コマンドが長すぎます"),
        # BCDice refuses X10 x10 but lets a lower-case repeat of a repeat through:
        (f"x{limits.MAX_RUNS_PER_LINE // 100 + 1} REP100 1D6", "繰り返しが多すぎます"),
        (f"x{limits.MAX_DICE_PER_LINE // 200 + 1} 200D6", "ダイスが多すぎます"),
    ],
)
def test_a_line_past_a_documented_limit_reads_as_the_table_says(line: str, beginning: str) -> None:
    result = evaluate(line, system="DiceBot", seed=1)
    assert result is not None
    assert result.text.startswith(beginning), result.text[:80]


def test_a_long_line_with_a_short_command_word_still_rolls() -> None:
    result = evaluate("2D6 " + "a" * 1500, system="DiceBot", seed=1)
    assert result is not None
    assert result.text.startswith("(2D6)"), result.text[:40]
