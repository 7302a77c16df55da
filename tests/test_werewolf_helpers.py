"""Shared helpers of the werewolf tests: fixed deals and small drivers."""

from __future__ import annotations

from gm_engine.werewolf.actions import Speak, Vote
from gm_engine.werewolf.game import Game, Stage
from gm_engine.werewolf.options import WerewolfOptions

# P1 占い師, P2 P3 人狼, P4 P5 P6 村人, P7 狩人, P8 霊媒師, P9 狂人
SEER_DEAL = [3, 1, 1, 2, 2, 2, 4, 5, 6]
# P1 人狼 (with P9), P2 占い師, P3 P4 P5 村人, P6 狩人, P7 霊媒師, P8 狂人
WOLF_DEAL = [1, 3, 2, 2, 2, 4, 5, 6, 1]
# P1 村人, P2 占い師, P3 人狼, P4 人狼, P5 村人, P6 村人, P7 狩人, P8 霊媒師, P9 狂人
VILLAGER_DEAL = [2, 3, 1, 1, 2, 2, 4, 5, 6]


def new_game(deal: list[int], **options: object) -> Game:
    """A game dealt as ``deal`` with the given options, at the 事前占い."""
    return Game.from_deal(deal, WerewolfOptions(**options))


def stage_of(game: Game) -> Stage:
    """The game's stage, read afresh: after ``advance`` or ``apply`` mypy would otherwise keep
    the stage narrowed by an earlier ``is`` check and call a later comparison impossible."""
    return game.stage


def seer_of(game: Game) -> int:
    return next(s for s in range(1, 10) if game.players[s].R == 3)


def start_day_one(game: Game, target: int | None = None) -> None:
    """Do the 事前占い (on ``target``, default the next seat) and open day 1's discussion."""
    seer = seer_of(game)
    game.apply(game.legal_actions(seer)[0] if target is None else _divine(seer, target))
    game.advance()
    assert game.stage is Stage.DISCUSSION


def _divine(seer: int, target: int):  # type: ignore[no-untyped-def]
    from gm_engine.werewolf.actions import Divine

    return Divine(seer, target)


def pass_discussion(game: Game) -> None:
    """Every remaining discussion turn speaks (answering a CO要求 pending is not handled here)."""
    while game.stage is Stage.DISCUSSION and game.to_act():
        seat = game.to_act()[0]
        game.apply(Speak(seat, "..."))
    game.advance()
    assert game.stage is Stage.VOTE


def vote(game: Game, targets: dict[int, int]) -> None:
    """Every living seat votes as ``targets`` says (the runoff too), then the tally runs."""
    for seat in game.to_act():
        game.apply(Vote(seat, targets[seat], "理由"))
    game.advance()


def vote_out(game: Game, target: int, fallback: int) -> None:
    """Everyone votes ``target`` (``target`` itself votes ``fallback``); execute; night starts."""
    targets = {s: (fallback if s == target else target) for s in game.living()}
    vote(game, targets)
    assert game.stage is Stage.EXECUTION
    game.advance()
    if stage_of(game) is Stage.NIGHT_START:
        game.advance()
