"""A pydantic validation error as catalogue messages: which field, what was wrong, what is
accepted, never pydantic's own English.

:func:`validation_message` turns the errors of one ``ValidationError`` into one
:class:`~gm_engine.messages.catalogue.Message` (the problems one after the other), for a
rule option given as JSON (``gm combat demo --options``), a saved character's field or a
table form. A check of the engine's own that carries its reason as a message (an
:class:`Explained` exception raised inside a validator) is shown in those words; any other
error of a validator by its own text.

The module imports pydantic only when an error is translated: the catalogue stays free of
it at start-up.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, get_args, runtime_checkable

from gm_engine.messages.catalogue import Message
from gm_engine.messages.texts import (
    FieldMissing,
    FieldProblem,
    InvalidValue,
    NotAChoice,
    NotAList,
    NotAnObject,
    NotANumber,
    NotAWholeNumber,
    NotText,
    NotTrueOrFalse,
    ProblemsAnd,
    TooFewItems,
    TooLongText,
    TooManyItems,
    TooShortText,
    UnknownField,
    ValueAbove,
    ValueAtLeast,
    ValueAtMost,
    ValueBelow,
    ValueNotJson,
    ValueNotJsonAt,
)

if TYPE_CHECKING:
    from pydantic import ValidationError

#: The longest rendering of a value the player gave, quoted back.
MAX_SHOWN = 60


@runtime_checkable
class Explained(Protocol):
    """An error that says what was wrong as a catalogue message (the combat engine's)."""

    def explanation(self) -> Message:
        """What was wrong, with the clause it breaks."""
        ...


def shown(value: object) -> str:
    """A value as the player typed it: a string as it is, anything else as JSON, cut short."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _choices(expected: object) -> str:
    # pydantic writes them as "'a', 'b' or 'c'"
    return ", ".join(part.strip("'\"") for part in re.split(r", | or ", str(expected)) if part)


def _fields_at(model: object, where: Sequence[object]) -> list[str]:
    """The field names of the model found at ``where`` inside ``model`` (none if not a model)."""
    from pydantic import BaseModel

    current: object = model
    for part in where:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        if isinstance(part, int):
            continue
        field = current.model_fields.get(str(part))
        if field is None:
            return []
        annotation = field.annotation
        inner = [a for a in get_args(annotation) if isinstance(a, type)]
        models = [a for a in (annotation, *inner) if isinstance(a, type) and issubclass(a, BaseModel)]
        current = models[0] if models else annotation
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def problem(error: Mapping[str, Any], model: object = None) -> Message:
    """One pydantic error (an item of ``ValidationError.errors()``), without its field."""
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    given = shown(error.get("input"))
    if kind == "json_invalid":
        at = re.search(r"line (\d+) column (\d+)", str(ctx.get("error", "")))
        return ValueNotJsonAt(int(at[1]), int(at[2])) if at else ValueNotJson()
    if kind == "extra_forbidden":
        accepted = _fields_at(model, tuple(error.get("loc", ()))[:-1])
        return UnknownField(", ".join(accepted) if accepted else "-")
    if kind == "missing":
        return FieldMissing()
    if kind.startswith("int_"):
        return NotAWholeNumber(given)
    if kind.startswith("float_") or kind in ("decimal_parsing", "decimal_type", "finite_number"):
        return NotANumber(given)
    if kind.startswith("bool_"):
        return NotTrueOrFalse(given)
    if kind in ("string_type", "string_unicode"):
        return NotText(given)
    limits: dict[str, type[Message]] = {
        "greater_than_equal": ValueAtLeast,
        "greater_than": ValueAbove,
        "less_than_equal": ValueAtMost,
        "less_than": ValueBelow,
    }
    if kind in limits:
        limit = next(iter(ctx.values()), "")
        return limits[kind](given, shown(limit))
    if kind == "string_too_short":
        return TooShortText(given, int(ctx.get("min_length", 0)))
    if kind == "string_too_long":
        return TooLongText(given, int(ctx.get("max_length", 0)))
    if kind == "too_short":
        return TooFewItems(int(ctx.get("min_length", 0)))
    if kind == "too_long":
        return TooManyItems(int(ctx.get("max_length", 0)))
    if kind in ("literal_error", "enum"):
        return NotAChoice(given, _choices(ctx.get("expected", "")))
    if kind == "union_tag_invalid":
        return NotAChoice(shown(ctx.get("tag", "")), _choices(ctx.get("expected_tags", "")))
    if kind == "union_tag_not_found":
        return FieldMissing()
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return NotAnObject()
    if kind in ("list_type", "tuple_type", "set_type", "frozen_set_type", "iterable_type"):
        return NotAList()
    if kind in ("value_error", "assertion_error"):
        raised = ctx.get("error")
        if isinstance(raised, Explained):
            return raised.explanation()
        return InvalidValue(given, str(raised or error.get("msg", "")))
    return InvalidValue(given, str(error.get("msg", kind)))


def validation_message(exc: ValidationError, model: object = None, prefix: str = "") -> Message:
    """Every problem of ``exc``, each with its field (``prefix.`` before it, as the player
    names the whole, e.g. ``options``); ``model``: the model (or its class) that was
    validated, to list the fields it accepts when an unknown one was given."""
    parts: list[Message] = []
    for error in exc.errors():
        loc = tuple(error.get("loc", ()))
        if not loc and str(error.get("type", "")).startswith("union_tag"):
            # a tagged union's tag is a field of its own (``kind``), named by the error only
            loc = (str((error.get("ctx") or {}).get("discriminator", "")).strip("'\""),)
        where = ".".join(str(p) for p in (prefix, *loc) if p != "")
        said = problem(error, model)
        parts.append(FieldProblem(where, said) if where else said)
    if not parts:  # pydantic never raises without an error; kept total all the same
        return InvalidValue("-", str(exc))
    joined = parts[-1]
    for part in reversed(parts[:-1]):
        joined = ProblemsAnd(part, joined)
    return joined
