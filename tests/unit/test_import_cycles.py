"""No import cycles among the `compiler` modules: the graph of every import statement in compiler/ (also those
inside functions, which only defer a cycle) has no strongly connected component of more than one module.

An edge goes to the module an import names: `from .pkg import name` to `pkg.name` when that is a module, else to
`pkg`. Importing a submodule also runs its package's `__init__`; that implicit edge is not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of `package` (a folder under `root`) -> the modules of it that it imports anywhere in its file."""
    paths = {}
    for path in (root / package).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return {name: imported(name, path, set(paths)) for name, path in paths.items()}


def imported(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules among `modules` that module `name` (its file `path`) imports."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            origin = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{origin}.{alias.name}"
                found.add(target if target in modules else origin)
    return (found & modules) - {name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def path_through(graph: dict[str, set[str]], component: list[str]) -> str:
    """One cycle inside a component, as `a -> b -> a`, to name in the failure."""
    members = set(component)
    trail = [component[0]]
    while trail.count(trail[-1]) < 2:
        trail.append(min(graph[trail[-1]] & members))
    start = trail.index(trail[-1])
    return " -> ".join(trail[start:])


def test_the_graph_sees_relative_absolute_and_function_level_imports(tmp_path):
    files = {
        "__init__.py": "from .a import x\n",
        "a.py": "from . import b\nx = 1\n",
        "b.py": "import os\nthing = 1\n",
        "sub/__init__.py": "",
        "sub/c.py": "from .. import a\nimport pkg.sub\n\n\ndef f():\n    from ..b import thing\n",
    }
    for rel, text in files.items():
        (tmp_path / "pkg" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / rel).write_text(text, encoding="utf-8")
    assert import_graph(tmp_path, "pkg") == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b"},
        "pkg.b": set(),
        "pkg.sub": set(),
        "pkg.sub.c": {"pkg.a", "pkg.b", "pkg.sub"},
    }
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert path_through({"a": {"b"}, "b": {"a", "c"}, "c": {"a"}}, ["a", "b", "c"]) == "a -> b -> a"


def test_no_import_cycles_among_compiler_modules():
    graph = import_graph(ROOT, "compiler")
    found = [path_through(graph, component) for component in cycles(graph)]
    assert not found, "import cycles: " + "; ".join(found)
