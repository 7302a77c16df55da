"""The werewolf rule options as command-line flags, shared by ``gm werewolf simulate`` and
``gm werewolf play`` (a module of its own so that neither command module imports the other)."""

from __future__ import annotations

import argparse
from typing import Any

from gm_engine.werewolf.options import MadmanClaims, WerewolfOptions


def add_option_arguments(parser: argparse.ArgumentParser) -> None:
    """The rule options as command-line flags (shared by the werewolf subcommands)."""
    parser.add_argument(
        "--madman-claims",
        choices=[m.value for m in MadmanClaims],
        default=MadmanClaims.LIKE_WEREWOLF.value,
        help="what the 狂人 may claim (default like_werewolf)",
    )
    parser.add_argument(
        "--rounds", type=int, default=None, help="discussion turns per seat per day (default 2)"
    )
    turn = parser.add_mutually_exclusive_group()
    turn.add_argument(
        "--answer-takes-turn",
        action="store_true",
        help="a CO要求 answer is the seat's next discussion turn (the default)",
    )
    turn.add_argument(
        "--answers-on-top",
        action="store_true",
        help="CO要求 answers come on top of every seat's discussion turns",
    )
    parser.add_argument(
        "--attack-from-first-night",
        action="store_true",
        help="the werewolves attack from the first night (default: only after a first execution)",
    )


def options_from_args(args: argparse.Namespace) -> WerewolfOptions:
    """Build the validated options from the flags of :func:`add_option_arguments`.

    Raises:
        pydantic.ValidationError: a value is out of range.
    """
    values: dict[str, Any] = {
        "madman_claims": MadmanClaims(args.madman_claims),
        "attack_needs_execution": not args.attack_from_first_night,
    }
    if args.answer_takes_turn:  # only when given: the defaults stay the options' own
        values["answer_takes_turn"] = True
    if args.answers_on_top:
        values["answer_takes_turn"] = False
    if args.rounds is not None:
        values["discussion_rounds"] = args.rounds
    return WerewolfOptions(**values)
