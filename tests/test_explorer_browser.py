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
