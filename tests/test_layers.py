"""The import structure of app/: no cycle anywhere (imports inside functions and under TYPE_CHECKING
count too), and the layers import one way: core ← db ← jobs ← services ← api ← the entry points
(app.version and app.observability stand beside them, usable from the job runner up)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What each layer may import from app/ besides itself (prefixes of module names).
# app.version and app.observability (log lines, metrics) stand beside the core: they import nothing
# of app/ and every layer above the database may use them.
PLAIN = ("app.version", "app.observability")
LAYERS: dict[str, tuple[str, ...]] = {
    "app.core": (),
    "app.settings": ("app.core",),
    "app.version": (),
    "app.observability": (),
    "app.db": ("app.core",),
    "app.jobs": ("app.core", "app.db", *PLAIN),
    "app.services": ("app.core", "app.db", "app.jobs", "app.settings", *PLAIN),
    "app.wiring": ("app.services",),
    "app.api": ("app.core", "app.db", "app.jobs", "app.services", "app.settings", *PLAIN),
    # the pages: routes like app.api's, reusing its session, principal and request parsing
    "app.web": ("app.api", "app.core", "app.db", "app.jobs", "app.services", "app.settings", *PLAIN),
    "app.runtime": ("app.services", "app.settings", *PLAIN),
    "app.main": (
        "app.api",
        "app.web",
        "app.db",
        "app.jobs",
        "app.runtime",
        "app.services",
        "app.settings",
        "app.wiring",
        *PLAIN,
    ),
    # an entry point like app.main: `arbiter export` / `import` open a session with the registry
    "app.cli": (
        "app.core",
        "app.db",
        "app.main",
        "app.runtime",
        "app.services",
        "app.settings",
        "app.wiring",
        "workers",
        *PLAIN,
    ),
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Every module under ``root/<package>`` → the modules of those packages it imports, wherever the
    import stands (module level, inside a function, under ``if TYPE_CHECKING``)."""
    files = {module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            for t in targets:
                while t and t not in files:  # `import app.x.y` of a name inside a module
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    graph[mod].add(t)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str) -> str | None:
    return max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len, default=None)


def layer_violations(graph: Mapping[str, set[str]]) -> list[str]:
    out = []
    for mod, targets in sorted(graph.items()):
        layer = layer_of(mod)
        if layer is None:
            continue
        for t in sorted(targets):
            if layer_of(t) == layer or any(t == p or t.startswith(p + ".") for p in LAYERS[layer]):
                continue
            out.append(f"{mod} -> {t}")
    return out


def test_no_import_cycle_in_app() -> None:
    assert cycles(import_graph(ROOT, ["app", "workers"])) == []


def test_layers_import_one_way() -> None:
    assert layer_violations(import_graph(ROOT, ["app", "workers"])) == []


def test_the_checks_can_fail(tmp_path: Path) -> None:
    pkg = tmp_path / "app"
    (pkg / "core").mkdir(parents=True)
    (pkg / "services").mkdir()
    for p in (pkg, pkg / "core", pkg / "services"):
        (p / "__init__.py").write_text("")
    (pkg / "services" / "a.py").write_text("from app.services import b\n")
    # the import that closes the circle hides inside a function, as a lazy import would
    (pkg / "services" / "b.py").write_text("def f():\n    from app.services.a import thing\n")
    (pkg / "core" / "pure.py").write_text("from app.services.a import thing\n")
    graph = import_graph(tmp_path, ["app"])
    assert cycles(graph) == [["app.services.a", "app.services.b"]]
    assert layer_violations(graph) == ["app.core.pure -> app.services.a"]
