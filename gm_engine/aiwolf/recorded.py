"""The seats of a resumed hosted game: :class:`Recorded`, answering from the recording first.

A game is resumed by re-running it with its recorded answers
(:class:`~gm_engine.transcripts.replay.ReplayBackend` as the session's backend) until
they run out, then live. The seats an AIWolf agent plays, and the persona 人狼 that
whisper with one, are asked through backends of their own (``WerewolfSession(seat_backends=...)``),
past the replaying backend: each is wrapped in a :class:`Recorded`, which answers a turn
the recording holds with its recorded answer (the agent hears nothing of the turns
replayed: they happened before its connection) and asks the live source only past the
recording, or for a turn cut off before its answer was recorded.
"""

from __future__ import annotations

import contextlib

from gm_engine.llm.base import BackendDefaults, BackendError, ModelBackend, ModelRequest, ModelResponse
from gm_engine.transcripts.replay import ReplayBackend, response_from_event


class Recorded(BackendDefaults):
    """``live`` behind ``recording``: the recorded answer while there is one for the turn.

    With ``shadow``, a recorded turn is also put to the recording's own live backend (the
    personas' model) when the recording shadows, so that a model with state of its own
    lives through the replayed turns as :class:`ReplayBackend` makes it (a persona seat);
    an agent's seat has no such state (without it)."""

    def __init__(self, recording: ReplayBackend, live: ModelBackend, *, shadow: bool) -> None:
        self.recording = recording
        self.live = live
        self.shadow = shadow
        self.name = live.name

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """The recorded answer to ``request``, else the live source's.

        Raises:
            MalformedAnswerError: the recorded answer is an unreadable one (replayed as the
                same failure), or the live source's is.
            ReplayMismatch: the re-run diverged from the recording already.
        """
        call = self.recording.take(request)
        if call is None or call.response is None:
            return await self.live.complete(request, context)
        fallback = self.recording.fallback
        if self.shadow and self.recording.shadow and fallback is not None:
            with contextlib.suppress(BackendError):  # its answer does not count, as for ReplayBackend
                await fallback.complete(request, context)
        return response_from_event(call.response)
