"""A scripted P1 for ``gm serve`` over HTTP (the standard library's client, 127.0.0.1 only):
the durability tests and benchmarks/bench_serve.py drive tables with it.

It plays as a plain player: the first choice offered, else a pass (the last button of a
free-text question), else a greeting. The answer is a function of the question alone, so
a game driven by it is the same game wherever it is interrupted and resumed.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HTTPFailure", "ServeClient", "TableSeat", "scripted_answer", "server_timing"]


class HTTPFailure(RuntimeError):
    """The server answered with an error status (or not at all)."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


def scripted_answer(question: dict[str, Any]) -> str:
    """The scripted player's answer to ``question`` (a view's ``question``)."""
    buttons = question["buttons"]
    if not question["free_text"]:
        return str(buttons[0]["send"])
    if buttons:
        return str(buttons[-1]["send"])
    return "次へ"


def server_timing(header: str) -> dict[str, float]:
    """A ``Server-Timing`` header's phases: name → seconds (a phase without a duration is left out)."""
    phases: dict[str, float] = {}
    for part in header.split(","):
        name, _, rest = part.strip().partition(";")
        for parameter in rest.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key == "dur" and name:
                try:
                    phases[name] = float(value) / 1000
                except ValueError:
                    continue
    return phases


@dataclass
class ServeClient:
    """Requests to one ``gm serve`` at ``base`` (``http://127.0.0.1:PORT``)."""

    base: str
    timeout: float = 60.0

    def request(
        self, method: str, path: str, body: object | None = None, token: str | None = None
    ) -> tuple[int, bytes]:
        """One request; the status and the body (an error status is returned, not raised;
        a refused connection is status 0)."""
        status, data, _headers = self.exchange(method, path, body, token)
        return status, data

    def exchange(
        self, method: str, path: str, body: object | None = None, token: str | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        """One request, as :meth:`request`, with the response's headers (names lower-case):
        every request of this client goes through here (a subclass routing requests, such as
        a test's load balancer, overrides this)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(f"{self.base}{path}", data=data, method=method)
        if data is not None:
            request.add_header("content-type", "application/json")
        if token is not None:
            request.add_header("authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status: int = response.status
                headers = {name.lower(): value for name, value in response.headers.items()}
                return status, response.read(), headers
        except urllib.error.HTTPError as error:
            return error.code, error.read(), {}
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as error:
            return 0, str(error).encode(), {}  # (a reply cut short: the server died while sending it)

    def json(self, method: str, path: str, body: object | None = None, token: str | None = None) -> Any:
        """One request whose success is JSON.

        Raises:
            HTTPFailure: any other status.
        """
        status, data = self.request(method, path, body, token)
        if status != 200:
            raise HTTPFailure(status, data.decode("utf-8", "replace"))
        return json.loads(data)

    def create_table(self, config: dict[str, Any]) -> TableSeat:
        """Open a table with ``config``; P1's seat at it."""
        created = self.json("POST", "/api/tables", {"config": config})
        return TableSeat(table_id=str(created["table_id"]), token=str(created["token"]))


@dataclass
class TableSeat:
    """P1 at one table: what it saw (``lines``, rebuilt whenever the table is resumed under a
    new epoch), and the answers it sent."""

    table_id: str
    token: str
    lines: list[str] = field(default_factory=list)
    epoch: int | None = None
    answers: int = 0
    answer_seconds: list[float] = field(default_factory=list)
    """Wall-clock seconds from sending each answer to the server's reply (it replies once
    the session took the answer and recorded it)."""
    server_timings: list[dict[str, float]] = field(default_factory=list)
    """Each answer's ``Server-Timing`` phases, in seconds (see :func:`server_timing`)."""

    def view(self, client: ServeClient) -> dict[str, Any] | None:
        """The seat's view, its new lines added to :attr:`lines`; None while no server drives
        the table (503: it is being resumed or taken over) or the server is down."""
        status, data = client.request(
            "GET", f"/api/tables/{self.table_id}/view?after={len(self.lines)}", token=self.token
        )
        if status in (0, 503):
            return None
        if status != 200:
            raise HTTPFailure(status, data.decode("utf-8", "replace"))
        view: dict[str, Any] = json.loads(data)
        if view["epoch"] != self.epoch:  # driven anew: its screen starts again from the first line
            self.epoch = view["epoch"]
            self.lines = []
            if view["from"] != 0:
                return self.view(client)
        self.lines.extend(view["lines"])
        return view

    def wait_question(self, client: ServeClient, timeout: float = 120.0) -> dict[str, Any]:
        """The view once a question is asked or the table is over."""
        deadline = time.monotonic() + timeout
        while True:
            view = self.view(client)
            if view is not None and (
                view["question"] is not None or view["status"] not in ("starting", "running")
            ):
                return view
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"table {self.table_id}: no question within {timeout} s (last view {view})"
                )
            time.sleep(0.02)

    def answer(self, client: ServeClient, question: dict[str, Any]) -> str:
        """Send the scripted answer to ``question``; the reply's status (``taken``, ``asked``,
        ``ended``, ``recorded``), or ``refused`` when the table was not asking (it moved on)."""
        started = time.perf_counter()
        status, data, headers = client.exchange(
            "POST", f"/api/tables/{self.table_id}/answer", {"text": scripted_answer(question)}, self.token
        )
        if status == 409:
            return "refused"
        if status != 200:
            raise HTTPFailure(status, data.decode("utf-8", "replace"))
        self.answer_seconds.append(time.perf_counter() - started)
        self.server_timings.append(server_timing(headers.get("server-timing", "")))
        self.answers += 1
        return str(json.loads(data)["status"])

    def play(self, client: ServeClient, answers: int | None = None, timeout: float = 120.0) -> dict[str, Any]:
        """Answer until the table is over (or ``answers`` more answers were sent); the last view."""
        sent = 0
        while answers is None or sent < answers:
            view = self.wait_question(client, timeout)
            if view["status"] not in ("starting", "running"):
                return view
            if self.answer(client, view["question"]) != "refused":
                sent += 1
        return self.wait_question(client, timeout)
