"""Regenerate the pictures in docs/img: ``python docs/make_pictures.py``.

- ``tape.svg``: the tape of a small expression after backward, values and
  gradients inline (``mg.viz.to_dot`` + Graphviz's ``dot``)
- ``tape-checkpointed.svg``: the same inside a checkpoint, before backward:
  dropped values dashed
- ``checkpoint-memory.png``: the memory ledger's timeline of one training step
  of a 32-layer MLP under four policies (``examples/checkpoint_memory.py``,
  needs matplotlib)
- ``checkpoint-levels.svg`` and ``checkpoint-remat.svg``: ledger timelines of
  the three levels of checkpointing -- one level of segments, nested segments,
  and ``remat`` policies on a graph -- drawn as SVG by :func:`timeline_svg`
  (plain text: needs nothing)
- ``explorer.png``: the tape explorer (``mg.viz.explore``) of a small
  checkpointed model, stepped to the replay of its segment, as headless
  Chromium shows it (needs Debian's ``chromium`` and ``chromium-driver``;
  ``python docs/make_pictures.py explorer`` makes only this one)

:func:`graphs` builds the DOT text of each graph picture; it needs nothing but
the package, so the tests check every picture's source even where Graphviz is
not installed, and render it where it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt import checkpoint as ck  # noqa: E402

IMG = Path(__file__).with_name("img")


def graphs() -> dict[str, str]:
    """File name -> DOT text of every graph picture."""
    mg.manual_seed(0)
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    names = {id(x): "x", id(w): "w"}
    loss = mg.tanh(x * w).sum()
    loss.backward(retain_graph=True)  # gradients on the leaves, saved values kept for the picture
    out = {"tape.svg": mg.viz.to_dot(loss, names)}

    def block(t):
        return mg.tanh(t * w) * 2.0

    y = ck.checkpoint(block, x)
    out["tape-checkpointed.svg"] = mg.viz.to_dot((y * y).sum(), names)
    return out


COLOURS = ("#444444", "#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def timeline_svg(series: dict[str, list[int]], title: str, width: int = 720, height: int = 300) -> str:
    """The ledger's bytes over its events, one polyline per run, as an SVG document."""
    top = max(max(v or [0]) for v in series.values()) or 1
    left, right, upper, lower = 60, 10, 30, 30 + 18 * len(series)
    w, h = width - left - right, height - upper - lower
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="12"><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{left}" y="18" font-size="14">{title}</text>',
             f'<line x1="{left}" y1="{upper + h}" x2="{left + w}" y2="{upper + h}" stroke="black"/>',
             f'<line x1="{left}" y1="{upper}" x2="{left}" y2="{upper + h}" stroke="black"/>',
             f'<text x="4" y="{upper + 10}">{top / 1024:.0f} KiB</text><text x="4" y="{upper + h}">0</text>']
    for k, (name, values) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        n = max(len(values) - 1, 1)
        points = " ".join(f"{left + w * i / n:.1f},{upper + h * (1 - v / top):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
        y = upper + h + 18 * (k + 1)
        parts.append(f'<rect x="{left}" y="{y - 9}" width="12" height="3" fill="{colour}"/>'
                     f'<text x="{left + 18}" y="{y}">{name}: peak {max(values or [0]) / 1024:.1f} KiB</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _saved(timeline: list) -> list[int]:
    return [saved for _, _, saved, _ in timeline]


def ledger_pictures() -> dict[str, str]:
    """File name -> SVG of each ledger-timeline picture (one training step each)."""
    from minigrad_ckpt import nn
    from minigrad_ckpt.nn import functional as F

    mg.manual_seed(0)
    layers = [nn.Sequential(nn.Linear(64, 64), nn.Tanh()) for _ in range(48)]
    x = mg.randn(16, 64)
    a = 16 * 64 * 4
    profile = ck.profile_chain(layers, x)
    plans = {"no checkpointing": ck.NoCheckpointing().plan(48),
             "one level (smallest)": ck.flat_plan_for_budget(profile, ck.flat_min_peak_bytes(profile)),
             "nested, 6 layers' budget": ck.plan_for_budget(profile, 6 * a)}
    levels = {}
    for name, plan in plans.items():
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, x).sum().backward()
        levels[name] = _saved(ledger.timeline)
    out = {"checkpoint-levels.svg": timeline_svg(levels, "48-layer tanh MLP: one level of segments, and nested")}

    convs = [(nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)) for _ in range(6)]

    def resnet(policy):
        def run(t):
            for c1, c2 in convs:
                def block(h, c1=c1, c2=c2):
                    return F.relu(h + c2(F.relu(c1(h))))
                t = block(t) if policy is None else ck.remat(block, policy)(t)
            return t
        return run

    img = mg.randn(4, 8, 16, 16)
    runs = {"no checkpointing": None, "remat save_everything": ck.save_everything,
            "remat save_matmuls": ck.save_matmuls, "remat save_nothing": ck.save_nothing}
    graph = {}
    for name, policy in runs.items():
        with mg.memory.track() as ledger:
            resnet(policy)(img).sum().backward()
        graph[name] = _saved(ledger.timeline)
    out["checkpoint-remat.svg"] = timeline_svg(graph, "a 6-block residual net, each block a remat region, by policy")
    return out


def explorer_page(path: Path) -> Path:
    """The explorer page of the model docs/tape.md explores: two linear layers, the first one
    checkpointed; forward pass and explore inside one ``mg.memory.track()``."""
    from minigrad_ckpt import nn

    mg.manual_seed(0)
    layer1, layer2 = nn.Linear(3, 4), nn.Linear(4, 1)
    x = mg.randn(8, 3)
    names = {id(p): f"layer{i}.{n}" for i, layer in ((1, layer1), (2, layer2)) for n, p in layer.named_parameters()}
    with mg.memory.track():
        h = ck.checkpoint(lambda t: mg.tanh(layer1(t)), x)
        loss = (layer2(h) ** 2).mean()
        return mg.viz.explore(loss, path, names=names)


def explorer_screenshot(path: Path) -> Path:
    """A PNG of :func:`explorer_page` in headless Chromium, stepped to the replay."""
    sys.path.insert(0, str(ROOT / "tests"))
    from webdriver import Browser, browser_or_skip_reason

    found = browser_or_skip_reason()
    if isinstance(found, str):
        raise RuntimeError(found)
    page = explorer_page(path.with_suffix(".html"))
    browser = Browser(*found, window=(1640, 860))
    try:
        browser.get(page.resolve().as_uri())
        steps = browser.execute("return JSON.parse(document.getElementById('tape-data').textContent).steps")
        replay = next(s["index"] for s in steps if s["replay"] is not None)
        nxt = browser.find('[data-action="next"]')
        for _ in range(replay + 1):
            browser.click(nxt)
        path.write_bytes(browser.screenshot())
    finally:
        browser.close()
        page.unlink()
    return path


def main(argv: list[str] | None = None) -> None:
    IMG.mkdir(exist_ok=True)
    if (argv or [])[:1] == ["explorer"]:
        print(f"wrote {explorer_screenshot(IMG / 'explorer.png')}")
        return
    explorer_screenshot(IMG / "explorer.png")
    for name, dot in graphs().items():
        mg.viz.render(dot, IMG / name)
    for name, svg in ledger_pictures().items():
        (IMG / name).write_text(svg)
    import checkpoint_memory

    checkpoint_memory.main(["--png", str(IMG / "checkpoint-memory.png")])
    print(f"wrote pictures to {IMG}")


if __name__ == "__main__":
    main(sys.argv[1:])
