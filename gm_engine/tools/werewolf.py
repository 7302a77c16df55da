"""The werewolf game's tools, declared once as pydantic models.

Seats are named ``P1`` .. ``P9`` in every tool; the session narrows each choice field to
the legal values of the moment (living players, claimable roles, ...) with
:meth:`gm_engine.tools.base.Tool.narrowed`, so the schema a model sees is an enum of what
the rules allow right now. Free text (a speech, a vote reason) is capped in length but
never interpreted: legality is decided from the structured fields alone.

Every description is a prompt's tokens in every turn that offers the tool, so a field says
nothing its name and its enum say already (``text``, ``role``, ``target`` of a vote); only
what a name leaves open is described (a claim's ``target`` is whose result it is).

==================  =================================  ===============================
tool                rules command                      offered
==================  =================================  ===============================
``speak``           CMD_議論                           on a discussion turn
``claim``           CMD_CO                             on a discussion turn, if legal
``request_claim``   CMD_CO要求                         on a discussion turn, if legal
``state_result``    stating a further result           after one's 占い師/霊媒師 claim
``decline``         answering a CO要求 without a claim  when a CO要求 is pending
``vote``            CMD_投票 / 決選投票                 in a vote round
``attack``          CMD_襲撃                           a living 人狼 at night
``divine``          CMD_占い / CMD_事前占い             the 占い師 at night
``guard``           CMD_護衛                           the 狩人 at night
``update_notes``    (MEMO: at most five lines)         the day's last discussion round
==================  =================================  ===============================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from gm_engine.tools.base import ModelRetry, Offer, Tool, ToolOutput
from gm_engine.werewolf.actions import (
    Action,
    Attack,
    Claim,
    Decline,
    Divine,
    Guard,
    RequestClaim,
    Speak,
    StateResult,
    Vote,
)
from gm_engine.werewolf.citations import CitedFact
from gm_engine.werewolf.records import Colour, Role

#: A persona's notes (the rules' MEMO): at most this many lines, each at most this long.
MAX_NOTE_LINES = 5
MAX_NOTE_CHARS = 120
MAX_SPEECH_CHARS = 400
MAX_REASON_CHARS = 120

ColourLabel = Literal["白", "黒"]

#: Every role and colour by the label a tool (or a typed command) names it with.
ROLE_BY_LABEL: dict[str, Role] = {role.label: role for role in Role}
COLOUR_BY_LABEL: dict[str, Colour] = {colour.label: colour for colour in Colour}


def seat_label(seat: int) -> str:
    """``3`` -> ``"P3"``."""
    return f"P{seat}"


def seat_number(label: str) -> int:
    """``"P3"`` -> ``3``.

    Raises:
        ValueError: ``label`` is not ``P1`` .. ``P9``.
    """
    if len(label) == 2 and label[0] == "P" and label[1] in "123456789":
        return int(label[1])
    raise ValueError(f"not a seat: {label!r} (use P1 .. P9)")


#: The public facts a line cites (:mod:`gm_engine.werewolf.citations`): the offline personas
#: fill it so that the transcript records what each line rests on. It is kept out of the
#: schema a model sees, and nothing the engine decides reads it.
Cites = SkipJsonSchema[tuple[CitedFact, ...]]


def _one_line(text: str) -> str:
    return " ".join(text.split())


#: Free text spoken at the table: its length is checked as written, then it is folded
#: onto one line (a model's line breaks would break the public log's one-line entries).
OneLineText = Annotated[str, AfterValidator(_one_line)]


#: What a persona who says nothing is taken to say.
SILENCE = "……"


def _silence_if_blank(text: str) -> str:
    # the schema allows " " (no pattern: see tools.base.stripped_or), so it is normalised, not refused
    return text or SILENCE


#: :data:`OneLineText` that says something (a speech, a vote's reason): white space only is
#: taken for silence.
SpokenText = Annotated[OneLineText, AfterValidator(_silence_if_blank)]


class SpeakTool(Tool):
    """発言する。"""

    tool_name: ClassVar[str] = "speak"
    text: SpokenText = Field(min_length=1, max_length=MAX_SPEECH_CHARS)
    cites: Cites = ()


class ClaimTool(Tool):
    """役職をCOする。"""

    tool_name: ClassVar[str] = "claim"
    role: str
    target: str | None = Field(default=None, description="結果の対象")
    result: ColourLabel | None = None
    text: OneLineText = Field(default="", max_length=MAX_SPEECH_CHARS)
    cites: Cites = ()


class ClaimWithResultTool(ClaimTool):
    """役職をCOし、結果を添える。"""

    # Offered when every legal claim carries a result: the fields are required, so that a
    # server that builds a grammar from the schema cannot leave the result out (the rules
    # would refuse the claim, and a model steered by that grammar would be refused again)
    target: str = Field(description="結果の対象")
    result: ColourLabel


def _result_required(schema: dict[str, Any]) -> None:
    # the result fields read as required in the schema, though the model accepts a claim
    # without them (see ClaimNeedsResultTool); written here as _optional_field would
    # write them, without the null and the default
    for name in ("target", "result"):
        field = schema["properties"][name]
        options = [o for o in field.pop("anyOf", []) if o != {"type": "null"}]
        field.pop("default", None)
        if options:
            field.update(options[0])
    schema["required"] = ["role", "target", "result"]


class ClaimNeedsResultTool(ClaimTool):
    """役職をCOし、結果を添える。"""

    # Offered when some role may be claimed only with a result (a 人狼's 占い師 on day 1)
    # and another only without one (its 狩人, its 霊媒師 before any execution): the schema
    # requires the result, so that a grammar built from it cannot write the claim the rules
    # refuse (a 占い師 without one), and the result a role-only claim comes with is dropped
    # (discussion_offers), not refused. The model itself still takes a claim without a
    # result, for a model that writes the role alone, which the rules then judge.
    model_config = ConfigDict(json_schema_extra=_result_required)


class ClaimRoleOnlyTool(ClaimTool):
    """役職をCOする。"""

    # Offered when no legal claim carries a result (a 狩人, a 霊媒師 before any execution):
    # the schema has no result fields for a grammar to fill
    target: SkipJsonSchema[None] = None
    result: SkipJsonSchema[None] = None


class RequestClaimTool(Tool):
    """CO要求する。"""

    tool_name: ClassVar[str] = "request_claim"
    role: str
    text: OneLineText = Field(default="", max_length=MAX_SPEECH_CHARS)
    cites: Cites = ()


class StateResultTool(Tool):
    """結果を一つ公表する。"""

    tool_name: ClassVar[str] = "state_result"
    target: str = Field(description="結果の対象")
    result: ColourLabel
    text: OneLineText = Field(default="", max_length=MAX_SPEECH_CHARS)
    cites: Cites = ()


class DeclineTool(Tool):
    """CO要求に名乗り出ない。"""

    tool_name: ClassVar[str] = "decline"
    text: OneLineText = Field(default="", max_length=MAX_SPEECH_CHARS)
    cites: Cites = ()


class VoteTool(Tool):
    """投票する（理由も公開）。"""

    tool_name: ClassVar[str] = "vote"
    target: str
    reason: SpokenText = Field(min_length=1, max_length=MAX_REASON_CHARS)
    cites: Cites = ()


class AttackTool(Tool):
    """今夜の襲撃先を選ぶ。"""

    tool_name: ClassVar[str] = "attack"
    target: str


class DivineTool(Tool):
    """占う相手を選ぶ。"""

    tool_name: ClassVar[str] = "divine"
    target: str


class GuardTool(Tool):
    """今夜守る相手を選ぶ。"""

    tool_name: ClassVar[str] = "guard"
    target: str


class UpdateNotesTool(Tool):
    """メモを書き換える（行動ではない）。"""

    tool_name: ClassVar[str] = "update_notes"
    uses_action: ClassVar[bool] = False  # keeping notes never costs the turn its action
    # each line's length is in the schema too, so that a grammar built from it keeps to it
    lines: list[Annotated[str, Field(max_length=MAX_NOTE_CHARS)]] = Field(max_length=MAX_NOTE_LINES)

    @field_validator("lines")
    @classmethod
    def _check_lines(cls, lines: list[str]) -> list[str]:
        kept = [_one_line(line) for line in lines if line.strip()]
        for line in kept:
            if len(line) > MAX_NOTE_CHARS:
                raise ValueError(f"a note line holds at most {MAX_NOTE_CHARS} characters, not {len(line)}")
        return kept


DISCUSSION_TOOLS: tuple[type[Tool], ...] = (
    SpeakTool,
    ClaimTool,
    RequestClaimTool,
    StateResultTool,
    DeclineTool,
)
NIGHT_TOOLS: tuple[type[Tool], ...] = (AttackTool, DivineTool, GuardTool)
ALL_TOOLS: tuple[type[Tool], ...] = (*DISCUSSION_TOOLS, VoteTool, *NIGHT_TOOLS, UpdateNotesTool)


# ---------------------------------------------------------------- tools <-> engine actions


def tool_names(legal: Sequence[Action]) -> list[str]:
    """The names of the tools that stand for ``legal`` actions, each once, in their order."""
    names: list[str] = []
    for action in legal:
        name = TOOL_OF_ACTION[type(action)]
        if name not in names:
            names.append(name)
    return names


#: The tool that stands for each kind of engine action.
TOOL_OF_ACTION: dict[type, str] = {
    Speak: "speak",
    Claim: "claim",
    RequestClaim: "request_claim",
    StateResult: "state_result",
    Decline: "decline",
    Vote: "vote",
    Attack: "attack",
    Divine: "divine",
    Guard: "guard",
}

#: Every werewolf tool by its name.
TOOLS_BY_NAME: dict[str, type[Tool]] = {tool.tool_name: tool for tool in ALL_TOOLS}


def _colour(label: str | None) -> Colour | None:
    return None if label is None else COLOUR_BY_LABEL[label]


def _seat(label: str) -> int:
    try:
        return seat_number(label)
    except ValueError as exc:  # a label the tool's schema let through: the model's to fix
        raise ModelRetry(str(exc)) from None


def action_from_tool(seat: int, args: Tool) -> Action:
    """The engine action a validated tool call stands for.

    Raises:
        ModelRetry: a seat label, role or colour that does not exist, or a result without its
            target (or the reverse).
    """
    if isinstance(args, SpeakTool):
        return Speak(seat, args.text)
    if isinstance(args, ClaimTool):
        if args.role not in ROLE_BY_LABEL:
            raise ModelRetry(f"unknown role {args.role!r}")
        if (args.target is None) != (args.result is None):
            raise ModelRetry("a claim's result needs both target and result (or neither)")
        target = None if args.target is None else _seat(args.target)
        return Claim(seat, ROLE_BY_LABEL[args.role], target, _colour(args.result), args.text)
    if isinstance(args, StateResultTool):
        return StateResult(seat, _seat(args.target), COLOUR_BY_LABEL[args.result], args.text)
    if isinstance(args, RequestClaimTool):
        if args.role not in ROLE_BY_LABEL:
            raise ModelRetry(f"unknown role {args.role!r}")
        return RequestClaim(seat, ROLE_BY_LABEL[args.role], args.text)
    if isinstance(args, DeclineTool):
        return Decline(seat, args.text)
    if isinstance(args, VoteTool):
        return Vote(seat, _seat(args.target), args.reason)
    if isinstance(args, AttackTool):
        return Attack(seat, _seat(args.target))
    if isinstance(args, DivineTool):
        return Divine(seat, _seat(args.target))
    if isinstance(args, GuardTool):
        return Guard(seat, _seat(args.target))
    raise ModelRetry(f"{args.tool_name} is not a game action")


def discussion_offers(
    seat: int, legal: Sequence[Action], apply: Callable[[Action], ToolOutput]
) -> list[Offer[Any]]:
    """The discussion tools legal for ``seat`` now, their choices narrowed to the legal values.

    Where the claim tool's result fields are optional (some legal claims carry a result and
    some do not), a result that cannot stand (written with a role none of whose legal claims
    carries one, a 狩人; or half of one, a target without its colour) is dropped rather than
    refused when the role may be claimed without it: the schema let a grammar write it."""
    claims = [a for a in legal if isinstance(a, Claim)]
    with_result = {c.role.label for c in claims if c.target is not None}
    role_only = {c.role.label for c in claims if c.target is None}

    def handler(args: Tool) -> ToolOutput:
        if isinstance(args, ClaimTool) and args.role in role_only:
            half = (args.target is None) != (args.result is None)
            if half or (args.role not in with_result and args.target is not None):
                args = args.model_copy(update={"target": None, "result": None})
        return apply(action_from_tool(seat, args))

    offers: list[Offer[Any]] = []
    if any(isinstance(a, Speak) for a in legal):
        offers.append(_offer(SpeakTool, handler))
    if claims:
        narrowed: dict[str, Sequence[str]] = {"role": _unique(c.role.label for c in claims)}
        targets = sorted({c.target for c in claims if c.target is not None})
        if targets:
            narrowed["target"] = [seat_label(t) for t in targets]
            narrowed["result"] = _unique(c.colour.label for c in claims if c.colour is not None)
        offers.append(_offer(_claim_tool(claims), handler, **narrowed))
    states = [a for a in legal if isinstance(a, StateResult)]
    if states:
        offers.append(
            _offer(
                StateResultTool,
                handler,
                target=[seat_label(t) for t in sorted({s.target for s in states})],
                result=_unique(s.colour.label for s in states),
            )
        )
    requests = [a for a in legal if isinstance(a, RequestClaim)]
    if requests:
        offers.append(_offer(RequestClaimTool, handler, role=_unique(r.role.label for r in requests)))
    if any(isinstance(a, Decline) for a in legal):
        offers.append(_offer(DeclineTool, handler))
    return offers


def _claim_tool(claims: Sequence[Claim]) -> type[ClaimTool]:
    """The claim tool whose schema says what the legal claims need: a result always
    (:class:`ClaimWithResultTool`), never (:class:`ClaimRoleOnlyTool`), for some role only
    with one (:class:`ClaimNeedsResultTool`: required, and dropped from a role claimed
    without one), or either, every role claimable without one (:class:`ClaimTool`, its
    result fields optional; the engine refuses a wrong pair)."""
    with_result = [c.target is not None for c in claims]
    if all(with_result):
        return ClaimWithResultTool
    if not any(with_result):
        return ClaimRoleOnlyTool
    role_only = {c.role for c in claims if c.target is None}
    if any(c.role not in role_only for c in claims):
        return ClaimNeedsResultTool
    return ClaimTool


def round_offers(
    seat: int, legal: Sequence[Action], record: Callable[[Action], ToolOutput]
) -> list[Offer[Any]]:
    """The vote or night tool of ``seat`` with its target narrowed to the legal targets."""

    def handler(args: Tool) -> ToolOutput:
        return record(action_from_tool(seat, args))

    offers: list[Offer[Any]] = []
    pairs: tuple[tuple[type, type[Tool]], ...] = (
        (Vote, VoteTool),
        (Attack, AttackTool),
        (Divine, DivineTool),
        (Guard, GuardTool),
    )
    for action_type, tool in pairs:
        targets = [
            seat_label(a.target)
            for a in legal
            if isinstance(a, Vote | Attack | Divine | Guard) and isinstance(a, action_type)
        ]
        if targets:
            offers.append(_offer(tool, handler, target=targets))
    return offers


def _offer(tool: type[Tool], handler: Callable[[Any], ToolOutput], **legal: Sequence[str]) -> Offer[Any]:
    """``Offer.narrowing``: building a narrowed pydantic model costs more than the rest of
    the turn, and each seat's vote targets differ (and change every day), so the model is
    built while the request is out, and the spec without it."""
    return Offer.narrowing(tool, handler, **legal)


def _unique(values: Any) -> list[str]:
    return list(dict.fromkeys(values))
