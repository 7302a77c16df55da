"""Model backends. :mod:`gm_engine.llm.base` holds the wire-free types every backend shares;
only :mod:`gm_engine.llm.openai_backend` imports ``openai``.

* :mod:`~gm_engine.llm.offline`: the built-in offline model (per-game deciders);
* :mod:`~gm_engine.llm.scripted`: a scripted backend for tests;
* :mod:`~gm_engine.llm.openai_backend`: Chat Completions via the ``openai`` client,
  shaped by :mod:`~gm_engine.llm.profiles` and retried by :mod:`~gm_engine.llm.retry`;
* :mod:`~gm_engine.llm.ledger`: calls, tokens and latency;
* :mod:`~gm_engine.llm.fakeserver`: a fake Chat Completions server for tests and benchmarks;
* :func:`make_backend`: a backend by name, for the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping

from gm_engine.llm.base import BackendError, ModelBackend


def make_backend(
    name: str,
    *,
    model: str | None = None,
    models: Mapping[str, str] | None = None,
    profile: str | None = None,
    request_deadline: float | None = None,
    request_timeout: float | None = None,
    max_concurrent: int | None = None,
) -> ModelBackend:
    """The backend called ``name``: ``offline`` or ``openai`` (configured from the environment;
    ``request_deadline`` and ``request_timeout``, in seconds, and ``max_concurrent`` override
    ``GM_REQUEST_DEADLINE``, ``GM_REQUEST_TIMEOUT`` and ``GM_MAX_CONCURRENT``).

    Raises:
        BackendError: an unknown name, or the openai backend lacks its configuration.
    """
    if name == "offline":
        from gm_engine.llm.offline import OfflineBackend

        return OfflineBackend()
    if name == "openai":
        from gm_engine.llm.openai_backend import OpenAIBackend

        return OpenAIBackend.from_env(
            model=model,
            profile=profile,
            models=models,
            request_deadline=request_deadline,
            timeout=request_timeout,
            max_concurrent=max_concurrent,
        )
    raise BackendError(f"unknown backend {name!r}; known: offline, openai")
