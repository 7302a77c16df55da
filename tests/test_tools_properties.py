"""No tool call and no player line can crash the turn runner or the adventure, or half-apply."""

from __future__ import annotations

import asyncio
import json
from typing import ClassVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from gm_engine.llm.base import ModelResponse, ToolCall, user_message
from gm_engine.llm.offline import OfflineBackend
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.base import SessionIO, SessionSpec, get_runner
from gm_engine.sessions.roll import ScriptedHuman
from gm_engine.tools.base import Offer, Tool, ToolOutput, TurnRunner


class Move(Tool):
    """Move a piece."""

    tool_name: ClassVar[str] = "move"
    piece: str
    steps: int = Field(ge=1, le=3)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
json_like = st.one_of(
    st.text(max_size=60),
    st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
        ),
        max_leaves=6,
    ).map(json.dumps),
    # near misses and valid calls: the interesting part of the space
    st.fixed_dictionaries(
        {
            "piece": st.sampled_from(["king", "pawn", "queen", ""]),
            "steps": st.one_of(st.integers(-1, 4), scalars),
        },
        optional={"extra": scalars},
    ).map(json.dumps),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["move", "Move", "jump", ""]), arguments=json_like)
def test_any_call_is_answered_and_applies_only_when_valid(name: str, arguments: str) -> None:
    board: list[tuple[str, int]] = []

    def move(args: Move) -> ToolOutput:
        if args.piece == "king" and args.steps > 1:
            raise ValueError("the king moves one step")
        board.append((args.piece, args.steps))
        return ToolOutput(text="moved")

    offers = [Offer.of(Move, move, piece=["king", "pawn"])]
    call = ModelResponse(tool_calls=(ToolCall(id="c", name=name, arguments=arguments),))
    backend = ScriptedBackend([(None, call)])
    result = asyncio.run(
        TurnRunner(backend, retry_budget=0).run(
            actor="a",
            messages=[user_message("go")],
            offers=offers,
            fallback=lambda: Move(piece="pawn", steps=1),
        )
    )
    assert len(result.actions) == 1 and len(board) == 1
    if result.fallback:
        assert board == [("pawn", 1)] and result.errors[0].startswith("error:")
    else:
        assert not result.errors and board[0][0] in ("king", "pawn") and 1 <= board[0][1] <= 3


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.text(max_size=40), min_size=1, max_size=4), seed=st.integers(0, 2**32))
def test_any_player_lines_play_the_offline_adventure_to_an_end(lines: list[str], seed: int) -> None:
    human = ScriptedHuman(lines, when_done="次へ")
    io = SessionIO(backend=OfflineBackend(), human=human, show=lambda text: None)
    outcome = get_runner("adventure")(SessionSpec(kind="adventure", seed=seed, options={"max_turns": 60}), io)
    assert outcome.summary
    assert outcome.figures["turns"] <= 60
