"""``gm serve``'s HTTP API on 127.0.0.1: tokens on every endpoint, what is pushed to P1 over a
whole game (no hidden fact before 【ゲーム終了】), text from players and models kept as text."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gm_engine.llm.base import ModelBackend, ModelRequest, ModelResponse
from gm_engine.llm.offline import OfflineBackend
from gm_engine.serve.tables import AdventureTableConfig, TableRuntime, WerewolfTableConfig
from gm_engine.transcripts.packing import PACKED_FORMAT
from gm_engine.transcripts.replay import replay_file
from gm_engine.werewolf.records import PERSONA_NAMES, Role
from tests.memory_store import MemoryStore
from tests.serve_server import running_server
from tests.test_serve_tables import fixed_seeds, simple_answer

WAIT = 60.0


#: The 403 body, in Japanese (no Accept-Language).
FORBIDDEN = "この卓の参加者の鍵がありません。招待のリンクから開いてください。"


def offline_only(config: WerewolfTableConfig | AdventureTableConfig, api_key: str | None) -> ModelBackend:
    """Every table on the offline model, whatever it names (no test reaches a real server)."""
    return OfflineBackend()


@pytest.fixture
def server() -> Iterator[tuple[str, TableRuntime, MemoryStore]]:
    store = MemoryStore()
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(8_123_456_789_012_345_601))
    with running_server(runtime) as url:
        yield url, runtime, store


def open_table(client: httpx.Client, config: dict[str, Any], api_key: str | None = None) -> tuple[str, str]:
    body: dict[str, Any] = {"config": config}
    if api_key is not None:
        body["api_key"] = api_key
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["join"] == f"/play/{data['table_id']}#t={data['token']}"
    return str(data["table_id"]), str(data["token"])


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def next_question(client: httpx.Client, table_id: str, token: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        view = client.get(f"/api/tables/{table_id}/view", headers=bearer(token)).json()
        if view["question"] is not None or view["status"] not in ("starting", "running"):
            return dict(view)
        time.sleep(0.01)
    raise AssertionError("no question came")


def play_over_http(client: httpx.Client, table_id: str, token: str, first_speech: str | None = None) -> None:
    """Answer every question as :func:`simple_answer` does (``first_speech`` at P1's first
    discussion turn) until the table ends."""
    spoke = first_speech is None
    while True:
        view = next_question(client, table_id, token)
        if view["status"] != "running":
            return
        question = view["question"]
        text = simple_answer(question)
        if not spoke and question["free_text"] and any(b["send"] == "/pass" for b in question["buttons"]):
            text, spoke = str(first_speech), True
        answer = client.post(f"/api/tables/{table_id}/answer", headers=bearer(token), json={"text": text})
        assert answer.status_code == 200, answer.text


def test_every_endpoint_answers_403_and_nothing_else_without_the_tables_token(
    server: tuple[str, TableRuntime, MemoryStore],
) -> None:
    url, _, store = server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        mine, token = open_table(client, {"kind": "werewolf", "role": 2}, api_key="sk-very-secret")
        other, other_token = open_table(client, {"kind": "adventure"})
        endpoints = [
            ("GET", f"/api/tables/{mine}/view"),
            ("GET", f"/api/tables/{mine}/events"),
            ("POST", f"/api/tables/{mine}/answer"),
            ("GET", f"/api/tables/{mine}/transcript"),
        ]
        wrong = [
            {},
            {"authorization": "Bearer"},
            {"authorization": "Bearer not-a-token"},
            {"authorization": f"Bearer {token}x"},
            {"authorization": f"Basic {token}"},
            {"authorization": token},
            bearer(other_token),  # another table's seat
        ]
        lines_before = len(store.read_lines(mine))
        for method, path in endpoints:
            for headers in wrong:
                answer = client.request(method, path, headers=headers, json={"text": "/pass"})
                assert answer.status_code == 403, (method, path, headers, answer.text)
                assert answer.json() == {"error": FORBIDDEN}
        # an unknown table is refused the same way, with a valid token of another table
        for method, path in endpoints:
            unknown = path.replace(mine, "no-such-table")
            answer = client.request(method, unknown, headers=bearer(token), json={"text": "/pass"})
            assert answer.status_code == 403 and answer.json() == {"error": FORBIDDEN}
        assert len(store.read_lines(mine)) <= lines_before + 50  # nothing was answered: P1 never spoke
        assert not any('"human_input"' in line for line in store.read_lines(mine))
        # with the token, the seat's view
        view = client.get(f"/api/tables/{mine}/view", headers=bearer(token))
        assert view.status_code == 200 and view.json()["table_id"] == mine
        assert client.get(f"/api/tables/{mine}/transcript", headers=bearer(token)).status_code == 409
        # the lobby: ids, kinds and titles; never a token, a key, a seed
        lobby = client.get("/api/tables").text
        assert mine in lobby and other in lobby
        for secret in (token, other_token, "sk-very-secret", store.get_secret(mine, "seed")):
            assert secret is not None
            text = secret.decode() if isinstance(secret, bytes) else secret
            assert text not in lobby and text not in view.text
        assert store.get_secret(mine, "api_key") == b"sk-very-secret"
        assert "sk-very-secret" not in (store.get_table(mine) or store).config_json  # type: ignore[union-attr]


def test_bad_requests_get_a_japanese_error_and_change_nothing(
    server: tuple[str, TableRuntime, MemoryStore],
) -> None:
    url, _, store = server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        bodies: list[bytes] = [b"not json", b"[1, 2]", json.dumps({"config": {"kind": "chess"}}).encode(),
                     json.dumps({"config": {"kind": "werewolf", "role": 9}}).encode(),
                     json.dumps({"config": {"kind": "werewolf"}, "api_key": 5}).encode(),
                     b"{" + b" " * 20_000 + b"}"]
        for raw in bodies:
            answer = client.post("/api/tables", content=raw)
            # a body over the limit is "too large" (413), any other bad one a bad request
            assert answer.status_code == (413 if len(raw) > 16_384 else 400), raw[:40]
            error = answer.json()["error"]
            assert re.search("[ぁ-んァ-ン一-龯]", error), error
        assert store.list_tables() == []
        table_id, token = open_table(client, {"kind": "werewolf", "role": 2})
        next_question(client, table_id, token)
        before = store.read_lines(table_id)
        # (body, status): a body that is not an answer is a bad request (400), one over the
        # size limit too large (413), an answer the table refuses a conflict (409)
        answers: list[tuple[bytes, int]] = [
            (json.dumps({"text": 5}).encode(), 400), (json.dumps({"nothing": "x"}).encode(), 400),
            (b"not json", 400), (json.dumps({"text": "x" * 20_000}).encode(), 413),
            (json.dumps({"text": "/quit"}).encode(), 409), (json.dumps({"text": "x" * 2001}).encode(), 409),
        ]
        for raw, status in answers:
            answer = client.post(f"/api/tables/{table_id}/answer", headers=bearer(token), content=raw)
            assert answer.status_code == status, raw[:40]
            assert re.search("[ぁ-んァ-ン一-龯]", answer.json()["error"])
        assert store.read_lines(table_id) == before


class _EscapingNarrator(OfflineBackend):
    """The offline model, except that the GM narrator answers with terminal escape sequences
    and markup."""

    SAID = "\x1b[2J\x1b]0;pwned\x07<b>太字</b>\u202eevil"

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        response = await super().complete(request, context)
        if request.actor == "GM":
            return response.model_copy(update={"content": self.SAID})
        return response


def test_a_models_escape_sequences_and_markup_reach_the_page_as_visible_text() -> None:
    store = MemoryStore()
    runtime = TableRuntime(store, backend=lambda config, key: _EscapingNarrator(), seeds=fixed_seeds())
    with running_server(runtime) as url, httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "werewolf", "role": 2})
        view = next_question(client, table_id, token)
        said = [line for line in view["lines"] if line.startswith("GM:")]
        assert said, view["lines"]
        assert said[0] == "GM: ␛[2J␛]0;pwned␇<b>太字</b><U+202E>evil"
        raw = client.get(f"/api/tables/{table_id}/view", headers=bearer(token)).text
        assert "\x1b" not in raw and "\\u001b" not in raw and "\u202e" not in raw and "\\u202e" not in raw


class _EventLog:
    """Every server-sent event of one seat's stream, read on a thread of its own."""

    def __init__(self, url: str, table_id: str, token: str) -> None:
        self.messages: list[str] = []
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._read, args=(url, table_id, token), daemon=True)
        self._thread.start()

    def _read(self, url: str, table_id: str, token: str) -> None:
        try:
            with httpx.Client(base_url=url, timeout=WAIT) as client, client.stream(
                "GET", f"/api/tables/{table_id}/events", headers=bearer(token)
            ) as stream:
                assert stream.headers["content-type"].startswith("text/event-stream")
                for line in stream.iter_lines():
                    if line.startswith("data: "):
                        self.messages.append(line.removeprefix("data: "))
        except BaseException as exc:  # handed to the test
            self.error = exc

    def join(self) -> list[dict[str, Any]]:
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "the event stream did not end with the table"
        if self.error is not None:
            raise self.error
        return [json.loads(message) for message in self.messages]


#: The deal of the secrecy game, P1 first: P1 a 村人, knowing no one else's role.
SECRET_DEAL = (2, 1, 1, 2, 2, 3, 4, 5, 6)


def test_no_hidden_fact_is_pushed_to_p1_before_the_end(
    server: tuple[str, TableRuntime, MemoryStore], tmp_path: Path
) -> None:
    url, _, store = server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "werewolf", "deal": list(SECRET_DEAL), "role": 2})
        events = _EventLog(url, table_id, token)
        play_over_http(client, table_id, token, first_speech="おはようございます")
        pushed = events.join()
    assert pushed[-1]["status"] == "finished"
    seed = (store.get_secret(table_id, "seed") or b"").decode()
    key = json.loads((store.get_secret(table_id, "game_key") or b"{}").decode())["key"]
    lines: list[str] = []
    before_end: list[dict[str, Any]] = []
    for message in pushed:
        lines.extend(message["lines"])
        if "【ゲーム終了】" in lines:
            break
        before_end.append(message)
    assert "【ゲーム終了】" in lines and before_end
    names = {seat: name for seat, name in PERSONA_NAMES.items()}
    came_out: set[int] = set()  # seats that claimed their own role in public: it is no secret then
    for message in before_end:
        text = json.dumps(message, ensure_ascii=False)
        assert seed not in text and key not in text
        assert "最終役職一覧" not in text
        panel = message["panel"]
        if panel is not None:
            assert panel["role"] in (None, "村人") and panel["partners"] == []
            came_out |= {
                s["seat"] for s in panel["seats"] if s["co"] == Role(SECRET_DEAL[s["seat"] - 1]).label
            }
        for seat, role in enumerate(SECRET_DEAL, start=1):
            if seat == 1 or seat in came_out:
                continue
            # the seat with its role, as the final list (「シセン:人狼」) or a claim (「シセン（人狼）」)
            # would write it; 「シセン:人狼CO」 is CO状況, a claim anyone may make, true or not
            name, label = re.escape(names[seat]), re.escape(Role(role).label)
            leak = re.search(f"{name}[:：]{label}(?!CO)|{name}[（(]{label}[）)]", text)
            assert leak is None, (leak, message)
    assert came_out, "no true claim in the game: the check above never skipped a seat"
    # after the end: the final roles, and the transcript replays
    every_line = [line for message in pushed for line in message["lines"]]
    assert any(line.startswith("最終役職一覧") for line in every_line)
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        data = client.get(f"/api/tables/{table_id}/transcript", headers=bearer(token))
    assert data.status_code == 200
    assert data.headers["content-disposition"] == f'attachment; filename="table-{table_id}.jsonl"'
    path = tmp_path / "game.jsonl"
    path.write_bytes(data.content)
    assert replay_file(path).ok
    # packed as a finished file on disk is (the store keeps every line as it was written)
    assert json.loads(data.content.split(b"\n", 1)[0])["format"] == PACKED_FORMAT
    assert len(data.content) * 2 < sum(len(line) + 1 for line in store.read_lines(table_id))


def test_a_speech_with_markup_is_recorded_and_shown_as_typed(
    server: tuple[str, TableRuntime, MemoryStore],
) -> None:
    url, _, _ = server
    speech = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, token = open_table(client, {"kind": "werewolf", "role": 2})
        while True:
            view = next_question(client, table_id, token)
            question = view["question"]
            if question["free_text"] and any(b["send"] == "/pass" for b in question["buttons"]):
                break
            answer = {"text": simple_answer(question)}
            client.post(f"/api/tables/{table_id}/answer", headers=bearer(token), json=answer)
        done = client.post(f"/api/tables/{table_id}/answer", headers=bearer(token), json={"text": speech})
        # answered once stored; the session shows the speech in its turn, before it asks again
        assert done.json() == {"status": "recorded", "lines": []}
        view = next_question(client, table_id, token)
        assert any(speech in line for line in view["lines"])
        page = client.get(f"/play/{table_id}")
        assert page.status_code == 200 and speech not in page.text  # the page itself holds no table data
        assert "script-src 'self'" in page.headers["content-security-policy"]


def test_a_process_not_driving_a_table_forwards_only_for_its_seat_and_takes_it_when_free() -> None:
    """Another process (``elsewhere``, advertising an address nobody answers at) drives the
    table: this one refuses a stranger itself, answers 503 while the holder is unreachable,
    never forwards a forwarded request, and drives the table on the first request once the
    holder gave its lease up."""
    store = MemoryStore()
    elsewhere = TableRuntime(
        store, backend=offline_only, seeds=fixed_seeds(5), advertise="http://127.0.0.1:9", holder="gone"
    )
    assert elsewhere.holder == "http://127.0.0.1:9#gone"
    created = elsewhere.create_table(WerewolfTableConfig(role=2))
    here = TableRuntime(store, backend=offline_only)
    try:
        with running_server(here) as url, httpx.Client(base_url=url, timeout=WAIT) as client:
            path = f"/api/tables/{created.table_id}/view"
            assert client.get(path, headers=bearer("wrong")).status_code == 403
            unreachable = client.get(path, headers=bearer(created.token))
            assert unreachable.status_code == 503
            assert "届きません" in unreachable.json()["error"]
            looped = client.get(path, headers={**bearer(created.token), "x-gm-forwarded": "1"})
            assert looped.status_code == 503
            assert here.live(created.table_id) is None
            elsewhere.close()  # its lease is given up: the next request's process takes the table
            taken = client.get(path, headers=bearer(created.token))
            assert taken.status_code == 200, taken.text
            assert here.live(created.table_id) is not None
            view = next_question(client, created.table_id, created.token)
            assert view["status"] == "running" and view["question"] is not None
    finally:
        elsewhere.close()


def test_the_lobby_offers_only_the_operators_model_servers_and_refuses_others() -> None:
    store = MemoryStore()
    allowed = "http://127.0.0.1:11434/v1"
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(), model_servers=[allowed])
    with running_server(runtime) as url, httpx.Client(base_url=url, timeout=WAIT) as client:
        assert client.get("/api/tables").json()["model_servers"] == [allowed]
        config = {"kind": "werewolf", "backend": "openai", "model": "m", "base_url": "http://10.0.0.1/v1"}
        refused = client.post("/api/tables", json={"config": config})
        assert refused.status_code == 400
        assert "--model-server" in refused.json()["error"] and allowed in refused.json()["error"]
        assert store.list_tables() == []
        table_id, _ = open_table(client, {**config, "base_url": allowed, "role": 2})
        assert [row.table_id for row in store.list_tables()] == [table_id]


#: The fields of a werewolf table's form, as a refusal of an unknown one lists them.
FIELDS = "kind, title, role, deal, human_name, narrator, rules, backend, model, base_url, aiwolf, locale"


def test_error_bodies_are_in_the_requesters_language(server: tuple[str, TableRuntime, MemoryStore]) -> None:
    """A refusal of no table (the lobby's form, a wrong token: no table is confirmed) is in
    the requester's language; the table-bound ones are in the table's (below)."""
    url, _, _ = server
    english = {"accept-language": "en-GB,en;q=0.9,ja;q=0.5"}
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        table_id, _ = open_table(client, {"kind": "werewolf", "role": 2})
        stranger = f"/api/tables/{table_id}/view"
        cases: list[tuple[str, str, dict[str, Any], str, str]] = [
            ("GET", stranger, {}, FORBIDDEN, "forbidden: this table's seat token is missing or wrong; "
             "open the table from its invitation link"),
            ("POST", "/api/tables", {"content": b"not json"}, "送られたデータが JSON ではありません。",
             "The data sent is not JSON."),
            ("POST", "/api/tables", {"content": b"[1]"}, "送られたデータが正しくありません。",
             "The data sent is not valid."),
            ("POST", "/api/tables", {"json": {"config": {"kind": "werewolf"}, "api_key": 5}},
             "API キーは文字列で指定してください。", "Give the API key as a string."),
            ("POST", "/api/tables", {"json": {"config": {"kind": "werewolf", "role": 9, "colour": 1}}},
             "卓の設定が正しくありません: role: 「9」は大きすぎます（6以下）。"
             f"colour: そういう項目はありません（使える項目: {FIELDS}）",
             "The table's settings are not valid: role: 9 is too large (at most 6); colour: no such field "
             f"(the fields are: {FIELDS})"),
            ("POST", "/api/tables", {"json": {"config": {"kind": "chess"}}},
             "卓の設定が正しくありません: kind: 「chess」は選べません（選べるもの: werewolf, adventure）",
             "The table's settings are not valid: kind: 'chess' is not a choice "
             "(choose from werewolf, adventure)"),
        ]
        for method, path, options, japanese, english_text in cases:
            headers = dict(options.pop("headers", {}))
            for language, expected in (({}, japanese), ({"accept-language": "ja,en;q=0.8"}, japanese),
                                       ({"accept-language": "fr"}, japanese), (english, english_text)):
                answer = client.request(method, path, headers={**headers, **language}, **options)
                assert answer.status_code in (400, 403, 409), (path, answer.text)
                assert answer.json()["error"] == expected, (path, language, answer.text)


def test_a_tables_refusals_are_in_the_tables_language(server: tuple[str, TableRuntime, MemoryStore]) -> None:
    """A refused answer, a body without its text, the transcript asked for too early: in the
    language of the table, whatever the requester's browser prefers (the page shows them
    amid the table's own words)."""
    url, _, _ = server
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        tables = {
            locale: open_table(client, {"kind": "werewolf", "role": 2, "locale": locale})
            for locale in ("ja", "en")
        }
        for locale, (table_id, token) in tables.items():
            next_question(client, table_id, token)
            cases: list[tuple[str, str, dict[str, Any], str, str]] = [
                ("POST", "answer", {"json": {"nothing": 1}},
                 "text に答えを入れて送ってください。", "Send the answer in text."),
                ("POST", "answer", {"json": {"text": "x" * 2001}},
                 "入力は2000文字までです。", "An answer has at most 2000 characters."),
                ("POST", "answer", {"json": {"text": "/quit"}},
                 "ウェブの卓では終了コマンドは使えません。ページを閉じれば、あとで続きから遊べます。",
                 "A web table has no quit command: close the page, and come back later to go on."),
                ("GET", "transcript", {},
                 "記録はゲームの終了後にダウンロードできます。",
                 "The transcript can be downloaded once the game is over."),
            ]  # fmt: skip
            for method, end, options, japanese, english_text in cases:
                expected = english_text if locale == "en" else japanese
                for language in ({}, {"accept-language": "ja"}, {"accept-language": "en-GB,en;q=0.9"}):
                    path = f"/api/tables/{table_id}/{end}"
                    answer = client.request(method, path, headers={**bearer(token), **language}, **options)
                    assert answer.status_code in (400, 409), (end, answer.text)
                    assert answer.json()["error"] == expected, (locale, end, language, answer.text)
