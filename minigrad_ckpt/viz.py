"""Pictures of the engine: the tape as a Graphviz graph, memory over time.

``to_dot(tensor)`` returns Graphviz DOT text of the tape that produced
``tensor``: one box per op (name, output dtype and shape, and small values
inline), an ellipse per leaf that requires grad (value and ``.grad``), per
constant input and for ``tensor`` itself, edges from inputs to consumers, and
a legend of every colour and style used.  With checkpointing, nodes whose
saved values were dropped are drawn dashed and orange, nodes that keep theirs
solid and blue, nodes whose values backward freed grey.  ``render(...)``
turns it into SVG/PNG with the ``dot`` program when it is installed.

``plot_memory(timelines, path)`` draws the memory ledger's timelines (bytes
of activations held at every event of a step) with matplotlib; without a
path it returns a text chart; asking for a file without matplotlib is an
error that names the package to install.

``explore(loss, "tape.html")`` writes the tape explorer: one self-contained
HTML page that plays the backward pass node by node, with values, gradients,
checkpoint replays and the memory ledger (:mod:`minigrad_ckpt.explorer`).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from .tape import DROPPED, FREED, Node, walk
from .tensor import Tensor

__all__ = ["to_dot", "render", "plot_memory", "text_chart", "explore"]


def _fmt_shape(shape: tuple[int, ...]) -> str:
    return str(tuple(shape))  # (2,) and () as Python writes them


def _fmt_values(value: Any, max_values: int) -> str | None:
    """A small array inline (``[1, 2.5, -3]``), or None when it has more than ``max_values`` elements."""
    if value is None or not hasattr(value, "shape"):
        return None if value is None else f"{value:.4g}" if isinstance(value, float) else repr(value)
    if value.size > max_values:
        return None
    from .backend import to_host

    host = to_host(value)
    as_number = complex if host.dtype.kind == "c" else float  # float() would drop an imaginary part
    flat = [f"{as_number(v):.4g}" for v in host.reshape(-1)]
    return flat[0] if value.ndim == 0 else "[" + ", ".join(flat) + "]"


def _dot_text(text: Any) -> str:
    """``text`` as it reads, inside a quoted DOT label: a quote would end the label (and what follows
    would be read as DOT), a backslash starts DOT's own codes (``\\N`` the node's name, ``\\l`` a line
    break), so both are escaped; a line break becomes DOT's; a lone surrogate, which has no UTF-8
    bytes, is spelled as its escape."""
    text = str(text).encode("utf-8", "backslashreplace").decode("utf-8")
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def _label(node: Node) -> str:
    attrs = []
    for k, v in node.op.attrs.items():
        if k in ("in_shape", "index", "key", "x_shape", "w_shape") or hasattr(v, "shape"):
            continue
        text = repr(v)
        attrs.append(_dot_text(f"{k}={text if len(text) <= 24 else text[:21] + '...'}"))
    head = _dot_text(node.op.name) + (f"\\n{', '.join(attrs)}" if attrs else "")
    return f"{head}\\n{node.dtype} {_fmt_shape(node.shape)}"


#: How each kind of thing is drawn; the legend explains the ones a picture uses.
_STYLES = {
    "kept": ('shape=box, style="filled", fillcolor="#dbe8f7", color="#2b6cb0"',
             "blue box: an op whose saved values are kept for backward"),
    "dropped": ('shape=box, style="dashed,filled", fillcolor="#fde2c8", color="#d9822b"',
                "dashed orange box: an op in a checkpointed segment; its values were dropped and are "
                "recomputed in backward"),
    "freed": ('shape=box, style="filled", fillcolor="#eeeeee", color="#999999"',
              "grey box: an op whose saved values backward has already freed"),
    "leaf": ('shape=ellipse, style=filled, fillcolor="#e6f4ea", color="#2f855a"',
             "green ellipse: a leaf that requires grad (a parameter or input); grad = its .grad"),
    "const": ('shape=ellipse, style="dotted", color="#777777", fontcolor="#555555"',
              "dotted ellipse: a constant input (requires no grad)"),
    "root": ('shape=ellipse, style="bold", color="#2b6cb0"', "bold ellipse: the tensor the picture is of"),
}


def to_dot(tensor: Tensor, names: dict[int, str] | None = None, values: bool = True,
           max_values: int = 4) -> str:
    """Graphviz DOT text of the tape that produced ``tensor``.

    Every op is a box (its name, static attributes, output dtype and shape);
    leaves that require grad, constant inputs and ``tensor`` itself are
    ellipses; a legend explains each colour and line style the picture uses.
    With ``values`` (the default), arrays of at most ``max_values`` elements
    are written inline, as micrograd's ``draw_dot`` does: a leaf's value and
    ``.grad``, a constant's value, ``tensor``'s value, and an op's output where
    the tape holds it (the tape keeps only what backward needs, so an op whose
    output no backward reads shows its shape alone; intermediate gradients are
    not kept at all).

    ``names`` maps ``id(leaf tensor)`` to a label (for instance
    ``{id(p): n for n, p in model.named_parameters()}``).
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dot needs a Tensor, got {type(tensor).__name__}")
    nodes = walk(tensor)
    from .explorer.record import known_outputs

    dot = _Dot(names or {}, values, max_values, known_outputs(nodes))
    for n in nodes:
        dot.add_op(n)
    dot.add_leaves()
    dot.add_output(tensor)
    return dot.text()


class _Dot:
    """The DOT text of one tape, written box by box; it remembers the styles it used for the legend."""

    def __init__(self, names: dict[int, str], values: bool, max_values: int, outputs: dict[Node, Any]) -> None:
        self.names, self.values, self.max_values, self.outputs = names, values, max_values, outputs
        self.lines = ["digraph tape {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
        self.used: set[str] = set()
        self.leaves: dict[int, Tensor] = {}
        self.leaf_ids: dict[int, int] = {}  # small stable ids for the DOT text
        self.n_const = 0

    def leaf_id(self, t: Tensor) -> str:
        self.leaves[id(t)] = t
        return f"leaf{self.leaf_ids.setdefault(id(t), len(self.leaf_ids))}"

    def value_line(self, label: str, v: Any) -> str:
        text = _fmt_values(v, self.max_values) if self.values else None
        return f"\\n{label}{text}" if text is not None else ""

    def add_op(self, n: Node) -> None:
        """The op's box and an edge from each input (another op, a leaf, or a constant's own box)."""
        kind = "dropped" if n.saved is DROPPED else "freed" if n.saved is FREED else "kept"
        self.used.add(kind)
        label = f"#{n.seq} {_label(n)}" + self.value_line("= ", self.outputs.get(n))
        self.lines.append(f'  n{n.seq} [{_STYLES[kind][0]}, label="{label}"];')
        saved_inputs = n.saved[1:] if isinstance(n.saved, tuple) else (None,) * len(n.inputs)
        for e, v in zip(n.inputs, saved_inputs):
            if type(e) is Node:
                self.lines.append(f"  n{e.seq} -> n{n.seq};")
            elif e is not None:
                self.lines.append(f"  {self.leaf_id(e)} -> n{n.seq};")
            else:
                self.add_constant(v, n)

    def add_constant(self, v: Any, consumer: Node) -> None:
        self.used.add("const")
        self.n_const += 1
        shown = self.value_line("", v) if v is not None else ""
        text = ("constant" + shown) if shown else "constant"
        self.lines.append(f'  c{self.n_const} [{_STYLES["const"][0]}, label="{text}"];')
        self.lines.append(f'  c{self.n_const} -> n{consumer.seq} [style="dotted", color="#777777"];')

    def add_leaves(self) -> None:
        for k, t in self.leaves.items():
            self.used.add("leaf")
            head = f"{_dot_text(self.names.get(k, 'leaf'))}\\n{t.dtype} {_fmt_shape(t.shape)}"
            label = head + self.value_line("value ", t._data)
            if t.grad is not None:
                label += self.value_line("grad ", t.grad._data)
            self.lines.append(f'  leaf{self.leaf_ids[k]} [{_STYLES["leaf"][0]}, label="{label}"];')

    def add_output(self, tensor: Tensor) -> None:
        self.used.add("root")
        label = f"{_dot_text(self.names.get(id(tensor), 'output'))}\\n{tensor.dtype} {_fmt_shape(tensor.shape)}"
        label += self.value_line("= ", tensor._data)
        if tensor._node is None:
            label += "\\n(no tape: nothing it depends on requires grad)"
        self.lines.append(f'  out [{_STYLES["root"][0]}, label="{label}"];')
        if tensor._node is not None:  # (the node drawn: a custom Function's output piece, not its grad_fn)
            self.lines.append(f"  n{tensor._node.seq} -> out;")

    def text(self) -> str:
        legend = "\\l".join(_STYLES[k][1] for k in _STYLES if k in self.used) + "\\l"
        return "\n".join(self.lines + [f'  legend [shape=note, fontsize=9, label="{legend}"];', "}"]) + "\n"


def explore(loss: Tensor, path: str | Path, names: dict[int, str] | None = None,
            retain_graph: bool | None = None, max_values: int = 8, title: str | None = None) -> Path:
    """Write the tape explorer for ``loss`` to ``path``: one self-contained HTML page that plays
    the backward pass node by node (values, gradients, checkpoint replays, the memory ledger).

    It runs that backward pass (``mg.backward_steps``): afterwards the leaves'
    ``.grad`` hold what ``loss.backward()`` leaves, and the graph is freed unless
    ``retain_graph=True``.  See :func:`minigrad_ckpt.explorer.page.explore`.
    """
    from .explorer.page import explore as write_explorer  # loaded when first used, not with the package

    return write_explorer(loss, path, names, retain_graph, max_values, title)


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
    """Draw the ledger's timelines: a PNG/SVG/PDF at ``path`` with matplotlib, or a text chart.

    Without ``path`` this returns the text chart (a string) and needs nothing.
    With ``path`` it writes the figure and returns the path; matplotlib is then
    required, and its absence is an ImportError that says what to install
    (a picture asked for is never silently skipped).
    """
    series = _series(timelines)
    if path is None:
        return text_chart(series)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            f"writing {Path(path).name} needs matplotlib, which is not installed: pip install "
            f"'minigrad-ckpt[viz]' (or pip install matplotlib); plot_memory(timelines) without a path "
            f"gives a text chart that needs nothing") from None
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
