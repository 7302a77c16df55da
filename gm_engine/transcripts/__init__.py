"""Transcripts: every session recorded as a hash-chained, signed JSON Lines file, replayed as a
regression test (:func:`replay_file`), and resumed after a crash (:func:`resume_session`).

A play command records a session with :func:`record_session`; the file layout is
described in :mod:`gm_engine.transcripts.format`.
"""

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
from gm_engine.transcripts.paths import data_dir, default_transcript_path, seed_commitment, transcripts_dir
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
