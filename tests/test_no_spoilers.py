"""No spoilers on disk: while a game runs, nothing a player can read in the files the
program writes tells a fact P1 may not know; after the end, the transcript is whole and
checkable (issue 11).

The live test plays a real ``gm werewolf play`` in a pseudo-terminal, P1 a 村人 (who
knows no wolf), and stops at P1's first prompt, after the deal, the 事前占い and the
personas' first requests are in the transcript. The hidden facts are derived from that
game's own deal: the seed (from the game's key file, the one file the check leaves out)
gives the game, and :func:`tests.test_secrecy.hidden_for` the facts in the very form the
prompts use (every other seat's role, the wolves' partner lines, the 占い result, the
werewolf manners of the personas, the end-of-game role list). The check is shown to be
able to find them: the transcript's own events, opened with the key, hold some of them.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import HumanDefaults, SessionIO, SessionSpec
from gm_engine.sessions.werewolf import WerewolfSession, session_options
from gm_engine.transcripts.format import (
    TranscriptFormatError,
    TranscriptStream,
    TranscriptTampered,
    dumps,
    read_transcript,
)
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.transcripts.sealing import CHUNK_SIZE, GameKey, keep_key, key_file, keys_dir
from gm_engine.transcripts.signing import load_or_create_key, sign_end
from gm_engine.werewolf import Game
from tests.forge_chain import as_recorded, opened, rechain
from tests.pty_run import PtyRun
from tests.test_secrecy import hidden_for

GM = [sys.executable, "-m", "gm_engine"]


class _Paused(Exception):
    """The game reached P1's first prompt."""


class _PauseAtFirstPrompt(HumanDefaults):
    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        raise _Paused


def game_at_first_prompt(spec: SessionSpec) -> Game:
    """The game of ``spec`` as it stands when P1 is first asked (the same seed and the same
    offline model make the same game as the process under test)."""
    io = SessionIO(backend=OfflineBackend(), human=_PauseAtFirstPrompt(), show=lambda _: None)
    session = WerewolfSession(spec, session_options(spec), io)
    with pytest.raises(_Paused):
        asyncio.run(session.run())
    return session.game


def _files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if path.is_file())


def _readable_text(path: Path) -> str:
    """What a player reading the file sees: its bytes as text, JSON escapes read too."""
    text = path.read_bytes().decode("utf-8", "replace")
    try:
        return text + "\n" + "\n".join(dumps(json.loads(line)) for line in text.splitlines())
    except ValueError:
        return text


def test_nothing_p1_may_not_know_is_on_disk_during_a_live_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    record = tmp_path / "live.jsonl"
    run = PtyRun(
        ["werewolf", "play", "--plain", "--role", "2", "--record", str(record)],
        env={"GM_DATA_DIR": str(data)},
    )
    try:
        run.read_until("あなたの発言の番です".encode())
        run.read_until(b"> ")
        # the game waits at P1's first prompt, the transcript open and locked
        monkeypatch.setenv("GM_DATA_DIR", str(data))
        key_files = list(keys_dir().glob("*.json"))
        assert len(key_files) == 1
        assert stat.S_IMODE(key_files[0].stat().st_mode) == 0o600
        assert stat.S_IMODE(key_files[0].parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(record.stat().st_mode) == 0o600
        seed = json.loads(key_files[0].read_text())["seed"]

        with TranscriptStream(record) as stream:  # the header is public: it names the options
            spec = stream.header.spec(seed)
        game = game_at_first_prompt(spec)
        hidden = hidden_for(game, 1) | {str(seed)}
        assert any("人狼" in fact for fact in hidden)

        # the facts are what the private lines hold, in that form: the check can find them
        opened_text = "\n".join(dumps(obj) for obj in opened(record))  # with the key file
        assert {fact for fact in hidden if fact in opened_text}, "the transcript holds none of the facts"

        readable = [path for path in _files(tmp_path) if path not in key_files]
        assert record in readable and any(path.is_relative_to(data) for path in readable)
        for path in readable:
            text = _readable_text(path)
            leaks = sorted(fact for fact in hidden if fact in text)
            assert not leaks, f"{path.relative_to(tmp_path)} tells P1 {leaks[:3]}"
    finally:
        if run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
        run.finish(limit_s=30)

    # cut off there: `gm resume` finds the key file, replays the sealed part and goes on
    resumed = subprocess.run(
        [*GM, "resume", str(record)], input="/quit\n", capture_output=True, text=True,
        env={**os.environ, "GM_DATA_DIR": str(data)}, check=False, timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"gm resume {record}" in resumed.stdout + resumed.stderr


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A whole --auto game recorded sealed (and packed at its end), and its data directory."""
    folder = tmp_path_factory.mktemp("sealed")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GM_DATA_DIR", str(folder / "data"))
        path = folder / "game.jsonl"
        assert main(["werewolf", "play", "--auto", "--plain", "--seed", "8", "--record", str(path)]) == 0
    return path, folder / "data"


def sealed_copy(finished: tuple[Path, Path], tmp_path: Path) -> Path:
    """The finished game's file as it was before its end line, sealed (a finished file is
    packed); ``GM_DATA_DIR`` must be the game's data directory, whose key signs it."""
    source = tmp_path / "sealed.jsonl"
    source.write_bytes(as_recorded(finished[0], partial(sign_end, load_or_create_key())))
    return source


@pytest.mark.usefixtures("english_messages")
def test_a_finished_game_is_checked_whole_without_its_key_file(
    finished: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source, data = finished
    path = tmp_path / "game.jsonl"
    shutil.copyfile(source, path)
    monkeypatch.setenv("GM_DATA_DIR", str(data))
    shutil.rmtree(data / "game-keys")  # gone: the end line reveals the key
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    # packed at its end: the header still names the game's sealing key, the end reveals it
    assert lines[0]["format"] == 5 and lines[0]["sealing"]["cipher"] == "AES-256-GCM"
    assert all(set(line) in ({"z"}, {"z1"}) for line in lines[1:-1])
    assert lines[-1]["type"] == "end" and isinstance(lines[-1]["key"], str)
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "OK (strict" in out and "signature verified" in out
    assert "sealed while the game ran" in out and "matches the header's commitment" in out
    # as it was written before its end: sealed, every sealed line opened with the revealed key
    sealed = sealed_copy(finished, tmp_path)
    lines = [json.loads(line) for line in sealed.read_bytes().splitlines()]
    assert {line["type"] for line in lines[1:-1]} <= {"sealed", "blob", "human_input"}
    assert main(["replay", str(sealed)]) == 0
    assert "every one opened and authenticated" in capsys.readouterr().out


@pytest.mark.usefixtures("english_messages")
def test_a_sealed_line_tampered_with_fails_with_a_clear_message(
    finished: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GM_DATA_DIR", str(finished[1]))
    source = sealed_copy(finished, tmp_path)
    path = tmp_path / "game.jsonl"
    rows = source.read_bytes().splitlines()
    number = next(i for i, row in enumerate(rows) if row.startswith(b'{"type":"sealed"'))
    line = json.loads(rows[number])
    box = line["box"]
    line["box"] = box[:20] + ("A" if box[20] != "A" else "B") + box[21:]  # one byte of the box flipped
    rows[number] = dumps(line).encode()
    path.write_bytes(b"".join(row + b"\n" for row in rows))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"TAMPERED: line {number + 1}: a sealed line does not open with the game's key" in out

    # a forger who knows the revealed key reseals an edited line and recomputes every hash:
    # the signature still fails
    objs = opened(source)
    target = next(obj for obj in objs if obj["type"] == "model_response" and obj.get("content"))
    target["content"] = "改竄された発言"
    path.write_bytes(rechain(objs))
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "TAMPERED" in out and "signature over the chain's end" in out

    # a sealed line moved to another place does not open there either
    rows = source.read_bytes().splitlines()
    sealed_rows = [i for i, row in enumerate(rows) if row.startswith(b'{"type":"sealed"')]
    first, second = (json.loads(rows[i]) for i in sealed_rows[:2])
    first["box"], second["box"] = second["box"], first["box"]
    rows[sealed_rows[0]], rows[sealed_rows[1]] = dumps(first).encode(), dumps(second).encode()
    path.write_bytes(b"".join(row + b"\n" for row in rows))
    with pytest.raises(ValueError, match="does not open with the game's key"):
        read_transcript(path)


def test_gm_replay_reports_a_sealed_file_in_the_players_language(
    finished: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Japanese by default: the verdict words, the signature and sealing notes, a tampered
    sealed line, and a cut-off game whose key file is gone (TranscriptSealed, SealError)."""
    monkeypatch.delenv("GM_LOCALE", raising=False)
    data = tmp_path / "data"  # a copy: another test removes the shared game's key file
    shutil.copytree(finished[1], data)
    monkeypatch.setenv("GM_DATA_DIR", str(data))
    source = sealed_copy(finished, tmp_path)
    rows = source.read_bytes().splitlines()
    number = next(i for i, row in enumerate(rows) if row.startswith(b'{"type":"sealed"'))
    line = json.loads(rows[number])
    line["box"] = line["box"][:20] + ("A" if line["box"][20] != "A" else "B") + line["box"][21:]
    tampered = tmp_path / "tampered.jsonl"
    edited = [*rows[:number], dumps(line).encode(), *rows[number + 1 :]]
    tampered.write_bytes(b"".join(row + b"\n" for row in edited))
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(row + b"\n" for row in rows[:-1]))  # no end line: the key is not revealed
    capsys.readouterr()
    assert main(["replay", str(source), str(tampered)]) == 1
    out = capsys.readouterr().out
    assert f"{source}: 一致（厳密; 出来事" in out and "署名を確認: このインストールの鍵" in out
    assert "注: 非公開の行は封印（AES-256-GCM）されていて" in out
    assert f"{tampered} は改ざん: {number + 1}行目: 封印された行がゲームの鍵で開きません" in out
    assert "2件中1件の記録が一致、うち信頼する鍵の署名は1件" in out
    shutil.rmtree(data / "game-keys", ignore_errors=True)
    assert main(["replay", str(cut)]) == 1
    out = capsys.readouterr().out
    assert f"{cut} は未完了（封印中）: {cut}: " in out  # not called invalid: it is only unfinished
    assert "行目は封印されていて（ゲームはまだ終わっていません）" in out
    assert "鍵のファイル（" in out and "）がなく、鍵を明かす終了の行もありません" in out
    words = re.findall(r"[A-Za-z]{3,}", re.sub(r"\S*/\S*", "", out))  # the paths left out
    assert words == [], words
    monkeypatch.setenv("GM_LOCALE", "en")
    assert main(["replay", str(cut)]) == 1
    out = capsys.readouterr().out
    assert f"{cut}: SEALED: {cut}: line " in out and "is sealed (the game is not over)" in out
    assert "is not there and no end line reveals the key" in out


@pytest.mark.usefixtures("english_messages")
def test_a_running_file_is_chunks_of_one_length(
    finished: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Format 7: every line between the header and the end is a sealed chunk of one size,
    P1's inputs too; a file that breaks this is refused at the line that does."""
    monkeypatch.setenv("GM_DATA_DIR", str(finished[1]))
    source = sealed_copy(finished, tmp_path)
    rows = source.read_bytes().splitlines()
    objs = [json.loads(row) for row in rows]
    assert objs[0]["format"] == 7
    assert {obj["type"] for obj in objs[1:-1]} == {"sealed"}
    lengths = [len(obj["box"]) for obj in objs[1:-2]]  # the last chunk, written at the end, is the rest
    assert set(lengths) == {len(base64.b64encode(bytes(12 + CHUNK_SIZE + 16)))}
    assert replay_transcript(read_transcript(source)).ok

    path = tmp_path / "edited.jsonl"
    # an input written in the clear in place of a chunk (its hashes and numbers made good)
    opened_objs = opened(source)
    public = next(obj for obj in opened_objs if obj["type"] == "human_input")
    number = next(i for i, row in enumerate(rows) if i and b'"chain"' not in row)
    clear = {"type": "human_input", "seq": objs[number]["seq"], **{k: public[k] for k in ("prompt", "text")}}
    path.write_bytes(_lines([*rows[:number], dumps(clear).encode(), *rows[number + 1 :]]))
    with pytest.raises(TranscriptFormatError, match=f"line {number + 1}: a human_input event in the clear"):
        read_transcript(path)
    # a byte of a box changed: its tag or, in its filler, the running hash catches it
    line = json.loads(rows[number])
    line["box"] = line["box"][:-40] + ("A" if line["box"][-40] != "A" else "B") + line["box"][-39:]
    path.write_bytes(_lines([*rows[:number], dumps(line).encode(), *rows[number + 1 :]]))
    with pytest.raises(TranscriptTampered):
        read_transcript(path)
    # cut in the middle of a chunk: set aside, the events of the lines before it kept (read
    # with the game's key file, as while the game runs)
    key = GameKey.from_hex(objs[0]["sealing"]["key_id"], objs[-1]["key"])
    if not key_file(key.key_id).exists():
        keep_key(key, None)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(_lines(rows[: number + 1]))
    whole_lines = read_transcript(cut, require_end=False)
    cut.write_bytes(_lines(rows[: number + 1]) + rows[number + 1][:1000])
    transcript = read_transcript(cut, require_end=False)
    assert transcript.partial_line == rows[number + 1][:1000]
    assert len(transcript.events) == len(whole_lines.events) > 0
    assert transcript.lines == number


def _lines(rows: list[bytes]) -> bytes:
    return b"".join(row + b"\n" for row in rows)


def test_a_format_4_file_is_still_read_and_replayed(
    finished: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The layout written before format 6 (each event line and blob line sealed on its own)."""
    monkeypatch.setenv("GM_DATA_DIR", str(finished[1]))
    objs = opened(finished[0])  # the packed file's lines are format 4's, but for sealing
    objs[0]["format"] = 4
    objs[-1].pop("packed_sha256")
    path = tmp_path / "four.jsonl"
    path.write_bytes(rechain(objs, sign=partial(sign_end, load_or_create_key())))
    kinds = {json.loads(row)["type"] for row in path.read_bytes().splitlines()[1:-1]}
    assert kinds == {"sealed", "blob", "human_input"}
    transcript = read_transcript(path)
    assert transcript.authenticity.verified
    assert replay_transcript(transcript).ok


def test_only_a_file_is_padded_to_the_ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file (which P1 may open) gets every chunk padded to its size; a server's store,
    which no player reads and which keeps the key beside the lines, 32 bytes only; both read
    back the same events."""
    from gm_engine.events import StateEvent
    from gm_engine.transcripts.format import TranscriptWriter
    from gm_engine.transcripts.sealing import GameKey

    class Memory:
        def __init__(self) -> None:
            self.data = b""

        def write_lines(self, lines: Sequence[str], data: bytes) -> None:
            self.data += data

        def close(self) -> None:
            pass

    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "data"))
    spec = SessionSpec(kind="werewolf", seed=3, options={"role": 2}, backend="offline")
    key = GameKey(key_id="cd" * 16, key=bytes(32))
    store = Memory()
    writers = [
        TranscriptWriter.start(store, tmp_path / "table.jsonl", spec, signing_key=None, game_key=key),
        TranscriptWriter.create(tmp_path / "file.jsonl", spec, durable=False, sign=False, game_key=key),
    ]
    for writer in writers:
        writer.emit(StateEvent(hash="ab" * 32, step="deal"))
        writer.public_point()  # the file's chunk (the store's went out with the event)
        writer.close()
    (tmp_path / "table.jsonl").write_bytes(store.data)
    boxes = []
    for name in ("table.jsonl", "file.jsonl"):
        rows = [json.loads(row) for row in (tmp_path / name).read_bytes().splitlines()]
        boxes.append(len(base64.b64decode(rows[1]["box"])) - 28)  # the nonce and the tag off
        events = read_transcript(tmp_path / name, require_end=False).events
        assert [(e.type, e.payload) for e in events] == [("state", {"hash": "ab" * 32, "step": "deal"})]
    assert boxes[0] % 32 == 0 and boxes[0] < 256
    assert boxes[1] == CHUNK_SIZE
