"""Generate docs/api.md from the package's docstrings: ``python docs/gen_api.py``.

Every public name (each module's ``__all__``) gets its signature and the first
paragraph of its docstring; classes list their public methods and properties.  The math
of ``mg``, ``mg.linalg``, ``mg.special`` and ``mg.fft`` comes under the section headings of
the table of public names (``minigrad_ckpt/functional/public_names.py``), which declares it.
``tests/test_docs.py`` fails if docs/api.md is out of date.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

MODULES = [
    ("minigrad_ckpt", "import minigrad_ckpt as mg"),
    ("minigrad_ckpt.linalg", "mg.linalg"),
    ("minigrad_ckpt.special", "mg.special"),
    ("minigrad_ckpt.fft", "mg.fft"),
    ("minigrad_ckpt.nn", "mg.nn"),
    ("minigrad_ckpt.nn.functional", "mg.nn.functional"),
    ("minigrad_ckpt.nn.init", "mg.nn.init"),
    ("minigrad_ckpt.nn.utils", "mg.nn.utils"),
    ("minigrad_ckpt.nn.utils.rnn", "mg.nn.utils.rnn"),
    ("minigrad_ckpt.nn.utils.stateless", "mg.nn.utils.stateless"),
    ("minigrad_ckpt.nn.parallel", "mg.nn.parallel"),
    ("minigrad_ckpt.optim", "mg.optim"),
    ("minigrad_ckpt.optim.lr_scheduler", "mg.optim.lr_scheduler"),
    ("minigrad_ckpt.utils.data", "mg.utils.data"),
    ("minigrad_ckpt.utils.benchmark", "mg.utils.benchmark"),
    ("minigrad_ckpt.utils._pytree", "mg.utils._pytree"),
    ("minigrad_ckpt._utils", "mg._utils"),
    ("minigrad_ckpt.func", "mg.func"),
    ("minigrad_ckpt.autograd", "mg.autograd"),
    ("minigrad_ckpt.autograd.functional", "mg.autograd.functional"),
    ("minigrad_ckpt.autograd.profiler", "mg.autograd.profiler"),
    ("minigrad_ckpt.profiler", "mg.profiler"),
    ("minigrad_ckpt.backends", "mg.backends"),
    ("minigrad_ckpt.distributions", "mg.distributions"),
    ("minigrad_ckpt.amp", "mg.amp"),
    ("minigrad_ckpt.anomaly", "mg.anomaly"),
    ("minigrad_ckpt.checkpoint", "mg.checkpoint"),
    ("minigrad_ckpt.memory", "mg.memory"),
    ("minigrad_ckpt.snapshot", "mg.snapshot"),
    ("minigrad_ckpt.distributed", "mg.distributed (a process group needs mpi4py)"),
    ("minigrad_ckpt.distributed.algorithms.join", "mg.distributed.algorithms.join"),
    ("minigrad_ckpt.testing", "mg.testing"),
    ("minigrad_ckpt.testing.strategies", "mg.testing.strategies (needs Hypothesis)"),
    ("minigrad_ckpt.testing.strict", "import minigrad_ckpt.testing.strict"),
    ("minigrad_ckpt.viz", "mg.viz"),
    ("minigrad_ckpt.course", "from minigrad_ckpt import course (the course: docs/course.md)"),
    ("minigrad_ckpt.cuda", "mg.cuda"),
]


def _first_paragraph(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    para = doc.split("\n\n")[0].strip()
    return " ".join(para.split())


def _signature(obj: object) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""
    # A sentinel default (``_UNSET = object()``) prints its address, which changes every run:
    # the page would differ on each regeneration
    sig = re.sub(r"<object object at 0x[0-9a-f]+>", "<unset>", sig)
    return re.sub(r"<function (\S+) at 0x[0-9a-f]+>", r"\1", sig)  # a function default: its name


def _value(obj: object) -> str:
    """A constant as Python writes it; a set in sorted order (its own order changes with the hash seed)."""
    if isinstance(obj, (set, frozenset)):
        inner = ", ".join(repr(v) for v in sorted(obj, key=repr))
        return f"{type(obj).__name__}({{{inner}}})"
    return repr(obj)


def _class_members(cls: type) -> list[str]:
    lines = []
    for name, member in sorted(vars(cls).items()):
        if name.startswith("_") and name not in ("__call__", "__getitem__", "__len__", "__iter__"):
            continue
        if isinstance(member, property):
            kind, sig, doc = "property", "", _first_paragraph(member)
        elif isinstance(member, (staticmethod, classmethod)):
            fn = member.__func__
            kind, sig, doc = type(member).__name__, _signature(fn), _first_paragraph(fn)
        elif inspect.isfunction(member):
            kind, sig, doc = "method", _signature(member), _first_paragraph(member)
        else:
            continue
        lines.append(f"  - `{name}{sig}`" + (f" ({kind})" if kind != "method" else "") + (f": {doc}" if doc else ""))
    return lines


def _own_doc(obj: object) -> str | None:
    """The object's own docstring: a class's, not one inherited from its base."""
    if inspect.isclass(obj):
        return obj.__dict__.get("__doc__")
    return getattr(obj, "__doc__", None)


def undocumented() -> list[str]:
    """Public classes and functions without a docstring of their own (the docs test wants none)."""
    missing = []
    for modname, _ in MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and not (_own_doc(obj) or "").strip():
                missing.append(f"{modname}.{name}")
    return missing


def generate() -> str:
    out = ["# API reference", "",
           "Generated from the docstrings by `python docs/gen_api.py` (a test keeps it current).", ""]
    for modname, how in MODULES:
        mod = importlib.import_module(modname)
        out += [f"## `{modname}`", "", f"*{how}* — {_first_paragraph(mod)}", ""]
        declared = _sections(modname)
        in_sections = {name for _, names in declared for name in names}
        out += _entries(mod, [name for name in getattr(mod, "__all__", []) if name not in in_sections])
        for title, names in declared:
            out += ["", f"### {title}", ""] + _entries(mod, names)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _sections(modname: str) -> list[tuple[str, list[str]]]:
    """``(title, names)`` of each section the table of public names exports from ``modname``."""
    from minigrad_ckpt.functional import public_names

    return [(s.title, [row.name for row in s.names]) for s in public_names.SECTIONS if s.home == modname]


def _entries(mod: object, names: list[str]) -> list[str]:
    out = []
    for name in names:
        obj = getattr(mod, name)
        if inspect.ismodule(obj):
            out.append(f"- **`{name}`** — module: {_first_paragraph(obj)}")
        elif inspect.isclass(obj):
            doc = " ".join((_own_doc(obj) or "").split("\n\n")[0].split())
            out.append(f"- **class `{name}{_signature(obj)}`** — {doc}")
            out += _class_members(obj)
        elif callable(obj):
            out.append(f"- **`{name}{_signature(obj)}`** — {_first_paragraph(obj)}")
        else:
            out.append(f"- **`{name}`** = `{_value(obj)}`")
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    target = Path(__file__).with_name("api.md")
    target.write_text(generate(), encoding="utf-8")
    print(f"wrote {target}")
