"""A 0-d tensor answers to dims 0 and -1 where PyTorch's spelling is used: they name its one
element, as if it had shape ``(1,)``.  ``transpose``/``swapaxes``/``swapdims`` of those two dims,
``flip(dims=...)``, ``linalg.vecdot`` (its default ``dim=-1``), ``logsumexp`` and
``special.logsumexp`` raised DimensionOutOfRange.  ``logsumexp`` takes the rule in every spelling:
SciPy's answers ``logsumexp(array(3.), axis=0)`` too.  (NumPy's functions spelled as NumPy's --
``mg.sum(z, 0)``, ``mg.flip(z, axis=0)`` -- keep NumPy's refusal: ``test_reduction_dims.py``.)

torch 2.13, ``z = torch.tensor(3., requires_grad=True)``: each case below is 3. (vecdot: 9.) of shape
``()``, with ``z.grad`` 1. (vecdot: 6.); dim 1 is ``IndexError: Dimension out of range (expected to be
in range of [-1, 0], but got 1)``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

CASES = {
    "transpose": (lambda z, d: mg.transpose(z, 0, d), 3.0, 1.0),
    "swapaxes": (lambda z, d: mg.swapaxes(z, d, 0), 3.0, 1.0),
    "swapaxes_method": (lambda z, d: z.swapaxes(0, d), 3.0, 1.0),
    "swapdims": (lambda z, d: mg.swapdims(z, d, d), 3.0, 1.0),
    "swapdims_method": (lambda z, d: z.swapdims(d, 0), 3.0, 1.0),
    "flip_dims": (lambda z, d: mg.flip(z, dims=(d,)), 3.0, 1.0),
    "vecdot": (lambda z, d: mg.linalg.vecdot(z, z, dim=d), 9.0, 6.0),
    "vecdot_default": (lambda z, d: mg.linalg.vecdot(z, z), 9.0, 6.0),
    "logsumexp": (lambda z, d: mg.logsumexp(z, d), 3.0, 1.0),
    "logsumexp_axis": (lambda z, d: mg.logsumexp(z, axis=d), 3.0, 1.0),
    "logsumexp_keepdim": (lambda z, d: mg.logsumexp(z, d, True), 3.0, 1.0),
    "special_logsumexp": (lambda z, d: mg.special.logsumexp(z, d), 3.0, 1.0),
    "special_logsumexp_keepdim": (lambda z, d: mg.special.logsumexp(z, d, True), 3.0, 1.0),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_0d_tensor_answers_to_dim_0_and_minus_1(name, dim, dtype, device):
    fn, value, grad = CASES[name]
    z = mg.tensor(3.0, dtype=dtype, device=device, requires_grad=True)
    out = fn(z, dim)
    assert out.shape == () and out.dtype == dtype and out.device == z.device and out.item() == value
    (g,) = mg.grad(out, [z])
    assert g.dtype == dtype and g.item() == grad
    _, tangent = mg.func.jvp(lambda v: fn(v, dim), (z.detach(),), (mg.tensor(2.0, dtype=dtype, device=device),))
    np.testing.assert_allclose(tangent.item(), 2 * grad)


@pytest.mark.parametrize("name", ["transpose", "swapaxes_method", "swapdims", "flip_dims", "vecdot", "logsumexp",
                                  "special_logsumexp"])
def test_other_dims_of_a_0d_tensor_are_out_of_range(name):
    z = mg.tensor(3.0)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        CASES[name][0](z, 1)
