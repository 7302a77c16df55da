"""Value objects of a dice command: what it printed, its flags, its dice and its structure."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, SerializeAsAny, field_validator

from gm_engine.dice.source import Die

Locale = Literal["ja", "en"]


class Detail(BaseModel):
    """Structured result of one kind of command, so that a tool caller never parses text.

    Subclasses set ``kind`` to a unique literal default; they are found again by that
    name when a result is read back from JSON.
    """

    model_config = ConfigDict(frozen=True)

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


class Outcome(BaseModel):
    """What a command handler returns: the text, the flags and the structured detail.

    The dice are not here: the engine takes them from the source it handed in.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    success: bool = False
    failure: bool = False
    critical: bool = False
    fumble: bool = False
    detail: SerializeAsAny[Detail] | None = None


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
