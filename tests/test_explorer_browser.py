"""The tape explorer in a real headless browser (Debian's Chromium, driven through chromedriver
by ``tests/webdriver.py``): the page loads with no console errors, the stepper's buttons move
through every step and back, and at every step the highlighted node and the ledger's mark are
what ``mg.backward_steps`` reported at that step -- op, index, bytes, and the replay of a
checkpointed segment.  Skipped, with the reason, where no browser is installed; CI (``.ci/run``)
installs one and sets ``MINIGRAD_CKPT_REQUIRE_BROWSER=1``, which makes a missing browser a
failure instead."""

from __future__ import annotations

import os

import pytest
from explorer_programs import mlp, names, spy_on_steps  # tests/explorer_programs.py
from webdriver import Browser, browser_or_skip_reason  # tests/webdriver.py

import minigrad_ckpt as mg

_FOUND = browser_or_skip_reason()
_REQUIRED = os.environ.get("MINIGRAD_CKPT_REQUIRE_BROWSER") == "1"
pytestmark = pytest.mark.skipif(isinstance(_FOUND, str) and not _REQUIRED, reason=str(_FOUND))

# The page's state in one round trip: the current node(s), the ledger mark, the replaying nodes.
_STATE = """
const current = Array.from(document.querySelectorAll('[aria-current="step"]'));
const mark = document.getElementById('ledger-mark');
return {
  current: current.map(function (e) { return [e.dataset.op, e.dataset.step, e.id]; }),
  mark: [mark.getAttribute('data-step'), mark.getAttribute('data-released'), mark.getAttribute('data-op')],
  bar: Array.from(document.querySelectorAll('#ledger-chart .ledger-bar.current')).map(function (e) {
    return [e.dataset.step, e.dataset.released]; }),
  replaying: Array.from(document.querySelectorAll('#graph .node.replaying')).map(function (e) {
    return e.dataset.segment; }),
  position: document.getElementById('position').textContent,
  prev: document.querySelector('[data-action="prev"]').disabled,
  next: document.querySelector('[data-action="next"]').disabled,
};
"""


@pytest.fixture(scope="module")
def browser():
    if isinstance(_FOUND, str):
        pytest.fail(f"MINIGRAD_CKPT_REQUIRE_BROWSER=1 but {_FOUND}")
    chromium, driver = _FOUND
    b = Browser(chromium, driver)
    yield b
    b.close()


def _errors(log: list[dict]) -> list[dict]:
    return [e for e in log if e.get("level") in ("SEVERE", "ERROR", "WARNING")]


def _page(tmp_path, monkeypatch, checkpointed: bool = True) -> tuple[str, list[dict]]:
    reported = spy_on_steps(monkeypatch)
    with mg.memory.track():
        loss, leaves = mlp(checkpointed=checkpointed)
        path = mg.viz.explore(loss, tmp_path / "tape.html", names=names(leaves))
    return path.resolve().as_uri(), reported


def _check_step(state: dict, k: int, reported: list[dict]) -> None:
    if k < 0:
        assert state["current"] == [] and state["mark"][0] == "-1" and state["bar"] == [], state
        assert state["position"] == "before the first step" and state["prev"] and not state["next"]
        return
    s = reported[k]
    assert len(state["current"]) == 1, state
    op, step, node_id = state["current"][0]
    assert (op, int(step), node_id) == (s["op"], s["index"], f"n{s['seq']}"), (k, state)
    assert state["mark"] == [str(k), str(s["released_bytes"]), s["op"]], (k, state)
    assert state["bar"] == [[str(k), str(s["released_bytes"])]], (k, state)  # the highlighted bar of the chart
    if s["replay"] is None:
        assert state["replaying"] == []
    else:
        assert state["replaying"] and set(state["replaying"]) == {str(s["replay"])}, (k, state)
    assert state["next"] == (k == len(reported) - 1) and not state["prev"]


def test_the_page_loads_without_console_errors(browser, tmp_path, monkeypatch):
    url, reported = _page(tmp_path, monkeypatch)
    browser.console_log()  # drop what earlier pages logged
    browser.get(url)
    state = browser.execute(_STATE)
    assert _errors(browser.console_log()) == []
    _check_step(state, -1, reported)
    assert browser.execute("return document.querySelectorAll('#graph [data-op]').length") == len(reported)


@pytest.mark.parametrize("checkpointed", [True, False], ids=["checkpointed", "plain"])
def test_the_stepper_plays_every_step_as_backward_steps_reported_it(browser, tmp_path, monkeypatch, checkpointed):
    url, reported = _page(tmp_path, monkeypatch, checkpointed)
    assert all(s["released_bytes"] is not None for s in reported)
    assert any(s["replay"] is not None for s in reported) == checkpointed
    browser.get(url)
    nxt, prev = browser.find('[data-action="next"]'), browser.find('[data-action="prev"]')
    _check_step(browser.execute(_STATE), -1, reported)
    for k in range(len(reported)):
        browser.click(nxt)
        _check_step(browser.execute(_STATE), k, reported)
    browser.click(nxt)  # at the end, next is disabled: the last step stays current
    _check_step(browser.execute(_STATE), len(reported) - 1, reported)
    for k in range(len(reported) - 2, -2, -1):
        browser.click(prev)
        _check_step(browser.execute(_STATE), k, reported)
    assert _errors(browser.console_log()) == []


def test_clicking_a_node_shows_its_value_and_gradient(browser, tmp_path, monkeypatch):
    url, reported = _page(tmp_path, monkeypatch)
    browser.get(url)
    first = f"n{reported[0]['seq']}"
    browser.click(browser.find('[data-action="next"]'))
    browser.execute(f"document.getElementById('{first}').dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
    text = browser.execute("return document.getElementById('details').textContent")
    assert f"#{reported[0]['seq']} {reported[0]['op']}" in text and "gradient" in text and "value" in text
    assert _errors(browser.console_log()) == []


@pytest.mark.msgpack
def test_the_page_of_a_snapshots_tape_plays_in_the_browser(browser, tmp_path, monkeypatch):
    from minigrad_ckpt import nn
    from minigrad_ckpt.cli import main
    from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig

    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    ex = mg.Executor(model)
    ex.record((model(mg.randn(5, 3)) ** 2).mean())
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "s.mgsnap")
    reported = spy_on_steps(monkeypatch)
    assert main(["explore", str(path), "--out", str(tmp_path / "tape.html")]) == 0
    browser.console_log()
    browser.get((tmp_path / "tape.html").resolve().as_uri())
    nxt = browser.find('[data-action="next"]')
    for k in range(len(reported)):
        browser.click(nxt)
        _check_step(browser.execute(_STATE), k, reported)
    assert _errors(browser.console_log()) == []


# Every mark of the graph and chart as a full redraw for step `cur` would set them, compared with
# the page's: the mismatches (the stepper updates only what a move changes).
_MISMATCHES = """
const data = JSON.parse(document.getElementById('tape-data').textContent);
const cur = Number(document.getElementById('ledger-mark').getAttribute('data-step'));
const s = cur >= 0 ? data.steps[cur] : null;
const leaves = new Map(data.leaves.map(function (l) { return [l.id, l]; }));
const bad = [];
function expect(el, what, want) {
  const got = what === 'current' ? el.getAttribute('aria-current') === 'step' : el.classList.contains(what);
  if (got !== want) { bad.push([el.id || el.dataset.step || el.dataset.to, what, got]); }
}
document.querySelectorAll('#graph .node').forEach(function (el) {
  const at = Number(el.dataset.step);
  expect(el, 'reached', at <= cur); expect(el, 'done', at < cur); expect(el, 'current', at === cur);
  expect(el, 'replaying', s !== null && s.replay !== null && el.dataset.segment === String(s.replay));
});
document.querySelectorAll('#graph .leaf').forEach(function (el) {
  const r = leaves.get(el.id);
  expect(el, 'receives', r.steps.indexOf(cur) >= 0);
  expect(el, 'has-grad', r.steps.length > 0 && r.steps[r.steps.length - 1] <= cur);
});
document.querySelectorAll('#graph .edge').forEach(function (el) {
  expect(el, 'carrying', s !== null && el.dataset.to === s.node); });
document.querySelectorAll('#ledger-chart .ledger-bar').forEach(function (el) {
  if (el.classList.contains('current') !== (Number(el.dataset.step) === cur)) { bad.push(['bar', el.dataset.step]); }
});
return [cur, bad];
"""


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
def test_every_move_leaves_the_marks_a_full_redraw_would(browser, tmp_path):
    """next, prev, first, last and the arrow keys in a mixed order, on a tape with checkpointed
    segments and leaves given gradients at several steps."""
    import numpy as np

    from minigrad_ckpt.checkpoint import checkpoint

    w = mg.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    v = mg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    h = mg.tensor(np.array([0.1, 0.2, 0.3]))
    with mg.memory.track():
        for i in range(4):
            h = checkpoint(lambda t: mg.tanh(t * w) + t, h) if i % 2 else mg.sin(h * w)
        loss = (h * h).sum() + (v * 0.5).sum() * w.sum()
        page = mg.viz.explore(loss, tmp_path / "t.html")
    browser.get(page.resolve().as_uri())
    n = browser.execute("return JSON.parse(document.getElementById('tape-data').textContent).steps.length")
    moves = ["next"] * 3 + ["prev", "last", "prev", "prev", "first", "next", "next", "last", "first", "last"]
    rng = np.random.default_rng(0)
    moves += [["next", "prev", "first", "last", "right", "left"][i] for i in rng.integers(0, 6, 40)]
    for move in moves:
        if move in ("right", "left"):
            key = "ArrowRight" if move == "right" else "ArrowLeft"
            browser.execute(f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}'}}))")
        else:
            browser.click(browser.find(f'[data-action="{move}"]'))
        cur, bad = browser.execute(_MISMATCHES)
        assert -1 <= cur < n and bad == [], (move, cur, bad)
    assert _errors(browser.console_log()) == []


def test_a_move_touches_only_what_it_changes(browser, tmp_path):
    """A step updates its own node, edges, leaves and bar -- not every element of the graph: on a
    tape of 20,000 ops each click took a second, the page reading and writing every element."""
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    h = x
    for _ in range(300):
        h = mg.tanh(h) * 1.01
    page = mg.viz.explore(h.sum(), tmp_path / "t.html")
    browser.get(page.resolve().as_uri())
    calls = browser.execute("""
      let calls = 0;
      const toggle = DOMTokenList.prototype.toggle;
      DOMTokenList.prototype.toggle = function () { calls++; return toggle.apply(this, arguments); };
      const next = document.querySelector('[data-action="next"]');
      const counts = [];
      for (let i = 0; i < 5; i++) { calls = 0; next.click(); counts.push(calls); }
      DOMTokenList.prototype.toggle = toggle;
      return counts;""")
    assert max(calls) <= 20, calls  # was 3 per op and 1 per edge, bar and leaf: > 1,800
