"""The injectable source of dice: seeded, queued, recorded, restorable."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm_engine.dice.source import DiceError, DiceQueueError, Die, QueueSource, SeededSource


def test_seeded_source_repeats_for_the_same_seed() -> None:
    a, b = SeededSource(42), SeededSource(42)
    assert [a.roll(6) for _ in range(50)] == [b.roll(6) for _ in range(50)]
    assert all(1 <= d.value <= 6 for d in a.history)


def test_every_die_is_recorded_in_order() -> None:
    source = QueueSource([(3, 6), (9, 10)])
    assert source.roll(6) == 3
    assert source.roll(10) == 9
    assert source.history == [Die(3, 6), Die(9, 10)]


def test_queue_checks_sides_and_reports_leftovers() -> None:
    source = QueueSource([(3, 6), (4, 6)])
    with pytest.raises(DiceQueueError, match="d6"):
        source.roll(10)
    assert source.roll(6) == 3
    assert source.leftovers == (Die(4, 6),)


def test_queue_running_dry_is_an_error() -> None:
    source = QueueSource([])
    with pytest.raises(DiceQueueError, match="ran out"):
        source.roll(6)


def test_restore_forgets_dice_and_draws_them_again() -> None:
    source = SeededSource(7)
    source.roll(100)
    mark = source.mark()
    first = source.roll_many(5, 6)
    source.restore(mark)
    assert len(source.history) == 1
    assert source.roll_many(5, 6) == first


def test_queue_parse_reads_value_slash_sides() -> None:
    assert QueueSource.parse("9/10, 5/10").leftovers == (Die(9, 10), Die(5, 10))
    with pytest.raises(DiceQueueError, match="value/sides"):
        QueueSource.parse("9-10")


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**64),
    sides=st.lists(st.integers(min_value=1, max_value=2**40), min_size=1, max_size=30),
    count=st.integers(min_value=0, max_value=20),
)
def test_seeded_faces_are_those_of_randint(seed: int, sides: list[int], count: int) -> None:
    # The source draws as Random.randint(1, n) does, so a seed keeps giving the same game.
    source = SeededSource(seed)
    reference = random.Random(seed)
    faces = [source.roll(n) for n in sides] + source.roll_many(count, 6)
    assert faces == [reference.randint(1, n) for n in sides] + [reference.randint(1, 6) for _ in range(count)]
    assert source.history == [Die(v, n) for v, n in zip(faces, sides + [6] * count, strict=True)]
    assert all(type(die) is Die for die in source.history)


def test_a_die_without_sides_is_refused_before_any_draw() -> None:
    source = SeededSource(3)
    for roll in (lambda: source.roll(0), lambda: source.roll_many(2, 0)):
        with pytest.raises(DiceError):
            roll()
    assert source.history == [] and source.roll_many(0, 0) == []


def test_a_seeded_die_is_the_draw_random_randint_makes() -> None:
    # the seeded source draws inline what Random.randint(1, n) draws; same seed, same faces
    import random

    for seed in range(20):
        reference = random.Random(seed)
        source = SeededSource(seed)
        for sides in (1, 2, 3, 6, 10, 12, 20, 66, 100, 10_000):
            expected = [reference.randint(1, sides) for _ in range(5)]
            assert [source.roll(sides) for _ in range(2)] + source.roll_many(3, sides) == expected
