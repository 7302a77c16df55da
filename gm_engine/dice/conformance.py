"""Run BCDice-format TOML test vectors against the engine.

A case passes when the command's text equals ``output`` and the five flags equal the
file's (absent flags are false). ``output = ""`` means the input is not a command.
Dice come from the case's ``rands`` queue; leftovers are tolerated and reported.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gm_engine.dice.engine import evaluate
from gm_engine.dice.source import DiceError, Die, QueueSource
from gm_engine.dice.system import UnknownSystemError

FLAG_NAMES = ("secret", "success", "failure", "critical", "fumble")


class VectorFileError(ValueError):
    """A vector file cannot be read or is not in BCDice's format."""


@dataclass(frozen=True)
class Case:
    """One test vector."""

    file: str
    index: int
    game_system: str
    input: str
    output: str
    flags: dict[str, bool]
    rands: tuple[Die, ...]


@dataclass
class CaseResult:
    """The outcome of one case."""

    case: Case
    passed: bool
    got_output: str
    got_flags: dict[str, bool]
    error: str | None = None
    leftovers: tuple[Die, ...] = ()


@dataclass
class Report:
    """All cases run, with the failures kept for printing."""

    passed: int = 0
    failures: list[CaseResult] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return len(self.failures)


def load_cases(path: str | Path) -> list[Case]:
    """Read the cases of one TOML file.

    Raises:
        VectorFileError: the file is missing, not TOML, or a case lacks a field.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise VectorFileError(f"{path}: cannot read vectors: {exc}") from exc
    tests = data.get("test")
    if not isinstance(tests, list):
        raise VectorFileError(f"{path}: no [[ test ]] tables")
    cases = []
    for index, raw in enumerate(tests):
        try:
            rands = tuple(Die(int(r["value"]), int(r["sides"])) for r in raw.get("rands", []))
            cases.append(
                Case(
                    file=str(path),
                    index=index,
                    game_system=str(raw["game_system"]),
                    input=str(raw["input"]),
                    output=str(raw["output"]),
                    flags={name: bool(raw.get(name, False)) for name in FLAG_NAMES},
                    rands=rands,
                )
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise VectorFileError(f"{path}: case {index} is malformed: {exc!r}") from exc
    return cases


def run_case(case: Case, tables_dir: str | None = None) -> CaseResult:
    """Run one case with its injected dice; it never raises: an error is a failed case
    whose :attr:`CaseResult.error` says what happened."""
    source = QueueSource(case.rands)
    no_flags = dict.fromkeys(FLAG_NAMES, False)
    try:
        result = evaluate(case.input, case.game_system, source=source, tables_dir=tables_dir)
    except (DiceError, UnknownSystemError) as exc:
        return CaseResult(case, False, "", no_flags, error=str(exc), leftovers=source.leftovers)
    except Exception as exc:  # a fault of the engine: this case fails, the run goes on
        error = f"{type(exc).__name__}: {exc}"
        return CaseResult(case, False, "", no_flags, error=error, leftovers=source.leftovers)
    if result is None:
        got_output, got_flags = "", no_flags
    else:
        got_output, got_flags = result.text, result.flags
    passed = got_output == case.output and got_flags == case.flags
    return CaseResult(case, passed, got_output, got_flags, leftovers=source.leftovers)


def run_files(paths: Iterable[str | Path], tables_dir: str | None = None) -> Iterator[CaseResult]:
    """Run every case of every file, in order.

    Raises:
        VectorFileError: a file cannot be read (the cases before it were yielded).
    """
    for path in paths:
        for case in load_cases(path):
            yield run_case(case, tables_dir)


def format_failure(result: CaseResult) -> str:
    """A readable account of one failing case."""
    case = result.case
    lines = [
        f"FAIL {case.file} #{case.index} [{case.game_system}] {case.input!r}",
        f"  expected: {case.output!r}",
        f"  got:      {result.got_output!r}",
    ]
    if result.got_flags != case.flags:
        want = ",".join(name for name in FLAG_NAMES if case.flags[name]) or "-"
        got = ",".join(name for name in FLAG_NAMES if result.got_flags[name]) or "-"
        lines.append(f"  flags expected: {want}  got: {got}")
    if result.error:
        lines.append(f"  error: {result.error}")
    return "\n".join(lines)
