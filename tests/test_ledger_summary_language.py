"""The model-call totals a session shows at its end are in the player's language: the
Japanese screen reads Japanese, the English one the ledger's own English summary, word for
word (gm_engine.messages.ledger)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.llm.ledger import Ledger, LedgerEntry
from gm_engine.messages.ledger import ledger_summary

ASCII_WORDS = ("calls", "prompt", "completion", "tokens", "counted", "nobody", "latency", "estimate")


def _entry(day: int, counted_by: str, *, game: str = "adventure", cached: int = 0) -> LedgerEntry:
    return LedgerEntry.model_validate(
        {
            "game": game,
            "actor": "gm",
            "model": None,
            "day": day,
            "phase": "story",
            "turn": 1,
            "prompt_tokens": 120,
            "completion_tokens": 30,
            "estimated": counted_by != "server",
            "latency_s": 0.25,
            "cached_tokens": cached,
            "counted_by": counted_by,
        }
    )


def _ledgers() -> list[Ledger]:
    empty = Ledger(game="adventure")
    one = Ledger(game="adventure")
    one.entries.append(_entry(0, "backend"))
    several = Ledger()
    several.entries.extend(
        [_entry(1, "server", cached=60), _entry(2, "estimate"), _entry(2, "server", game="g2")]
    )
    return [empty, one, several]


@pytest.mark.parametrize("ledger", _ledgers())
def test_the_english_summary_is_the_ledgers_own(ledger: Ledger) -> None:
    assert ledger_summary(ledger, "en") == ledger.summary()


@pytest.mark.parametrize("ledger", _ledgers())
def test_the_japanese_summary_has_no_english_words(ledger: Ledger) -> None:
    text = ledger_summary(ledger, "ja")
    assert not [w for w in ASCII_WORDS if w in text], text
    assert len(text.splitlines()) == len(ledger.summary().splitlines())


def test_the_japanese_lines() -> None:
    empty, one, several = _ledgers()
    assert ledger_summary(empty, "ja") == (
        "モデルの呼び出し（adventure）: 0回、入力0＋出力0トークン、応答時間 0.00 秒（平均 0.000 秒）\n"
        "  トークンを数えたもの: なし（呼び出しはありませんでした）"
    )
    assert ledger_summary(one, "ja").splitlines()[1] == "  トークンを数えたもの: バックエンド自身の見積もり"
    lines = ledger_summary(several, "ja").splitlines()
    assert lines[0] == (
        "モデルの呼び出し: 3回、入力360＋出力90トークン（入力のうち60はサーバーのキャッシュから、17%）"
        "、うち1回は推定、応答時間 0.75 秒（平均 0.250 秒）"
    )
    assert lines[1].startswith("  トークンを数えたもの: サーバー（2回）、文字数からの見積もり（日本語")
    assert lines[2].startswith("  1日目: 1回") and lines[3].startswith("  2日目: 2回")
    assert lines[4].startswith("  ゲーム adventure: 2回") and lines[5].startswith("  ゲーム g2: 1回")


def test_gm_adventure_ends_in_japanese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "lines.txt"
    script.write_text("/quit\n", encoding="utf-8")
    assert main(["adventure", "--seed", "4", "--no-record", "--script", str(script)]) == 0
    shown = capsys.readouterr().out
    assert "モデルの呼び出し（adventure）: " in shown and "  トークンを数えたもの: " in shown
    assert "— プレイヤーが卓を離れました。" in shown
    assert "model calls" not in shown and "the player left" not in shown and "counted by" not in shown
