"""Tools a model may call, and the turn runner that applies them safely.

Declaring a tool
----------------
A tool is declared once, as a pydantic model of its arguments::

    class Vote(Tool):
        \"\"\"Vote for the player you want to leave the table.\"\"\"

        tool_name: ClassVar[str] = "vote"
        target: str = Field(description="seat of the player you vote for")

Its OpenAI function schema is generated (:meth:`Tool.spec`), never written by hand, and says
every constraint its validators check (lengths, enums), or the validators normalise what the
schema cannot say (a name is stripped rather than refused: :func:`stripped_or`), so that a
server building a grammar from it cannot write a value the engine then refuses. A tool that
is book-keeping rather than the turn's action (a persona's notes) sets ``uses_action = False``.

Each turn, the session offers only the tools legal for the current actor and phase,
and narrows their choice fields to enums of the current legal choices::

    offer = Offer.of(Vote, handler=lambda v: game.apply_vote("P3", v.target),
                     target=["P2", "P4", "P5"])   # schema: {"enum": ["P2", "P4", "P5"]}

Running a turn
--------------
:class:`TurnRunner` sends the request, and for every tool call of the answer:

* broken JSON, arguments that are not an object  -> an error naming what was wrong;
* an unknown tool (or one not offered now)        -> an error listing the tools allowed;
* arguments that fail the (narrowed) argument model -> a readable validation error,
  naming the allowed values;
* a handler raising :class:`ModelRetry` (the engine refused the action: the handler
  translates the engine's own refusal, see :func:`retry_on`) -> an error with its message.

An answer with no tool calls is read for calls written in its text (``<tool_call>`` tags,
a JSON code block or object naming an offered tool), which are applied like sent ones; a
text-only answer where an action is required gets one corrective re-ask, and a second goes
to the fallback. Both recoveries are recorded as ``recovery`` events.

Any other exception a handler raises is a program error: it propagates out of
:meth:`TurnRunner.run` (it is not answered to the model, nor covered by the fallback).

Each error goes back to the model as the tool call's result and the model is asked
again; the handler runs only after full validation, and an engine's refusal must leave
its state unchanged (the engine's contract), so an error never changes the state.
After ``retry_budget`` retries the ``fallback`` (the offline agent's choice) is applied
through the same handler and a ``fallback`` event is recorded. Every request,
response, tool result and fallback is emitted to the session's event sink as the typed
events of :mod:`gm_engine.events` (the fallback's by :func:`fallback_event`).

Usage (inside the session's one event loop)::

    runner = TurnRunner(backend, sink, retry_budget=3)
    result = await runner.run(actor="P3", messages=messages, offers=[offer, ...],
                              fallback=lambda: Vote(target=agent_choice), context=view,
                              day=2, phase="vote", turn=7)
    result.actions      # the AppliedAction(s), result.fallback, result.errors
    result.messages     # the conversation with the answers appended

``offers`` may also be a function returning the offers of the moment, asked again
before every request (the adventure GM's free turns: ``require_action=False``,
``max_actions=N``; the turn ends on a text answer or on an output with ``ends_turn``).
A fallback may return None: no action, but the ``fallback`` event is still recorded.

Errors of this module: :class:`ModelRetry` (raised by a handler: the model's call was
refused, tell it why and let it try again), :class:`ToolDefinitionError` (a tool or
offer is declared wrongly: a programming error) and :class:`TurnError` (a turn cannot
finish: the budget ran out with no fallback, or the fallback itself was refused). All
subclass ValueError.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Generic, Literal, ParamSpec, TypeVar, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model

from gm_engine.events import (
    EventSink,
    FallbackEvent,
    ModelRequestEvent,
    ModelResponseEvent,
    NullSink,
    RecoveryEvent,
    ToolResultEvent,
)
from gm_engine.llm.base import (
    JsonDict,
    MalformedAnswerError,
    ModelBackend,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolSpec,
    TransientBackendError,
    assistant_message,
    tool_message,
    user_message,
)
from gm_engine.llm.text_calls import calls_in_text, how_to_write_a_call

P = ParamSpec("P")
R = TypeVar("R")


class ModelRetry(ValueError):
    """Raised by a tool handler: the call was refused (the rules do not allow it, or its
    arguments make no sense together), nothing changed, and the message tells the model
    what was wrong so that it can try again."""


def retry_on(
    *refusals: type[Exception],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator of a tool handler: the engine's ``refusals`` (its documented exceptions for
    an action it does not allow) become :class:`ModelRetry` with the same message; any other
    exception goes on as it is (a program error)."""

    def decorate(handler: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(handler)
        def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return handler(*args, **kwargs)
            except refusals as exc:
                raise ModelRetry(str(exc)) from exc

        return wrapped

    return decorate


class ToolDefinitionError(ValueError):
    """A tool or an offer is declared wrongly (no name, no legal choice, unknown field)."""


class TurnError(ValueError):
    """A turn cannot finish: the retry budget ran out without a fallback, or the fallback was refused."""


def stripped_or(default: str) -> AfterValidator:
    """Validator metadata of a name the model writes (``Annotated[str, stripped_or("…")]``):
    white space around it is stripped rather than refused (a model, or the grammar a server
    builds from the schema, may well put a space first), and a name of white space only
    becomes ``default``. Give its length with ``Field`` as usual.

    There is no ``pattern`` for "not blank": llama.cpp's JSON-schema grammar, given a
    pattern, drops the string's length limits and copies a character class into the grammar
    as written (``\\s`` is no escape it knows), so normalising is the one way a grammar and
    the engine agree."""

    def normalise(text: str) -> str:
        return text.strip() or default

    return AfterValidator(normalise)


class Tool(BaseModel):
    """Base class of a tool: subclass it with the tool's argument fields.

    Set ``tool_name``; the description is ``tool_description`` or, by default, the
    class docstring. Instances are the validated arguments of one call.
    """

    # built when a tool is first validated or described, not when its class is defined: a
    # session offers a few of the tools a module declares, and a replay validates fewer
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    tool_name: ClassVar[str] = ""
    tool_description: ClassVar[str] = ""
    #: Whether a call of this tool counts against a turn's ``max_actions`` and stands for
    #: the turn's action (False for book-keeping such as a persona's notes: a turn whose
    #: model only kept its notes still owes its action).
    uses_action: ClassVar[bool] = True
    #: What a call does to the table, for clients that show or gate tools by it (the MCP
    #: server's tool annotations): ``read_only`` changes nothing; ``destructive`` may take
    #: something away for good (HP, a spell slot, the game itself) rather than only add;
    #: ``idempotent`` has no further effect when repeated with the same arguments.
    read_only: ClassVar[bool] = False
    destructive: ClassVar[bool] = False
    idempotent: ClassVar[bool] = False
    #: The model of :attr:`ToolOutput.data` of every accepted call, when the handler always
    #: returns one (its JSON schema is the tool's output schema); None: free-form data.
    output_model: ClassVar[type[BaseModel] | None] = None

    @classmethod
    def description(cls) -> str:
        """The description shown to the model."""
        if cls.tool_description:
            return cls.tool_description
        doc = cls.__doc__ or ""
        # a narrowed subclass made by create_model has no docstring of its own
        for klass in cls.__mro__:
            if klass.__doc__ and klass is not Tool and issubclass(klass, Tool):
                doc = klass.__doc__
                break
        return inspect.cleandoc(doc) if doc else cls.tool_name

    @classmethod
    def spec(cls) -> ToolSpec:
        """The tool's spec with its JSON schema generated from the argument model.

        Raises:
            ToolDefinitionError: the class has no ``tool_name``.
        """
        if not cls.tool_name:
            raise ToolDefinitionError(f"{cls.__name__} has no tool_name")
        return _spec_of(cls)

    @classmethod
    def narrowed(cls, **legal: Sequence[str | int]) -> type[Tool]:
        """A subclass whose named fields accept only ``legal`` values (an enum in the schema).

        A field declared as a list gets a list of those values; a field that may be
        None keeps None allowed. Fields not named are unchanged.

        Raises:
            ToolDefinitionError: an unknown field, or no legal value for a field.
        """
        if not legal:
            return cls
        key = tuple(sorted((name, tuple(values)) for name, values in legal.items()))
        return _narrowed(cls, key)


@functools.lru_cache(maxsize=4096)
def _spec_of(cls: type[Tool]) -> ToolSpec:
    # a tool class's schema never changes, and turns offer the same classes again and again
    schema = _clean_schema(cls.model_json_schema())
    schema.pop("description", None)  # the docstring is already the tool's description
    schema.setdefault("required", [])  # strict mode wants the list even when it is empty
    return ToolSpec(name=cls.tool_name, description=cls.description(), parameters=schema)


@functools.lru_cache(maxsize=4096)
def _narrowed(cls: type[Tool], legal: tuple[tuple[str, tuple[str | int, ...]], ...]) -> type[Tool]:
    # the same legal choices give the same class, so its schema is built once
    fields: dict[str, Any] = {}
    for name, values in legal:
        info = cls.model_fields.get(name)
        if info is None:
            raise ToolDefinitionError(f"{cls.__name__} has no field {name!r}")
        choices = tuple(dict.fromkeys(values))
        if not choices:
            raise ToolDefinitionError(f"{cls.tool_name}: no legal value for {name!r}; do not offer it")
        default: Any = ... if info.is_required() else info.default
        new_type = _narrowed_type(info.annotation, choices)
        fields[name] = (new_type, Field(default=default, description=info.description))
    narrowed: type[Tool] = create_model(cls.__name__, __base__=cls, __module__=cls.__module__, **fields)
    return narrowed


@dataclass(frozen=True)
class _ChoiceOrder:
    """Annotation metadata (ignored by pydantic) that keeps a narrowed union's choices in
    the order given: typing caches ``X | None`` by equality, and two Literals of the same
    values in another order are equal, so without it an optional field would list its
    choices in whatever order this process happened to see first."""

    choices: tuple[str | int, ...]


def _narrowed_type(annotation: Any, choices: tuple[str | int, ...]) -> Any:
    literal: Any = Literal.__getitem__(choices)
    origin = get_origin(annotation)
    optional = type(None) in get_args(annotation)
    is_list = origin in (list, tuple) or any(get_origin(a) is list for a in get_args(annotation))
    new_type: Any = list[literal] if is_list else literal
    if optional:
        new_type = Annotated[new_type, _ChoiceOrder(choices)] | None
    return new_type


Narrowing = tuple[tuple[str, tuple[str | int, ...]], ...]


@functools.lru_cache(maxsize=4096)
def _narrowed_spec(cls: type[Tool], legal: Narrowing) -> ToolSpec:
    """The spec of ``_narrowed(cls, legal)`` without building that model.

    Building a narrowed pydantic model costs about a millisecond, and a round of votes
    asks for eight new ones a day (each seat's targets leave itself out). The schema of a
    narrowed model depends on the choices only through their list (and on whether there
    is one choice or several: pydantic writes the keys of a one-value Literal in another
    order), so it is made once per shape with marker values standing for the choices,
    which are then put in. The result is the very schema the narrowed model would give
    (tested key order included); any case outside that (non-string choices, no choice at
    all) takes the exact path."""
    choices = {name: tuple(dict.fromkeys(values)) for name, values in legal}
    if any(not values or not all(isinstance(v, str) for v in values) for values in choices.values()):
        return _spec_of(_narrowed(cls, legal))
    markers: dict[str, tuple[str | int, ...]] = {
        name: tuple(f"\x00{name}\x00{i}" for i in range(min(2, len(values))))
        for name, values in choices.items()
    }
    template = _spec_of(_narrowed(cls, tuple(markers.items())))
    by_marker = {values: list(choices[name]) for name, values in markers.items()}
    filled = _fill_markers(template.parameters, by_marker)
    if "\x00" in json.dumps(filled):  # pragma: no cover - a marker in a place not understood
        return _spec_of(_narrowed(cls, legal))
    return ToolSpec.model_construct(name=template.name, description=template.description, parameters=filled)


def _fill_markers(schema: Any, by_marker: Mapping[tuple[str | int, ...], list[str | int]]) -> Any:
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "enum" and isinstance(value, list) and tuple(value) in by_marker:
                out[key] = list(by_marker[tuple(value)])
            else:
                out[key] = _fill_markers(value, by_marker)
        return out
    if isinstance(schema, list):
        return [_fill_markers(item, by_marker) for item in schema]
    return schema


def _clean_schema(schema: Any) -> Any:
    """Drop pydantic's ``title`` keys (noise in a prompt) and write a one-value ``const`` as
    an ``enum`` (every choice field reads the same, and servers that build a grammar from
    the schema know ``enum`` best); an optional field is written as what it holds when given
    (:func:`_optional_field`); keep everything else."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        if "const" in schema and "enum" not in schema:
            schema = {k if k != "const" else "enum": v if k != "const" else [v] for k, v in schema.items()}
        required = schema.get("required", [])
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {
                    k: _clean_schema(v if k in required else _optional_field(v)) for k, v in value.items()
                }
            else:
                out[key] = _clean_schema(value)
        return out
    if isinstance(schema, list):
        return [_clean_schema(item) for item in schema]
    return schema


def _optional_field(schema: Any) -> Any:
    """An optional field's schema without its ``default`` and, when it is "this or null", as
    just "this": leaving the field out already says "none", and a prompt pays for every key of
    every tool offered (a claim's optional result was a fifth of a discussion turn's tools).
    The model still accepts an explicit null, so nothing that was valid is refused."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k != "default"}
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (kept,) = [o for o in options if o != {"type": "null"}]
        if isinstance(kept, dict):
            rest = {k: v for k, v in out.items() if k != "anyOf"}
            out = {**kept, **rest}
    return out


@dataclass(frozen=True)
class ToolOutput:
    """What a handler returns: the text sent back to the model, data for the record,
    and whether the turn ends with this action (e.g. a pause handing the turn to the player)."""

    text: str
    data: JsonDict = field(default_factory=dict)
    ends_turn: bool = False


T = TypeVar("T", bound=Tool)


@dataclass(frozen=True)
class Offer(Generic[T]):
    """A tool as offered this turn: its (narrowed) argument model and the handler that applies it.

    The handler receives validated arguments and applies them to the engine; it raises
    :class:`ModelRetry` (leaving the state unchanged) when the engine refuses the action.

    An offer made with :meth:`narrowing` keeps the declared tool in ``tool`` and its
    choices in ``legal``: the spec is made without the narrowed model, which
    :attr:`model` builds on first use. Validate arguments with :meth:`validate`, which
    builds it only to explain arguments outside the choices.
    """

    tool: type[T]
    handler: Callable[[T], ToolOutput | str]
    legal: Narrowing = ()

    @classmethod
    def of(
        cls, tool: type[T], handler: Callable[[T], ToolOutput | str], **legal: Sequence[str | int]
    ) -> Offer[T]:
        """Offer ``tool`` with its choice fields narrowed to ``legal`` values."""
        narrowed: Any = tool.narrowed(**legal)
        return cls(tool=narrowed, handler=handler)

    @classmethod
    def narrowing(
        cls, tool: type[T], handler: Callable[[T], ToolOutput | str], **legal: Sequence[str | int]
    ) -> Offer[T]:
        """Like :meth:`of`, with the narrowed model built only when first needed.

        Raises:
            ToolDefinitionError: an unknown field, or no legal value for a field.
        """
        key = tuple(sorted((name, tuple(values)) for name, values in legal.items()))
        for name, values in key:
            if name not in tool.model_fields:
                raise ToolDefinitionError(f"{tool.__name__} has no field {name!r}")
            if not values:
                raise ToolDefinitionError(f"{tool.tool_name}: no legal value for {name!r}; do not offer it")
        return cls(tool=tool, handler=handler, legal=key)

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.tool.tool_name

    @property
    def model(self) -> type[T]:
        """The argument model that validates a call (narrowed to ``legal``)."""
        if not self.legal:
            return self.tool
        narrowed: Any = _narrowed(self.tool, self.legal)
        return narrowed  # type: ignore[no-any-return]

    def validate(self, raw: Mapping[str, Any]) -> T:
        """The validated arguments of a call, as :attr:`model` validates them.

        A call whose choice fields hold exactly the offered values (a string or number of
        the choices' own type, or a list of them) is validated by the declared tool alone:
        the narrowed model would take the same values and give the same fields, so it is
        not built (building one costs more than the rest of the turn, and each seat's
        choices differ). Any other call is validated by :attr:`model`, whose errors name
        the allowed values.

        Raises:
            pydantic.ValidationError: the arguments are not valid for the narrowed tool.
        """
        if self.legal and _offered_values(raw, self.legal):
            try:
                return self.tool.model_validate(raw)
            except ValidationError:
                pass  # explained by the narrowed model below
        return self.model.model_validate(raw)

    def spec(self) -> ToolSpec:
        """The tool spec sent to the model."""
        if self.legal:
            return _narrowed_spec(self.tool, self.legal)
        return self.tool.spec()


@dataclass(frozen=True)
class AppliedAction:
    """One action the engine accepted in a turn."""

    tool: str
    arguments: Tool
    output: ToolOutput
    by_fallback: bool = False

    @property
    def uses_action(self) -> bool:
        """Whether this action counts as the turn's action (see :attr:`Tool.uses_action`)."""
        return type(self.arguments).uses_action


@dataclass(frozen=True)
class TurnResult:
    """How a turn went: the actions applied, the model's last text, the conversation
    (the messages given plus everything appended), the errors answered, and whether the
    fallback decided."""

    actions: tuple[AppliedAction, ...]
    content: str | None
    messages: tuple[JsonDict, ...]
    errors: tuple[str, ...]
    fallback: bool
    responses: int

    @property
    def ended_by_tool(self) -> bool:
        """Whether an applied action ended the turn (e.g. a pause)."""
        return any(a.output.ends_turn for a in self.actions)


#: The offline agent's choice when the budget runs out: a tool's arguments (applied through
#: the offer of that name), or None for "no action" (the turn just ends; still recorded).
Fallback = Callable[[], Tool | None]


class ServerFaults:
    """How many turns in a row the server failed (a 5xx, a timeout, a lost connection, after
    the retries), shared by every turn of a session.

    A server that fails now and then (one answer in four a 500) should cost the turns it
    failed, not the game: such a turn is played by its fallback, as for an unreadable
    answer. A server that is down fails turn after turn: with :attr:`limit` turns failed in
    a row the next failure is raised, and the session stops, resumable. Any answer resets
    the count. The default, two, is enough for a server that fails one request in four (a
    turn fails when all its attempts do: about one in 250; three in a row about one in
    16 million), and stops a session on a dead server at its third failed turn, so that
    little of a game is played by fallbacks while nobody is answering. (A concurrent round's
    turns count in the order they fail.)
    """

    __slots__ = ("in_a_row", "limit")

    def __init__(self, limit: int = 2) -> None:
        self.limit = limit
        self.in_a_row = 0

    def failed(self) -> bool:
        """Count a failed turn; True while the fallback may still play it."""
        self.in_a_row += 1
        return self.in_a_row <= self.limit

    def answered(self) -> None:
        """The server answered: the run of failures is over."""
        self.in_a_row = 0


class TurnRunner:
    """Runs one actor's turn against a backend, applying its tool calls safely.

    Args:
        backend: the model backend.
        sink: receives every event (default: dropped).
        retry_budget: how many times the model is asked again after an error, per turn.
        max_responses: a cap on model answers per turn (a model that keeps calling
            tools forever is stopped; this counts as running out of budget).
        faults: the session's count of server failures: with it, a turn whose request
            failed after the retries is played by its fallback while the server has not
            failed :attr:`ServerFaults.limit` turns in a row; without it, the failure is
            raised at once.
    """

    def __init__(
        self,
        backend: ModelBackend,
        sink: EventSink | None = None,
        *,
        retry_budget: int = 3,
        max_responses: int = 16,
        faults: ServerFaults | None = None,
    ) -> None:
        self.backend = backend
        self.sink: EventSink = sink if sink is not None else NullSink()
        self.retry_budget = retry_budget
        self.max_responses = max_responses
        self.faults = faults

    async def run(
        self,
        *,
        actor: str,
        messages: Sequence[JsonDict],
        offers: Sequence[Offer[Any]] | Callable[[], Sequence[Offer[Any]]],
        fallback: Fallback | None = None,
        context: object | None = None,
        require_action: bool = True,
        max_actions: int = 1,
        model: str | None = None,
        day: int = 0,
        phase: str = "",
        turn: int = 0,
        parallel_tool_calls: bool | None = None,
        vet: Callable[[str], Sequence[str]] | None = None,
    ) -> TurnResult:
        """Run one turn.

        The turn ends when ``max_actions`` actions were applied (a tool whose
        :attr:`Tool.uses_action` is False is not counted, nor taken for the turn's action),
        when an action's output has ``ends_turn``, or when the model answers with text only
        and either ``require_action`` is False or an action was already applied. With
        ``require_action`` (the default) a text-only answer before any action gets one
        corrective re-ask (an error that also describes each tool's schema and how to write
        a call in the text); a second text-only answer goes to the fallback at once.

        Calls the model wrote in its text (``<tool_call>`` tags, a JSON code block or object
        naming an offered tool; see :mod:`gm_engine.llm.text_calls`) when it sent none are
        applied like sent ones; each such recovery, and each re-ask, is recorded as a
        ``recovery`` event.

        ``offers`` may be a function returning the offers of the moment: it is called
        again before every request, so a free turn (the adventure GM's) sees the tools
        that became legal with the actions it already took.

        ``vet`` sees the text of every answer before its tool calls are applied (the
        adventure's narration guard); the problems it returns are an error answered like
        the others: none of that answer's calls is applied, and the model is asked again.

        When the budget runs out, ``fallback`` is asked; its action is applied, a
        ``fallback`` event is emitted and a user message telling the model what was done
        in its name is appended to the conversation. So it is when the backend raises
        :class:`~gm_engine.llm.base.MalformedAnswerError` (a server answer that could not be
        read, after the backend's own retries): that ``model_response`` event carries an
        ``error`` instead of an answer, and the turn goes to the fallback at once.

        Raises:
            TurnError: the budget ran out and there is no fallback while an action was
                required, or the fallback's action was refused.
            ToolDefinitionError: two offers have the same name.
        """
        by_name, specs = _index(offers() if callable(offers) else offers)
        convo: list[JsonDict] = [dict(m) for m in messages]
        actions: list[AppliedAction] = []
        errors: list[str] = []
        content: str | None = None
        responses = 0
        ended = False
        faulted = False  # a malformed answer from the server ended the turn
        reasked = False  # the one corrective re-ask after a text-only answer was made

        def acted() -> int:
            return sum(1 for a in actions if a.uses_action)

        while not ended:
            if len(errors) > self.retry_budget or responses >= self.max_responses:
                break
            if callable(offers) and responses:
                # the legal tools may have changed with the actions applied so far
                by_name, specs = _index(offers())
            wants_tool = require_action and not acted() and bool(specs)
            request = ModelRequest(
                actor=actor,
                messages=tuple(convo),
                tools=specs,
                tool_choice="required" if wants_tool else ("auto" if specs else "none"),
                model=model,
                day=day,
                phase=phase,
                turn=turn,
                parallel_tool_calls=parallel_tool_calls,
            )
            self.sink.emit(ModelRequestEvent.of(request))
            try:
                response = await self.backend.complete(request, context)
            except TransientBackendError as exc:
                # the server's fault, not the model's, and retried already: the turn is played
                # by its fallback, like a model that did not act (an unreadable answer always;
                # a failed request while the server is not down). The event records the failure
                # so that a replay fails the same call the same way (as an unreadable answer).
                if not isinstance(exc, MalformedAnswerError) and (
                    self.faults is None or not self.faults.failed()
                ):
                    raise
                responses += 1
                faulted = True
                errors.append(f"error: the server's answer could not be read ({exc})")
                self.sink.emit(ModelResponseEvent.unreadable(actor, str(exc)))
                break
            if self.faults is not None:
                self.faults.answered()
            responses += 1
            self.sink.emit(ModelResponseEvent.of(actor, response))
            if not response.tool_calls and specs:
                written = calls_in_text(response.content, set(by_name))
                if written is not None:
                    # the model wrote its call in the text (a template without tool support, a
                    # small model): it is applied as if sent, and the conversation shows it as
                    # a call so that the tool's answer follows a call of the same id
                    self.sink.emit(
                        RecoveryEvent(
                            actor=actor, kind="calls_in_text", format=written.format, tool_calls=written.calls
                        )
                    )
                    response = response.model_copy(
                        update={"content": written.remaining, "tool_calls": written.calls}
                    )
            convo.append(assistant_message(response))
            content = response.content
            problems = list(vet(content)) if vet is not None and content else []
            if problems:
                for call in response.tool_calls:
                    text = "not executed: the narration of this answer was refused"
                    convo.append(tool_message(call.id, text))
                    self._emit_result(actor, call, ok=False, text=text)
                error = "error: your narration does not match the engine: " + "; ".join(problems)
                errors.append(error)
                convo.append(user_message(f"[engine] {error}. Write it again with the engine's facts."))
                content = None
                continue
            if not response.tool_calls:
                if wants_tool:
                    error = "error: you answered without calling a tool; call exactly one of: " + ", ".join(
                        by_name
                    )
                    errors.append(error)
                    if reasked:
                        # told once how to call, the model still talks: the fallback decides
                        # rather than the budget being spent on more of the same
                        self.sink.emit(
                            ToolResultEvent(actor=actor, tool=None, arguments=None, ok=False, result=error)
                        )
                        break
                    reasked = True
                    self.sink.emit(RecoveryEvent(actor=actor, kind="reask"))
                    convo.append(user_message(f"[engine] {error}\n{how_to_write_a_call(specs)}"))
                    self.sink.emit(
                        ToolResultEvent(actor=actor, tool=None, arguments=None, ok=False, result=error)
                    )
                    continue
                break
            for call in response.tool_calls:
                offer = by_name.get(call.name)
                if ended and (offer is None or offer.tool.uses_action):
                    # book-keeping (a persona's notes) sent in the same answer still stands
                    text = "not executed: the turn had already ended with an earlier call"
                    convo.append(tool_message(call.id, text))
                    self._emit_result(actor, call, ok=False, text=text)
                    continue
                applied, text = self._try_call(call, by_name)
                convo.append(tool_message(call.id, text))
                self._emit_result(actor, call, ok=applied is not None, text=text)
                if applied is None:
                    errors.append(text)
                    continue
                actions.append(applied)
                if applied.output.ends_turn or acted() >= max_actions:
                    ended = True

        used_fallback = False
        needs_action = require_action and not acted() and bool(specs)
        spent = len(errors) > self.retry_budget or responses >= self.max_responses
        if not ended and (needs_action or faulted or spent):
            if fallback is None:
                if needs_action:
                    raise TurnError(
                        f"{actor}: no legal action after {len(errors)} errors and no fallback; "
                        f"last error: {errors[-1] if errors else 'none'}"
                    )
            else:
                if callable(offers):
                    by_name, specs = _index(offers())
                reason = errors[-1] if errors else "no action within the response cap"
                applied = self._apply_fallback(actor, fallback, by_name, reason, convo)
                used_fallback = True
                if applied is not None:
                    actions.append(applied)
        return TurnResult(
            actions=tuple(actions),
            content=content,
            messages=tuple(convo),
            errors=tuple(errors),
            fallback=used_fallback,
            responses=responses,
        )

    def _apply_fallback(
        self,
        actor: str,
        fallback: Fallback,
        offers: Mapping[str, Offer[Any]],
        reason: str,
        convo: list[JsonDict],
    ) -> AppliedAction | None:
        choice = fallback()
        if choice is None:
            self.sink.emit(fallback_event(actor, None, reason))
            return None
        chosen = offers.get(choice.tool_name)
        if chosen is None:
            raise TurnError(f"{actor}: the fallback chose {choice.tool_name!r}, which is not offered")
        try:
            arguments = chosen.validate(choice.model_dump())
        except ValidationError as exc:
            raise TurnError(f"{actor}: the fallback's action was refused: {exc}") from exc
        event = fallback_event(actor, arguments, reason)
        dumped = event.arguments
        # the decision is recorded before its effects (the handler may emit events of its own)
        self.sink.emit(event)
        try:
            output = _as_output(chosen.handler(arguments))
        except ModelRetry as exc:
            raise TurnError(f"{actor}: the fallback's action was refused: {exc}") from exc
        # so that the model, next time, knows what was done in its name
        convo.append(
            user_message(
                f"[engine] after the errors above, the engine took this action for you: "
                f"{chosen.name} {json.dumps(dumped, ensure_ascii=False)} -> {output.text}"
            )
        )
        return AppliedAction(chosen.name, arguments, output, by_fallback=True)

    def _emit_result(self, actor: str, call: ToolCall, *, ok: bool, text: str) -> None:
        self.sink.emit(
            ToolResultEvent(actor=actor, tool=call.name, arguments=call.arguments, ok=ok, result=text)
        )

    def _try_call(self, call: ToolCall, offers: Mapping[str, Offer[Any]]) -> tuple[AppliedAction | None, str]:
        allowed = ", ".join(offers) or "(none)"
        offer = offers.get(call.name)
        if offer is None:
            return None, f"error: unknown tool {call.name!r}; the tools allowed now are: {allowed}"
        try:
            raw = json.loads(call.arguments) if call.arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return None, (
                f"error: the arguments of {call.name} are not valid JSON ({exc.msg} at character {exc.pos}); "
                f"send a JSON object matching the tool's schema"
            )
        if not isinstance(raw, dict):
            kind = type(raw).__name__
            return None, f"error: the arguments of {call.name} must be a JSON object, not {kind}"
        try:
            arguments = offer.validate(raw)
        except ValidationError as exc:
            return None, f"error: invalid arguments for {call.name}: {_explain(exc, offer.model)}"
        try:
            output = _as_output(offer.handler(arguments))
        except ModelRetry as exc:  # any other exception is the program's fault: it goes on up
            return None, f"error: {call.name} refused by the rules: {exc}"
        return AppliedAction(call.name, arguments, output), output.text


def _offered_values(raw: Mapping[str, Any], legal: Narrowing) -> bool:
    """Whether every narrowed field of ``raw`` is absent (its default stands) or holds offered
    values of the very types offered (so no coercion can differ from the narrowed model's)."""

    def offered(value: object, choices: tuple[str | int, ...]) -> bool:
        return type(value) in (str, int) and any(value == c and type(c) is type(value) for c in choices)

    for name, choices in legal:
        if name not in raw:
            continue
        value = raw[name]
        if isinstance(value, list):
            if not all(offered(item, choices) for item in value):
                return False
        elif not offered(value, choices):
            return False
    return True


def fallback_event(actor: str, choice: Tool | None, reason: str) -> FallbackEvent:
    """The ``fallback`` event of ``actor``'s turn: the tool the offline agent chose with its
    arguments as JSON (None: no action), and ``reason``, why the model's turn did not stand."""
    if choice is None:
        return FallbackEvent(actor=actor, tool=None, arguments=None, reason=reason)
    return FallbackEvent(
        actor=actor, tool=choice.tool_name, arguments=choice.model_dump(mode="json"), reason=reason
    )


def _index(offers: Sequence[Offer[Any]]) -> tuple[dict[str, Offer[Any]], tuple[ToolSpec, ...]]:
    by_name: dict[str, Offer[Any]] = {}
    for offer in offers:
        if offer.name in by_name:
            raise ToolDefinitionError(f"tool {offer.name!r} offered twice")
        by_name[offer.name] = offer
    return by_name, tuple(o.spec() for o in offers)


def _as_output(value: ToolOutput | str) -> ToolOutput:
    return value if isinstance(value, ToolOutput) else ToolOutput(text=value)


def _explain(exc: ValidationError, tool: type[Tool]) -> str:
    """A readable list of what was wrong, with the allowed values of enum fields."""
    parts: list[str] = []
    properties = _clean_schema(tool.model_json_schema()).get("properties", {})
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        message = f"{where}: {err['msg']}"
        if err["type"] == "extra_forbidden":
            message = f"{where}: unknown argument; the arguments are: {', '.join(properties) or '(none)'}"
        top = str(err["loc"][0]) if err["loc"] else ""
        enum = _enum_of(properties.get(top, {}))
        if enum:
            message += f" (allowed: {', '.join(json.dumps(v, ensure_ascii=False) for v in enum)})"
        parts.append(message)
    return "; ".join(parts)


def _enum_of(schema: Mapping[str, Any]) -> list[Any]:
    if "enum" in schema:
        return list(schema["enum"])
    for key in ("items", "anyOf"):
        inner = schema.get(key)
        if isinstance(inner, dict):
            found = _enum_of(inner)
            if found:
                return found
        if isinstance(inner, list):
            for option in inner:
                found = _enum_of(option)
                if found:
                    return found
    return []


def response_with_calls(
    *calls: tuple[str, Mapping[str, Any]], content: str | None = None, id_prefix: str = "call"
) -> ModelResponse:
    """A :class:`ModelResponse` with the given ``(tool name, arguments)`` calls (offline
    deciders and tests); the call ids are ``{id_prefix}_{n}``."""
    return ModelResponse(
        content=content,
        tool_calls=tuple(
            ToolCall(id=f"{id_prefix}_{i}", name=name, arguments=json.dumps(dict(args), ensure_ascii=False))
            for i, (name, args) in enumerate(calls)
        ),
    )


#: Why a fallback played a turn, by the kind of the turn's last error: a text-only answer
#: after the re-ask, arguments the tool's model refused, arguments that were not a JSON
#: object, a tool not offered, an action the rules refused, a server answer that could not
#: be read, narration that did not match the engine, the cap on answers reached, or a turn
#: that ended with no action and no error; ``other`` for anything else.
FallbackCause = Literal[
    "text_only",
    "invalid_arguments",
    "broken_json",
    "unknown_tool",
    "refused_by_rules",
    "unreadable_answer",
    "narration_refused",
    "response_cap",
    "no_action",
    "other",
]
FALLBACK_CAUSES: tuple[FallbackCause, ...] = get_args(FallbackCause)

#: A piece of each error text :class:`TurnRunner` writes (and of the werewolf session's
#: "no action" reason), with the cause it stands for; the first that a reason holds decides.
_CAUSE_MARKS: tuple[tuple[str, FallbackCause], ...] = (
    ("you answered without calling a tool", "text_only"),
    ("are not valid JSON", "broken_json"),
    ("must be a JSON object", "broken_json"),
    ("invalid arguments for", "invalid_arguments"),
    ("unknown tool", "unknown_tool"),
    ("refused by the rules", "refused_by_rules"),
    ("the server's answer could not be read", "unreadable_answer"),
    ("your narration does not match the engine", "narration_refused"),
    ("no action within the response cap", "response_cap"),
    ("the turn ended without an action", "no_action"),
)


def fallback_cause(reason: str) -> FallbackCause:
    """The cause a fallback event's ``reason`` (the turn's last error) stands for."""
    for mark, cause in _CAUSE_MARKS:
        if mark in reason:
            return cause
    return "other"
