"""BCDice-API over HTTP: the application served by uvicorn on 127.0.0.1, asked with urllib.

Every answer is compared field by field, in order, with the shapes BCDice-API documents
(the data below, each with its source), and its values with the engine's own answer for
the same dice. The dice are injected: the server rolls from one source the test refills
before each request.
"""

from __future__ import annotations

import json
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gm_engine.dice.conformance import Case, load_cases
from gm_engine.dice.engine import evaluate
from gm_engine.dice.rands import detailed_rands
from gm_engine.dice.source import DiceSource, QueueSource, SeededSource
from gm_engine.dice.systems.registry import SYSTEMS_BY_ID
from gm_engine.serve import bcdice_api
from gm_engine.serve.bcdice_api import ApiAdmin, bcdice_api_app, command_pattern
from tests.conftest import bcdice_dir
from tests.serve_server import serving

# -- BCDice-API's documented shapes ----------------------------------------------------
# From bcdice/bcdice-api 3.0.0, docs/api_v2.md (the レスポンス例 of each section) and
# lib/bcdice_api/controller/v2.rb (the hashes it answers, whose key order is the JSON's).
VERSION_FIELDS = (("api", str), ("bcdice", str))
ADMIN_FIELDS = (("name", str), ("url", str), ("email", str))
GAME_SYSTEM_LIST_FIELDS = (("game_system", list),)
GAME_SYSTEM_ENTRY_FIELDS = (("id", str), ("name", str), ("sort_key", str))
GAME_SYSTEM_INFO_FIELDS = (
    ("ok", bool),
    ("id", str),
    ("name", str),
    ("sort_key", str),
    ("command_pattern", str),
    ("help_message", str),
)
ROLL_FIELDS = (
    ("ok", bool),
    ("text", str),
    ("secret", bool),
    ("success", bool),
    ("failure", bool),
    ("critical", bool),
    ("fumble", bool),
    ("rands", list),
)
RAND_FIELDS = (("kind", str), ("sides", int), ("value", int))
#: docs/api_v2.md, "rands": the three kinds
RAND_KINDS = {"normal", "tens_d10", "d9"}
#: docs/api_v2.md, "Error" (HTTP status 400 for both); controller/v2.rb's not_found (404)
UNSUPPORTED_SYSTEM = (400, {"ok": False, "reason": "unsupported game system"})
UNSUPPORTED_COMMAND = (400, {"ok": False, "reason": "unsupported command"})
NOT_FOUND = (404, {"ok": False, "reason": "not found"})
#: docs/api_v2.md, "Dice Roll": the example answer, for 4d10>=15 on the dice 8, 3, 5, 9
DOCS_ROLL_EXAMPLE = {
    "ok": True,
    "text": "(4D10>=15) ＞ 25[8,3,5,9] ＞ 25 ＞ 成功",
    "secret": False,
    "success": True,
    "failure": False,
    "critical": False,
    "fumble": False,
    "rands": [
        {"kind": "normal", "sides": 10, "value": 8},
        {"kind": "normal", "sides": 10, "value": 3},
        {"kind": "normal", "sides": 10, "value": 5},
        {"kind": "normal", "sides": 10, "value": 9},
    ],
}
# From bcdice/bcdice-api 2.1.1 (the last release with /v1), docs/api.md and
# lib/bcdice_api/controller/v1.rb.
V1_ROLL_FIELDS = (("ok", bool), ("result", str), ("secret", bool), ("dices", list), ("detailed_rands", list))
V1_DIE_FIELDS = (("faces", int), ("value", int))
V1_SYSTEMINFO_FIELDS = (("name", str), ("gameType", str), ("sortKey", str), ("prefixs", list), ("info", str))
#: docs/api.md, "diceroll": the example answer, for 4d10>=15 on the dice 8, 2, 1, 9 (its
#: "nomal" is a typo of the docs: the code answers :normal)
V1_DOCS_ROLL_EXAMPLE = {
    "ok": True,
    "result": ": (4D10>=15) ＞ 20[8,2,1,9] ＞ 20 ＞ 成功",
    "secret": False,
    "dices": [{"faces": 10, "value": v} for v in (8, 2, 1, 9)],
    "detailed_rands": [{"kind": "normal", "sides": 10, "value": v} for v in (8, 2, 1, 9)],
}
#: Each system's command_pattern as BCDice 3.16.1 builds it (Base.command_pattern:
#: ``/^S?(#{patterns.join('|')})/i`` over CommonCommand::COMMANDS' PREFIX_PATTERN sources
#: and the system's register_prefix list), its Regexp#source.
_COMMON = (
    r"[+\-(]*(\d+|D\d+)|\d+B\d+|\d+T[YZ]\d+|C[+\-(]*\d+|choice|D66|(repeat|rep|x)\d+|\d+R\d+|\d+U\d+"
    r"|BCDiceVersion"
)
BCDICE_COMMAND_PATTERNS = {
    "DiceBot": rf"^S?({_COMMON})",
    "Cthulhu": rf"^S?({_COMMON}|CCB?|RESB?|CBRB?)",
    "Cthulhu7th": rf"^S?({_COMMON}|CC|CBR|FAR|BMR|BMS|FCL|FCM|PH|MA)",
    "TheOneRing2nd": rf"^S?({_COMMON}|\d+RG|FD)",
}
#: BCDice 3.16.1's ID, NAME and SORT_KEY of each system, in BCDice-API's order (by SORT_KEY)
BCDICE_SYSTEMS = [
    ("DiceBot", "DiceBot", "*たいすほつと"),
    ("Cthulhu", "クトゥルフ神話TRPG", "くとうるふしんわTRPG"),
    ("Cthulhu7th", "新クトゥルフ神話TRPG", "しんくとうるふしんわTRPG"),
    ("TheOneRing2nd", "一つの指輪：指輪物語TRPG2版", "ひとつのゆひわゆひわものかたりTRPG2"),
]


# -- the server --------------------------------------------------------------------------


class InjectedDice(DiceSource):
    """The server's one source: a queue of given dice, refilled by the test before a request."""

    def __init__(self) -> None:
        super().__init__()
        self.queue = QueueSource(())

    def load(self, dice: Sequence[tuple[int, int]]) -> None:
        self.queue = QueueSource(dice)

    def _draw(self, sides: int) -> int:
        return self.queue.roll(sides)

    def _get_state(self) -> object:
        return self.queue.mark()

    def _set_state(self, state: object) -> None:
        assert isinstance(state, tuple)
        self.queue.restore(state)  # type: ignore[arg-type]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


@dataclass
class Server:
    base: str
    dice: InjectedDice

    def request(
        self,
        path: str,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
        method: str | None = None,
    ) -> Answer:
        request = urllib.request.Request(self.base + path, data=data, headers=headers or {}, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return Answer(
                    response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
                )
        except urllib.error.HTTPError as error:
            with error:
                return Answer(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())

    def roll(
        self, system: str, command: str, dice: Sequence[tuple[int, int]] = (), *, post: bool = False
    ) -> Answer:
        self.dice.load(dice)
        path = f"/v2/game_system/{urllib.parse.quote(system)}/roll"
        query = urllib.parse.urlencode({"command": command})
        if post:
            return self.request(path, query.encode(), {"Content-Type": "application/x-www-form-urlencoded"})
        return self.request(f"{path}?{query}")


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    dice = InjectedDice()
    tables = str(bcdice_dir() / "tables")
    admin = ApiAdmin("gm", "https://example.invalid/", "gm@example.invalid")
    app = bcdice_api_app(dice, tables_dir=tables, admin=admin)
    with serving(app, lifespan="off") as base:
        yield Server(base, dice)


# -- checks ------------------------------------------------------------------------------


def assert_fields(value: object, fields: Sequence[tuple[str, type]]) -> dict[str, object]:
    """``value`` is a JSON object with exactly ``fields``, in that order, of those types."""
    assert isinstance(value, dict), value
    assert [(key, type(item)) for key, item in value.items()] == list(fields), value
    return value


def assert_bcdice_headers(answer: Answer) -> None:
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["x-content-type-options"] == "nosniff"
    # Ruby's JSON.generate: compact, non-ASCII as UTF-8
    text = answer.body.decode("utf-8")
    assert text == json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))


def assert_error(answer: Answer, expected: tuple[int, dict[str, object]]) -> None:
    status, body = expected
    assert (answer.status, answer.json()) == (status, body)
    assert list(answer.json()) == list(body)
    assert_bcdice_headers(answer)


def assert_roll_answer(answer: Answer, system: str, command: str, dice: Sequence[tuple[int, int]]) -> None:
    """A 200 answer with BCDice-API's roll shape whose values are the engine's own for
    the same dice, or BCDice-API's 400 when the engine answers nothing."""
    expected = evaluate(command, system, source=QueueSource(dice), tables_dir=str(bcdice_dir() / "tables"))
    if expected is None:
        assert_error(answer, UNSUPPORTED_COMMAND)
        return
    assert answer.status == 200, answer.body
    assert_bcdice_headers(answer)
    body = assert_fields(answer.json(), ROLL_FIELDS)
    assert body["ok"] is True
    assert body["text"] == expected.text
    assert [body[name] for name in ("secret", "success", "failure", "critical", "fumble")] == [
        expected.secret,
        expected.success,
        expected.failure,
        expected.critical,
        expected.fumble,
    ]
    rands = body["rands"]
    assert isinstance(rands, list)
    for rand in rands:
        assert_fields(rand, RAND_FIELDS)
        assert rand["kind"] in RAND_KINDS
    assert rands == [{"kind": r.kind, "sides": r.sides, "value": r.value} for r in detailed_rands(expected)]


# -- the endpoints -----------------------------------------------------------------------


def test_version_answers_the_api_and_bcdice_versions(api: Server) -> None:
    answer = api.request("/v2/version")
    assert answer.status == 200
    assert_bcdice_headers(answer)
    assert assert_fields(answer.json(), VERSION_FIELDS) == {"api": "3.0.0", "bcdice": "3.16.1"}


def test_admin_answers_who_runs_the_server(api: Server) -> None:
    answer = api.request("/v2/admin")
    assert answer.status == 200
    assert_bcdice_headers(answer)
    body = assert_fields(answer.json(), ADMIN_FIELDS)
    assert body == {"name": "gm", "url": "https://example.invalid/", "email": "gm@example.invalid"}


def test_admin_is_empty_strings_when_not_configured() -> None:
    with serving(bcdice_api_app(SeededSource(1)), lifespan="off") as base:
        answer = Server(base, InjectedDice()).request("/v2/admin")
        assert answer.json() == {"name": "", "url": "", "email": ""}


def test_game_system_lists_every_system_by_sort_key(api: Server) -> None:
    answer = api.request("/v2/game_system")
    assert answer.status == 200
    assert_bcdice_headers(answer)
    listed = assert_fields(answer.json(), GAME_SYSTEM_LIST_FIELDS)["game_system"]
    assert isinstance(listed, list)
    for entry in listed:
        assert_fields(entry, GAME_SYSTEM_ENTRY_FIELDS)
    assert [(e["id"], e["name"], e["sort_key"]) for e in listed] == BCDICE_SYSTEMS
    assert {e["id"] for e in listed} == set(SYSTEMS_BY_ID)


@pytest.mark.parametrize("system", sorted(SYSTEMS_BY_ID))
def test_game_system_info_has_bcdices_command_pattern(api: Server, system: str) -> None:
    answer = api.request(f"/v2/game_system/{system}")
    assert answer.status == 200
    assert_bcdice_headers(answer)
    body = assert_fields(answer.json(), GAME_SYSTEM_INFO_FIELDS)
    cls = SYSTEMS_BY_ID[system]
    assert body["ok"] is True
    assert (body["id"], body["name"], body["sort_key"]) == (cls.id, cls.name, cls.sort_key)
    assert body["command_pattern"] == BCDICE_COMMAND_PATTERNS[system] == command_pattern(cls)
    assert body["help_message"] == cls.help_text and cls.help_text


def test_unknown_game_system_is_bcdice_apis_400(api: Server) -> None:
    assert_error(api.request("/v2/game_system/Hoge"), UNSUPPORTED_SYSTEM)
    assert_error(api.roll("Hoge", "1d100<=70"), UNSUPPORTED_SYSTEM)
    # ids are exact, as BCDice's game_system_class compares them
    assert_error(api.request("/v2/game_system/cthulhu7th"), UNSUPPORTED_SYSTEM)
    # the system is checked before the command
    assert_error(api.request("/v2/game_system/Hoge/roll"), UNSUPPORTED_SYSTEM)


def test_a_missing_or_empty_command_is_unsupported(api: Server) -> None:
    assert_error(api.request("/v2/game_system/DiceBot/roll"), UNSUPPORTED_COMMAND)
    assert_error(api.request("/v2/game_system/DiceBot/roll?command="), UNSUPPORTED_COMMAND)
    assert_error(api.request("/v2/game_system/DiceBot/roll", b"", method="POST"), UNSUPPORTED_COMMAND)


def test_the_docs_example_roll_byte_for_byte(api: Server) -> None:
    answer = api.roll("DiceBot", "4d10>=15", [(8, 10), (3, 10), (5, 10), (9, 10)])
    assert answer.status == 200
    assert_bcdice_headers(answer)
    assert answer.json() == DOCS_ROLL_EXAMPLE
    assert answer.body == json.dumps(DOCS_ROLL_EXAMPLE, ensure_ascii=False, separators=(",", ":")).encode()


def test_post_rolls_as_get_does(api: Server) -> None:
    dice = [(8, 10), (3, 10), (5, 10), (9, 10)]
    assert api.roll("DiceBot", "4d10>=15", dice, post=True).json() == DOCS_ROLL_EXAMPLE
    # a POST with no Content-Type is read as a form, as Rack reads it
    api.dice.load(dice)
    assert api.request("/v2/game_system/DiceBot/roll", b"command=4d10%3E%3D15").json() == DOCS_ROLL_EXAMPLE
    # the body's parameter wins over the query's (Rack merges POST over GET)
    api.dice.load(dice)
    answer = api.request(
        "/v2/game_system/DiceBot/roll?command=1D6",
        b"command=4d10%3E%3D15",
        {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"},
    )
    assert answer.json() == DOCS_ROLL_EXAMPLE


def test_a_multipart_post_rolls(api: Server) -> None:
    api.dice.load([(8, 10), (3, 10), (5, 10), (9, 10)])
    body = b'--XyZ\r\nContent-Disposition: form-data; name="command"\r\n\r\n4d10>=15\r\n--XyZ--\r\n'
    answer = api.request(
        "/v2/game_system/DiceBot/roll", body, {"Content-Type": "multipart/form-data; boundary=XyZ"}
    )
    assert answer.json() == DOCS_ROLL_EXAMPLE


def raw_post(base: str, path: str, head: str, body: bytes) -> tuple[int, bytes]:
    """POST ``body`` as it is, after ``head``'s header lines; the status and body answered."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{head}\r\n".encode() + body
        )
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    status_line, _, rest = received.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def test_a_body_over_the_limit_is_refused(api: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bcdice_api, "MAX_BODY_BYTES", 1000)
    path = "/v2/game_system/DiceBot/roll"
    form = "Content-Type: application/x-www-form-urlencoded\r\n"
    body = b"command=2D6%20" + b"a" * 1000
    too_large = b'{"ok":false,"reason":"request too large"}'
    # told by its length, refused unread
    assert raw_post(api.base, path, f"{form}Content-Length: {len(body)}\r\n", body) == (413, too_large)
    # sent in chunks with no length, refused once past the limit
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    assert raw_post(api.base, path, f"{form}Transfer-Encoding: chunked\r\n", chunked)[0] == 413
    # the limit itself is read
    api.dice.load(D6)
    fits = b"command=2D6%20" + b"a" * (1000 - 14)
    assert raw_post(api.base, path, f"{form}Content-Length: {len(fits)}\r\n", fits)[0] == 200


def test_a_broken_multipart_body_is_a_400(api: Server) -> None:
    answer = api.request(
        "/v2/game_system/DiceBot/roll", b"--nothing", {"Content-Type": "multipart/form-data"}
    )
    assert (answer.status, answer.json()) == (400, {"ok": False, "reason": "bad request"})


@pytest.mark.parametrize(
    "path",
    [
        "/v2/nothing",
        "/v2/game_system/DiceBot/",
        "/v2/version/",
        "/v2",
        "/v2/game_system/DiceBot/roll/x",
        "/nothing",
    ],
)
def test_other_paths_are_bcdice_apis_404(api: Server, path: str) -> None:
    answer = api.request(path)
    assert_error(answer, NOT_FOUND)
    assert answer.headers["x-cascade"] == "pass"


def test_other_methods_are_bcdice_apis_404(api: Server) -> None:
    assert_error(api.request("/v2/version", b"", method="POST"), NOT_FOUND)
    assert_error(api.request("/v2/game_system/DiceBot/roll?command=1D6", method="DELETE"), NOT_FOUND)


def test_the_root_says_hello(api: Server) -> None:
    answer = api.request("/")
    assert (answer.status, answer.body) == (200, b"Hello. This is BCDice-API.")
    assert answer.headers["content-type"] == "text/html;charset=utf-8"


# -- a spread of commands ------------------------------------------------------------------

D10 = [(n, 10) for n in (3, 7, 10, 1, 5, 9, 2, 6)]
D6 = [(n, 6) for n in (6, 1, 4, 3, 5, 2, 6, 6, 1, 1)]
SPREAD: list[tuple[str, str, list[tuple[int, int]]]] = [
    # DiceBot: the common commands, secret, comments, malformed, non-ASCII
    ("DiceBot", "2D6+3>=7", D6),
    ("DiceBot", "S2D6", D6),
    ("DiceBot", "s3d6 秘密の判定", D6),
    ("DiceBot", "3B6>=4", D6),
    ("DiceBot", "4R6>=5", D6 * 3),
    ("DiceBot", "3U6[6]>=6", D6 * 3),
    ("DiceBot", "C(10*3+2)", []),
    ("DiceBot", "choice[赤,青,緑]", [(2, 3)]),
    ("DiceBot", "D66", D6),
    ("DiceBot", "x3 2D6", D6 * 2),
    ("DiceBot", "4TY6", D6),
    ("DiceBot", "BCDiceVersion", []),
    ("DiceBot", "2D6 判定　全角スペースの後も", D6),
    ("DiceBot", "a", []),
    ("DiceBot", "2D6+", D6),
    ("DiceBot", "(2D6", D6),
    ("DiceBot", "２Ｄ６", D6),
    ("DiceBot", "ダイス", []),
    ("DiceBot", "   ", []),
    ("DiceBot", "x0 2D6", []),
    # Cthulhu (6th)
    ("Cthulhu", "CC<=50", [(37, 100)]),
    ("Cthulhu", "CCB<=50", [(3, 100)]),
    ("Cthulhu", "SCC<=50", [(96, 100)]),
    ("Cthulhu", "RES(12-10)", [(40, 100)]),
    ("Cthulhu", "CBR(50,20)", [(15, 100)]),
    ("Cthulhu", "CC<=", []),
    # Cthulhu7th: tens dice
    ("Cthulhu7th", "CC<=50", D10),
    ("Cthulhu7th", "CC(2)<=50 目星", D10),
    ("Cthulhu7th", "CC(-1)<=50h", D10),
    ("Cthulhu7th", "SCC<=1", [(10, 10), (10, 10)]),
    ("Cthulhu7th", "CC", [(42, 100)]),
    ("Cthulhu7th", "CBR(70,30)", [(30, 100)]),
    ("Cthulhu7th", "FAR(25,70,98)", D10 * 4),
    ("Cthulhu7th", "x2 CC<=40", D10),
    ("Cthulhu7th", "CC(9)<=50", D10 * 2),
    ("Cthulhu7th", "CC(101)<=50", []),
    ("Cthulhu7th", "CCC", []),
    # TheOneRing2nd
    ("TheOneRing2nd", "14RG3", [(12, 12), (6, 6), (3, 6), (5, 6)]),
    ("TheOneRing2nd", "S14RG2@10A1f", [(11, 12), (3, 12), (6, 6), (1, 6)]),
    ("TheOneRing2nd", "FD", [(11, 12)]),
    ("TheOneRing2nd", "RG", []),
]


@pytest.mark.parametrize(("system", "command", "dice"), SPREAD, ids=[f"{s}:{c}" for s, c, _ in SPREAD])
def test_a_spread_of_commands_answers_as_the_engine_does(
    api: Server, system: str, command: str, dice: list[tuple[int, int]]
) -> None:
    assert_roll_answer(api.roll(system, command, dice), system, command, dice)
    assert_roll_answer(api.roll(system, command, dice, post=True), system, command, dice)


def test_a_secret_roll_says_secret(api: Server) -> None:
    body = api.roll("Cthulhu7th", "SCC<=50", [(3, 10), (4, 10)]).json()
    assert isinstance(body, dict)
    assert (body["secret"], body["success"]) == (True, True)


def test_the_tens_dice_are_tens_d10_with_10_read_as_0(api: Server) -> None:
    body = api.roll("Cthulhu7th", "CC(1)<=50", [(10, 10), (4, 10), (10, 10)]).json()
    assert isinstance(body, dict)
    assert body["rands"] == [
        {"kind": "tens_d10", "sides": 10, "value": 0},
        {"kind": "tens_d10", "sides": 10, "value": 40},
        {"kind": "normal", "sides": 10, "value": 10},
    ]
    assert body["text"] == "(1D100<=50) ボーナス・ペナルティダイス[1] ＞ 100, 40 ＞ 40 ＞ レギュラー成功"


def test_a_very_long_line_is_answered(api: Server) -> None:
    command = "2D6 " + "長い注釈" * 2000
    assert_roll_answer(api.roll("DiceBot", command, D6, post=True), "DiceBot", command, D6)
    long_word = "1" * 3000 + "D6"
    assert_roll_answer(api.roll("DiceBot", long_word, D6, post=True), "DiceBot", long_word, D6)


def test_control_characters_and_odd_text_do_not_break_the_answer(api: Server) -> None:
    for command in ("2D6\n改行", "2D6\t\x01\x7f", "2D6 \U0001f3b2", "C(1/0)", "2D6 <script>"):
        assert_roll_answer(api.roll("DiceBot", command, D6, post=True), "DiceBot", command, D6)
    command = 'choice["a",<b>]'
    assert_roll_answer(api.roll("DiceBot", command, [(2, 2)], post=True), "DiceBot", command, [(2, 2)])
    # bytes that are not UTF-8 read as U+FFFD, as Starlette decodes them
    api.dice.load([(1, 2)])
    answer = api.request("/v2/game_system/DiceBot/roll?command=choice%5B%FF%FE%2Ca%5D")
    assert (answer.status, answer.json()["text"]) == (200, "(choice[\ufffd\ufffd,a]) ＞ \ufffd\ufffd")


def test_a_fault_is_bcdice_apis_500(api: Server) -> None:
    api.dice.load([(3, 6)])  # 2D6 needs two dice: the injected queue runs dry
    answer = api.request("/v2/game_system/DiceBot/roll?command=2D6")
    assert (answer.status, answer.json()) == (500, {"ok": False})
    assert answer.headers["access-control-allow-origin"] == "*"


VECTOR_FILES = sorted(bcdice_dir().glob("*.toml")) if bcdice_dir().is_dir() else []


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.name for p in VECTOR_FILES])
def test_every_bcdice_vector_through_the_api(api: Server, path: Path) -> None:
    """BCDice's own vectors, asked of the API: its text and flags, or its 400, and a client
    reading command_pattern takes every line BCDice answers for a command."""
    cases: list[Case] = load_cases(path)
    assert cases
    patterns = {
        system: re.compile(source, re.IGNORECASE) for system, source in BCDICE_COMMAND_PATTERNS.items()
    }
    for index, case in enumerate(cases):
        dice = [(die.value, die.sides) for die in case.rands]
        answer = api.roll(case.game_system, case.input, dice, post=index % 2 == 1)
        if not case.output:
            assert_error(answer, UNSUPPORTED_COMMAND)
            continue
        assert answer.status == 200, (case.input, answer.body)
        body = assert_fields(answer.json(), ROLL_FIELDS)
        assert body["text"] == case.output, case.input
        assert {name: body[name] for name in case.flags} == case.flags, case.input
        # a normal die is the face the source gave
        given = [(sides, value) for value, sides in dice]
        rands: list[dict[str, Any]] = answer.json()["rands"]
        for position, rand in enumerate(rands):
            if rand["kind"] == "normal":
                assert (rand["sides"], rand["value"]) == given[position], case.input
        assert patterns[case.game_system].match(case.input), case.input


# -- determinism and the source ------------------------------------------------------------


def test_a_seeded_server_answers_the_same_for_the_same_requests() -> None:
    lines = ["2D6", "CC(2)<=50", "x3 1D100", "FAR(20,60,98)"]
    answers = []
    for _ in range(2):
        source = SeededSource(7)
        with serving(bcdice_api_app(source), lifespan="off") as base:
            server = Server(base, InjectedDice())
            path = "/v2/game_system/Cthulhu7th/roll?command="
            answers.append([server.request(path + urllib.parse.quote(line)).body for line in lines])
        # each answer carries its dice: the server keeps no history of them
        assert source.history == []
    assert answers[0] == answers[1]
    assert len({answer for answer in answers[0]}) == len(lines)


# -- /v1 -------------------------------------------------------------------------------------


def test_v1_diceroll_is_the_docs_example(api: Server) -> None:
    api.dice.load([(8, 10), (2, 10), (1, 10), (9, 10)])
    answer = api.request("/v1/diceroll?system=Cthulhu&command=4d10%3E%3D15")
    assert answer.status == 200
    assert_bcdice_headers(answer)
    assert_fields(answer.json(), V1_ROLL_FIELDS)
    assert answer.json() == V1_DOCS_ROLL_EXAMPLE


def test_v1_diceroll_tells_tens_dice_apart(api: Server) -> None:
    api.dice.load([(3, 10), (4, 10)])
    body = api.request("/v1/diceroll?system=Cthulhu7th&command=CC%3C%3D50").json()
    assert isinstance(body, dict)
    for die in body["dices"]:
        assert_fields(die, V1_DIE_FIELDS)
    assert body["dices"] == [{"faces": 10, "value": 3}, {"faces": 10, "value": 4}]
    assert [r["kind"] for r in body["detailed_rands"]] == ["tens_d10", "normal"]


def test_v1_lists_and_errors(api: Server) -> None:
    assert api.request("/v1/version").json() == {"api": "2.1.1", "bcdice": "3.16.1"}
    assert api.request("/v1/systems").json() == {"systems": sorted(SYSTEMS_BY_ID)}
    names = api.request("/v1/names").json()
    assert names == {"names": [{"system": i, "name": n, "sort_key": k} for i, n, k in BCDICE_SYSTEMS]}
    info = api.request("/v1/systeminfo?system=TheOneRing2nd").json()
    assert isinstance(info, dict) and list(info) == ["ok", "systeminfo"]
    assert assert_fields(info["systeminfo"], V1_SYSTEMINFO_FIELDS)["prefixs"] == [r"\d+RG", "FD"]
    unsupported = (400, {"ok": False, "reason": "unsupported dicebot"})
    assert_error(api.request("/v1/systeminfo?system=Hoge"), unsupported)
    assert_error(api.request("/v1/diceroll?system=Hoge&command=1D6"), unsupported)
    assert_error(api.request("/v1/diceroll?system=DiceBot"), UNSUPPORTED_COMMAND)
    assert_error(api.request("/v1/diceroll?system=DiceBot&command=a"), UNSUPPORTED_COMMAND)
    assert_error(api.request("/v1/nothing"), NOT_FOUND)
