"""The prompt loader: the project's prompts/ directory, strict undefined variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm_engine.llm import prompts
from gm_engine.llm.prompts import PromptError, prompt_dirs, render_prompt


def test_project_prompts_dir_is_found() -> None:
    root = Path(prompts.__file__).resolve().parents[2]
    assert root / "prompts" in prompt_dirs()


def test_override_dir_and_strict_undefined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hello.j2").write_text("Hello {{ name }}{% if loud %}!{% endif %}", encoding="utf-8")
    (tmp_path / "broken.j2").write_text("{% if %}", encoding="utf-8")
    monkeypatch.setenv("GM_PROMPTS_DIR", str(tmp_path))
    assert prompt_dirs()[0] == tmp_path
    assert render_prompt("hello.j2", name="GM", loud=True) == "Hello GM!"
    with pytest.raises(PromptError, match="'name' is undefined"):
        render_prompt("hello.j2", loud=False)
    with pytest.raises(PromptError, match="not found"):
        render_prompt("nope.j2")
    with pytest.raises(PromptError, match="line 1"):
        render_prompt("broken.j2")


def test_load_prompts_compiles_or_says_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ok.j2").write_text("{{ x }}", encoding="utf-8")
    (tmp_path / "broken.j2").write_text("{% for %}", encoding="utf-8")
    monkeypatch.setenv("GM_PROMPTS_DIR", str(tmp_path))
    prompts.load_prompts("ok.j2", "vote.j2")  # the project's own templates are found too
    with pytest.raises(PromptError, match="not found"):
        prompts.load_prompts("ok.j2", "missing.j2")
    with pytest.raises(PromptError, match="line 1"):
        prompts.load_prompts("broken.j2")
    assert render_prompt("ok.j2", x=3) == "3"
