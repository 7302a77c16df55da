"""The offline GM narrator's lines: what P1 can see, in varied words, from the public facts.

:func:`narration` reads a public log (the narrator sees nothing else) and says, in a line or
two from ``personas/phrases/gm.toml`` (``gm_en.toml`` at an English table): the game's
opening, or this morning's news (a seat gone, or a quiet night), yesterday's execution, and
the claims on the table. It never says who is suspicious, what anybody's role is, or whom to
vote for. Choices are stable hashes of the
facts and the day, so the same game gives the same words.

Errors: :class:`~gm_engine.sessions.voices.PhraseError` for a missing or invalid file.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gm_engine.dice.result import Locale
from gm_engine.sessions.voices import PhraseError, read_phrase_file, stable_pick
from gm_engine.werewolf.log import ClaimMade, Executed, MorningReport, NoExecution, PublicEntry

Lines = tuple[str, ...]


class NarratorBook(BaseModel):
    """The narrator's phrase material (``personas/phrases/gm.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    opening: Lines = Field(min_length=1)
    attack: Lines = Field(min_length=1)
    peace: Lines = Field(min_length=1)
    executed: Lines = Field(min_length=1)
    no_execution: Lines = Field(min_length=1)
    counter: Lines = Field(min_length=1)
    claims: Lines = Field(min_length=1)
    quiet: Lines = Field(min_length=1)
    closing: Lines = Field(min_length=1)
    # how the book's language writes what the lines are filled with (the Japanese book's
    # defaults): a day ({day} in the lines), a list of names, one claimant, and the sentences
    day_label: str = "{day}日目"
    separator: str = "、"
    claimant: str = "{seat}（{role}）"
    sentence_gap: str = ""

    def day(self, day: int) -> str:
        """``day`` as the lines' ``{day}`` says it (「2日目」, "day 2")."""
        return self.day_label.format(day=day)


#: The narrator's book of each locale, in the phrases directory.
NARRATOR_FILES: dict[Locale, str] = {"ja": "gm.toml", "en": "gm_en.toml"}


@lru_cache(maxsize=4)
def load_narrator(directory: Path, locale: Locale = "ja") -> NarratorBook:
    """The narrator's book in ``locale``, ``<directory>/gm.toml`` (``gm_en.toml`` in English).

    Raises:
        PhraseError: the file is missing or invalid.
    """
    path = directory / NARRATOR_FILES[locale]
    try:
        return NarratorBook.model_validate(read_phrase_file(path))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise PhraseError(f"{path}: invalid narrator book: {problems}") from None


def narration(
    book: NarratorBook, log: Sequence[PublicEntry], names: Sequence[str], day: int, opening: bool
) -> str:
    """The narrator's line for ``day`` from the public ``log`` (``opening``: the game starts)."""
    key = (day, len(log))

    def pick(lines: Lines, *more: object) -> str:
        return stable_pick(lines, *key, *more)

    label = book.day(day)
    if opening:
        return pick(book.opening, "opening")
    parts: list[str] = []
    morning = [e for e in log if isinstance(e, MorningReport) and e.day == day]
    if morning:
        victim = morning[-1].victim
        if victim is None:
            parts.append(pick(book.peace).format(day=label))
        else:
            parts.append(pick(book.attack, victim).format(day=label, seat=names[victim]))
    yesterday = [e for e in log if isinstance(e, Executed | NoExecution) and e.day == day - 1]
    if yesterday and stable_pick(("", "said"), *key, "yesterday"):
        last = yesterday[-1]
        if isinstance(last, Executed):
            parts.append(pick(book.executed, last.seat).format(seat=names[last.seat]))
        else:
            parts.append(pick(book.no_execution))
    claims: dict[str, list[str]] = {}
    for entry in log:
        if isinstance(entry, ClaimMade):
            claims.setdefault(entry.role.label, []).append(names[entry.speaker])
    contested = [(role, seats) for role, seats in claims.items() if len(seats) > 1]
    if contested:
        role, seats = contested[0]
        names_said = book.separator.join(seats)
        parts.append(pick(book.counter, role).format(role=role, names=names_said, count=len(seats)))
    elif claims:
        every = book.separator.join(
            book.claimant.format(seat=seat, role=role) for role, seats in claims.items() for seat in seats
        )
        parts.append(pick(book.claims).format(names=every))
    else:
        parts.append(pick(book.quiet))
    parts.append(pick(book.closing, len(parts)).format(day=label))
    return book.sentence_gap.join(parts[:3])
