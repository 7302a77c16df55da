"""The errors every ``gm`` command meets, in the player's language (Japanese by default,
English with ``GM_LOCALE=en``): a path that cannot be read or recorded to, an unknown
scenario or game system, a command line argparse refuses. No Python error text
(``[Errno 2]``, ``invalid int value``) reaches the screen, and a refused option leaves no
transcript behind that ``gm resume`` would fail on."""

from __future__ import annotations

import errno
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gm_engine.cli import main
from gm_engine.cli._errors import argparse_problem, error_text
from gm_engine.llm.base import ConfigurationError, MalformedAnswerError, TransientBackendError

#: What Python (or argparse) says in English: none of it may reach the player.
PYTHON_TEXT = re.compile(
    r"Errno|No such file|Is a directory|Permission denied|Not a directory|invalid int value|"
    r"invalid choice|unrecognized arguments|the following arguments|no scenario|unknown game system"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run ``gm argv`` (argparse's exit caught) and return the status and what was printed."""
    try:
        status = main(list(argv))
    except SystemExit as stop:
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    return status, out + err


@pytest.fixture(params=["ja", "en"])
def locale(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("GM_LOCALE", str(request.param))
    return str(request.param)


NOT_FOUND = {"ja": "そのファイルかフォルダーはありません", "en": "there is no such file or folder"}
IS_FOLDER = {"ja": "ファイルではなくフォルダーです", "en": "a folder, not a file"}


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["resume", "{missing}"], "gm resume"),
        (["combat", "show", "{missing}"], "gm combat show"),
        (["aiwolf", "export", "{missing}"], "gm aiwolf export"),
        (["roll-session", "--script", "{missing}", "--no-record"], "gm roll-session"),
        (["adventure", "--script", "{missing}", "--no-record"], "gm adventure"),
    ],
)
def test_a_missing_file_is_named_in_words(
    argv: list[str], command: str, locale: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nonexistent.jsonl"
    status, shown = run(capsys, *(a.format(missing=missing) for a in argv))
    assert status == 2
    assert shown == f"{command}: {missing}: {NOT_FOUND[locale]}\n"


def test_a_folder_where_a_file_should_be(
    locale: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, shown = run(capsys, "aiwolf", "export", str(tmp_path))
    assert status == 2
    assert shown == f"gm aiwolf export: {tmp_path}: {IS_FOLDER[locale]}\n"
    status, shown = run(capsys, "resume", str(tmp_path))
    assert (status, shown) == (2, f"gm resume: {tmp_path}: {IS_FOLDER[locale]}\n")


CANNOT_RECORD = {
    "ja": "{path} に記録できません（{where}: そのファイルかフォルダーはありません）。"
    "--record で別のファイルを指定してください\n",
    "en": "cannot record to {path} ({where}: there is no such file or folder); "
    "give another file with --record\n",
}


@pytest.mark.parametrize(
    "argv",
    [
        ["werewolf", "play", "--auto", "--seed", "5"],
        ["adventure", "--seed", "5", "--script", "{script}"],
        ["roll-session", "--seed", "5", "--script", "{script}"],
    ],
)
def test_a_recording_that_cannot_be_created_says_so(
    argv: list[str], locale: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # /proc refuses a new folder; the recording cannot be made, nothing was saved
    script = tmp_path / "lines.txt"
    script.write_text("/quit\n", encoding="utf-8")
    target = Path("/proc/gm-words-test/game.jsonl")
    status, shown = run(capsys, *(a.format(script=script) for a in argv), "--record", str(target))
    assert status == 2
    assert shown == CANNOT_RECORD[locale].format(path=target, where=target.parent)
    assert "gm resume" not in shown and not PYTHON_TEXT.search(shown)


def test_an_existing_recording_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("/quit\n"))
    assert run(capsys, "werewolf", "play", "--plain", "--seed", "7", "--record", str(path))[0] == 0
    before = path.read_bytes()
    monkeypatch.setattr("sys.stdin", io.StringIO("/quit\n"))
    status, shown = run(capsys, "werewolf", "play", "--plain", "--seed", "7", "--record", str(path))
    assert status == 2
    assert shown.startswith(f"gm werewolf play: {path} はすでにあります。")
    assert shown.endswith("セッションは始めていません\n")
    assert shown.count("gm resume") == 1  # the file's own hint, not a second one for this run
    assert "記録は保存してあります" not in shown  # this run saved nothing
    assert path.read_bytes() == before


def test_an_unknown_scenario_is_refused_before_anything_is_recorded(
    locale: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "adventure.jsonl"
    status, shown = run(capsys, "adventure", "--scenario", "nope", "--record", str(path))
    assert status == 2
    expected = {
        "ja": "gm adventure: シナリオ「nope」はありません"
        "（あるもの: goblin_shrine, grey_pass, manor_diary）\n",
        "en": "gm adventure: there is no scenario 'nope' (known: goblin_shrine, grey_pass, manor_diary)\n",
    }
    assert shown == expected[locale]
    assert not path.exists()  # no transcript that `gm resume` would then fail on
    status, shown = run(capsys, "adventure", "--system", "Nope", "--record", str(path))
    assert status == 2 and "Nope" in shown and not PYTHON_TEXT.search(shown)
    assert not path.exists()
    status, shown = run(capsys, "adventure", "--max-turns", "0", "--record", str(path))
    too_small = {"ja": "max_turns: 「0」は小さすぎます（1以上）",
                 "en": "max_turns: 0 is too small (at least 1)"}
    assert status == 2 and too_small[locale] in shown and "validation error" not in shown
    assert not path.exists()


@pytest.mark.parametrize(
    ("argv", "ja", "en"),
    [
        (
            ["roll", "--seed", "x", "1D6"],
            "gm roll: 引数 --seed: 「x」は整数ではありません（使い方は `gm roll --help`）",
            "gm roll: --seed: 'x' is not a whole number (usage: `gm roll --help`)",
        ),
        (
            ["roll", "--locale", "xx", "1D6"],
            "gm roll: 引数 --locale: 「xx」は選べません（選べるもの: ja, en）（使い方は `gm roll --help`）",
            "gm roll: --locale: 'xx' is not a choice (choose from ja, en) (usage: `gm roll --help`)",
        ),
        (
            ["roll"],
            "gm roll: 次の引数が必要です: line（使い方は `gm roll --help`）",
            "gm roll: these arguments are required: line (usage: `gm roll --help`)",
        ),
        (
            ["roll", "1D6", "--bogus"],
            "gm: 知らない引数です: --bogus（使い方は `gm --help`）",
            "gm: unknown arguments: --bogus (usage: `gm --help`)",
        ),
        (
            ["werewolf", "play", "--record", "a", "--no-record"],
            "gm werewolf play: 引数 --no-record: --record と一緒には使えません"
            "（使い方は `gm werewolf play --help`）",
            "gm werewolf play: --no-record: not allowed with --record (usage: `gm werewolf play --help`)",
        ),
        (
            ["roll", "--seed"],
            "gm roll: 引数 --seed: 値を一つ続けてください（使い方は `gm roll --help`）",
            "gm roll: --seed: give it one value (usage: `gm roll --help`)",
        ),
    ],
)
def test_argparse_errors_in_the_players_language(
    argv: list[str], ja: str, en: str, locale: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, shown = run(capsys, *argv)
    assert status == 2
    assert shown == (ja if locale == "ja" else en) + "\n"


def test_an_unknown_subcommand_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    status, shown = run(capsys, "rol")
    assert status == 2
    assert shown.startswith("gm: 引数 COMMAND: 「rol」は選べません（選べるもの: aiwolf, adventure,")
    assert not PYTHON_TEXT.search(shown)


def test_an_argparse_message_this_table_does_not_know_is_kept() -> None:
    assert argparse_problem("argument --x: something new", "ja") == "引数 --x: something new"


def test_error_text_of_system_errors() -> None:
    assert error_text(PermissionError(errno.EACCES, "Permission denied", "/x"), "ja") == (
        "/x: このユーザーには読み書きする権限がありません"
    )
    assert error_text(OSError(errno.EIO, "Input/output error", "/x"), "en") == (
        "/x: an error of the operating system (EIO)"
    )
    assert error_text(OSError(errno.ENOSPC, "No space left on device"), "ja") == "ディスクがいっぱいです"


def test_serve_with_a_database_that_cannot_be_made(locale: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, shown = run(capsys, "serve", "--database", "/proc/gm-words-test/tables.db")
    assert status == 2
    assert shown == f"gm serve: /proc/gm-words-test: {NOT_FOUND[locale]}\n"


def test_the_roll_session_summary_counts_add_up(
    locale: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one dice command rolled; three lines refused (not a command, an unknown system, a locale)
    script = tmp_path / "lines.txt"
    script.write_text("2D6\nhello\n/system Nope\n/locale fr\n/quit\n", encoding="utf-8")
    status, shown = run(
        capsys, "roll-session", "--seed", "3", "--no-record", "--locale", locale, "--script", str(script)
    )
    assert status == 0
    last = shown.splitlines()[-1]
    expected = {
        "ja": "振ったダイスコマンド1件、受け付けなかった行3件、振ったダイス2個。最後のシステム: DiceBot",
        "en": "dice commands rolled: 1, lines refused: 3, dice rolled: 2; last system DiceBot",
    }
    assert last.endswith(expected[locale])


# ---------------------------------------------------------------- the model server's errors


def _status_error(status: int, said: str) -> Exception:
    import httpx
    import openai

    # Any: the client's own HTTP types differ across openai versions; it reads only the status
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response: Any = httpx.Response(status, request=request)
    body = {"error": {"message": said}}
    if status >= 500:
        return openai.InternalServerError(said, response=response, body=body)
    return openai.APIStatusError(said, response=response, body=body)


def _caused(exc: Exception, cause: Exception | None) -> Exception:
    exc.__cause__ = cause
    return exc


@pytest.mark.parametrize(
    ("make", "ja", "en"),
    [
        (
            lambda: _caused(
                TransientBackendError("server error (500): fake error", status=500),
                _status_error(500, "fake error"),
            ),
            "モデルのサーバーが何度試してもエラー（HTTP 500）を返しました。サーバーのログを確かめてください"
            "（サーバーの返答: fake error）",
            "the model server answered with an error (HTTP 500) on every try: check its log "
            "(the server said: fake error)",
        ),
        (
            lambda: _caused(
                ConfigurationError("the prompt is longer than …", kind="context_overflow", status=400),
                _status_error(400, "exceeds the available context size"),
            ),
            "モデルのサーバーがこのゲーム向けに設定されていません: "
            "プロンプトがサーバーのコンテキストより長くなりました。",
            "the prompt is longer than the server's context window",
        ),
        (
            lambda: ConfigurationError("the server has no model 'm'", kind="unknown_model", model="m"),
            "サーバーにモデル「m」がありません。",
            "the server has no model 'm': pass --model",
        ),
        (
            lambda: TransientBackendError("rate limited (429): slow down", status=429),
            "（HTTP 429）",
            "(HTTP 429)",
        ),
        (
            lambda: TransientBackendError(
                "no complete answer within the request deadline of 5 s (3 attempts)"
            ),
            "モデルのサーバーから時間内に答えが返りませんでした",
            "no answer from the model server in time",
        ),
        (
            lambda: MalformedAnswerError("the server answered with no choices: <html>"),
            "モデルのサーバーの答えがチャットの応答の形をしていませんでした",
            "the model server's answer was not a chat completion",
        ),
    ],
)
def test_model_server_errors_in_the_players_language(make: Callable[[], Exception], ja: str, en: str) -> None:
    exc = make()
    shown_ja, shown_en = error_text(exc, "ja"), error_text(exc, "en")
    assert ja in shown_ja and en in shown_en
    english = ("server error", "rate limited", "no complete answer", "the prompt is longer", "no choices")
    assert not [w for w in english if w in shown_ja]


def test_a_connection_that_fails_is_said_so() -> None:
    import httpx
    import openai

    request: Any = httpx.Request("POST", "http://127.0.0.1:9/v1")
    cause = openai.APIConnectionError(request=request)
    exc = _caused(TransientBackendError(f"connection failed: {cause}"), cause)
    assert error_text(exc, "ja") == (
        "モデルのサーバーにつながりません。"
        "サーバーが動いているか、OPENAI_BASE_URL が正しいかを確かめてください"
    )


def test_mcp_with_a_transcripts_folder_that_cannot_be_made(
    locale: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, shown = run(capsys, "mcp", "--transcripts", "/proc/gm-words-test/transcripts")
    assert status == 2
    assert shown == f"gm mcp: /proc/gm-words-test: {NOT_FOUND[locale]}\n"


def test_serve_refuses_an_unknown_scenario_in_words() -> None:
    from gm_engine.serve.tables import TableError, TableRuntime, parse_config
    from tests.memory_store import MemoryStore

    store = MemoryStore()
    runtime = TableRuntime(store)
    try:
        with pytest.raises(TableError) as refused:
            runtime.create_table(parse_config({"kind": "adventure", "scenario": "nope"}))
    finally:
        runtime.close()
    known = "goblin_shrine, grey_pass, manor_diary"
    # was 「シナリオがありません: no scenario …」
    assert str(refused.value) == f"シナリオ「nope」はありません（あるもの: {known}）"
    assert store.list_tables() == []


@pytest.mark.parametrize(
    ("argv", "ja", "en"),
    [
        (
            ["werewolf", "play", "--deal", "x"],
            "引数 --deal: 「x」は九つの役職番号ではありません（例: 3,1,1,2,2,2,4,5,6）",
            "--deal: 'x' is not nine role numbers like 3,1,1,2,2,2,4,5,6",
        ),
        (
            ["adventure", "--request-timeout", "0"],
            "引数 --request-timeout: 「0」は秒数（正の数）ではありません",
            "--request-timeout: '0' is not a positive number of seconds",
        ),
        (
            ["adventure", "--max-concurrent", "-1"],
            "引数 --max-concurrent: 「-1」は0以上の整数ではありません（0は上限なし）",
            "--max-concurrent: '-1' is not a whole number of 0 (no limit) or more",
        ),
    ],
)
def test_our_own_argument_checks_in_the_players_language(
    argv: list[str], ja: str, en: str, locale: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, shown = run(capsys, *argv)
    assert status == 2
    assert (ja if locale == "ja" else en) in shown
    assert "must be" not in shown and "needs nine" not in shown


@pytest.mark.parametrize(
    "line",
    ["1D6\x1b]0;pwned\x07", "\x1b[2J\x1b[H【ゲーム終了】", "\r\x1b[1A2D6", "CC<=50\u202e"],
)
def test_a_refused_roll_line_goes_back_to_the_terminal_as_text(
    line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, printed = run(capsys, "roll", line)
    assert status in (1, 2)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", printed), repr(printed)
    assert "␛" in printed or "<U+202E>" in printed or "␍" in printed  # shown, not obeyed


def test_undecodable_bytes_on_the_roll_command_line_are_named(
    locale: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = b"1D6\xff\xfe".decode("utf-8", "surrogateescape")  # what Python makes of such argv bytes
    status, printed = run(capsys, "roll", "--locale", locale, line)
    assert status == 2
    said = {"ja": "読み取れない文字がありました", "en": "could not be read"}[locale]
    assert said in printed and "<U+DCFF><U+DCFE>" in printed
    assert "\\udc" not in printed and not re.search("[\ud800-\udfff]", printed)
