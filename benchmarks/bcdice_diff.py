"""Differential test of gm's dice engine against BCDice itself.

Generates chat lines for each game system (valid forms of every command, edge cases,
malformed and mutated forms: case and width variants, look-alike letters, huge
numbers, nesting, comments), runs every line through BCDice (Ruby, via
``benchmarks/bcdice_diff.rb``) and through gm with the same injected dice, and reports
where the two differ: text, the five flags and the dice drawn.

    python benchmarks/bcdice_diff.py --bcdice DIR [--count 4000] [--seed 1] [--show 20]

DIR is a BCDice laid by ``../shared/bcdice-bench/bcdice.sh`` (Debian's Ruby). The dice
are a 64-bit LCG seeded per line, implemented identically on both sides, so each
engine draws the same face for the same sequence of sides. Where BCDice raises (too
many dice, division by zero in some commands) and gm answers with an error result,
the line is counted apart ("BCDice raised"), not as a difference. Nothing here is a
test of the suite: it needs Ruby and BCDice, and prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from gm_engine.dice.engine import ErrorDetail, evaluate
from gm_engine.dice.source import DiceSource

HERE = Path(__file__).resolve().parent
SYSTEMS = ("DiceBot", "Cthulhu", "Cthulhu7th", "TheOneRing2nd")
_MASK = (1 << 64) - 1


class LcgSource(DiceSource):
    """The dice of ``bcdice_diff.rb``'s ``LcgRandomizer``: the same faces for the same seed."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._state = seed & _MASK

    def _draw(self, sides: int) -> int:
        self._state = (self._state * 6_364_136_223_846_793_005 + 1_442_695_040_888_963_407) & _MASK
        return ((self._state >> 33) % sides) + 1

    def _get_state(self) -> object:
        return self._state

    def _set_state(self, state: object) -> None:
        assert isinstance(state, int)
        self._state = state


# ------------------------------------------------------------------------------------
# Line generation
# ------------------------------------------------------------------------------------

Gen = Callable[[random.Random], str]


def _num(r: random.Random) -> str:
    return r.choice(
        [
            str(r.randint(0, 9)),
            str(r.randint(1, 20)),
            str(r.randint(1, 100)),
            str(r.randint(0, 300)),
            r.choice(
                ["0", "00", "01", "199", "200", "201", "9999", "10000", "10001", "99999999999999999999"]
            ),
        ]
    )


def _small(r: random.Random) -> str:
    return str(r.choice([0, 1, 2, 3, 4, 5, 6, 10, 12, 20, 100]))


def _sides(r: random.Random) -> str:
    return r.choice(["6", "10", "100", "20", "4", "1", "0", "66", "10000", "10001", "3", ""])


def _cmp(r: random.Random) -> str:
    return r.choice([">=", "<=", ">", "<", "=", "==", "<>", "!=", "=<", "=>", "=!", "<==", "<<=", "><", "!"])


def _arith(r: random.Random, depth: int = 0) -> str:
    kind = r.randint(0, 5 if depth < 3 else 1)
    if kind <= 1:
        return _small(r) if r.random() < 0.7 else _num(r)
    if kind == 2:
        return f"({_arith(r, depth + 1)})"
    if kind == 3:
        return f"-{_arith(r, depth + 1)}"
    op = r.choice(["+", "-", "*", "/", "/", "+", "*"])
    suffix = r.choice(["", "", "", "U", "C", "R", "F", "u", "r"]) if op == "/" else ""
    return f"{_arith(r, depth + 1)}{op}{_arith(r, depth + 1)}{suffix}"


def _dice_term(r: random.Random) -> str:
    count = r.choice(["1", "2", "3", "10", "0", "200", "201", _small(r), ""])
    base = f"{count}D{_sides(r)}"
    if r.random() < 0.25:
        base += r.choice(["KH", "KL", "DH", "DL", "kh", "H", "L"]) + r.choice(["", "1", "2", "5", "0"])
    if r.random() < 0.1:
        base = f"({base})"
    return base


def _add_dice(r: random.Random) -> str:
    parts = [_dice_term(r)]
    for _ in range(r.randint(0, 3)):
        parts.append(r.choice(["+", "-", "*", "/"]))
        parts.append(_dice_term(r) if r.random() < 0.4 else _arith(r, 2))
    text = "".join(parts)
    if r.random() < 0.15:
        text = r.choice(["-", "+", "("]) + text + (")" if text.startswith("(") else "")
    if r.random() < 0.1:
        text = (
            r.choice(["MAX", "MIN", "max"]) + "(" + text + ")"
            if r.random() < 0.3
            else text + r.choice(["U", "R", "C", "F"])
        )
    if r.random() < 0.5:
        text += _cmp(r) + r.choice([_num(r), "?", _arith(r, 2), ""])
    return text


def _pool(r: random.Random) -> str:
    letter = r.choice(["B", "R", "U", "b", "r", "u"])
    text = f"{r.choice(['1', '2', '3', '5', '10', '0', '200', '201', _small(r)])}{letter}{_sides(r)}"
    for _ in range(r.randint(0, 2)):
        text += f"+{r.choice(['1', '2', '3'])}{letter}{_sides(r)}"
    if letter in "RrUu" and r.random() < 0.7:
        text += f"[{r.choice(['1', '2', '5', '6', '10', '0', '', 'x'])}]"
    if letter in "Uu" and r.random() < 0.3:
        text += r.choice(["+1", "-2", "+10", "*2"])
    if r.random() < 0.6:
        text += _cmp(r) + r.choice(["1", "3", "4", "6", "10", "0", "?", ""])
    return text


def _tally(r: random.Random) -> str:
    times = r.choice(["1", "3", "10", "0", "200", "201"])
    kind = r.choice(["Y", "Z", "y", "z", "X"])
    return f"{times}T{kind}{r.choice(['6', '10', '20', '21', '1', '0', ''])}"


def _items(r: random.Random, sep: str) -> str:
    pool = ["A", "B", "C", "刀", "剣", " x ", "", "1", "a b", "(", ")", "[", "]", "A-D", "1-5", "b-g", "Z-A"]
    count = r.choice([1, 2, 3, 5, 100, 101])
    return sep.join(r.choice(pool) for _ in range(count))


def _choice(r: random.Random) -> str:
    head = r.choice(["choice", "CHOICE", "Choice", "choıce", "choİce", "chOice"])
    takes = r.choice(["", "", "2", "0", "3", "10"])
    form = r.randint(0, 2)
    if form == 0:
        return f"{head}{takes}[{_items(r, ',')}]"
    if form == 1:
        return f"{head}{takes}({_items(r, ',')})"
    return f"{head}{takes} {_items(r, ' ')}"


def _d66(r: random.Random) -> str:
    return r.choice(["D66", "d66", "D66A", "D66D", "D66N", "D66S", "1D66", "D666", "D66a"])


def _calc(r: random.Random) -> str:
    return r.choice(["C(", "c(", "C", "C("]) + _arith(r) + r.choice([")", ")", "", "))"])


def _repeat(r: random.Random, system: str) -> str:
    head = r.choice(["x", "rep", "repeat", "X", "REP", "Repeat"])
    times = r.choice(["1", "2", "3", "0", "100", "101", "5"])
    inner = (
        r.choice([_add_dice, _pool, _calc, _choice, _d66])(r) if r.random() < 0.5 else _system_line(r, system)
    )
    if r.random() < 0.1:
        inner = f"{r.choice(['x', 'rep', 'REP', 'X'])}{r.choice(['2', '3'])} {inner}"
    return f"{head}{times} {inner}"


def _cc6(r: random.Random) -> str:
    head = r.choice(["CC", "CCB", "cc", "ccb", "Cc"])
    mal = r.choice(["", "", "", "(1)", "(95)", "(-1)", "(0)", "1", "(3+2)", "(x)"])
    mod = r.choice(["", "", "", "+1", "-10", "+"])
    target = r.choice(
        [
            "",
            f"<={_num(r)}",
            f"<={_arith(r, 1)}",
            "<=30-30",
            "<=10.5",
            "<=2**3",
            "<=8//2",
            "<=5+",
            f"<={_small(r)}/2R",
            "<=(12*5)-20",
            f"=<{_small(r)}",
            "<==50",
            "<<=50",
            ">=50",
            "<=-5",
            "<=0",
        ]
    )
    return f"{head}{mal}{mod}{target}"


def _res6(r: random.Random) -> str:
    return (
        r.choice(["RES", "RESB", "res", "resb"])
        + r.choice(["", "("])
        + f"{_small(r)}-{_small(r)}"
        + r.choice(["", ")"])
    )


def _cbr(r: random.Random) -> str:
    return r.choice(["CBR", "CBRB", "cbr", "cbrb"]) + f"({_num(r)},{_num(r)})" + r.choice(["", "", "x", ")"])


def _cc7(r: random.Random) -> str:
    head = r.choice(["CC", "cc", "Cc"])
    bonus = r.choice(
        ["", "", "(1)", "(2)", "(-1)", "(-2)", "(3)", "(0)", "1", "(5/2f)", "(3/2r)", "(3/2R)", "(1+1)"]
    )
    target = r.choice(["", f"<={_num(r)}", f"<={_arith(r, 1)}", "<=50", "<=101", "<=0", ">=50"])
    diff = r.choice(["", "", "r", "h", "e", "c", "R", "H", "x"])
    return f"{head}{bonus}{target}{diff}"


def _far(r: random.Random) -> str:
    args = [_small(r), _num(r), r.choice(["98", "100", "95", "0"])]
    for extra in (
        r.choice(["", "0", "1", "-1", "2", "-2", "3"]),
        r.choice(["", "r", "h", "e", "x"]),
        r.choice(["", "3", "0"]),
    ):
        if extra or r.random() < 0.3:
            args.append(extra)
    return r.choice(["FAR", "far"]) + "(" + ",".join(args) + ")"


def _table7(r: random.Random) -> str:
    return r.choice(["BMR", "BMS", "PH", "MA", "FCL", "FCM", "bmr", "SBMR", "PHX"])


def _tor(r: random.Random) -> str:
    head = f"{r.choice(['1', '3', '10', '0', '14', '20'])}{r.choice(['RG', 'rg', 'Rg'])}"
    head += r.choice(["", "1", "2", "3", "6", "0", "200", "201"])
    if r.random() < 0.4:
        head += f"@{r.choice(['10', '12', '0', '9', ''])}"
    if r.random() < 0.3:
        head += f"A{r.choice(['1', '-1', '0', '3', ''])}"
    for _ in range(r.randint(0, 3)):
        head += r.choice(["f", "i", "w", "m", "F", "I"]) + r.choice(["", "", "1", "0", "-1"])
    return head


def _fd(r: random.Random) -> str:
    return r.choice(["FD", "fd"]) + r.choice(["", "1", "-1", "3", "+2"]) + r.choice(["", "f", "i", "fi"])


def _system_line(r: random.Random, system: str) -> str:
    gens: Sequence[Gen] = {
        "DiceBot": [_add_dice],
        "Cthulhu": [_cc6, _cc6, _res6, _cbr],
        "Cthulhu7th": [_cc7, _cc7, _cbr, _far, _table7],
        "TheOneRing2nd": [_tor, _tor, _fd],
    }[system]
    return r.choice(gens)(r)


_LOOK_ALIKES = ["ı", "İ", "ſ", "K", "＋", "１", "Ｄ", "\u3000", "\t", "\0", "ß", "Ω"]


def _mutate(r: random.Random, text: str) -> str:
    kind = r.randint(0, 6)
    if not text:
        return text
    at = r.randrange(len(text))
    if kind == 0:
        return text[:at] + text[at + 1 :]
    if kind == 1:
        return text[:at] + r.choice("0123456789+-*/()<>=,@[]DCBRUSdcx") + text[at:]
    if kind == 2:
        return text.swapcase()
    if kind == 3:
        return text[:at] + r.choice(_LOOK_ALIKES) + text[at:]
    if kind == 4:
        return text + text[at:]
    if kind == 5:
        return "S" + text
    return text[:at] + text[at:].lower()


def generate(system: str, count: int, seed: int) -> Iterator[str]:
    """``count`` lines for ``system``: its own commands, the common ones, mutations."""
    r = random.Random(f"{system}:{seed}")
    common: list[Gen] = [_add_dice, _add_dice, _pool, _tally, _choice, _d66, _calc]
    for _ in range(count):
        roll = r.random()
        if roll < 0.45:
            line = _system_line(r, system)
        elif roll < 0.8:
            line = r.choice(common)(r)
        elif roll < 0.87:
            line = _repeat(r, system)
        else:
            line = r.choice(
                ["BCDiceVersion", "bcdiceversion", "SBCDiceVersion", "BCDıceVersion", "BCDiceVersion2"]
            )
        if r.random() < 0.25:
            line = _mutate(r, line)
        if r.random() < 0.1:
            line = "S" + line
        if r.random() < 0.15:
            line += r.choice([" 目星", " comment here", "\tx", " " + "長" * r.choice([10, 1200])])
        yield line


# ------------------------------------------------------------------------------------
# Running both
# ------------------------------------------------------------------------------------


def gm_answer(system: str, line: str, seed: int, tables_dir: str | None = None) -> dict[str, Any]:
    """gm's answer in the shape of ``bcdice_diff.rb``'s."""
    try:
        result = evaluate(line, system, source=LcgSource(seed), tables_dir=tables_dir)
    except Exception as exc:  # a crash is a finding, reported as such
        return {"error": f"gm raised {type(exc).__name__}: {exc}"}
    if result is None:
        return {"none": True}
    answer: dict[str, Any] = {"text": result.text, **result.flags, "rands": [list(d) for d in result.dice]}
    if isinstance(result.detail, ErrorDetail):
        answer["refused"] = result.detail.reason
    return answer


def run_bcdice(bcdice: Path, cases: list[dict[str, Any]], ruby: str) -> list[dict[str, Any]]:
    """BCDice's answers to ``cases``, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "cases.jsonl"
        source.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
        with source.open("rb") as stdin:
            proc = subprocess.run(
                [ruby, str(HERE / "bcdice_diff.rb"), str(bcdice)],
                stdin=stdin,
                capture_output=True,
                check=False,
            )
    if proc.returncode != 0:
        sys.exit(f"bcdice_diff.rb failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[-2000:]}")
    answers = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
    if len(answers) != len(cases):
        sys.exit(f"bcdice_diff.rb answered {len(answers)} of {len(cases)} cases")
    return answers


def _kind(bcdice: dict[str, Any], gm: dict[str, Any]) -> str:
    if "error" in bcdice:
        return "bcdice raised, gm refused" if "refused" in gm else "bcdice raised, gm answered"
    if bcdice.get("none") and not gm.get("none"):
        return "gm answered, BCDice not a command"
    if gm.get("none") and not bcdice.get("none"):
        return "BCDice answered, gm not a command"
    if "error" in gm:
        return "gm crashed"
    same = {k: v for k, v in gm.items() if k != "refused"} == bcdice
    if same:
        return "same"
    if gm.get("text") != bcdice.get("text"):
        return "text differs"
    if gm.get("rands") != bcdice.get("rands"):
        return "dice differ"
    return "flags differ"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bcdice", required=True, type=Path, help="a BCDice laid by bcdice.sh")
    parser.add_argument("--count", type=int, default=4000, help="lines per system (default 4000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--show", type=int, default=20, help="differences to print (default 20)")
    parser.add_argument("--ruby", default="ruby")
    parser.add_argument(
        "--tables",
        default=os.environ.get("GM_TABLES_DIR"),
        help="table packs for gm (default: $GM_TABLES_DIR)",
    )
    parser.add_argument("--save", type=Path, default=None, help="write every difference as JSON lines here")
    parser.add_argument(
        "--lines",
        type=Path,
        default=None,
        help="compare these lines (SYSTEM<TAB>LINE each) instead of generated ones",
    )
    args = parser.parse_args(argv)

    if args.lines is not None:
        pairs = [
            row.split("\t", 1) for row in args.lines.read_text(encoding="utf-8").splitlines() if "\t" in row
        ]
    else:
        pairs = [
            [system, line]
            for system in args.systems.split(",")
            for line in generate(system, args.count, args.seed)
        ]
    cases = [
        {"system": system, "input": line, "seed": (args.seed * 1_000_003 + index) & _MASK}
        for index, (system, line) in enumerate(pairs)
    ]
    answers = run_bcdice(args.bcdice, cases, args.ruby)
    kinds: Counter[str] = Counter()
    by_system: dict[str, Counter[str]] = {}
    differences: list[dict[str, Any]] = []
    for case, theirs in zip(cases, answers, strict=True):
        ours = gm_answer(case["system"], case["input"], case["seed"], args.tables)
        kind = _kind(theirs, ours)
        kinds[kind] += 1
        by_system.setdefault(case["system"], Counter())[kind] += 1
        if kind not in ("same", "bcdice raised, gm refused"):
            differences.append({**case, "kind": kind, "bcdice": theirs, "gm": ours})

    compared = len(cases) - kinds["bcdice raised, gm refused"]
    raised = kinds["bcdice raised, gm refused"]
    print(f"{len(cases)} lines, seed {args.seed}; BCDice raised on {raised} (gm refused them)")
    for system, counter in by_system.items():
        total = sum(counter.values()) - counter["bcdice raised, gm refused"]
        print(f"  {system:14} {counter['same']}/{total} match ({100 * counter['same'] / max(total, 1):.2f}%)")
    for kind, n in kinds.most_common():
        print(f"  {kind}: {n}")
    print(f"match rate: {kinds['same']}/{compared} = {100 * kinds['same'] / max(compared, 1):.2f}%")
    for diff in differences[: args.show]:
        print(json.dumps(diff, ensure_ascii=False)[:600])
    if args.save is not None:
        args.save.write_text(
            "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in differences), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
