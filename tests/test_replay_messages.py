"""``gm replay`` says what differs between the recorded and the replayed run in the player's
language (``GM_LOCALE``): each kind of divergence, forged into a transcript and replayed
through the command (a roll session) or through :func:`replay_transcript` (a tiny
model-driven session), reads as the catalogue's sentence in Japanese and in English, with
no English sentence left on a Japanese screen."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.events import HumanInputEvent
from gm_engine.llm.base import ModelRequest
from gm_engine.messages import render
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionRunner, SessionSpec
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.replay import replay_transcript
from tests.test_transcript_format import LINES, line_of, record_roll, record_toy, rewrite, toy_runner

#: An English sentence: a run of three or more ASCII words (a path, a key or a type name is one word).
ENGLISH_SENTENCE = re.compile(r"\b[a-z]{2,}(?: [a-z]{2,}){2,}\b")


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("GM_DATA_DIR", str(home))
    return home


def _forge_roll(path: Path, forgery: str) -> None:
    """A recorded roll session with one forgery (see :data:`ROLL_FORGERIES`)."""
    record_roll(path)
    if forgery == "die":
        number = line_of(path, "dice", 1)
        recorded = json.loads(path.read_text().splitlines()[number - 1])["dice"]
        changed = [[(recorded[0][0] % recorded[0][1]) + 1, recorded[0][1]], *recorded[1:]]
        rewrite(path, edit={number: {"dice": changed}})
    elif forgery == "goes_on":
        rewrite(path, edit={line_of(path, "human_input", len(LINES)): {"text": "1d6"}})
    elif forgery == "prompt":
        rewrite(path, edit={line_of(path, "human_input", 1): {"prompt": "other> "}})
    elif forgery == "outcome":
        rewrite(path, edit={line_of(path, "end"): {"summary": "forged"}})
    elif forgery == "ended_early":
        rewrite(path, edit={line_of(path, "human_input", 2): {"text": "/quit"}})
    elif forgery == "asks_more":
        rewrite(path, drop=line_of(path, "human_input", len(LINES)))
    elif forgery == "event_type":
        rewrite(path, drop=line_of(path, "dice", 1))
    else:
        raise AssertionError(forgery)


#: Each forgery of a roll transcript and the sentence ``gm replay`` says of it, in Japanese
#: and in English.
ROLL_FORGERIES = [
    ("die", "dice の出来事の中身が記録と違います", "the dice event differs from the recording"),
    (
        "goes_on",
        "記録が終わったあとも再生が続いています: dice の出来事を出しました",
        "the replay goes on after the recording ended: it emits a dice event",
    ),
    (
        "prompt",
        "セッションが記録と違う問いで人の入力を求めています",
        "the session asks the human with another prompt",
    ),
    ("outcome", "セッションの結果（要約と数値）が記録と違います", "the session ends with another outcome"),
    (
        "ended_early",
        "再生したセッションは終わりましたが、記録にはまだ続きがあります（あと21件）",
        "the replayed session ended, but the recording goes on (21 more events)",
    ),
    (
        "asks_more",
        "セッションが人の入力を記録より1回多く求めています（記録は8回）",
        "the session asks the human once more than recorded (8 inputs)",
    ),
    (
        "event_type",
        "再生は dice の出来事を出しましたが、記録では tool_result です",
        "the replay emits dice, the recording has tool_result",
    ),
]


@pytest.mark.parametrize(("forgery", "japanese", "english"), ROLL_FORGERIES)
def test_gm_replay_says_what_differs_in_the_players_language(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    forgery: str,
    japanese: str,
    english: str,
) -> None:
    path = tmp_path / "r.jsonl"
    _forge_roll(path, forgery)
    capsys.readouterr()
    monkeypatch.setenv("GM_LOCALE", "ja")
    assert main(["replay", str(path)]) == 1
    shown_ja = capsys.readouterr().out
    assert japanese in shown_ja, shown_ja
    assert "記録との食い違い" in shown_ja and "不一致" in shown_ja
    assert english not in shown_ja
    # the report's own words are Japanese (a diff's content is the recording's, in any language)
    report_ja = [line for line in shown_ja.splitlines() if not line.startswith(("  -", "  +", "  @@", "   "))]
    assert not [line for line in report_ja if ENGLISH_SENTENCE.search(line.replace(str(path), ""))], report_ja
    monkeypatch.setenv("GM_LOCALE", "en")
    assert main(["replay", str(path)]) == 1
    shown_en = capsys.readouterr().out
    assert english in shown_en, shown_en
    assert "divergence at" in shown_en and "FAILED" in shown_en
    assert japanese not in shown_en


# --------------------------------------------------------------------------- model calls


def test_a_reworded_model_request_is_reported_in_both_languages(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    number = line_of(path, "model_request", 2)
    rewrite(path, edit={number: {"actor": "P9"}})
    transcript = read_transcript(path)
    strict = replay_transcript(transcript, runner=toy_runner("You are a player."))
    assert strict.divergence is not None
    assert (
        "モデル呼び出し（参加者 P3、1日目、局面 'day'、3手目）が、記録の呼び出しと"
        "メッセージかツールで違います"
    ) in strict.describe("ja")
    assert "the model request (actor P3, day 1, phase 'day', turn 3) differs from the recorded one in its " \
        "messages or tools" in strict.describe("en")
    tolerant = replay_transcript(transcript, runner=toy_runner("You are a player."), tolerant=True)
    assert "記録の呼び出しと場面（参加者・日・局面・手番）で違います" in tolerant.describe("ja")
    assert "differs from the recorded one in where it stands" in tolerant.describe("en")


def test_a_recording_cut_before_the_answer_is_reported_in_both_languages(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    rewrite(path, drop=line_of(path, "model_request", 1) + 1)
    report = replay_transcript(read_transcript(path), runner=toy_runner("You are a player."))
    assert "記録はこのモデル呼び出しの応答の前で終わっています" in report.describe("ja")
    assert "the recording stops before the model answered this request" in report.describe("en")


def _crashing_after_an_unrecorded_call() -> SessionRunner:
    """A session that asks the model something the recording never saw (without emitting the
    request), then fails on the empty answer."""

    def run(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
        word = io.human.ask("word 1? ")
        io.sink.emit(HumanInputEvent(prompt="word 1? ", text=word))
        messages = ({"role": "user", "content": word},)
        request = ModelRequest(actor="P7", messages=messages, day=4, phase="night")
        response = asyncio.run(io.backend.complete(request))
        return SessionOutcome(summary=response.tool_calls[0].name, figures={})  # none: IndexError

    return run


def test_a_crash_after_an_unrecorded_call_is_reported_in_both_languages(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    report = replay_transcript(read_transcript(path), runner=_crashing_after_an_unrecorded_call())
    assert not report.ok and report.divergence is not None
    ja, en = report.describe("ja"), report.describe("en")
    assert (
        "モデル呼び出し（参加者 P7、4日目、局面 'night'、0手目）が、"
        "まだ使っていない記録済みの呼び出しのどれとも違います。"
        "そのあとセッションがエラーで止まりました（IndexError: tuple index out of range）"
    ) in ja, ja
    assert (
        "model request (actor P7, day 4, phase 'night', turn 0) differs from every unused recorded one; "
        "then the session raised IndexError: tuple index out of range"
    ) in en, en


def _asking_once_more_in_passing() -> SessionRunner:
    """The toy session, plus one model call before its first turn whose events it never
    emits and whose answer it drops (as a concurrent round cut short would)."""
    toy = toy_runner("You are a player.")

    def run(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
        aside = ModelRequest(actor="P8", messages=({"role": "user", "content": "aside"},), day=1, phase="day")
        asyncio.run(io.backend.complete(aside))
        return toy(spec, io)

    return run


def test_an_unrecorded_call_is_noted_in_both_languages(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    record_toy(path)
    report = replay_transcript(read_transcript(path), runner=_asking_once_more_in_passing())
    assert report.ok, report.describe("en")
    ja, en = report.describe("ja"), report.describe("en")
    assert "再生中のモデル呼び出しのうち1回は記録になく" in ja
    assert "最初のもの: モデル呼び出し（参加者 P8、1日目、局面 'day'、0手目）が、まだ使っていない" in ja
    assert "differs from every unused" not in ja
    assert "1 model call(s) of the replay are not in the recording" in en
    assert "the first: model request (actor P8, day 1, phase 'day', turn 0) differs from every unused" in en


def test_a_long_diff_is_cut_short_in_the_players_language(monkeypatch: pytest.MonkeyPatch) -> None:
    from gm_engine.transcripts.replay import MAX_DIFF_LINES, unified_diff

    recorded = {f"k{i}": i for i in range(MAX_DIFF_LINES)}
    replayed = {f"k{i}": i + 1 for i in range(MAX_DIFF_LINES)}
    monkeypatch.setenv("GM_LOCALE", "ja")
    assert re.search(r"…（差分はあと\d+行）\n$", unified_diff(recorded, replayed))
    monkeypatch.setenv("GM_LOCALE", "en")
    assert re.search(r"\.\.\. \(\d+ more diff lines\)\n$", unified_diff(recorded, replayed))


def test_every_divergence_message_has_a_japanese_sentence() -> None:
    """The divergence texts of the Japanese catalogue hold no English sentence (the event
    types and quoted values they carry are placeholders)."""
    from gm_engine.messages import catalogue

    texts = {k: v for k, v in catalogue("ja").items() if k.startswith("replay.differs.")}
    assert len(texts) >= 15
    for key, text in texts.items():
        bare = re.sub(r"\{[a-z_]+\}", "", text)
        assert not ENGLISH_SENTENCE.search(bare), key
        assert render_ok(key)


def render_ok(key: str) -> bool:
    """The message class of ``key`` renders in both locales with sample parameters."""

    from gm_engine.messages import MESSAGES
    from gm_engine.messages.texts import OtherOutcome
    from tests.test_catalogue_scan import field_types

    cls = MESSAGES[key]
    values: dict[str, object] = {}
    for name, kind in field_types(cls).items():
        values[name] = 3 if kind == "int" else OtherOutcome() if "Message" in kind else "x"
    message = cls(**values)
    return bool(render(message, "ja")) and bool(render(message, "en"))
