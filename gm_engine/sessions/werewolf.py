"""The werewolf session: the human at P1 against the eight AI personas (``gm werewolf play``).

The rules engine (:class:`gm_engine.werewolf.Game`) drives the game; this module only asks
the players. Each persona's turn is one model request rendered from that persona's data,
its own notes, the public view and its own private view (never anything else), offering
the tools that are legal now with their choices narrowed to enums. The GM narrator and
the human's screen are rendered from the public view and P1's own private view only.

Flow (see :mod:`gm_engine.werewolf` for the engine's stages):

* 役職選択: ``options.role``, else the human chooses (or ``options.deal`` fixes every role);
* discussion: turns one at a time in the engine's order (speech, claim, CO要求, answers);
* votes and night actions: every persona's request runs concurrently (``asyncio.gather``);
  nobody sees another's choice, and the choices are applied in seat order afterwards;
* the fixed texts (【投票結果】, 【〇〇が退席しました】, 【公開情報】, 【ゲーム終了】), rendered by
  :mod:`gm_engine.werewolf.render` from P1's own view, go to the human's screen as the engine
  produces them.

Events (:mod:`gm_engine.sessions.base`): ``model_request``/``model_response``/
``tool_result``/``fallback`` per model turn, ``human_input`` per answer of the human,
``dice`` after the deal, ``state`` (the engine's state hash) after every engine step.
Turns that run concurrently buffer their events and emit them in seat order, so the
event stream is a deterministic function of the spec, the model's responses and the
human's inputs.

Prompts stay bounded as days pass: earlier days are summarised in one line each (claims,
results, votes, departures); only today's discussion is given in full.

Choices where the rules leave the table free (each a session option or a documented default):

* the human is called ``プレイヤー`` at the table (``human_name``; never a persona's name);
* the GM narrator adds one short line at the start and each morning, from public facts only,
  concurrently with the first turn so it costs no wall time (``narrator=False`` drops it);
* a persona's notes are replaced whole by ``update_notes``; more than five lines is refused
  (an error the model can fix), never silently cut;
* a turn the model cannot finish (retry budget spent, or no action at all) is played by a
  separate offline agent of that seat and recorded as a ``fallback`` event;
* a backend failure (:class:`~gm_engine.llm.base.BackendError`, a transient one included once
  the retry policy gave up) is the program's problem, not the model's: the session stops and
  raises it, with nothing of the unfinished step applied (a concurrent round applies its
  choices only once all are in), so a recorded game is left resumable (``gm resume``);
* ``/quit`` at any question ends the session without revealing any role.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import JsonDict, system_message, user_message
from gm_engine.llm.prompts import load_prompts, render_prompt
from gm_engine.sessions.base import (
    EventSink,
    SessionError,
    SessionIO,
    SessionOutcome,
    SessionSpec,
    register_session,
)
from gm_engine.sessions.personas import Notes, NotesError, Persona, load_personas
from gm_engine.sessions.werewolf_offline import (
    GAME_START_EVENT,
    NarratorContext,
    PersonaTurnContext,
    TaskKind,
    decide_action,
    tool_call_for,
)
from gm_engine.tools.base import Offer, Tool, ToolOutput, TurnError, TurnRunner, run_when_idle, until_idle
from gm_engine.tools.werewolf import (
    AttackTool,
    ClaimTool,
    DeclineTool,
    DivineTool,
    GuardTool,
    RequestClaimTool,
    SpeakTool,
    StateResultTool,
    UpdateNotesTool,
    VoteTool,
    seat_label,
    seat_number,
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
    MadmanClaims,
    RequestClaim,
    Role,
    Speak,
    StateResult,
    Vote,
    WerewolfOptions,
    check_composition,
    observe,
    player_view,
)
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import (
    ActionTaken,
    AttackResolved,
    ClaimMade,
    ClaimRequested,
    Declined,
    DivineResult,
    Executed,
    GameEnded,
    GuardResolved,
    MediumResult,
    MorningReport,
    NoExecution,
    PrivateEntry,
    PublicEntry,
    ResultStated,
    RoleDealt,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.phrases import Table, meaning_action, read_line
from gm_engine.werewolf.records import HUMAN_SEAT, PERSONA_NAMES, Colour
from gm_engine.werewolf.render import render_entries
from gm_engine.werewolf.views import PlayerView, PrivateView, PublicView, StatedResult

ROLE_BY_LABEL: dict[str, Role] = {role.label: role for role in Role}
COLOUR_BY_LABEL: dict[str, Colour] = {colour.label: colour for colour in Colour}
ABILITY_LABELS = {"vote": "投票先", "attack": "襲撃先", "divine": "占い先", "guard": "護衛先"}


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

    @field_validator("deal")
    @classmethod
    def _check_deal(cls, deal: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if deal is not None:
            check_composition(deal)
        return deal

    @field_validator("human_name")
    @classmethod
    def _distinct_name(cls, name: str) -> str:
        name = " ".join(name.split())
        if not name or name in PERSONA_NAMES.values() or "(" in name or ")" in name:
            raise ValueError(
                f"human_name {name!r} must be non-blank, without parentheses, and not a persona's name"
            )
        return name

    @model_validator(mode="after")
    def _role_matches_deal(self) -> WerewolfSessionOptions:
        if self.deal is not None and self.role is not None and self.deal[0] != self.role:
            raise ValueError(f"--role {self.role} and --deal (P1 = {self.deal[0]}) disagree")
        return self


# ---------------------------------------------------------------- texts built from views


def who(pub: PublicView, seat: int) -> str:
    """``トウダ(P2)``."""
    return f"{pub.name(seat)}({seat_label(seat)})"


def fact_lines(private: PrivateView, pub: PublicView, *, today_only: bool = False) -> list[str]:
    """The facts of one seat's private view, one line each, in the form prompts use.

    The secrecy tests build these lines from every other seat's view and check that none
    reaches a prompt it may not reach. ``today_only`` drops the seat's own earlier choices
    (its earlier votes are public by now), which keeps prompts bounded.
    """
    me = who(pub, private.seat)
    lines: list[str] = []
    divined = 0
    votes_by_day: dict[int, int] = {}
    for entry in private.log:
        first_divine = isinstance(entry, ActionTaken) and entry.ability == "divine" and divined == 0
        runoff = False
        if isinstance(entry, ActionTaken) and entry.ability == "divine":
            divined += 1
        if isinstance(entry, ActionTaken) and entry.ability == "vote":
            runoff = votes_by_day.get(entry.day, 0) > 0  # a second vote the same day is the 決選投票
            votes_by_day[entry.day] = votes_by_day.get(entry.day, 0) + 1
        lines.extend(_fact(entry, me, pub, today_only, pre=first_divine, runoff=runoff))
    return lines


def _fact(
    entry: PrivateEntry,
    me: str,
    pub: PublicView,
    today_only: bool,
    *,
    pre: bool = False,
    runoff: bool = False,
) -> list[str]:
    if isinstance(entry, RoleDealt):
        lines = [f"{me}の役職: {entry.role.label}"]
        for partner in entry.partners:
            lines.append(f"{who(pub, partner)}の役職: 人狼")
            lines.append(f"仲間の人狼: {who(pub, partner)}")
        return lines
    if isinstance(entry, ActionTaken):
        if today_only and entry.day != pub.day:
            return []
        # the 占い師's first divine is always the 事前占い, on "day 1" like the first night's
        if entry.ability == "divine" and pre:
            when = "事前占い"
        elif entry.ability == "vote":
            when = f"{entry.day}日目の決選投票" if runoff else f"{entry.day}日目"
        else:
            when = f"{entry.day}日目の夜"
        return [f"{me}の{when}の{ABILITY_LABELS[entry.ability]}: {who(pub, entry.target)}"]
    if isinstance(entry, DivineResult):
        when = "事前占い" if entry.pre else f"{entry.day}日目の朝"
        return [f"{me}の占い結果（{when}）: {who(pub, entry.target)}は{entry.colour.label}"]
    if isinstance(entry, MediumResult):
        when = f"{entry.executed_day}日目の退席者"
        return [f"{me}の霊媒結果（{when}）: {who(pub, entry.target)}は{entry.colour.label}"]
    if isinstance(entry, AttackResolved):
        outcome = "成功" if entry.killed else "護衛されて失敗"
        return [
            f"{entry.day}日目の朝に判明した襲撃: {who(pub, entry.target)}"
            f"（{who(pub, entry.decided_by)}の決定、{outcome}）"
        ]
    if isinstance(entry, GuardResolved):
        outcome = "襲撃を防いだ" if entry.success else "襲撃はなかった"
        return [f"{me}の護衛（{entry.day}日目の朝に判明）: {who(pub, entry.target)}（{outcome}）"]
    return []


def public_info(pub: PublicView) -> str:
    """The 【公開情報】 block: 追放者, 襲撃死者, 占い結果, 霊媒結果, CO状況 (public facts only)."""
    executed = "、".join(f"{who(pub, s)}（{d}日目）" for d, s in pub.executed) or "なし"
    victims = "、".join(f"{who(pub, s)}（{d}日目の朝）" for d, s in pub.victims) or "なし"
    divine = [r for r in pub.stated_results if r.role is Role.SEER]
    medium = [r for r in pub.stated_results if r.role is Role.MEDIUM]

    def results(stated: Sequence[StatedResult]) -> str:
        texts = [f"{pub.name(r.speaker)}→{pub.name(r.target)} {r.colour.label}" for r in stated]
        return "、".join(texts) or "なし"

    divine_text, medium_text = results(divine), results(medium)
    claimed = [f"{who(pub, s.seat)} {s.claim.label}" for s in pub.seats if s.claim is not None]
    claims = "、".join(claimed) or "なし"
    return "\n".join(
        [
            "【公開情報】",
            f"追放者: {executed}",
            f"襲撃死者: {victims}",
            f"占い結果: {divine_text}",
            f"霊媒結果: {medium_text}",
            f"CO状況: {claims}",
        ]
    )


def _entry_day(entry: PublicEntry) -> int:
    return int(getattr(entry, "day", 0))


def today_line(entry: PublicEntry, pub: PublicView) -> str | None:
    """One entry of today's log as a prompt line (None: not worth a line)."""
    if isinstance(entry, Speech):
        return f"{who(pub, entry.speaker)}: {entry.text or '（パス）'}"
    if isinstance(entry, ClaimMade):
        result = ""
        if entry.target is not None and entry.colour is not None:
            result = f" {pub.name(entry.target)}は{entry.colour.label}"
        return f"{who(pub, entry.speaker)} 【{entry.role.label}CO{result}】 {entry.text}".rstrip()
    if isinstance(entry, ResultStated):
        return (
            f"{who(pub, entry.speaker)} 【結果発表 {pub.name(entry.target)}は{entry.colour.label}】"
            f" {entry.text}"
        ).rstrip()
    if isinstance(entry, ClaimRequested):
        return f"{who(pub, entry.speaker)} 【CO要求 {entry.role.label}は名乗り出ろ】 {entry.text}".rstrip()
    if isinstance(entry, Declined):
        return f"{who(pub, entry.speaker)} 【名乗り出ない】 {entry.text}".rstrip()
    if isinstance(entry, MorningReport):
        if entry.victim is None:
            return "朝: 襲撃による退席者はいませんでした"
        return f"朝: {who(pub, entry.victim)}が襲撃されて退席しました"
    if isinstance(entry, VoteTally):
        label = "決選投票" if entry.runoff else "投票"
        votes = "、".join(f"{pub.name(v.voter)}→{pub.name(v.target)}（{v.reason}）" for v in entry.votes)
        return f"【{label}結果】{votes}"
    if isinstance(entry, Executed):
        return f"【{pub.name(entry.seat)}が退席しました】"
    if isinstance(entry, NoExecution):
        return "決選投票も同票のため、退席者はいません"
    return None


def day_summary(day: int, entries: Sequence[PublicEntry], pub: PublicView) -> str:
    """One line for a past day: morning, claims, stated results, requests, votes, departure."""
    parts: list[str] = []
    for entry in entries:
        if isinstance(entry, MorningReport):
            victim = "なし" if entry.victim is None else f" {pub.name(entry.victim)}"
            parts.append(f"朝 襲撃死{victim}")
        elif isinstance(entry, ClaimMade):
            result = ""
            if entry.target is not None and entry.colour is not None:
                result = f"（{pub.name(entry.target)} {entry.colour.label}）"
            parts.append(f"{pub.name(entry.speaker)} {entry.role.label}CO{result}")
        elif isinstance(entry, ResultStated):
            parts.append(f"{pub.name(entry.speaker)} 結果 {pub.name(entry.target)} {entry.colour.label}")
        elif isinstance(entry, ClaimRequested):
            parts.append(f"{pub.name(entry.speaker)} {entry.role.label}CO要求")
        elif isinstance(entry, VoteTally):
            label = "決選" if entry.runoff else "投票"
            votes = " ".join(f"{pub.name(v.voter)}→{pub.name(v.target)}" for v in entry.votes)
            parts.append(f"{label} {votes}")
        elif isinstance(entry, Executed):
            parts.append(f"退席 {pub.name(entry.seat)}")
        elif isinstance(entry, NoExecution):
            parts.append("退席なし")
    return f"{day}日目: " + (" / ".join(parts) if parts else "特になし")


def table_vars(pub: PublicView) -> dict[str, Any]:
    """The public part of every prompt: phase, who is alive, 【公開情報】, past days, today."""
    by_day: dict[int, list[PublicEntry]] = {}
    for entry in pub.log:
        by_day.setdefault(_entry_day(entry), []).append(entry)
    past = [day_summary(day, by_day[day], pub) for day in sorted(by_day) if 1 <= day < pub.day]
    today = [line for entry in by_day.get(pub.day, []) if (line := today_line(entry, pub)) is not None]
    gone = [f"{who(pub, s)}（{d}日目 追放）" for d, s in pub.executed]
    gone += [f"{who(pub, s)}（{d}日目の朝 襲撃）" for d, s in pub.victims]
    return {
        "day": pub.day,
        "phase": f"{pub.day}日目・{pub.time.label}・{pub.step.label}",
        "alive": [who(pub, s.seat) for s in pub.seats if s.alive],
        "gone": gone,
        "public_info": public_info(pub),
        "past_days": past,
        "today": today,
    }


def persona_vars(persona: Persona, *, werewolf: bool) -> dict[str, Any]:
    """The persona part of a prompt; the werewolf manner only when its role is 人狼."""
    voice = persona.voice
    filler = {"target": "〇〇", "role": "占い師", "color": "白"}
    samples = [voice.opening[0], voice.suspect[0], voice.trust[0], voice.defend[0], voice.vote_reason[0]]
    if werewolf:
        samples.append(voice.werewolf_cover[0])
    return {
        "name": persona.name,
        "label": persona.label,
        "first_person": persona.first_person,
        "manner": persona.manner,
        "werewolf_manner": persona.werewolf_manner if werewolf else "",
        "samples": [line.format(**filler) for line in samples],
    }


def persona_system_prompt(persona: Persona, view: PlayerView, rules: WerewolfOptions) -> str:
    """The persona's system message (persona, roster, rules): fixed for the whole game."""
    pub = view.public
    return render_prompt(
        "persona_system.j2",
        persona=persona_vars(persona, werewolf=view.private.role is Role.WEREWOLF),
        roster=[{"label": seat_label(s.seat), "name": s.name} for s in pub.seats],
        rules={"madman_may_claim": rules.madman_claims is MadmanClaims.LIKE_WEREWOLF},
    )


def persona_task_prompt(
    template: str,
    persona: Persona,
    notes: Notes,
    view: PlayerView,
    task: Mapping[str, Any],
    table: Mapping[str, Any] | None = None,
) -> str:
    """A persona's user message for one turn, from its own view and notes only.

    ``table`` may pass :func:`table_vars` of ``view.public`` already computed (it is the
    same for every reader at the same moment)."""
    return render_prompt(
        template,
        persona=persona_vars(persona, werewolf=view.private.role is Role.WEREWOLF),
        table=dict(table) if table is not None else table_vars(view.public),
        me={"facts": fact_lines(view.private, view.public, today_only=True)},
        notes=list(notes.lines),
        task=dict(task),
    )


def narrator_prompt(pub: PublicView, event: str) -> str:
    """The GM narrator's message: public facts and the event only."""
    return render_prompt("narrator.j2", table=table_vars(pub), event=event)


# ---------------------------------------------------------------- the human's screen


def private_screen_lines(entry: PrivateEntry, pub: PublicView) -> list[str]:
    """What P1 learns privately, as shown on its own screen."""
    if isinstance(entry, RoleDealt):
        lines = [f"あなたの役職は {entry.role.label} です"]
        if entry.partners:
            lines.append("仲間の人狼: " + "、".join(who(pub, p) for p in entry.partners))
        return lines
    if isinstance(entry, DivineResult):
        return [f"（占い結果）{who(pub, entry.target)}は{entry.colour.label}です"]
    if isinstance(entry, MediumResult):
        return [f"（霊媒結果）{who(pub, entry.target)}は{entry.colour.label}です"]
    if isinstance(entry, AttackResolved):
        outcome = "成功" if entry.killed else "失敗（護衛された）"
        return [f"（襲撃）{who(pub, entry.target)}への襲撃は{outcome}"]
    if isinstance(entry, GuardResolved):
        stopped = "。襲撃を防ぎました" if entry.success else ""
        return [f"（護衛）{who(pub, entry.target)}を護衛しました{stopped}"]
    return []


# ---------------------------------------------------------------- the human's commands

HUMAN_HELP = (
    "発言はそのまま入力してください。コマンド: /co 役職 [Pn 白|黒] (CO), /result Pn 白|黒 (結果発表), "
    "/request 占い師|霊媒師 (CO要求), /decline (名乗り出ない), /pass, /help"
)


def parse_discussion(text: str, seat: int, table: Table | None = None) -> Action:
    """The action a line typed at a discussion turn stands for.

    With ``table`` (the seat's situation), a line in words that surely means a CO要求, a claim,
    a result, a decline or a pass (:func:`gm_engine.werewolf.phrases.read_line`) is that
    action; an unsure reading stays speech until the session can confirm it back.

    Raises:
        ValueError: a command with a wrong form (the message says the right one).
    """
    line = " ".join(text.split())
    if not line.startswith("/"):
        reading = read_line(line, table) if table is not None and line else None
        if reading is not None and reading.sure:
            return meaning_action(reading.meaning, seat, line)
        return Speak(seat, line)
    command, _, rest = line.partition(" ")
    words = rest.split()
    if command == "/pass":
        return Speak(seat, "")
    if command == "/co":
        if not words or words[0] not in ROLE_BY_LABEL:
            raise ValueError("使い方: /co 占い師|狩人|霊媒師 [Pn 白|黒] [発言]")
        role = ROLE_BY_LABEL[words[0]]
        if len(words) >= 3 and words[2] in COLOUR_BY_LABEL:
            return Claim(seat, role, seat_number(words[1]), COLOUR_BY_LABEL[words[2]], " ".join(words[3:]))
        return Claim(seat, role, text=" ".join(words[1:]))
    if command == "/result":
        if len(words) < 2 or words[1] not in COLOUR_BY_LABEL:
            raise ValueError("使い方: /result Pn 白|黒 [発言]")
        return StateResult(seat, seat_number(words[0]), COLOUR_BY_LABEL[words[1]], " ".join(words[2:]))
    if command == "/request":
        if not words or words[0] not in ("占い師", "霊媒師"):
            raise ValueError("使い方: /request 占い師|霊媒師 [発言]")
        return RequestClaim(seat, ROLE_BY_LABEL[words[0]], " ".join(words[1:]))
    if command == "/decline":
        return Decline(seat, rest)
    raise ValueError(f"知らないコマンドです: {command}。{HUMAN_HELP}")


# ---------------------------------------------------------------- events


QUIT_WORDS = frozenset({"/quit", "/exit", "/end"})


class HumanQuit(Exception):
    """The human typed ``/quit``: the session stops where it is (no secret is revealed)."""


class BufferSink:
    """Keeps a concurrent turn's events until they can be emitted in seat order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Keep the event."""
        self.events.append((event_type, dict(payload)))

    def flush(self, sink: EventSink) -> None:
        """Pass every kept event on, in order, and forget them."""
        for event_type, payload in self.events:
            sink.emit(event_type, payload)
        self.events.clear()


@dataclass
class _Turn:
    """The outcome of one persona's turn in a concurrent round."""

    seat: int
    sink: BufferSink
    chosen: Action | None = None
    notes: Notes | None = None
    error: str = ""

    def fallback_reason(self) -> str:
        """Why the fallback agent plays this turn."""
        return self.error or "the turn ended without an action"


Phase = Literal["discussion", "answer", "vote", "runoff", "night", "pre_divination"]


@dataclass
class SessionFigures:
    """What a game cost: model calls and prompt sizes per day, and the wall time of each day."""

    calls_by_day: dict[int, int] = field(default_factory=dict)
    prompt_tokens_by_day: dict[int, list[int]] = field(default_factory=dict)
    day_started: dict[int, float] = field(default_factory=dict)
    day_seconds: dict[int, float] = field(default_factory=dict)
    fallbacks: int = 0


class _PendingHash:
    """The engine's state hash after one step, filled in later (see ``WerewolfSession._state``)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: str | None = None


class _CountingSink:
    """Counts model calls and prompt tokens per day on the way to the real sink.

    A ``state`` event whose hash is not computed yet is held back, with every event after
    it, until the hash is there (:meth:`drain`): the real sink gets the same events in the
    same order, each complete, only a little later. The human's answers are emitted from
    a worker thread during concurrent rounds, hence the lock."""

    def __init__(self, sink: EventSink, figures: SessionFigures) -> None:
        self.sink = sink
        self.figures = figures
        self._day = 0
        self._held: collections.deque[tuple[str, Mapping[str, Any]]] = collections.deque()
        self._lock = threading.Lock()

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        with self._lock:
            self._count(event_type, payload)
            self._held.append((event_type, payload))
            self._drain()

    def drain(self) -> None:
        """Pass on the held events, up to the first whose state hash is still pending."""
        with self._lock:
            self._drain()

    def _drain(self) -> None:
        while self._held:
            event_type, payload = self._held[0]
            pending = payload.get("hash")
            if isinstance(pending, _PendingHash):
                if pending.value is None:
                    return
                payload = {**payload, "hash": pending.value}
            self._held.popleft()
            self.sink.emit(event_type, payload)

    def _count(self, event_type: str, payload: Mapping[str, Any]) -> None:
        if event_type == "model_request":
            self._day = int(payload.get("day", 0))
            self.figures.calls_by_day[self._day] = self.figures.calls_by_day.get(self._day, 0) + 1
        elif event_type == "model_response":
            usage = payload.get("usage")
            if isinstance(usage, Mapping):
                tokens = int(usage.get("prompt_tokens", 0))
                self.figures.prompt_tokens_by_day.setdefault(self._day, []).append(tokens)
        elif event_type == "fallback":
            self.figures.fallbacks += 1


# ---------------------------------------------------------------- the session


class WerewolfSession:
    """One game: the engine, the eight personas with their notes, and the table's IO."""

    def __init__(
        self,
        spec: SessionSpec,
        options: WerewolfSessionOptions,
        io: SessionIO,
        personas: Sequence[Persona] | None = None,
    ) -> None:
        self.spec = spec
        self.options = options
        self.io = io
        self.figures = SessionFigures()
        self._counting = _CountingSink(io.sink, self.figures)
        self.sink: EventSink = self._counting
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
        self._system: dict[int, str] = {}
        self._table_key: tuple[int, str] | None = None
        self._table: dict[str, Any] = {}
        self._turn = 0
        self._shown_public = 0
        self._shown_private = 0
        self._dice_mark = self.source.mark()
        self._narration: asyncio.Task[tuple[BufferSink, str | None]] | None = None
        self._pending_hash: _PendingHash | None = None

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
            lines = render_entries([entry], view)
            # a claim made without a word: the renderer's speech line is the bare name
            silent = isinstance(entry, ClaimMade | ResultStated) and not entry.text
            if silent and lines and lines[0] == view.public.name(getattr(entry, "speaker", 0)):
                lines = lines[1:]
            for line in lines:
                self.show(line)
        self._shown_public = len(view.public.log)
        for fact in view.private.log[self._shown_private :]:
            if isinstance(fact, DivineResult) and fact.pre:
                continue  # render_entries shows the 事前占い result to the seer with its cue
            for line in private_screen_lines(fact, view.public):
                self.show(line)
        self._shown_private = len(view.private.log)
        for line in render_entries(ending, view):  # 【ゲーム終了】 comes last, after P1's own news
            self.show(line)

    def _state(self, step: str, sink: EventSink | None = None) -> None:
        """Record an engine step: the dice it drew and the state hash after it.

        The hash (a canonical dump of the whole game, a millisecond or two) is the same
        whenever it is computed as long as the game has not moved on, so it is computed
        when the event loop has nothing else to do (typically while the next model request
        is on the wire) and at the latest before the game's next change (:meth:`_apply`,
        :meth:`_advance`) or before its event reaches the real sink."""
        out = sink if sink is not None else self.sink
        dice = self.source.dice_since(self._dice_mark)
        if dice:
            out.emit("dice", {"dice": [[d.value, d.sides] for d in dice]})
            self._dice_mark = self.source.mark()
        self._settle()
        pending = _PendingHash()
        self._pending_hash = pending
        out.emit("state", {"hash": pending, "step": step})
        run_when_idle(self._settle)

    def _settle(self) -> None:
        """Compute the pending state hash (the game has not changed since its step)."""
        pending = self._pending_hash
        if pending is not None:
            pending.value = self.game.state_hash()
            self._pending_hash = None
            self._counting.drain()

    def _apply(self, action: Action) -> None:
        """Apply ``action`` to the game (the pending state hash is computed first)."""
        self._settle()
        self.game.apply(action)

    def _advance(self) -> list[PublicEntry]:
        """Advance the game to its next stage (the pending state hash is computed first)."""
        self._settle()
        return self.game.advance()

    # ------------------------------------------------------------ the human

    def _ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        observe_hook = getattr(self.io.human, "observe", None)
        if callable(observe_hook):
            observe_hook(observe(self.game, HUMAN_SEAT), self.game.legal_actions(HUMAN_SEAT))
        text = self.io.human.ask(prompt, choices)
        self.sink.emit("human_input", {"prompt": prompt, "text": text})
        if text.strip() in QUIT_WORDS:
            raise HumanQuit(text.strip())
        return text

    def _human_choose_role(self) -> None:
        menu = "、".join(f"{int(r)} {r.label}" for r in Role)
        while True:
            text = self._ask(f"役職番号を選んでください（{menu}）", [str(int(r)) for r in Role]).strip()
            try:
                self._apply(ChooseRole(HUMAN_SEAT, Role(int(text))))
            except (ValueError, IllegalActionError) as exc:
                self.show(f"選べません: {text!r} ({exc})")
                continue
            self._state("choose_role")
            return

    def _human_discussion(self) -> None:
        answering = self.game.awaiting_claim
        if answering is not None:
            # P1's own legal answers (its own knowledge): the exact commands it may type
            legal = self.game.legal_actions(HUMAN_SEAT)
            commands = [_claim_command(a) for a in legal if isinstance(a, Claim)]
            if any(isinstance(a, Decline) for a in legal):
                commands.append("/decline")
            shown = "、".join(commands[:6]) + ("、…" if len(commands) > 6 else "")
            prompt = f"「{answering.label}は名乗り出ろ」への答え（{shown}）"
        else:
            prompt = "あなたの発言の番です（/help でコマンド）"
        while True:
            text = self._ask(prompt)
            if text.strip() in ("/help", "?"):
                self.show(HUMAN_HELP)
                continue
            try:
                action = parse_discussion(text, HUMAN_SEAT, self._reader_table())
                self._apply(action)
            except ValueError as exc:
                self.show(f"できません: {exc}")
                continue
            self._state("human_discussion")
            self._show_new()
            return

    def _reader_table(self) -> Table:
        """What the phrase reader needs to know of P1's situation."""
        pub = player_view(self.game, HUMAN_SEAT).public
        names = {seat: pub.name(seat) for seat in range(1, 10)}
        return Table.of(names, self.game.awaiting_claim, self.game.claims.get(HUMAN_SEAT))

    def _human_target(self, kind: str, legal: Sequence[Action]) -> Action:
        targets = [seat_label(a.target) for a in legal if isinstance(a, Vote | Attack | Divine | Guard)]
        pub = player_view(self.game, HUMAN_SEAT).public
        menu = "、".join(f"{t} {pub.name(seat_number(t))}" for t in targets)
        while True:
            text = self._ask(f"{kind}を選んでください（{menu}）", targets).strip().upper()
            match = [a for a in legal if seat_label(getattr(a, "target", 0)) == text]
            if match:
                break
            self.show(f"選べません: {text!r}")
        action = match[0]
        if isinstance(action, Vote):
            reason = " ".join(self._ask("投票理由を一言どうぞ").split())[:120] or "（理由なし）"
            action = Vote(HUMAN_SEAT, action.target, reason)
        return action

    # ------------------------------------------------------------ persona turns

    def _context(self, seat: int, task: TaskKind, legal: Sequence[Action]) -> PersonaTurnContext:
        return PersonaTurnContext(
            seat=seat,
            persona=self.personas[seat],
            notes=self.notes[seat],
            observation=observe(self.game, seat),
            legal=tuple(legal),
            task=task,
            turn=self._turn,
            agent=self.agents[seat],
        )

    def _messages(self, seat: int, template: str, task: Mapping[str, Any]) -> list[JsonDict]:
        view = player_view(self.game, seat)
        if seat not in self._system:
            self._system[seat] = persona_system_prompt(self.personas[seat], view, self.game.options)
        key = (len(self.game.public_log), self.game.phase.text())
        if self._table_key != key:
            self._table_key, self._table = key, table_vars(view.public)
        user = persona_task_prompt(template, self.personas[seat], self.notes[seat], view, task, self._table)
        return [system_message(self._system[seat]), user_message(user)]

    def _fallback_tool(self, seat: int, task: TaskKind, legal: Sequence[Action]) -> Tool:
        ctx = self._context(seat, task, legal)
        ctx.agent = self.fallback_agents[seat]
        name, arguments = tool_call_for(ctx, decide_action(ctx))
        tool = _TOOLS_BY_NAME[name]
        return tool.model_validate(arguments)

    def _notes_offer(self, turn: _Turn) -> Offer[Any]:
        def update(args: UpdateNotesTool) -> ToolOutput:
            try:
                turn.notes = Notes.of(args.lines)
            except NotesError as exc:
                raise ValueError(str(exc)) from None
            return ToolOutput(text="メモを更新しました。続けて、この手番の行動のツールを呼んでください。")

        return _offer(UpdateNotesTool, update)

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
    ) -> _Turn:
        """Ask one persona; the offers' handlers record (concurrent) or apply (discussion)."""
        self._turn += 1
        turn = _Turn(seat=seat, sink=BufferSink())
        runner = TurnRunner(self.io.backend, turn.sink, retry_budget=self.options.retry_budget)
        messages = self._messages(seat, template, task_vars)
        context = self._context(seat, task, legal)
        try:
            await runner.run(
                actor=seat_label(seat),
                messages=messages,
                offers=[*offers(turn), self._notes_offer(turn)],
                fallback=lambda: self._fallback_tool(seat, task, legal),
                context=context,
                max_actions=2,
                model=self.spec.model,
                day=self.game.phase.day,
                phase=phase,
                turn=self._turn,
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
            def apply(action: Action) -> ToolOutput:
                self._apply(action)  # IllegalActionError (a ValueError) goes back to the model
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
            claims = [a for a in legal if isinstance(a, Claim) and a.target is not None]
            hint = ""
            if must and claims:
                pub = player_view(self.game, seat).public
                hint = "、".join(
                    f"{who(pub, c.target)}は{c.colour.label}" for c in claims if c.target and c.colour
                )
            task: TaskKind = "answer"
            template = "claim.j2"
            task_vars: dict[str, Any] = {
                "requester": requester,
                "role": awaiting.label,
                "must_claim": must,
                "result_hint": hint,
                "tools": _tool_names(legal),
            }
        else:
            task, template = "discussion", "discussion.j2"
            task_vars = {"round": self._round(seat), "tools": _tool_names(legal)}
        turn = await self._persona_turn(
            seat,
            task=task,
            phase="answer" if task == "answer" else "discussion",
            template=template,
            task_vars=task_vars,
            offers=self._discussion_offers(seat, legal),
            legal=legal,
        )
        await self._flush_narration()
        turn.sink.flush(self.sink)
        if turn.chosen is None:
            # no action from the model (a text-only end, or the budget spent): the fallback plays
            tool = self._fallback_tool(seat, task, legal)
            self.sink.emit("fallback", {"actor": seat_label(seat), "tool": tool.tool_name,
                                        "arguments": tool.model_dump(mode="json"),
                                        "reason": turn.fallback_reason()})
            self._apply(_action_from_tool(seat, tool))
            self._state(f"discussion P{seat} (fallback)")
        self._show_new()

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
                return who(pub, entry.speaker)
        return "誰か"

    # ------------------------------------------------------------ concurrent rounds

    async def _concurrent_round(self, seats: Sequence[int], kind: Literal["vote", "night", "pre"]) -> None:
        """Votes or night actions: everyone decides at once from the same state, then the
        choices are applied in seat order (nobody saw anybody else's)."""
        stage = self.game.stage.value
        tasks: list[asyncio.Task[_Turn]] = []
        persona_seats = [s for s in seats if s != HUMAN_SEAT]
        for seat in persona_seats:
            legal = self.game.legal_actions(seat)
            tasks.append(asyncio.ensure_future(self._round_turn(seat, kind, stage, legal)))
        try:
            await self._flush_narration()
            human_action: Action | None = None
            if HUMAN_SEAT in seats:
                legal = self.game.legal_actions(HUMAN_SEAT)
                label = {"vote": "投票先", "night": _night_label(legal), "pre": "事前占いの相手"}[kind]
                if getattr(self.io.human, "answers_at_once", False):
                    # an agent, not a person: no thread (whose hand-overs of the interpreter
                    # lock stall the loop); it answers once the personas' requests are out
                    await until_idle()
                    human_action = self._human_target(label, legal)
                else:
                    human_action = await asyncio.to_thread(self._human_target, label, legal)
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
                task = _ROUND_TASKS[kind]
                tool = self._fallback_tool(turn.seat, task, legal)
                self.sink.emit("fallback", {"actor": seat_label(turn.seat), "tool": tool.tool_name,
                                            "arguments": tool.model_dump(mode="json"),
                                            "reason": turn.fallback_reason()})
                turn.chosen = _action_from_tool(turn.seat, tool)
            chosen[turn.seat] = turn.chosen
        for seat in sorted(chosen):
            self._apply(chosen[seat])
        self._state(f"{stage} " + ",".join(f"P{seat}" for seat in sorted(chosen)))

    async def _round_turn(self, seat: int, kind: Literal["vote", "night", "pre"], stage: str,
                          legal: Sequence[Action]) -> _Turn:
        def build(turn: _Turn) -> list[Offer[Any]]:
            def record(action: Action) -> ToolOutput:
                if not self.game.is_legal(action):
                    target = getattr(action, "target", "?")
                    raise ValueError(f"{type(action).__name__} P{target} is not legal now")
                turn.chosen = action
                return ToolOutput(text="受け付けました", ends_turn=True)

            return round_offers(seat, legal, record)

        pub = player_view(self.game, seat).public
        targets = [who(pub, a.target) for a in legal if isinstance(a, Vote | Attack | Divine | Guard)]
        if kind == "vote":
            return await self._persona_turn(
                seat, task="vote", phase="runoff" if stage == "runoff" else "vote", template="vote.j2",
                task_vars={"runoff": stage == "runoff", "candidates": targets}, offers=build, legal=legal,
            )
        first = legal[0]
        verbs = {Attack: ("attack", "襲撃する"), Divine: ("divine", "占う"), Guard: ("guard", "護衛する")}
        tool, verb = verbs[type(first)]
        role = self.game.role_of(seat)  # the seat's own role: part of its own private view
        return await self._persona_turn(
            seat,
            task="pre_divination" if kind == "pre" else "night",
            phase="pre_divination" if kind == "pre" else "night",
            template="night_action.j2",
            task_vars={"pre": kind == "pre", "role": role.label, "verb": verb, "candidates": targets,
                       "tool": tool},
            offers=build,
            legal=legal,
        )

    # ------------------------------------------------------------ narrator

    def _start_narration(self, event: str) -> None:
        if not self.options.narrator:
            return
        pub = player_view(self.game, HUMAN_SEAT).public
        messages = [user_message(narrator_prompt(pub, event))]
        sink = BufferSink()
        runner = TurnRunner(self.io.backend, sink, retry_budget=0)
        day = self.game.phase.day

        async def narrate() -> tuple[BufferSink, str | None]:
            try:
                result = await runner.run(
                    actor="GM", messages=messages, offers=[], require_action=False,
                    context=NarratorContext(event=event, day=day), model=self.spec.model,
                    day=day, phase="narration", turn=0,
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
        prepare = getattr(self.io.backend, "prepare", None)
        if callable(prepare):
            prepare()
        try:
            with _frozen_heap():
                return await self._play()
        except HumanQuit:
            await self._drop_narration()
            self.show("ゲームを中断しました（役職は公開されません）")
            return SessionOutcome(
                summary=f"中断（{self.game.phase.day}日目）",
                figures={"days": float(self.game.phase.day), "quit": 1.0},
            )
        except BaseException:
            await self._drop_narration()
            raise
        finally:
            self._settle()

    async def _play(self) -> SessionOutcome:
        game = self.game
        if game.stage.value == "choose_role":
            if self.options.role is not None:
                self._apply(ChooseRole(HUMAN_SEAT, Role(self.options.role)))
                self._state("choose_role")
            else:
                self._human_choose_role()
        self._show_new()
        if game.stage.value == "pre_divination":
            self._start_narration(GAME_START_EVENT)
        clock = time.perf_counter
        while not game.is_over:
            day = game.phase.day
            if day not in self.figures.day_started:
                self.figures.day_started[day] = clock()
                if day - 1 in self.figures.day_started:
                    self.figures.day_seconds[day - 1] = clock() - self.figures.day_started[day - 1]
            seats = game.to_act()
            stage = game.stage.value
            if not seats:
                entries = self._advance()
                self._state(f"advance {stage}")
                self._show_new()
                if stage == "deal":
                    self._start_narration(GAME_START_EVENT)
                elif any(isinstance(e, MorningReport) for e in entries) and not game.is_over:
                    self._start_narration(f"{game.phase.day}日目の朝になりました。")
                continue
            if stage == "choose_role":
                self._human_choose_role()
            elif stage == "discussion":
                seat = seats[0]
                if seat == HUMAN_SEAT:
                    await self._flush_narration()
                    self._human_discussion()
                else:
                    await self._discussion_turn(seat)
            elif stage in ("vote", "runoff"):
                await self._concurrent_round(seats, "vote")
            elif stage == "pre_divination":
                await self._concurrent_round(seats, "pre")
            elif stage == "night":
                await self._concurrent_round(seats, "night")
            else:  # pragma: no cover - every stage with actors is handled above
                raise SessionError(f"no handler for stage {stage}")
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
        return SessionOutcome(summary=f"{outcome.winner.value}の勝利（{outcome.day}日目）", figures=figures)


_frozen_sessions = 0


@contextlib.contextmanager
def _frozen_heap() -> Iterator[None]:
    """The objects that exist when a game starts (modules, the client library, templates,
    personas: some hundred thousand) are left out of the garbage collector's full passes
    while it runs (``gc.freeze``), and handed back after (``gc.unfreeze``, once the last
    running game ends). Scanning them took 60-70 ms a pass, a stall in the middle of a
    round of model calls; the game's own objects are still collected as usual."""
    global _frozen_sessions
    if _frozen_sessions == 0:
        gc.freeze()
    _frozen_sessions += 1
    try:
        yield
    finally:
        _frozen_sessions -= 1
        if _frozen_sessions == 0:
            gc.unfreeze()


def _claim_command(claim: Claim) -> str:
    """The command a human types for ``claim``."""
    result = ""
    if claim.target is not None and claim.colour is not None:
        result = f" {seat_label(claim.target)} {claim.colour.label}"
    return f"/co {claim.role.label}{result}"


_TEMPLATES = ("persona_system.j2", "discussion.j2", "claim.j2", "vote.j2", "night_action.j2", "narrator.j2")

_ROUND_TASKS: dict[str, TaskKind] = {"vote": "vote", "pre": "pre_divination", "night": "night"}


def _night_label(legal: Sequence[Action]) -> str:
    if legal and isinstance(legal[0], Attack):
        return "襲撃先"
    if legal and isinstance(legal[0], Guard):
        return "護衛先"
    return "占い先"


def _tool_names(legal: Sequence[Action]) -> list[str]:
    names: list[str] = []
    for action in legal:
        name = _TOOL_OF_ACTION[type(action)]
        if name not in names:
            names.append(name)
    return names


_TOOL_OF_ACTION: dict[type, str] = {
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

_TOOLS_BY_NAME: dict[str, type[Tool]] = {
    tool.tool_name: tool
    for tool in (
        SpeakTool, ClaimTool, RequestClaimTool, StateResultTool, DeclineTool, VoteTool,
        AttackTool, DivineTool, GuardTool, UpdateNotesTool,
    )
}


def _colour(label: str | None) -> Colour | None:
    return None if label is None else COLOUR_BY_LABEL[label]


def _action_from_tool(seat: int, args: Tool) -> Action:
    """The engine action a validated tool call stands for.

    Raises:
        ValueError: a seat label, role or colour that does not exist, or a result without its
            target (or the reverse).
    """
    if isinstance(args, SpeakTool):
        return Speak(seat, args.text)
    if isinstance(args, ClaimTool):
        if args.role not in ROLE_BY_LABEL:
            raise ValueError(f"unknown role {args.role!r}")
        if (args.target is None) != (args.result is None):
            raise ValueError("a claim's result needs both target and result (or neither)")
        target = None if args.target is None else seat_number(args.target)
        return Claim(seat, ROLE_BY_LABEL[args.role], target, _colour(args.result), args.text)
    if isinstance(args, StateResultTool):
        return StateResult(seat, seat_number(args.target), COLOUR_BY_LABEL[args.result], args.text)
    if isinstance(args, RequestClaimTool):
        if args.role not in ROLE_BY_LABEL:
            raise ValueError(f"unknown role {args.role!r}")
        return RequestClaim(seat, ROLE_BY_LABEL[args.role], args.text)
    if isinstance(args, DeclineTool):
        return Decline(seat, args.text)
    if isinstance(args, VoteTool):
        return Vote(seat, seat_number(args.target), args.reason)
    if isinstance(args, AttackTool):
        return Attack(seat, seat_number(args.target))
    if isinstance(args, DivineTool):
        return Divine(seat, seat_number(args.target))
    if isinstance(args, GuardTool):
        return Guard(seat, seat_number(args.target))
    raise ValueError(f"{args.tool_name} is not a game action")


def discussion_offers(
    seat: int, legal: Sequence[Action], apply: Callable[[Action], ToolOutput]
) -> list[Offer[Any]]:
    """The discussion tools legal for ``seat`` now, their choices narrowed to the legal values."""

    def handler(args: Tool) -> ToolOutput:
        return apply(_action_from_tool(seat, args))

    offers: list[Offer[Any]] = []
    if any(isinstance(a, Speak) for a in legal):
        offers.append(_offer(SpeakTool, handler))
    claims = [a for a in legal if isinstance(a, Claim)]
    if claims:
        narrowed: dict[str, Sequence[str]] = {"role": _unique(c.role.label for c in claims)}
        targets = sorted({c.target for c in claims if c.target is not None})
        if targets:
            narrowed["target"] = [seat_label(t) for t in targets]
            narrowed["result"] = _unique(c.colour.label for c in claims if c.colour is not None)
        offers.append(_offer(ClaimTool, handler, **narrowed))
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


def round_offers(
    seat: int, legal: Sequence[Action], record: Callable[[Action], ToolOutput]
) -> list[Offer[Any]]:
    """The vote or night tool of ``seat`` with its target narrowed to the legal targets."""

    def handler(args: Tool) -> ToolOutput:
        return record(_action_from_tool(seat, args))

    offers: list[Offer[Any]] = []
    pairs: tuple[tuple[type, type[Tool]], ...] = (
        (Vote, VoteTool), (Attack, AttackTool), (Divine, DivineTool), (Guard, GuardTool),
    )
    for action_type, tool in pairs:
        targets = [
            seat_label(a.target) for a in legal if isinstance(a, Vote | Attack | Divine | Guard)
            and isinstance(a, action_type)
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


def session_options(spec: SessionSpec) -> WerewolfSessionOptions:
    """The validated options of ``spec``.

    Raises:
        SessionError: an option is unknown or invalid (the message says which).
    """
    try:
        return WerewolfSessionOptions.model_validate(spec.options)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}" for err in exc.errors()
        )
        raise SessionError(f"werewolf session options: {problems}") from None
    except ValueError as exc:
        raise SessionError(f"werewolf session options: {exc}") from None


async def play_werewolf(spec: SessionSpec, io: SessionIO, personas: Sequence[Persona] | None = None) -> tuple[
    SessionOutcome, SessionFigures
]:
    """Play one game inside a running event loop; returns the outcome and the figures."""
    session = WerewolfSession(spec, session_options(spec), io, personas)
    outcome = await session.run()
    return outcome, session.figures


@register_session("werewolf")
def run_werewolf(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
    """The ``werewolf`` session runner: one game, the human at P1."""
    if spec.kind != "werewolf":
        raise SessionError(f"not a werewolf spec: {spec.kind!r}")
    outcome, _ = asyncio.run(play_werewolf(spec, io))
    return outcome
