"""``make_dual(x, t)`` refuses a tangent ``t`` that is itself a dual at the same level, as PyTorch's.

Such a tangent would have its own tangent pushed at the level it is the tangent of; the engine
accepted it and silently dropped that second-order part (``unpack_dual(e * e).tangent`` had no
tangent of its own).  torch 2.13 refuses it: "Setting a forward grad that itself has a forward
gradient at the same level0 is not supported."  Found running PyTorch's
``TestAutogradForwardMode.test_set_fw_grad_having_own_fw_grad_at_same_level`` against the engine.
A tangent that is a dual at an *outer* level is forward over forward, and stays allowed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD


def test_a_tangent_with_a_tangent_at_the_same_level_is_refused():
    with fwAD.dual_level():
        d = fwAD.make_dual(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]))
        for tangent in (d, d * 2, d[:]):
            with pytest.raises(RuntimeError, match="itself has a forward gradient at the same level"):
                fwAD.make_dual(mg.tensor([0.5, 0.5]), tangent)
        plain = fwAD.unpack_dual(d).tangent  # the tangent itself carries none: allowed
        e = fwAD.make_dual(mg.tensor([0.5, 0.5]), plain)
        np.testing.assert_array_equal(fwAD.unpack_dual(e * e).tangent.numpy(), [3.0, 4.0])


def test_a_tangent_that_is_a_dual_at_an_outer_level_is_allowed():
    with fwAD.dual_level() as outer:
        d = fwAD.make_dual(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]))
        with fwAD.dual_level() as inner:
            e = fwAD.make_dual(mg.tensor([0.5, 0.5]), d, level=inner)  # e's tangent moves with `outer`
            y = e * e  # tangent at inner: 2 e d, whose tangent at outer is 2 e [3, 4]
            t_inner = fwAD.unpack_dual(y, level=inner).tangent
            np.testing.assert_allclose(t_inner.detach().numpy(), [1.0, 2.0])
            np.testing.assert_allclose(fwAD.unpack_dual(t_inner, level=outer).tangent.numpy(), [3.0, 4.0])
