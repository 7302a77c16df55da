"""Characters, parties, encounters and battles to and from JSON files.

Every file is an envelope ``{"format": "gm_engine.combat.<kind>", "version": 1,
"data": …}``. Loading checks the JSON, the envelope and then the data against the
models' rules; any failure raises :class:`~gm_engine.combat.errors.StorageError`
naming the file and what is wrong (line and column of a JSON error, the field of a
validation error). Writing goes through a temporary file, so a crash never leaves a
half-written save.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gm_engine.combat.battle import Battle
from gm_engine.combat.characters import Character, describe_validation_error, validate_party
from gm_engine.combat.enemies import Encounter
from gm_engine.combat.errors import CombatError, StorageError
from gm_engine.combat.state import BattleState
from gm_engine.dice.source import DiceError, DiceSource, SeededSource
from gm_engine.messages.catalogue import Message
from gm_engine.messages.texts import (
    NoSuchPath,
    PathForbidden,
    PathIsFolder,
    PathNotFolder,
    SaveBattleParts,
    SaveDieDiffers,
    SaveFileProblem,
    SaveHistoryEntry,
    SaveHistoryNotList,
    SaveMember,
    SaveMissing,
    SaveNoSeed,
    SaveNotAnEnvelope,
    SaveNotJson,
    SaveNotJsonTruncated,
    SaveNotUtf8,
    SaveOtherKind,
    SavePartyNotList,
    SaveTooDeep,
    SaveVersion,
    SystemFault,
)

VERSION = 1
_PREFIX = "gm_engine.combat."


def _envelope(kind: str, data: Any) -> str:
    envelope = {"format": _PREFIX + kind, "version": VERSION, "data": data}
    return json.dumps(envelope, ensure_ascii=False, indent=1)


def _write(path: str | Path, text: str) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def loads(text: str, kind: str, where: str = "<text>") -> Any:
    """The ``data`` of an envelope of ``kind`` in ``text``.

    Raises:
        StorageError: not JSON, not an object, another kind or version.
    """
    try:
        raw = json.loads(text)
    except RecursionError:
        raise StorageError(SaveFileProblem(where, SaveTooDeep())) from None
    except json.JSONDecodeError as exc:
        not_json = SaveNotJsonTruncated if _truncated(text, exc) else SaveNotJson
        raise StorageError(SaveFileProblem(where, not_json(exc.lineno, exc.colno))) from None
    if not isinstance(raw, dict):
        raise StorageError(SaveFileProblem(where, SaveNotAnEnvelope()))
    missing = [k for k in ("format", "version", "data") if k not in raw]
    if missing:
        raise StorageError(SaveFileProblem(where, SaveMissing(", ".join(missing))))
    if raw["format"] != _PREFIX + kind:
        raise StorageError(SaveFileProblem(where, SaveOtherKind(repr(raw["format"]), repr(_PREFIX + kind))))
    if raw["version"] != VERSION:
        raise StorageError(SaveFileProblem(where, SaveVersion(repr(raw["version"]), VERSION)))
    return raw["data"]


def _truncated(text: str, exc: json.JSONDecodeError) -> bool:
    return exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated")


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StorageError(SaveFileProblem(str(path), NoSuchPath())) from None
    except UnicodeDecodeError:
        raise StorageError(SaveFileProblem(str(path), SaveNotUtf8())) from None
    except OSError as exc:
        fault = _READ_FAULTS.get(exc.errno or 0)
        problem = fault() if fault else SystemFault(errno.errorcode.get(exc.errno or 0, type(exc).__name__))
        raise StorageError(SaveFileProblem(str(path), problem)) from None


#: Why a file could not be read, in the player's words (the symbolic errno name otherwise).
_READ_FAULTS: dict[int, type[Message]] = {
    errno.ENOENT: NoSuchPath,
    errno.EACCES: PathForbidden,
    errno.EPERM: PathForbidden,
    errno.EISDIR: PathIsFolder,
    errno.ENOTDIR: PathNotFolder,
}


M = TypeVar("M", bound=BaseModel)


def _validate(model: type[M], data: Any, where: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise StorageError(SaveFileProblem(where, describe_validation_error(exc, model))) from None


def _member(data: Any, where: str, number: int) -> Character:
    """Member ``number`` (1-based) of a saved party."""
    try:
        return Character.model_validate(data)
    except ValidationError as exc:
        problem = SaveMember(number, describe_validation_error(exc, Character))
        raise StorageError(SaveFileProblem(where, problem)) from None


# -- characters, parties, encounters -----------------------------------------------------------------


def dumps_character(character: Character) -> str:
    """A character as envelope JSON."""
    return _envelope("character", character.model_dump(mode="json"))


def loads_character(text: str, where: str = "<text>") -> Character:
    """A character from envelope JSON.

    Raises:
        StorageError: bad JSON, wrong kind, or data that breaks a rule.
    """
    return _validate(Character, loads(text, "character", where), where)


def save_character(path: str | Path, character: Character) -> None:
    """Write a character file."""
    _write(path, dumps_character(character))


def load_character(path: str | Path) -> Character:
    """Read a character file.

    Raises:
        StorageError: unreadable or invalid (the message says what is wrong).
    """
    return loads_character(_read(path), str(path))


def dumps_party(party: Sequence[Character]) -> str:
    """A party as envelope JSON."""
    return _envelope("party", [c.model_dump(mode="json") for c in validate_party(party)])


def loads_party(text: str, where: str = "<text>") -> tuple[Character, ...]:
    """A party from envelope JSON.

    Raises:
        StorageError: bad JSON, wrong kind, an invalid member, duplicate names.
    """
    data = loads(text, "party", where)
    if not isinstance(data, list):
        raise StorageError(SaveFileProblem(where, SavePartyNotList()))
    members = [_member(item, where, i + 1) for i, item in enumerate(data)]
    try:
        return validate_party(members)
    except CombatError as exc:
        raise StorageError(SaveFileProblem(where, exc.explanation())) from None


def save_party(path: str | Path, party: Sequence[Character]) -> None:
    """Write a party file."""
    _write(path, dumps_party(party))


def load_party(path: str | Path) -> tuple[Character, ...]:
    """Read a party file.

    Raises:
        StorageError: unreadable or invalid.
    """
    return loads_party(_read(path), str(path))


def dumps_encounter(encounter: Encounter) -> str:
    """An encounter as envelope JSON."""
    return _envelope("encounter", encounter.model_dump(mode="json"))


def loads_encounter(text: str, where: str = "<text>") -> Encounter:
    """An encounter from envelope JSON.

    Raises:
        StorageError: bad JSON, wrong kind, or invalid enemies.
    """
    return _validate(Encounter, loads(text, "encounter", where), where)


def save_encounter(path: str | Path, encounter: Encounter) -> None:
    """Write an encounter file."""
    _write(path, dumps_encounter(encounter))


def load_encounter(path: str | Path) -> Encounter:
    """Read an encounter file.

    Raises:
        StorageError: unreadable or invalid.
    """
    return loads_encounter(_read(path), str(path))


# -- battles --------------------------------------------------------------------------------------------


def dumps_battle(battle: Battle) -> str:
    """A battle as envelope JSON, with the dice it has drawn (to restore a seeded source)."""
    state = battle.state.model_dump(mode="json")
    dice = [[d.value, d.sides] for d in battle.source.history]
    return _envelope("battle", {"state": state, "source_history": dice})


def loads_battle(text: str, source: DiceSource | None = None, where: str = "<text>") -> Battle:
    """A battle from envelope JSON.

    Without ``source``, the battle must have been started with a seed: a
    :class:`SeededSource` of that seed is fast-forwarded over the recorded dice (and
    checked against them), so the battle goes on exactly as it would have.

    Raises:
        StorageError: bad JSON or state, no seed and no source, or recorded dice that the
            seed does not reproduce.
    """
    data = loads(text, "battle", where)
    if not isinstance(data, dict) or "state" not in data:
        raise StorageError(SaveFileProblem(where, SaveBattleParts()))
    state = _validate(BattleState, data["state"], where)
    if source is None:
        if state.seed is None:
            raise StorageError(SaveFileProblem(where, SaveNoSeed()))
        source = SeededSource(state.seed)
        history = data.get("source_history", [])
        if not isinstance(history, list):
            raise StorageError(SaveFileProblem(where, SaveHistoryNotList()))
        try:
            for i, entry in enumerate(history):
                value, sides = int(entry[0]), int(entry[1])
                if source.roll(sides) != value:
                    raise StorageError(SaveFileProblem(where, SaveDieDiffers(i + 1, repr(state.seed))))
        except (TypeError, ValueError, IndexError, DiceError) as exc:
            if isinstance(exc, StorageError):
                raise
            raise StorageError(SaveFileProblem(where, SaveHistoryEntry(repr(entry)))) from None
    return Battle.from_state(state, source)


def save_battle(path: str | Path, battle: Battle) -> None:
    """Write a battle file."""
    _write(path, dumps_battle(battle))


def load_battle(path: str | Path, source: DiceSource | None = None) -> Battle:
    """Read a battle file (see :func:`loads_battle`).

    Raises:
        StorageError: unreadable or invalid.
    """
    return loads_battle(_read(path), source, str(path))
