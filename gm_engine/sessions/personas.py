"""The eight AI personas of the werewolf game: their data files and their notes.

A persona file (``personas/<id>.toml``) holds a persona's name, seat, everyday manner,
manner as a werewolf and a few sample lines in its voice. The werewolf manner and the
``werewolf_cover`` lines are used only while that persona's own role is 人狼.

:func:`load_personas` reads and validates all eight; every problem (a missing field, a
seat taken twice, a template with an unknown placeholder) raises :class:`PersonaError`
naming the file and what was wrong. :class:`Notes` is a persona's own memory between
turns, at most :data:`MAX_NOTE_LINES` lines (the rules' MEMO limit, kept as a context
budget).
"""

from __future__ import annotations

import os
import string
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from gm_engine.tools.werewolf import MAX_NOTE_CHARS, MAX_NOTE_LINES

__all__ = [
    "MAX_NOTE_CHARS",
    "MAX_NOTE_LINES",
    "PERSONA_SEATS",
    "VOICE_PLACEHOLDERS",
    "Notes",
    "NotesError",
    "Persona",
    "PersonaError",
    "Voice",
    "default_personas_dir",
    "load_persona",
    "load_personas",
    "validate_cast",
]

PERSONA_SEATS = range(2, 10)


class PersonaError(ValueError):
    """A persona file is missing, unreadable or invalid."""


class NotesError(ValueError):
    """Notes with more lines, or longer lines, than a persona may keep."""


# Which placeholders each kind of sample line may use; a line may use fewer.
VOICE_PLACEHOLDERS: dict[str, frozenset[str]] = {
    "opening": frozenset(),
    "suspect": frozenset({"target"}),
    "trust": frozenset({"target"}),
    "defend": frozenset(),
    "request_seer": frozenset(),
    "request_medium": frozenset(),
    "decline": frozenset(),
    "claim": frozenset({"role"}),
    "result": frozenset({"target", "color"}),
    "vote_reason": frozenset({"target"}),
    "werewolf_cover": frozenset({"target"}),
}


def _placeholders(template: str) -> set[str]:
    names: set[str] = set()
    for _, field_name, _, _ in string.Formatter().parse(template):
        if field_name is not None:
            names.add(field_name)
    return names


class Voice(BaseModel):
    """Sample lines in a persona's voice: examples for a model, templates for the offline one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    opening: tuple[str, ...] = Field(min_length=1)
    suspect: tuple[str, ...] = Field(min_length=1)
    trust: tuple[str, ...] = Field(min_length=1)
    defend: tuple[str, ...] = Field(min_length=1)
    request_seer: tuple[str, ...] = Field(min_length=1)
    request_medium: tuple[str, ...] = Field(min_length=1)
    decline: tuple[str, ...] = Field(min_length=1)
    claim: tuple[str, ...] = Field(min_length=1)
    result: tuple[str, ...] = Field(min_length=1)
    vote_reason: tuple[str, ...] = Field(min_length=1)
    werewolf_cover: tuple[str, ...] = Field(min_length=1)

    @field_validator("*")
    @classmethod
    def _check_lines(cls, lines: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        kind = str(info.field_name)
        allowed = VOICE_PLACEHOLDERS[kind]
        for line in lines:
            if not line.strip():
                raise ValueError(f"{kind}: an empty line")
            if "\n" in line:
                raise ValueError(f"{kind}: a line spans several lines: {line!r}")
            try:
                used = _placeholders(line)
            except ValueError as exc:
                raise ValueError(f"{kind}: broken braces in {line!r} ({exc})") from None
            unknown = used - allowed
            if unknown:
                allowed_text = ", ".join(f"{{{name}}}" for name in sorted(allowed)) or "none"
                raise ValueError(
                    f"{kind}: unknown placeholder {', '.join(sorted(unknown))} in {line!r} "
                    f"(allowed: {allowed_text})"
                )
        return lines

    def everyday_lines(self) -> dict[str, tuple[str, ...]]:
        """Every kind of sample line except the werewolf-only one."""
        data = self.model_dump()
        data.pop("werewolf_cover")
        return {kind: tuple(lines) for kind, lines in data.items()}


class Persona(BaseModel):
    """One AI persona: who it is, where it sits, how it talks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1, max_length=20)
    seat: int
    first_person: str = Field(min_length=1, max_length=10)
    manner: str = Field(min_length=1)
    werewolf_manner: str = Field(min_length=1)
    voice: Voice

    @field_validator("seat")
    @classmethod
    def _check_seat(cls, seat: int) -> int:
        if seat not in PERSONA_SEATS:
            raise ValueError(f"seat must be 2..9 (P1 is the human), not {seat}")
        return seat

    @field_validator("manner", "werewolf_manner")
    @classmethod
    def _strip(cls, text: str) -> str:
        stripped = text.strip()
        if not stripped:
            raise ValueError("must not be blank")
        return stripped

    @property
    def label(self) -> str:
        """The seat label, ``P2`` .. ``P9``."""
        return f"P{self.seat}"


def default_personas_dir() -> Path:
    """``$GM_PERSONAS_DIR``, else ``personas/`` at the project root (a checkout or an
    editable install), else the copy a wheel ships as ``gm_engine/personas``."""
    env = os.environ.get("GM_PERSONAS_DIR")
    if env:
        return Path(env)
    project = Path(__file__).resolve().parents[2] / "personas"
    packaged = Path(__file__).resolve().parents[1] / "personas"
    return project if project.is_dir() or not packaged.is_dir() else packaged


def load_persona(path: Path) -> Persona:
    """Read and validate one persona file.

    Raises:
        PersonaError: the file is missing, not TOML, or not a valid persona.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PersonaError(f"{path}: cannot read persona file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise PersonaError(f"{path}: not UTF-8 text ({exc.reason})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PersonaError(f"{path}: not valid TOML: {exc}") from None
    try:
        return Persona.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(file)'}: {error['msg']}"
            for error in exc.errors()
        )
        raise PersonaError(f"{path}: invalid persona: {problems}") from None


def load_personas(directory: Path | None = None) -> tuple[Persona, ...]:
    """All eight personas, in seat order P2..P9.

    Raises:
        PersonaError: a file is invalid, a seat is missing or taken twice, an id or a
            name is used twice.
    """
    folder = directory if directory is not None else default_personas_dir()
    if not folder.is_dir():
        raise PersonaError(f"{folder}: persona directory not found (set GM_PERSONAS_DIR)")
    personas = [load_persona(path) for path in sorted(folder.glob("*.toml"))]
    return validate_cast(personas, where=str(folder))


def validate_cast(personas: Iterable[Persona], *, where: str = "personas") -> tuple[Persona, ...]:
    """Check that ``personas`` fill seats P2..P9 exactly once with distinct ids and names.

    Raises:
        PersonaError: a seat is missing or taken twice, or an id or name repeats.
    """
    by_seat: dict[int, Persona] = {}
    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    for persona in personas:
        if persona.seat in by_seat:
            raise PersonaError(
                f"{where}: seat P{persona.seat} taken by both {by_seat[persona.seat].name} and {persona.name}"
            )
        if persona.id in seen_ids:
            raise PersonaError(f"{where}: persona id {persona.id!r} used twice")
        if persona.name in seen_names:
            raise PersonaError(f"{where}: persona name {persona.name!r} used twice")
        by_seat[persona.seat] = persona
        seen_ids.add(persona.id)
        seen_names.add(persona.name)
    missing = [f"P{seat}" for seat in PERSONA_SEATS if seat not in by_seat]
    if missing:
        raise PersonaError(f"{where}: no persona for seat {', '.join(missing)}")
    return tuple(by_seat[seat] for seat in PERSONA_SEATS)


class Notes(BaseModel):
    """A persona's own notes between turns: at most five short lines, nothing else.

    The notes are the persona's own words; they go back only into that persona's prompts.
    """

    model_config = ConfigDict(frozen=True)

    lines: tuple[str, ...] = ()

    @classmethod
    def of(cls, lines: Sequence[str]) -> Notes:
        """Notes holding ``lines`` (blank lines dropped, each stripped).

        Raises:
            NotesError: more than five lines, or a line longer than the limit.
        """
        kept = tuple(line.strip() for line in lines if line.strip())
        if len(kept) > MAX_NOTE_LINES:
            raise NotesError(f"notes hold at most {MAX_NOTE_LINES} lines, not {len(kept)}")
        for line in kept:
            if "\n" in line or "\r" in line:
                raise NotesError("a note line must not contain a line break")
            if len(line) > MAX_NOTE_CHARS:
                raise NotesError(f"a note line holds at most {MAX_NOTE_CHARS} characters, not {len(line)}")
        return cls(lines=kept)
