"""The one source of randomness: every die in the project is drawn here and recorded.

A :class:`DiceSource` hands out die faces and keeps the history of every die it
produced, as ``Die(value, sides)`` in rolling order. Two implementations:

* :class:`SeededSource` draws from a seeded :class:`random.Random`, so the same seed
  and the same inputs give the same game, byte for byte;
* :class:`QueueSource` replays a FIFO queue of ``(value, sides)`` with the contract of
  BCDice's test vectors: each die's sides are checked against the next entry, values
  are passed through unchecked (a few vectors use 0 on a d10), and entries left over
  are tolerated and reported by :attr:`QueueSource.leftovers`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import NamedTuple


class DiceError(ValueError):
    """Base class of the dice engine's errors."""


class DiceQueueError(DiceError):
    """An injected queue ran dry, or its next die has other sides than the one rolled."""


class Die(NamedTuple):
    """One physical die: the face shown and the number of sides."""

    value: int
    sides: int


class SourceMark(NamedTuple):
    """An opaque position in a source, to roll back to after a refused command."""

    history_length: int
    state: object


class DiceSource:
    """Base class: subclasses implement :meth:`_draw`; :meth:`roll` records every die."""

    seed: int | str | None = None
    """The seed the source draws from, when it has one (a queue of given dice has none)."""

    def __init__(self) -> None:
        self.history: list[Die] = []

    def roll(self, sides: int) -> int:
        """Roll one die with ``sides`` faces, record it and return its face."""
        value = self._draw(sides)
        self.history.append(Die(value, sides))
        return value

    def roll_many(self, count: int, sides: int) -> list[int]:
        """Roll ``count`` dice with ``sides`` faces each, in order."""
        return [self.roll(sides) for _ in range(count)]

    def mark(self) -> SourceMark:
        """Remember the current position (history and generator state)."""
        return SourceMark(len(self.history), self._get_state())

    def restore(self, mark: SourceMark) -> None:
        """Return to ``mark``: the dice rolled since are forgotten and will be drawn again."""
        del self.history[mark.history_length :]
        self._set_state(mark.state)

    def dice_since(self, mark: SourceMark) -> tuple[Die, ...]:
        """The dice rolled since ``mark``, in order."""
        return tuple(self.history[mark.history_length :])

    def _draw(self, sides: int) -> int:
        raise NotImplementedError

    def _get_state(self) -> object:
        raise NotImplementedError

    def _set_state(self, state: object) -> None:
        raise NotImplementedError


_new_tuple = tuple.__new__

#: Dice with this many sides or fewer are recorded as shared :class:`Die` values (a
#: die is immutable), so that rolling one allocates nothing.
SHARED_FACES_UP_TO = 100
_FACES: dict[int, tuple[Die, ...]] = {}


def die_faces(sides: int) -> tuple[Die, ...]:
    """Every face of a die of ``sides`` sides (1 <= sides <= :data:`SHARED_FACES_UP_TO`),
    as shared :class:`Die` values indexed by the face (index 0 unused)."""
    faces = _FACES.get(sides)
    if faces is None:
        faces = _FACES[sides] = (Die(0, sides), *(Die(value, sides) for value in range(1, sides + 1)))
    return faces


# Random.randint(1, n) draws 1 + Random._randbelow(n), which is this interpreter's
# _randbelow_with_getrandbits (getrandbits(n.bit_length()) until under n); the seeded
# source makes that very draw inline, where it is that method.
_INLINE_DRAW = random.Random._randbelow is random.Random._randbelow_with_getrandbits  # type: ignore[attr-defined]


class SeededSource(DiceSource):
    """Dice from a seeded pseudo-random generator.

    A die of ``n`` sides shows ``1 + Random._randbelow(n)``: the very draw that
    ``Random.randint(1, n)`` makes, without its argument checks, so a seed gives the
    same faces as it always has. :meth:`roll` and :meth:`roll_many` draw directly
    (the hot path of every command), so a subclass that changes the draw overrides
    them as well as :meth:`_draw`.
    """

    def __init__(self, seed: int | str | None = None) -> None:
        super().__init__()
        self.seed = seed
        self._random = random.Random(seed)
        self._below = self._random._randbelow  # type: ignore[attr-defined]
        self._bits = self._random.getrandbits

    def roll(self, sides: int) -> int:
        """Roll one die with ``sides`` faces, record it and return its face.

        Raises:
            DiceError: ``sides`` is less than 1.
        """
        if sides < 1:
            raise DiceError(f"a die needs at least one side, not {sides}")
        if _INLINE_DRAW:
            # Random._randbelow_with_getrandbits, without its frame
            bits = self._bits
            k = sides.bit_length()
            value = bits(k)
            while value >= sides:
                value = bits(k)
            value += 1
        else:
            value = self._below(sides) + 1
        if sides <= SHARED_FACES_UP_TO:
            self.history.append((_FACES.get(sides) or die_faces(sides))[value])
        else:
            self.history.append(_new_tuple(Die, (value, sides)))
        return value

    def roll_many(self, count: int, sides: int) -> list[int]:
        """Roll ``count`` dice with ``sides`` faces each, in order."""
        if count > 0 and sides < 1:
            raise DiceError(f"a die needs at least one side, not {sides}")
        record = self.history.append
        values: list[int] = []
        keep = values.append
        faces = (_FACES.get(sides) or die_faces(sides)) if 0 < sides <= SHARED_FACES_UP_TO else None
        # a plain loop: pools are small, and a comprehension costs a frame of its own
        if _INLINE_DRAW:
            bits = self._bits
            k = sides.bit_length()
            for _ in range(count):
                value = bits(k)
                while value >= sides:
                    value = bits(k)
                value += 1
                record(faces[value] if faces is not None else _new_tuple(Die, (value, sides)))
                keep(value)
            return values
        below = self._below
        for _ in range(count):
            value = below(sides) + 1
            record(faces[value] if faces is not None else _new_tuple(Die, (value, sides)))
            keep(value)
        return values

    def _draw(self, sides: int) -> int:
        if sides < 1:
            raise DiceError(f"a die needs at least one side, not {sides}")
        value: int = self._below(sides) + 1
        return value

    def _get_state(self) -> object:
        return self._random.getstate()

    def _set_state(self, state: object) -> None:
        self._random.setstate(state)  # type: ignore[arg-type]


class QueueSource(DiceSource):
    """Dice from an injected FIFO queue of ``(value, sides)``."""

    def __init__(self, dice: Iterable[tuple[int, int]]) -> None:
        super().__init__()
        self._queue: list[Die] = [Die(int(v), int(s)) for v, s in dice]
        self._next = 0

    @classmethod
    def parse(cls, text: str, *, faces_on_the_die: bool = False) -> QueueSource:
        """Build a queue from ``"9/10,5/10,2/10"`` (value/sides, comma separated).

        With ``faces_on_the_die`` every value must be a face of its die (1..sides), as
        a die a person names can only show; BCDice's vectors need the lenient default
        (a few put 0 on a d10).

        Raises:
            DiceQueueError: an entry is not ``value/sides`` with whole numbers, or (with
                ``faces_on_the_die``) its value is not a face of a die of that many sides.
        """
        dice: list[tuple[int, int]] = []
        for entry in filter(None, (part.strip() for part in text.split(","))):
            value, slash, sides = entry.partition("/")
            try:
                if not slash:
                    raise ValueError
                die = (int(value), int(sides))
            except ValueError:
                raise DiceQueueError(f"bad die {entry!r}: write value/sides, e.g. 9/10") from None
            if faces_on_the_die and not 1 <= die[0] <= die[1]:
                shows = f"shows 1 to {die[1]}" if die[1] >= 1 else "needs at least one side"
                raise DiceQueueError(f"bad die {entry!r}: a d{die[1]} {shows}")
            dice.append(die)
        return cls(dice)

    @property
    def leftovers(self) -> tuple[Die, ...]:
        """The dice injected but never rolled."""
        return tuple(self._queue[self._next :])

    def _draw(self, sides: int) -> int:
        if self._next >= len(self._queue):
            raise DiceQueueError(f"the injected dice ran out when a d{sides} was rolled")
        die = self._queue[self._next]
        if die.sides != sides:
            raise DiceQueueError(
                f"die #{self._next + 1} of the queue is a d{die.sides} ({die.value}/{die.sides}), "
                f"but a d{sides} was rolled"
            )
        self._next += 1
        return die.value

    def _get_state(self) -> object:
        return self._next

    def _set_state(self, state: object) -> None:
        assert isinstance(state, int)
        self._next = state
