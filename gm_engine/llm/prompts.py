"""Prompt templates: a jinja2 environment over the project's ``prompts/`` directory.

Where templates are looked up, first match wins:

1. ``$GM_PROMPTS_DIR`` when set;
2. ``<project>/prompts`` beside the package (an editable install or a checkout);
3. ``gm_engine/prompts`` inside the installed package, read through
   :mod:`importlib.resources`, for a wheel that ships the templates as package data.

Templates render with ``StrictUndefined``: a variable the caller forgot is an error,
never an empty string in a prompt. Autoescaping is off (prompts are not HTML); the
whitespace settings are jinja2's defaults (no ``trim_blocks``), so a template renders
as anyone reading it without this module would expect.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
from pathlib import Path
from typing import Any

import jinja2


class PromptError(ValueError):
    """A template is missing, broken, or needs a variable that was not given."""


def prompt_dirs() -> list[Path]:
    """The directories searched for templates, in order (only those that exist)."""
    return list(_prompt_dirs(os.environ.get("GM_PROMPTS_DIR") or ""))


_FOUND_DIRS: dict[str, tuple[Path, ...]] = {}


def _prompt_dirs(override: str) -> tuple[Path, ...]:
    # looked up once per value of GM_PROMPTS_DIR (while that directory exists): a game
    # renders a prompt per model call, and resolving paths and asking the file system
    # each time cost more than the render itself
    found = _FOUND_DIRS.get(override)
    if found is not None:
        return found
    candidates: list[Path] = []
    if override:
        candidates.append(Path(override))
    candidates.append(Path(__file__).resolve().parents[2] / "prompts")
    packaged = importlib.resources.files("gm_engine").joinpath("prompts")
    if isinstance(packaged, Path):
        candidates.append(packaged)
    found = tuple(path for path in candidates if path.is_dir())
    if not override or found[:1] == (Path(override),):
        _FOUND_DIRS[override] = found
    return found


@functools.cache
def _environment(dirs: tuple[Path, ...]) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(d) for d in dirs]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )


def prompt_environment() -> jinja2.Environment:
    """The environment over :func:`prompt_dirs` (cached per set of directories)."""
    return _environment(_prompt_dirs(os.environ.get("GM_PROMPTS_DIR") or ""))


def load_prompts(*names: str) -> None:
    """Load and compile the templates ``names`` now (a session does it before its clock
    starts, so that its first turns do not pay for it).

    Raises:
        PromptError: a template is not found or has a syntax error.
    """
    for name in names:
        try:
            prompt_environment().get_template(name)
        except jinja2.TemplateNotFound:
            where = ", ".join(str(d) for d in prompt_dirs()) or "(no prompts directory found)"
            raise PromptError(f"prompt template {name!r} not found in {where}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise PromptError(f"prompt template {name!r} line {exc.lineno}: {exc.message}") from None


def render_prompt(name: str, /, **variables: Any) -> str:
    """Render the template ``name`` (e.g. ``"adventure_gm.j2"``) with ``variables``.

    Raises:
        PromptError: the template is not found, has a syntax error, or uses an
            undefined variable.
    """
    try:
        return prompt_environment().get_template(name).render(**variables)
    except jinja2.TemplateNotFound:
        where = ", ".join(str(d) for d in prompt_dirs()) or "(no prompts directory found)"
        raise PromptError(f"prompt template {name!r} not found in {where}") from None
    except jinja2.UndefinedError as exc:
        raise PromptError(f"prompt template {name!r}: {exc.message}") from None
    except jinja2.TemplateSyntaxError as exc:
        raise PromptError(f"prompt template {name!r} line {exc.lineno}: {exc.message}") from None
