"""Secrecy: no request to a model and no line on the human's screen holds a fact its reader
may not know at that moment.

For every request of many seeded games, the hidden facts are built from the true game state
of that moment: every other seat's private facts (roles, a 人狼's partner, divine and medium
results, tonight's attack / divine / guard choices, this round's votes), every seat's true
role, the end-of-game role list, and the werewolf manner of every persona that is not a
werewolf. None may appear in the request; the reader's own facts must (so the check looks
for facts in the very form the prompts use).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import BackendDefaults, ModelBackend, ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import HumanInput, ListSink, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.personas import load_personas
from gm_engine.sessions.voices import default_phrases_dir, load_book
from gm_engine.sessions.werewolf import (
    WerewolfSession,
    fact_lines,
    persona_task_prompt,
    private_screen_lines,
    session_options,
    who,
)
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.tools.base import response_with_calls
from gm_engine.werewolf import Game, Role, player_view
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import RoleDealt
from gm_engine.werewolf.records import SEATS

PERSONAS = load_personas()


def hidden_for(game: Game, reader: int | None) -> set[str]:
    """The facts ``reader`` (a seat, or None for the GM narrator) may not know now."""
    pub = player_view(game, 1).public
    wolves = {s for s in SEATS if game.role_of(s) is Role.WEREWOLF}
    knows_wolves = reader in wolves
    hidden: set[str] = set()
    for seat in SEATS:
        if seat != reader:
            hidden.update(fact_lines(player_view(game, seat).private, pub))
        role_line = f"{who(pub, seat)}の役職: {game.role_of(seat).label}"
        if seat != reader and not (knows_wolves and seat in wolves):
            hidden.add(role_line)
        if not game.is_over:
            # an entry of the 最終役職一覧 (a claim reads "トウダ:占い師CO", with no 、 after the role)
            hidden.add(f"{pub.name(seat)}:{game.role_of(seat).label}、")
    if reader is not None:
        hidden -= set(fact_lines(player_view(game, reader).private, pub))
    for persona in PERSONAS:
        if not (persona.seat == reader and game.role_of(persona.seat) is Role.WEREWOLF):
            hidden.add(persona.werewolf_manner)
    if not game.is_over:
        hidden.add("最終役職一覧")
    return hidden


def cover_fragment(template: str) -> str:
    """The longest fixed part of a sample line with placeholders."""
    return max(template.replace("{", "\0").replace("}", "\0").split("\0"), key=len)


def hidden_on_screen(game: Game) -> set[str]:
    """What P1's screen may not show now, in the screen's own forms."""
    pub = player_view(game, 1).public
    hidden = hidden_for(game, 1)
    own = {
        line for e in player_view(game, 1).private.log for line in private_screen_lines(e, pub)
    }
    for seat in SEATS[1:]:
        for entry in player_view(game, seat).private.log:
            if not isinstance(entry, RoleDealt):
                hidden.update(set(private_screen_lines(entry, pub)) - own)
    return hidden


class Spy(BackendDefaults):
    """Wraps a backend; checks every request against the game's hidden facts of that moment."""

    name = "spy"

    def __init__(self, inner: ModelBackend) -> None:
        self.inner = inner
        self.session: WerewolfSession | None = None
        self.checked = 0
        self.facts_seen = 0
        self.first: dict[str, str] = {}

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        assert self.session is not None
        game = self.session.game
        text = json.dumps(list(request.messages), ensure_ascii=False) + json.dumps(
            [t.model_dump() for t in request.tools], ensure_ascii=False
        )
        self.first.setdefault(request.actor, text)
        reader = None if request.actor == "GM" else int(request.actor[1:])
        leaks = sorted(fact for fact in hidden_for(game, reader) if fact in text)
        assert not leaks, f"{request.actor} day {request.day} {request.phase}: leaked {leaks}"
        if reader is not None and request.messages[0]["role"] == "system":
            # the werewolf-only manner and sample lines are in a persona's own system prompt only
            # when it is one, and only where it speaks (a vote's reason is one sentence in its
            # voice, whose prompt has the first person and a sample reason; a night choice says
            # nothing)
            persona = next(p for p in PERSONAS if p.seat == reader)
            system = str(request.messages[0]["content"])
            wolf = game.role_of(reader) is Role.WEREWOLF
            speaks = request.phase in ("discussion", "answer")
            assert (persona.werewolf_manner in system) == (wolf and speaks), request.actor
            cover = [cover_fragment(line) for line in persona.voice.werewolf_cover]
            shown = [c for c in cover if c in system]
            assert bool(shown) == (wolf and speaks), (request.actor, request.phase, shown)
        if reader is not None:
            view = player_view(game, reader)
            own = fact_lines(view.private, view.public, today_only=True)
            assert own, "every persona knows at least its own role"
            missing = [fact for fact in own if fact not in text]
            assert not missing, f"{request.actor}: its own facts are missing: {missing}"
            self.facts_seen += len(own)
        self.checked += 1
        return await self.inner.complete(request, context)


def play(
    seed: int, options: dict[str, Any], inner: ModelBackend | None = None, human: HumanInput | None = None
) -> tuple[Spy, list[str], WerewolfSession]:
    spy = Spy(inner or OfflineBackend())
    screen: list[str] = []
    spec = SessionSpec(kind="werewolf", seed=seed, options=options)
    if human is None:
        human = AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))
    holder: dict[str, WerewolfSession] = {}

    def show(line: str) -> None:
        game = holder["session"].game
        if line.startswith("【ゲーム終了】"):
            holder["ended"] = holder["session"]
        if "ended" not in holder:
            leaks = sorted(fact for fact in hidden_on_screen(game) if fact in line)
            assert not leaks, f"screen line {line!r} leaks {leaks}"
        screen.append(line)

    io = SessionIO(backend=spy, human=human, sink=ListSink(), show=show)
    session = WerewolfSession(spec, session_options(spec), io)
    holder["session"] = session
    spy.session = session
    asyncio.run(session.run())
    return spy, screen, session


@pytest.mark.parametrize("seed", range(12))
def test_no_request_holds_a_hidden_fact(seed: int) -> None:
    spy, screen, session = play(seed, {"role": 1 + seed % 6})
    assert session.game.is_over
    assert spy.checked > 40
    assert spy.facts_seen > spy.checked  # own facts really are in the prompts, in the checked form
    assert "【ゲーム終了】" in screen


@pytest.mark.parametrize("seed", range(4))
def test_secrecy_with_a_model_that_only_reads_tools(seed: int) -> None:
    class FirstChoice(BackendDefaults):
        name = "first"

        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            if not request.tools:
                return ModelResponse(content="…")
            calls = first_choice_calls([t.model_dump() for t in request.tools])
            return response_with_calls(*calls, id_prefix=f"{request.actor}_{request.turn}")

    spy, _, session = play(100 + seed, {"role": 2 + seed}, FirstChoice())
    assert session.game.is_over
    assert spy.checked > 40


def test_the_check_catches_a_leaky_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not vacuous: a prompt that adds another seat's role is caught."""
    original: Callable[..., str] = persona_task_prompt

    def leaky(template: str, persona: Any, notes: Any, view: Any, task: Any, table: Any = None) -> str:
        other = 9 if view.private.seat != 9 else 8
        game = spy_holder["spy"].session.game  # type: ignore[union-attr]
        pub = view.public
        leak = f"\n{who(pub, other)}の役職: {game.role_of(other).label}"
        return original(template, persona, notes, view, task, table) + leak

    spy_holder: dict[str, Spy] = {}
    real_spy = Spy.__init__

    def remember(self: Spy, inner: ModelBackend) -> None:
        real_spy(self, inner)
        spy_holder["spy"] = self

    monkeypatch.setattr(Spy, "__init__", remember)
    # the session loop's own reference to the prompt function
    monkeypatch.setattr("gm_engine.sessions.werewolf.session.persona_task_prompt", leaky)
    with pytest.raises(AssertionError, match="leaked"):
        play(3, {"role": 2})


def test_only_werewolves_speak_the_werewolf_lines() -> None:
    """Across games, a persona speaks its werewolf lines (its phrase book's cover and cut) only
    in games where it is a 人狼."""
    spoken_by_wolves = 0
    for seed in range(30, 42):
        _, _, session = play(seed, {"role": 1 + seed % 6, "narrator": False})
        game = session.game
        for entry in game.public_log:
            if entry.kind != "speech" or entry.speaker == 1:
                continue
            persona = next(p for p in PERSONAS if p.seat == entry.speaker)
            book = load_book(default_phrases_dir(), persona.id)
            fragments = [cover_fragment(line) for line in (*book.lines["cover"], *book.lines["cut"])]
            if any(f in entry.text for f in fragments):
                assert game.role_of(entry.speaker) is Role.WEREWOLF, (seed, entry)
                spoken_by_wolves += 1
    assert spoken_by_wolves > 0  # the check met at least one such line


def _first_requests(deal: list[int]) -> dict[str, str]:
    class Quiet(BackendDefaults):
        """Answers the same way whatever the roles: speak, decline, first choice."""

        name = "quiet"

        async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
            if not request.tools:
                return ModelResponse(content="…")
            calls = first_choice_calls([t.model_dump() for t in request.tools], text="よろしく")
            return response_with_calls(*calls, id_prefix=f"{request.actor}_{request.turn}")

    human = ScriptedHuman(["よろしく"], when_done="/quit")  # P1 says the same, then leaves
    spy, _, _ = play(77, {"deal": deal, "narrator": False}, Quiet(), human)
    return spy.first


def test_first_request_is_the_same_across_deals_it_cannot_tell_apart() -> None:
    # P1 村人, P5 村人 in both deals; the wolves, seer and the rest move among the other seats
    deal_a = [2, 1, 1, 3, 2, 4, 5, 6, 2]
    deal_b = [2, 6, 5, 4, 2, 2, 1, 3, 1]
    first_a, first_b = _first_requests(deal_a), _first_requests(deal_b)
    assert first_a["P5"] == first_b["P5"]
    # a seat whose own role differs does get a different first request (the check can fail)
    assert first_a["P2"] != first_b["P2"]


def test_a_wolf_first_request_depends_only_on_its_own_side() -> None:
    # P3 and P7 are the wolves in both deals; everything else moves
    deal_a = [2, 3, 1, 2, 4, 5, 1, 6, 2]
    deal_b = [2, 6, 1, 5, 2, 2, 1, 4, 3]
    first_a, first_b = _first_requests(deal_a), _first_requests(deal_b)
    assert first_a["P3"] == first_b["P3"]
    assert first_a["P7"] == first_b["P7"]
