"""The Chat Completions backend, through the ``openai`` client: the only module that imports it.

It works with OpenAI and with local OpenAI-compatible servers (Ollama, vLLM,
llama.cpp, LM Studio). What a server supports is read from its
:class:`~gm_engine.llm.profiles.ServerProfile`, never from its name. The client's own
retries are off; transient failures are retried by the one policy of
:mod:`gm_engine.llm.retry`, other errors are raised as
:class:`~gm_engine.llm.base.BackendError` at once.

Configuration (:meth:`OpenAIBackend.from_env`): ``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``GM_MODEL`` (the default model), ``GM_MODELS`` (a model per actor,
``P2=model-a,P3=model-b``), ``GM_LLM_PROFILE`` (the server profile, default ``openai``).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import weakref
from collections.abc import Mapping
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from tenacity import RetryCallState

from gm_engine.llm.base import (
    MAX_ANSWER_TOKENS,
    BackendError,
    JsonDict,
    ModelRequest,
    ModelResponse,
    ToolCall,
    TransientBackendError,
    Usage,
    bound_answer,
    estimate_usage,
)
from gm_engine.llm.profiles import ServerProfile, get_profile
from gm_engine.llm.retry import SleepFunc, WaitFunc, parse_retry_after, retry_policy

#: A key sent to servers that need none (local servers), since the client insists on one.
NO_KEY = "sk-no-key-needed"


def build_chat_request(request: ModelRequest, model: str, profile: ServerProfile) -> JsonDict:
    """The keyword arguments of ``chat.completions.create`` for ``request`` on a server with ``profile``.

    ``strict`` is set on a tool only when the server supports it and the tool's schema
    fits the strict subset; ``tool_choice="required"`` falls back to ``"auto"`` where it
    is not supported; ``parallel_tool_calls`` is sent only where supported.
    """
    body: JsonDict = {
        "model": model,
        "messages": [dict(m) for m in request.messages],
        "max_tokens": MAX_ANSWER_TOKENS,
    }
    if request.tools:
        body["tools"] = [
            tool.to_openai(strict=profile.supports_strict_schema and tool.strict_compatible)
            for tool in request.tools
        ]
        choice = request.tool_choice
        if choice == "required" and not profile.supports_tool_choice_required:
            choice = "auto"
        body["tool_choice"] = choice
        if request.parallel_tool_calls is not None and profile.supports_parallel_tool_calls:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    return body


class OpenAIBackend:
    """A backend speaking Chat Completions to ``base_url``.

    Args:
        model: the default model.
        models: a model per actor (e.g. one per persona), overriding the default.
        base_url: the server (default: the profile's, else the client's own default).
        api_key: the key (default ``OPENAI_API_KEY``; a placeholder for local servers).
        profile: the server profile or its name.
        timeout: seconds per HTTP request.
        max_attempts: attempts per call, counting the first.
        wait, sleep: injectable waiting of the retry policy (tests pass tiny ones).
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
        timeout: float = 60.0,
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
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.wait = wait
        self.sleep = sleep
        #: Retries made so far (attempts beyond the first), for figures.
        self.retries = 0
        # an AsyncOpenAI client's connection pool belongs to one event loop
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def from_env(
        cls, *, model: str | None = None, profile: str | None = None, **kwargs: Any
    ) -> OpenAIBackend:
        """A backend configured from the environment (see the module docstring).

        Raises:
            BackendError: no model name is given nor in ``GM_MODEL``, or no key nor base URL.
        """
        name = model or os.environ.get("GM_MODEL") or os.environ.get("OPENAI_MODEL")
        if not name:
            raise BackendError("no model name: pass --model or set GM_MODEL")
        if "models" not in kwargs or kwargs["models"] is None:
            kwargs["models"] = parse_models(os.environ.get("GM_MODELS", ""))
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
        """Send one request, retrying transient failures.

        Raises:
            TransientBackendError: still failing after the last attempt.
            BackendError: a non-transient error (e.g. 400, 401, 404), not retried.
        """
        body = build_chat_request(request, self.model_for(request), self.profile)

        def count(state: RetryCallState) -> None:
            self.retries += 1

        started = time.perf_counter()
        policy = retry_policy(
            max_attempts=self.max_attempts, wait=self.wait, sleep=self.sleep, on_retry=count
        )
        completion: Any = None
        async for attempt in policy:
            with attempt:
                completion = await self._send(body)
        latency = time.perf_counter() - started
        return _to_response(request, completion, latency)

    async def _send(self, body: JsonDict) -> Any:
        try:
            # the body is already in the wire form (build_chat_request), so it is posted as it
            # is: ``chat.completions.create`` would walk it again against the client's typed
            # parameters (about 1 ms per call of CPU, paid one call after another in a
            # concurrent round) only to send the same JSON
            return await self._client().post(
                "/chat/completions", body=body, cast_to=ChatCompletion, options=_POST_OPTIONS
            )
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
            if exc.status_code >= 500:
                raise TransientBackendError(
                    f"server error ({exc.status_code}): {_message(exc)}",
                    retry_after=parse_retry_after(exc.response.headers),
                    status=exc.status_code,
                ) from exc
            raise BackendError(f"request refused ({exc.status_code}): {_message(exc)}") from exc
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
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and "message" in inner:
            return str(inner["message"])
        if "message" in body:
            return str(body["message"])
    return str(exc)


def _to_response(request: ModelRequest, completion: Any, latency: float) -> ModelResponse:
    choices = getattr(completion, "choices", None) or []
    if not choices:
        raise BackendError("the server answered with no choices")
    message = choices[0].message
    calls: list[ToolCall] = []
    for i, call in enumerate(getattr(message, "tool_calls", None) or []):
        function = getattr(call, "function", None)
        if function is None:
            continue
        arguments = function.arguments
        if not isinstance(arguments, str):
            # some local servers send the arguments as an object rather than JSON text
            arguments = json.dumps(arguments, ensure_ascii=False)
        call_id = getattr(call, "id", None) or f"call_{i}"
        calls.append(ToolCall(id=call_id, name=function.name, arguments=arguments))
    content = getattr(message, "content", None)
    usage_obj = getattr(completion, "usage", None)
    if usage_obj is not None and getattr(usage_obj, "prompt_tokens", None) is not None:
        usage = Usage(
            prompt_tokens=int(usage_obj.prompt_tokens),
            completion_tokens=int(usage_obj.completion_tokens or 0),
        )
    else:
        usage = estimate_usage(request, content, calls)
    response = ModelResponse(content=content, tool_calls=tuple(calls), usage=usage, latency_s=latency)
    return bound_answer(response)
