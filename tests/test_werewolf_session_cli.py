"""``gm werewolf play``: the command's arguments, --auto to the end, --record and its replay."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from gm_engine.cli._werewolf_play import add_play_command, parse_deal, style_of
from gm_engine.transcripts.replay import replay_file


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gm werewolf")
    add_play_command(parser.add_subparsers())
    args = parser.parse_args(argv)
    status: int = args.handler(args)
    return status


def test_auto_game_prints_what_p1_sees_and_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.jsonl"
    status = run(["play", "--auto", "--seed", "5", "--role", "4", "--plain", "--record", str(record)])
    out = capsys.readouterr().out
    assert status == 0
    assert "あなたの役職は 狩人 です" in out
    assert "【ゲーム終了】" in out and "（シード 5）" in out
    # before the end, nobody else's role is printed
    before_end = out.split("【ゲーム終了】")[0]
    assert "最終役職一覧" not in before_end
    for mode in (False, True):
        report = replay_file(record, tolerant=mode)
        assert report.ok, report.divergence
        assert report.model_calls > 20


def test_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for _ in range(2):
        assert run(["play", "--auto", "--seed", "9", "--plain", "--no-narrator"]) == 0
        lines = capsys.readouterr().out.splitlines()
        # the transcript's default file name carries the time of day: the one line that differs
        assert lines[-1].startswith("記録: ")
        outputs.append(lines[:-1])
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("record", [True, False])
def test_a_failing_model_server_stops_the_game_with_a_way_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, record: bool
) -> None:
    """The server refuses every call: no offline agent plays in its place; the command says
    why on stderr, names the transcript to resume (or says nothing was recorded), exits 2."""
    from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
    from gm_engine.transcripts.format import read_transcript

    target = tmp_path / "game.jsonl"
    where = ["--record", str(target)] if record else ["--no-record"]
    with FakeChatServer(responder=lambda body: FakeReply.error(401, "bad key")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        argv = ["play", "--auto", "--seed", "1", "--plain", "--backend", "openai", "--model", "m"]
        status = run([*argv, *where])
    captured = capsys.readouterr()
    assert status == 2
    assert "【ゲーム終了】" not in captured.out and "の勝利" not in captured.out
    # a refused key is a configuration error: said with its fix, never retried
    assert captured.err.startswith(
        "gm werewolf play: モデルのサーバーがこのゲーム向けに設定されていません: "
        "サーバーが API キーを受け付けませんでした。OPENAI_API_KEY に受け付けられるキーを設定してください"
    )
    assert "（サーバーの返答: bad key）" in captured.err  # the server's own words, quoted
    assert "the server refused" not in captured.err
    if record:
        assert f"記録は保存してあります。続きは `gm resume {target}` で再開できます" in captured.err
        transcript = read_transcript(target, require_end=False)
        assert transcript.end is None and transcript.events
        assert not [e for e in transcript.events if e.type == "fallback"]
    else:
        assert "記録していない（--no-record）" in captured.err
        assert not target.exists()


def test_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["play", "--auto", "--seed", "1", "--plain", "--deal", "1,1,1,2,2,3,4,5,6"]) == 2
    assert "配布確認" in capsys.readouterr().err
    disagreeing = ["--role", "2", "--deal", "3,1,1,2,2,2,4,5,6"]
    assert run(["play", "--auto", "--seed", "1", "--plain", *disagreeing]) == 2
    assert "食い違っています" in capsys.readouterr().err
    with pytest.raises(argparse.ArgumentTypeError, match="九つの役職番号ではありません"):
        parse_deal("1,2,3")
    with pytest.raises(SystemExit):
        run(["play", "--role", "7"])


def test_screen_styles() -> None:
    assert style_of("【ゲーム終了】") == "bold magenta"
    assert style_of("【CMD_投票】") == "dim"
    assert style_of("【投票結果】") == "bold"
    assert style_of("GM: やあ") == "italic green"
    assert style_of("トウダ(P2): こんにちは") is None
