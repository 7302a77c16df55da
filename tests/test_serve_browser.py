"""A real browser (Debian's chromium, driven by Playwright; no browser download) plays at
``gm serve`` on 127.0.0.1: a whole werewolf game as P1 (a speech, a CO要求, a vote, a night
action) and a short adventure, on a phone-sized screen. Screenshots go to
``test-artifacts/serve/`` (git-ignored). Skipped where no chromium or Playwright is installed;
``.ci/run`` installs both."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gm_engine.llm.base import ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
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
    assert_fits_the_phone(page)
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


def overflow(page: Any) -> dict[str, Any]:
    """How wide the page is against the screen, and the first elements that stick out of it
    sideways (a phone would have to scroll to read them)."""
    found: dict[str, Any] = page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const out = [...document.querySelectorAll("body *")].filter((e) => {
                const r = e.getBoundingClientRect();
                return r.width > 0 && (r.right > width + 1 || r.left < -1);
            }).map((e) => e.tagName + "#" + e.id + "." + e.className);
            return {width: width, scroll: document.documentElement.scrollWidth, out: out.slice(0, 5)};
        }"""
    )
    return found


def assert_fits_the_phone(page: Any) -> None:
    found = overflow(page)
    assert found["width"] == PHONE["width"] and found["scroll"] <= found["width"], found
    assert not found["out"], found


def seats(page: Any) -> list[dict[str, Any]]:
    """The panel's seat cards as the page shows them."""
    cards: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll("#panel .seat")].map((c) => ({
            seat: Number(c.dataset.seat),
            text: c.textContent,
            gone: c.classList.contains("gone"),
            you: c.classList.contains("you"),
            co: c.querySelector(".co") ? c.querySelector(".co").textContent : null,
        }))"""
    )
    return cards


def check_targets(page: Any, question: dict[str, Any], kind: str) -> None:
    """A vote's or a night's buttons: seats still at the table, never P1 itself (nor, at an
    attack, a 人狼), each named as the panel names it."""
    cards = {c["seat"]: c for c in seats(page)}
    assert len(cards) == 9
    targets = [int(b["send"].removeprefix("P")) for b in question["buttons"]]
    assert targets and len(set(targets)) == len(targets), question
    for target, button in zip(targets, question["buttons"], strict=True):
        card = cards[target]
        assert not card["gone"] and not card["you"], (kind, card)
        assert button["label"].split(" ", 1)[1] in card["text"], (button, card)
    lines = page.inner_text("#log").splitlines()
    runoff = any("決選" in line for line in lines[-12:])  # a 決選投票 is among the tied seats only
    if kind == "vote" and not runoff:
        # every other seat still at the table is offered, and nothing else
        assert set(targets) == {n for n, c in cards.items() if not c["gone"] and not c["you"]}
    if kind == "night":
        partners = page.inner_text("#panel .me")
        assert all(cards[t]["text"].split(" ")[1] not in partners.split("仲間の人狼:")[-1] for t in targets)


def test_a_browser_plays_a_whole_werewolf_game_as_p1(
    browser: Any, served: tuple[str, TableRuntime], tmp_path: Path
) -> None:
    url, runtime = served
    page = browser.new_page(viewport=PHONE, accept_downloads=True)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    table_id = open_table(page, url, "werewolf", role="1")
    assert page.evaluate("document.documentElement.lang") == "ja"
    done: list[str] = []
    answered = ""
    co_seen: set[str] = set()
    while (question := next_question(page, answered)) is not None:
        answered = str(question["id"])
        groups = {b["group"] for b in question["buttons"]}
        by_group = {b["group"]: b["send"] for b in reversed(question["buttons"])}  # the first of each
        cards = seats(page)
        assert [c["seat"] for c in cards] == list(range(1, 10))
        for card in cards:  # its label and name; 生存 exactly when it is not marked gone
            assert card["text"].startswith(f"P{card['seat']} ") and ("生存" in card["text"]) != card["gone"]
        co_seen |= {c["co"] for c in cards if c["co"]}
        if not question["free_text"]:
            prompt = question["prompt"]
            kind = "night" if "襲撃" in prompt else "vote" if "投票" in prompt else "pick"
            if kind in ("vote", "night"):
                check_targets(page, question, kind)
            if kind not in done:
                shot(page, f"werewolf-{kind}")
                assert_fits_the_phone(page)
            done.append(kind)
            answer(page, question, question["buttons"][0]["send"])
        elif "confirm" in groups:
            answer(page, question, "いいえ")
        elif "request" in groups and "speech" in done and "request" not in done:
            done.append("request")
            shot(page, "werewolf-request")
            answer(page, question, by_group["request"])
        elif "request" in groups and "speech" not in done:
            done.append("speech")
            # a discussion turn: the speech box and the buttons for a CO, a CO要求 and a pass
            assert question["free_text"] and {"co", "request", "pass"} <= groups, question
            assert any(b["label"].endswith("CO") for b in question["buttons"] if b["group"] == "co")
            # a CO with a result, one button per seat and colour, is folded under one line
            fold = page.locator("#buttons details.fold").first
            assert not page.locator("#buttons details.fold button").first.is_visible()
            fold.locator("summary").click()
            assert page.locator("#buttons details.fold button").first.is_visible()
            assert_fits_the_phone(page)
            shot(page, "werewolf-discussion")
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
    # the public record in the rules' formats
    for mark in ("【投票結果】", "【公開情報】", "【ゲーム終了】", "最終役職一覧"):
        assert mark in log, mark
    assert re.search(r"【.+が退席しました】", log)
    assert co_seen, "no CO was ever shown on a seat"
    gone = [c for c in seats(page) if c["gone"]]
    assert gone and all("退席" in c["text"] for c in gone)
    # the speech is text: no element came of it, no script ran
    assert page.evaluate("document.querySelectorAll('#log script, #log img, #log *:not(p)').length") == 0
    assert page.evaluate("window.__xss === undefined")
    assert_fits_the_phone(page)
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
    # nothing was fetched from anywhere but this server
    assert requested and all(r.startswith(url + "/") for r in requested), sorted(set(requested))


#: The seed of the adventure: the hero takes a blow in the boss fight, so the panel's HP moves.
ADVENTURE_SEED = 0
#: 霧森の祠 to its best ending: the hero, the elder's quest and charm, three fights (in each
#: the player types 「攻撃」 at every pause), the charm on the seal.
ADVENTURE_PLAN = [
    "アリア", "英雄", "おまかせ",
    "長老に小鬼のことを聞く", "長老と話す", "森へ行く", "祠の門へ", "中庭へ", "社殿の奥へ",
    "封じの札を石に貼って使う",
]


def party_row(page: Any) -> dict[str, str]:
    """The panel's row of the hero, by column title."""
    row: dict[str, str] = page.evaluate(
        """() => {
            const heads = [...document.querySelectorAll("#panel .party th")].map((h) => h.textContent);
            const cells = [...document.querySelectorAll("#panel .party tr:nth-child(2) td")];
            return Object.fromEntries(cells.map((c, i) => [heads[i], c.textContent]));
        }"""
    )
    return row


def test_a_browser_plays_a_short_adventure_to_its_end_with_the_party_in_view(
    browser: Any, tmp_path: Path
) -> None:
    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    runtime = TableRuntime(store, seeds=fixed_seeds(ADVENTURE_SEED))
    with running_server(runtime) as url:
        page = browser.new_page(viewport=PHONE, accept_downloads=True)
        table_id = open_table(page, url, "adventure")
        plan = list(ADVENTURE_PLAN)
        answered = ""
        rounds = 0
        hp_seen: list[str] = []
        while (question := next_question(page, answered)) is not None:
            assert question["free_text"]
            answered = str(question["id"])
            panel = page.inner_text("#panel")
            row = party_row(page) if page.locator("#panel .party").count() else {}
            if row:
                # asked again after an action: the panel agrees with the engine's last word on
                # the hero's HP in the log (the panel comes with the question, not before it)
                log = page.inner_text("#log")
                told = [m for m in log.split("\n") if m.startswith("・アリア: HP ")]
                if told:
                    assert row["HP"] == told[-1].split("HP ")[1].split(" ")[0], (row, told[-1])
                hp_seen.append(row["HP"])
            if len(plan) == len(ADVENTURE_PLAN) - 3:  # the hero is made: the adventure starts
                shot(page, "adventure-start")
            if "戦闘中" in panel:
                # the pause in the rules' Japanese words, never the engine's SETUP / ROLL / ...
                pause = r"戦闘中: ラウンド \d+ / 戦闘(セットアップ|ダイスロール|ジャッジ|ナラティブ描写)"
                assert re.search(pause, panel), panel
                rounds += 1
                if rounds == 1:
                    shot(page, "adventure-battle")
                line = "攻撃"
            else:
                assert plan, f"the plan ran out before the end: {page.inner_text('#log')[-500:]}"
                line = plan.pop(0)
            answer(page, question, line, typed=True)
        assert page.evaluate("document.body.dataset.status") == "finished"
        assert not plan, plan
        assert rounds >= 3  # a round of each of the three fights at least
        log = page.inner_text("#log")
        assert "【戦闘終了】PC陣営の勝利" in log
        assert "祠の封じは元に戻り" in log  # the ending's text
        # the status panel: in view at the top of a phone's screen, its values the hero's
        row = party_row(page)
        assert row["名前"] == "アリア（英雄）" and row["APダイス"] == "4d6", row
        assert row["魔法スロット"] == "5/5" and row["状態"] == "正常", row
        assert "30/30" in hp_seen and row["HP"] != "30/30", hp_seen  # the boss's blow showed
        box = page.locator("#panel").bounding_box()
        assert box is not None and box["y"] <= 60
        shot(page, "adventure-end")
        with page.expect_download(timeout=WAIT_MS) as download:
            page.click("#download")
        saved = tmp_path / "adventure.jsonl"
        download.value.save_as(str(saved))
        assert saved.read_bytes() == runtime.transcript(table_id)
        token = page.evaluate("(id) => localStorage.getItem('seat:' + id)", table_id)
        final_lines, final_row = page.locator("#log p").all_inner_texts(), party_row(page)
    # the server started again: the finished table's screen is rebuilt from the store
    with running_server(TableRuntime(store)) as url:
        page.goto(f"{url}/play/{table_id}#t={token}")
        page.wait_for_function("() => document.body.dataset.status === 'finished'", timeout=WAIT_MS)
        lines = page.locator("#log p").all_inner_texts()
        # measured anew by the rebuild (the model-call line, in either language)
        latency = re.compile(r"latency [0-9.]+ s \(mean [0-9.]+ s\)|応答時間 [0-9.]+ 秒（平均 [0-9.]+ 秒）")
        assert [latency.sub("", x) for x in lines] == [latency.sub("", x) for x in final_lines]
        assert any("祠の封じは元に戻り" in line for line in lines)
        assert party_row(page) == final_row
        assert page.is_visible("#download")
        shot(page, "adventure-after-restart")
        page.goto(f"{url}/")
        page.wait_for_selector(f"#finished li[data-table='{table_id}'] a", timeout=WAIT_MS)
        listed = page.inner_text(f"#finished li[data-table='{table_id}']")
        assert "封じ直された祠" in listed and "あなたの席" in listed, listed
        shot(page, "lobby-finished")
    store.close()


def test_an_investigators_sheet_is_in_the_panel_once_made(browser: Any, tmp_path: Path) -> None:
    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    with running_server(TableRuntime(store, seeds=fixed_seeds(3))) as url:
        page = browser.new_page(viewport=PHONE)
        page.goto(url + "/")
        page.check("input[name=kind][value=adventure]")
        page.select_option("select[name=scenario]", "manor_diary")
        page.click("#create button[type=submit]")
        page.wait_for_selector("#join-link", state="visible", timeout=WAIT_MS)
        page.click("#join-link")
        answered = ""
        for line in ("マーロウ", "古書店主", "オカルト、説得"):
            question = next_question(page, answered)
            assert question is not None
            answered = str(question["id"])
            answer(page, question, line, typed=True)
        next_question(page, answered)
        panel = page.inner_text("#panel")
        assert "マーロウ（古書店主）" in panel and "技能:" in panel and "オカルト" in panel, panel
        assert "キャラクターはまだいません" not in panel
        assert_fits_the_phone(page)
        shot(page, "adventure-investigator")
    store.close()


class _Gate(OfflineBackend):
    """The offline model, held at a call once :attr:`allowed` calls went through after
    :attr:`armed` is set, until :attr:`release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = threading.Event()
        self.allowed = 1
        self.holding = threading.Event()
        self.release = threading.Event()

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        if self.armed.is_set() and not self.release.is_set():
            if self.allowed <= 0:
                self.holding.set()
                await asyncio.to_thread(self.release.wait, WAIT_MS / 1000)
            self.allowed -= 1
        return await super().complete(request, context)


def test_the_personas_words_reach_the_page_as_they_are_produced(browser: Any, tmp_path: Path) -> None:
    """After P1's pass the model is held at its second call: what the first call produced is
    on the page already, while the round is still being played."""
    gate = _Gate()
    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    runtime = TableRuntime(store, backend=lambda config, key: gate, seeds=fixed_seeds(WEREWOLF_SEED))
    try:
        with running_server(runtime) as url:
            page = browser.new_page(viewport=PHONE)
            open_table(page, url, "werewolf", role="2")
            answered = ""
            while True:  # to P1's first discussion turn
                question = next_question(page, answered)
                assert question is not None
                answered = str(question["id"])
                if question["free_text"] and any(b["group"] == "pass" for b in question["buttons"]):
                    break
                answer(page, question, question["buttons"][0]["send"])
            before = page.locator("#log p").count()
            speaking = page.locator("#panel .seat.speaking").all_inner_texts()
            assert speaking == [page.inner_text("#panel .seat.you")]  # P1's turn to speak
            gate.armed.set()
            answer(page, question, "/pass")
            assert gate.holding.wait(WAIT_MS / 1000), "the model was never called after the pass"
            page.wait_for_function(  # a persona's speech, among the lines after the pass
                """(n) => [...document.querySelectorAll("#log p")].slice(n)
                    .some((p) => p.textContent.includes("「"))""",
                arg=before,
                timeout=WAIT_MS,
            )
            assert page.evaluate("document.getElementById('question').hidden")  # the round goes on
            assert page.locator("#panel .seat.speaking").count() == 0  # P1 no longer marked as speaking
            assert not gate.release.is_set()
            shot(page, "werewolf-words-as-produced")
            gate.release.set()
            assert next_question(page, answered) is not None  # and the game goes on to P1 again
    finally:
        gate.release.set()
        store.close()


def test_a_browser_plays_an_english_table_opened_from_a_japanese_lobby(browser: Any, tmp_path: Path) -> None:
    """The lobby of a Japanese server opens a table in English: its page turns English (the
    lang attribute, every label, the panel, the buttons, the session's own lines) and a short
    game is played to its end there, with no Japanese on screen but the rules' records and
    terms, the personas' names and words (as on the terminal's English screen)."""
    from tests.test_terminal_english import japanese_prose

    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    with running_server(TableRuntime(store, seeds=fixed_seeds(11))) as url:
        page = browser.new_page(viewport=PHONE)
        page.goto(url + "/")
        assert page.evaluate("document.documentElement.lang") == "ja"
        assert page.input_value("select[name=locale]") == "ja"  # the server's language first
        page.check("input[name=kind][value=werewolf]")
        page.select_option("select[name=role]", "2")
        page.select_option("select[name=locale]", "en")
        page.click("#create button[type=submit]")
        page.wait_for_selector("#join-link", state="visible", timeout=WAIT_MS)
        page.click("#join-link")
        page.wait_for_url("**/play/*", timeout=WAIT_MS)
        page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=WAIT_MS)
        plan = ["Hello all. I am a plain villager.", "/co Seer"]
        answered = ""
        requested = False
        while (question := next_question(page, answered)) is not None:
            answered = str(question["id"])
            groups = {b["group"]: b["send"] for b in reversed(question["buttons"])}
            if not question["free_text"]:
                answer(page, question, question["buttons"][0]["send"])
            elif "confirm" in groups:
                answer(page, question, groups["confirm"])
            elif "answer" in groups:
                answer(page, question, groups["answer"])
            elif "request" in groups and plan:
                if len(plan) == 2:
                    shot(page, "werewolf-english-discussion")
                    assert_fits_the_phone(page)
                answer(page, question, plan.pop(0), typed=True)
            elif "request" in groups and not requested:
                requested = True
                answer(page, question, groups["request"])
            elif "pass" in groups:
                answer(page, question, groups["pass"])
            else:
                answer(page, question, "too quiet", typed=True)
        assert page.evaluate("document.body.dataset.status") == "finished"
        assert not plan and requested
        shot(page, "werewolf-english-end")
        assert_fits_the_phone(page)
        shown = page.inner_text("body")
        assert "Your role: 村人" in shown and "Day " in shown and "left the table" in shown, shown[:500]
        assert "Not possible: A villager (村人) may not claim a role (club rule)." in shown
        assert page.inner_text("#download") == "Download the transcript (gm replay replays it)"
        assert page.get_attribute("#text", "placeholder") == "Write what you say or do"
        assert page.inner_text("#status") == "over" and page.inner_text(".home") == "Lobby"
        assert japanese_prose(shown) == [], japanese_prose(shown)
        # the lobby remembers nothing of the table's language: it is the server's again
        page.goto(url + "/")
        assert page.evaluate("document.documentElement.lang") == "ja"
    store.close()
