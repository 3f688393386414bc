"""``minigrad_ckpt._utils``: PyTorch's private ``torch._utils._flatten_dense_tensors`` and
``_unflatten_dense_tensors``, which mixed-precision trainers import by that path (guided-diffusion's
``fp16_util`` keeps its float32 master parameters as one flat vector made by them).  Expected values were
printed by torch 2.13."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt._utils import _flatten_dense_tensors, _unflatten_dense_tensors


def test_flatten_concatenates_row_major_and_promotes():
    a = mg.arange(6.0).view(2, 3)
    flat = _flatten_dense_tensors([a.t(), mg.ones(2, dtype=mg.float64), mg.ones(2, 0)])
    assert flat.dtype == mg.float64
    np.testing.assert_array_equal(flat.numpy(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0, 1.0, 1.0])


def test_flatten_of_one_contiguous_tensor_shares_its_memory():
    a = mg.arange(6.0).view(2, 3)
    _flatten_dense_tensors([a])[0] = 9.0  # torch 2.13: a[0, 0] becomes 9
    assert a[0, 0].item() == 9.0


def test_flatten_of_nothing_is_refused():
    with pytest.raises(ValueError, match="non-empty"):
        _flatten_dense_tensors([])


def test_flatten_is_differentiable():
    x = mg.ones(3, requires_grad=True)
    y = mg.ones(2, requires_grad=True)
    (_flatten_dense_tensors([x, y]) * mg.arange(5.0)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 4.0])


def test_unflatten_gives_views_shaped_as_the_tensors():
    a, b = mg.arange(6.0).view(2, 3), mg.ones(4)
    flat = _flatten_dense_tensors([a, b])
    pieces = _unflatten_dense_tensors(flat, [a, b])
    assert isinstance(pieces, tuple) and [tuple(p.shape) for p in pieces] == [(2, 3), (4,)]
    pieces[1][0] = 5.0  # a view: torch 2.13 prints flat as [0, 1, 2, 3, 4, 5, 5, 1, 1, 1]
    np.testing.assert_array_equal(flat.numpy(), [0, 1, 2, 3, 4, 5, 5, 1, 1, 1])


def test_unflatten_reads_only_what_the_shapes_need_and_refuses_too_little():
    first, second = _unflatten_dense_tensors(mg.arange(7.0), [mg.ones(2), mg.ones(3)])
    np.testing.assert_array_equal(second.numpy(), [2.0, 3.0, 4.0])
    # torch 2.13: RuntimeError: start (0) + length (6) exceeds dimension size (3).
    with pytest.raises(RuntimeError, match=r"start \(0\) \+ length \(6\) exceeds dimension size \(3\)"):
        _unflatten_dense_tensors(mg.ones(3), [mg.ones(2, 3)])


def test_unflatten_is_differentiable():
    flat = mg.arange(5.0, requires_grad=True)
    head, tail = _unflatten_dense_tensors(flat, [mg.ones(2), mg.ones(3)])
    (head.sum() * 2 + tail.sum()).backward()
    np.testing.assert_array_equal(flat.grad.numpy(), [2.0, 2.0, 1.0, 1.0, 1.0])  # torch 2.13


def test_master_parameters_round_trip_as_fp16_util_builds_them():
    """guided-diffusion's make_master_params / master_params_to_model_params, after the rename."""
    params = [mg.nn.Parameter(mg.arange(6.0).view(2, 3).half()), mg.nn.Parameter(mg.ones(3).half())]
    master = mg.nn.Parameter(_flatten_dense_tensors([p.detach().float() for p in params]).view(1, -1))
    assert master.dtype == mg.float32 and tuple(master.shape) == (1, 9)
    with mg.no_grad():
        master.mul_(2.0)
    for p, piece in zip(params, _unflatten_dense_tensors(master.view(-1), params)):
        p.detach().copy_(piece)
    np.testing.assert_array_equal(params[0].numpy(), [[0, 2, 4], [6, 8, 10]])
    assert params[0].dtype == mg.float16
