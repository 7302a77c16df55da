"""The dice core and the game systems import each other one way only.

The systems (:mod:`gm_engine.dice.systems`) build on the dice core (its base class,
context, results, limits and common commands); only the front door (:mod:`gm_engine.dice`
and :mod:`gm_engine.dice.engine`, which look a system up by name through
:mod:`gm_engine.dice.systems.registry`) imports them, so no core module imports a system
and the imports of the whole dice package form no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gm_engine

PACKAGE_ROOT = Path(gm_engine.__file__).parent
AREAS = ("dice",)
#: the modules that look systems up by name: the only ones outside the systems that import them
FRONT_DOOR = frozenset({"gm_engine.dice", "gm_engine.dice.engine"})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for area in AREAS:
        for path in sorted((PACKAGE_ROOT / area).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _load_time_imports(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The gm_engine modules ``path`` imports at module level (not inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in tree.body:  # top-level statements only: a function's imports run when called
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[:len(package.split(".")) - node.level + 1], base]
                ).strip(".")
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.add(submodule if submodule in known else base)
    return {target for target in targets if target.startswith("gm_engine.")}


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _load_time_imports(path, name, known) & set(known) for name, path in known.items()}


def test_the_graph_sees_the_known_edges() -> None:
    graph = _graph()
    assert "gm_engine.dice.system" in graph["gm_engine.dice.systems.cthulhu"]
    # the registry imports a system's module only when the system is asked for (not at load)
    assert "gm_engine.dice.system" in graph["gm_engine.dice.systems.registry"]
    assert "gm_engine.dice.systems.cthulhu" not in graph["gm_engine.dice.systems.registry"]
    assert "gm_engine.dice.commands.registry" in graph["gm_engine.dice.engine"]


def test_no_core_dice_module_imports_a_system_module() -> None:
    graph = _graph()
    offenders = {
        name: sorted(t for t in targets if t.startswith("gm_engine.dice.systems"))
        for name, targets in graph.items()
        if not name.startswith("gm_engine.dice.systems") and name not in FRONT_DOOR
    }
    assert {name: targets for name, targets in offenders.items() if targets} == {}


def test_the_module_level_imports_of_dice_and_systems_have_no_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_every_system_module_is_in_the_registry_and_nothing_scans_for_them() -> None:
    import importlib
    import inspect

    from gm_engine.dice.system import GameSystem
    from gm_engine.dice.systems.registry import SYSTEMS

    defined = set()
    for name in _modules():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, GameSystem) and value is not GameSystem and value.__module__ == name:
                defined.add(value)
    assert defined == set(SYSTEMS)
    sources = "\n".join(path.read_text(encoding="utf-8") for path in _modules().values())
    assert "pkgutil" not in sources and "import_module" not in sources
