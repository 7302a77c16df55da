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


class ClaimResult(StrEnum):
    """When a 占い師 / 霊媒師 claim must carry its result.

    The document (CMD_CO要求): 「占い師が名乗り出る際は、事前占いの結果を発言すること」 and
    「霊媒師が名乗り出る際は、霊媒結果を発言すること」. Neither sentence is limited to an answer
    to a CO要求, so by default every coming-out states the result.
    """

    ALWAYS = "always"
    """Every 占い師 / 霊媒師 claim states its result where one is due: the 占い師 always (the
    事前占い result on day 1, the latest result after), the 霊媒師 once somebody was executed
    on an earlier day (its latest result). Fakes give one in the same way. The default."""
    WHEN_REQUESTED = "when_requested"
    """Only an answer to a CO要求 must carry the result; a claim of one's own accord may come
    without one (and may carry any result it could state)."""


class WerewolfOptions(BaseModel):
    """A table's rule options, validated. Construct with keywords; unknown keys are refused.

    Raises:
        pydantic.ValidationError (a ValueError): an option is unknown or out of range.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    madman_claims: MadmanClaims = MadmanClaims.LIKE_WEREWOLF
    """CO rule for the 狂人 (NOTES.md: by default it may claim like a werewolf)."""

    claim_result: ClaimResult = ClaimResult.ALWAYS
    """When a 占い師 / 霊媒師 claim must carry its result (the document: every coming-out)."""

    discussion_rounds: int = Field(default=2, ge=1, le=10)
    """Discussion turns each living player gets per day (the document leaves the length open)."""

    one_round_at: int = Field(default=6, ge=0, le=9)
    """A day that starts with this many living seats or fewer has one discussion round, whatever
    ``discussion_rounds`` says (0: never). The count is public, so every seat knows the day's
    length: with few seats left each has less to weigh, a second round mostly repeats the
    first, and the record every later prompt carries stays short (issue 12: a long game within
    120,000 prompt tokens)."""

    one_round_from: int = Field(default=3, ge=0, le=100)
    """From this day on every day has one discussion round, whatever ``discussion_rounds`` says
    (0: never). The day is public, like the living count of ``one_round_at``; it shortens the
    long games only (a day 3 with seven seats or more left follows nights on which the 狩人
    saved the victim), whose later days would otherwise cost the model a second round on a
    record grown longer each day (issue 12: a six-day game within 120,000 prompt tokens)."""

    answer_takes_turn: bool = True
    """On (the default): a CO要求 answer (a claim or a decline, with words) is the answering
    seat's next discussion turn of the day, which it then does not get again; the caller's own
    answer is not (its call took its turn). The document's CMD_CO要求 obliges the called role to
    come out and CMD_議論 gives every seat its say, but neither grants an answer a turn of its
    own (docs/werewolf.md, "Calling for a claim"), so the answer is spoken in the seat's turn:
    a day with a call costs the model as many turns as one without (8 fewer on day 1, which
    keeps a day within 30 model calls). Off: the answers come on top of every seat's turns."""

    attack_needs_execution: bool = True
    """NOTES.md: "There is no attack before the first execution": the werewolves attack on a
    night only once somebody has been executed. Off: they attack from the first night on."""

    def rounds_on(self, day: int, living: int) -> int:
        """The discussion rounds of ``day`` when it starts with ``living`` seats alive."""
        if living <= self.one_round_at or (self.one_round_from and day >= self.one_round_from):
            return 1
        return self.discussion_rounds

    max_text_length: int = Field(default=2000, ge=1, le=100_000)
    """Longest speech or vote reason accepted (longer text is refused, not cut)."""
