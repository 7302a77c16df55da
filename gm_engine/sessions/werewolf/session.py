"""The werewolf session's loop: :class:`WerewolfSession` asks the human and the personas in
the engine's order and applies their choices (see :mod:`gm_engine.sessions.werewolf`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gm_engine.dice.result import Locale
from gm_engine.dice.source import SeededSource
from gm_engine.events import (
    DiceEvent,
    EventSink,
    HumanInputEvent,
    StateEvent,
)
from gm_engine.llm.base import JsonDict, ModelBackend, system_message, user_message
from gm_engine.llm.prompts import load_prompts
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    AttackLabel,
    DealNotComposition,
    DivineLabel,
    GameQuit,
    GuardLabel,
    HumanNameUnusable,
    NarratorGameStarts,
    NarratorMorning,
    OptionsInvalid,
    PreDivineLabel,
    QuitSummary,
    RoleDealMismatch,
    VoteLabel,
    WonSummary,
)
from gm_engine.messages.validation import validation_message
from gm_engine.sessions.base import (
    SessionError,
    SessionIO,
    SessionOutcome,
    SessionSpec,
    register_session,
)
from gm_engine.sessions.interrupt import in_daemon_thread, run_interruptibly
from gm_engine.sessions.personas import Notes, NotesError, Persona, load_personas
from gm_engine.sessions.werewolf.facts import (
    RULES_KIND_OF_TASK,
    RulesKind,
    narrator_prompt,
    persona_system_prompt,
    persona_task_prompt,
    private_screen_lines,
    table_vars,
    who,
)
from gm_engine.sessions.werewolf.seat import HumanQuit, HumanSeat
from gm_engine.sessions.werewolf.sinks import BufferSink, CountingSink, SessionFigures
from gm_engine.sessions.werewolf_offline import (
    NarratorContext,
    PersonaTurnContext,
    TaskKind,
    decide_action,
    tool_call_for,
)
from gm_engine.tools.base import (
    ModelRetry,
    Offer,
    ServerFaults,
    Tool,
    ToolOutput,
    TurnError,
    TurnRunner,
    fallback_event,
    retry_on,
)
from gm_engine.tools.werewolf import (
    TOOLS_BY_NAME,
    UpdateNotesTool,
    action_from_tool,
    discussion_offers,
    round_offers,
    seat_label,
    tool_names,
)
from gm_engine.werewolf import (
    Action,
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Game,
    Guard,
    IllegalActionError,
    RequestClaim,
    Role,
    Speak,
    Stage,
    StateResult,
    Vote,
    WerewolfOptions,
    check_composition,
    observe,
    player_view,
    with_text,
)
from gm_engine.werewolf.actions import describe
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import (
    ClaimMade,
    ClaimRequested,
    DivineResult,
    GameEnded,
    MorningReport,
    ResultStated,
    Speech,
)
from gm_engine.werewolf.phrases import Passing, Table, meaning_action, read_line
from gm_engine.werewolf.phrases import Speech as SpeechMeaning
from gm_engine.werewolf.records import HUMAN_SEAT, PERSONA_NAMES
from gm_engine.werewolf.render import render_entries


class WerewolfSessionOptions(BaseModel):
    """The options of a werewolf session (``SessionSpec.options``), validated.

    Raises:
        pydantic.ValidationError: an unknown option, a role not 1..6, a deal that is not the
            composition, or a deal whose P1 role differs from ``role``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: int | None = Field(default=None, ge=1, le=6)
    """P1's role number (1 人狼 .. 6 狂人); None: the human chooses."""
    deal: tuple[int, ...] | None = None
    """Every seat's role, P1 first (a fixed deal for scenarios and tests)."""
    auto: bool = False
    """P1 is played by an offline agent (the caller supplies :class:`AutoHuman`)."""
    human_name: str = Field(default="プレイヤー", min_length=1, max_length=20)
    narrator: bool = True
    """Ask the GM narrator for a line at the start and every morning."""
    rules: WerewolfOptions = WerewolfOptions()
    """The table's rule options (discussion rounds, what the 狂人 may claim, ...)."""
    retry_budget: int = Field(default=2, ge=0, le=10)
    locale: Locale = "ja"
    """The language of the player's messages (the game's own texts stay Japanese)."""
    web: bool = False
    """P1 plays on a web page (``gm serve``), where the page is closed instead of ``/quit``:
    the helps say so. Recorded with the options, so a replay shows the same helps."""
    seat_agents: dict[int, str] = {}
    """Who plays a seat from outside the table, by seat (an AIWolf agent's name, see
    gm_engine.aiwolf): recorded with the options; the game does not read it."""

    @field_validator("seat_agents")
    @classmethod
    def _agent_seats(cls, agents: dict[int, str]) -> dict[int, str]:
        if any(seat not in range(2, 10) for seat in agents):
            raise ValueError(f"seat_agents の席は P2〜P9 です（指定: {sorted(agents)}）")
        return agents

    @field_validator("deal")
    @classmethod
    def _check_deal(cls, deal: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if deal is not None:
            try:
                check_composition(deal)
            except ValueError as exc:  # the engine's refusal in the rules' words, and a message
                raise OptionRefused(str(exc), DealNotComposition(",".join(map(str, deal)))) from None
        return deal

    @field_validator("human_name")
    @classmethod
    def _distinct_name(cls, name: str) -> str:
        name = " ".join(name.split())
        if not name or name in PERSONA_NAMES.values() or "(" in name or ")" in name:
            unusable = HumanNameUnusable(name)
            raise OptionRefused(render(unusable), unusable)
        return name

    @model_validator(mode="after")
    def _role_matches_deal(self) -> WerewolfSessionOptions:
        if self.deal is not None and self.role is not None and self.deal[0] != self.role:
            mismatch = RoleDealMismatch(self.role, self.deal[0])
            raise OptionRefused(render(mismatch), mismatch)
        return self


@dataclass
class _Turn:
    """The outcome of one persona's turn in a concurrent round."""

    seat: int
    number: int
    sink: BufferSink
    chosen: Action | None = None
    notes: Notes | None = None
    error: str = ""

    def fallback_reason(self) -> str:
        """Why the fallback agent plays this turn."""
        return self.error or "the turn ended without an action"


Phase = Literal["discussion", "answer", "vote", "runoff", "night", "pre_divination"]


class WerewolfSession:
    """One game: the engine, the eight personas with their notes, and the table's IO."""

    def __init__(
        self,
        spec: SessionSpec,
        options: WerewolfSessionOptions,
        io: SessionIO,
        personas: Sequence[Persona] | None = None,
        seat_backends: Mapping[int, ModelBackend] | None = None,
    ) -> None:
        self.spec = spec
        # where a seat's decisions come from when not from the table's model (an AIWolf
        # agent, gm_engine.aiwolf): asked with the same requests, refereed the same way
        self.seat_backends: dict[int, ModelBackend] = dict(seat_backends or {})
        self.options = options
        self.io = io
        self.figures = SessionFigures()
        self.sink: EventSink = CountingSink(io.sink, self.figures)
        self.server_faults = ServerFaults()  # a server failing now and then costs turns, not the game
        cast = tuple(personas) if personas is not None else load_personas()
        self.personas: dict[int, Persona] = {p.seat: p for p in cast}
        self.notes: dict[int, Notes] = {seat: Notes() for seat in self.personas}
        self.source = SeededSource(spec.seed)
        rules = options.rules
        if options.deal is not None:
            self.game = Game.from_deal(options.deal, rules, options.human_name, source=self.source)
        else:
            self.game = Game.new(self.source, rules, options.human_name)
        # The offline model's agents and the fallback's agents draw their own dice, apart from
        # the game's: which backend plays never changes the deal.
        self.agents = {s: OfflineAgent(s, SeededSource(f"{spec.seed}/agent/{s}")) for s in self.personas}
        self.fallback_agents = {
            s: OfflineAgent(s, SeededSource(f"{spec.seed}/fallback/{s}")) for s in self.personas
        }
        self._system: dict[tuple[int, RulesKind], str] = {}
        self._table_key: tuple[int, str, bool] | None = None
        self._table: dict[str, Any] = {}
        self._turn = 0
        self._shown_public = 0
        self._shown_private = 0
        self._dice_mark = self.source.mark()
        self._narration: asyncio.Task[tuple[BufferSink, str | None]] | None = None
        self.seat = HumanSeat(
            self.game, io.human, self.show, self._record_answer, options.locale, web=options.web
        )

    # ------------------------------------------------------------ output

    def show(self, text: str) -> None:
        """Put a line on the human's screen."""
        self.io.show(text)

    def _show_new(self) -> None:
        """Show the public entries (the engine's fixed texts) and P1's own news not shown yet."""
        view = player_view(self.game, HUMAN_SEAT)
        new = list(view.public.log[self._shown_public :])
        ending = [e for e in new if isinstance(e, GameEnded)]
        for entry in new:
            if isinstance(entry, GameEnded):
                continue
            for line in render_entries([entry], view, self.options.locale):
                self.show(line)
        self._shown_public = len(view.public.log)
        for fact in view.private.log[self._shown_private :]:
            if isinstance(fact, DivineResult) and fact.pre:
                continue  # render_entries shows the 事前占い result to the seer with its cue
            for line in private_screen_lines(fact, view.public, self.options.locale):
                self.show(line)
        self._shown_private = len(view.private.log)
        # 【ゲーム終了】 comes last, after P1's own news
        for line in render_entries(ending, view, self.options.locale):
            self.show(line)

    def _state(self, step: str, sink: EventSink | None = None) -> None:
        """Record an engine step: the dice it drew and the engine's state hash after it
        (computed now, while the game is as the step left it)."""
        out = sink if sink is not None else self.sink
        dice = self.source.dice_since(self._dice_mark)
        if dice:
            out.emit(DiceEvent.of(dice))
            self._dice_mark = self.source.mark()
        out.emit(StateEvent(hash=self.game.state_hash(), step=step))

    # ------------------------------------------------------------ the human

    def _record_answer(self, prompt: str, text: str) -> None:
        self.sink.emit(HumanInputEvent(prompt=prompt, text=text))

    def _human_choose_role(self) -> None:
        self.seat.choose_role()
        self._state("choose_role")

    def _human_discussion(self) -> None:
        self.seat.discussion()
        self._state("human_discussion")
        self._show_new()

    def _reader_table(self, seat: int = HUMAN_SEAT) -> Table:
        """What the phrase reader needs to know of ``seat``'s situation (public facts only:
        the names, the CO要求 being answered, the seat's own claim)."""
        pub = player_view(self.game, seat).public
        names = {other: pub.name(other) for other in range(1, 10)}
        return Table.of(names, self.game.awaiting_claim, self.game.claims.get(seat))

    def _speech_as_said(self, action: Action) -> Action:
        """A persona's speech read as what it says: a sure CO要求, claim, result or pass in
        words is that action (the document: 「参加者が自分の役職を公に宣言した場合、COとして扱う」),
        under the same rules as the structured form; an unsure reading stays speech.

        Raises:
            ModelRetry: the engine refuses what the words say (e.g. a 村人 declaring a role);
                the message quotes the reading and the rule, and nothing changed.
        """
        if not isinstance(action, Speak) or not action.text:
            return action
        reading = read_line(action.text, self._reader_table(action.actor))
        if not reading.sure or isinstance(reading.meaning, SpeechMeaning):
            return action
        said = meaning_action(reading.meaning, action.actor, action.text)
        refusal = self.game.refusal(said)
        if refusal is not None:
            raise ModelRetry(
                f"この発言は「{describe(said)}」として扱われますが、できません: {refusal} "
                "（役職を名乗る・結果を言う・CO要求をする言葉を使わずに話すか、ルールに合う行動を選んでください）"
            )
        return said

    # ------------------------------------------------------------ persona turns

    def _next_turn(self) -> int:
        """The number of the next persona turn. Numbers are handed out in the engine's order
        (a concurrent round's in seat order, before any of its turns starts), never in the
        order turns happen to run, so that every choice keyed on them (the offline agents'
        words) is the same whatever the backend's timing."""
        self._turn += 1
        return self._turn

    def _context(self, seat: int, task: TaskKind, legal: Sequence[Action], number: int) -> PersonaTurnContext:
        return PersonaTurnContext(
            seat=seat,
            persona=self.personas[seat],
            notes=self.notes[seat],
            observation=observe(self.game, seat),
            legal=tuple(legal),
            task=task,
            turn=number,
            agent=self.agents[seat],
        )

    def _messages(self, seat: int, kind: TaskKind, template: str, task: Mapping[str, Any]) -> list[JsonDict]:
        view = player_view(self.game, seat)
        rules = RULES_KIND_OF_TASK[kind]
        system = self._system.get((seat, rules))
        if system is None:
            system = persona_system_prompt(self.personas[seat], view, self.game.options, rules)
            self._system[(seat, rules)] = system
        facts_only = rules == "vote"  # a vote rests on the day's facts and the reader's notes
        key = (len(self.game.public_log), self.game.phase.text(), facts_only)
        if self._table_key != key:
            self._table_key, self._table = key, table_vars(view.public, facts_only=facts_only)
        user = persona_task_prompt(template, self.personas[seat], self.notes[seat], view, task, self._table)
        return [system_message(system), user_message(user)]

    def _fallback_tool(self, seat: int, task: TaskKind, legal: Sequence[Action], number: int) -> Tool:
        """The fallback agent's choice for turn ``number`` of ``seat``: a function of the
        recorded game (its state, the seat's notes, its own dice), not of when it is asked.

        The engine plays it in the persona's name, and 「COは参加者本人が行う。GMが参加者の代わりに
        COしてはならない」: it may pass, speak, decline, vote or act at night, and makes a claim
        (or states a result, or calls for a claim) only where the rules force one, that is
        where the legal actions hold nothing else (the real holder answering a CO要求, a
        claimant re-asked for its result). Its words never read as a claim either.
        """
        ctx = self._context(seat, task, legal, number)
        ctx.agent = self.fallback_agents[seat]
        action = unforced_claim_withheld(decide_action(ctx), legal)
        name, arguments = tool_call_for(ctx, action)
        if name == "speak" and _reads_as_claim(str(arguments["text"]), self._reader_table(seat)):
            arguments = {"text": FALLBACK_SPEECH}
        tool = TOOLS_BY_NAME[name]
        return tool.model_validate(arguments)

    def _notes_offers(self, turn: _Turn, task: TaskKind) -> list[Offer[Any]]:
        """``update_notes`` in a discussion turn of the day's last round, where a persona has
        heard the day's talk and its notes then carry its view into the vote, the night and
        the next day, and nowhere else: an earlier turn's notes would be rewritten before they
        are read, a CO要求 answer, a vote or a night choice comes with the notes its last speech
        wrote (a vote's reason states its view in public), and the tool's schema would cost
        every such prompt a hundred tokens and more. The round is public (the day's length
        follows from the living seats, option ``one_round_at``)."""
        if task != "discussion" or self._round(turn.seat) < self._rounds_today():
            return []

        def update(args: UpdateNotesTool) -> ToolOutput:
            try:
                turn.notes = Notes.of(args.lines)
            except NotesError as exc:
                raise ModelRetry(str(exc)) from None
            return ToolOutput(text="メモを更新しました。続けて、この手番の行動のツールを呼んでください。")

        return [Offer.of(UpdateNotesTool, update)]

    async def _persona_turn(
        self,
        seat: int,
        *,
        task: TaskKind,
        phase: Phase,
        template: str,
        task_vars: Mapping[str, Any],
        offers: Callable[[_Turn], list[Offer[Any]]],
        legal: Sequence[Action],
        number: int,
    ) -> _Turn:
        """Ask one persona (turn ``number``); the offers' handlers record (concurrent) or
        apply (discussion)."""
        turn = _Turn(seat=seat, number=number, sink=BufferSink())
        backend = self.seat_backends.get(seat, self.io.backend)
        runner = TurnRunner(
            backend, turn.sink, retry_budget=self.options.retry_budget, faults=self.server_faults
        )
        messages = self._messages(seat, task, template, task_vars)
        context = self._context(seat, task, legal, number)
        try:
            await runner.run(
                actor=seat_label(seat),
                messages=messages,
                offers=[*offers(turn), *self._notes_offers(turn, task)],
                fallback=lambda: self._fallback_tool(seat, task, legal, number),
                context=context,
                max_actions=1,  # update_notes is not counted: it never costs the action
                model=self.spec.model,
                day=self.game.phase.day,
                phase=phase,
                turn=number,
                parallel_tool_calls=True,  # update_notes and the action in one answer
            )
        except TurnError as exc:
            # the model's failure: the caller applies the fallback agent's choice and records
            # why. A BackendError (the server's failure) is not caught: the session stops.
            turn.error = f"{type(exc).__name__}: {exc}"
        if turn.notes is not None:
            self.notes[seat] = turn.notes
        return turn

    # ------------------------------------------------------------ discussion

    def _discussion_offers(self, seat: int, legal: Sequence[Action]) -> Callable[[_Turn], list[Offer[Any]]]:
        def build(turn: _Turn) -> list[Offer[Any]]:
            @retry_on(IllegalActionError)  # the engine's refusal goes back to the model
            def apply(action: Action) -> ToolOutput:
                action = self._speech_as_said(action)
                self.game.apply(action)
                turn.chosen = action
                self._state(f"discussion P{seat}", turn.sink)
                return ToolOutput(text="受理されました", ends_turn=True)

            return discussion_offers(seat, legal, apply)

        return build

    async def _discussion_turn(self, seat: int) -> None:
        legal = self.game.legal_actions(seat)
        awaiting = self.game.awaiting_claim
        if awaiting is not None:
            requester = self._last_requester()
            must = not any(isinstance(a, Decline) for a in legal)
            claims = [a for a in legal if isinstance(a, Claim | StateResult) and a.target is not None]
            hint = ""
            if must and claims:
                hint = "、".join(
                    f"{seat_label(c.target)}は{c.colour.label}" for c in claims if c.target and c.colour
                )
            task: TaskKind = "answer"
            template = "claim.j2"
            task_vars: dict[str, Any] = {
                "requester": requester,
                "role": awaiting.label,
                "must_claim": must,
                "result_hint": hint,
                "tools": tool_names(legal),
            }
        else:
            task, template = "discussion", "discussion.j2"
            task_vars = {"round": self._round(seat), "tools": tool_names(legal)}
        turn = await self._persona_turn(
            seat,
            task=task,
            phase="answer" if task == "answer" else "discussion",
            template=template,
            task_vars=task_vars,
            offers=self._discussion_offers(seat, legal),
            legal=legal,
            number=self._next_turn(),
        )
        await self._flush_narration()
        turn.sink.flush(self.sink)
        if turn.chosen is None:
            # no action from the model (a text-only end, or the budget spent): the fallback plays
            tool = self._fallback_tool(seat, task, legal, turn.number)
            self.sink.emit(fallback_event(seat_label(seat), tool, turn.fallback_reason()))
            self.game.apply(action_from_tool(seat, tool))
            self._state(f"discussion P{seat} (fallback)")
        self._show_new()

    def _rounds_today(self) -> int:
        """The discussion rounds of today (nobody leaves during the discussion, so the living
        seats now are those the day started with)."""
        living = sum(1 for s in player_view(self.game, HUMAN_SEAT).public.seats if s.alive)
        return self.options.rules.rounds_on(self.game.phase.day, living)

    def _round(self, seat: int) -> int:
        day = self.game.phase.day
        spoken = sum(
            1
            for e in self.game.public_log
            if isinstance(e, Speech | ClaimMade | ResultStated | ClaimRequested)
            and e.day == day
            and e.speaker == seat
        )
        return spoken + 1

    def _last_requester(self) -> str:
        pub = player_view(self.game, HUMAN_SEAT).public
        for entry in reversed(pub.log):
            if isinstance(entry, ClaimRequested):
                return seat_label(entry.speaker)
        return "誰か"

    # ------------------------------------------------------------ concurrent rounds

    async def _concurrent_round(self, seats: Sequence[int], stage: Stage) -> None:
        """Votes (``stage`` VOTE or RUNOFF), the 事前占い (PRE_DIVINATION) or night actions
        (NIGHT): everyone decides at once from the same state, then the choices are applied
        in seat order (nobody saw anybody else's)."""
        tasks: list[asyncio.Task[_Turn]] = []
        persona_seats = [s for s in seats if s != HUMAN_SEAT]
        for seat in persona_seats:
            legal = self.game.legal_actions(seat)
            number = self._next_turn()
            tasks.append(asyncio.ensure_future(self._round_turn(seat, stage, legal, number)))
        try:
            await self._flush_narration()
            human_action: Action | None = None
            if HUMAN_SEAT in seats:
                legal = self.game.legal_actions(HUMAN_SEAT)
                label = render(_human_label(stage, legal), self.options.locale)
                if self.io.human.answers_at_once:
                    # an agent, not a person: no thread (whose hand-overs of the interpreter
                    # lock stall the loop); the personas' turns start first (one turn of the
                    # loop), so that their requests are not held up by its thinking
                    await asyncio.sleep(0)
                    human_action = self.seat.choose_target(label, legal)
                else:
                    human_action = await in_daemon_thread(lambda: self.seat.choose_target(label, legal))
            turns = await asyncio.gather(*tasks)
        except BaseException:
            # /quit, or a backend failure (the narrator's or one persona's): the other turns
            # are abandoned and no choice of the round is applied (the choices are applied
            # below, only once all are in)
            for pending in tasks:
                pending.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        await self._flush_narration()
        chosen: dict[int, Action] = {}
        if human_action is not None:
            chosen[HUMAN_SEAT] = human_action
        for turn in turns:
            turn.sink.flush(self.sink)
            if turn.chosen is None:
                legal = self.game.legal_actions(turn.seat)
                tool = self._fallback_tool(turn.seat, _ROUND_TASKS[stage], legal, turn.number)
                self.sink.emit(fallback_event(seat_label(turn.seat), tool, turn.fallback_reason()))
                turn.chosen = action_from_tool(turn.seat, tool)
            chosen[turn.seat] = turn.chosen
        for seat in sorted(chosen):
            self.game.apply(chosen[seat])
        self._state(f"{stage.value} " + ",".join(f"P{seat}" for seat in sorted(chosen)))

    async def _round_turn(self, seat: int, stage: Stage, legal: Sequence[Action], number: int) -> _Turn:
        def build(turn: _Turn) -> list[Offer[Any]]:
            def record(action: Action) -> ToolOutput:
                if not self.game.is_legal(action):
                    target = action.target if isinstance(action, Vote | Attack | Divine | Guard) else "?"
                    raise ModelRetry(f"{type(action).__name__} P{target} is not legal now")
                turn.chosen = action
                return ToolOutput(text="受け付けました", ends_turn=True)

            return round_offers(seat, legal, record)

        pub = player_view(self.game, seat).public
        targets = [who(pub, a.target) for a in legal if isinstance(a, Vote | Attack | Divine | Guard)]
        if stage in (Stage.VOTE, Stage.RUNOFF):
            return await self._persona_turn(
                seat,
                task="vote",
                phase="runoff" if stage is Stage.RUNOFF else "vote",
                template="vote.j2",
                task_vars={"runoff": stage is Stage.RUNOFF, "candidates": targets},
                offers=build,
                legal=legal,
                number=number,
            )
        first = legal[0]
        verbs = {Attack: ("attack", "襲撃する"), Divine: ("divine", "占う"), Guard: ("guard", "護衛する")}
        tool, verb = verbs[type(first)]
        role = self.game.role_of(seat)  # the seat's own role: part of its own private view
        pre = stage is Stage.PRE_DIVINATION
        return await self._persona_turn(
            seat,
            task="pre_divination" if pre else "night",
            phase="pre_divination" if pre else "night",
            template="night_action.j2",
            task_vars={
                "pre": pre,
                "role": role.label,
                "verb": verb,
                "candidates": targets,
                "tool": tool,
            },
            offers=build,
            legal=legal,
            number=number,
        )

    # ------------------------------------------------------------ narrator

    def _start_narration(self, happened: Message) -> None:
        """Ask the GM narrator for a line about ``happened`` (in the table's language)."""
        if not self.options.narrator:
            return
        locale = self.options.locale
        event = render(happened, locale)
        pub = player_view(self.game, HUMAN_SEAT).public
        messages = [user_message(narrator_prompt(pub, event, locale))]
        sink = BufferSink()
        runner = TurnRunner(self.io.backend, sink, retry_budget=0, faults=self.server_faults)
        day = self.game.phase.day
        public_log = tuple(pub.log)  # the narrator sees what P1 sees in public, nothing private
        names = ("", *(pub.name(seat) for seat in range(1, 10)))

        async def narrate() -> tuple[BufferSink, str | None]:
            try:
                result = await runner.run(
                    actor="GM",
                    messages=messages,
                    offers=[],
                    require_action=False,
                    context=NarratorContext(
                        event=event,
                        day=day,
                        log=public_log,
                        names=names,
                        opening=isinstance(happened, NarratorGameStarts),
                        locale=locale,
                    ),
                    model=self.spec.model,
                    day=day,
                    phase="narration",
                    turn=0,
                )
            except TurnError:  # a BackendError stops the session when the line is flushed
                return sink, None
            return sink, result.content

        self._narration = asyncio.ensure_future(narrate())

    async def _drop_narration(self) -> None:
        """Cancel a narration still in flight (the session is stopping); its line is lost."""
        task, self._narration = self._narration, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _flush_narration(self) -> None:
        if self._narration is None:
            return
        sink, text = await self._narration
        self._narration = None
        sink.flush(self.sink)
        if text:
            self.show(f"GM: {' '.join(text.split())}")

    # ------------------------------------------------------------ the loop

    async def run(self) -> SessionOutcome:
        """Play the game to its end (or until the human types ``/quit``).

        Raises:
            BackendError: the model's server failed (after the retry policy gave up); the
                game stops where it was, with no half-applied step.
        """
        # set-up before the game's clock starts: the templates and the backend's client
        load_prompts(*_TEMPLATES)
        self.io.backend.prepare()
        try:
            return await self._play()
        except HumanQuit:
            await self._drop_narration()
            self.show(render(GameQuit(), self.options.locale))
            return SessionOutcome(
                summary=render(QuitSummary(self.game.phase.day), self.options.locale),
                figures={"days": float(self.game.phase.day), "quit": 1.0},
                finished=False,
            )
        except BaseException:
            await self._drop_narration()
            raise

    async def _play(self) -> SessionOutcome:
        game = self.game
        if game.stage is Stage.CHOOSE_ROLE:
            if self.options.role is not None:
                self.game.apply(ChooseRole(HUMAN_SEAT, Role(self.options.role)))
                self._state("choose_role")
            else:
                self._human_choose_role()
        self._show_new()
        if game.stage is Stage.PRE_DIVINATION:
            self._start_narration(NarratorGameStarts())
        clock = time.perf_counter
        while not game.is_over:
            day = game.phase.day
            if day not in self.figures.day_started:
                self.figures.day_started[day] = clock()
                if day - 1 in self.figures.day_started:
                    self.figures.day_seconds[day - 1] = clock() - self.figures.day_started[day - 1]
            seats = game.to_act()
            stage = game.stage
            if not seats:
                entries = self.game.advance()
                self._state(f"advance {stage.value}")
                self._show_new()
                if stage is Stage.DEAL:
                    self._start_narration(NarratorGameStarts())
                elif any(isinstance(e, MorningReport) for e in entries) and not game.is_over:
                    self._start_narration(NarratorMorning(game.phase.day))
                continue
            if stage is Stage.CHOOSE_ROLE:
                self._human_choose_role()
            elif stage is Stage.DISCUSSION:
                seat = seats[0]
                if seat == HUMAN_SEAT:
                    await self._flush_narration()
                    self._human_discussion()
                else:
                    await self._discussion_turn(seat)
            elif stage in _ROUND_TASKS:
                await self._concurrent_round(seats, stage)
            else:  # pragma: no cover - every stage with actors is handled above
                raise SessionError(f"no handler for stage {stage.value}")
        await self._flush_narration()
        self._show_new()
        last = game.phase.day
        if last in self.figures.day_started:
            self.figures.day_seconds[last] = clock() - self.figures.day_started[last]
        outcome = game.outcome()
        assert outcome is not None
        figures: dict[str, float] = {
            "days": float(outcome.day),
            "model_calls": float(sum(self.figures.calls_by_day.values())),
            "fallbacks": float(self.figures.fallbacks),
        }
        summary = render(WonSummary(outcome.winner.value, outcome.day), self.options.locale)
        return SessionOutcome(summary=summary, figures=figures)


_TEMPLATES = ("persona_system.j2", "discussion.j2", "claim.j2", "vote.j2", "night_action.j2", "narrator.j2",
              "narrator_en.j2")

#: The stages whose turns run as one concurrent round, with the task each turn has.
_ROUND_TASKS: dict[Stage, TaskKind] = {
    Stage.VOTE: "vote",
    Stage.RUNOFF: "vote",
    Stage.PRE_DIVINATION: "pre_divination",
    Stage.NIGHT: "night",
}


#: What the fallback says in a persona's name when the agent's words would read as a claim.
FALLBACK_SPEECH = "今は様子を見ます。"

#: The actions that announce something in a seat's name: a claim, a stated result, a CO要求.
_CLAIMING = (Claim, StateResult, RequestClaim)


def unforced_claim_withheld(action: Action, legal: Sequence[Action]) -> Action:
    """``action``, unless it claims, states a result or calls for a claim while the rules
    leave another choice: then a pass (a speech turn) or a decline (a CO要求 answer)."""
    if not isinstance(action, _CLAIMING):
        return action
    for other in legal:
        if isinstance(other, Speak | Decline):
            return with_text(other, "")
    return action  # forced: every legal action claims (the real holder, a re-asked claimant)


def _reads_as_claim(text: str, table: Table) -> bool:
    """Whether ``text`` reads, surely or not, as anything but plain talk or a pass."""
    return not isinstance(read_line(text, table).meaning, SpeechMeaning | Passing)


def _human_label(stage: Stage, legal: Sequence[Action]) -> Message:
    """What P1 is asked to choose in a round of ``stage`` (投票先, 襲撃先, …)."""
    if stage in (Stage.VOTE, Stage.RUNOFF):
        return VoteLabel()
    if stage is Stage.PRE_DIVINATION:
        return PreDivineLabel()
    if legal and isinstance(legal[0], Attack):
        return AttackLabel()
    if legal and isinstance(legal[0], Guard):
        return GuardLabel()
    return DivineLabel()


def session_options(spec: SessionSpec) -> WerewolfSessionOptions:
    """The validated options of ``spec``.

    Raises:
        SessionError: an option is unknown or invalid (the message says which).
    """
    try:
        return WerewolfSessionOptions.model_validate(spec.options)
    except ValidationError as exc:
        if spec.options.get("locale") == "en":  # the options as given name the player's language
            problems = render(validation_message(exc, WerewolfSessionOptions), "en")
            raise SessionError(render(OptionsInvalid(problems), "en")) from None
        raise SessionError(render(OptionsInvalid(option_problems(exc)))) from None


class OptionRefused(ValueError):
    """An option the session's own checks refuse: ``str()`` is the rules' wording (what the
    Japanese screen shows), :meth:`explanation` the catalogue message (the English one)."""

    def __init__(self, text: str, message: Message) -> None:
        super().__init__(text)
        self.message = message

    def explanation(self) -> Message:
        """What was wrong, as a catalogue message."""
        return self.message


def option_problems(exc: ValidationError) -> str:
    """Which options were refused, with the values given (pydantic's own English stays out:
    the player reads the option's name and what they typed)."""
    return "、".join(_problem(err) for err in exc.errors())


def _problem(err: Any) -> str:
    where = ".".join(str(p) for p in err["loc"]) or "options"
    said = str(err.get("ctx", {}).get("error", ""))
    # the engine's own refusals (a deal that is not the composition) are in Japanese already
    reason = f"：{said}" if any(ord(c) > 0x3000 for c in said) else ""
    given = f"（{err.get('input')}）" if err["loc"] else ""  # not the whole options again
    return f"{where}{given}{reason}"


async def play_werewolf(
    spec: SessionSpec,
    io: SessionIO,
    personas: Sequence[Persona] | None = None,
    seat_backends: Mapping[int, ModelBackend] | None = None,
) -> tuple[SessionOutcome, SessionFigures]:
    """Play one game inside a running event loop; returns the outcome and the figures.
    ``seat_backends``: the seats whose turns another backend answers (see :class:`WerewolfSession`)."""
    session = WerewolfSession(spec, session_options(spec), io, personas, seat_backends)
    outcome = await session.run()
    return outcome, session.figures


@register_session("werewolf")
def run_werewolf(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
    """The ``werewolf`` session runner: one game, the human at P1."""
    if spec.kind != "werewolf":
        raise SessionError(f"not a werewolf spec: {spec.kind!r}")
    outcome, _ = run_interruptibly(play_werewolf(spec, io))
    return outcome
