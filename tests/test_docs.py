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


_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _shown_output(text: str, block: re.Match) -> list[str] | None:
    """What the page says a block prints: the comment lines that end it, right after a ``print`` line
    (``# (...)`` after three spaces is a remark), or a plain fenced block right after it (an introducing
    line of a few words, such as "prints", may come between); None where the page shows none."""
    lines = block.group(1).rstrip("\n").split("\n")
    tail = []
    while lines and lines[-1].startswith("#"):
        tail.insert(0, lines.pop())
    if tail and lines and lines[-1].lstrip().startswith("print("):
        return [re.sub(r"\s{3,}\(.*\)$", "", t[1:].removeprefix(" ")).rstrip() for t in tail]
    fenced = re.match(r"\n\n(?:[^\n`]{1,40}\n\n)?```\n(.*?)```", text[block.end():], re.S)
    return fenced.group(1).rstrip("\n").split("\n") if fenced else None


def _same_output(printed: list[str], shown: list[str], numbering: tuple[dict, dict]) -> bool:
    """``shown`` matches ``printed`` line by line: ``...`` stands for anything, and node numbers (``#7``,
    ``node 7``) need only correspond -- the page numbers them as a fresh process would, the suite's
    process has recorded other tapes first."""
    def renumbered(line: str, seen: dict) -> str:
        return re.sub(r"(#|node )(\d+)", lambda m: f"{m.group(1)}<{seen.setdefault(m.group(2), len(seen))}>", line)

    if len(printed) != len(shown):
        return False
    for got, want in zip(printed, shown):
        pattern = ".*".join(map(re.escape, renumbered(want, numbering[1]).split("...")))
        if not re.fullmatch(pattern, renumbered(got, numbering[0])):
            return False
    return True


@pytest.mark.parametrize("page", PAGES)
def test_every_snippet_runs(page, tmp_path, monkeypatch):
    text = (DOCS / page).read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # snippets that write files write them here
    namespace: dict = {"__name__": f"docs_{page}"}
    numbering: tuple[dict, dict] = ({}, {})  # node numbers printed and shown on this page, in order met
    for i, block in enumerate(_PYTHON_BLOCK.finditer(text)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            # dont_inherit: a snippet runs as a script would, without this file's
            # ``from __future__ import annotations`` (string annotations in a namespace
            # that is no module could not be resolved, e.g. an op's attribute types)
            exec(compile(block.group(1), f"docs/{page} (python block {i + 1})", "exec", dont_inherit=True), namespace)
        shown = _shown_output(text, block)
        printed = [line.rstrip() for line in out.getvalue().rstrip("\n").split("\n")]
        assert shown is None or _same_output(printed, shown, numbering), (
            f"docs/{page} python block {i + 1} prints\n" + "\n".join(printed) + "\nwhere the page shows\n"
            + "\n".join(shown or []))


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
