"""Every shipped transcript in ``transcripts/`` is a regression test: it must replay exactly.

Each file is its own test case (id = the file name), replayed strictly (every model
request byte for byte, every tool result, die and state hash) and tolerantly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.replay import replay_transcript

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "transcripts"
FILES = sorted(TRANSCRIPTS.glob("*.jsonl"))


def test_transcripts_are_shipped() -> None:
    assert FILES, f"no transcripts in {TRANSCRIPTS}"


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_transcript_replays(path: Path) -> None:
    transcript = read_transcript(path)
    assert transcript.end is not None
    strict = replay_transcript(transcript)
    assert strict.ok, strict.describe()
    tolerant = replay_transcript(transcript, tolerant=True)
    assert tolerant.ok, tolerant.describe()
