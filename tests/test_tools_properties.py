"""No tool call and no player line can crash the turn runner or the adventure, or half-apply."""

from __future__ import annotations

import asyncio
import json
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from gm_engine.llm.base import ModelResponse, ToolCall, user_message
from gm_engine.llm.offline import OfflineBackend
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.registry import get_runner
from gm_engine.tools.base import (
    ModelRetry,
    Offer,
    Tool,
    ToolDefinitionError,
    ToolOutput,
    TurnRunner,
)


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
            raise ModelRetry("the king moves one step")
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


_WORDS = st.sampled_from(
    ["森へ行く", "長老に話を聞く", "調べる", "攻撃", "逃げる", "火弾を唱える", "治癒", "休む", "状態", "はい",
     "1", "2", "3", "館へ", "峠道へ", "日記を燃やす", "縄を使う", "次へ", "/status", "/rest",
     "[魔法変更: 治癒]"]
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=st.sampled_from(["goblin_shrine", "manor_diary", "grey_pass"]),
    lines=st.lists(st.one_of(_WORDS, st.text(max_size=30)), min_size=1, max_size=30),
    seed=st.integers(0, 2**32),
)
def test_any_player_lines_play_a_scenario_without_a_crash(scenario: str, lines: list[str], seed: int) -> None:
    human = ScriptedHuman(["アリア", "2", "1", "1", *lines], when_done="攻撃")
    io = SessionIO(backend=OfflineBackend(), human=human, show=lambda text: None)
    spec = SessionSpec(kind="adventure", seed=seed, options={"scenario": scenario, "max_turns": 40})
    outcome = get_runner("adventure")(spec, io)
    assert outcome.summary and outcome.figures["turns"] <= 40


# ---------------------------------------------------------------- offers narrowed lazily

_SEATS = [f"P{i}" for i in range(1, 10)]
_WEREWOLF_CHOICES: dict[str, dict[str, list[str]]] = {
    "vote": {"target": _SEATS},
    "attack": {"target": _SEATS},
    "divine": {"target": _SEATS},
    "guard": {"target": _SEATS},
    "claim": {"role": ["占い師", "霊媒師", "狩人"], "target": _SEATS, "result": ["白", "黒"]},
    "state_result": {"target": _SEATS, "result": ["白", "黒"]},
    "request_claim": {"role": ["占い師", "霊媒師"]},
}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_lazy_offer_spec_is_the_narrowed_models_byte_for_byte(data: st.DataObject) -> None:
    """An offer made with ``Offer.narrowing`` sends the very schema (key order included)
    that the narrowed model gives, and validates with that model."""
    from gm_engine.tools.werewolf import ALL_TOOLS

    tools = {tool.tool_name: tool for tool in ALL_TOOLS}
    name = data.draw(st.sampled_from(sorted(_WEREWOLF_CHOICES)))
    tool = tools[name]
    fields = _WEREWOLF_CHOICES[name]
    chosen = data.draw(st.lists(st.sampled_from(sorted(fields)), min_size=1, unique=True))
    legal = {
        field: data.draw(st.lists(st.sampled_from(fields[field]), min_size=1, max_size=len(fields[field])))
        for field in chosen
    }
    lazy = Offer.narrowing(tool, lambda args: "ok", **legal)
    eager = Offer.of(tool, lambda args: "ok", **legal)
    assert lazy.tool is tool and eager.model is eager.tool
    assert json.dumps(lazy.spec().model_dump(), ensure_ascii=False) == json.dumps(
        eager.spec().model_dump(), ensure_ascii=False
    )
    assert lazy.model is eager.tool  # the same cached narrowed model


def test_lazy_offer_refuses_what_narrowed_refuses_and_validates_narrowly() -> None:
    offer = Offer.narrowing(Move, lambda args: "ok", piece=["a", "b"])
    assert offer.spec().parameters["properties"]["piece"]["enum"] == ["a", "b"]
    assert offer.model.model_validate({"piece": "a", "steps": 1}).piece == "a"
    try:
        offer.model.model_validate({"piece": "c", "steps": 1})
    except ValueError as exc:
        assert "'a' or 'b'" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("a value outside the narrowed choices was accepted")
    bad_declarations: tuple[dict[str, list[str]], ...] = ({"colour": ["x"]}, {"piece": []})
    for bad in bad_declarations:
        try:
            Offer.narrowing(Move, lambda args: "ok", **bad)
        except ToolDefinitionError:
            continue
        raise AssertionError(f"{bad} was accepted")  # pragma: no cover


def test_narrowed_choices_keep_their_order_whatever_came_before() -> None:
    """Two Literals of the same values are equal to typing, which caches ``X | None`` by
    equality: the order a narrowed optional field lists must still be the order given."""
    from gm_engine.tools.werewolf import ClaimTool

    for order in (["黒", "白"], ["白", "黒"], ["黒", "白"]):
        for offer in (Offer.of(ClaimTool, lambda a: "ok", result=order),
                      Offer.narrowing(ClaimTool, lambda a: "ok", result=order)):
            schema = offer.spec().parameters["properties"]["result"]
            assert schema["enum"] == order  # optional: written without its "or null"
            try:
                offer.model.model_validate({"role": "占い師", "result": "灰"})
            except ValueError as exc:
                assert " or ".join(f"'{v}'" for v in order) in str(exc)
            else:  # pragma: no cover
                raise AssertionError("灰 was accepted")


_ARGUMENT_VALUES = st.one_of(
    st.sampled_from([*_SEATS, "P0", "占い師", "霊媒師", "狩人", "白", "黒", "灰", ""]),
    scalars,
    st.lists(st.sampled_from(_SEATS), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_validate_accepts_and_refuses_exactly_as_the_narrowed_model(data: st.DataObject) -> None:
    """``Offer.validate`` (which skips building the narrowed model when the choices are plainly
    among the offered ones) takes the same calls as the narrowed model, with the same fields,
    and refuses the others with the narrowed model's own error."""
    from pydantic import ValidationError

    from gm_engine.tools.werewolf import ALL_TOOLS

    tools = {tool.tool_name: tool for tool in ALL_TOOLS}
    name = data.draw(st.sampled_from(sorted(_WEREWOLF_CHOICES)))
    tool, fields = tools[name], _WEREWOLF_CHOICES[name]
    legal = {
        field: data.draw(st.lists(st.sampled_from(choices), min_size=1, max_size=len(choices)))
        for field, choices in fields.items()
        if data.draw(st.booleans())
    }
    offer = Offer.narrowing(tool, lambda args: "ok", **legal)
    names = [*tool.model_fields, "extra"]
    raw = data.draw(st.dictionaries(st.sampled_from(names), _ARGUMENT_VALUES, max_size=len(names)))
    if "text" in tool.model_fields and data.draw(st.booleans()):
        raw["text"] = "ことば"
    if "reason" in tool.model_fields and data.draw(st.booleans()):
        raw["reason"] = "理由"
    try:
        expected = offer.model.model_validate(raw)
    except ValidationError as exc:
        with pytest.raises(ValidationError) as refused:
            offer.validate(raw)
        assert str(refused.value) == str(exc)
    else:
        got = offer.validate(raw)
        assert got.model_dump() == expected.model_dump()
        assert got.model_fields_set == expected.model_fields_set
