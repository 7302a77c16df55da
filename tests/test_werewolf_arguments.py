"""Seat and deal arguments (issue 10, item 11): only an int 1..9 that is not a bool is a seat,
and a fixed deal is a sequence of nine ints. Before this, ``is_alive(-1)`` read P9 (negative
indexes wrap), ``True`` read P1, and ``from_deal`` accepted strings, floats and bools."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gm_engine.werewolf import DealError, Game, SeatError, WerewolfError, observe, player_view
from gm_engine.werewolf.records import Role

from .test_werewolf_helpers import SEER_DEAL, start_day_one

NOT_SEATS: list[object] = [-1, -8, 0, 10, True, False, 1.0, "1", None, 2**70]


@pytest.mark.parametrize("seat", NOT_SEATS)
def test_every_public_seat_argument_refuses_what_is_not_a_seat(seat: object) -> None:
    game = Game.from_deal(SEER_DEAL)
    start_day_one(game)
    before = game.state_hash()
    calls: list[Callable[[], object]] = [
        lambda: game.is_alive(seat),  # type: ignore[arg-type]
        lambda: game.role_of(seat),  # type: ignore[arg-type]
        lambda: game.legal_actions(seat),  # type: ignore[arg-type]
        lambda: game.legal_tuple(seat),  # type: ignore[arg-type]
        lambda: game.may_claim(seat, Role.SEER),  # type: ignore[arg-type]
        lambda: observe(game, seat),  # type: ignore[arg-type]
        lambda: player_view(game, seat),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(SeatError, match="1～9"):
            call()
    assert game.state_hash() == before
    assert issubclass(SeatError, WerewolfError) and issubclass(SeatError, ValueError)


def test_seat_arguments_still_take_every_real_seat() -> None:
    game = Game.from_deal(SEER_DEAL)
    assert [game.role_of(s) for s in range(1, 10)] == [Role(r) for r in SEER_DEAL]
    assert all(game.is_alive(s) for s in range(1, 10))
    assert game.legal_actions(1) and all(game.legal_actions(s) == [] for s in range(2, 10))


def test_role_of_before_the_deal_is_a_lookup_error_not_a_crash() -> None:
    from gm_engine.dice.source import SeededSource

    game = Game.new(SeededSource(1))
    with pytest.raises(LookupError):
        game.role_of(2)


@pytest.mark.parametrize(
    ("deal", "words"),
    [
        ("311222456", "str"),
        (b"311222456", "bytes"),
        ([3.0, 1, 1, 2, 2, 2, 4, 5, 6], "P1の役職番号が整数ではありません"),
        ([3, 1, 1, 2, 2, 2, 4, 5, 6.0], "P9の役職番号が整数ではありません"),
        ([3, True, True, 2, 2, 2, 4, 5, 6], "P2の役職番号が整数ではありません"),
        ([3, 1, 1, 2, 2, 2, 4, 5], "9個必要です (8個"),
        ([3, 1, 1, 2, 2, 2, 4, 5, 6, 2], "9個必要です (10個"),
        ([3, 1, 1, 2, 2, 2, 4, 5, 7], "P9の役職番号7は1～6ではありません"),
        ([3, 1, 1, 2, 2, 2, 4, 5, 5], "構成が違います"),
        ({3, 1, 2}, "set"),
        (None, "NoneType"),
        (iter([3, 1, 1, 2, 2, 2, 4, 5, 6]), "list_iterator"),
    ],
)
def test_from_deal_takes_only_nine_role_ints(deal: object, words: str) -> None:
    with pytest.raises(DealError, match=words.replace("(", r"\(")):
        Game.from_deal(deal)  # type: ignore[arg-type]


def test_from_deal_accepts_ints_and_role_members_in_lists_and_tuples() -> None:
    for deal in (SEER_DEAL, tuple(SEER_DEAL), [Role(r) for r in SEER_DEAL]):
        game = Game.from_deal(deal)
        assert [game.role_of(s) for s in range(1, 10)] == [Role(r) for r in SEER_DEAL]
