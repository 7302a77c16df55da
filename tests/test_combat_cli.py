"""``gm combat demo`` and ``gm combat show``."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.cli import main
from gm_engine.cli.combat import demo_encounter, demo_party
from gm_engine.combat import storage


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_plays_a_whole_fight_round_by_round(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "combat", "demo", "--seed", "4")
    assert code == 0
    labels = (
        "===== BATTLE_SETUP（第1ラウンド）",
        "===== ROLL_LOG（第1ラウンド）",
        "===== BATTLE_JUDGE（第1ラウンド）",
        "===== NARRATIVE（第1ラウンド）",
        "===== BATTLE_SETUP（第2ラウンド）",
        "===== BATTLE_END",
    )
    for label in labels:
        assert label in out
    assert "振ったダイス: " in out.splitlines()[-1] and "状態ハッシュ: " in out.splitlines()[-1]
    assert "【キャラクターマスターデータ】" in out
    assert "【火弾】" in out and "【戦闘終了】" in out
    assert out.count("[SYSTEM: PAUSE FOR USER INPUT]") >= 4
    assert run(capsys, "combat", "demo", "--seed", "4")[1] == out
    assert run(capsys, "combat", "demo", "--seed", "5")[1] != out


def test_demo_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "combat", "demo", "--options", '{"mana_shield": 3}')
    assert code == 2 and "--options が正しくありません: mana_shield: そういう項目はありません" in err
    assert run(capsys, "combat", "demo", "--seed", "2", "--options", '{"life_check_target": 12}')[0] == 0


def test_show_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    storage.save_party(tmp_path / "party.json", demo_party())
    storage.save_encounter(tmp_path / "enc.json", demo_encounter())
    code, out, _ = run(capsys, "combat", "show", str(tmp_path / "party.json"))
    assert code == 0 and out.count("【キャラクターマスターデータ】") == 3
    code, out, _ = run(capsys, "combat", "show", str(tmp_path / "enc.json"))
    assert code == 0 and "オーガ［ボス］" in out
    (tmp_path / "bad.json").write_text('{"format": "gm_engine.combat.party", "version": 1, "data": [{}]}')
    code, _, err = run(capsys, "combat", "show", str(tmp_path / "bad.json"))
    assert code == 2 and "bad.json: 1人目: name: 指定が必要です" in err


def test_simulate_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["combat", "simulate", "--ranks", "熟練,騎士", "--sizes", "1,2", "--kind", "雑魚戦",
            "--fights", "5"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "目標 雑魚戦: 勝率 ≥ 95%、中央値 2、最長 ≤ 8"  # the targets, then the table
    assert lines[1].split()[:4] == ["種別", "ランク", "人数", "勝率"]
    cells = [line for line in lines if line.startswith("雑魚戦")]
    assert len(cells) == 4 and all(line.endswith(" ok") or "✗" in line for line in cells)
    assert f"目標を満たすセル: {sum(line.endswith(' ok') for line in cells)} / 4" in out
    assert "20戦（1マスあたり5戦、シード 0〜4）、CPU " in out
    for bad in (["--ranks", "大魔王"], ["--sizes", "7"], ["--kind", "竜退治"], ["--fights", "0"],
                ["--options", '{"nope": 1}']):
        code, _, err = run(capsys, "combat", "simulate", *bad)
        assert code == 2 and err.startswith("gm combat simulate:")
