"""The werewolf tool models: schemas narrowed to legal choices, validation, and the mapping to
engine actions."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gm_engine.tools.base import ToolOutput
from gm_engine.tools.werewolf import (
    ALL_TOOLS,
    ClaimTool,
    SpeakTool,
    UpdateNotesTool,
    VoteTool,
    action_from_tool,
    discussion_offers,
    round_offers,
    seat_label,
    seat_number,
)
from gm_engine.werewolf import Claim, Colour, Game, Role, Speak, Vote


def test_every_tool_has_a_name_and_a_closed_schema() -> None:
    names = [tool.tool_name for tool in ALL_TOOLS]
    assert len(names) == len(set(names)) == 10
    for tool in ALL_TOOLS:
        spec = tool.spec()
        assert spec.description
        assert spec.parameters["additionalProperties"] is False


def test_seat_labels() -> None:
    assert seat_label(3) == "P3" and seat_number("P9") == 9
    for bad in ("P0", "P10", "3", "p3", ""):
        with pytest.raises(ValueError, match="not a seat"):
            seat_number(bad)


def test_text_is_flattened_and_capped() -> None:
    assert SpeakTool.model_validate({"text": " a\n\nb  c "}).text == "a b c"
    with pytest.raises(ValidationError):
        SpeakTool.model_validate({"text": "x" * 401})
    with pytest.raises(ValidationError):
        SpeakTool.model_validate({"text": ""})
    with pytest.raises(ValidationError):
        VoteTool.model_validate({"target": "P2", "reason": "r", "extra": 1})


def test_notes_tool_limits() -> None:
    assert UpdateNotesTool.model_validate({"lines": ["a", " ", "b\nc"]}).lines == ["a", "b c"]
    with pytest.raises(ValidationError):
        UpdateNotesTool.model_validate({"lines": ["x"] * 6})
    with pytest.raises(ValidationError, match="at most 120"):
        UpdateNotesTool.model_validate({"lines": ["x" * 121]})


def test_offers_are_narrowed_to_the_legal_actions() -> None:
    game = Game.from_deal([2, 3, 1, 1, 2, 2, 4, 5, 6])
    game.apply(game.legal_actions(2)[0])  # the 占い師 at P2 divines before day 1
    game.advance()
    legal = game.legal_actions(1)  # P1, a 村人, speaks first on day 1
    offers = {o.name: o for o in discussion_offers(1, legal, lambda action: ToolOutput("ok"))}
    assert set(offers) == {"speak", "request_claim"}  # a 村人 may not claim
    schema = offers["request_claim"].spec().parameters
    assert schema["properties"]["role"]["enum"] == ["占い師"]  # day 1: only the seer may be asked
    assert all(not isinstance(a, Claim) for a in legal)
    game.apply(Speak(1, "やあ"))
    seer_offers = {o.name: o for o in discussion_offers(2, game.legal_actions(2), lambda a: ToolOutput("ok"))}
    claim = seer_offers["claim"].spec().parameters["properties"]
    assert claim["role"]["enum"] == ["占い師"]  # the real seer may claim only its own role


def test_vote_offer_and_actions() -> None:
    legal = [Vote(3, 1), Vote(3, 2), Vote(3, 4)]
    (offer,) = round_offers(3, legal, lambda action: ToolOutput("ok"))
    assert offer.spec().parameters["properties"]["target"]["enum"] == ["P1", "P2", "P4"]
    with pytest.raises(ValidationError):
        offer.model.model_validate({"target": "P3", "reason": "self"})
    assert action_from_tool(3, VoteTool(target="P2", reason="r")) == Vote(3, 2, "r")
    claim = ClaimTool(role="占い師", target="P4", result="黒", text="見えた")
    assert action_from_tool(5, claim) == Claim(5, Role.SEER, 4, Colour.BLACK, "見えた")
    with pytest.raises(ValueError, match="both target and result"):
        action_from_tool(5, ClaimTool(role="占い師", target="P4"))
    with pytest.raises(ValueError, match="unknown role"):
        action_from_tool(5, ClaimTool(role="魔法使い"))


def test_a_blank_speech_or_vote_reason_is_silence_after_folding_white_space() -> None:
    # the schema allows white space only (a grammar may write it), so it is normalised, not refused
    assert SpeakTool.model_validate({"text": "  \n\t "}).text == "……"
    assert VoteTool.model_validate({"target": "P2", "reason": "\n"}).reason == "……"
    assert SpeakTool.model_validate({"text": " 僕は \n 村人です "}).text == "僕は 村人です"


def _claims_the_schema_allows(offer: object) -> list[dict[str, object]]:
    from tests.test_tool_schemas import allowed_values

    schema = offer.spec().parameters  # type: ignore[attr-defined]
    return [a for a in allowed_values(schema, schema.get("$defs", {})) if isinstance(a, dict)]


def test_a_claim_schema_requires_the_result_exactly_when_the_rules_do() -> None:
    # A grammar built from the schema (llama.cpp's) lets a model write only what the schema
    # allows: every claim it allows must be one the rules accept, or the turn falls back
    game = Game.from_deal([2, 3, 1, 1, 2, 2, 4, 5, 6])  # P2 占い師, P7 狩人
    game.apply(game.legal_actions(2)[0])
    game.advance()
    schemas: dict[int, dict[str, Any]] = {}
    for seat in range(1, 8):  # the seats speak in turn up to the 狩人
        legal = game.legal_actions(seat)
        offers = {o.name: o for o in discussion_offers(seat, legal, lambda a: ToolOutput("ok"))}
        if seat in (2, 7):
            schemas[seat] = offers["claim"].spec().parameters
            allowed = _claims_the_schema_allows(offers["claim"])
            assert allowed
            for arguments in allowed:
                action = action_from_tool(seat, offers["claim"].validate(arguments))
                assert game.is_legal(action), (seat, arguments)
        game.apply(Speak(seat, "やあ"))
    assert {"role", "target", "result"} <= set(schemas[2]["required"])  # the 占い師 states its 事前占い
    assert "target" not in schemas[7]["properties"] and "result" not in schemas[7]["properties"]


def test_every_claim_a_mixed_schema_allows_is_played_not_refused() -> None:
    # A wolf may claim a role with a result (占い師) or without (狩人, 霊媒師 on day 1): the
    # result fields are optional, so a grammar may write a result with 狩人, or half a result;
    # what cannot stand is dropped (the role claimed alone), not refused (before: "a claim's
    # result needs both target and result", or the rules' refusal of a 狩人 with a result)
    game = Game.from_deal([2, 3, 1, 1, 2, 2, 4, 5, 6])  # P3, P4 人狼
    game.apply(game.legal_actions(2)[0])
    game.advance()
    checked = 0
    for seat in range(1, 5):
        legal = game.legal_actions(seat)
        played: list[Any] = []

        def apply(action: Any, played: list[Any] = played) -> ToolOutput:
            played.append(action)
            return ToolOutput("ok")

        claim = {o.name: o for o in discussion_offers(seat, legal, apply)}.get("claim")
        parameters = claim.spec().parameters if claim is not None else {}
        properties = parameters.get("properties", {})
        if claim is not None and "target" in properties and "target" not in parameters.get("required", []):
            # the roles a wolf may claim without a result (a 占い師's claim needs its result,
            # which no normalising can make up: that pair is the schema's to say)
            roles = sorted({a.role.label for a in legal if isinstance(a, Claim) and a.target is None})
            target = properties["target"]["enum"][0]  # an optional field holds its enum (no null)
            colour = properties["result"]["enum"][0]
            for role in roles:
                for arguments in ({"role": role}, {"role": role, "target": target},
                                  {"role": role, "result": colour},
                                  {"role": role, "target": target, "result": colour}):
                    claim.handler(claim.validate(arguments))
                    assert game.is_legal(played[-1]), (seat, arguments, played[-1])
            assert {"狩人", "霊媒師"} <= set(roles)
            checked += 1
        game.apply(Speak(seat, "やあ"))
    assert checked == 2  # both wolves
