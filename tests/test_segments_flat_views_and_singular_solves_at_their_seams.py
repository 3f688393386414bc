"""Additions of one session at their seams rather than alone: ``mg.segment_reduce``, the flat
master-copy helpers (``mg._utils._flatten_dense_tensors`` / ``_unflatten_dense_tensors``), area
interpolation to an empty axis, triangular solves by a zero diagonal (IEEE's inf and NaN), the
inf-norm distances' ties, narrow-integer ``lcm`` and the Tensor methods that refuse a number --
each inside a checkpoint (bitwise the plain gradients), under the transforms, in float32 and on the
strict stand-in device. The parts alone are tested beside them (tests/test_segment_reduce.py,
test_private_utils_flatten_dense.py, test_linalg_error_type.py, test_tensor_only_operands_refuse_numbers.py
and the others their commits name)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func
from minigrad_ckpt._utils import _flatten_dense_tensors, _unflatten_dense_tensors
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

# (segments this small cost more to keep than they drop: the engine says so, which is not the point here)
pytestmark = pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
DEVICES = ["cpu", "strict"]
DTYPES = [mg.float32, mg.float64]
VALUES = np.array([1.0, 5.0, 5.0, 2.0, 4.0, 3.0, 4.0])  # ties inside a segment: max shares its gradient
LENGTHS = [2, 0, 3, 2]


def _segments(x, reduce):
    lengths = mg.tensor(LENGTHS, device=x.device)
    y = mg.segment_reduce(x, reduce, lengths=lengths, initial=0.5 if reduce == "mean" else None)
    return mg.where(mg.isfinite(y), y, mg.zeros_like(y)).pow(2).sum()  # (the empty segment's -inf kept out)


def _plain_and_checkpointed(fn, make):
    grads = []
    for checkpointed in (False, True):
        xs = make()
        loss = mg.checkpoint.checkpoint(fn, *xs) if checkpointed else fn(*xs)
        loss.backward()
        grads.append([x.grad for x in xs])
    return grads


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce_inside_a_checkpoint_gives_the_plain_gradients(device, dtype, reduce):
    plain, replayed = _plain_and_checkpointed(
        lambda x: _segments(x, reduce),
        lambda: [mg.tensor(VALUES, dtype=dtype, device=device, requires_grad=True)])
    assert plain[0].dtype == dtype and plain[0].device == mg.device(device)
    np.testing.assert_array_equal(plain[0].numpy(), replayed[0].numpy())


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "prod"])
def test_segment_reduce_under_grad_vmap_and_jvp(reduce):
    x = mg.tensor(VALUES)
    g = func.grad(lambda x: _segments(x, reduce))(x)
    x_ = mg.tensor(VALUES, requires_grad=True)
    _segments(x_, reduce).backward()
    np.testing.assert_allclose(g.numpy(), x_.grad.numpy(), rtol=1e-13)
    rows = mg.tensor(np.random.default_rng(3).standard_normal((4, VALUES.size)))
    one = lambda r: mg.segment_reduce(r, reduce, lengths=mg.tensor(LENGTHS))  # noqa: E731
    np.testing.assert_allclose(func.vmap(one)(rows).numpy(), mg.stack([one(r) for r in rows]).numpy(), rtol=1e-13)
    smooth = mg.tensor(np.random.default_rng(4).standard_normal(VALUES.size))  # (no ties: differentiable)
    t = mg.tensor(np.random.default_rng(5).standard_normal(VALUES.size))
    _, tangent = func.jvp(one, (smooth,), (t,))
    h = 1e-6
    with np.errstate(invalid="ignore"):  # (the empty segment: -inf - -inf)
        central = (one(smooth + h * t) - one(smooth - h * t)) / (2 * h)
    finite = np.isfinite(central.numpy())
    np.testing.assert_allclose(tangent.numpy()[finite], central.numpy()[finite], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_flat_master_copy_inside_a_checkpoint_and_its_views(device, dtype):
    rng = np.random.default_rng(8)
    shapes = [(2, 3), (4,), (1, 2, 2)]

    def make():
        return [mg.tensor(rng.standard_normal(s), dtype=dtype, device=device, requires_grad=True) for s in shapes]

    def loss(*pieces):
        flat = _flatten_dense_tensors(pieces)
        back = _unflatten_dense_tensors(flat * 3, pieces)
        return sum((b * b).sum() for b in back)

    rng = np.random.default_rng(8)
    plain = make()
    loss(*plain).backward()
    rng = np.random.default_rng(8)
    replayed = make()
    mg.checkpoint.checkpoint(loss, *replayed).backward()
    for p, r in zip(plain, replayed):
        assert r.grad.dtype == dtype and r.grad.device == mg.device(device)
        np.testing.assert_array_equal(p.grad.numpy(), r.grad.numpy())
        np.testing.assert_allclose(p.grad.numpy(), 18 * p.detach().numpy(), rtol=1e-6)
    with mg.no_grad():  # the pieces are views: a step on one writes the flat master copy
        flat = _flatten_dense_tensors([p.detach() for p in plain])
        first = _unflatten_dense_tensors(flat, plain)[0]
        first.add_(1.0)
    one = np.asarray(1.0, flat.numpy().dtype)
    np.testing.assert_array_equal(flat.numpy()[:6], plain[0].detach().numpy().ravel() + one)


@pytest.mark.parametrize("device", DEVICES)
def test_area_interpolation_to_an_empty_axis_inside_a_checkpoint(device):
    def loss(x):
        empty = F.interpolate(x, scale_factor=0.1, mode="area")
        return empty.sum() + (x * x).sum()

    plain, replayed = _plain_and_checkpointed(
        loss, lambda: [mg.tensor(np.arange(5.0).reshape(1, 1, 5), device=device, requires_grad=True)])
    np.testing.assert_array_equal(plain[0].numpy(), replayed[0].numpy())
    np.testing.assert_array_equal(plain[0].numpy(), 2 * np.arange(5.0).reshape(1, 1, 5))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_triangular_solve_by_a_zero_diagonal_inside_a_checkpoint(device, dtype):
    a = np.triu(np.arange(1.0, 10.0).reshape(3, 3))
    a[1, 1] = 0.0  # singular: the solve answers IEEE's inf and NaN, as PyTorch's trsm

    def loss(t, b):
        return mg.linalg.solve_triangular(t, b, upper=True).sum()

    with np.errstate(all="ignore"):
        plain, replayed = _plain_and_checkpointed(
            loss, lambda: [mg.tensor(a, dtype=dtype, device=device, requires_grad=True),
                           mg.tensor(np.ones((3, 2)), dtype=dtype, device=device, requires_grad=True)])
    for p, r in zip(plain, replayed):
        np.testing.assert_array_equal(p.numpy(), r.numpy())  # (NaN where NaN: assert_array_equal's rule)
        assert not np.isfinite(p.numpy()).all()


@pytest.mark.parametrize("device", DEVICES)
def test_inf_norm_distances_with_ties_inside_a_checkpoint(device):
    pts = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0]])  # |dx| == |dy| for the first pair: a tie

    def loss(x):
        return F.pdist(x, p=float("inf")).sum() + mg.cdist(x, x[:2], p=float("inf")).sum()

    plain, replayed = _plain_and_checkpointed(
        loss, lambda: [mg.tensor(pts, device=device, requires_grad=True)])
    np.testing.assert_array_equal(plain[0].numpy(), replayed[0].numpy())
    g = func.grad(loss)(mg.tensor(pts, device=device))
    np.testing.assert_array_equal(g.numpy(), plain[0].numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_narrow_integer_lcm_wraps_on_every_device(device):
    a = mg.tensor([127, -6, 0], dtype=mg.int8, device=device)
    b = mg.tensor([2, 4, 5], dtype=mg.int8, device=device)
    assert a.lcm(b).tolist() == [-2, 12, 0]  # torch 2.13: int8(254) is -2


def test_a_tensor_only_operand_is_refused_under_vmap_and_a_zero_d_tensor_answers():
    xs = mg.tensor(np.array([[-1.0, 2.0], [3.0, -4.0]]))
    with pytest.raises(TypeError, match=r"maximum\(\): argument 'other' \(position 1\) must be Tensor, not int"):
        func.vmap(lambda x: x.maximum(0))(xs)
    np.testing.assert_array_equal(func.vmap(lambda x: x.maximum(mg.tensor(0.0)))(xs).numpy(), np.maximum(xs.numpy(), 0))
    g = func.grad(lambda x: x.hypot(mg.tensor(3.0)).sum())(mg.tensor([4.0]))
    np.testing.assert_allclose(g.numpy(), [0.8])
