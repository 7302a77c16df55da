"""The Chat Completions backend, through the ``openai`` client: the only module that imports it.

It works with OpenAI and with local OpenAI-compatible servers (Ollama, vLLM,
llama.cpp, LM Studio). What a server supports is read from its
:class:`~gm_engine.llm.profiles.ServerProfile`, never from its name. The client's own
retries are off; transient failures are retried by the one policy of
:mod:`gm_engine.llm.retry`, other errors are raised as
:class:`~gm_engine.llm.base.BackendError` at once, and a refusal that
:func:`~gm_engine.llm.diagnosis.classify_error` recognises as a configuration error (a
500 "tools param requires --jinja flag" among them) as
:class:`~gm_engine.llm.base.ConfigurationError`, whose message says the fix.

A 200 answer is read by :func:`read_completion`, not trusted to be a chat completion: an
empty ``choices`` list, an HTML page, text that is not JSON or JSON of another shape is a
:class:`~gm_engine.llm.base.MalformedAnswerError`, retried like the other transient
failures (and, once retries are spent, played by the turn's fallback).

Every request has a total deadline (``request_deadline``, default twice the per-read
timeout) on top of the client's per-read timeout (``timeout``, default the profile's:
:data:`~gm_engine.llm.profiles.HOSTED_TIMEOUT_S` for a hosted service,
:data:`~gm_engine.llm.profiles.LOCAL_TIMEOUT_S` for a local server): one call,
all its attempts and the waits between them included, never takes longer. The attempts
run inside one ``asyncio.timeout`` of the deadline, and the retry policy does not start
a wait that would end past it; a server trickling its answer past the deadline is cut
off and the call fails with a :class:`~gm_engine.llm.base.TransientBackendError`.

At most ``max_concurrent`` requests go to the server at once (default the profile's; a
CPU server serves one slot at a time): the others wait their turn in the client, and that
wait counts neither against the request's deadline nor its latency (a round of eight
votes on a one-slot server queues instead of timing out). Waiting changes only when a
request is sent, never what is sent or in which order a session records the answers, so
a replay is unaffected.

Configuration (:meth:`OpenAIBackend.from_env`): ``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``GM_MODEL`` (the default model), ``GM_MODELS`` (a model per actor,
``P2=model-a,P3=model-b``), ``GM_LLM_PROFILE`` (the server profile, default ``openai``),
``GM_REQUEST_DEADLINE`` (seconds per request, all attempts included),
``GM_REQUEST_TIMEOUT`` (seconds per read), ``GM_MAX_CONCURRENT`` (requests at once; 0: no
limit).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import weakref
from collections.abc import Mapping
from typing import Any, Literal

import openai
from tenacity import RetryCallState

from gm_engine.llm.base import (
    MAX_ANSWER_TOKENS,
    BackendDefaults,
    BackendError,
    ConfigurationError,
    JsonDict,
    MalformedAnswerError,
    ModelRequest,
    ModelResponse,
    RefusedRequestError,
    ToolCall,
    TransientBackendError,
    Usage,
    bound_answer,
)
from gm_engine.llm.diagnosis import classify_error
from gm_engine.llm.profiles import ServerProfile, get_profile
from gm_engine.llm.retry import (
    DEFAULT_REQUEST_DEADLINE_S,
    SleepFunc,
    WaitFunc,
    parse_concurrency,
    parse_deadline,
    parse_retry_after,
    retry_policy,
)

#: A key sent to servers that need none (local servers), since the client insists on one.
NO_KEY = "sk-no-key-needed"

def build_chat_request(request: ModelRequest, model: str, profile: ServerProfile) -> JsonDict:
    """The keyword arguments of ``chat.completions.create`` for ``request`` on a server with ``profile``.

    ``strict`` is set on a tool only when the server supports it and the tool's schema
    fits the strict subset (or the server takes any schema as strict);
    ``tool_choice="required"`` falls back to ``"auto"`` where it is not supported, and
    ``tool_choice`` is left out where the server ignores it; ``parallel_tool_calls`` is
    sent only where supported, and sent False when the request leaves it open on a
    server that would otherwise answer with several calls.
    """
    body: JsonDict = {
        "model": model,
        "messages": [dict(m) for m in request.messages],
        "max_tokens": MAX_ANSWER_TOKENS,
    }
    if request.tools:
        strict = profile.supports_strict_schema
        body["tools"] = [
            tool.to_openai(strict=strict and (profile.strict_any_schema or tool.strict_compatible))
            for tool in request.tools
        ]
        choice = request.tool_choice
        if choice == "required" and not profile.supports_tool_choice_required:
            choice = "auto"
        if profile.honours_tool_choice:
            body["tool_choice"] = choice
        if profile.supports_parallel_tool_calls:
            parallel = request.parallel_tool_calls
            if parallel is None and profile.parallel_calls_unless_disabled:
                parallel = False
            if parallel is not None:
                body["parallel_tool_calls"] = parallel
    return body


class OpenAIBackend(BackendDefaults):
    """A backend speaking Chat Completions to ``base_url``.

    Args:
        model: the default model.
        models: a model per actor (e.g. one per persona), overriding the default.
        base_url: the server (default: the profile's, else the client's own default).
        api_key: the key (default ``OPENAI_API_KEY``; a placeholder for local servers).
        profile: the server profile or its name.
        timeout: seconds the client waits for each read (connect, send, each chunk
            received); None: the profile's ``default_timeout_s``.
        request_deadline: seconds one call may take in all, every attempt and wait included,
            not counting its wait for a free slot (``"auto"``: twice ``timeout``; None: no
            deadline beyond the per-read timeout and the attempts).
        max_concurrent: requests sent to the server at once (None: the profile's
            ``default_max_concurrent``; 0: no limit).
        max_attempts: attempts per call, counting the first.
        wait, sleep: injectable waiting of the retry policy (tests pass tiny ones).

    Raises:
        BackendError: no key and no base URL, or a timeout, deadline or concurrency that is
            not a positive number.
    """

    name = "openai"

    def __init__(
        self,
        *,
        model: str,
        models: Mapping[str, str] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        profile: ServerProfile | str = "openai",
        timeout: float | None = None,
        request_deadline: float | Literal["auto"] | None = "auto",
        max_concurrent: int | None = None,
        max_attempts: int = 4,
        wait: WaitFunc | None = None,
        sleep: SleepFunc | None = None,
    ) -> None:
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        self.model = model
        self.models = dict(models or {})
        self.base_url = base_url or self.profile.default_base_url
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url is None:
                raise BackendError("no API key: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server")
            key = NO_KEY
        self.api_key = key
        self.timeout = parse_deadline(str(timeout), "the request timeout") if timeout is not None else (
            self.profile.default_timeout_s
        )
        if request_deadline == "auto":
            request_deadline = max(DEFAULT_REQUEST_DEADLINE_S, 2 * self.timeout)
        elif request_deadline is not None:
            parse_deadline(str(request_deadline), "the request deadline")
        self.request_deadline: float | None = request_deadline
        limit = self.profile.default_max_concurrent if max_concurrent is None else max_concurrent
        if limit is not None and (isinstance(limit, bool) or limit < 0):
            raise BackendError(f"the concurrent requests must be 0 (no limit) or more, not {limit!r}")
        #: Requests sent to the server at once (None: no limit).
        self.max_concurrent: int | None = limit or None
        self.max_attempts = max_attempts
        self.wait = wait
        self.sleep = sleep
        #: Retries made so far (attempts beyond the first), for figures.
        self.retries = 0
        #: Seconds requests spent waiting for a free slot, in all, for figures.
        self.queued_s = 0.0
        # an AsyncOpenAI client's connection pool, like a semaphore, belongs to one event loop
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def from_env(
        cls, *, model: str | None = None, profile: str | None = None, **kwargs: Any
    ) -> OpenAIBackend:
        """A backend configured from the environment (see the module docstring); keyword
        arguments given (not None) win over the environment.

        Raises:
            BackendError: no model name is given nor in ``GM_MODEL``, no key nor base URL,
                or ``GM_REQUEST_DEADLINE``, ``GM_REQUEST_TIMEOUT`` or ``GM_MAX_CONCURRENT``
                is not a number of the right kind.
        """
        name = model or os.environ.get("GM_MODEL") or os.environ.get("OPENAI_MODEL")
        if not name:
            raise BackendError("no model name: pass --model or set GM_MODEL")
        if "models" not in kwargs or kwargs["models"] is None:
            kwargs["models"] = parse_models(os.environ.get("GM_MODELS", ""))
        if kwargs.get("request_deadline") is None:
            kwargs.pop("request_deadline", None)
            deadline = os.environ.get("GM_REQUEST_DEADLINE", "").strip()
            if deadline:
                kwargs["request_deadline"] = parse_deadline(deadline)
        if kwargs.get("timeout") is None:
            kwargs.pop("timeout", None)
            timeout = os.environ.get("GM_REQUEST_TIMEOUT", "").strip()
            if timeout:
                kwargs["timeout"] = parse_deadline(timeout, "GM_REQUEST_TIMEOUT")
        if kwargs.get("max_concurrent") is None:
            kwargs.pop("max_concurrent", None)
            concurrent = os.environ.get("GM_MAX_CONCURRENT", "").strip()
            if concurrent:
                kwargs["max_concurrent"] = parse_concurrency(concurrent, "GM_MAX_CONCURRENT")
        return cls(
            model=name,
            base_url=os.environ.get("OPENAI_BASE_URL") or None,
            api_key=os.environ.get("OPENAI_API_KEY") or None,
            profile=profile or os.environ.get("GM_LLM_PROFILE") or "openai",
            **kwargs,
        )

    def model_for(self, request: ModelRequest) -> str:
        """The model a request goes to: its own, else its actor's, else the default."""
        return request.model or self.models.get(request.actor) or self.model

    def _client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = openai.AsyncOpenAI(
                api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
            self._clients[loop] = client
        return client

    def prepare(self) -> None:
        """Create the client of the running event loop now rather than at the first call
        (its HTTP transport and TLS context take tens of milliseconds to set up)."""
        self._client()

    async def aclose(self) -> None:
        """Close the client of the running event loop."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        """Send one request, retrying transient failures, within the request deadline.

        Raises:
            MalformedAnswerError: the last attempt's 200 answer was not a chat completion.
            TransientBackendError: still failing after the last attempt, or no complete
                answer within the request deadline.
            ConfigurationError: the server is not set up for the request (no ``--jinja``,
                no such model, a refused key, a prompt past its context), not retried.
            BackendError: another non-transient error (e.g. 400, 422), not retried.
        """
        body = build_chat_request(request, self.model_for(request), self.profile)
        slots = self._slot()
        if slots is None:
            return await self._complete(request, body)
        queued = time.perf_counter()
        async with slots:
            # the wait for a free slot is the client's queue, not the server's work: it counts
            # neither against the deadline nor in the latency
            self.queued_s += time.perf_counter() - queued
            return await self._complete(request, body)

    def _slot(self) -> asyncio.Semaphore | None:
        if self.max_concurrent is None:
            return None
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = asyncio.Semaphore(self.max_concurrent)
            self._slots[loop] = slots
        return slots

    async def _complete(self, request: ModelRequest, body: JsonDict) -> ModelResponse:
        def count(state: RetryCallState) -> None:
            self.retries += 1

        started = time.perf_counter()
        policy = retry_policy(
            max_attempts=self.max_attempts,
            wait=self.wait,
            sleep=self.sleep,
            on_retry=count,
            deadline_s=self.request_deadline,
        )
        response: ModelResponse | None = None
        attempts = 0
        limit = asyncio.timeout(self.request_deadline)
        try:
            async with limit:
                async for attempt in policy:
                    with attempt:
                        attempts += 1
                        raw = await self._send(body)
                        response = _to_response(request, raw, time.perf_counter() - started)
        except TimeoutError:
            if not limit.expired():
                raise
            raise TransientBackendError(
                f"no complete answer within the request deadline of {self.request_deadline:g} s "
                f"({attempts} attempt{'s' if attempts != 1 else ''})"
            ) from None
        assert response is not None  # the policy re-raises the last error when it gives up
        return response

    async def send_once(self, body: JsonDict) -> tuple[bytes, float]:
        """Post ``body`` (a Chat Completions request in its wire form, e.g. one of ``gm
        doctor``'s probes) once: no retry, no slot, no deadline beyond the per-read timeout.
        Returns the raw answer and its latency in seconds.

        Raises:
            ConfigurationError, TransientBackendError, BackendError: as :meth:`complete`
                (without retrying anything).
        """
        started = time.perf_counter()
        raw = await self._send(body)
        return raw, time.perf_counter() - started

    async def list_models(self) -> object:
        """The server's answer to ``GET /models`` as JSON (None when it is not JSON).

        Raises:
            ConfigurationError, TransientBackendError, BackendError: as :meth:`send_once`.
        """
        return await self.get_json("/models")

    async def get_json(self, path: str) -> object:
        """The server's answer to ``GET path`` as JSON (None when it is not JSON); ``path`` is
        under the base URL, or a whole URL (llama.cpp's ``/props`` is beside ``/v1``).

        Raises:
            ConfigurationError, TransientBackendError, BackendError: as :meth:`send_once`.
        """
        raw = await self._request("get", path, None)
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None

    async def _send(self, body: JsonDict) -> bytes:
        return await self._request("post", "/chat/completions", body)

    async def _request(self, method: str, path: str, body: JsonDict | None) -> bytes:
        try:
            # the body is already in the wire form (build_chat_request), so it is posted as it
            # is: ``chat.completions.create`` would walk it again against the client's typed
            # parameters (about 1 ms per call of CPU, paid one call after another in a
            # concurrent round) only to send the same JSON. The answer comes back as bytes:
            # read_completion checks its shape rather than trusting the client's lenient models.
            raw: bytes
            if method == "get":
                raw = await self._client().get(path, cast_to=bytes, options=_POST_OPTIONS)
            else:
                raw = await self._client().post(path, body=body, cast_to=bytes, options=_POST_OPTIONS)
            return raw
        except openai.RateLimitError as exc:
            raise TransientBackendError(
                f"rate limited (429): {_message(exc)}",
                retry_after=parse_retry_after(exc.response.headers),
                status=429,
            ) from exc
        except openai.APITimeoutError as exc:
            raise TransientBackendError(f"timed out: {exc}") from exc
        except openai.APIConnectionError as exc:
            raise TransientBackendError(f"connection failed: {exc}") from exc
        except openai.APIStatusError as exc:
            model = str(body.get("model")) if body is not None else None
            problem = classify_error(exc.status_code, _message(exc), model=model)
            if problem is not None:
                raise ConfigurationError(
                    f"{problem.explanation} (the server said {exc.status_code}: {_message(exc)[:200]})",
                    kind=problem.kind,
                    status=exc.status_code,
                    model=model,
                ) from exc
            if exc.status_code >= 500:
                raise TransientBackendError(
                    f"server error ({exc.status_code}): {_message(exc)}",
                    retry_after=parse_retry_after(exc.response.headers),
                    status=exc.status_code,
                ) from exc
            said = _message(exc)
            raise RefusedRequestError(
                f"request refused ({exc.status_code}): {said}", status=exc.status_code, said=said[:200]
            ) from exc
        except openai.OpenAIError as exc:
            raise BackendError(f"the openai client failed: {exc}") from exc



#: What ``chat.completions.create`` adds to its request: the bearer key.
_POST_OPTIONS: openai.RequestOptions = {"security": {"bearer_auth": True}}


def parse_models(text: str) -> dict[str, str]:
    """A model per actor from ``"P2=model-a,P3=model-b"`` (the ``GM_MODELS`` variable).

    Raises:
        BackendError: an entry is not ``actor=model``.
    """
    models: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        actor, equals, model = (piece.strip() for piece in entry.partition("="))
        if not equals or not actor or not model:
            raise BackendError(f"bad GM_MODELS entry {entry!r}: write actor=model, e.g. P2=llama3.1")
        models[actor] = model
    return models


def _message(exc: openai.APIStatusError) -> str:
    return server_words(exc)


def server_words(exc: openai.APIStatusError) -> str:
    """What the server said in its error answer (its ``error.message``, else the client's
    text of the error): the words a player is shown beside the catalogue's sentence."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and "message" in inner:
            return str(inner["message"])
        if "message" in body:
            return str(body["message"])
    return str(exc)


def _to_response(request: ModelRequest, raw: bytes, latency: float) -> ModelResponse:
    # a server that reports no usage leaves it to the ledger, whose estimate counts Japanese
    # text as the server's tokenizer does (the four characters a token here would be far low)
    content, calls, usage = read_completion(raw)
    return bound_answer(ModelResponse(content=content, tool_calls=calls, usage=usage, latency_s=latency))


def read_completion(raw: bytes) -> tuple[str | None, tuple[ToolCall, ...], Usage | None]:
    """The first choice of a Chat Completions answer: its text, its tool calls and the
    usage the server reported (None when it reported none, or none readable).

    Tool call arguments sent as a JSON object rather than as text (some local servers
    do) are turned into text; a tool call without a ``function`` is skipped. A lone
    surrogate (a ``\\ud800`` escape without its pair: valid JSON, not text) becomes
    U+FFFD, as undecodable bytes would: such a string could be neither shown nor recorded.

    Raises:
        ConfigurationError: ``raw`` is an error object naming a configuration error (see
            :mod:`gm_engine.llm.diagnosis`).
        MalformedAnswerError: ``raw`` is not JSON, not an object, another error object, has
            no choices, or a choice, message, content or tool call of another shape.
    """
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MalformedAnswerError(f"the server's answer is not JSON: {_excerpt(raw)}") from None
    if not isinstance(data, dict):
        raise MalformedAnswerError(f"the server's answer is JSON but not an object: {_excerpt(raw)}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            problem = classify_error(None, error["message"])
            if problem is not None:  # some servers put a configuration error in a 200 answer
                raise ConfigurationError(
                    f"{problem.explanation} (the server said: {error['message'][:200]})", kind=problem.kind
                )
            raise MalformedAnswerError(f"the server answered 200 with an error: {error['message'][:200]}")
        raise MalformedAnswerError(f"the server answered with no choices: {_excerpt(raw)}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedAnswerError(f"the server's first choice has no message object: {_excerpt(raw)}")
    content = _content_text(message.get("content"), raw)
    if content is not None:
        content = _text(content)
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise MalformedAnswerError(f"the server's tool_calls is not a list: {_excerpt(raw)}")
    calls: list[ToolCall] = []
    for i, call in enumerate(raw_calls):
        if not isinstance(call, dict):
            raise MalformedAnswerError(f"a tool call in the server's answer is no object: {_excerpt(raw)}")
        function = call.get("function")
        if function is None:
            continue
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise MalformedAnswerError(f"a tool call in the server's answer has no name: {_excerpt(raw)}")
        arguments = function.get("arguments")
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            # some local servers send the arguments as an object rather than JSON text
            arguments = json.dumps(arguments, ensure_ascii=False)
        call_id = call.get("id")
        calls.append(
            ToolCall(id=_text(call_id) if isinstance(call_id, str) and call_id else f"call_{i}",
                     name=_text(name), arguments=_text(arguments))
        )
    return content, tuple(calls), _usage(data.get("usage"))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(text: str) -> str:
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def _content_text(content: object, raw: bytes) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        if all(isinstance(text, str) for text in texts):
            return "".join(text for text in texts if isinstance(text, str))
    raise MalformedAnswerError(f"the server's message content is not text: {_excerpt(raw)}")


def _usage(usage: object) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens") or 0
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (prompt, completion)):
        return None
    assert isinstance(prompt, int) and isinstance(completion, int)
    cached = _cached(usage.get("prompt_tokens_details"), prompt)
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached)


def _cached(details: object, prompt: int) -> int:
    """The prompt tokens the server says it served from its cache (0 where it says nothing
    readable; never more than the prompt)."""
    if not isinstance(details, dict):
        return 0
    cached = details.get("cached_tokens")
    if not isinstance(cached, int) or isinstance(cached, bool) or cached < 0:
        return 0
    return min(cached, prompt)


def _excerpt(raw: bytes, limit: int = 80) -> str:
    """The start of an answer, for an error message (the whole body may be a large page)."""
    text = raw[: limit * 4].decode("utf-8", "replace")
    text = " ".join(text.split())
    if not text:
        return "(an empty body)"
    return repr(text[:limit] + ("…" if len(text) > limit or len(raw) > limit * 4 else ""))
