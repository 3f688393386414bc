"""Imports only go down the house, and nothing imports in a circle.

The order of the layers is the table of ``docs/reading-the-code.md`` (one
source: the guide a newcomer reads is the layering this test enforces).  Each
row is a layer; a module may import from its own row and from rows above it,
never from a row below.  Every import counts -- module-level and inside
functions -- because a function-level import is a dependency all the same;
only imports under ``if TYPE_CHECKING:`` are skipped (they never run).

To add a module: put its path in the row of the layer it belongs to (or a new
row) in that table.  A row entry ending in ``/`` covers every module under
that folder not listed more specifically.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import minigrad_ckpt

# The source tree of this checkout (not the installed copy, which has no docs/ beside it).
CHECKOUT = Path(__file__).resolve().parents[1]
PACKAGE = CHECKOUT / "minigrad_ckpt"
GUIDE = CHECKOUT / "docs" / "reading-the-code.md"
ROOT = "minigrad_ckpt"


# ---------------------------------------------------------------------------
# The layer table, read from the guide
# ---------------------------------------------------------------------------
def layer_table(text: str) -> list[list[str]]:
    """The guide's table as rows of entries (``tape.py``, ``ops/base.py``, ``nn/``)."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if m:
            rows.append(re.findall(r"`([^`]+)`", m.group(2)))
    return rows


def module_name(rel: str) -> str:
    """``ops/base.py`` -> ``minigrad_ckpt.ops.base``; ``nn/__init__.py`` -> ``minigrad_ckpt.nn``."""
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([ROOT, *parts])


def layer_of(rel: str, rows: list[list[str]]) -> int | None:
    """The row of ``rel`` (a path under the package): its own entry, else the deepest folder entry."""
    best, best_len = None, -1
    for i, row in enumerate(rows):
        for entry in row:
            if entry == rel:
                return i
            if entry.endswith("/") and rel.startswith(entry) and len(entry) > best_len:
                best, best_len = i, len(entry)
    return best


# ---------------------------------------------------------------------------
# Imports, from the source
# ---------------------------------------------------------------------------
def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                for n in ast.walk(sub):
                    if hasattr(n, "lineno"):
                        lines.add(n.lineno)
    return lines


def imports_of(module: str, is_package: bool, source: str, known: set[str]) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every package-internal import in ``source``.

    ``from X import name`` counts as importing ``X.name`` when that is a module
    of the package, else ``X``.
    """
    tree = ast.parse(source)
    skip = _type_checking_lines(tree)
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == ROOT]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != ROOT:
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub if sub in known else target, node.lineno))
    return [(t, line) for t, line in out if t != module]


def package_modules() -> dict[str, tuple[str, bool, str]]:
    """``{module name: (path under the package, is a package, source)}`` for every module."""
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        mods[module_name(rel)] = (rel, path.name == "__init__.py", path.read_text(encoding="utf-8"))
    return mods


def check(mods: dict[str, tuple[str, bool, str]], rows: list[list[str]]) -> list[str]:
    """Every problem with the layering of ``mods`` under ``rows``, as readable lines."""
    problems = []
    layers = {}
    for name, (rel, _, _) in mods.items():
        layer = layer_of(rel, rows)
        if layer is None:
            problems.append(
                f"minigrad_ckpt/{rel} is in no layer: add it to the table in docs/reading-the-code.md, "
                f"in the row of the layer it belongs to (or a new row); the import-layer test takes "
                f"the order of the layers from there"
            )
        layers[name] = layer
    graph: dict[str, set[str]] = {}
    for name, (rel, is_pkg, src) in mods.items():
        graph[name] = set()
        for target, line in imports_of(name, is_pkg, src, set(mods)):
            if target not in mods:
                problems.append(f"minigrad_ckpt/{rel}:{line} imports {target}, which does not exist")
                continue
            graph[name].add(target)
            lo, hi = layers[name], layers[target]
            if lo is not None and hi is not None and hi > lo:
                problems.append(
                    f"minigrad_ckpt/{rel}:{line} (layer {lo + 1}) imports {target} from a later "
                    f"layer ({hi + 1}): imports only go down the house"
                )
    problems += [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]
    return problems


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(_a_cycle(graph, set(comp)))
    return found


def _a_cycle(graph: dict[str, set[str]], comp: set[str]) -> list[str]:
    """A concrete cycle inside one strongly connected component, for the error message."""
    start = min(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & comp):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, v, start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return sorted(comp)


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------
def test_imports_only_go_down_the_layers_of_the_reading_guide():
    rows = layer_table(GUIDE.read_text(encoding="utf-8"))
    assert len(rows) > 10, "could not read the layer table of docs/reading-the-code.md"
    problems = check(package_modules(), rows)
    assert not problems, "\n".join(problems)


def test_every_entry_of_the_guide_names_a_real_file():
    rows = layer_table(GUIDE.read_text(encoding="utf-8"))
    missing = [e for row in rows for e in row if not (PACKAGE / e).exists()]
    assert not missing, f"docs/reading-the-code.md lists files that do not exist: {missing}"


def _fake(files: dict[str, str]) -> dict[str, tuple[str, bool, str]]:
    return {module_name(rel): (rel, rel.endswith("__init__.py"), src) for rel, src in files.items()}


ROWS = [["low.py"], ["mid.py", "pkg/"], ["high.py"]]


def test_the_check_finds_an_import_from_a_later_layer_even_inside_a_function():
    mods = _fake({"low.py": "def f():\n    from .high import g\n", "mid.py": "", "high.py": "from . import low\n"})
    problems = check(mods, ROWS)
    assert any("low.py:2 (layer 1) imports minigrad_ckpt.high from a later layer (3)" in p for p in problems)
    assert any(p.startswith("import cycle: minigrad_ckpt.high -> minigrad_ckpt.low -> minigrad_ckpt.high")
               for p in problems), problems


def test_the_check_finds_a_cycle_within_one_layer():
    mods = _fake({"low.py": "", "mid.py": "from .pkg import a\n", "pkg/__init__.py": "",
                  "pkg/a.py": "import minigrad_ckpt.mid\n", "high.py": ""})
    assert check(mods, ROWS) == ["import cycle: minigrad_ckpt.mid -> minigrad_ckpt.pkg.a -> minigrad_ckpt.mid"]


def test_the_check_names_where_to_add_an_unknown_module():
    mods = _fake({"low.py": "", "mid.py": "", "high.py": "", "brand_new.py": "from . import low\n"})
    (problem,) = check(mods, ROWS)
    assert "minigrad_ckpt/brand_new.py is in no layer" in problem
    assert "docs/reading-the-code.md" in problem


def test_downward_imports_and_type_checking_imports_pass():
    mods = _fake({"low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .high import H\n",
                  "mid.py": "from .low import x\nfrom . import low\n", "pkg/deep.py": "from ..mid import y\n",
                  "high.py": "import minigrad_ckpt.pkg.deep\n"})
    assert check(mods, ROWS) == []


def test_checkpointing_wraps_a_model_instead_of_sequential_reaching_up():
    import inspect

    from minigrad_ckpt import checkpoint as ck
    from minigrad_ckpt import nn

    assert "checkpoint" not in inspect.getsource(nn.Sequential.forward)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    x = minigrad_ckpt.randn(4, 2)
    plain = model(x).tolist()
    model.enable_checkpointing(ck.CheckpointingConfig(ck.EveryNLayers(1)))
    assert isinstance(model.__dict__["forward"], ck.CheckpointedForward)
    assert model(x).tolist() == plain
    model.enable_checkpointing(None)
    assert "forward" not in model.__dict__ and model(x).tolist() == plain
