"""The lobby's AIWolf option and the table page's agent addresses, in a real browser
(Debian's chromium through Playwright, as tests/test_serve_browser.py): the creator ticks
two agent seats, the table page lists their WebSocket addresses, an AIWolf client connects
at one and the page says so. Skipped where no chromium or Playwright is installed."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("aiwolf_nlp_common")

from aiwolf_nlp_common.client import Client
from aiwolf_nlp_common.packet import Request

from gm_engine.serve.tables import TableRuntime
from tests.test_serve_browser import WAIT_MS, browser, served, shot

__all__ = ["browser", "served"]  # the fixtures, used by name


def test_the_creator_sees_each_agent_seat_s_address_and_its_connection(
    browser: Any, served: tuple[str, TableRuntime]
) -> None:
    url, runtime = served
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(url + "/")
    page.check("input[name=kind][value=werewolf]")
    page.check("input[name=aiwolf_seat][value='3']")
    page.check("input[name=aiwolf_seat][value='8']")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#join-link", state="visible", timeout=WAIT_MS)
    page.click("#join-link")
    page.wait_for_url("**/play/*", timeout=WAIT_MS)
    table_id = str(page.url.rsplit("/", 1)[-1])
    page.wait_for_selector("#aiwolf-seats input", timeout=WAIT_MS)
    addresses = page.eval_on_selector_all("#aiwolf-seats input", "(nodes) => nodes.map((n) => n.value)")
    host = url.removeprefix("http://")
    assert len(addresses) == 2
    for address in addresses:
        assert address.startswith(f"ws://{host}/tables/{table_id}/aiwolf/ws?token=")
    assert "P3 ヒミヤ（未接続" in page.inner_text("#aiwolf-seats")
    agent = Client(addresses[0], None)
    agent.connect()
    try:
        assert agent.receive().request is Request.NAME
        agent.send("browser1")
        page.wait_for_function(
            "() => document.getElementById('aiwolf-seats').textContent.includes('P3 ヒミヤ（接続中）')",
            timeout=WAIT_MS,
        )
        shot(page, "aiwolf-seats")
    finally:
        agent.close()
    assert runtime.aiwolf.tokens(table_id).keys() == {3, 8}
