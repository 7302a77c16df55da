"""A werewolf game recorded in a process of its own that kills itself (``SIGKILL``, as
``kill -9`` would) at a chosen step, for the tests of :mod:`gm_engine.transcripts.journal`.

``python -m tests.tail_driver PATH SEED URL|offline show N``: P1 is the offline agent
(``--auto``), the personas are played by the model server at URL (the test's fake server)
or the offline model; every line the game shows (``{"shown": text}``) and every model answer
it receives (``{"answer": [content, [[tool, arguments], ...]]}``, printed in the same step as
the session records it, no other task running between) is written to standard output, one
JSON a line, flushed, and right after the N-th line shown the process kills itself: what it
printed is what P1 saw and what the models had answered. ``... pack 0``: the game is
played to its end and the process kills itself in place of the rename that puts the packed
copy over the finished file.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from functools import partial
from pathlib import Path
from typing import Any

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import ModelBackend, ModelRequest, ModelResponse
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.transcripts import format as transcript_format
from gm_engine.transcripts.record import record_session
from gm_engine.werewolf.agents import OfflineAgent

#: The options of every game the driver plays (P1 a 村人, no narrator: every screen line is the table's).
OPTIONS: dict[str, Any] = {"role": 2, "narrator": False}


async def _no_sleep(seconds: float) -> None:
    return None


def backend_for(url: str) -> ModelBackend:
    """The offline model, or the OpenAI client on the fake server at ``url``."""
    if url == "offline":
        from gm_engine.llm.offline import OfflineBackend

        return OfflineBackend()
    from gm_engine.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(model="fake", base_url=url, api_key="k", sleep=_no_sleep)


def spec_for(seed: int, url: str) -> SessionSpec:
    """The spec of the driver's game of ``seed`` on ``url``."""
    backend = "offline" if url == "offline" else "openai"
    return SessionSpec(kind="werewolf", seed=seed, options=dict(OPTIONS), backend=backend,
                       model=None if url == "offline" else "fake")


def auto_p1(seed: int) -> AutoHuman:
    """P1 as ``--auto`` plays it."""
    return AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human")))


def answer_key(content: str | None, calls: list[tuple[str, str]]) -> list[Any]:
    """What identifies a model answer, as the driver prints it and a test reads it from a record."""
    return [content, [list(call) for call in calls]]


def _say(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class _Announcing:
    """``inner``, each answer printed as it comes back (before the session records it)."""

    def __init__(self, inner: ModelBackend) -> None:
        self.inner = inner
        self.name = inner.name

    @property
    def keeps_state(self) -> bool:
        """As the backend it wraps."""
        return self.inner.keeps_state

    def prepare(self) -> None:
        """As the backend it wraps."""
        self.inner.prepare()

    async def aclose(self) -> None:
        """As the backend it wraps."""
        await self.inner.aclose()

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """The wrapped backend's answer, printed."""
        response = await self.inner.complete(request, context)
        _say({"answer": answer_key(response.content, [(c.name, c.arguments) for c in response.tool_calls])})
        return response


def _die(*_: object, **__: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main(argv: list[str]) -> None:
    path, seed, url, mode, at = Path(argv[0]), int(argv[1]), argv[2], argv[3], int(argv[4])
    shown = 0

    def show(text: str) -> None:
        nonlocal shown
        _say({"shown": text})
        shown += 1
        if mode == "show" and shown == at:
            _die()

    if mode == "pack":
        real = transcript_format.pack_transcript
        transcript_format.pack_transcript = partial(real, replace=_die)
    io = SessionIO(backend=_Announcing(backend_for(url)), human=auto_p1(seed), show=show)
    record_session(spec_for(seed, url), io, path)
    sys.exit(3)  # the game ended without the kill: the test asked for a step past its end


if __name__ == "__main__":
    main(sys.argv[1:])
