"""A small fake Chat Completions server on 127.0.0.1, for tests and benchmarks.

It listens on a free port in a background thread (stdlib ``http.server``), answers
``POST /v1/chat/completions`` from a script of :class:`FakeReply` (or from a
``responder`` function when the script is empty), and records every request it got::

    with FakeChatServer([FakeReply.error(429, retry_after=0.01),
                         FakeReply.tool_calls(("vote", {"target": "P3"}))]) as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k")
        ...
        assert server.requests[1].body["tools"][0]["function"]["name"] == "vote"

Replies can be text, tool calls (arguments as a dict or as raw, possibly broken, JSON
text), an error status with optional ``Retry-After``, or a malformed 200 answer
(:meth:`FakeReply.malformed`: each kind of :data:`MALFORMED_KINDS`); ``latency_s`` makes
every answer leave that long after its request arrived (the server's own work
included), and a reply's ``trickle_s`` sends its body a piece at a time spread over
that many seconds (each piece soon enough for a per-read timeout, the whole late). A
request with nothing left to answer it gets a 400 whose message says so (a 4xx, so
clients do not retry it), and is counted in :attr:`FakeChatServer.unexpected`.

Real servers' quirks
--------------------
``quirks`` (each of :data:`QUIRKS`) make the server behave like a real one that has it;
:meth:`FakeChatServer.with_quirks` also answers from :func:`tool_model`, a fake model that
acts on the tools it is offered, so that a whole session (or ``gm doctor``'s probes) meets
the quirk:

=========================  =====================================================================
quirk                      what the server (or its model) does
=========================  =====================================================================
``needs_jinja``            llama.cpp without ``--jinja``: 500 "tools param requires --jinja flag"
``drops_tools``            a chat template without tool support: ``tools`` dropped silently (200,
                           plain text, ``finish_reason`` stop)
``text_before_call``       llama.cpp: free text comes before the call, even under ``required``
``ignores_tool_choice``    Ollama: ``tool_choice`` ignored (the model answers as under ``auto``)
``empty_on_required``      LM Studio: ``required`` answered with an empty reply
``rejects_named_choice``   LM Studio: 400 on a ``tool_choice`` naming a function (an object)
``loose_without_strict``   vLLM: an argument schema is enforced only on a ``strict`` tool
``parallel_by_default``    llama.cpp: several calls unless ``parallel_tool_calls`` is sent False
``calls_in_content``       the model writes its call in the text (``<tool_call>{…}</tool_call>``)
``calls_in_code_block``    the model writes its call in the text as a JSON code block
                           (```` ```json {"name": …, "arguments": …} ``` ````)
``pads_strings``           every free string argument (one without an enum) starts with a space,
                           as a grammar built from a schema without a pattern may write it
=========================  =====================================================================

``api_key`` (401 for another key), ``models`` (404 for a model not listed) and
``context_length`` (400 for a longer prompt, counted at four characters a token; reported
by ``GET /v1/models``) make the other configuration errors; ``slots`` makes ``GET /props``
answer as llama.cpp's does (its slots, and its context length).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, get_args

JsonDict = dict[str, Any]

#: The malformed 200 answers :meth:`FakeReply.malformed` makes: ``no_choices`` (an empty
#: ``choices`` list), ``html`` (a proxy's HTML error page, as text/html), ``not_json``
#: (JSON cut off midway), ``not_object`` (a JSON list), ``error_object`` (an error in
#: OpenAI's shape, but with status 200), ``wrong_shape`` (a choice whose message is a
#: string), ``nameless_tool`` (a tool call whose function has no name), ``empty`` (no body).
MalformedKind = Literal[
    "no_choices", "html", "not_json", "not_object", "error_object", "wrong_shape", "nameless_tool", "empty"
]
MALFORMED_KINDS: tuple[MalformedKind, ...] = get_args(MalformedKind)


#: The quirks of real servers the fake server can have (see the module docstring).
Quirk = Literal[
    "needs_jinja",
    "drops_tools",
    "text_before_call",
    "ignores_tool_choice",
    "empty_on_required",
    "rejects_named_choice",
    "loose_without_strict",
    "parallel_by_default",
    "calls_in_content",
    "calls_in_code_block",
    "pads_strings",
]
QUIRKS: tuple[Quirk, ...] = get_args(Quirk)

#: How many pieces a trickled body is sent in.
TRICKLE_PIECES = 20


@dataclass(frozen=True)
class FakeReply:
    """One scripted HTTP answer."""

    status: int = 200
    body: JsonDict | str = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str = "application/json"
    #: Send the body in :data:`TRICKLE_PIECES` pieces spread over this many seconds.
    trickle_s: float = 0.0

    def trickled(self, seconds: float) -> FakeReply:
        """This reply with its body sent a piece at a time over ``seconds``."""
        return replace(self, trickle_s=seconds)

    @classmethod
    def malformed(cls, kind: MalformedKind) -> FakeReply:
        """A 200 answer that is not a chat completion (see :data:`MALFORMED_KINDS`)."""
        assistant = {"role": "assistant", "content": "hello"}
        if kind == "no_choices":
            return cls(body={**_completion(assistant, "stop", (11, 7), "fake"), "choices": []})
        if kind == "html":
            page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>"
            return cls(body=page, content_type="text/html")
        if kind == "not_json":
            return cls(body=json.dumps(_completion(assistant, "stop", (11, 7), "fake"))[:40])
        if kind == "not_object":
            return cls(body=json.dumps([_completion(assistant, "stop", (11, 7), "fake")]))
        if kind == "error_object":
            return cls(body={"error": {"message": "upstream model crashed", "type": "server_error"}})
        if kind == "wrong_shape":
            return cls(body={**_completion(assistant, "stop", (11, 7), "fake"),
                             "choices": [{"index": 0, "message": "hello"}]})
        if kind == "nameless_tool":
            message = {"role": "assistant", "content": None,
                       "tool_calls": [{"id": "call_0", "type": "function", "function": {"arguments": "{}"}}]}
            return cls(body=_completion(message, "tool_calls", (11, 7), "fake"))
        if kind == "empty":
            return cls(body="")
        raise ValueError(f"unknown malformed kind {kind!r}; known: {', '.join(MALFORMED_KINDS)}")

    @classmethod
    def text(cls, content: str, *, usage: tuple[int, int] | None = (11, 7), model: str = "fake") -> FakeReply:
        """A plain assistant message; ``usage`` is (prompt, completion) tokens, or None to omit it."""
        return cls(body=_completion({"role": "assistant", "content": content}, "stop", usage, model))

    @classmethod
    def tool_calls(
        cls,
        *calls: tuple[str, Mapping[str, Any] | str],
        content: str | None = None,
        usage: tuple[int, int] | None = (11, 7),
        model: str = "fake",
    ) -> FakeReply:
        """An assistant message with tool calls; a string argument is sent verbatim (e.g. broken JSON)."""
        tool_calls = [
            {
                "id": f"call_{i}_{name}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(dict(args)),
                },
            }
            for i, (name, args) in enumerate(calls)
        ]
        message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
        return cls(body=_completion(message, "tool_calls", usage, model))

    @classmethod
    def error(
        cls, status: int, message: str = "fake error", *, retry_after: float | None = None
    ) -> FakeReply:
        """An error answer in OpenAI's error shape, with ``Retry-After`` when given."""
        headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
        body = {"error": {"message": message, "type": "fake_error", "code": str(status)}}
        return cls(status=status, body=body, headers=headers)


def _completion(message: JsonDict, finish: str, usage: tuple[int, int] | None, model: str) -> JsonDict:
    body: JsonDict = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return body


@dataclass(frozen=True)
class RecordedRequest:
    """A request the fake server received (header names in lower case)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: JsonDict


Responder = Callable[[JsonDict], FakeReply]

#: What a fake model calls given the tools it knows (OpenAI function entries, or
#: ``name``/``parameters`` dicts): ``(tool name, arguments)`` pairs.
Chooser = Callable[[list[JsonDict]], list[tuple[str, dict[str, Any]]]]


class _QuietServer(ThreadingHTTPServer):
    """A client hanging up mid-request (a cancelled call, a session stopping) is normal
    here, not an error to print on the test's stderr; anything else is still reported."""

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class FakeChatServer:
    """The fake server; use it as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(
        self,
        replies: Iterable[FakeReply] = (),
        *,
        responder: Responder | None = None,
        latency_s: float = 0.0,
        quirks: Iterable[Quirk] = (),
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        context_length: int | None = None,
        slots: int | None = None,
    ) -> None:
        self.quirks = frozenset(quirks)
        unknown = self.quirks - set(QUIRKS)
        if unknown:
            raise ValueError(f"unknown quirk {sorted(unknown)[0]!r}; known: {', '.join(QUIRKS)}")
        self.api_key = api_key
        self.models = tuple(models) if models is not None else None
        self.context_length = context_length
        self.slots = slots
        self._replies: list[FakeReply] = list(replies)
        self._lock = threading.Lock()
        self.responder = responder
        self.latency_s = latency_s
        self.requests: list[RecordedRequest] = []
        self.unexpected = 0
        #: Requests being answered right now, and the most there ever were at once.
        self.in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def with_quirks(cls, *quirks: Quirk, calls: Chooser | None = None, **options: Any) -> FakeChatServer:
        """A server with ``quirks`` whose answers come from :func:`tool_model` (``calls``: its
        choice of calls; ``options``: the other keyword arguments of the constructor)."""
        return cls(responder=tool_model(quirks, calls=calls), quirks=quirks, **options)

    def add(self, *replies: FakeReply) -> None:
        """Append replies to the script."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def leftovers(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._replies)

    @property
    def port(self) -> int:
        """The port the server listens on (after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("the fake server is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The base URL to give an OpenAI client: ``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeChatServer:
        """Listen on a free port of 127.0.0.1 in a daemon thread."""
        server = _QuietServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-chat-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _answer(self, method: str, path: str, headers: Mapping[str, str], raw: bytes) -> FakeReply:
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = {"_unreadable": raw.decode("utf-8", "replace")}
        if not isinstance(body, dict):
            body = {"_body": body}
        with self._lock:
            lowered = {k.lower(): v for k, v in headers.items()}
            self.requests.append(RecordedRequest(method, path, lowered, body))
            refusal = self._refusal(method, path, lowered, body)
            if refusal is not None:
                return refusal
            if method == "GET" and path.rstrip("/").endswith("/models"):
                listed = [self._model_entry(m) for m in self._listed()]
                return FakeReply(body={"object": "list", "data": listed})
            if method == "GET" and path.rstrip("/") == "/props" and self.slots is not None:
                # llama.cpp's server properties, beside /v1
                settings = {"n_ctx": self.context_length} if self.context_length is not None else {}
                return FakeReply(body={"default_generation_settings": settings, "total_slots": self.slots})
            if not path.rstrip("/").endswith("/chat/completions"):
                return FakeReply.error(404, f"fake server: no route {method} {path}")
            if self._replies:
                return self._replies.pop(0)
            if "drops_tools" in self.quirks:
                dropped = ("tools", "tool_choice", "parallel_tool_calls")
                body = {k: v for k, v in body.items() if k not in dropped}
            if "ignores_tool_choice" in self.quirks:
                body = {k: v for k, v in body.items() if k != "tool_choice"}
        if self.responder is not None:
            return self.responder(body)
        with self._lock:
            self.unexpected += 1
        return FakeReply.error(400, "fake server: no scripted reply left for this request")


    def _listed(self) -> tuple[str, ...]:
        return self.models if self.models is not None else ("fake",)

    def _model_entry(self, name: str) -> JsonDict:
        entry: JsonDict = {"id": name, "object": "model"}
        if self.context_length is not None:
            entry["max_model_len"] = self.context_length  # as vLLM says it
            entry["meta"] = {"n_ctx_train": self.context_length}  # as llama.cpp says it
        return entry

    def _refusal(
        self, method: str, path: str, headers: Mapping[str, str], body: JsonDict
    ) -> FakeReply | None:
        """The configuration error this server answers ``body`` with, if any."""
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return FakeReply.error(401, "Invalid API Key")
        if method != "POST":
            return None
        model = body.get("model")
        if self.models is not None and model not in self.models:
            return FakeReply.error(404, f"model '{model}' not found")
        if "needs_jinja" in self.quirks and body.get("tools"):
            return FakeReply.error(500, "tools param requires --jinja flag")
        if "rejects_named_choice" in self.quirks and isinstance(body.get("tool_choice"), dict):
            return FakeReply.error(400, "Invalid tool_choice: an object is not supported")
        if self.context_length is not None:
            tokens = len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4
            if tokens > self.context_length:
                return FakeReply.error(
                    400, f"the request exceeds the available context size ({tokens} > {self.context_length} "
                    "tokens), try increasing it"
                )
        return None


def tool_model(quirks: Iterable[Quirk] = (), *, calls: Chooser | None = None) -> Responder:
    """A fake model that acts on the tools it is offered, with the model-side ``quirks``.

    Under ``tool_choice`` ``required`` or naming a tool it calls one (the named one, else
    the first; with ``text_before_call`` after some text); under ``auto`` (or when the
    choice is ignored) it talks on its first answer and calls a tool once it is told again
    (a user message starting ``[engine]`` after its text). Arguments are the first value
    each schema allows (a value outside an enum with ``loose_without_strict`` on a tool
    that is not strict); with ``parallel_by_default`` it calls twice unless
    ``parallel_tool_calls`` is False; with ``calls_in_content`` the calls are written as
    ``<tool_call>`` text, with ``calls_in_code_block`` as a JSON code block; with
    ``pads_strings`` each free string argument starts with a space. Offered no
    tools, it talks, unless a re-ask describes tools as JSON lines (``{"name": …,
    "parameters": …}``): then it writes a call to the first.
    ``calls``, when given, chooses the calls instead (the quirks still apply to them).
    """
    chosen_quirks = frozenset(quirks)

    def answer(body: JsonDict) -> FakeReply:
        tools = [t.get("function", {}) for t in body.get("tools") or [] if isinstance(t, dict)]
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        last = messages[-1] if messages else {}
        told_again = last.get("role") == "user" and str(last.get("content") or "").startswith("[engine]")
        refused = sum(1 for m in messages if m.get("role") == "tool")
        usage = (len(json.dumps(messages, ensure_ascii=False)) // 4, 9)
        if not tools:
            described = _described_tools(str(last.get("content") or "")) if told_again else []
            if described:
                name, arguments = (
                    calls(described)[0] if calls is not None
                    else (described[0]["name"], _example(described[0]["parameters"], 0))
                )
                call = {"name": name, "arguments": arguments}
                written = json.dumps(call, ensure_ascii=False)
                return FakeReply.text(f"<tool_call>{written}</tool_call>", usage=usage)
            return FakeReply.text("はい、わかりました。", usage=usage)
        choice = body.get("tool_choice", "auto")
        if isinstance(choice, dict):
            name = choice.get("function", {}).get("name")
            picked = next((t for t in tools if t.get("name") == name), tools[0])
        elif choice == "required":
            if "empty_on_required" in chosen_quirks:
                return FakeReply.text("", usage=usage)
            picked = tools[refused % len(tools)]
        elif choice == "none" or not told_again:
            return FakeReply.text("まずは様子を見ます。", usage=usage)
        else:
            picked = tools[refused % len(tools)]
        loose = "loose_without_strict" in chosen_quirks and picked.get("strict") is not True
        several = "parallel_by_default" in chosen_quirks and body.get("parallel_tool_calls") is not False
        count = 2 if several else 1
        made = [
            (str(picked.get("name")), _example(picked.get("parameters") or {}, refused + i, loose=loose))
            for i in range(count)
        ]
        if calls is not None:
            made = calls(tools if isinstance(choice, str) else [picked]) * count
        if "pads_strings" in chosen_quirks:
            schemas = {str(t.get("name")): t.get("parameters") or {} for t in tools}
            made = [(n, _padded(a, schemas.get(n, {}))) for n, a in made]
        text = "考えてから決めます。" if "text_before_call" in chosen_quirks else None
        if "calls_in_code_block" in chosen_quirks:
            listed = [{"name": n, "arguments": a} for n, a in made]
            block = json.dumps(listed[0] if len(listed) == 1 else listed, ensure_ascii=False, indent=2)
            return FakeReply.text((text or "") + f"\n```json\n{block}\n```\n", usage=usage)
        if "calls_in_content" in chosen_quirks:
            written = "".join(
                f"<tool_call>{json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}</tool_call>"
                for n, a in made
            )
            return FakeReply.text((text or "") + written, usage=usage)
        return FakeReply.tool_calls(*made, content=text, usage=usage)

    return answer


def _padded(arguments: dict[str, Any], schema: Any) -> dict[str, Any]:
    """``arguments`` with a space before each string whose property has no enum."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return arguments
    out = dict(arguments)
    for name, value in arguments.items():
        sub = properties.get(name)
        options = [sub, *(sub.get("anyOf") or [])] if isinstance(sub, dict) else []
        if isinstance(value, str) and not any(isinstance(o, dict) and "enum" in o for o in options):
            out[name] = " " + value
    return out


def _described_tools(text: str) -> list[JsonDict]:
    found: list[JsonDict] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("name"), str) and isinstance(
            value.get("parameters"), dict
        ):
            found.append(value)
    return found


def _example(schema: Any, k: int, *, loose: bool = False) -> Any:
    """A value ``schema`` allows (the ``k``-th of an enum), or with ``loose`` one its enum does not."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        values = schema["enum"]
        return f"not-{values[0]}" if loose else values[k % len(values)]
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            return _example(options[0], k, loose=loose)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {name: _example(sub, k, loose=loose) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        size = min(max(1, int(schema.get("minItems", 1))), int(schema.get("maxItems", 1)))
        return [_example(schema.get("items") or {}, k + i, loose=loose) for i in range(size)]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    low, high = int(schema.get("minLength", 1)), int(schema.get("maxLength", 8))
    return "あ" * max(1, min(low, high)) if low <= high else ""


def _make_handler(server: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # one buffered write per answer, and no Nagle: else a keep-alive client waits ~40 ms
        # for the delayed ACK between the headers and the body
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        received = 0.0

        def parse_request(self) -> bool:
            # the request line has just been read: the call's latency starts here
            self.received = time.perf_counter()
            return super().parse_request()

        def _handle(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            received = self.received
            with server._lock:
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                self._reply(server._answer(method, self.path, dict(self.headers.items()), raw), received)
            finally:
                with server._lock:
                    server.in_flight -= 1

        def _reply(self, reply: FakeReply, received: float) -> None:
            # the latency runs from the request's arrival: the server's own work (parsing,
            # the responder) is part of it, so every call costs the same fixed time however
            # many arrive at once and however slow the responder is
            delay = server.latency_s + reply.delay_s - (time.perf_counter() - received)
            if delay > 0:
                time.sleep(delay)
            body = reply.body
            payload = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
            data = payload.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(data)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            if reply.trickle_s <= 0:
                self.wfile.write(data)
                return
            self.wfile.flush()  # the headers go now; the body follows piece by piece
            size = max(1, -(-len(data) // TRICKLE_PIECES))
            pieces = [data[i : i + size] for i in range(0, len(data), size)]
            for piece in pieces:
                time.sleep(reply.trickle_s / len(pieces))
                self.wfile.write(piece)
                self.wfile.flush()

        def do_POST(self) -> None:
            self._handle("POST")

        def do_GET(self) -> None:
            self._handle("GET")

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler
