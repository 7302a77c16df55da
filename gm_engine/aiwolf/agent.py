"""Our personas as AIWolf agents at someone else's server: :func:`run_agents`.

Each agent connects to the server's WebSocket, answers NAME with ``TEAM1``, ``TEAM2``, …,
and plays its seat as one of our eight personas (agent ``i`` is the i-th persona, its
voice lines its words). It decides from the packets alone (its own role, its results, the
talk it was sent), as :class:`PersonaPlayer`:

* talk: a greeting on day 0; a 占い師 or 霊媒師 comes out with its result on its first
  turn of day 1 and states each new result after; otherwise a line in the persona's voice
  about the seat it suspects most (a 人狼 about a seat that is not its partner), and Over
  after two turns a day;
* votes and night actions: a seat it was told is a 人狼 (its own result, or a claimed
  占い師's), else the seat the talk has named most, else a draw; a 人狼 never names its
  partner, a 狩人 guards a claimed 占い師, the 人狼 attack one.

Every choice draws from a :class:`~gm_engine.dice.source.SeededSource` of the agent's own,
so the same seed and the same packets give the same answers. With a model ``backend``
(``gm aiwolf agent --backend openai``), the model writes the talk lines instead, asked
with half the server's action timeout; a model that is slower, fails or says nothing is
replaced by the persona's own line. Offline (the default) answers at once.

Errors: :class:`AgentError` (a ValueError), a URL that is not ``ws://`` or ``wss://``.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from gm_engine.aiwolf.protocol import OVER, one_line
from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import BackendError, ModelBackend, ModelRequest, system_message, user_message
from gm_engine.sessions.personas import Persona, load_personas

_ROLE_LABELS = {
    "WEREWOLF": "人狼",
    "POSSESSED": "狂人",
    "SEER": "占い師",
    "BODYGUARD": "狩人",
    "VILLAGER": "村人",
    "MEDIUM": "霊媒師",
}


class AgentError(ValueError):
    """The server's address cannot be used."""


@dataclass
class PersonaPlayer:
    """One persona's play of one AIWolf seat, from the packets it is sent."""

    persona: Persona
    source: SeededSource
    me: str = ""
    role: str = ""
    partners: list[str] = field(default_factory=list)
    alive: list[str] = field(default_factory=list)
    results: list[tuple[str, str]] = field(default_factory=list)  # (target, HUMAN / WEREWOLF)
    stated: int = 0
    claimed: bool = False
    talks_today: int = 0
    day: int = -1
    named: Counter[str] = field(default_factory=Counter)
    black: set[str] = field(default_factory=set)
    seers: set[str] = field(default_factory=set)
    divined: set[str] = field(default_factory=set)
    timeout_s: float = 60.0
    heard: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ reading packets

    def read(self, packet: dict[str, Any]) -> None:
        """Take in what a packet tells."""
        info = packet.get("info") or {}
        setting = packet.get("setting") or {}
        timeout = (setting.get("timeout") or {}).get("action")
        if isinstance(timeout, int | float) and timeout > 0:
            self.timeout_s = timeout / 1000
        if info:
            self.me = str(info.get("agent", self.me))
            role_map = info.get("role_map") or {}
            self.role = str(role_map.get(self.me, self.role))
            self.partners = [n for n, r in role_map.items() if r == "WEREWOLF" and n != self.me]
            statuses = info.get("status_map") or {}
            self.alive = [n for n, s in statuses.items() if s == "ALIVE"]
            day = int(info.get("day", self.day))
            if day != self.day:
                self.day, self.talks_today = day, 0
            for key in ("divine_result", "medium_result"):
                judge = info.get(key)
                if (
                    isinstance(judge, dict)
                    and (str(judge.get("target")), str(judge.get("result"))) not in self.results
                ):
                    self.results.append((str(judge.get("target")), str(judge.get("result"))))
                    if judge.get("result") == "WEREWOLF":
                        self.black.add(str(judge.get("target")))
        for talk in (packet.get("talk_history") or []) + (packet.get("whisper_history") or []):
            self._heard(str(talk.get("agent", "")), str(talk.get("text", "")))

    def _heard(self, speaker: str, text: str) -> None:
        self.heard.append(f"{speaker}: {text}")
        for name in self.alive:
            if name != speaker and name in text:
                self.named[name] += 1
        if "占い師" in text and ("CO" in text or "です" in text):
            self.seers.add(speaker)
            if speaker != self.me and self.role not in ("WEREWOLF", "POSSESSED"):
                for name in self.alive:
                    if name in text and ("黒" in text or "WEREWOLF" in text or "人狼" in text):
                        self.black.add(name)

    # ------------------------------------------------------------ choosing

    def _draw(self, names: Sequence[str]) -> str:
        ordered = sorted(names)
        return ordered[self.source.roll(len(ordered)) - 1]

    def _others(self) -> list[str]:
        others = [n for n in self.alive if n != self.me]
        if self.role == "WEREWOLF":
            others = [n for n in others if n not in self.partners] or others
        return others

    def suspect(self) -> str:
        """The seat it suspects most now."""
        others = self._others()
        if not others:
            return self.me
        if self.role not in ("WEREWOLF", "POSSESSED"):
            black = [n for n in others if n in self.black]
            if black:
                return self._draw(black)
        if self.named:
            top = max(self.named[n] for n in others)
            if top > 0:
                return self._draw([n for n in others if self.named[n] == top])
        return self._draw(others)

    def target(self, request: str) -> str:
        """The name it answers a VOTE, DIVINE, GUARD or ATTACK with."""
        others = self._others()
        if not others:
            return self.me
        if request == "DIVINE":
            fresh = [n for n in others if n not in self.divined] or others
            chosen = self._draw(fresh)
            self.divined.add(chosen)
            return chosen
        if request == "GUARD":
            seers = [n for n in others if n in self.seers]
            return self._draw(seers or others)
        if request == "ATTACK":
            seers = [n for n in others if n in self.seers]
            return self._draw(seers or others)
        return self.suspect()

    def line(self) -> str:
        """Its next talk line (offline), or Over."""
        self.talks_today += 1
        voice = self.persona.voice
        if self.day == 0:
            return one_line(self._pick(voice.opening)) if self.talks_today == 1 else OVER
        if self.talks_today > 2:
            return OVER
        if self.role in ("SEER", "MEDIUM") and self.stated < len(self.results):
            target, result = self.results[self.stated]
            self.stated += 1
            colour = "黒" if result == "WEREWOLF" else "白"
            said = self._pick(voice.result).format(target=target, color=colour)
            if not self.claimed:
                self.claimed = True
                said = self._pick(voice.claim).format(role=_ROLE_LABELS[self.role]) + said
            return one_line(said)
        target = self.suspect()
        if target == self.me:
            return OVER
        lines = voice.werewolf_cover if self.role == "WEREWOLF" and self.talks_today == 2 else voice.suspect
        return one_line(self._pick(lines).format(target=target))

    def _pick(self, lines: Sequence[str]) -> str:
        return lines[self.source.roll(len(lines)) - 1]


async def _model_line(backend: ModelBackend, player: PersonaPlayer) -> str | None:
    """The model's talk line, or None (too slow, a failure, nothing said)."""
    persona = player.persona
    talk = player.heard[-20:]
    system = (
        f"あなたは人狼ゲームの参加者「{player.me}」です。口調: {persona.manner} "
        f"一人称は「{persona.first_person}」。あなたの役職は{_ROLE_LABELS.get(player.role, '不明')}です。"
    )
    task = (
        "これまでの会話:\n"
        + ("\n".join(talk) or "（まだない）")
        + "\n次の発言を一文（50字以内、カンマを使わない）で書いてください。"
    )
    request = ModelRequest(
        actor=player.me,
        messages=(system_message(system), user_message(task)),
        tools=(),
        tool_choice="none",
        day=player.day,
        phase="aiwolf_talk",
        turn=player.talks_today,
    )
    try:
        async with asyncio.timeout(player.timeout_s / 2):
            response = await backend.complete(request)
    except (TimeoutError, BackendError):
        return None
    text = one_line(response.content or "")
    return text or None


async def play_one(
    url: str, name: str, player: PersonaPlayer, backend: ModelBackend | None = None, token: str | None = None
) -> dict[str, Any]:
    """Play one seat at the server until FINISH (or the server closes); what it played.

    Raises:
        AgentError: the URL is not a WebSocket address, or the server cannot be reached.
    """
    headers = [("Authorization", f"Bearer {token}")] if token is not None else None
    answered = 0
    result: dict[str, Any] = {"name": name, "persona": player.persona.id}
    try:
        async with connect(url, additional_headers=headers) as socket:
            async for message in socket:
                packet = json.loads(message)
                request = str(packet.get("request", ""))
                player.read(packet)
                answer: str | None = None
                if request == "NAME":
                    answer = name
                elif request == "TALK":
                    answer = None
                    if backend is not None and player.day > 0 and player.talks_today < 2:
                        answer = await _model_line(backend, player)
                        if answer is not None:
                            player.talks_today += 1
                    answer = answer or player.line()
                elif request == "WHISPER":
                    answer = OVER
                elif request in ("VOTE", "DIVINE", "GUARD", "ATTACK"):
                    answer = player.target(request)
                elif request == "FINISH":
                    info = packet.get("info") or {}
                    result.update(
                        {"agent": player.me, "role": player.role, "roles": info.get("role_map", {})}
                    )
                    break
                if answer is not None:
                    await socket.send(answer)
                    answered += 1
    except InvalidURI as exc:
        raise AgentError(f"ws:// か wss:// のアドレスではありません: {url}（{exc}）") from None
    except OSError as exc:
        raise AgentError(f"サーバーに接続できません: {url}（{exc}）") from None
    except (ConnectionClosed, InvalidHandshake) as exc:
        result["closed"] = str(exc)
    result["answered"] = answered
    return result


def run_agents(
    url: str,
    team: str,
    count: int,
    *,
    seed: int,
    backend: ModelBackend | None = None,
    token: str | None = None,
    personas: Sequence[Persona] | None = None,
) -> list[dict[str, Any]]:
    """Connect ``count`` persona agents (``TEAM1`` …) and play until each is finished.

    Raises:
        AgentError: the URL is not a WebSocket address, or the server cannot be reached.
    """
    if not url.startswith(("ws://", "wss://")):
        raise AgentError(f"ws:// か wss:// のアドレスを指定してください（指定: {url}）")
    cast = list(personas) if personas is not None else load_personas()

    async def all_of_them() -> list[dict[str, Any]]:
        players = [
            PersonaPlayer(cast[i % len(cast)], SeededSource(f"{seed}/aiwolf-agent/{i}")) for i in range(count)
        ]
        return list(
            await asyncio.gather(
                *(play_one(url, f"{team}{i + 1}", p, backend, token) for i, p in enumerate(players))
            )
        )

    return asyncio.run(all_of_them())
