"""The actions a model may take, as typed tools, and the turn runner that applies them.

See :mod:`gm_engine.tools.base` for how to declare a tool, offer it with enums of the
current legal choices, and run a turn with error answers, a retry budget and a fallback.
"""

from gm_engine.tools.base import (
    AppliedAction,
    Fallback,
    ModelRetry,
    Offer,
    Tool,
    ToolDefinitionError,
    ToolOutput,
    TurnError,
    TurnResult,
    TurnRunner,
    fallback_event,
    response_with_calls,
    retry_on,
)

__all__ = [
    "AppliedAction",
    "Fallback",
    "ModelRetry",
    "Offer",
    "Tool",
    "ToolDefinitionError",
    "ToolOutput",
    "TurnError",
    "TurnResult",
    "TurnRunner",
    "fallback_event",
    "response_with_calls",
    "retry_on",
]
