"""What an OpenAI-compatible server supports, as flags the request building reads.

The backend never branches on a server's name: it reads these flags. Pick a profile
with ``--profile`` or ``GM_LLM_PROFILE``; add one with :func:`register_profile`;
``gm doctor`` probes a server and says which flags it found and which profile fits.

The built-in flags are conservative readings of each server's OpenAI compatibility:
a flag set wrongly to False only costs a little (the turn runner answers a text-only
reply with an error, and extra tool calls after a turn's action are not executed); a
flag set wrongly to True may get requests refused.

What the built-in profiles record, server by server (each is a flag, so a server that
fixes its quirk needs a new profile, not new code):

* llama.cpp: ``tool_choice="required"`` may still bring free text before the call
  (``text_before_call``), and a request that leaves ``parallel_tool_calls`` out may get
  several calls back (``parallel_calls_unless_disabled``: the backend sends False
  explicitly); a named (object) ``tool_choice`` is not supported.
* Ollama: ``tool_choice`` is ignored altogether (``honours_tool_choice``: it is not sent).
* LM Studio: ``required`` is answered with an empty reply, so it is sent as ``auto``
  (``supports_tool_choice_required`` False), and an object ``tool_choice`` is refused
  with 400 (``supports_named_tool_choice`` False).
* vLLM: argument schemas are enforced only on ``strict`` tools, and ``strict`` takes any
  JSON Schema (lengths, patterns), so every tool is sent strict (``strict_any_schema``).

A chat template without tool support (the server drops ``tools`` silently: HTTP 200,
plain text) is a property of the model, not the server: no profile can say it, ``gm
doctor`` detects it, and the turn runner's recovery (tool calls read from the text, one
corrective re-ask describing the tools in words) covers it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

#: Seconds the client waits for each read on a hosted service.
HOSTED_TIMEOUT_S = 60.0

#: Seconds the client waits for each read on a local server: a CPU server reads a
#: ~4k-token prompt for about a minute before the first byte of its answer.
LOCAL_TIMEOUT_S = 300.0


class UnknownProfileError(ValueError):
    """No server profile has the name asked for."""


class ServerProfile(BaseModel):
    """Capabilities of one kind of Chat Completions server.

    Attributes:
        supports_strict_schema: honours ``"strict": true`` function schemas.
        strict_any_schema: ``strict`` takes any JSON Schema (lengths, patterns), not only
            OpenAI's subset, and argument schemas are enforced only with it: every tool is
            sent strict (needs ``supports_strict_schema``).
        supports_tool_choice_required: honours ``tool_choice="required"`` (else ``auto``
            is sent).
        supports_named_tool_choice: accepts ``tool_choice`` naming one function (an object).
        honours_tool_choice: reads ``tool_choice`` at all (else it is left out).
        text_before_call: may answer free text before (or instead of) a required call.
        supports_parallel_tool_calls: accepts the ``parallel_tool_calls`` parameter.
        parallel_calls_unless_disabled: several calls may come back unless
            ``parallel_tool_calls`` is sent False, so a request that leaves it open sends False.
        reports_usage: returns token usage (else it is estimated).
        local: a server on the user's machine (a longer read timeout by default).
        default_timeout_s: seconds the client waits for each read, unless configured.
        default_max_concurrent: requests sent to the server at once, unless configured
            (None: no limit; a CPU server serves one slot at a time, so more only queue
            inside the server where the client's timeout counts the wait).
        default_base_url: where the server listens by default (None: the client's default).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    supports_strict_schema: bool = False
    strict_any_schema: bool = False
    supports_tool_choice_required: bool = False
    supports_named_tool_choice: bool = False
    honours_tool_choice: bool = True
    text_before_call: bool = False
    supports_parallel_tool_calls: bool = False
    parallel_calls_unless_disabled: bool = False
    reports_usage: bool = True
    local: bool = False
    default_timeout_s: float = HOSTED_TIMEOUT_S
    default_max_concurrent: int | None = None
    default_base_url: str | None = None


_PROFILES: dict[str, ServerProfile] = {}


def register_profile(profile: ServerProfile) -> ServerProfile:
    """File ``profile`` under its name (replacing one of the same name)."""
    _PROFILES[profile.name] = profile
    return profile


register_profile(
    ServerProfile(
        name="openai",
        supports_strict_schema=True,
        supports_tool_choice_required=True,
        supports_named_tool_choice=True,
        supports_parallel_tool_calls=True,
    )
)
register_profile(
    ServerProfile(
        name="ollama",
        honours_tool_choice=False,
        local=True,
        default_timeout_s=LOCAL_TIMEOUT_S,
        default_max_concurrent=1,
        default_base_url="http://127.0.0.1:11434/v1",
    )
)
register_profile(
    ServerProfile(
        name="vllm",
        supports_strict_schema=True,
        strict_any_schema=True,
        supports_tool_choice_required=True,
        supports_named_tool_choice=True,
        supports_parallel_tool_calls=True,
        local=True,
        default_timeout_s=LOCAL_TIMEOUT_S,
        default_base_url="http://127.0.0.1:8000/v1",
    )
)
register_profile(
    ServerProfile(
        name="llamacpp",
        supports_tool_choice_required=True,
        text_before_call=True,
        supports_parallel_tool_calls=True,
        parallel_calls_unless_disabled=True,
        local=True,
        default_timeout_s=LOCAL_TIMEOUT_S,
        default_max_concurrent=1,
        default_base_url="http://127.0.0.1:8080/v1",
    )
)
register_profile(
    ServerProfile(
        name="lmstudio",
        local=True,
        default_timeout_s=LOCAL_TIMEOUT_S,
        default_max_concurrent=1,
        default_base_url="http://127.0.0.1:1234/v1",
    )
)


def get_profile(name: str) -> ServerProfile:
    """The profile called ``name``.

    Raises:
        UnknownProfileError: no such profile; the message lists the known ones.
    """
    try:
        return _PROFILES[name]
    except KeyError:
        raise UnknownProfileError(
            f"unknown server profile {name!r}; known: {', '.join(sorted(_PROFILES))}"
        ) from None


def profile_names() -> list[str]:
    """The names of the registered profiles, sorted."""
    return sorted(_PROFILES)


def profiles() -> list[ServerProfile]:
    """The registered profiles, sorted by name."""
    return [_PROFILES[name] for name in sorted(_PROFILES)]
