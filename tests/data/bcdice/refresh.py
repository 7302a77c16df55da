"""Rebuild tests/data/bcdice from a directory of BCDice test vectors.

    python tests/data/bcdice/refresh.py ../shared/bcdice

Copies every ``*.toml`` vector file and ``LICENSE-BCDice`` (BCDice's BSD 3-Clause
licence, which the copies stay under). The row texts of the game systems' random tables
are third-party prose and are not copied: for each pack under ``tables/`` this writes a
synthetic pack with the same commands, titles, dice and number of rows, whose rows are
placeholders (:func:`placeholder`), and rewrites the expected output of every vector that
rolls one of those tables so that it expects the placeholder row instead of the prose.
The result is checked: no row text of the source packs is left in any file written.
"""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def placeholder(command: str, total: int) -> str:
    """The synthetic row of ``command`` for the dice total ``total``."""
    return f"{command} row {total} (placeholder)"


def synthetic_pack(pack: dict[str, Any]) -> dict[str, Any]:
    """``pack`` with every row replaced by its placeholder (titles and dice kept)."""
    result: dict[str, Any] = {}
    for command, table in pack.items():
        count = int(str(table["dice"]).upper().split("D")[0])
        rows = [placeholder(command, count + i) for i in range(len(table["rows"]))]
        result[command] = {"title": table["title"], "dice": table["dice"], "rows": rows}
    return result


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string for these texts


def rewrite_table_outputs(text: str, system: str, pack: dict[str, Any]) -> str:
    """The vector file ``text`` with the table rows of ``system``'s outputs replaced."""
    cases = tomllib.loads(text)["test"]
    for case in cases:
        if case["game_system"] != system:
            continue
        output: str = case["output"]
        for command, table in pack.items():
            count = int(str(table["dice"]).upper().split("D")[0])
            for index, row in enumerate(table["rows"]):
                head = f"{table['title']}({count + index}) ＞ "
                if row and output.startswith(head + row):
                    new = head + placeholder(command, count + index) + output[len(head + row):]
                    old_line = f"output = {_toml_string(output)}\n"
                    if old_line not in text:
                        raise SystemExit(f"cannot find the output line of {case['input']!r} in {system}")
                    text = text.replace(old_line, f"output = {_toml_string(new)}\n")
    return text


def main(source: Path) -> int:
    packs: dict[str, dict[str, Any]] = {}
    (HERE / "tables").mkdir(exist_ok=True)
    for path in sorted((source / "tables").glob("*.json")):
        system = path.stem
        packs[system] = json.loads(path.read_text(encoding="utf-8"))
        fake = synthetic_pack(packs[system])
        (HERE / "tables" / path.name).write_text(
            json.dumps(fake, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    shutil.copyfile(source / "LICENSE-BCDice", HERE / "LICENSE-BCDice")
    for path in sorted(source.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        for system, pack in packs.items():
            text = rewrite_table_outputs(text, system, pack)
        (HERE / path.name).write_text(text, encoding="utf-8")
    prose = [row for pack in packs.values() for table in pack.values() for row in table["rows"] if row]
    for written in sorted(HERE.rglob("*")):
        if written.is_file() and written.suffix in (".toml", ".json"):
            content = written.read_text(encoding="utf-8")
            leaked = [row for row in prose if row in content]
            if leaked:
                raise SystemExit(f"{written}: table prose left in: {leaked[0]!r}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: refresh.py BCDICE_VECTORS_DIR")
    raise SystemExit(main(Path(sys.argv[1])))
