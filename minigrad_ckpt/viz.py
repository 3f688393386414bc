"""Pictures of the engine: the tape as a Graphviz graph, memory over time.

``to_dot(tensor)`` returns Graphviz DOT text of the tape that produced
``tensor``: one box per op (name, output dtype and shape), one ellipse per
leaf that requires grad, edges from inputs to consumers.  With checkpointing,
nodes whose saved values were dropped are drawn dashed and orange, nodes
that keep theirs solid and blue.  ``render(...)`` turns it into SVG/PNG with
the ``dot`` program when it is installed.

``plot_memory(timelines, path)`` draws the memory ledger's timelines (bytes
of activations held at every event of a step) with matplotlib, or returns a
text chart when matplotlib is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from .tape import DROPPED, FREED, Node, walk
from .tensor import Tensor

__all__ = ["to_dot", "render", "plot_memory", "text_chart"]


def _fmt_shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ")"


def _label(node: Node) -> str:
    attrs = []
    for k, v in node.op.attrs.items():
        if k in ("in_shape", "index", "key", "x_shape", "w_shape") or hasattr(v, "shape"):
            continue
        text = repr(v)
        attrs.append(f"{k}={text if len(text) <= 24 else text[:21] + '...'}")
    head = node.op.name + (f"\\n{', '.join(attrs)}" if attrs else "")
    return f"{head}\\n{node.dtype} {_fmt_shape(node.shape)}"


def to_dot(tensor: Tensor, names: dict[int, str] | None = None) -> str:
    """Graphviz DOT text of the tape that produced ``tensor``.

    ``names`` maps ``id(leaf tensor)`` to a label (for instance
    ``{id(p): n for n, p in model.named_parameters()}``).
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dot needs a Tensor, got {type(tensor).__name__}")
    names = names or {}
    lines = ["digraph tape {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
    nodes = walk(tensor)
    leaves: dict[int, Tensor] = {}
    leaf_ids: dict[int, int] = {}  # small stable ids for the DOT text

    def leaf_id(t: Tensor) -> str:
        leaves[id(t)] = t
        return f"leaf{leaf_ids.setdefault(id(t), len(leaf_ids))}"

    for n in nodes:
        if n.saved is DROPPED:
            style = 'style="dashed,filled", fillcolor="#fde2c8", color="#d9822b"'
        elif n.saved is FREED:
            style = 'style="filled", fillcolor="#eeeeee", color="#999999"'
        else:
            style = 'style="filled", fillcolor="#dbe8f7", color="#2b6cb0"'
        lines.append(f'  n{n.seq} [shape=box, {style}, label="#{n.seq} {_label(n)}"];')
        for e in n.inputs:
            if type(e) is Node:
                lines.append(f"  n{e.seq} -> n{n.seq};")
            elif e is not None:
                lines.append(f"  {leaf_id(e)} -> n{n.seq};")
    for k, t in leaves.items():
        label = names.get(k, "leaf")
        lines.append(f'  leaf{leaf_ids[k]} [shape=ellipse, style=filled, fillcolor="#e6f4ea", '
                     f'label="{label}\\n{t.dtype} {_fmt_shape(t.shape)}"];')
    if tensor.grad_fn is None:
        lines.append(f'  out [shape=ellipse, label="{tensor.dtype} {_fmt_shape(tensor.shape)} (no tape)"];')
    if any(n.saved is DROPPED for n in nodes):
        lines.append('  legend [shape=note, label="dashed orange: values dropped (checkpointed)\\n'
                     'solid blue: values kept for backward"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(graph: Tensor | str, path: str | Path, format: str | None = None) -> Path:
    """Write ``graph`` (a Tensor, or DOT text) as an image with Graphviz's ``dot``.

    The format comes from the file suffix (``.svg``, ``.png``, ``.pdf``) unless
    given.  Without Graphviz, a RuntimeError says how to get it; the DOT text
    itself (``to_dot``) needs nothing.
    """
    dot_text = to_dot(graph) if isinstance(graph, Tensor) else str(graph)
    path = Path(path)
    fmt = format or path.suffix.lstrip(".") or "svg"
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "rendering needs the Graphviz 'dot' program, which is not installed: apt install graphviz "
            "(Debian/Ubuntu), brew install graphviz (macOS) or conda install graphviz; to_dot() gives the "
            "DOT text, which any Graphviz viewer can show"
        )
    r = subprocess.run([exe, f"-T{fmt}", "-o", str(path)], input=dot_text.encode(), capture_output=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"dot failed: {r.stderr.decode(errors='replace').strip()}")
    return path


def _series(timelines: Any) -> dict[str, list[float]]:
    """Accept a Ledger, a list of (event, phase, saved, grad) rows or of numbers, or a dict of either."""
    def values(rows: Any) -> list[float]:
        rows = rows.timeline if hasattr(rows, "timeline") else rows
        return [row[2] if isinstance(row, tuple) else float(row) for row in rows]

    if isinstance(timelines, dict):
        return {name: values(tl) for name, tl in timelines.items()}
    return {"memory": values(timelines)}


def text_chart(timelines: Any, width: int = 64, height: int = 8, unit: str = "KiB",
               x_label: str = "events (forward, then backward)") -> str:
    """The series as a text chart: one panel per series, on a common scale.

    ``timelines`` is a ledger, its timeline, a list of numbers, or a dict of
    those (one panel each).  With ``unit="KiB"`` values are bytes shown in KiB
    (memory timelines); with ``unit=""`` they are plotted as they are (a loss
    curve).  Each column shows the highest value in its slice of the series.
    """
    series = _series(timelines)
    scale = 1024.0 if unit == "KiB" else 1.0
    finite = [v for vs in series.values() for v in vs if v == v]
    top = max(finite, default=1.0)
    bottom = 0.0 if unit == "KiB" else min(finite, default=0.0)
    span = (top - bottom) or 1.0
    lines = []
    for name, vals in series.items():
        if not vals:
            continue
        cols = []
        for i in range(width):
            lo = int(i * len(vals) / width)
            hi = max(int((i + 1) * len(vals) / width), lo + 1)
            cols.append(max(vals[lo:hi]))
        if unit == "KiB":
            lines.append(f"{name}: peak {max(vals) / scale:.0f} KiB")
        else:
            lines.append(f"{name}: first {vals[0]:.4g}, last {vals[-1]:.4g}, min {min(vals):.4g} "
                         f"(axis {bottom:.4g} .. {top:.4g})")
        for row in range(height, 0, -1):
            level = bottom + span * (row - 0.5) / height
            lines.append("  |" + "".join("#" if c >= level else " " for c in cols))
        lines.append("  +" + "-" * width + f"> {x_label}")
    return "\n".join(lines)


def plot_memory(timelines: Any, path: str | Path | None = None,
                title: str = "activation memory held by the tape") -> Any:
    """Draw the ledger's timelines: a PNG/SVG at ``path`` with matplotlib, else a text chart.

    Returns the written path, or the text chart (a string) when matplotlib is
    missing or no path is given.
    """
    series = _series(timelines)
    if path is None:
        return text_chart(series)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return text_chart(series)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for name, values in series.items():
        ax.plot([v / 1024 for v in values], label=f"{name} (peak {max(values or [0]) / 1024:.0f} KiB)")
    ax.set_xlabel("ledger event (forward pass, then backward)")
    ax.set_ylabel("KiB")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
