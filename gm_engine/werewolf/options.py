"""Rule options where tables differ. The defaults are NOTES.md's readings."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class MadmanClaims(StrEnum):
    """What the 狂人 may claim. The document's club rules do not name it (NOTES.md)."""

    LIKE_WEREWOLF = "like_werewolf"
    """Any of 占い師 / 狩人 / 霊媒師, like a 人狼 (the classic 狂人 play; the default)."""
    NONE = "none"
    """Nothing, like a 村人."""


class WerewolfOptions(BaseModel):
    """A table's rule options, validated. Construct with keywords; unknown keys are refused.

    Raises:
        pydantic.ValidationError (a ValueError): an option is unknown or out of range.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    madman_claims: MadmanClaims = MadmanClaims.LIKE_WEREWOLF
    """CO rule for the 狂人 (NOTES.md: by default it may claim like a werewolf)."""

    discussion_rounds: int = Field(default=2, ge=1, le=10)
    """Discussion turns each living player gets per day (the document leaves the length open)."""

    attack_needs_execution: bool = True
    """NOTES.md: "There is no attack before the first execution": the werewolves attack on a
    night only once somebody has been executed. Off: they attack from the first night on."""

    max_text_length: int = Field(default=2000, ge=1, le=100_000)
    """Longest speech or vote reason accepted (longer text is refused, not cut)."""
