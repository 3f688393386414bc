"""A dual with no elements still moves what is computed from it: by zero, as PyTorch's.

``J v`` of an op whose input tangents are all empty is exactly 0 (J has no columns), and the
engine knew it -- but answered ``None``, "nothing moves this output", so
``unpack_dual(empty_dual.sum()).tangent`` was ``None`` where torch 2.13 gives ``tensor(0.)``, and
``c[:0] = empty_dual`` left ``c`` without a tangent where torch gives ``c`` a zero one.  (Code that
reads the tangent -- ``tangent.sum()`` -- failed on the ``None``.)  Found running PyTorch's
``TestAutogradForwardMode.test_metadata_check_checks_ignores_size_zero`` (``torch.diagonal`` of a
``(0, 1)`` dual) against the engine.  The expected values are zeros of the output's shape, by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.checkpoint import checkpoint


def _tangent(y):
    tangent = fwAD.unpack_dual(y).tangent
    assert tangent is not None, "the output lost its tangent"
    return tangent


def _assert_zero(tangent, shape, dtype=mg.float64):
    assert tuple(tangent.shape) == shape and tangent.dtype == dtype
    np.testing.assert_array_equal(tangent.to("cpu").numpy(), np.zeros(shape))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_ops_of_an_empty_dual_have_zero_tangents(dtype):
    with fwAD.dual_level():
        d = fwAD.make_dual(mg.ones(0, 3, dtype=dtype), mg.ones(0, 3, dtype=dtype))
        _assert_zero(_tangent(d.sum()), (), dtype)
        _assert_zero(_tangent(d.sum(0)), (3,), dtype)
        _assert_zero(_tangent(d.diagonal()), (0,), dtype)
        _assert_zero(_tangent(d * 2), (0, 3), dtype)
        _assert_zero(_tangent(d.t() @ mg.ones(0, 2, dtype=dtype)), (3, 2), dtype)
        _assert_zero(_tangent(mg.cat([d, mg.ones(1, 3, dtype=dtype)])), (1, 3), dtype)
        mean = d.mean(0)  # 0/0 in the value; nothing moves it
        assert np.isnan(mean.detach().numpy()).all()
        _assert_zero(_tangent(mean), (3,), dtype)


def test_writes_of_an_empty_dual_give_the_target_a_zero_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(mg.ones(0, 3, dtype=mg.float64), mg.ones(0, 3, dtype=mg.float64))
        c = mg.zeros(2, 3, dtype=mg.float64)
        c[:0] = d
        _assert_zero(_tangent(c), (2, 3))
        b = mg.zeros(0, 3, dtype=mg.float64)
        b.add_(d)
        _assert_zero(_tangent(b), (0, 3))
        moving = fwAD.make_dual(mg.ones(2, 3, dtype=mg.float64), mg.full((2, 3), 5.0, dtype=mg.float64))
        kept = moving.clone()
        kept[:0] = d  # writes nothing: the target's own tangent stays
        np.testing.assert_array_equal(_tangent(kept).numpy(), np.full((2, 3), 5.0))


def test_empty_duals_on_the_strict_device_and_under_checkpoint():
    with fwAD.dual_level():
        d = fwAD.make_dual(mg.ones(0, 3, device="strict"), mg.ones(0, 3, device="strict"))
        tangent = _tangent(d.sum(0))
        assert str(tangent.device) == "strict:0"
        _assert_zero(tangent, (3,), mg.float32)
        e = fwAD.make_dual(mg.ones(0, 3, dtype=mg.float64), mg.ones(0, 3, dtype=mg.float64))
        _assert_zero(_tangent(checkpoint(lambda a: a.exp().sum(0), e, use_reentrant=False)), (3,))


def test_jvp_and_vmap_of_jvp_over_an_empty_input_are_zero():
    x = mg.ones(0, 3, dtype=mg.float64)
    value, tangent = mg.func.jvp(lambda a: a.sum(0), (x,), (x,))
    _assert_zero(tangent, (3,))
    batched = mg.func.vmap(lambda v: mg.func.jvp(lambda a: (a * a).sum(0), (x,), (v,))[1])(mg.ones(4, 0, 3,
                                                                                                  dtype=mg.float64))
    _assert_zero(batched, (4, 3))
