"""``gm serve``'s event loop and HTTP parser: uvicorn's fast ones (uvloop, httptools) when they
are installed, as the project's dependencies install them, and the standard ones when they
are not, the server working all the same. Each case is a real ``gm serve`` process on
127.0.0.1 playing the first answers of a werewolf table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.serve_process import ServeProcess, start_serve

CONFIG: dict[str, Any] = {"kind": "werewolf", "title": "ループ", "role": 3}
WAIT = 180.0  # seconds an answer may take on a loaded machine before the test gives up


def _mapped(process: ServeProcess) -> str:
    """The files the server process has mapped (its loaded extension modules among them)."""
    return Path(f"/proc/{process.process.pid}/maps").read_text(errors="replace")


def _plays_two_answers(server: ServeProcess) -> None:
    seat = server.client.create_table(CONFIG)
    view = seat.play(server.client, answers=2, timeout=WAIT)
    assert view["status"] == "running", view["message"]
    assert seat.answers == 2 and view["question"] is not None


def test_gm_serve_runs_on_uvloop_and_httptools(tmp_path: Path) -> None:
    server = start_serve(str(tmp_path / "tables.sqlite3"), tmp_path / "serve.log")
    try:
        _plays_two_answers(server)
        mapped = _mapped(server)
    finally:
        server.stop()
    assert "/uvloop/" in mapped, "gm serve did not load uvloop"
    assert "/httptools/" in mapped, "gm serve did not load httptools"


def test_gm_serve_without_uvloop_and_httptools_uses_the_standard_ones(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for name in ("uvloop", "httptools"):  # found first on the path, and failing as a missing one does
        (hidden / f"{name}.py").write_text(f"raise ImportError('{name} is hidden by the test')\n")
    server = start_serve(
        str(tmp_path / "tables.sqlite3"), tmp_path / "serve.log", environment={"PYTHONPATH": str(hidden)}
    )
    try:
        _plays_two_answers(server)
        mapped = _mapped(server)
    finally:
        server.stop()
    assert "/uvloop/" not in mapped and "/httptools/" not in mapped
