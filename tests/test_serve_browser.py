"""A real browser (Debian's chromium, driven by Playwright; no browser download) plays at
``gm serve`` on 127.0.0.1: a whole werewolf game as P1 (a speech, a CO要求, a vote, a night
action) and a short adventure, on a phone-sized screen. Screenshots go to
``test-artifacts/serve/`` (git-ignored). Skipped where no chromium or Playwright is installed;
``.ci/run`` installs both."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gm_engine.serve.store_sqlite import SQLiteTableStore
from gm_engine.serve.tables import TableRuntime
from tests.serve_server import running_server
from tests.test_serve_tables import fixed_seeds

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Set by .ci/run where it installed chromium: a missing browser then fails the tests.
REQUIRED = os.environ.get("GM_TEST_BROWSER", "") == "1"
if not REQUIRED:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
else:
    import playwright.sync_api as sync_api

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "serve"
PHONE = {"width": 390, "height": 844}
WAIT_MS = 60_000

#: A speech that would run script if it were put in as markup.
XSS = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">こんにちは'

#: The seed of the werewolf game: with P1 a 人狼 and the choices below, a game of about
#: twenty answers that has a discussion turn with a CO要求 to make, a vote and a night.
WEREWOLF_SEED = 2


@pytest.fixture
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        if REQUIRED:
            pytest.fail("GM_TEST_BROWSER=1 but no chromium is on the PATH", pytrace=False)
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    args = ["--no-sandbox"] if os.geteuid() == 0 else []  # chromium refuses root without it
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, TableRuntime]]:
    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    runtime = TableRuntime(store, seeds=fixed_seeds(WEREWOLF_SEED))
    try:
        with running_server(runtime) as url:
            yield url, runtime
    finally:
        store.close()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def open_table(page: Any, url: str, kind: str, role: str | None = None) -> str:
    """Open a table from the lobby's form and follow its join link; the table's id."""
    page.goto(url + "/")
    page.check(f"input[name=kind][value={kind}]")
    if role is not None:
        page.select_option("select[name=role]", role)
    shot(page, f"{kind}-lobby")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#join-link", state="visible", timeout=WAIT_MS)
    page.click("#join-link")
    page.wait_for_url("**/play/*", timeout=WAIT_MS)
    assert "#t=" not in page.url  # the token left the address bar
    return str(page.url.rsplit("/", 1)[-1])


def next_question(page: Any, answered: str) -> dict[str, Any] | None:
    """The question on screen once it is another than ``answered``; None when the table ended."""
    page.wait_for_function(
        """(answered) => {
            const box = document.getElementById("question");
            const ended = ["finished", "failed", "stopped", "error"].includes(document.body.dataset.status);
            return ended || (!box.hidden && box.dataset.id !== answered);
        }""",
        arg=answered,
        timeout=WAIT_MS,
    )
    state: dict[str, Any] = page.evaluate(
        """() => {
            const box = document.getElementById("question");
            return {
                ended: ["finished", "failed", "stopped", "error"].includes(document.body.dataset.status),
                status: document.body.dataset.status,
                id: box.dataset.id,
                prompt: document.getElementById("prompt").textContent,
                free_text: !document.getElementById("say").hidden,
                buttons: [...document.querySelectorAll("#buttons button")].map(
                    (b) => ({label: b.textContent, send: b.dataset.send, group: b.dataset.group})),
            };
        }"""
    )
    return None if state["ended"] else state


def answer(page: Any, question: dict[str, Any], send: str, *, typed: bool = False) -> None:
    """Click the button that sends ``send`` (or type it in the speech box) and wait for the
    server's answer."""
    with page.expect_response(lambda r: r.url.endswith("/answer"), timeout=WAIT_MS) as response:
        if typed:
            page.fill("#text", send)
            page.click("#say button[type=submit]")
        else:
            page.click(f"#buttons button[data-send={json.dumps(send, ensure_ascii=False)}]")
    assert response.value.status == 200, response.value.text()


def test_a_browser_plays_a_whole_werewolf_game_as_p1(
    browser: Any, served: tuple[str, TableRuntime], tmp_path: Path
) -> None:
    url, runtime = served
    page = browser.new_page(viewport=PHONE, accept_downloads=True)
    table_id = open_table(page, url, "werewolf", role="1")
    done: list[str] = []
    answered = ""
    while (question := next_question(page, answered)) is not None:
        answered = str(question["id"])
        groups = {b["group"] for b in question["buttons"]}
        by_group = {b["group"]: b["send"] for b in reversed(question["buttons"])}  # the first of each
        if not question["free_text"]:
            prompt = question["prompt"]
            kind = "night" if "襲撃" in prompt else "vote" if "投票" in prompt else "pick"
            if kind not in done:
                shot(page, f"werewolf-{kind}")
            done.append(kind)
            answer(page, question, question["buttons"][0]["send"])
        elif "confirm" in groups:
            answer(page, question, "いいえ")
        elif "request" in groups and "speech" in done and "request" not in done:
            done.append("request")
            answer(page, question, by_group["request"])
        elif "request" in groups and "speech" not in done:
            done.append("speech")
            answer(page, question, XSS, typed=True)
            page.wait_for_function(
                "(t) => [...document.querySelectorAll('#log p')].some((p) => p.textContent.includes(t))",
                arg="<script>window.__xss = 1</script>",
                timeout=WAIT_MS,
            )
            shot(page, "werewolf-speech")
        else:
            group = next((g for g in ("pass", "answer", "co") if g in groups), None)
            answer(page, question, by_group[group] if group else "次へ", typed=group is None)
    assert page.evaluate("document.body.dataset.status") == "finished"
    assert {"speech", "request", "vote", "night"} <= set(done), done
    log = page.inner_text("#log")
    assert "【ゲーム終了】" in log and "最終役職一覧" in log
    # the speech is text: no element came of it, no script ran
    assert page.evaluate("document.querySelectorAll('#log script, #log img, #log *:not(p)').length") == 0
    assert page.evaluate("window.__xss === undefined")
    shot(page, "werewolf-end")
    # the transcript, downloaded as a player would, replays with gm replay
    with page.expect_download(timeout=WAIT_MS) as download:
        page.click("#download")
    saved = tmp_path / "downloaded.jsonl"
    download.value.save_as(str(saved))
    assert saved.read_bytes() == runtime.transcript(table_id)
    gm = Path(sys.executable).with_name("gm")
    replay = subprocess.run([str(gm), "replay", str(saved)], capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_a_browser_plays_a_short_adventure_with_the_party_in_view(
    browser: Any, served: tuple[str, TableRuntime]
) -> None:
    url, _ = served
    page = browser.new_page(viewport=PHONE)
    open_table(page, url, "adventure")
    answered = ""
    for line in ("アリア", "英雄", "おまかせ", "長老に小鬼のことを聞く"):
        question = next_question(page, answered)
        assert question is not None and question["free_text"]
        answered = str(question["id"])
        answer(page, question, line, typed=True)
    next_question(page, answered)
    panel = page.inner_text("#panel")
    assert "アリア" in panel and "30/30" in panel and "4d6" in panel, panel
    # the panel stays in view at the top of a phone's screen after the log has scrolled
    box = page.locator("#panel").bounding_box()
    assert box is not None and box["y"] <= 60
    shot(page, "adventure-status")
