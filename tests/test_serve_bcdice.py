"""``gm serve`` answers BCDice-API's routes beside its tables, on the same address."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from tests.serve_process import start_serve


def test_gm_serve_answers_the_bcdice_api_beside_its_tables(tmp_path: Path) -> None:
    served = start_serve(f"sqlite:{tmp_path / 'tables.sqlite3'}", tmp_path / "serve.log",
                         environment={"GM_DATA_DIR": str(tmp_path / "data")})
    try:
        status, body = served.client.request("GET", "/v2/version")
        assert status == 200
        assert set(json.loads(body)) == {"api", "bcdice"}

        status, body = served.client.request("GET", f"/v2/game_system/DiceBot/roll?command={quote('2D6>=2')}")
        answer = json.loads(body)
        assert status == 200 and answer["ok"] is True
        assert answer["text"].startswith("(2D6>=2) ＞ ") and answer["success"] is True
        assert [(r["kind"], r["sides"]) for r in answer["rands"]] == [("normal", 6), ("normal", 6)]

        status, body = served.client.request("GET", "/v2/game_system/DiceBot/roll?command=hello")
        assert (status, json.loads(body)) == (400, {"ok": False, "reason": "unsupported command"})

        status, body = served.client.request("GET", "/api/tables")  # the lobby still there
        assert status == 200
    finally:
        served.stop()
