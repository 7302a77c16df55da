"""Our persona agents (``gm aiwolf agent``) play whole games against a minimal AIWolf host
written here from the protocol's description (WebSocket ``/ws``, JSON packets, plain-string
answers; a 5-player village: 人狼, 狂人, 占い師, 2 村人), not from gm_engine's own host."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from gm_engine.aiwolf.agent import AgentError, run_agents
from gm_engine.cli import main
from gm_engine.llm.base import BackendDefaults, BackendError, ModelRequest, ModelResponse

ROLES = ["WEREWOLF", "POSSESSED", "SEER", "VILLAGER", "VILLAGER"]
NAMES = ["Minato", "Takumi", "Kenji", "Ryuji", "Daisuke"]


@dataclass
class Village:
    """The minimal server: one game of five, every packet and answer kept."""

    seed: int
    players: int = 5
    sockets: list[ServerConnection] = field(default_factory=list)
    team_names: list[str] = field(default_factory=list)
    sent: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    answers: list[tuple[str, str, str]] = field(default_factory=list)  # (player, request, answer)
    talk: list[dict[str, Any]] = field(default_factory=list)
    winner: str = ""
    seated: asyncio.Event = field(default_factory=asyncio.Event)
    over: asyncio.Event = field(default_factory=asyncio.Event)

    async def handler(self, socket: ServerConnection) -> None:
        assert socket.request is not None and socket.request.path == "/ws"
        await socket.send(json.dumps({"request": "NAME"}))
        self.team_names.append(str(await socket.recv()).strip())
        self.sockets.append(socket)
        if len(self.sockets) == self.players:
            self.seated.set()
        await self.over.wait()

    async def play(self) -> None:
        await self.seated.wait()
        rng = random.Random(self.seed)
        roles = dict(zip(NAMES, rng.sample(ROLES, len(ROLES)), strict=True))
        alive = set(NAMES)
        seen = dict.fromkeys(NAMES, 0)
        divine: dict[str, Any] | None = None
        executed: str | None = None
        attacked: str | None = None

        def info(name: str, day: int, *, final: bool = False) -> dict[str, Any]:
            visible = {
                n: r
                for n, r in roles.items()
                if final or n == name or (roles[name] == "WEREWOLF" and r == "WEREWOLF")
            }
            return {
                "game_id": "01J00000000000000000000000",
                "day": day,
                "agent": name,
                "divine_result": divine if roles[name] == "SEER" else None,
                "medium_result": None,
                "executed_agent": executed,
                "attacked_agent": attacked,
                "vote_list": None,
                "attack_vote_list": None,
                "status_map": {n: "ALIVE" if n in alive else "DEAD" for n in NAMES},
                "role_map": visible,
            }

        setting = {
            "agent_count": 5,
            "role_num_map": dict(Counter(ROLES)),
            "vote_visibility": False,
            "timeout": {"action": 60000, "response": 120000},
        }

        async def send(name: str, packet: dict[str, Any]) -> None:
            self.sent.setdefault(name, []).append(packet)
            await self.sockets[NAMES.index(name)].send(json.dumps(packet, ensure_ascii=False))

        async def ask(name: str, packet: dict[str, Any]) -> str:
            await send(name, packet)
            answer = str(await self.sockets[NAMES.index(name)].recv())
            self.answers.append((name, packet["request"], answer))
            return answer.strip()

        def history(name: str) -> list[dict[str, Any]]:
            new = self.talk[seen[name] :]
            seen[name] = len(self.talk)
            return new

        async def talk_round(day: int) -> None:
            order = sorted(alive)
            rng.shuffle(order)
            done: set[str] = set()
            for turn in range(4):
                for name in order:
                    if name in done:
                        continue
                    text = await ask(
                        name,
                        {
                            "request": "TALK",
                            "info": {**info(name, day), "remain_count": 4 - turn},
                            "talk_history": history(name),
                        },
                    )
                    self.talk.append(
                        {
                            "idx": len(self.talk),
                            "day": day,
                            "turn": turn,
                            "agent": name,
                            "text": text,
                            "skip": False,
                            "over": text == "Over",
                        }
                    )
                    if text == "Over":
                        done.add(name)

        def choose(answer: str, choices: set[str]) -> str:
            # the server's rule for a name that is no choice: a random one (recorded as wrong)
            return answer if answer in choices else rng.choice(sorted(choices))

        for name in NAMES:
            await send(name, {"request": "INITIALIZE", "info": info(name, 0), "setting": setting})
        day = 0
        await talk_round(0)
        seer = next(n for n, r in roles.items() if r == "SEER")
        target = choose(await ask(seer, {"request": "DIVINE", "info": info(seer, 0)}), alive - {seer})
        divine = {
            "day": 0,
            "agent": seer,
            "target": target,
            "result": "WEREWOLF" if roles[target] == "WEREWOLF" else "HUMAN",
        }
        while True:
            day += 1
            for name in sorted(alive):
                await send(name, {"request": "DAILY_INITIALIZE", "info": info(name, day), "setting": setting})
            await talk_round(day)
            for name in sorted(alive):
                await send(
                    name, {"request": "DAILY_FINISH", "info": info(name, day), "talk_history": history(name)}
                )
            votes: Counter[str] = Counter()
            for name in sorted(alive):
                votes[
                    choose(await ask(name, {"request": "VOTE", "info": info(name, day)}), alive - {name})
                ] += 1
            top = max(votes.values())
            executed = rng.choice(sorted(n for n, c in votes.items() if c == top))
            alive.discard(executed)
            if self._ended(roles, alive):
                break
            if seer in alive:
                target = choose(
                    await ask(seer, {"request": "DIVINE", "info": info(seer, day)}), alive - {seer}
                )
                divine = {
                    "day": day,
                    "agent": seer,
                    "target": target,
                    "result": "WEREWOLF" if roles[target] == "WEREWOLF" else "HUMAN",
                }
            wolf = next(n for n, r in roles.items() if r == "WEREWOLF")
            attacked = choose(
                await ask(wolf, {"request": "ATTACK", "info": info(wolf, day), "whisper_history": []}),
                alive - {wolf},
            )
            alive.discard(attacked)
            if self._ended(roles, alive):
                break
        for name in NAMES:
            await send(name, {"request": "FINISH", "info": info(name, day, final=True)})
        self.over.set()

    def _ended(self, roles: dict[str, str], alive: set[str]) -> bool:
        wolves = sum(roles[n] == "WEREWOLF" for n in alive)
        if wolves == 0:
            self.winner = "VILLAGER"
        elif wolves >= len(alive) - wolves:
            self.winner = "WEREWOLF"
        return bool(self.winner)


def host_village(seed: int, play: Any) -> Village:
    """Run the village on a thread's event loop, call ``play(url)`` here, return the village."""
    ready = threading.Event()
    holder: dict[str, Any] = {}

    def serve_it() -> None:
        async def main_loop() -> None:
            village = Village(seed)
            holder["village"] = village
            async with serve(village.handler, "127.0.0.1", 0) as server:
                holder["port"] = server.sockets[0].getsockname()[1]
                ready.set()
                await asyncio.wait_for(village.play(), 120)
                await asyncio.sleep(0.05)

        asyncio.run(main_loop())

    thread = threading.Thread(target=serve_it)
    thread.start()
    assert ready.wait(30)
    play(f"ws://127.0.0.1:{holder['port']}/ws")
    thread.join(120)
    return holder["village"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_persona_agents_play_a_whole_game_at_an_aiwolf_host(seed: int) -> None:
    results: list[dict[str, Any]] = []
    village = host_village(seed, lambda url: results.extend(run_agents(url, "gmteam", 5, seed=seed)))
    assert village.winner in ("VILLAGER", "WEREWOLF")
    assert sorted(village.team_names) == [f"gmteam{i}" for i in range(1, 6)]
    assert all(r.get("roles") and len(r["roles"]) == 5 for r in results)  # every agent saw FINISH
    for name, request, answer in village.answers:
        assert "\n" not in answer.strip()
        if request == "TALK":
            assert answer and "," not in answer
        else:
            alive_then = [n for n in NAMES if n != name]
            assert answer in alive_then, (request, answer)  # an exact name, never itself
            if request == "ATTACK":
                assert answer != name
    # the 占い師 comes out with its day-0 result on day 1 (before any vote could remove it)
    roles = results[0]["roles"]
    seer = next(n for n, r in roles.items() if r == "SEER")
    divined = next(a for n, r, a in village.answers if r == "DIVINE")
    first_vote = next(i for i, (_, r, _) in enumerate(village.answers) if r == "VOTE")
    day_one = [a for n, r, a in village.answers[:first_vote] if n == seer and r == "TALK"]
    assert any("占い師" in line and divined in line for line in day_one), day_one


def test_the_agent_command_plays_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    def play(url: str) -> None:
        assert main(["aiwolf", "agent", "--url", url, "--team", "cli", "--seats", "5", "--seed", "4"]) == 0

    village = host_village(4, play)
    assert village.winner
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(p["name"] for p in printed) == [f"cli{i}" for i in range(1, 6)]


def test_the_agent_refuses_an_address_that_is_no_websocket() -> None:
    with pytest.raises(AgentError, match="ws://"):
        run_agents("http://127.0.0.1:1/ws", "x", 1, seed=1)
    assert main(["aiwolf", "agent", "--url", "ftp://x", "--team", "t"]) == 2
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(AgentError, match="サーバーに接続できません"):
        run_agents(f"ws://127.0.0.1:{port}/ws", "x", 1, seed=1)


class TalkingModel(BackendDefaults):
    """A model that writes every talk line (with a comma the protocol forbids), or fails."""

    name = "talking"

    def __init__(self, fail: bool) -> None:
        self.fail = fail
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        self.requests.append(request)
        if self.fail:
            raise BackendError("the server is down")
        return ModelResponse(content="モデルの発言です, よろしく")


@pytest.mark.parametrize("fail", [False, True])
def test_a_model_writes_the_talk_or_the_persona_does(fail: bool) -> None:
    model = TalkingModel(fail)
    village = host_village(6, lambda url: run_agents(url, "m", 5, seed=6, backend=model))
    assert village.winner and model.requests  # the model was asked for day 1's talk
    talk = [a for _, r, a in village.answers if r == "TALK"]
    said = [a for a in talk if a.startswith("モデルの発言です")]
    if fail:
        assert not said and all(a for a in talk)  # the persona's own lines took over
    else:
        assert said and all(a == "モデルの発言です、 よろしく" for a in said)
        assert all("," not in a for a in talk)
