"""``gm doctor``: probe the configured model server and say what it supports, which
profile to use, and how to fix the configuration errors it shows (see
:mod:`gm_engine.llm.doctor`)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from gm_engine.cli._doctor_report import report
from gm_engine.cli._errors import failed
from gm_engine.cli._play import request_timeout
from gm_engine.llm.base import BackendError
from gm_engine.llm.doctor import Findings, probe_server
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.llm.profiles import get_profile, profile_names
from gm_engine.messages import locale_from_env
from gm_engine.safe_text import printable

#: The model name a probe uses when none is configured and the server lists none.
UNNAMED_MODEL = "default"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``gm doctor``."""
    parser = subparsers.add_parser(
        "doctor",
        help="probe a model server: what it supports, the profile to use, fixes",
        description="Send a few small requests to the model server (OPENAI_BASE_URL, or the "
        "profile's default) and print what it supports: tools, tool_choice required and named, "
        "parallel_tool_calls, strict, calls written in the text, context length, latency; the "
        "quirks found; the profile it recommends; and each configuration error with its fix. "
        "Exit status: 0 usable, 1 a configuration error or no tool call at all, 2 unreachable.",
    )
    parser.add_argument(
        "--profile",
        choices=profile_names(),
        default=None,
        help="the profile configured (default: $GM_LLM_PROFILE, else openai): its "
        "default URL, and what it says against what is measured",
    )
    parser.add_argument("--base-url", default=None, help="the server (default: $OPENAI_BASE_URL)")
    parser.add_argument(
        "--model", default=None, help="the model (default: $GM_MODEL, else the first the server lists)"
    )
    parser.add_argument(
        "--request-timeout",
        type=request_timeout,
        default=None,
        metavar="SECONDS",
        help="seconds to wait for each read (default: the profile's)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Probe the server and print the report; return the exit status."""
    profile = get_profile(args.profile or os.environ.get("GM_LLM_PROFILE") or "openai")
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL") or None
    model = args.model or os.environ.get("GM_MODEL") or os.environ.get("OPENAI_MODEL")
    try:
        backend = OpenAIBackend(
            model=model or UNNAMED_MODEL,
            base_url=base_url,
            profile=profile,
            timeout=args.request_timeout,
            max_attempts=1,
        )
        findings = asyncio.run(_probe(backend, named=model is not None))
    except BackendError as exc:
        print(failed("gm doctor", exc), file=sys.stderr)
        return 2
    for line in report(findings, profile, locale_from_env()):
        print(printable(line))
    if findings.unreachable is not None:
        return 2
    return 1 if findings.problems or not (findings.tools_work or findings.calls_in_text) else 0


async def _probe(backend: OpenAIBackend, *, named: bool) -> Findings:
    if not named:
        # no model configured: the server's first listed one
        try:
            listing = await backend.list_models()
        except BackendError:
            listing = None
        finally:
            await backend.aclose()
        data = listing.get("data") if isinstance(listing, dict) else None
        listed = [e["id"] for e in data or [] if isinstance(e, dict) and isinstance(e.get("id"), str)]
        first = listed[0] if listed else None
        if first is not None:
            backend.model = first
    return await probe_server(backend)
