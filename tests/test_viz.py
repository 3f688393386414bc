"""Pictures that teach: the tape as DOT text (values, gradients, constants, a
legend of every style used), the pictures of docs/ regenerated from source,
memory charts, and clear errors when a picture cannot be made."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck

ROOT = Path(__file__).resolve().parents[1]


def _legend(dot: str) -> str:
    return re.search(r'legend \[.*label="(.*)"\];', dot).group(1)


def test_to_dot_shows_small_values_gradients_constants_and_shapes():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * 3.0 * mg.tensor([0.5, 0.25]) + 1.0).sum()
    loss.backward(retain_graph=True)
    dot = mg.viz.to_dot(loss, {id(x): "x"})
    assert "value [1, 2]" in dot and "grad [1.5, 0.75]" in dot      # the leaf's data and .grad
    assert "constant\\n3" in dot                                     # a Python-scalar constant
    assert "constant\\n[0.5, 0.25]" in dot                           # a constant tensor Mul saved
    assert 'label="constant"' in dot                                  # one Add did not need to keep
    assert "float32 (2,)" in dot or "float64 (2,)" in dot               # shapes always
    assert "= 5" in dot                                                # the output's value
    legend = _legend(dot)
    for words in ("blue box", "green ellipse", "dotted ellipse", "bold ellipse"):
        assert words in legend
    assert "dashed orange" not in legend  # only the styles the picture uses


def test_to_dot_shows_complex_values_whole():
    # they were cast to float: 1+2j was drawn as 1 (with a ComplexWarning)
    z = mg.tensor([1 + 2j, -0.5j], requires_grad=True)
    loss = (z * mg.tensor([2 - 1j, 1j])).abs().sum()
    loss.backward(retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dot = mg.viz.to_dot(loss, {id(z): "z"})
    assert "value [1+2j, -0-0.5j]" in dot and "constant\\n[2-1j, 0+1j]" in dot
    assert re.search(r"grad \[[^]]*j, [^]]*j\]", dot)


def test_to_dot_hides_large_values_and_can_hide_all():
    x = mg.randn(10, requires_grad=True)
    y = (x * x).sum()
    dot = mg.viz.to_dot(y)
    assert "value [" not in dot and ("float32 (10,)" in dot or "float64 (10,)" in dot)
    value = re.compile(r"\\n= -?\d")
    assert value.search(mg.viz.to_dot(y))  # the scalar output is small
    assert not value.search(mg.viz.to_dot(y, values=False))


def test_the_legend_explains_dropped_and_freed_nodes():
    w = mg.tensor([0.5, -1.0], requires_grad=True)
    y = ck.checkpoint(lambda t: mg.tanh(t * w), mg.tensor([1.0, 2.0]))
    loss = (y * y).sum()
    assert "dashed orange box" in _legend(mg.viz.to_dot(loss))
    z = (mg.exp(w) * 2.0).sum()
    z.backward()
    assert "grey box" in _legend(mg.viz.to_dot(z))  # backward freed the saved values


def test_to_dot_of_a_tensor_without_a_tape():
    dot = mg.viz.to_dot(mg.tensor([1.0]))
    assert "no tape" in dot


def _make_pictures():
    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "docs" / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["tape.svg", "tape-checkpointed.svg"])
def test_every_docs_picture_builds_and_renders_where_graphviz_is_installed(name, tmp_path):
    dot = _make_pictures().graphs()[name]
    assert dot.startswith("digraph tape {") and dot.rstrip().endswith("}")
    assert "legend" in dot
    if shutil.which("dot") is None:
        with pytest.raises(RuntimeError, match="Graphviz"):
            mg.viz.render(dot, tmp_path / name)
        pytest.skip("Graphviz's dot is not installed: the DOT text was checked, not rendered")
    path = mg.viz.render(dot, tmp_path / name)
    assert path.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_plot_memory_without_a_path_is_a_text_chart():
    with mg.memory.track() as ledger:
        x = mg.randn(64, requires_grad=True)
        (mg.tanh(x) * mg.exp(x)).sum().backward()
    chart = mg.viz.plot_memory(ledger)
    assert isinstance(chart, str) and "peak" in chart and "#" in chart


def test_a_png_without_matplotlib_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"minigrad-ckpt\[viz\]"):
        mg.viz.plot_memory([(0, "forward", 10, 0)], tmp_path / "mem.png")
    assert not (tmp_path / "mem.png").exists()


def test_checkpoint_memory_example_png_without_matplotlib_says_what_to_install(tmp_path):
    import subprocess

    code = ("import sys; sys.modules['matplotlib'] = None; sys.argv = ['x', '--png', 'm.png', '--depth', '4'];"
            f"import runpy; runpy.run_path({str(ROOT / 'examples' / 'checkpoint_memory.py')!r}, run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "error:" in r.stderr and "matplotlib" in r.stderr


def test_text_chart_of_a_loss_curve():
    chart = mg.viz.text_chart({"loss": [3.0, 2.5, 2.0, 1.8]}, width=4, height=4, unit="", x_label="steps")
    assert "first 3, last 1.8" in chart and "> steps" in chart


def test_public_objects_have_useful_reprs(tmp_path):
    import minigrad_ckpt.optim as optim

    assert "tracking" not in repr(mg.memory.ledger) and "KiB" in repr(mg.memory.ledger)
    with mg.memory.track() as ledger:
        assert repr(ledger).startswith("Ledger(tracking")
    opt = optim.SGD([mg.tensor([1.0], requires_grad=True)], lr=0.1)
    r = repr(optim.lr_scheduler.StepLR(opt, step_size=3))
    assert r.startswith("StepLR(") and "step_size=3" in r and "lr=[0.1]" in r
    assert repr(mg.no_grad()).startswith("no_grad()")
    assert repr(mg.set_grad_enabled(True)).startswith("set_grad_enabled(True)")
    manager = mg.snapshot.SnapshotManager(tmp_path / "snaps", max_snapshots=3)
    assert repr(manager).startswith("SnapshotManager(") and "keeps 3" in repr(manager)
    for obj in (mg.memory.ledger, opt, mg.no_grad(), ck.Sqrt(), ck.CheckpointingConfig(ck.Sqrt()), manager):
        assert " object at 0x" not in repr(obj), repr(obj)
