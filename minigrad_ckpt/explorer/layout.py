"""A layered layout of the tape: columns by depth, rows ordered to keep edges short.

A node's column is one more than the deepest node it reads, so every edge
goes left to right, in the order the forward pass ran; then each node that
feeds others moves right, up to one column before its first consumer (a
slice of a parameter taken late in the model sits next to where it is used,
not in column 1 with a long edge).  A leaf sits one column left of its
leftmost consumer.  Within a column, items are ordered by
the mean row of the inputs already placed (the barycentre heuristic of
Sugiyama-style drawings: one sweep, no crossing minimisation beyond that), so
a chain stays on a line (an item takes the row of that mean when it is free);
leaves come after the nodes of their column.
"""

from __future__ import annotations

from typing import Any

__all__ = ["layered_layout", "BOX_W", "BOX_H"]

BOX_W, BOX_H = 164, 62      # one box, in SVG pixels
COL_W, ROW_H = 200, 80      # the grid the boxes sit on
MARGIN = 16


def layered_layout(nodes: list[dict[str, Any]], leaves: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """``{id: (x, y)}`` (the top-left corner of each box) for the explorer's node and leaf records,
    nodes in recording order, each with ``inputs`` of ``{"kind", "ref"}``."""
    depth: dict[str, int] = {}
    leaf_col: dict[str, int] = {}
    for n in nodes:
        reads = [depth[e["ref"]] for e in n["inputs"] if e["kind"] == "node"]
        depth[n["id"]] = 1 + max(reads, default=0)
    consumers: dict[str, list[str]] = {}
    for n in nodes:
        for e in n["inputs"]:
            if e["kind"] == "node":
                consumers.setdefault(e["ref"], []).append(n["id"])
    for n in reversed(nodes):  # consumers come later on the tape: their columns are final
        if n["id"] in consumers:
            depth[n["id"]] = min(depth[c] for c in consumers[n["id"]]) - 1
    for n in nodes:
        for e in n["inputs"]:
            if e["kind"] == "leaf":
                leaf_col[e["ref"]] = min(leaf_col.get(e["ref"], depth[n["id"]]), depth[n["id"]] - 1)
    columns: dict[int, list[tuple[str, list[str]]]] = {}
    for n in nodes:
        columns.setdefault(depth[n["id"]], []).append(
            (n["id"], [e["ref"] for e in n["inputs"] if e["kind"] in ("node", "leaf")]))
    for leaf in leaves:
        columns.setdefault(leaf_col.get(leaf["id"], 0), []).append((leaf["id"], []))
    row: dict[str, int] = {}
    pos: dict[str, tuple[int, int]] = {}
    for col in sorted(columns):
        items = columns[col]
        order = {ident: k for k, (ident, _) in enumerate(items)}
        ranked = sorted(items, key=lambda item: _rank(item, row, order))
        last = -1
        for ident, reads in ranked:
            wanted = _rank((ident, reads), row, order)[1]
            last = max(last + 1, round(wanted))
            row[ident] = last
            pos[ident] = (MARGIN + col * COL_W, MARGIN + last * ROW_H)
    return pos


def _rank(item: tuple[str, list[str]], row: dict[str, int], order: dict[str, int]) -> tuple[int, float, int]:
    """Sort key in a column: nodes by the mean row of their placed inputs, then leaves; ties by order."""
    ident, reads = item
    if not reads:
        return (1, 0.0, order[ident])  # a leaf: after the nodes of its column
    placed = [row[r] for r in reads if r in row]
    return (0, sum(placed) / len(placed) if placed else 0.0, order[ident])
