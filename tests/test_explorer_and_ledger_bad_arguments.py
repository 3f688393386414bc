"""Clear errors for what the see-inside tools cannot take: ``explore`` checks its options before
it runs the pass (a negative ``max_values`` went on to take the minimum of an empty array, a
``names`` that is no mapping raised AttributeError), an empty array is written out whatever
``max_values`` says (it has no statistics), and the memory ledger names its categories when asked
for another (it raised ``KeyError: 'bogus'``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.explorer import record_backward, summarize


def _loss() -> tuple[mg.Tensor, mg.Tensor]:
    x = mg.tensor(np.zeros((0, 3)), requires_grad=True)
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return (x.sum(0) * w).sum() + (w * w).sum(), w


@pytest.mark.parametrize("max_values", [-1, 2.5, "8", True])
def test_a_max_values_that_is_no_whole_number_from_zero_is_refused_before_the_pass(max_values, tmp_path):
    loss, w = _loss()
    with pytest.raises(ValueError, match="max_values must be a whole number >= 0"):
        mg.viz.explore(loss, tmp_path / "t.html", max_values=max_values)
    assert w.grad is None and not (tmp_path / "t.html").exists()
    loss.backward()  # the tape is untouched


def test_names_that_are_no_mapping_are_refused_before_the_pass():
    loss, w = _loss()
    with pytest.raises(TypeError, match="names must map id"):
        record_backward(loss, names=["w"])
    assert w.grad is None


@pytest.mark.parametrize("max_values", [0, np.int64(2)])
def test_an_empty_array_is_written_out_whatever_max_values_says(max_values):
    assert summarize(np.zeros((0, 3), dtype=np.float32), max_values) == {"shape": [0, 3], "dtype": "float32",
                                                                         "values": []}
    loss, _ = _loss()
    data = record_backward(loss, max_values=max_values)
    assert data["leaves"][0]["grad"] == {"shape": [0, 3], "dtype": "float64", "values": []}


@pytest.mark.parametrize("ask", [mg.memory.live, mg.memory.peak])
def test_the_ledger_names_its_categories(ask):
    with pytest.raises(ValueError, match="no category 'bogus': ask for 'saved', 'grad', 'total' or 'host'"):
        ask("bogus")
    assert ask("saved") >= 0 and ask("total") >= 0


@pytest.mark.parametrize("shape", [(2,), (1, 2), (0,)])
def test_a_loss_of_more_or_fewer_than_one_element_is_refused_with_what_to_explore(shape, tmp_path):
    """backward()'s own error asked for a gradient=, which explore does not take."""
    x = mg.tensor(np.ones(shape), requires_grad=True)
    with pytest.raises(ValueError, match=r"explore needs a loss of one element.*y\.sum\(\)"):
        mg.viz.explore(x * 2.0, tmp_path / "t.html")
    assert x.grad is None and not (tmp_path / "t.html").exists()
    data = record_backward((x * 2.0).reshape(-1)[:1].sum() if x.numel() else (x * 2.0).sum())
    assert data["steps"]


@pytest.mark.parametrize("where", ["missing folder", "a folder"])
def test_a_page_that_cannot_be_written_is_refused_before_the_pass(where, tmp_path):
    """The pass frees the graph: an error found only when writing left nothing to explore again."""
    loss, w = _loss()
    path = tmp_path / "no" / "t.html" if where == "missing folder" else tmp_path
    with pytest.raises(OSError, match="explore: "):
        mg.viz.explore(loss, path)
    assert w.grad is None
    mg.viz.explore(loss, tmp_path / "t.html")  # the graph is still there
    assert w.grad is not None
