"""What an OpenAI-compatible server supports, as flags the request building reads.

The backend never branches on a server's name: it reads these flags. Pick a profile
with ``--profile`` or ``GM_LLM_PROFILE``; add one with :func:`register_profile`.

The built-in flags are conservative readings of each server's OpenAI compatibility:
a flag set wrongly to False only costs a little (the turn runner answers a text-only
reply with an error, and extra tool calls after a turn's action are not executed); a
flag set wrongly to True may get requests refused.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class UnknownProfileError(ValueError):
    """No server profile has the name asked for."""


class ServerProfile(BaseModel):
    """Capabilities of one kind of Chat Completions server.

    Attributes:
        supports_strict_schema: honours ``"strict": true`` function schemas.
        supports_tool_choice_required: honours ``tool_choice="required"``.
        supports_parallel_tool_calls: accepts the ``parallel_tool_calls`` parameter.
        reports_usage: returns token usage (else it is estimated).
        default_base_url: where the server listens by default (None: the client's default).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    supports_strict_schema: bool = False
    supports_tool_choice_required: bool = False
    supports_parallel_tool_calls: bool = False
    reports_usage: bool = True
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
        supports_parallel_tool_calls=True,
    )
)
register_profile(ServerProfile(name="ollama", default_base_url="http://127.0.0.1:11434/v1"))
register_profile(
    ServerProfile(
        name="vllm",
        supports_tool_choice_required=True,
        supports_parallel_tool_calls=True,
        default_base_url="http://127.0.0.1:8000/v1",
    )
)
register_profile(
    ServerProfile(
        name="llamacpp",
        supports_tool_choice_required=True,
        supports_parallel_tool_calls=True,
        default_base_url="http://127.0.0.1:8080/v1",
    )
)
register_profile(ServerProfile(name="lmstudio", default_base_url="http://127.0.0.1:1234/v1"))


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
