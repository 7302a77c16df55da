"""BCDice's detailed rands of a result: the tens dice of a d100 told apart from the rest."""

from __future__ import annotations

from gm_engine.dice.engine import evaluate
from gm_engine.dice.rands import DetailedRand, detailed_rands, kinds_of
from gm_engine.dice.source import QueueSource


def rands(line: str, system: str, dice: list[tuple[int, int]]) -> list[DetailedRand]:
    result = evaluate(line, system, source=QueueSource(dice))
    assert result is not None
    return detailed_rands(result)


def test_common_commands_roll_normal_dice() -> None:
    assert rands("2D6+1D10", "DiceBot", [(6, 6), (2, 6), (10, 10)]) == [
        DetailedRand("normal", 6, 6),
        DetailedRand("normal", 6, 2),
        DetailedRand("normal", 10, 10),
    ]


def test_a_cc_roll_is_tens_dice_then_the_ones_die() -> None:
    assert rands("CC(-2)<=50", "Cthulhu7th", [(10, 10), (3, 10), (9, 10), (10, 10)]) == [
        DetailedRand("tens_d10", 10, 0),
        DetailedRand("tens_d10", 10, 30),
        DetailedRand("tens_d10", 10, 90),
        DetailedRand("normal", 10, 10),
    ]


def test_a_bare_cc_is_one_normal_d100() -> None:
    assert rands("CC", "Cthulhu7th", [(42, 100)]) == [DetailedRand("normal", 100, 42)]


def test_a_full_auto_volley_by_volley() -> None:
    dice = [(9, 10), (9, 10), (9, 10), (8, 10), (8, 10), (8, 10), (7, 10)]
    result = evaluate("FAR(10,50,100)", "Cthulhu7th", source=QueueSource(dice))
    assert result is not None
    # volley 1: one tens die and the ones; volley 2: a penalty die more
    assert kinds_of(result)[:5] == ("tens_d10", "normal", "tens_d10", "tens_d10", "normal")
    assert len(kinds_of(result)) == len(result.dice)
    assert [r.value for r in detailed_rands(result)][:2] == [90, 9]


def test_a_repeat_keeps_each_runs_kinds_in_place() -> None:
    dice = [(4, 6), (5, 10), (2, 10), (1, 6)]
    assert [r.kind for r in rands("x2 1D6 CC<=50", "Cthulhu7th", [(4, 6), (1, 6)])] == ["normal", "normal"]
    result = evaluate("x2 CC<=50", "Cthulhu7th", source=QueueSource(dice[1:3] * 2))
    assert result is not None
    assert kinds_of(result) == ("tens_d10", "normal", "tens_d10", "normal")
