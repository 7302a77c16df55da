"""Which module runs each session kind: the one explicit list of session kinds.

A session module files its runner with :func:`gm_engine.sessions.base.register_session`
when it is imported; this table says which module to import for a kind, so that nothing
imports every module of the package by name (and no module imports this one back). A
contributor adding a session kind writes its module and adds one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from gm_engine.sessions.base import SessionError, SessionRunner, registered_runner

SESSION_MODULES: Mapping[str, str] = {
    "adventure": "gm_engine.sessions.adventure_runner",
    "mcp": "gm_engine.sessions.mcp",
    "roll": "gm_engine.sessions.roll",
    "werewolf": "gm_engine.sessions.werewolf",
}


def get_runner(kind: str) -> SessionRunner:
    """The runner of sessions of ``kind``, importing its module first.

    Raises:
        SessionError: ``kind`` is not a known session kind.
    """
    try:
        module = SESSION_MODULES[kind]
    except KeyError:
        known = ", ".join(sorted(SESSION_MODULES))
        raise SessionError(f"unknown session kind {kind!r}; known: {known}") from None
    importlib.import_module(module)
    return registered_runner(kind)
