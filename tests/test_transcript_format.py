"""The transcript machinery on the roll session and on a tiny model-driven session:
format and hash chain, tamper and truncation detection, replay (strict and tolerant),
divergence reports, resume and the roll session itself."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gm_engine.cli import main
from gm_engine.events import (
    DiceEvent,
    HumanInputEvent,
    ModelRequestEvent,
    ModelResponseEvent,
    StateEvent,
    ToolResultEvent,
)
from gm_engine.llm.base import BackendDefaults, ModelRequest, ModelResponse, ToolCall
from gm_engine.messages import render
from gm_engine.messages.texts import CheckpointMismatch
from gm_engine.sessions.base import HumanDefaults, SessionIO, SessionOutcome, SessionRunner, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.roll import NoModelBackend, RollSession, run_roll_session
from gm_engine.transcripts.format import (
    CHECKPOINT_EVERY,
    TranscriptError,
    TranscriptFormatError,
    TranscriptTampered,
    TranscriptTruncated,
    TranscriptWriter,
    dumps,
    read_transcript,
)
from gm_engine.transcripts.paths import data_dir, find_seed, seed_commitment, seed_file, transcripts_dir
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_file, replay_transcript
from gm_engine.transcripts.resume import ResumeError, resume_session
from gm_engine.transcripts.signing import public_key_text, sign_end
from tests.forge_chain import opened, rechain

LINES = ["2d6+1", "/system Cthulhu7th", "CC<=50", "hello", "/system Nope", "1d100<=40", "x" * 1200, "3d6"]


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("GM_DATA_DIR", str(home))
    return home


def roll_spec(seed: int = 42, system: str = "DiceBot") -> SessionSpec:
    return SessionSpec(kind="roll", seed=seed, options={"system": system}, backend="none")


def record_roll(
    path: Path, lines: Sequence[str] = LINES, seed: int = 42, *, pack: bool = False
) -> SessionOutcome:
    """A roll session recorded as it is written while it runs (format 6): the layout these
    tests check line by line (the packed copy of a finished one, ``pack``: test_transcript_packing)."""
    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(lines), show=lambda _: None)
    return record_session(roll_spec(seed), io, path, pack=pack)


FORGER_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def rewrite(path: Path, edit: dict[int, dict[str, object]] | None = None, drop: int | None = None) -> None:
    """Edit lines (by 1-based line number) and recompute the chain, as a forger would: with
    a key of the forger's own, since the recorder's is not in the file."""
    objs = opened(path)  # a sealed transcript's lines opened with the key its end reveals
    for number, changes in (edit or {}).items():
        objs[number - 1].update(changes)
    if drop is not None:
        del objs[drop - 1]
    objs[0]["signer"] = public_key_text(FORGER_KEY)
    path.write_bytes(rechain(objs, sign=lambda digest: sign_end(FORGER_KEY, digest), renumber=True))


def line_of(path: Path, event_type: str, nth: int = 0) -> int:
    hits = [i + 1 for i, obj in enumerate(opened(path)) if obj["type"] == event_type]
    return hits[nth]


# --------------------------------------------------------------------------- format


def test_recording_layout_and_chain(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    outcome = record_roll(path)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    objs = [json.loads(line) for line in lines[:-1]]
    header = objs[0]
    assert header["type"] == "header" and header["kind"] == "roll" and header["format"] == 7
    assert header["seed_sha256"] == hashlib.sha256(b"42").hexdigest()
    assert set(header) == {
        "type", "format", "engine", "kind", "system", "options", "backend", "model", "assets", "seed_sha256",
        "signer", "sealing",
    }
    assert header["sealing"] is None  # a roll session hides nothing: written in the clear
    assert header["system"] == "DiceBot"
    assert any(name.startswith("prompts/") for name in header["assets"])
    events = [obj for obj in objs[1:] if obj["type"] != "blob"]
    assert [obj["seq"] for obj in events] == list(range(1, len(events) + 1))
    assert "seq" not in {key for obj in objs if obj["type"] == "blob" for key in obj}
    # no line holds a link to the one before: a running hash over every byte stands in for
    # them, held by every CHECKPOINT_EVERY-th event and, whole, by the end line
    assert not any("prev" in obj for obj in objs)
    running = hashlib.sha256()
    checkpoints = 0
    for line, obj in zip(lines, objs, strict=False):
        if obj["type"] not in ("header", "blob", "end"):
            assert ("chain" in obj) == (obj["seq"] % CHECKPOINT_EVERY == 0)
            if "chain" in obj:
                assert obj["chain"] == running.hexdigest()[:32]
                checkpoints += 1
        if obj["type"] == "end":
            body = {name: value for name, value in obj.items() if name not in ("hash", "signature")}
            running.update(dumps(body).encode())
            assert obj["hash"] == running.hexdigest()
        running.update(line + b"\n")
    assert checkpoints == (len(events) - 1) // CHECKPOINT_EVERY >= 1
    assert objs[-1]["type"] == "end" and objs[-1]["seed"] == 42
    assert objs[-1]["summary"] == outcome.summary
    types = {obj["type"] for obj in objs}
    assert {"human_input", "dice", "tool_result", "state"} <= types
    transcript = read_transcript(path)
    assert transcript.end is not None and transcript.end.seed == 42
    assert len(transcript.events) == len(events) - 1


def test_same_seed_and_inputs_give_the_same_bytes(tmp_path: Path) -> None:
    record_roll(tmp_path / "a.jsonl")
    record_roll(tmp_path / "b.jsonl")
    record_roll(tmp_path / "c.jsonl", seed=43)
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    assert a != (tmp_path / "c.jsonl").read_bytes()


def test_edited_line_is_detected_with_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    number = line_of(path, "tool_result", 1)
    lines = path.read_text(encoding="utf-8").split("\n")
    obj = json.loads(lines[number - 1])
    obj["ok"] = not obj["ok"]
    lines[number - 1] = dumps(obj)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TranscriptTampered) as info:
        read_transcript(path)
    # found at the next checkpoint, which names the lines the edit lies between
    found = info.value.message
    assert isinstance(found, CheckpointMismatch), str(info.value)
    assert found.since < number < info.value.line
    assert f"{found.since}行目より後、この行より前" in str(info.value)


@pytest.mark.usefixtures("english_messages")
@pytest.mark.parametrize("field", ["summary", "seed"])
def test_edited_end_line_is_detected(tmp_path: Path, field: str) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    end = json.loads(lines[-2])
    end[field] = 41 if field == "seed" else "a different ending"
    lines[-2] = dumps(end)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TranscriptTampered, match="end line's hash is not the running hash"):
        read_transcript(path)


def test_a_forged_seed_fails_the_commitment(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    rewrite(path, edit={len(path.read_text().splitlines()): {"seed": 41}})
    with pytest.raises(TranscriptTampered, match="seed_sha256"):
        read_transcript(path)


def test_removed_line_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    lines = path.read_bytes().split(b"\n")
    del lines[5]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(TranscriptTampered) as info:
        read_transcript(path)
    assert info.value.line == 6


def test_missing_end_line_is_truncation(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:-2]) + b"\n")
    with pytest.raises(TranscriptTruncated, match=r"最後の行（終了の行）がないまま.*gm resume") as info:
        read_transcript(path)
    assert f"`gm resume {path}`" in str(info.value)
    transcript = read_transcript(path, require_end=False)
    assert transcript.end is None and transcript.partial_line is None


@pytest.mark.parametrize(
    ("locale", "cut_off", "mid_line", "header"),
    [
        (None, "最後の行（終了の行）がないまま", "書きかけの最後の行（21バイト）", "ヘッダー）が書きかけ"),
        ("en", "without its end line", "last line, 21 bytes, is half-written", "header line is half-written"),
    ],
)
def test_cli_replay_of_a_cut_off_file_says_so_in_the_players_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    locale: str | None, cut_off: str, mid_line: str, header: str,
) -> None:
    if locale is None:
        monkeypatch.delenv("GM_LOCALE", raising=False)
    else:
        monkeypatch.setenv("GM_LOCALE", locale)
    path = tmp_path / "r.jsonl"
    record_roll(path)
    data = path.read_bytes()
    whole = data[: data.rindex(b"\n", 0, len(data) - 1) + 1]
    cut, mid, head = tmp_path / "cut.jsonl", tmp_path / "mid.jsonl", tmp_path / "head.jsonl"
    cut.write_bytes(whole)
    mid.write_bytes(whole + b'{"type":"dice","seq":')
    head.write_bytes(data[:40])
    capsys.readouterr()
    assert main(["replay", str(cut), str(mid), str(head)]) == 1
    out = capsys.readouterr().out
    word = "cut.jsonl: TRUNCATED: " if locale == "en" else "cut.jsonl は途中で終了: "
    assert f"{word}{cut}: " in out and cut_off in out and f"gm resume {cut}`" in out
    assert mid_line in out and header in out


def test_half_written_last_line_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    data = path.read_bytes()
    whole = data[: data.rindex(b"\n", 0, len(data) - 1) + 1]  # without the end line
    cut = whole + b'{"type":"dice","seq":'
    path.write_bytes(cut)
    with pytest.raises(TranscriptTruncated, match="書きかけの最後の行（21バイト）"):
        read_transcript(path)
    transcript = read_transcript(path, require_end=False)
    assert transcript.partial_line == b'{"type":"dice","seq":'
    assert transcript.good_length == len(whole)


@pytest.mark.usefixtures("english_messages")
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"not json\n", "line 1: not valid JSON"),
        (b'{"type":"dice"}\n', "line 1: the first line is not a transcript header"),
        (
            b'{"type":"header","format":99,"kind":"roll","seed_sha256":"x"}\n',
            "format 99.*reads formats 1, 2.*newer",
        ),
        (b'{"type":"header","kind":"roll"}\n', "line 1: bad header"),
        (b"[1,2]\n", "not a JSON object"),
    ],
)
def test_malformed_files_are_refused_clearly(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TranscriptFormatError, match=message):
        read_transcript(path)


def test_writer_refuses_bad_events_and_stays_usable(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    writer = TranscriptWriter.create(path, roll_spec(), durable=False)
    writer.emit(StateEvent(hash="abc", step=1))
    with pytest.raises(TranscriptError, match="cannot record"):
        writer.emit(ToolResultEvent(actor="a", tool="t", arguments={"x": float("nan")}, ok=True, result=""))
    writer.emit(DiceEvent(dice=((3, 6),)))
    writer.finish(42, SessionOutcome(summary="done"))
    transcript = read_transcript(path)
    assert [e.type for e in transcript.events] == ["state", "dice"]
    assert [e.seq for e in transcript.events] == [1, 2]
    with pytest.raises(TranscriptError, match="closed"):
        writer.emit(DiceEvent(dice=()))


# --------------------------------------------------------------------------- replay


def test_roll_transcript_replays(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    for tolerant in (False, True):
        report = replay_file(path, tolerant=tolerant)
        assert report.ok, report.describe()
        assert report.human_inputs == len(LINES) + 1


def test_a_changed_die_is_reported_with_a_diff(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    number = line_of(path, "dice", 1)
    recorded = json.loads(path.read_text().splitlines()[number - 1])["dice"]
    forged = [[(recorded[0][0] % recorded[0][1]) + 1, recorded[0][1]], *recorded[1:]]
    rewrite(path, edit={number: {"dice": forged}})
    report = replay_file(path)
    assert not report.ok
    divergence = report.divergence
    assert divergence is not None
    assert divergence.line == number and divergence.event_type == "dice"
    assert "--- 記録" in divergence.diff and "+++ 再生" in divergence.diff
    seq = json.loads(path.read_text().splitlines()[number - 1])["seq"]
    assert f"記録との食い違い: 出来事{seq}（{number}行目、dice）: " in report.describe()
    assert f"divergence at event {seq} (line {number}, dice): " in report.describe("en")


@pytest.mark.usefixtures("english_messages")
def test_a_changed_die_is_reported_in_english_with_gm_locale_en(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    number = line_of(path, "dice", 1)
    recorded = json.loads(path.read_text().splitlines()[number - 1])["dice"]
    forged = [[(recorded[0][0] % recorded[0][1]) + 1, recorded[0][1]], *recorded[1:]]
    rewrite(path, edit={number: {"dice": forged}})
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "divergence at event " in out and f"(line {number}, dice)" in out
    assert "--- recorded" in out and "+++ replayed" in out


def test_a_recording_that_goes_on_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    quit_line = line_of(path, "human_input", len(LINES))
    rewrite(path, edit={quit_line: {"text": "1d6"}})
    report = replay_file(path)
    assert not report.ok and report.divergence is not None
    message = report.divergence.message
    assert render(message, "en") == "the replay goes on after the recording ended: it emits a dice event"
    assert render(message, "ja") == "記録が終わったあとも再生が続いています: dice の出来事を出しました"


def test_a_changed_state_hash_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    number = line_of(path, "state", 2)
    rewrite(path, edit={number: {"hash": "0" * 64}})
    report = replay_file(path, tolerant=True)
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == number
    assert render(report.divergence.message, "en") == "the state event differs from the recording"
    assert render(report.divergence.message, "ja") == "state の出来事の中身が記録と違います"


# A tiny model-driven session: the model names a number, the engine doubles it.


def toy_runner(greeting: str) -> SessionRunner:
    def run(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
        total = 0
        for turn in range(1, 4):
            word = io.human.ask(f"word {turn}? ")
            io.sink.emit(HumanInputEvent(prompt=f"word {turn}? ", text=word))
            messages = (
                {"role": "system", "content": greeting},
                {"role": "user", "content": f"{word} {turn}"},
            )
            request = ModelRequest(actor=f"P{turn % 2 + 2}", messages=messages, day=1, phase="day", turn=turn)
            io.sink.emit(ModelRequestEvent.of(request))
            response = asyncio.run(io.backend.complete(request))
            io.sink.emit(ModelResponseEvent.of(request.actor, response))
            value = int(json.loads(response.tool_calls[0].arguments)["n"])
            total += 2 * value
            io.sink.emit(
                ToolResultEvent(
                    actor=request.actor, tool="name", arguments=None, ok=True, result=str(2 * value)
                )
            )
            io.sink.emit(StateEvent(hash=hashlib.sha256(str(total).encode()).hexdigest(), step=turn))
        return SessionOutcome(summary=f"total {total}", figures={"total": total})

    return run


class CountingBackend(BackendDefaults):
    name = "toy"

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        n = len(str(request.messages[-1]["content"]))
        call = ToolCall(id=f"c{request.turn}", name="name", arguments=json.dumps({"n": n}))
        return ModelResponse(content=f"I say {n}", tool_calls=(call,))


def record_toy(path: Path, greeting: str = "You are a player.") -> None:
    spec = SessionSpec(kind="toy", seed=5, backend="toy")
    io = SessionIO(backend=CountingBackend(), human=ScriptedHuman(["a", "bb", "ccc"]), show=lambda _: None)
    record_session(spec, io, path, runner=toy_runner(greeting))


def test_reworded_prompt_fails_strict_and_passes_tolerant(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    transcript = read_transcript(path)
    assert replay_transcript(transcript, runner=toy_runner("You are a player.")).ok
    strict = replay_transcript(transcript, runner=toy_runner("You are a villager."))
    assert not strict.ok and strict.divergence is not None
    assert strict.divergence.event_type == "model_request"
    closest = strict.divergence.closest
    assert closest is not None and "actor P3, day 1, phase 'day', turn 1" in render(closest, "en")
    assert "villager" in strict.divergence.diff and "player" in strict.divergence.diff
    tolerant = replay_transcript(transcript, runner=toy_runner("You are a villager."), tolerant=True)
    assert tolerant.ok, tolerant.describe()


def test_tolerant_mode_still_checks_rule_outcomes(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    number = line_of(path, "tool_result", 1)
    rewrite(path, edit={number: {"result": "999"}})
    report = replay_transcript(read_transcript(path), runner=toy_runner("You are a player."), tolerant=True)
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == number and '"999"' in report.divergence.diff


def test_a_model_call_out_of_place_reports_the_closest(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    number = line_of(path, "model_request", 1)
    rewrite(path, edit={number: {"turn": 7}})
    report = replay_transcript(read_transcript(path), runner=toy_runner("You are a player."), tolerant=True)
    assert not report.ok and report.divergence is not None
    assert "(actor P2, day 1, phase 'day', turn 2) differs from the recorded one in where it stands" in (
        render(report.divergence.message, "en")
    )
    assert "モデル呼び出し（参加者 P2、1日目、局面 'day'、2手目）が、記録の呼び出しと場面" in (
        render(report.divergence.message, "ja")
    )
    assert report.divergence.closest is not None and report.divergence.closest.turn == 7


# --------------------------------------------------------------------------- resume


class Interrupting(HumanDefaults):
    """A human who walks away (the process is killed) after ``lines`` run out."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)

    def ask(self, prompt: str, choices: Sequence[str] | None = None) -> str:
        if not self.lines:
            raise KeyboardInterrupt
        return self.lines.pop(0)


def test_resume_continues_to_the_same_bytes(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    record_roll(whole, pack=True)
    cut = tmp_path / "cut.jsonl"
    io = SessionIO(backend=NoModelBackend(), human=Interrupting(LINES[:4]), show=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        record_session(roll_spec(), io, cut)
    assert read_transcript(cut, require_end=False).end is None
    with cut.open("ab") as handle:  # the process died in the middle of a line
        handle.write(b'{"type":"human_input","se')
    shown: list[str] = []
    result = resume_session(
        cut, SessionIO(backend=NoModelBackend(), human=ScriptedHuman(LINES[4:]), show=shown.append)
    )
    assert any("書きかけの最後の行" in text and "25バイト" in text for text in shown)
    assert result.dropped_bytes == 25 and result.new_events > 0
    assert cut.read_bytes() == whole.read_bytes()
    assert replay_file(cut).ok


def test_resume_needs_the_right_seed(tmp_path: Path, data_home: Path) -> None:
    cut = tmp_path / "cut.jsonl"
    io = SessionIO(backend=NoModelBackend(), human=Interrupting(LINES[:2]), show=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        record_session(roll_spec(), io, cut)
    before = cut.read_bytes()
    assert find_seed(seed_commitment(42)) == 42
    seed_file(seed_commitment(42)).unlink()
    live = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(LINES[2:]), show=lambda _: None)
    with pytest.raises(ResumeError, match="--seed"):
        resume_session(cut, live)
    with pytest.raises(ResumeError, match="シード 41 はヘッダーが約束したもの"):
        resume_session(cut, live, seed=41)
    assert cut.read_bytes() == before
    resume_session(cut, live, seed=42)
    assert read_transcript(cut).end is not None
    with pytest.raises(ResumeError, match="もう終わっています"):
        resume_session(cut, live, seed=42)


def test_resume_refuses_a_session_that_no_longer_replays(tmp_path: Path) -> None:
    cut = tmp_path / "toy.jsonl"
    spec = SessionSpec(kind="toy", seed=5, backend="toy")
    io = SessionIO(backend=CountingBackend(), human=Interrupting(["a", "bb"]), show=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        record_session(spec, io, cut, runner=toy_runner("v1"))
    before = cut.read_bytes()
    live = SessionIO(backend=CountingBackend(), human=ScriptedHuman(["ccc"]), show=lambda _: None)
    with pytest.raises(ResumeError, match="記録どおりに再生できなくなっています") as info:
        resume_session(cut, live, runner=toy_runner("v2"))
    # the divergence inside it has its labels in the same language: where, the closest call, the diff
    shown = str(info.value)
    assert "\n記録との食い違い: 出来事2（3行目、model_request）: " in shown, shown
    closest = "\nいちばん近い記録済みのモデル呼び出し: 出来事2（3行目）: 参加者 P3、1日目、局面 'day'、1手目"
    assert closest in shown
    assert "\n--- 記録\n+++ 再生\n" in shown
    assert cut.read_bytes() == before
    result = resume_session(cut, live, runner=toy_runner("v1"))
    assert result.outcome.summary == "total 24"


# --------------------------------------------------------------------------- roll session


def test_a_refused_line_changes_nothing() -> None:
    plain = RollSession(9)
    plain.apply("2d6")
    with_refusals = RollSession(9)
    with_refusals.apply("2d6")
    before = with_refusals.state_hash()
    for line in ["/system Nope", "nonsense", "x" * 5000, "/locale fr", "/bogus", "\x00\x01"]:
        step = with_refusals.apply(line)
        assert not step.ok and step.text
        assert with_refusals.state_hash() == before
    assert with_refusals.apply("3d6").text == plain.apply("3d6").text
    assert with_refusals.state_hash() == plain.state_hash()


def test_system_switch_applies_to_later_commands() -> None:
    session = RollSession(1)
    assert not session.apply("CC<=50").ok  # not a DiceBot command
    assert session.apply("/system Cthulhu7th").ok
    step = session.apply("CC<=50")
    assert step.ok and step.result is not None and step.result["system"] == "Cthulhu7th"


def test_roll_session_rejects_bad_options() -> None:
    from gm_engine.sessions.base import SessionError

    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman([]), show=lambda _: None)
    with pytest.raises(SessionError, match="unknown game system"):
        run_roll_session(SessionSpec(kind="roll", seed=1, options={"system": "Nope"}), io)


# --------------------------------------------------------------------------- paths and CLI


def test_data_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert data_dir() == tmp_path / "a"
    monkeypatch.delenv("GM_DATA_DIR")
    assert transcripts_dir() == tmp_path / "x" / "gm_engine" / "transcripts"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert transcripts_dir() == tmp_path / "h" / ".local" / "share" / "gm_engine" / "transcripts"


@pytest.mark.usefixtures("english_messages")
def test_cli_replay_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.jsonl"
    record_roll(good)
    assert main(["replay", str(good)]) == 0
    assert "1 of 1 transcripts match" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(good.read_bytes().replace(b"2d6+1", b"2d6+2", 1))
    truncated = tmp_path / "cut.jsonl"
    truncated.write_bytes(b"\n".join(good.read_bytes().split(b"\n")[:-2]) + b"\n")
    assert main(["replay", str(good), str(bad), str(truncated)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"bad\.jsonl: TAMPERED: line \d+: the running hash does not match", out), out
    assert "cut.jsonl: TRUNCATED" in out
    assert "1 of 3 transcripts match" in out


def test_cli_roll_session_records_and_prints_the_path(
    tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "lines.txt"
    script.write_text("2d6\n/system Cthulhu\nCC<=50\n", encoding="utf-8")
    assert main(["roll-session", "--seed", "3", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    path = Path(out.strip().splitlines()[-1].removeprefix("記録: "))
    assert path.parent == data_home / "transcripts"
    assert replay_file(path).ok


def test_cli_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    whole = tmp_path / "whole.jsonl"
    record_roll(whole, pack=True)
    cut = tmp_path / "cut.jsonl"
    interrupted = SessionIO(backend=NoModelBackend(), human=Interrupting(LINES[:3]), show=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        record_session(roll_spec(), interrupted, cut)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(LINES[3:]) + "\n"))
    assert main(["resume", str(cut)]) == 0
    out = capsys.readouterr().out
    assert "記録済みの" in out and f"件を {cut} に追記しました" in out
    assert cut.read_bytes() == whole.read_bytes()
    assert main(["resume", str(cut)]) == 2
    assert "もう終わっています" in capsys.readouterr().err


# --------------------------------------------------------------------------- properties

import contextlib  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60))
def test_no_line_crashes_the_roll_session_and_refusals_change_nothing(line: str) -> None:
    session = RollSession(5)
    session.apply("1d6")
    before = session.state_hash()
    dice_before = len(session.source.history)
    step = session.apply(line)
    assert isinstance(step.text, str) and step.text
    if not step.ok:
        assert session.state_hash() == before
        assert len(session.source.history) == dice_before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8")))
def test_no_file_content_crashes_the_reader(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "any.jsonl"
    path.write_bytes(content)
    with contextlib.suppress(TranscriptError):
        read_transcript(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=0), st.integers(min_value=0, max_value=255))
def test_any_flipped_byte_is_detected(tmp_path: Path, position: int, value: int) -> None:
    path = tmp_path / "flip.jsonl"
    if not path.exists():
        record_roll(path, ["2d6", "/system Cthulhu", "CC<=50"])
    original = path.read_bytes()
    index = position % len(original)
    if original[index] == value:
        return
    path.write_bytes(original[:index] + bytes([value]) + original[index + 1 :])
    try:
        with pytest.raises(TranscriptError):
            read_transcript(path)
    finally:
        path.write_bytes(original)


@pytest.mark.usefixtures("english_messages")
def test_a_non_canonical_end_line_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record_roll(path)
    data = path.read_bytes()
    assert b'"dice":8.0' in data.split(b"\n")[-2]
    path.write_bytes(data.replace(b'"dice":8.0', b'"dice":8e0'))
    with pytest.raises(TranscriptTampered, match="byte for byte"):
        read_transcript(path)


def test_cli_roll_session_without_recording(
    tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "lines.txt"
    script.write_text("2d6\n", encoding="utf-8")
    assert main(["roll-session", "--seed", "3", "--no-record", "--script", str(script)]) == 0
    assert "transcript:" not in capsys.readouterr().out
    assert not (data_home / "transcripts").exists()
    record = tmp_path / "explicit.jsonl"
    assert main(["roll-session", "--seed", "3", "--record", str(record), "--script", str(script)]) == 0
    assert f"記録: {record}" in capsys.readouterr().out
    assert replay_file(record).ok


def test_a_resumed_session_cut_off_again_resumes_again(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    record_roll(whole, pack=True)
    cut = tmp_path / "cut.jsonl"
    first = SessionIO(backend=NoModelBackend(), human=Interrupting(LINES[:2]), show=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        record_session(roll_spec(), first, cut)
    second = SessionIO(backend=NoModelBackend(), human=Interrupting(LINES[2:5]), show=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        resume_session(cut, second)
    middle = read_transcript(cut, require_end=False)
    assert middle.end is None and len(middle.events) > 0
    third = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(LINES[5:]), show=lambda _: None)
    resume_session(cut, third)
    assert cut.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize("locale", [None, "en"])
def test_cli_replay_speaks_the_players_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, locale: str | None
) -> None:
    if locale is None:
        monkeypatch.delenv("GM_LOCALE", raising=False)
    else:
        monkeypatch.setenv("GM_LOCALE", locale)
    good = tmp_path / "good.jsonl"
    record_roll(good)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(good.read_bytes().replace(b"2d6+1", b"2d6+2", 1))
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"not json\n")
    newer = tmp_path / "newer.jsonl"
    newer.write_bytes(b'{"type":"header","format":99,"kind":"roll","seed_sha256":"x"}\n')
    capsys.readouterr()
    assert main(["replay", str(good), str(bad), str(broken), str(newer), str(tmp_path / "none.jsonl")]) == 1
    out = capsys.readouterr().out
    if locale is None:
        assert f"{good}: 一致（厳密; 出来事29件、モデル呼び出し0回、人の入力9回、" in out
        assert "署名を確認: このインストールの鍵（ed25519:" in out
        assert re.search(r"bad\.jsonl は改ざん: \d+行目: この行のチェックポイントが", out)
        assert "broken.jsonl は不正な記録: 1行目: JSONとして読めません（1文字目）" in out
        assert "newer.jsonl は不正な記録: 1行目: 記録の形式 99 は読めません" in out
        assert "新しい gm_engine で再生してください" in out
        assert "none.jsonl は読めません: そのファイルはありません" in out
        assert "5件中1件の記録が一致、うち信頼する鍵の署名は1件（再生 " in out
        ascii_words = re.findall(r"[A-Za-z]{4,}", re.sub(r"\S*/\S*|ed25519:\S*|gm_engine|JSON", "", out))
        assert ascii_words == [], ascii_words
    else:
        assert f"{good}: OK (strict; 29 events, 0 model calls, 9 human inputs, " in out
        assert re.search(r"bad\.jsonl: TAMPERED: line \d+: the running hash does not match", out)
        assert "broken.jsonl: INVALID: line 1: not valid JSON (at character 1)" in out
        assert "newer.jsonl: INVALID: line 1: transcript format 99: this reader" in out
        assert "none.jsonl: UNREADABLE: " in out
        assert "1 of 5 transcripts match, 1 signed by a trusted key" in out
