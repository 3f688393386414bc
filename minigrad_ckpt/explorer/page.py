"""The explorer's HTML page: one self-contained file, drawn here, stepped by its inlined script.

The page holds everything it needs: the CSS and the script (``page.css`` and
``page.js`` beside this module) are inlined, the data (:mod:`.record`) is
embedded as JSON, the graph and the ledger chart are SVG drawn here, and a
Content-Security-Policy forbids every load from elsewhere -- it opens from
disk with no network.

The contract, for tests and screen readers: the stepper's buttons carry
``data-action="next"`` and ``data-action="prev"`` (and ``"first"``,
``"last"``); every op of the graph is an element with ``data-op`` (the op's
name) and ``data-step`` (the ``BackwardStep.index`` at which backward reaches
it); the op of the current step has ``aria-current="step"``; the page opens
before the first step (no op current).  Leaves are drawn too (``data-leaf``,
their name): they are not steps of their own but receive gradients at their
consumers' steps.  The ledger's mark (``#ledger-mark``) carries the current
step (``data-step``), its op (``data-op``), the bytes it released
(``data-released``) and the bytes held after it (``data-held``).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from ..tensor import Tensor
from .layout import BOX_H, BOX_W, layered_layout
from .record import record_backward

__all__ = ["explore", "write_page"]

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def explore(loss: Tensor, path: str | Path, names: dict[int, str] | None = None,
            retain_graph: bool | None = None, max_values: int = 8, title: str | None = None) -> Path:
    """Write the tape explorer for ``loss`` to ``path`` (one HTML file) and return the path.

    The page shows the graph that produced ``loss``, the values the tape keeps
    and the gradients backward sends (arrays of at most ``max_values``
    elements written out, statistics for larger ones), a stepper that plays
    the backward pass node by node -- forward and back -- with checkpointed
    segments and their replays marked, and the memory ledger's timeline with
    the current step highlighted.

    It runs the backward pass to get them (``mg.backward_steps``, the same pass
    as ``loss.backward()``): afterwards the leaves' ``.grad`` hold what
    ``loss.backward()`` leaves, and the graph is freed unless
    ``retain_graph=True``.  For the ledger's timeline of a checkpointed model,
    run the forward pass inside ``mg.memory.track()`` (see
    :mod:`minigrad_ckpt.explorer.record`).  ``names`` maps ``id(leaf)`` to a
    label, as in :func:`minigrad_ckpt.viz.to_dot`.
    """
    _check_destination(Path(path))
    data = record_backward(loss, names, retain_graph, max_values)
    return write_page(data, path, title)


def _check_destination(path: Path) -> None:
    """Refuse a page that could not be written, before the pass: the pass consumes the graph (unless
    ``retain_graph``), so an error found when writing would leave nothing to explore again."""
    if path.is_dir():
        raise IsADirectoryError(f"explore: {path} is a directory; name the page's file (tape.html in it?)")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"explore: the folder {path.parent} to write {path.name} in does not exist")


def write_page(data: dict[str, Any], path: str | Path, title: str | None = None) -> Path:
    """Write the page for explorer data (:func:`~minigrad_ckpt.explorer.record.record_backward`)."""
    path = Path(path)
    # A lone surrogate (a file name that is not UTF-8, read by Python as surrogate escapes; any str
    # given as a name) has no UTF-8 bytes: it is written as its escape, ``\udcff``, not refused.
    path.write_text(render_page(data, title), encoding="utf-8", errors="backslashreplace")
    return path


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _embed_json(data: dict[str, Any]) -> str:
    """JSON that cannot end its <script> element early (``<`` escaped; still the same JSON)."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(data: dict[str, Any], title: str | None = None) -> str:
    """The page's HTML text."""
    title = title or f"Tape explorer: {data['nodes'][-1]['op'] if data['nodes'] else 'empty'} output"
    n_seg = len(data["segments"])
    sub = (f"{len(data['nodes'])} ops, {len(data['leaves'])} leaves"
           + (f", {n_seg} checkpointed segment{'s' if n_seg != 1 else ''}" if n_seg else "")
           + f"; backward takes {len(data['steps'])} steps, newest node first")
    before = ("<h2>Before the first step</h2><p>The forward pass recorded the ops on the tape. Press "
              "<strong>next</strong> (or the right arrow key) to run backward one node at a time, in reverse "
              "recording order: each node's gradient is complete before it is used.</p>")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">', f"<title>{html.escape(title)}</title>",
        f"<style>\n{_asset('page.css')}</style>", "</head>", "<body>",
        "<header>", f"<h1>{html.escape(title)}</h1>", f'<p class="sub">{html.escape(sub)}</p>',
        '<nav class="stepper" aria-label="backward pass">',
        '<button type="button" data-action="first" title="before the first step">&#xAB; start</button>',
        '<button type="button" data-action="prev" title="previous step (left arrow)">&#x25C0; prev</button>',
        '<span id="position" aria-live="polite">before the first step</span>',
        '<button type="button" data-action="next" title="next step (right arrow)">next &#x25B6;</button>',
        '<button type="button" data-action="last" title="the last step">end &#xBB;</button>',
        "</nav>", "</header>", "<main>",
        f'<section id="graph" aria-label="the tape: ops and leaves">{_graph_svg(data)}</section>',
        "<aside>",
        f'<section id="step-info" aria-live="polite" data-before="{html.escape(before)}">{before}</section>',
        f'<section id="ledger"><h2>Memory ledger</h2>{_ledger_svg(data)}</section>',
        '<section id="details" data-before="&lt;p&gt;Click a node or a leaf to see it.&lt;/p&gt;">'
        "<p>Click a node or a leaf to see it.</p></section>",
        f'<section id="legend"><h2>Legend</h2>{_LEGEND}</section>',
        "</aside>", "</main>",
        f'<script type="application/json" id="tape-data">{_embed_json(data)}</script>',
        f"<script>\n{_asset('page.js')}</script>", "</body>", "</html>", ""])


_LEGEND = "".join(
    f'<div class="legend-row"><span class="swatch" style="{style}"></span>{text}</div>' for style, text in [
        ("background:#dbe8f7;border-color:#2b6cb0", "an op; its saved values are kept for backward"),
        ("background:#fde2c8;border-color:#d9822b;border-style:dashed",
         "an op in a checkpointed segment (badge: the segment); its values were dropped and a replay "
         "recomputes them"),
        ("background:#e6f4ea;border-color:#2f855a", "a leaf (a parameter or input that requires grad)"),
        ("background:#fff3f0;border-color:#c53030;border-width:3px", "the current step's op"),
        ("background:#eef0f3;border-color:#9aa5b1", "an op backward has passed"),
    ])


def _fmt(v: Any) -> str:
    return str(v)


def short(s: dict[str, Any] | None, width: int = 24) -> str:
    """An array summary in one short line: its elements, or its mean and norm."""
    if s is None:
        return ""
    if "values" in s:
        text = ", ".join(_fmt(v) for v in s["values"])
        text = text if not s["shape"] else f"[{text}]"
    else:
        text = f"mean {_fmt(s['mean'])}, norm {_fmt(s['norm'])}"
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def _shape(shape: list[int]) -> str:
    return str(tuple(shape))


def _graph_svg(data: dict[str, Any]) -> str:
    pos = layered_layout(data["nodes"], data["leaves"])
    width = max((x for x, _ in pos.values()), default=0) + BOX_W + 24
    height = max((y for _, y in pos.values()), default=0) + BOX_H + 24
    out = [f'<svg width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="the graph of the tape">',
           '<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#9aa5b1"/></marker></defs>']
    for n in data["nodes"]:
        for e in n["inputs"]:
            if e["kind"] in ("node", "leaf"):
                out.append(_edge(pos[e["ref"]], pos[n["id"]], e["ref"], n["id"]))
    steps = data["steps"]
    for n in data["nodes"]:
        x, y = pos[n["id"]]
        grad = short(steps[n["step"]]["grad_output"]) if n["step"] is not None else ""
        kind = "node dropped" if n["dropped"] else "node"
        seg = "" if n["segment"] is None else f' data-segment="{n["segment"]}"'
        lines = [f"#{n['seq']} {n['op']}", f"{n['dtype']} {_shape(n['shape'])}",
                 "= " + short(n["value"]) if n["value"] else "value not kept"]
        badge = "" if n["segment"] is None else (
            f'<text class="segment-badge" x="{BOX_W - 6}" y="14" text-anchor="end">seg {n["segment"]}</text>')
        out.append(_box(n["id"], kind, x, y, f'data-op="{html.escape(n["op"])}" data-step="{n["step"]}"{seg}',
                        lines, "grad " + grad, badge, _tooltip_node(n)))
    for leaf in data["leaves"]:
        x, y = pos[leaf["id"]]
        lines = [leaf["name"], f"{leaf['dtype']} {_shape(leaf['shape'])}", "= " + short(leaf["value"])]
        out.append(_box(leaf["id"], "leaf", x, y, f'data-leaf="{html.escape(leaf["name"])}"', lines,
                        ".grad " + short(leaf["grad"]), "", f"leaf {leaf['name']}"))
    out.append("</svg>")
    return "".join(out)


def _tooltip_node(n: dict[str, Any]) -> str:
    where = "" if n["segment"] is None else f", checkpointed segment {n['segment']}"
    return f"#{n['seq']} {n['op']} ({n['attrs']}){where}; backward step {n['step']}"


def _edge(a: tuple[int, int], b: tuple[int, int], src: str, dst: str) -> str:
    x1, y1 = a[0] + BOX_W, a[1] + BOX_H // 2
    x2, y2 = b[0] - 2, b[1] + BOX_H // 2
    mid = (x1 + x2) / 2
    return (f'<path class="edge" data-from="{src}" data-to="{dst}" marker-end="url(#arrow)" '
            f'd="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}"/>')


def _box(ident: str, kind: str, x: int, y: int, attrs: str, lines: list[str], grad: str, badge: str,
         tip: str) -> str:
    texts = "".join(f'<text class="{"title" if i == 0 else "meta"}" x="8" y="{15 + 12 * i}">{html.escape(t)}</text>'
                    for i, t in enumerate(lines))
    return (f'<g class="{kind}" id="{ident}" {attrs} transform="translate({x},{y})" tabindex="0">'
            f"<title>{html.escape(tip)}</title>"
            f'<rect width="{BOX_W}" height="{BOX_H}" rx="6"/>{badge}{texts}'
            f'<text class="grad" x="8" y="{15 + 12 * len(lines)}">{html.escape(grad)}</text></g>')


def _ledger_svg(data: dict[str, Any]) -> str:
    """Bytes released at each step (bars; orange: a replay) and bytes held after it (line)."""
    steps, ledger = data["steps"], data["ledger"]
    if ledger["source"] == "off":
        return ('<p>The ledger was off, and this tape has checkpointed segments whose kept values it did not '
                'count: run the forward pass inside <code>with mg.memory.track():</code> to see the timeline.'
                '</p><svg id="ledger-chart" width="0" height="0"><rect id="ledger-mark" data-x0="0" x="0" '
                'y="0" width="0" height="0" data-step="-1" data-released=""/></svg>')
    w, h, left, top, bottom = 376, 150, 64, 10, 20
    plot_w, plot_h = w - left - 8, h - top - bottom
    n = max(len(steps), 1)
    bw = plot_w / (n + 1)  # slot 0: before the first step
    held = [ledger["held_saved"] + ledger["held_grad"]] + [s["held_saved"] + s["held_grad"] for s in steps]
    top_value = max(held + [s["released_bytes"] for s in steps] + [1])

    def y_of(v: float) -> float:
        return top + plot_h * (1 - v / top_value)

    out = [f'<svg id="ledger-chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
           f'aria-label="bytes released per step and bytes held after it">',
           f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{w - 8}" y2="{top + plot_h}"/>',
           f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>',
           f'<text class="axis-label" x="{left - 4}" y="{top + 8}" text-anchor="end">{_kib(top_value)}</text>',
           f'<text class="axis-label" x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>',
           f'<text class="axis-label" x="{left}" y="{h - 4}">before</text>',
           f'<text class="axis-label" x="{w - 8}" y="{h - 4}" text-anchor="end">step {len(steps) - 1}</text>']
    for s in steps:
        x = left + bw * (s["index"] + 1)
        y = y_of(s["released_bytes"])
        cls = "ledger-bar replay" if s["replay"] is not None else "ledger-bar"
        out.append(f'<rect class="{cls}" data-step="{s["index"]}" data-released="{s["released_bytes"]}" '
                   f'x="{x:.2f}" y="{y:.2f}" width="{max(bw - 1, 1):.2f}" height="{top + plot_h - y:.2f}">'
                   f'<title>step {s["index"]} ({html.escape(s["op"])}): released {s["released_bytes"]} B, '
                   f'held {held[s["index"] + 1]} B after</title></rect>')
    points = " ".join(f"{left + bw * (i + 0.5):.2f},{y_of(v):.2f}" for i, v in enumerate(held))
    out.append(f'<polyline class="ledger-held" points="{points}"/>')
    out.append(f'<rect id="ledger-mark" data-x0="{left:.2f}" x="{left:.2f}" y="{top}" width="{bw:.2f}" '
               f'height="{plot_h}" data-step="-1" data-released="" visibility="hidden"/>')
    out.append("</svg>")
    source = {"tracked": "measured while the forward pass was tracked (mg.memory.track())",
              "counted": "the tape's saved arrays counted before the pass, as the forward pass would have"}
    out.append(f'<p class="axis-label">Bars: bytes released at each step (orange: a replay). Line: bytes held '
               f'after it (saved values and gradients in flight). Ledger {source[ledger["source"]]}.</p>')
    return "".join(out)


def _kib(v: int) -> str:
    return f"{v} B" if v < 1024 else f"{v / 1024:.1f} KiB"
