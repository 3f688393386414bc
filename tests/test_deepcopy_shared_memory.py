"""``copy.deepcopy`` copies memory once per call, as PyTorch's copies each storage once: tensors that
share memory and do not require grad -- views of one tensor, the ``detach()``-made entries a state
dict holds for tied weights -- share the copy, and every copy keeps its layout (a transposed tensor's
copy is transposed).  torch 2.13: ``d = copy.deepcopy({"x": x, "v": x[1:]}); d["x"][1] = 9`` gives
``d["v"][0] == 9``; ``copy.deepcopy(model.state_dict())`` of tied weights writes ``"0.weight"`` into
``"1.weight"``; ``copy.deepcopy(arange(6.).reshape(2, 3).t()).stride() == (1, 3)``.  The engine copied
each tensor on its own (``d["v"][0]`` stayed 1) and made every copy C-ordered (``(2, 1)``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg


@pytest.mark.parametrize("order", ["owner first", "view first"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_views_of_one_tensor_share_their_copy(order, dtype):
    x = mg.arange(6, dtype=dtype)
    items = {"x": x, "v": x[1:4], "s": x[::2], "m": x.view(2, 3).t()}
    if order == "view first":
        items = dict(reversed(items.items()))
    d = copy.deepcopy(items)
    d["x"][2] = 9
    assert d["v"][1].item() == 9 and d["s"][1].item() == 9 and d["m"][2, 0].item() == 9
    assert x[2].item() == 2  # the original's memory is not the copy's
    assert d["m"].stride() == (1, 3) and d["s"].stride() == (2,) and d["m"].dtype == dtype
    np.testing.assert_array_equal(d["m"].numpy(), [[0, 3], [1, 4], [9, 5]])


def test_a_state_dicts_tied_weights_stay_tied_in_its_copy():
    first, second = mg.nn.Linear(2, 2), mg.nn.Linear(2, 2)
    second.weight = first.weight
    model = mg.nn.Sequential(first, second)
    best = copy.deepcopy(model.state_dict())
    best["0.weight"][0, 0] = 42.0
    assert best["1.weight"][0, 0].item() == 42.0
    assert first.weight[0, 0].item() != 42.0
    model.load_state_dict(best)
    assert first.weight[0, 0].item() == 42.0


def test_a_write_with_history_into_a_shared_copy_reaches_its_views():
    d = copy.deepcopy({"v": (x := mg.arange(4.0))[1:], "x": x})
    w = mg.full((4,), 2.0, requires_grad=True)
    d["x"].mul_(w)
    np.testing.assert_array_equal(d["v"].numpy(), [2.0, 4.0, 6.0])
    d["x"].sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 1.0, 2.0, 3.0])


def test_tensors_copied_in_separate_calls_do_not_share():
    x = mg.arange(4.0)
    a, b = copy.deepcopy(x), copy.deepcopy(x[1:])
    a[1] = 9
    assert b[0].item() == 1


def test_a_parameter_and_its_view_copy_to_a_parameter_and_a_tensor():
    p = mg.nn.Parameter(mg.arange(4.0))
    with mg.no_grad():
        view = p[1:]
    d = copy.deepcopy({"p": p, "v": view})
    assert isinstance(d["p"], mg.nn.Parameter) and d["p"].requires_grad and not d["v"].requires_grad
    np.testing.assert_array_equal(d["v"].numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_copy_keeps_its_layout_and_values_on_every_device(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.arange(6, dtype=dtype, device=device).view(2, 3).t()
    for t in (x, x.detach().requires_grad_()):
        c = copy.deepcopy(t)
        assert c.stride() == (1, 3) and c.dtype == dtype and c.device == t.device
        np.testing.assert_array_equal(c.numpy(), np.arange(6).reshape(2, 3).T)


@pytest.mark.parametrize("order", ["base first", "expanded first"])
@pytest.mark.parametrize("spelling", ["expand", "broadcast_to"])
def test_an_expanded_view_shares_its_bases_copy(spelling, order):
    # torch 2.13: d = copy.deepcopy({"b": b, "v": b.expand(3, 2)}); d["b"].add_(1) shows in d["v"]
    b = mg.zeros(3, 1)
    v = b.expand(3, 2) if spelling == "expand" else mg.broadcast_to(b, (3, 2))
    items = {"b": b, "v": v} if order == "base first" else {"v": v, "b": b}
    d = copy.deepcopy(items)
    d["b"].add_(1)
    np.testing.assert_array_equal(d["v"].numpy(), np.ones((3, 2)))
    assert d["v"].stride() == (1, 0) and b.sum().item() == 0


@pytest.mark.parametrize("order", ["owner first", "view first"])
def test_copies_that_share_memory_are_not_views_to_detach_(order):
    # torch 2.13: the copies share a storage but are no views (_is_view() is False): detach_() works
    x = mg.arange(4.0)
    items = {"x": x, "v": x[1:]} if order == "owner first" else {"v": x[1:], "x": x}
    d = copy.deepcopy(items)
    assert d["v"].detach_() is d["v"] and d["x"].detach_() is d["x"]
    d["x"][1] = 9.0  # and they still share the memory
    assert d["v"][0].item() == 9.0


@pytest.mark.parametrize("order", ["owner first", "view first"])
def test_a_recorded_write_into_a_shared_copy_leaves_the_others_history(order):
    # torch 2.13: d["x"].mul_(w) writes the values d["v"] shows, but d["v"] gets no grad_fn
    x = mg.arange(4.0)
    items = {"x": x, "v": x[1:]} if order == "owner first" else {"v": x[1:], "x": x}
    d = copy.deepcopy(items)
    d["x"].mul_(mg.full((4,), 2.0, requires_grad=True))
    assert d["x"].requires_grad and not d["v"].requires_grad and d["v"].grad_fn is None
    np.testing.assert_array_equal(d["v"].numpy(), [2.0, 4.0, 6.0])


def test_a_write_into_a_shared_copy_is_seen_by_the_version_check():
    d = copy.deepcopy({"x": (x := mg.arange(4.0)), "v": x[1:]})
    w = mg.ones(3, requires_grad=True)
    y = (w * d["v"]).sum()  # saves d["v"]
    d["x"].add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
