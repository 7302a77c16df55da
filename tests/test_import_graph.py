"""No import cycles in gm_engine: neither between two modules nor between two packages.

The graph is read statically: every module under ``gm_engine/`` is parsed with :mod:`ast`
and every ``import`` / ``from ... import`` in it counts, at any depth (inside functions,
under ``if TYPE_CHECKING:``: a cycle only the type checker sees is still two modules that
each need the other). Relative imports are resolved against the module's package, and
``from package import name`` counts as an import of ``package.name`` when that is a module.
A scope that calls ``importlib.import_module`` imports every module of the package it
names in a string, and all of that package's public modules (names not starting with
``_``) when it also walks ``pkgutil.iter_modules``: registries that load their members by
name, as ``gm_engine.dice.system.load_all`` does.

Two graphs are checked: modules, and packages (each module counted as the package
directly under ``gm_engine`` that holds it, so ``sessions -> tools -> sessions`` is a
cycle even when no single module pair closes it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "gm_engine"

#: Cycles known today and being removed on other branches, each as the set of packages
#: (directly under gm_engine) it runs through. A cycle, between modules or between
#: packages, is tolerated only while every package it runs through belongs to one entry.
#: Delete an entry once its cycle is gone: test_every_allowed_cycle_still_exists fails on
#: an entry that no longer matches any cycle, so this list can only shrink.
#:
KNOWN_CYCLES: Mapping[str, frozenset[str]] = {
}


@dataclass(frozen=True)
class Module:
    """One module of the tree: its dotted name, its file, and whether it is a package."""

    name: str
    path: Path
    is_package: bool


def discover(root: Path, package: str) -> dict[str, Module]:
    """Every module under ``root / package``, by dotted name."""
    modules: dict[str, Module] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        name = ".".join(parts)
        modules[name] = Module(name, path, is_package)
    return modules


def _known(name: str, modules: Set[str]) -> str | None:
    """``name`` or its nearest enclosing module that is part of the tree (None if outside)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _scopes(tree: ast.Module) -> Iterator[ast.AST]:
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield node


def _calls(scope: ast.AST, name: str) -> bool:
    for node in ast.walk(scope):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == name) or (
                isinstance(func, ast.Attribute) and func.attr == name
            ):
                return True
    return False


def _dynamic_imports(tree: ast.Module, modules: Mapping[str, Module]) -> set[str]:
    """Modules imported by name: see the module docstring."""
    found: set[str] = set()
    for scope in _scopes(tree):
        if not _calls(scope, "import_module"):
            continue
        walks = _calls(scope, "iter_modules")
        for node in ast.walk(scope):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
                found.add(node.value)
                if walks and modules[node.value].is_package:
                    prefix = node.value + "."
                    found.update(
                        m for m in modules
                        if m.startswith(prefix) and "." not in m[len(prefix):] and m[len(prefix)] != "_"
                    )
    return found


def imports_of(module: Module, modules: Mapping[str, Module]) -> set[str]:
    """The modules of the tree that ``module`` imports (itself excluded)."""
    tree = ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    names = modules.keys()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(t for alias in node.names if (t := _known(alias.name, names)))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                target = f"{base}.{alias.name}"
                resolved = target if target in names else _known(base, names)
                if resolved:
                    found.add(resolved)
    found |= _dynamic_imports(tree, modules)
    found.discard(module.name)
    return found


def module_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of ``package`` it imports."""
    modules = discover(root, package)
    return {name: imports_of(module, modules) for name, module in modules.items()}


def package_of(module: str) -> str:
    """The package directly under the top one that holds ``module`` (``gm_engine.dice``)."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: Mapping[str, Set[str]]) -> dict[str, set[str]]:
    """``graph`` with each module replaced by :func:`package_of` (edges inside a package dropped)."""
    packages: dict[str, set[str]] = {}
    for source, targets in graph.items():
        edges = packages.setdefault(package_of(source), set())
        edges.update(package_of(t) for t in targets if package_of(t) != package_of(source))
    return packages


def strongly_connected(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    nodes = sorted(set(graph) | {t for targets in graph.values() for t in targets})
    for start in nodes:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def cycle_in(graph: Mapping[str, Set[str]], component: list[str]) -> list[str]:
    """One concrete cycle through the first node of ``component``, closed (first == last)."""
    members = set(component)
    start = component[0]
    # breadth-first from start's successors back to start, inside the component
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for step in sorted(graph.get(node, ())):
                if step not in members or step in previous:
                    continue
                previous[step] = node
                if step == start:
                    path = [start]
                    while path[-1] != start or len(path) == 1:
                        path.append(previous[path[-1]])
                    return path[::-1]
                following.append(step)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def find_cycles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """One printable cycle for each strongly connected component of ``graph``."""
    return [cycle_in(graph, component) for component in strongly_connected(graph)]


def allowed_by(cycle: list[str]) -> str | None:
    """The :data:`KNOWN_CYCLES` entry covering every package of ``cycle``, or None."""
    packages = {package_of(node) for node in cycle}
    return next((name for name, known in KNOWN_CYCLES.items() if packages <= known), None)


def _report(kind: str, cycles: list[list[str]]) -> str:
    lines = [f"new import cycles between {kind}:"]
    lines.extend("  " + " -> ".join(cycle) for cycle in cycles)
    return "\n".join(lines)


# -- the cycle finder itself ------------------------------------------------------------


def test_the_finder_prints_a_cycle_of_a_small_graph() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]


def test_the_finder_separates_components_and_takes_the_shortest_way_round() -> None:
    graph = {"a": {"b", "c"}, "b": {"a"}, "c": {"d"}, "d": {"c", "b"}, "x": {"y"}, "y": {"x"}}
    assert strongly_connected(graph) == [["a", "b", "c", "d"], ["x", "y"]]
    assert find_cycles(graph) == [["a", "b", "a"], ["x", "y", "x"]]


def test_an_acyclic_graph_has_no_cycle() -> None:
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a", "c"}}
    assert find_cycles(graph) == []


def test_a_deep_chain_does_not_hit_the_recursion_limit() -> None:
    graph = {f"m{i}": {f"m{i + 1}"} for i in range(5000)}
    assert find_cycles(graph) == []
    graph["m5000"] = {"m0"}
    (cycle,) = find_cycles(graph)
    assert len(cycle) == 5002 and cycle[0] == cycle[-1]


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_imports_are_resolved_in_every_form(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\nimport os\n",
            "pkg/b.py": "def late():\n    from .sub import c\n    return c\n",
            "pkg/sub/__init__.py": "from .c import VALUE\n",
            "pkg/sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import x\n",
            "pkg/sub/d.py": "from .. import a, sub\nimport pkg.sub.c\nfrom .c import VALUE as V\n",
            "pkg/sub/_private.py": "",
            "pkg/reg.py": (
                "import importlib, pkgutil\n"
                "def load():\n"
                "    for name in ('pkg.sub',):\n"
                "        package = importlib.import_module(name)\n"
                "        for info in pkgutil.iter_modules(package.__path__):\n"
                "            importlib.import_module(f'{name}.{info.name}')\n"
            ),
        },
    )
    graph = module_graph(tmp_path, "pkg")
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.sub.c"},
        "pkg.reg": {"pkg.sub", "pkg.sub.c", "pkg.sub.d"},
        "pkg.sub": {"pkg.sub.c"},
        "pkg.sub.c": {"pkg.a"},
        "pkg.sub.d": {"pkg.a", "pkg.sub", "pkg.sub.c"},
        "pkg.sub._private": set(),
    }
    # the cycle closes only through an import inside a function and one for type checking
    assert find_cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]


def test_a_cycle_between_packages_is_found_without_a_module_cycle(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/x/__init__.py": "",
            "pkg/x/one.py": "from pkg.y.two import f\n",
            "pkg/x/base.py": "",
            "pkg/y/__init__.py": "",
            "pkg/y/two.py": "def f() -> None: ...\n",
            "pkg/y/three.py": "from pkg.x.base import *\n",
        },
    )
    graph = module_graph(tmp_path, "pkg")
    assert find_cycles(graph) == []
    assert find_cycles(package_graph(graph)) == [["pkg.x", "pkg.y", "pkg.x"]]


# -- gm_engine -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return module_graph()


def test_the_graph_covers_the_package(graph: dict[str, set[str]]) -> None:
    assert len(graph) == len(list((ROOT / PACKAGE).rglob("*.py")))
    assert "gm_engine.dice.engine" in graph["gm_engine.cli.dice"]


def test_no_new_cycle_between_modules(graph: dict[str, set[str]]) -> None:
    new = [cycle for cycle in find_cycles(graph) if allowed_by(cycle) is None]
    assert not new, _report("modules", new)


def test_no_new_cycle_between_packages(graph: dict[str, set[str]]) -> None:
    new = [cycle for cycle in find_cycles(package_graph(graph)) if allowed_by(cycle) is None]
    assert not new, _report("packages", new)


def test_every_allowed_cycle_still_exists(graph: dict[str, set[str]]) -> None:
    present = {frozenset(component) for component in strongly_connected(package_graph(graph))}
    gone = [name for name, packages in KNOWN_CYCLES.items() if packages not in present]
    assert not gone, f"remove {gone} from KNOWN_CYCLES: those cycles are gone"
