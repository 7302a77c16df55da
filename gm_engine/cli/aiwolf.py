"""``gm aiwolf``: AIWolf (人狼知能) agents at our table, our personas at AIWolf servers, AIWolf logs.

* ``gm aiwolf host``: a ``/ws`` endpoint; AIWolf agents take the seats given (P2..P9), the
  personas the rest, the human (or ``--auto``'s offline agent) P1; recorded like a game.
* ``gm aiwolf export TRANSCRIPT``: the game log the AIWolf viewer reads, and the JSON log.
* ``gm aiwolf agent --url ws://… --team NAME``: our personas join an AIWolf server.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from gm_engine.cli._errors import error_text, failed
from gm_engine.messages import locale_from_env, render
from gm_engine.messages.texts import AIWolfJsonWritten, AIWolfLogWritten, AIWolfSeatsRange

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``gm aiwolf`` and its subcommands."""
    from gm_engine.cli._play import add_deadline_argument
    from gm_engine.cli._werewolf_options import add_option_arguments

    aiwolf = subparsers.add_parser(
        "aiwolf", help="AIWolf (人狼知能): host its agents, join its servers, write its logs"
    )
    aiwolf.set_defaults(handler=lambda args: _help(aiwolf))
    sub = aiwolf.add_subparsers(dest="aiwolf_command", metavar="SUBCOMMAND")

    host = sub.add_parser(
        "host",
        help="host AIWolf agents at a werewolf table (WebSocket endpoint /ws)",
        description="AIWolf agents connect to ws://HOST:PORT/ws and take the seats given; the personas "
        "play the others, you are P1 (or --auto). The engine referees; an agent that does not answer "
        "in time is played by its persona from then on.",
    )
    host.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    host.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free port)")
    host.add_argument(
        "--seats",
        type=_seats,
        default=[2, 3, 4, 5, 6, 7, 8, 9],
        metavar="N,N,…",
        help="the seats AIWolf agents take, 2..9 (default all eight)",
    )
    host.add_argument(
        "--seed", type=int, default=None, help="seed of the deal and the personas (default: random)"
    )
    host.add_argument("--auto", action="store_true", help="P1 is played by an offline agent (no input)")
    host.add_argument("--name", default="プレイヤー", help="your name at the table (default: プレイヤー)")
    host.add_argument(
        "--timeout", type=float, default=60.0, help="seconds an agent has per action (default 60)"
    )
    host.add_argument(
        "--auth",
        action="store_true",
        help="agents must offer a token signed with $SECRET_KEY (HS256, claims role PLAYER and their team)",
    )
    host.add_argument(
        "--wait", type=float, default=600.0, help="seconds to wait for the agents (default 600)"
    )
    host.add_argument("--backend", choices=["offline", "openai"], default="offline")
    host.add_argument("--model", default=None, help="model name for --backend openai (default: $GM_MODEL)")
    host.add_argument("--profile", default=None, help="server profile for --backend openai")
    add_deadline_argument(host)
    where = host.add_mutually_exclusive_group()
    where.add_argument("--record", metavar="FILE", default=None, help="record the transcript to FILE")
    where.add_argument("--no-record", action="store_true", help="do not record the game")
    host.add_argument("--plain", action="store_true", help="plain text output (no colours)")
    add_option_arguments(host)
    host.set_defaults(handler=_host)

    export = sub.add_parser("export", help="write a werewolf transcript as AIWolf's game log and JSON log")
    export.add_argument("transcript", type=Path, help="the transcript of a finished werewolf game")
    export.add_argument("--out", type=Path, default=None, help="the game log (default: TRANSCRIPT with .log)")
    export.add_argument(
        "--json", type=Path, default=None, help="the JSON log (default: TRANSCRIPT with .json)"
    )
    export.add_argument(
        "--start-ms",
        type=int,
        default=None,
        help="the first line's timestamp in ms (default: the transcript's modification time)",
    )
    export.set_defaults(handler=_export)

    agent = sub.add_parser("agent", help="our personas as AIWolf agents at an AIWolf server")
    agent.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8080/ws")
    agent.add_argument(
        "--team", required=True, help="the team name (each agent answers NAME with TEAM1, TEAM2, …)"
    )
    agent.add_argument("--seats", type=int, default=1, help="how many agents to connect (default 1)")
    agent.add_argument("--token", default=None, help="the server's token (sent as a Bearer header)")
    agent.add_argument("--seed", type=int, default=None, help="seed of the agents' choices (default: random)")
    agent.add_argument("--backend", choices=["offline", "openai"], default="offline")
    agent.add_argument("--model", default=None, help="model name for --backend openai (default: $GM_MODEL)")
    agent.add_argument("--profile", default=None, help="server profile for --backend openai")
    add_deadline_argument(agent)
    agent.set_defaults(handler=_agent)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _seats(text: str) -> list[int]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and 2 <= int(p) <= 9 for p in parts) or len(set(parts)) != len(parts):
        raise argparse.ArgumentTypeError(
            f"--seats は 2〜9 の席番号をカンマ区切りで重複なく（例 3,5,8）: {text!r}"
        )
    return [int(p) for p in parts]


def _host(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from gm_engine.aiwolf.host import AIWolfHost, HostError, play_hosted
    from gm_engine.aiwolf.protocol import TalkRules
    from gm_engine.cli._play import backend_settings, run_play, transcript_target
    from gm_engine.cli._werewolf_options import options_from_args
    from gm_engine.cli._werewolf_play import werewolf_seat
    from gm_engine.llm import make_backend
    from gm_engine.llm.base import BackendError
    from gm_engine.sessions.base import SessionError, SessionIO, SessionOutcome, SessionSpec
    from gm_engine.sessions.interrupt import run_interruptibly
    from gm_engine.sessions.werewolf import session_options

    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    try:
        rules = options_from_args(args)
        talk = TalkRules(
            per_agent=rules.discussion_rounds,
            answer_takes_turn=rules.answer_takes_turn,
            action_timeout_ms=int(args.timeout * 1000),
        )
        secret = os.environ.get("SECRET_KEY") if args.auth else None
        if args.auth and not secret:
            raise HostError("--auth には環境変数 SECRET_KEY（トークンの署名鍵）が必要です")
        host = AIWolfHost(args.seats, seed=seed, rules=talk, host=args.host, port=args.port, secret=secret)
    except (ValidationError, HostError) as exc:
        print(failed("gm aiwolf host", exc), file=sys.stderr)
        return 2
    try:
        port = host.start()
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        print(f"gm aiwolf host: {where} で待ち受けできません: {error_text(exc)}", file=sys.stderr)
        return 2
    try:
        print(
            f"AIWolfエージェントの接続を待っています: ws://{args.host}:{port}/ws （席 {args.seats}）",
            flush=True,
        )
        try:
            sources = host.wait_for_agents(args.wait)
        except HostError as exc:
            print(failed("gm aiwolf host", exc), file=sys.stderr)
            return 2
        for seat, name in host.agent_names.items():
            print(f"  P{seat}: {name}", flush=True)
        options: dict[str, Any] = {
            "auto": bool(args.auto),
            "human_name": args.name,
            "narrator": False,
            "rules": rules.model_dump(mode="json"),
            "seat_agents": host.agent_names,
        }
        spec = SessionSpec(
            kind="werewolf", seed=seed, options=options, backend=args.backend, model=args.model
        )
        try:
            locale = session_options(spec).locale
            backend = make_backend(
                args.backend, model=args.model, profile=args.profile, **backend_settings(args)
            )
            human, show = werewolf_seat(
                auto=bool(args.auto), seed=seed, plain=bool(args.plain), locale=locale
            )
            target = transcript_target(args, spec)
        except (SessionError, BackendError, OSError, ValueError) as exc:
            print(failed("gm aiwolf host", exc), file=sys.stderr)
            return 2

        def runner(s: SessionSpec, io: SessionIO) -> SessionOutcome:
            return run_interruptibly(play_hosted(s, io, sources))

        io = SessionIO(backend=backend, human=human, show=show)
        return run_play("gm aiwolf host", "game", spec, io, target, runner=runner)
    finally:
        host.close()


def _export(args: argparse.Namespace) -> int:
    from gm_engine.aiwolf.export import ExportError, export_transcript, write_logs

    path: Path = args.transcript
    try:
        start = args.start_ms if args.start_ms is not None else int(path.stat().st_mtime * 1000)
        logs = export_transcript(path, start_ms=start)
        out = args.out or path.with_suffix(".log")
        json_path = args.json or path.with_suffix(".json")
        write_logs(logs, out, json_path)
    except (ExportError, OSError, ValueError) as exc:
        print(failed("gm aiwolf export", exc), file=sys.stderr)
        return 2
    locale = locale_from_env()
    print(render(AIWolfLogWritten(str(out)), locale))
    print(render(AIWolfJsonWritten(str(json_path)), locale))
    return 0


def _agent(args: argparse.Namespace) -> int:
    from gm_engine.aiwolf.agent import AgentError, run_agents
    from gm_engine.cli._play import backend_settings
    from gm_engine.llm import make_backend
    from gm_engine.llm.base import BackendError

    if args.seats < 1 or args.seats > 9:
        print(render(AIWolfSeatsRange(), locale_from_env()), file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    try:
        backend = (
            None
            if args.backend == "offline"  # the personas' own lines: no model at all
            else make_backend(args.backend, model=args.model, profile=args.profile, **backend_settings(args))
        )
        started = time.perf_counter()
        results = run_agents(args.url, args.team, args.seats, seed=seed, backend=backend, token=args.token)
    except (AgentError, BackendError, OSError, ValueError) as exc:
        print(failed("gm aiwolf agent", exc), file=sys.stderr)
        return 2
    for result in results:
        print(json.dumps(result, ensure_ascii=False))
    print(f"{len(results)} agents, {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0
