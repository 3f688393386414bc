"""The docs are executable: every ```python block of every page runs, in order,
and the API reference covers every public name."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md"))


def test_the_required_pages_exist():
    for name in ("index.md", "tape.md", "ops.md", "checkpointing.md", "snapshot-format.md", "devices.md",
                 "reading-the-code.md", "api.md", "performance.md"):
        assert (DOCS / name).exists(), name


@pytest.mark.parametrize("page", PAGES)
def test_every_snippet_runs(page, tmp_path, monkeypatch):
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    monkeypatch.chdir(tmp_path)  # snippets that write files write them here
    namespace: dict = {"__name__": f"docs_{page}"}
    for i, block in enumerate(blocks):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            # dont_inherit: a snippet runs as a script would, without this file's
            # ``from __future__ import annotations`` (string annotations in a namespace
            # that is no module could not be resolved, e.g. an op's attribute types)
            exec(compile(block, f"docs/{page} (python block {i + 1})", "exec", dont_inherit=True), namespace)


def test_the_api_reference_names_every_public_name():
    sys.path.insert(0, str(DOCS))
    try:
        import gen_api
    finally:
        sys.path.remove(str(DOCS))
    committed = (DOCS / "api.md").read_text(encoding="utf-8")
    fresh = gen_api.generate()
    names = set(re.findall(r"^- \*\*(?:class )?`([A-Za-z_][A-Za-z0-9_]*)", fresh, re.M))
    missing = sorted(n for n in names if f"`{n}" not in committed)
    assert not missing, f"docs/api.md is out of date (run python docs/gen_api.py); missing: {missing}"
    assert len(names) > 150


def test_every_public_class_and_function_has_its_own_docstring():
    sys.path.insert(0, str(DOCS))
    try:
        import gen_api
    finally:
        sys.path.remove(str(DOCS))
    missing = gen_api.undocumented()
    assert not missing, "give these their own docstring (a class does not inherit its base's here): " + ", ".join(
        missing)
