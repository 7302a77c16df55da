"""``gm adventure``: a solo adventure with a model as GM (the built-in offline GM by default)."""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import Any

from gm_engine.cli._errors import failed
from gm_engine.cli._play import add_deadline_argument, backend_settings, run_play, transcript_target
from gm_engine.llm import make_backend
from gm_engine.llm.base import BackendError, ModelBackend
from gm_engine.messages import locale_from_env
from gm_engine.safe_text import safe_show
from gm_engine.sessions.base import SessionError, SessionIO, SessionSpec


def register(subparsers: Any) -> None:
    """Add ``gm adventure``."""
    parser = subparsers.add_parser(
        "adventure",
        help="a solo adventure: a model plays the GM, the engine owns every number",
        description="Play a short adventure with a GM model that reaches the rules engine only through "
        "tools (dice, character creation, every combat step, spells). `--backend offline` (the default) "
        "needs no key: the built-in GM reads what you type as an intent and plays a shipped scenario. "
        "`--backend openai` uses "
        "OPENAI_BASE_URL / OPENAI_API_KEY and --model (or GM_MODEL). Type /quit to leave.",
    )
    parser.add_argument("--backend", choices=["offline", "openai"], default="offline")
    parser.add_argument("--model", default=None, help="model name for --backend openai (default: $GM_MODEL)")
    parser.add_argument(
        "--profile", default=None, help="server profile: openai, ollama, vllm, llamacpp, lmstudio"
    )
    add_deadline_argument(parser)
    parser.add_argument("--seed", type=int, default=None, help="seed of the dice (default: random)")
    parser.add_argument("--system", default="DiceBot", help="game system of the dice tool (see `gm systems`)")
    parser.add_argument(
        "--scenario",
        default="goblin_shrine",
        help="the scenario to play: goblin_shrine (fast combat), manor_diary (Cthulhu7th), "
        "grey_pass (TheOneRing2nd); `none` for a free-form adventure the GM makes up",
    )
    parser.add_argument("--max-turns", type=int, default=80, help="stop after this many GM turns")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--record",
        metavar="FILE",
        default=None,
        help="record the transcript to FILE (default: a new file in the user data directory)",
    )
    where.add_argument("--no-record", action="store_true", help="do not record the session")
    parser.add_argument(
        "--script",
        metavar="FILE",
        default=None,
        help="read the player's lines from FILE (then answer 次へ until the end), not the terminal",
    )
    parser.set_defaults(handler=_adventure)


def check_options(spec: SessionSpec) -> None:
    """Refuse what the session would refuse once it started: an unknown game system or
    scenario, an option out of range.

    Raises:
        UnknownSystemError: no such game system.
        UnknownScenarioError: no such scenario.
        SessionError: another option out of range (said in the player's language).
    """
    from pydantic import ValidationError

    from gm_engine.adventure.scenario import get_scenario
    from gm_engine.dice.systems.registry import get_system
    from gm_engine.messages import render
    from gm_engine.messages.texts import OptionsInvalid
    from gm_engine.sessions.adventure import AdventureOptions

    get_system(str(spec.options.get("system", "DiceBot")))
    if spec.options.get("scenario") is not None:
        get_scenario(str(spec.options["scenario"]))
    try:
        AdventureOptions.model_validate(spec.options)
    except ValidationError as exc:  # which option, what was wrong, what is accepted
        from gm_engine.messages import locale_from_env
        from gm_engine.messages.validation import validation_message

        locale = locale_from_env()
        problems = render(validation_message(exc, AdventureOptions), locale)
        raise SessionError(render(OptionsInvalid(problems), locale)) from None


def _adventure(args: argparse.Namespace) -> int:
    from gm_engine.sessions.humans import ScriptedHuman, TerminalHuman, script_lines

    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    locale = locale_from_env()
    spec = SessionSpec(
        kind="adventure",
        seed=seed,
        options={
            "system": args.system,
            "max_turns": args.max_turns,
            **({} if args.scenario == "none" else {"scenario": args.scenario}),
            # the default is not written, so that a Japanese session's header stays as it was
            **({} if locale == "ja" else {"locale": locale}),
        },
        backend=args.backend,
        model=args.model,
    )
    human: ScriptedHuman | TerminalHuman
    try:
        check_options(spec)  # before anything is recorded: a refused option leaves no transcript
        if args.script:
            lines = script_lines(args.script)
            human = ScriptedHuman(lines, when_done="次へ")
        else:
            human = TerminalHuman()
        backend: ModelBackend = make_backend(
            args.backend, model=args.model, profile=args.profile, **backend_settings(args)
        )
        io = SessionIO(backend=backend, human=human, show=safe_show(print))
        target = transcript_target(args, spec)
    except (SessionError, BackendError, OSError, ValueError) as exc:
        print(failed("gm adventure", exc), file=sys.stderr)
        return 2
    return run_play("gm adventure", "session", spec, io, target)
