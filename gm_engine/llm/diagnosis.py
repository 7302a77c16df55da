"""What a model server's refusal means, when it is a configuration error: one line that
says what is wrong and how to fix it.

:func:`classify_error` reads an error's HTTP status and message and recognises:

=====================  ===========================================================  ==========
kind                   what the server said (examples)                               status
=====================  ===========================================================  ==========
``missing_jinja``      llama.cpp started without ``--jinja``: "tools param requires  500
                       --jinja flag"
``bad_key``            the key was refused: 401, "Invalid API Key"                   401
``unknown_model``      no such model: "model 'x' not found", "does not exist"        404, 400
``context_overflow``   the prompt is longer than the server's context: "exceeds the   400, 500
                       available context size", "maximum context length"
=====================  ===========================================================  ==========

Such an error is not worth retrying (a 500 missing ``--jinja`` was once retried as a
transient failure and reported as "cannot reach the model server"): the backend raises it
as :class:`~gm_engine.llm.base.ConfigurationError` at once, a session stops with its
explanation, and ``gm doctor`` prints the same line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ProblemKind = Literal["missing_jinja", "bad_key", "unknown_model", "context_overflow"]


@dataclass(frozen=True)
class ServerProblem:
    """A configuration error recognised in a server's answer: its kind and the one line
    that explains it with its fix."""

    kind: ProblemKind
    explanation: str


_MISSING_JINJA = re.compile(r"--jinja|jinja flag", re.IGNORECASE)
_CONTEXT = re.compile(
    r"context size|context length|context window|context_length_exceeded|exceed_context_size"
    r"|maximum context|too many tokens|prompt is too long|input is too long",
    re.IGNORECASE,
)
_MODEL = re.compile(
    r"model\b.*\b(not found|does not exist|not exist|unknown|not loaded|no such)"
    r"|(unknown|invalid) model|model_not_found|no models? loaded|try pulling it",
    re.IGNORECASE,
)
_KEY = re.compile(r"api[ _-]?key|unauthori[sz]ed|authentication|invalid_api_key|bearer", re.IGNORECASE)


def classify_error(status: int | None, message: str, *, model: str | None = None) -> ServerProblem | None:
    """The configuration error that an answer with ``status`` and ``message`` shows, or None
    (a transient failure, or one not recognised). ``model`` names the model asked for, for
    the explanation."""
    asked = f" {model!r}" if model else ""
    if _MISSING_JINJA.search(message):
        return ServerProblem(
            "missing_jinja",
            "the llama.cpp server was started without --jinja, so it refuses tools: "
            "restart it with --jinja (llama-server --jinja -m MODEL.gguf)",
        )
    if _CONTEXT.search(message):
        return ServerProblem(
            "context_overflow",
            "the prompt is longer than the server's context window: start the server with a "
            "larger context (llama.cpp -c 8192, Ollama num_ctx, vLLM --max-model-len) or use a "
            "model with a longer one",
        )
    if status == 401 or (status is not None and status < 500 and _KEY.search(message)):
        return ServerProblem(
            "bad_key",
            "the server refused the API key: set OPENAI_API_KEY to a key it accepts "
            "(a local server started with --api-key needs that key)",
        )
    if (status in (400, 404) or status is None) and _MODEL.search(message):
        return ServerProblem(
            "unknown_model",
            f"the server has no model{asked}: pass --model (or set GM_MODEL) to a name it "
            "lists (gm doctor prints them; for Ollama, `ollama pull` it first)",
        )
    if status == 404 and model is not None and model in message:
        return ServerProblem(
            "unknown_model",
            f"the server has no model{asked}: pass --model (or set GM_MODEL) to a name it lists",
        )
    return None
