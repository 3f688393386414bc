"""The tape explorer without a browser: ``mg.viz.explore`` writes one self-contained page whose
contract attributes and embedded data are what ``mg.backward_steps`` reports, step by step
(checkpoint replays and the memory ledger included); the pass it runs leaves what
``backward()`` leaves.  The page in a real browser: ``tests/test_explorer_browser.py``."""

from __future__ import annotations

import contextlib
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from explorer_programs import light, mlp, names, spy_on_steps  # tests/explorer_programs.py
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt.explorer import record_backward, summarize
from minigrad_ckpt.explorer.layout import BOX_H, BOX_W, layered_layout
from minigrad_ckpt.explorer.page import render_page


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each <script>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script: dict[str, str | None] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)

    def handle_data(self, data):
        if self._in_script is not None:
            self.scripts.append((self._in_script, data))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None


def _parse(text: str) -> _Elements:
    p = _Elements()
    p.feed(text)
    return p


def _page_data(page: _Elements) -> dict:
    [text] = [body for attrs, body in page.scripts if attrs.get("id") == "tape-data"]
    return json.loads(text)


def _explored(tmp_path, monkeypatch, checkpointed=True, track=True, **kw):
    """Explore one MLP.  Returns the page, what backward_steps reported in its pass, the leaves,
    and the steps of a second pass over an identical MLP (for what does not depend on the heap)."""
    out = tmp_path / "tape.html"
    reported = spy_on_steps(monkeypatch)
    with mg.memory.track() if track else contextlib.nullcontext():
        loss, leaves = mlp(checkpointed=checkpointed, **kw)
        mg.viz.explore(loss, out, names=names(leaves))
    monkeypatch.undo()
    with mg.memory.track() if track else contextlib.nullcontext():
        again = [light(s) for s in mg.backward_steps(mlp(checkpointed=checkpointed, **kw)[0])]
    return out.read_text(encoding="utf-8"), reported, leaves, again


def test_the_page_carries_the_contract_and_opens_before_the_first_step(tmp_path, monkeypatch):
    text, ref, _, _ = _explored(tmp_path, monkeypatch)
    page = _parse(text)
    actions = [a.get("data-action") for tag, a in page.tags if tag == "button"]
    assert "next" in actions and "prev" in actions
    ops = [a for _, a in page.tags if "data-op" in a]
    assert len(ops) == len(ref)
    by_step = {int(a["data-step"]): a["data-op"] for a in ops}
    assert by_step == {s["index"]: s["op"] for s in ref}
    assert not any("aria-current" in a for _, a in page.tags)  # before the first step
    mark = [a for _, a in page.tags if a.get("id") == "ledger-mark"]
    assert len(mark) == 1 and mark[0]["data-step"] == "-1"
    # replays are marked: the checkpointed ops carry their segment and are drawn dropped
    seg_ops = [a for a in ops if "data-segment" in a]
    assert seg_ops and all("dropped" in a["class"] for a in seg_ops)
    assert {s["op"] for s in ref if s["replay"] is not None} <= {a["data-op"] for a in seg_ops}


def test_the_page_needs_no_network(tmp_path, monkeypatch):
    text, _, _, _ = _explored(tmp_path, monkeypatch)
    page = _parse(text)
    assert "http://" not in text and "https://" not in text
    for tag, attrs in page.tags:
        for key in ("src", "href"):
            v = attrs.get(key)
            assert v is None or v.startswith(("data:", "#", "url(#")), (tag, key, v)
    assert all(not a.get("src") for a, _ in page.scripts)  # every script inlined
    csp = [a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]


def test_the_embedded_data_is_what_backward_steps_reports(tmp_path, monkeypatch):
    text, reported, leaves, again = _explored(tmp_path, monkeypatch)
    data = _page_data(_parse(text))
    assert len(data["steps"]) == len(reported) == len(again)
    leaf_ids = {id(t): next(l_["id"] for l_ in data["leaves"] if l_["name"] == n) for n, t in leaves.items()}
    for got, s, s2 in zip(data["steps"], reported, again):
        assert (got["index"], got["op"], got["seq"]) == (s["index"], s["op"], s["seq"])
        assert got["released_bytes"] == s["released_bytes"] and s["released_bytes"] is not None
        assert got["grad_output"] == s["grad_output"] and got["grad_inputs"] == s["grad_inputs"]
        assert got["accumulated"] == [{"leaf": leaf_ids[k], "grad": g} for k, g in s["accumulated"]]
        assert got["replay"] == s["replay"]
        # an independent pass over the same program: the same ops, gradients and replays
        assert (got["op"], got["grad_output"], got["grad_inputs"]) == (s2["op"], s2["grad_output"], s2["grad_inputs"])
        assert (got["replay"] is None) == (s2["replay"] is None)
    assert any(s["replay"] is not None for s in reported)
    nodes = {n["id"]: n for n in data["nodes"]}
    assert all(nodes[d["node"]]["step"] == d["index"] and nodes[d["node"]]["seq"] == d["seq"] for d in data["steps"])
    assert data["ledger"]["source"] == "tracked" and data["ledger"]["held_saved"] > 0
    segments = {s["index"]: s for s in data["segments"]}
    for d in data["steps"]:
        if d["replay"] is not None:
            assert d["index"] in segments[d["replay"]]["replayed_at"] and d["node"] in segments[d["replay"]]["nodes"]


def test_explore_is_a_backward_pass(tmp_path):
    """It leaves the leaves' .grad bitwise as backward() does; the graph is consumed unless retained."""
    loss, leaves = mlp()
    mg.viz.explore(loss, tmp_path / "a.html")
    ref_loss, ref_leaves = mlp()
    ref_loss.backward()
    for n, t in leaves.items():
        assert t.grad.numpy().tobytes() == ref_leaves[n].grad.numpy().tobytes(), n
    with pytest.raises(RuntimeError):
        loss.backward()
    with pytest.raises(RuntimeError, match="explore runs backward itself"):
        mg.viz.explore(loss, tmp_path / "b.html")
    kept, kept_leaves = mlp(checkpointed=False)
    mg.viz.explore(kept, tmp_path / "c.html", retain_graph=True)
    first = kept_leaves["w1"].grad.numpy().copy()
    kept.backward()
    np.testing.assert_allclose(kept_leaves["w1"].grad.numpy(), 2 * first)


def test_an_untracked_tape_is_counted_as_the_forward_pass_would_have_and_the_ledger_is_put_back(tmp_path):
    with mg.memory.track() as ledger:
        mg.tensor([1.0, 2.0], requires_grad=True).exp().sum()
    before_timeline, before_peak = ledger.timeline, dict(ledger.peak_bytes)
    loss, _ = mlp(checkpointed=False)
    buffers = {id(b): b for n in mg.tape.walk(loss) for b in map(mg.memory._base, mg.memory.saved_arrays(n))}
    held = sum(b.nbytes for b in buffers.values())  # each buffer once, as the ledger counts
    data = record_backward(loss)
    assert mg.memory.ledger.enabled is False
    assert mg.memory.ledger.timeline is before_timeline and mg.memory.ledger.peak_bytes == before_peak
    assert data["ledger"]["source"] == "counted"
    assert data["ledger"]["held_saved"] == held > 0
    assert all(s["released_bytes"] is not None for s in data["steps"])
    assert data["steps"][-1]["held_saved"] == 0
    with mg.memory.track():  # tracked from the forward pass: the same holdings at the start
        tracked = record_backward(mlp(checkpointed=False)[0])
    assert tracked["ledger"]["held_saved"] == held


def test_a_tape_recorded_before_the_ledger_tracked_is_counted_not_called_tracked():
    # The ledger turned on after the forward pass: the page said "measured while the forward pass was tracked"
    # with nothing saved held (held_saved 0) and released bytes of arrays it never counted; now the tape is
    # counted into the running tracking first, as an untracked tape is, and labelled so
    loss, _ = mlp(checkpointed=False)
    untracked = record_backward(loss)
    loss, _ = mlp(checkpointed=False)
    with mg.memory.track() as ledger:
        late = record_backward(loss)
        assert ledger.live("saved") == 0  # what it counted was released by the pass, as the tape's arrays were
    assert late["ledger"] == untracked["ledger"] and late["ledger"]["source"] == "counted"
    assert [(s["released_bytes"], s["held_saved"]) for s in late["steps"]] == \
        [(s["released_bytes"], s["held_saved"]) for s in untracked["steps"]]
    with mg.memory.track():  # a checkpointed tape's kept values were not counted either: no timeline
        loss, _ = mlp(checkpointed=True)
    with mg.memory.track():
        assert record_backward(loss)["ledger"]["source"] == "off"


def test_a_checkpointed_tape_without_the_ledger_says_how_to_get_it(tmp_path, monkeypatch):
    text, reported, _, _ = _explored(tmp_path, monkeypatch, track=False)
    data = _page_data(_parse(text))
    assert data["ledger"]["source"] == "off"
    assert all(s["released_bytes"] is None for s in data["steps"])
    assert "mg.memory.track()" in text
    assert [s["op"] for s in data["steps"]] == [s["op"] for s in reported]


def test_float32_values_and_gradients_stay_float32(tmp_path, monkeypatch):
    text, _, _, _ = _explored(tmp_path, monkeypatch, dtype="float32")
    data = _page_data(_parse(text))
    assert {s["grad_output"]["dtype"] for s in data["steps"]} == {"float32"}
    assert {n["dtype"] for n in data["nodes"]} == {"float32"}


def test_summaries_write_small_arrays_out_and_large_ones_as_statistics():
    assert summarize(np.array([1.0, 2.5])) == {"shape": [2], "dtype": "float64", "values": [1.0, 2.5]}
    assert summarize(np.float32(3.0)) == {"shape": [], "dtype": "float32", "values": [3.0]}
    assert summarize(np.array([np.nan, np.inf, -np.inf]))["values"] == ["nan", "inf", "-inf"]
    a = np.arange(12.0).reshape(3, 4) - 5
    s = summarize(a)
    assert s == {"shape": [3, 4], "dtype": "float64", "min": -5.0, "max": 6.0, "mean": 0.5,
                 "norm": float(f"{np.linalg.norm(a):.6g}")}
    c = summarize(np.full(10, 3 + 4j))
    assert (c["min"], c["max"], c["of"], c["norm"]) == (5.0, 5.0, "abs", float(f"{np.sqrt(250):.6g}"))
    assert summarize(mg.tensor([1.0, 2.0]), max_values=1)["mean"] == 1.5
    assert summarize(None) is None


def test_the_layout_draws_every_edge_left_to_right_and_no_box_over_another(tmp_path):
    with mg.memory.track():
        loss, leaves = mlp()
        data = record_backward(loss, names(leaves))
    pos = layered_layout(data["nodes"], data["leaves"])
    assert set(pos) == {n["id"] for n in data["nodes"]} | {l_["id"] for l_ in data["leaves"]}
    for n in data["nodes"]:
        for e in n["inputs"]:
            if e["kind"] != "constant":
                assert pos[e["ref"]][0] + BOX_W < pos[n["id"]][0]
    boxes = sorted(pos.values())
    for i, (x, y) in enumerate(boxes):
        for x2, y2 in boxes[i + 1:]:
            assert abs(x - x2) >= BOX_W or abs(y - y2) >= BOX_H


def test_names_from_the_tape_cannot_break_out_of_the_page(tmp_path):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    evil = '</script><script>alert(1)</script>"<b>'
    text = render_page(record_backward(loss, {id(x): evil}))
    page = _parse(text)
    assert [a.get("id") for a, _ in page.scripts] == ["tape-data", None]
    assert _page_data(page)["leaves"][0]["name"] == evil
    assert "<b>" not in text and "alert(1)</script>" not in text


def test_clear_errors():
    with pytest.raises(TypeError, match="needs a Tensor"):
        record_backward(np.ones(2))
    with pytest.raises(ValueError, match="needs a tensor with a tape"):
        record_backward(mg.tensor([1.0]).sum())


_OPS = {"tanh": mg.tanh, "sin": mg.sin, "square": lambda a: a * a, "sum_keep": lambda a: a.sum(axis=-1, keepdims=True),
        "add": lambda a, b: a + b, "mul": lambda a, b: a * b}
_ARITY = {"add": 2, "mul": 2}


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(_OPS)), st.integers(0, 20), st.integers(0, 20)),
                min_size=1, max_size=8), st.booleans(), st.integers(0, 2**16))
def test_random_programs_page_data_matches_backward_steps(program, checkpointed, seed):
    """The page's steps are the pass's steps: same ops, gradients, replays and bytes."""
    from minigrad_ckpt.checkpoint import checkpoint

    def run():
        rng = np.random.default_rng(seed)
        vals = [mg.tensor(rng.standard_normal((2, 3)), requires_grad=True), mg.tensor(rng.standard_normal(3),
                                                                                     requires_grad=True)]
        for i, (name, r1, r2) in enumerate(program):
            args = [vals[r1 % len(vals)], vals[r2 % len(vals)]][:_ARITY.get(name, 1)]
            fn = _OPS[name]
            vals.append(checkpoint(fn, *args) if checkpointed and i == 0 else fn(*args))
        return (vals[-1] * vals[-1]).sum() + vals[0].sum()

    with mg.memory.track(), pytest.MonkeyPatch.context() as mp:
        ref = spy_on_steps(mp)
        data = record_backward(run())
    assert [(s["op"], s["released_bytes"], s["replay"] is None, s["grad_output"], s["grad_inputs"])
            for s in data["steps"]] == \
           [(s["op"], s["released_bytes"], s["replay"] is None, s["grad_output"], s["grad_inputs"]) for s in ref]
    text = render_page(data)
    assert len(re.findall(r'data-op="', text)) == len(ref)


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
@pytest.mark.parametrize("how", ["nested", "remat"])
def test_nested_segments_and_remat_regions_each_mark_their_replay(how, monkeypatch):
    from minigrad_ckpt.checkpoint import checkpoint, remat

    x = mg.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)

    def inner(t):
        return mg.sin(t) * t

    def outer(t):
        return mg.tanh(checkpoint(inner, t)) + t

    with mg.memory.track(), pytest.MonkeyPatch.context() as mp:
        reported = spy_on_steps(mp)
        y = checkpoint(outer, x) if how == "nested" else remat(lambda t: mg.tanh(mg.sin(t) * t) + t)(x)
        data = record_backward(y.sum())
    replays = [(s["index"], s["replay"]) for s in reported if s["replay"] is not None]
    assert replays and [(s["index"], s["replay"]) for s in data["steps"] if s["replay"] is not None] == replays
    assert len(replays) == (2 if how == "nested" else 1)
    segments = {s["index"]: s for s in data["segments"]}
    for k, seg in replays:
        assert k in segments[seg]["replayed_at"]
    text = render_page(data)
    for k, seg in replays:
        assert re.search(rf'data-step="{k}" data-segment="{seg}"', text)


def test_complex_values_and_the_strict_device(tmp_path):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

    z = mg.tensor(np.array([1 + 2j, 3 - 1j]), requires_grad=True)
    data = record_backward((z * z.conj()).real.sum())
    assert data["leaves"][0]["grad"] == {"shape": [2], "dtype": "complex128", "values": ["2+4j", "6-2j"]}
    json.dumps(data, allow_nan=False)
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1)).to("strict-f32")
    x = mg.randn(5, 3, dtype=np.float32).to("strict-f32")  # strict-f32 refuses any float64 array
    with mg.memory.track(), pytest.MonkeyPatch.context() as mp:
        reported = spy_on_steps(mp)
        data = record_backward((model(x) ** 2).mean())
    assert [(s["op"], s["released_bytes"], s["grad_output"]) for s in data["steps"]] == \
           [(s["op"], s["released_bytes"], s["grad_output"]) for s in reported]
    assert {leaf["grad"]["dtype"] for leaf in data["leaves"]} == {"float32"}


def test_an_error_in_the_pass_is_raised_and_leaves_the_ledger_as_it_was(tmp_path):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    before = dict(vars(mg.memory.ledger))
    loss = (y * y).sum()
    with mg.no_grad():
        y.mul_(3.0)  # Mul saved y: backward must refuse
    with pytest.raises(RuntimeError, match="modified by an"):
        mg.viz.explore(loss, tmp_path / "t.html")
    assert not (tmp_path / "t.html").exists()
    assert mg.memory.ledger.enabled is False and mg.memory.ledger.timeline is before["timeline"]
    assert x.grad is None
