"""Value objects of a dice command: what it printed, its flags, its dice and its structure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, SerializeAsAny, field_validator

from gm_engine.dice.source import Die

Locale = Literal["ja", "en"]

_M = TypeVar("_M", bound=BaseModel)


class Detail(BaseModel):
    """Structured result of one kind of command, so that a tool caller never parses text.

    Subclasses set ``kind`` to a unique literal default; they are found again by that
    name when a result is read back from JSON.
    """

    # built when a detail of the class is first validated or serialised, not when the class is
    # defined: the engine makes details without validation (model_builder), and a session
    # rolls a few of the commands whose details are declared
    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: str
    _registry: ClassVar[dict[str, type[Detail]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        field = cls.model_fields.get("kind")
        if field is not None and isinstance(field.default, str):
            Detail._registry[field.default] = cls

    @classmethod
    def lookup(cls, kind: str) -> type[Detail]:
        """The detail class registered for ``kind``."""
        try:
            return Detail._registry[kind]
        except KeyError:
            raise ValueError(f"unknown detail kind {kind!r}") from None


class Outcome(NamedTuple):
    """What a command handler returns: the text, the flags and the structured detail.

    The dice are not here: the engine takes them from the source it handed in. A plain
    immutable tuple rather than a pydantic model: it never leaves the engine (the
    engine copies its fields into the :class:`RollResult`), and every command builds one.
    """

    text: str
    success: bool = False
    failure: bool = False
    critical: bool = False
    fumble: bool = False
    detail: Detail | None = None


class RollResult(BaseModel):
    """The result of one chat line that was a command.

    ``text`` is BCDice's text (in the requested locale), the five flags are BCDice's,
    ``dice`` is every die rolled in order and ``detail`` the command's structure.
    """

    model_config = ConfigDict(frozen=True)

    system: str
    command: str
    text: str
    locale: Locale = "ja"
    secret: bool = False
    success: bool = False
    failure: bool = False
    critical: bool = False
    fumble: bool = False
    dice: tuple[Die, ...] = ()
    detail: SerializeAsAny[Detail] | None = None

    @field_validator("detail", mode="before")
    @classmethod
    def _detail_by_kind(cls, value: object) -> object:
        if isinstance(value, dict) and "kind" in value:
            return Detail.lookup(str(value["kind"])).model_validate(value)
        return value

    @property
    def flags(self) -> dict[str, bool]:
        """The five BCDice flags by name."""
        return {
            "secret": self.secret,
            "success": self.success,
            "failure": self.failure,
            "critical": self.critical,
            "fumble": self.fumble,
        }


#: Per model class: its field names in declared order, and the defaults of the optional ones.
_FIELDS: dict[type[BaseModel], tuple[tuple[str, ...], dict[str, Any]]] = {}
#: Per model class: its field names in declared order (the fast path's test).
_NAMES: dict[type[BaseModel], tuple[str, ...]] = {}
_set_slot = object.__setattr__
_new_object = object.__new__
_new_tuple = tuple.__new__


def construct(cls: type[_M], **values: Any) -> _M:
    """Build a pydantic model from values already known to be valid, without validation.

    A leaner :meth:`BaseModel.model_construct` for the hot path (a few times faster).
    The fields are stored in their declared order, as validation stores them, so the
    JSON is byte for byte the same; passing every field in that order is fastest. The
    defaults of fields not given are taken once per class, so it is only for models
    whose defaults are immutable (None, numbers, strings, tuples), as the dice results are.
    """
    fields_set = set(values)
    if tuple(values) != _NAMES.get(cls):
        values = _in_declared_order(cls, values)
    # BaseModel defines no __new__ and a frozen model refuses __setattr__: its four
    # slots are filled as pydantic's own model_construct fills them.
    model = _new_object(cls)
    _set_slot(model, "__dict__", values)
    _set_slot(model, "__pydantic_fields_set__", fields_set)
    _set_slot(model, "__pydantic_extra__", None)
    _set_slot(model, "__pydantic_private__", None)
    return model


def _in_declared_order(cls: type[BaseModel], values: dict[str, Any]) -> dict[str, Any]:
    known = _FIELDS.get(cls)
    if known is None:
        fields = cls.model_fields
        defaults = {
            name: field.get_default(call_default_factory=True)
            for name, field in fields.items()
            if not field.is_required()
        }
        known = _FIELDS[cls] = (tuple(fields), defaults)
        _NAMES[cls] = known[0]
    names, defaults = known
    if tuple(values) == names:
        return values
    return {name: values[name] if name in values else defaults[name] for name in names}


def model_builder(cls: type[_M]) -> Callable[..., _M]:
    """A function that builds ``cls`` from values known to be valid, as :func:`construct`
    does, taking the fields as arguments (positional in declared order, or by name).

    For the hottest models of the dice engine: a call costs about half of
    :func:`construct`'s, which must gather, check and order a keyword dictionary. The
    function's source is generated once per class from the field names (identifiers,
    as pydantic requires), as :mod:`dataclasses` generates ``__init__``; the defaults
    of optional fields are the model's own (immutable, as for :func:`construct`).
    """
    built = _BUILDERS.get(cls)
    if built is not None:
        return built  # type: ignore[return-value]
    fields = cls.model_fields
    params: list[str] = []
    defaults: dict[str, Any] = {}
    for name, field in fields.items():
        if not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"{cls.__name__}.{name} cannot be a builder's parameter")
        if field.is_required():
            params.append(name)
        else:
            defaults[f"_default_{name}"] = field.get_default(call_default_factory=True)
            params.append(f"{name}=_default_{name}")
    entries = ", ".join(f"{name!r}: {name}" for name in fields)
    # A frozen model's fields set is never changed in place (model_copy copies it first),
    # so its models share one; any other model gets its own.
    fields_set = "_names" if cls.model_config.get("frozen") else "set(_names)"
    source = (
        f"def build(*, {', '.join(params)}):\n"
        "    model = _new_object(_cls)\n"
        f"    _set_dict(model, {{{entries}}})\n"
        f"    _set_fields_set(model, {fields_set})\n"
        "    _set_extra(model, None)\n"
        "    _set_private(model, None)\n"
        "    return model\n"
    )
    namespace: dict[str, Any] = {
        "_new_object": _new_object,
        "_cls": cls,
        "_names": set(fields),
        **MODEL_SLOT_SETTERS,
        **defaults,
    }
    exec(source, namespace)  # generated from the field names only, as dataclasses does
    build: Callable[..., _M] = namespace["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__doc__ = f"Build a {cls.__name__} from valid values (see model_builder)."
    _BUILDERS[cls] = build
    return build


_BUILDERS: dict[type[BaseModel], Callable[..., BaseModel]] = {}

# BaseModel's four slots, set through their descriptors: a bound setter is a cheaper
# call than object.__setattr__, which must look the name up on the type first.
MODEL_SLOT_SETTERS: dict[str, Callable[[Any, Any], None]] = {
    "_set_dict": BaseModel.__dict__["__dict__"].__set__,
    "_set_fields_set": BaseModel.__dict__["__pydantic_fields_set__"].__set__,
    "_set_extra": BaseModel.__dict__["__pydantic_extra__"].__set__,
    "_set_private": BaseModel.__dict__["__pydantic_private__"].__set__,
}


def new_outcome(
    text: str,
    detail: Detail | None = None,
    success: bool = False,
    failure: bool = False,
    critical: bool = False,
    fumble: bool = False,
) -> Outcome:
    """An :class:`Outcome` with ``detail`` second, as the commands give it (built
    without the NamedTuple's own ``__new__`` frame: every command returns one)."""
    return _new_tuple(Outcome, (text, success, failure, critical, fumble, detail))
