"""The suite runs where torch is not installed (CI installs only the ``test`` extra).

PyTorch's numbers reach the tests as fixture files written offline by ``tests/data/make_*.py``
scripts. A test may import such a script for its *inputs* (so the inputs are defined once), but
then the script must import torch only inside the function that calls it: a module-level
``import torch`` passes on a machine that has torch and fails collection everywhere else, which
no local run notices.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = sorted([*ROOT.glob("tests/**/*.py"), *ROOT.glob("property_tests/**/*.py")])
LOCAL = {p.stem: p for p in SUITE}  # modules a test reaches through sys.path (tests/data, helpers)


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())  # (each file once: collection walks them all, then each test reads one)


def _imported_names(tree: ast.AST, module_level_only: bool) -> set[str]:
    """Top-level package names imported by ``tree`` (at module level only, if asked)."""
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _is_test_module(path: Path) -> bool:
    return path.name.startswith("test_") or path.name == "conftest.py"


def _local_modules_imported_by(path: Path) -> set[Path]:
    names = _imported_names(_tree(path), module_level_only=True)
    return {LOCAL[name] for name in names if name in LOCAL}


def _needed_without_torch() -> set[Path]:
    """Every file pytest imports at collection time: test modules and the local modules they import."""
    todo = [p for p in SUITE if _is_test_module(p)]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_local_modules_imported_by(path))
    return seen


def test_collected_code_does_not_import_torch_at_module_level() -> None:
    # A test module never imports torch at all; a generator script a test imports may, inside main().
    offenders = sorted(str(path.relative_to(ROOT)) for path in _needed_without_torch()
                       if "torch" in _imported_names(_tree(path), module_level_only=not _is_test_module(path)))
    assert not offenders, f"these import torch where the suite runs without it: {offenders}"
    assert len(_needed_without_torch()) > 100  # the walk reached the suite (not an empty glob)


def test_the_check_sees_a_module_level_torch_import(tmp_path: Path) -> None:
    bad = ast.parse("import numpy as np\nimport torch\n\ndef main():\n    pass\n")
    good = ast.parse("import numpy as np\n\ndef main():\n    import torch\n")
    assert "torch" in _imported_names(bad, module_level_only=True)
    assert "torch" not in _imported_names(good, module_level_only=True)
    assert "torch" in _imported_names(good, module_level_only=False)
