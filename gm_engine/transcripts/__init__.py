"""Transcripts: every session recorded as a hash-chained, signed JSON Lines file, replayed as a
regression test (:func:`replay_file`), and resumed after a crash (:func:`resume_session`).

A play command records a session with :func:`record_session`; the file layout is
described in :mod:`gm_engine.transcripts.format`.

Each name below is imported from its module when it is first used (:func:`__getattr__`), so that
importing one module of the package (``gm replay`` needs :mod:`.replay` and :mod:`.format`)
does not import the recorder and the resumer too.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gm_engine.transcripts.format import (
        FORMAT_VERSION,
        Authenticity,
        Event,
        Transcript,
        TranscriptBusy,
        TranscriptError,
        TranscriptExists,
        TranscriptFormatError,
        TranscriptHeader,
        TranscriptTampered,
        TranscriptTruncated,
        TranscriptWriter,
        read_transcript,
    )
    from gm_engine.transcripts.paths import (
        data_dir,
        default_transcript_path,
        seed_commitment,
        transcripts_dir,
    )
    from gm_engine.transcripts.record import TeeSink, play_session, record_session
    from gm_engine.transcripts.replay import (
        CheckingSink,
        Divergence,
        ReplayBackend,
        ReplayHuman,
        ReplayMismatch,
        ReplayReport,
        replay_file,
        replay_transcript,
    )
    from gm_engine.transcripts.resume import ResumeError, ResumeResult, resume_session

#: The module of this package each name of :data:`__all__` comes from.
_HOMES: dict[str, str] = {
    "FORMAT_VERSION": "format",
    "Authenticity": "format",
    "Event": "format",
    "Transcript": "format",
    "TranscriptBusy": "format",
    "TranscriptError": "format",
    "TranscriptExists": "format",
    "TranscriptFormatError": "format",
    "TranscriptHeader": "format",
    "TranscriptTampered": "format",
    "TranscriptTruncated": "format",
    "TranscriptWriter": "format",
    "read_transcript": "format",
    "data_dir": "paths",
    "default_transcript_path": "paths",
    "seed_commitment": "paths",
    "transcripts_dir": "paths",
    "TeeSink": "record",
    "play_session": "record",
    "record_session": "record",
    "CheckingSink": "replay",
    "Divergence": "replay",
    "ReplayBackend": "replay",
    "ReplayHuman": "replay",
    "ReplayMismatch": "replay",
    "ReplayReport": "replay",
    "replay_file": "replay",
    "replay_transcript": "replay",
    "ResumeError": "resume",
    "ResumeResult": "resume",
    "resume_session": "resume",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # looked up once
    return value


__all__ = [
    "FORMAT_VERSION",
    "Authenticity",
    "CheckingSink",
    "Divergence",
    "Event",
    "ReplayBackend",
    "ReplayHuman",
    "ReplayMismatch",
    "ReplayReport",
    "ResumeError",
    "ResumeResult",
    "TeeSink",
    "Transcript",
    "TranscriptBusy",
    "TranscriptError",
    "TranscriptExists",
    "TranscriptFormatError",
    "TranscriptHeader",
    "TranscriptTampered",
    "TranscriptTruncated",
    "TranscriptWriter",
    "data_dir",
    "default_transcript_path",
    "play_session",
    "read_transcript",
    "record_session",
    "replay_file",
    "replay_transcript",
    "resume_session",
    "seed_commitment",
    "transcripts_dir",
]
