"""``gm serve`` in English (``gm serve --locale en``, GM_LOCALE=en, or a table opened in English):
over HTTP on 127.0.0.1, every page, the pages' words and every view the event stream pushes at
an English werewolf table and an English adventure hold no Japanese but what the terminal's
English screen keeps too (tests/test_terminal_english.py and
tests/test_adventure_english_screen.py say what and why): the rules' records and terms, the
personas' names and words, the scenario's own words, what the player typed. The table's
refusals are English, its transcript replays, and a restarted server resumes it in English;
a Japanese table at the same server stays Japanese.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response

from gm_engine.messages import render
from gm_engine.messages.texts import CombatWord, CombatWordKind
from gm_engine.serve.finished import FinishedTables
from gm_engine.serve.forward import Forwarder
from gm_engine.serve.page_text import page_strings, render_page
from gm_engine.serve.tables import TableRuntime
from gm_engine.transcripts.replay import replay_file
from tests.memory_store import MemoryStore
from tests.serve_process import start_serve
from tests.serve_server import running_server
from tests.test_adventure_english_screen import RULE_TERMS, SHRINE, japanese_left, scenario_strings
from tests.test_serve_tables import fixed_seeds
from tests.test_terminal_english import JAPANESE, TERMS, japanese_prose

WAIT = 120.0
STATIC = Path(__file__).resolve().parent.parent / "gm_engine" / "serve" / "static"

#: Words an English page keeps in Japanese beside the game's terms: the language's own name
#: in the language menu and AIWolf's Japanese name.
PAGE_TERMS = ("日本語", "人狼知能")


def strings_of(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)


def page_text(html: str) -> str:
    """What a page shows, roughly: its markup, comments and JSON data block taken out."""
    html = re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", html, flags=re.S)
    html = re.sub(r"<!--.*?-->", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", "\n", html)


def without_terms(text: str, extra: tuple[str, ...] = ()) -> str:
    for term in sorted({*TERMS, *PAGE_TERMS, *extra}, key=len, reverse=True):
        text = text.replace(term, "")
    return text


@pytest.fixture
def english_server() -> Iterator[tuple[str, TableRuntime, MemoryStore]]:
    store = MemoryStore()
    runtime = TableRuntime(store, seeds=fixed_seeds(11), locale="en")
    with running_server(runtime) as url:
        yield url, runtime, store


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", "accept-language": "en"}


def open_table(client: httpx.Client, config: dict[str, Any]) -> tuple[str, str]:
    answer = client.post("/api/tables", json={"config": config})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["table_id"]), str(answer.json()["token"])


def frames(client: httpx.Client, table_id: str, token: str, after: int) -> Iterator[dict[str, Any]]:
    """The views the event stream pushes, from line ``after`` on, until the stream ends."""
    with client.stream(
        "GET", f"/api/tables/{table_id}/events?after={after}", headers=bearer(token)
    ) as stream:
        assert stream.status_code == 200
        for line in stream.iter_lines():
            if line.startswith("data: "):
                yield json.loads(line[len("data: ") :])


def play(
    url: str, table_id: str, token: str, answer: Any, *, limit: int = 400
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every view pushed while ``answer(view) -> str`` answers each new question, to the end;
    the views and the screen's lines (a stream that ends before the table does is opened
    again where it stopped)."""
    views: list[dict[str, Any]] = []
    lines: list[str] = []
    answered: set[int] = set()
    with (
        httpx.Client(base_url=url, timeout=WAIT) as reader,
        httpx.Client(base_url=url, timeout=WAIT) as writer,
    ):
        while True:
            ended = False
            for view in frames(reader, table_id, token, len(lines)):
                views.append(view)
                assert view["from"] == len(lines), "the stream skipped lines"
                lines.extend(view["lines"])
                if view["status"] not in ("starting", "running"):
                    ended = True
                    break
                question = view["question"]
                if question is not None and question["id"] not in answered:
                    answered.add(question["id"])
                    assert len(answered) <= limit, f"more than {limit} questions: {question['prompt']}"
                    sent = writer.post(
                        f"/api/tables/{table_id}/answer", json={"text": answer(view)}, headers=bearer(token)
                    )
                    assert sent.status_code == 200, sent.text
            if ended:
                return views, lines


class EnglishVillager:
    """P1 at an English werewolf table, typing English: a speech, a claim the club rules
    refuse (a 村人 may not claim), a CO要求 by its button, then passes; no at a confirmation,
    the first seat offered at a vote or at night, a reason for a vote."""

    def __init__(self) -> None:
        self.plan = ["I am a plain villager. Who is lying here?", "/co Seer", "request"]
        self.typed: list[str] = []

    def __call__(self, view: dict[str, Any]) -> str:
        question = view["question"]
        buttons = question["buttons"]
        groups = {b["group"]: b["send"] for b in reversed(buttons)}
        if not question["free_text"]:
            return str(buttons[0]["send"])
        if "confirm" in groups:
            return "no"
        if "answer" in groups:  # a CO要求 to P1, a 村人: it declines
            return str(groups["answer"])
        if "request" in groups and self.plan:
            step = self.plan.pop(0)
            if step == "request":
                return str(groups["request"])
            self.typed.append(step)
            return step
        if "pass" in groups:
            return str(groups["pass"])
        self.typed.append("too quiet")
        return "too quiet"


def view_texts(view: dict[str, Any]) -> list[str]:
    """Every text of a view the page shows besides its screen lines: the title, the end
    message, the panel's values, the question's prompt and buttons."""
    texts = [view["title"], view["message"], *strings_of(view["panel"])]
    question = view["question"]
    if question is not None:
        texts.append(question["prompt"])
        texts.extend(b["label"] for b in question["buttons"])
        texts.extend(
            b["fold"]["head"] + " " + b["fold"]["choice"] for b in question["buttons"] if "fold" in b
        )
    return [line for text in texts for line in str(text).splitlines()]


def test_the_pages_and_their_words_are_english_at_an_english_server(
    english_server: tuple[str, TableRuntime, MemoryStore],
) -> None:
    url, _, _ = english_server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        for path in ("/", "/play/anything"):
            page = client.get(path)
            assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
            assert '<html lang="en">' in page.text, path
            left = [
                line for line in page_text(page.text).splitlines() if JAPANESE.search(without_terms(line))
            ]
            assert left == [], (path, left)
            assert "{{" not in page.text, path  # every word filled in
            # the scripts' words, in the page: the English catalogue's
            block = re.search(
                r'<script type="application/json" id="page-strings">(.*?)</script>', page.text, re.S
            )
            assert block is not None and json.loads(block.group(1)) == page_strings("en")
        words = client.get("/api/strings/en").json()
        assert words["lang"] == "en" and words["send"] == "Send"
        assert [w for w in strings_of(words) if JAPANESE.search(without_terms(w))] == []
        assert client.get("/api/strings/ja").json()["send"] == "送信"
        unknown = client.get("/api/strings/fr", headers={"accept-language": "en"})
        assert unknown.status_code == 404
        assert unknown.json()["error"] == 'the pages have no words in "fr" (they have ja, en)'
        # a Japanese lobby is one link away, and says so
        assert '<a class="sub" href="?lang=ja" lang="ja" hreflang="ja">日本語</a>' in client.get("/").text
        assert '<html lang="ja">' in client.get("/?lang=ja").text


def test_the_scripts_hold_no_words_of_their_own() -> None:
    """Every word a script shows is the catalogue's: no Japanese in the scripts' code but the
    rules' record mark of the end (【ゲーム終了】, the same in every language)."""
    for script in sorted(STATIC.glob("*.js")):
        code = "\n".join(line.split("//", 1)[0] for line in script.read_text("utf-8").splitlines())
        code = code.replace('"【ゲーム終了】"', "")
        assert not JAPANESE.search(code), (script.name, [x for x in code.splitlines() if JAPANESE.search(x)])
    # and the pages hold none of their own either: every word is a {{word}} of the catalogue
    for name in ("lobby", "table"):
        html = (STATIC / f"{name}.html").read_text("utf-8")
        assert not JAPANESE.search(without_terms(page_text(html))), name


def test_the_japanese_pages_say_what_they_said() -> None:
    """The Japanese pages are the catalogue's Japanese words, placed where they were."""
    lobby = render_page("lobby", "ja")
    lobby_said = (
        "<title>gm serve — ロビー</title>",
        "<h2>開いている卓</h2>",
        "卓の名前 <input",
        'placeholder="人狼"',
        'value="プレイヤー"',
        '<option value="none">しない（村人と同じ）</option>',
        "運営者が <code>gm serve --model-server URL</code> で許可した",
        '<button type="submit" class="primary">卓を開く</button>',
    )
    for said in lobby_said:
        assert said in lobby, said
    table = render_page("table", "ja")
    table_said = (
        '<html lang="ja">',
        "<title>gm serve — 卓</title>",
        'placeholder="発言や行動を書いてください"',
        ">記録をダウンロード（gm replay で再生できます）</button>",
        'aria-label="状況"',
    )
    for said in table_said:
        assert said in table, said


def test_an_english_werewolf_table_pushes_no_japanese_but_the_records_and_terms(
    english_server: tuple[str, TableRuntime, MemoryStore], tmp_path: Path
) -> None:
    url, _, store = english_server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "werewolf", "role": 2})  # the server's language
    config = json.loads(store.get_table(table_id).config_json)  # type: ignore[union-attr]
    assert config["locale"] == "en" and config["title"] == "Werewolf" and config["human_name"] == "Player"
    player = EnglishVillager()
    views, lines = play(url, table_id, token, player)
    assert views[-1]["status"] == "finished", views[-1]["message"]
    assert all(view["locale"] == "en" for view in views)
    assert not player.plan, "the game ended before P1 spoke, claimed and asked for a CO"
    screen = "\n".join(lines)
    # the session spoke English: the refused claim, the records in the rules' formats
    assert "Not possible: A villager (村人) may not claim a role (club rule)." in screen
    assert "【投票結果】" in screen and "【ゲーム終了】" in screen and "Player → " in screen
    assert "プレイヤー" not in screen
    assert japanese_prose(screen) == []
    shown = [text for view in views for text in view_texts(view)]
    assert japanese_prose("\n".join(shown)) == [], sorted(set(japanese_prose("\n".join(shown))))
    asked = [view["question"] for view in views if view["question"] is not None]
    labels = {b["label"] for q in asked for b in q["buttons"]}
    assert {"Pass", "Vote without a reason"} <= labels, labels
    assert any(label.startswith("CO要求: ask for the ") for label in labels), labels
    assert re.fullmatch(r"(村人陣営|人狼陣営) wins \(day \d+\)", views[-1]["message"]), views[-1]["message"]
    # the transcript replays, with the English texts it recorded
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        data = client.get(f"/api/tables/{table_id}/transcript", headers=bearer(token)).content
    path = tmp_path / "en.jsonl"
    path.write_bytes(data)
    report = replay_file(path)
    assert report.ok, report.describe()
    # any other process rebuilds the final screen from the store: in English too
    row = store.get_table(table_id)
    assert row is not None
    rebuilt = FinishedTables(store).screen(row).view()
    assert rebuilt["locale"] == "en" and rebuilt["message"] == views[-1]["message"]
    assert japanese_prose("\n".join([*rebuilt["lines"], *view_texts(rebuilt)])) == []


def test_an_english_tables_refusals_are_english(
    english_server: tuple[str, TableRuntime, MemoryStore],
) -> None:
    url, _, _ = english_server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "werewolf", "role": 2})
        # a wrong token: the page's language (it names it), no table is confirmed
        stranger = {"authorization": "Bearer nope", "accept-language": "en"}
        wrong = client.get(f"/api/tables/{table_id}/view", headers=stranger)
        assert wrong.status_code == 403 and wrong.json()["error"].startswith("forbidden: ")
        # a refused answer: the table's language, whatever the browser prefers
        refused = client.post(
            f"/api/tables/{table_id}/answer",
            json={"text": "/quit"},
            headers={**bearer(token), "accept-language": "ja"},
        )
        assert refused.status_code == 409
        assert refused.json()["error"] == (
            "A web table has no quit command: close the page, and come back later to go on."
        )
        # the lobby's form refused in the lobby's language (the page names it)
        bad = client.post(
            "/api/tables",
            json={"config": {"kind": "werewolf", "locale": "fr"}},
            headers={"accept-language": "en"},
        )
        assert bad.status_code == 400 and "locale" in bad.json()["error"], bad.text
        assert not JAPANESE.search(bad.json()["error"]), bad.text
        seats = client.post(
            "/api/tables",
            json={"config": {"kind": "werewolf", "aiwolf": {"seats": [1]}}},
            headers={"accept-language": "en"},
        )
        assert seats.status_code == 400 and seats.json()["error"] == (
            "The table's settings are not valid: aiwolf.seats: choose the AIWolf agent seats among P2 to P9, "
            "each at most once (given: [1])"
        )


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "The server running this table cannot be reached"),
        ("ja", "この卓を進めているサーバーに届きません"),
    ],
)
def test_a_holder_out_of_reach_is_said_in_the_pages_language(language: str, expected: str) -> None:
    with socket.socket() as closed:  # a port of 127.0.0.1 that nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    scope = {"type": "http", "method": "GET", "path": "/api/tables/x/view", "query_string": b"",
             "headers": [(b"accept-language", language.encode())]}  # fmt: skip
    forwarder = Forwarder()

    async def ask() -> Response:
        try:
            return await forwarder.forward(Request(scope), f"http://127.0.0.1:{port}")
        finally:
            await forwarder.aclose()

    answer = asyncio.run(ask())
    assert answer.status_code == 503 and json.loads(bytes(answer.body))["error"].startswith(expected)


def test_an_english_adventure_pushes_no_japanese_but_the_scenarios_words(
    english_server: tuple[str, TableRuntime, MemoryStore],
) -> None:
    url, _, _ = english_server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "adventure", "scenario": "goblin_shrine"})
    plan = list(SHRINE)

    def answer(view: dict[str, Any]) -> str:
        panel = view["panel"] or {}
        if panel.get("battle"):
            assert panel["battle"].startswith("round ") and " / battle " in panel["battle"], panel
            return "attack"
        return plan.pop(0) if plan else "look around"

    views, lines = play(url, table_id, token, answer)
    assert views[-1]["status"] == "finished", (views[-1]["message"], lines[-20:])
    assert not plan, plan
    allowed = (*scenario_strings("goblin_shrine"), *RULE_TERMS, *SHRINE, "attack")
    screen = "\n".join(lines)
    assert "[BATTLE_SETUP]" in screen
    assert japanese_left(screen, allowed) == []
    shown = "\n".join(text for view in views for text in view_texts(view))
    assert japanese_left(shown, allowed) == []
    party = [view["panel"]["party"] for view in views if view["panel"] and view["panel"]["party"]]
    hero = party[-1][0]
    assert hero["name"] == "Aria" and hero["state"] == render(CombatWord(CombatWordKind.OK), "en"), hero


def test_a_restarted_server_resumes_an_english_table_in_english() -> None:
    store = MemoryStore()
    first = TableRuntime(store, seeds=fixed_seeds(5), locale="en")
    with running_server(first) as url, httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "werewolf", "role": 2})
        japanese_id, japanese_token = open_table(client, {"kind": "werewolf", "role": 2, "locale": "ja"})
        for table, seat in ((table_id, token), (japanese_id, japanese_token)):
            for view in frames(client, table, seat, 0):
                if view["question"] is not None:
                    break
    # a server whose own language is Japanese takes both tables over, each in its language
    second = TableRuntime(store, seeds=fixed_seeds(50))
    with running_server(second) as url, httpx.Client(base_url=url, timeout=WAIT) as client:
        for table, seat, locale in ((table_id, token, "en"), (japanese_id, japanese_token, "ja")):
            for view in frames(client, table, seat, 0):
                if view["question"] is not None:
                    break
            assert view["locale"] == locale
            prompt = view["question"]["prompt"]
            assert bool(JAPANESE.search(without_terms(prompt))) == (locale == "ja"), prompt


@pytest.mark.parametrize(
    ("environment", "options", "locale"),
    [
        ({"GM_LOCALE": "en"}, (), "en"),
        ({"GM_LOCALE": "en"}, ("--locale", "ja"), "ja"),
        ({"GM_LOCALE": "ja"}, ("--locale", "en"), "en"),
    ],
)
def test_gm_serve_speaks_the_locale_it_is_given(
    tmp_path: Path, environment: dict[str, str], options: tuple[str, ...], locale: str
) -> None:
    """``gm serve --locale`` (else GM_LOCALE) is the lobby's language and a new table's."""
    log = tmp_path / "serve.log"
    database = f"sqlite:{tmp_path / 'tables.sqlite3'}"
    served = start_serve(database, log, environment=environment, options=options)
    try:
        base = served.client.base
        with httpx.Client(base_url=base, timeout=WAIT) as client:
            assert f'<html lang="{locale}">' in client.get("/").text
            table_id, token = open_table(client, {"kind": "adventure"})
            view = client.get(f"/api/tables/{table_id}/view", headers=bearer(token)).json()
            assert view["locale"] == locale and view["title"] == ("Adventure" if locale == "en" else "冒険")
    finally:
        served.stop()
    opened = "open http" if locale == "en" else "を開いてください"
    assert opened in log.read_text("utf-8"), log.read_text("utf-8")
