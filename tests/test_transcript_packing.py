"""A finished transcript packed (format 5, :mod:`gm_engine.transcripts.packing`): smaller,
read back event for event as the sealed file it was, every byte still under the signature,
and never packed while anything in it is secret."""

from __future__ import annotations

import base64
import json
import zlib
from functools import partial
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.dice.source import SeededSource
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.transcripts.format import (
    TranscriptFormatError,
    TranscriptTampered,
    pack_transcript,
    read_transcript,
)
from gm_engine.transcripts.packing import LONG_LINE, MAX_INFLATED, PACKED_FORMAT, LinePacker, LineUnpacker
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_file
from gm_engine.transcripts.sealing import GameKey
from gm_engine.transcripts.signing import load_or_create_key, sign_end
from gm_engine.werewolf.agents import OfflineAgent
from tests.forge_chain import as_recorded, opened, packed_lines, rechain


@pytest.fixture(autouse=True)
def _english_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the English catalogue's texts (the Japanese ones are tested where
    they say so, by unsetting GM_LOCALE)."""
    monkeypatch.setenv("GM_LOCALE", "en")


KEY = GameKey(key_id="ab" * 16, key=bytes(range(32)))
SPEC = SessionSpec(kind="werewolf", seed=12, options={"auto": True, "role": 3}, backend="offline")


def record(path: Path, *, pack: bool) -> None:
    human = AutoHuman(OfflineAgent(1, SeededSource("12/human")))
    io = SessionIO(backend=OfflineBackend(), human=human, show=lambda _: None)
    # one key for both recordings, so that they are the same game byte for byte
    record_session(SPEC, io, path, durable=False, remember_seed=False, pack=pack, game_key=KEY)


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The same game recorded twice: left as written while it ran (sealed), and packed."""
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "data"))  # its own signing key
    sealed, packed = tmp_path / "sealed.jsonl", tmp_path / "packed.jsonl"
    record(sealed, pack=False)
    record(packed, pack=True)
    return sealed, packed


def test_a_finished_game_is_packed_and_reads_back_event_for_event(games: tuple[Path, Path]) -> None:
    sealed, packed = games
    rows = [json.loads(row) for row in packed.read_bytes().splitlines()]
    assert rows[0]["format"] == PACKED_FORMAT and rows[0]["sealing"] is not None
    assert all(set(row) in ({"z"}, {"z1"}) for row in rows[1:-1])
    assert rows[-1]["type"] == "end" and "packed_sha256" in rows[-1] and "key" in rows[-1]
    assert packed.stat().st_size * 4 < sealed.stat().st_size
    assert packed.stat().st_mode & 0o777 == 0o600  # owner-only, as the file it replaces
    before, after = read_transcript(sealed), read_transcript(packed)
    assert after.authenticity.verified
    assert [(e.seq, e.type, e.payload) for e in after.events] == [
        (e.seq, e.type, e.payload) for e in before.events
    ]
    assert replay_file(packed).ok and replay_file(sealed).ok


def test_packing_is_deterministic_and_undone_exactly(games: tuple[Path, Path], tmp_path: Path) -> None:
    sealed, packed = games
    # the sealed file is what the packed one was before its end: its events made again from it
    # (the chunks they were cut into followed the screen, which the packed file does not keep)
    again = tmp_path / "again.jsonl"
    again.write_bytes(as_recorded(packed, partial(sign_end, load_or_create_key())))
    assert [(e.type, e.payload) for e in read_transcript(again).events] == [
        (e.type, e.payload) for e in read_transcript(sealed).events
    ]
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(sealed.read_bytes())
    assert pack_transcript(copy, load_or_create_key(), durable=False)
    assert copy.read_bytes() == packed.read_bytes()
    assert not pack_transcript(copy, load_or_create_key(), durable=False)  # packed already: left alone
    assert copy.read_bytes() == packed.read_bytes()


def test_an_unfinished_or_edited_file_is_not_packed(
    games: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sealed, _ = games
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(sealed.read_bytes().splitlines(keepends=True)[:-1]))
    assert not pack_transcript(cut, load_or_create_key(), durable=False)
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(sealed.read_bytes().replace(b'"type":"sealed"', b'"type": "sealed"', 1))
    assert not pack_transcript(edited, load_or_create_key(), durable=False)
    assert "kept unpacked" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*.packing"))  # no half-made copy left


def test_a_packed_line_edited_is_tampering(games: tuple[Path, Path], tmp_path: Path) -> None:
    _, packed = games
    rows = packed.read_bytes().splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    # a byte of a deflated piece flipped: it no longer inflates, or not to these lines
    piece = json.loads(rows[3])
    data = bytearray(base64.b64decode(piece["z"]))
    data[len(data) // 2] ^= 0x55
    path.write_bytes(b"".join([*rows[:3], json.dumps({"z": base64.b64encode(data).decode()}).encode() + b"\n",
                               *rows[4:]]))
    with pytest.raises(TranscriptTampered):
        read_transcript(path)
    # the pieces deflated again otherwise (level 1): the same lines, other bytes, and the
    # end line's packed_sha256 tells
    objs = opened(packed)
    lines = [json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() for obj in objs]
    stream = zlib.compressobj(1, zlib.DEFLATED, -15, 9)
    pieces = [stream.compress(line + b"\n") + stream.flush(zlib.Z_SYNC_FLUSH) for line in lines[1:-1]]
    other = b"".join(b'{"z":"' + base64.b64encode(piece) + b'"}\n' for piece in pieces)
    assert other != packed_lines(lines[1:-1])
    path.write_bytes(rows[0] + other + rows[-1])
    with pytest.raises(TranscriptTampered, match="packed_sha256"):
        read_transcript(path)
    # a line that is no packed line at all
    path.write_bytes(b"".join([*rows[:3], b'{"type":"dice","seq":3,"dice":[]}\n', *rows[4:]]))
    with pytest.raises(TranscriptTampered, match="a packed line does not unpack as written") as info:
        read_transcript(path)
    assert "neither a z nor a z1 line" in str(info.value.__cause__)  # the developer's detail


def test_an_edit_with_every_hash_recomputed_fails_the_signature(
    games: tuple[Path, Path], tmp_path: Path
) -> None:
    _, packed = games
    objs = opened(packed)
    target = next(obj for obj in objs if obj["type"] == "model_response")
    target["usage"] = {"prompt_tokens": 1, "completion_tokens": 1}
    path = tmp_path / "forged.jsonl"
    path.write_bytes(rechain(objs))  # repacked, packed_sha256 and every hash made anew
    with pytest.raises(TranscriptTampered, match="signature"):
        read_transcript(path)


def test_a_packed_line_that_inflates_beyond_the_bound_is_refused() -> None:
    line = b'{"type":"blob","id":1,"body":"' + b"a" * (MAX_INFLATED + 10) + b'"}\n'
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    data = bomb.compress(line) + bomb.flush(zlib.Z_SYNC_FLUSH)
    chunk = b'{"z":"' + base64.b64encode(data) + b'"}\n'
    assert len(chunk) < 1 << 20
    with pytest.raises(ValueError, match="inflates to more than"):
        list(LineUnpacker().lines(chunk))


def test_long_lines_are_deflated_alone_and_short_ones_share_the_stream() -> None:
    long = b'{"type":"blob","id":2,"body":"' + b"x" * LONG_LINE + b'"}\n'
    short = b'{"type":"blob","id":1,"body":"y"}\n'
    event = b'{"type":"dice","seq":1,"dice":[]}\n'
    packer = LinePacker()
    packed = packer.pack(short + long + event)
    rows = packed.splitlines(keepends=True)
    assert [next(iter(json.loads(row))) for row in rows] == ["z", "z1", "z"]
    unpacker = LineUnpacker()
    out = [pair for row in rows for pair in unpacker.lines(row)]
    assert out == [(short, False), (long, True), (event, False)]
    assert unpacker.digest.hexdigest() == packer.digest.hexdigest()


def test_the_cli_replays_packed_and_older_sealed_files_alike(
    games: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    sealed, packed = games
    assert main(["replay", str(sealed), str(packed)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 transcripts match" in out
    assert "packed at its end" in out and "every one opened and authenticated" in out


def test_a_bad_packed_header_line_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type":"header","format":8,"kind":"roll","seed_sha256":"x"}\n')
    with pytest.raises(TranscriptFormatError, match=r"format 8.*reads formats 1, 2, 3, 4, 5, 6, 7.*newer"):
        read_transcript(path)
