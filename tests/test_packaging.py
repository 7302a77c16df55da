"""The wheel ships every subpackage and the prompt and persona files."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setuptools() -> dict[str, object]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table = data["tool"]["setuptools"]
    assert isinstance(table, dict)
    return table


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "gm_engine").rglob("__init__.py")
    }
    listed = set(_setuptools()["packages"])  # type: ignore[call-overload]
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_prompts_and_personas_ship_as_package_data() -> None:
    table = _setuptools()
    assert table["package-dir"] == {
        "gm_engine.prompts": "prompts", "gm_engine.personas": "personas", "gm_engine.scenarios": "scenarios"
    }
    data = table["package-data"]
    assert isinstance(data, dict)
    assert data["gm_engine.prompts"] == ["*.j2"] and list((ROOT / "prompts").glob("*.j2"))
    assert data["gm_engine.personas"] == ["*.toml", "phrases/*.toml"]
    assert len(list((ROOT / "personas").glob("*.toml"))) == 8
    # the offline voices: a phrase book per persona, P1's (--auto), the narrator's, the fact clauses
    assert len(list((ROOT / "personas" / "phrases").glob("*.toml"))) == 12
    assert data["gm_engine.scenarios"] == ["*.toml"] and len(list((ROOT / "scenarios").glob("*.toml"))) >= 3
