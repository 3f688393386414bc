"""A function with no complex kernel refuses complex input with an error of PyTorch's class.

PyTorch's refusals are ``NotImplementedError`` (``"GeluKernelImpl" not implemented for
'ComplexFloat'``), which in Python is a ``RuntimeError`` too; code written for PyTorch catches
either.  These refused with a bare ``TypeError`` (gelu, the normalizations, cosine_similarity,
cross_entropy) or a ``RuntimeError`` that is not a ``NotImplementedError`` (median, quantile), so
``pytest.raises(RuntimeError)`` -- PyTorch's own tests' spelling -- missed them; and the incomplete
gamma functions let NumPy's "ufunc 'remainder' not supported for the input types" through, naming
neither the function nor the reason.  Each is now both PyTorch's class and the ``TypeError`` it was.
Found by calling every public function with complex arguments beside torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional

#: name -> (call, what the message says)
REFUSALS = {
    "gelu": (lambda z: F.gelu(z), '"GeluKernelImpl" not implemented for'),
    "gelu tanh": (lambda z: F.gelu(z, approximate="tanh"), '"GeluKernelImpl" not implemented for'),
    "layer_norm": (lambda z: F.layer_norm(z, (3,)), "layer_norm: complex input is not supported"),
    "batch_norm": (lambda z: F.batch_norm(z, None, None, training=True), "batch_norm: complex input"),
    "group_norm": (lambda z: F.group_norm(z, 1), "group_norm: complex input is not supported"),
    "instance_norm": (lambda z: F.instance_norm(z), "instance_norm: complex input is not supported"),
    "local_response_norm": (lambda z: F.local_response_norm(z, 2), "local_response_norm: complex input"),
    "cosine_similarity": (lambda z: F.cosine_similarity(z, z), "cosine_similarity: expected real input"),
    "cosine_similarity mixed": (lambda z: F.cosine_similarity(z.real, z), "cosine_similarity: expected real"),
    "cross_entropy": (lambda z: F.cross_entropy(z[0], mg.tensor([0, 1], device=z.device)),
                      "cross_entropy: input must be"),
    "cross_entropy probabilities": (lambda z: F.cross_entropy(z[0], z[0].real), "cross_entropy: input must be"),
    "median": (lambda z: mg.median(z), "median: complex numbers have no order"),
    "median method": (lambda z: z.median(), "median: complex numbers have no order"),
    "median dim": (lambda z: mg.median(z, dim=1), "median: complex numbers have no order"),
    "nanmedian": (lambda z: mg.nanmedian(z), "nanmedian: complex numbers have no order"),
    "nanmedian dim": (lambda z: z.nanmedian(1), "nanmedian: complex numbers have no order"),
    "quantile": (lambda z: mg.quantile(z, 0.5), "quantile: complex numbers have no order"),
    "nanquantile": (lambda z: mg.nanquantile(z, 0.5, dim=1), "nanquantile: complex numbers have no order"),
    "igamma": (lambda z: mg.igamma(z, z.real), '"igamma_cpu" not implemented for'),
    "igamma of a complex x": (lambda z: mg.igamma(z.real, z), '"igamma_cpu" not implemented for'),
    "igamma method": (lambda z: z.igamma(z.real), '"igamma_cpu" not implemented for'),
    "igamma_": (lambda z: z.igamma_(z.real), '"igamma_cpu" not implemented for'),
    "igammac": (lambda z: mg.igammac(z, z), '"igammac_cpu" not implemented for'),
    "special.gammainc": (lambda z: mg.special.gammainc(z.real, z), '"igamma_cpu" not implemented for'),
    "special.gammaincc": (lambda z: mg.special.gammaincc(z, 2.0), '"igammac_cpu" not implemented for'),
    "gammainc of a Python complex": (lambda z: mg.special.gammainc(z.real, 1j), '"igamma_cpu" not implemented'),
}


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_complex_refusal_is_pytorchs_not_implemented_and_a_type_error(name, dtype, device):
    if device == "strict-f32" and dtype == "complex128":
        pytest.skip("the float32 stand-in device holds no complex128")
    call, words = REFUSALS[name]
    z = mg.tensor(np.array([[1 + 2j, 0.5 - 1j, 2.0], [-1j, 3 + 0.5j, 1.5]]), dtype=dtype, device=device)
    z = z.reshape(1, 2, 3)
    with pytest.raises(NotImplementedError, match=words) as info:
        call(z)
    assert isinstance(info.value, RuntimeError)  # PyTorch's NotImplementedError is one
    assert isinstance(info.value, TypeError)  # as the engine's refusals of a dtype were


@pytest.mark.parametrize("fn", [mg.igamma, mg.igammac])
def test_incomplete_gamma_of_reals_still_answers(fn):
    a, x = mg.tensor([0.5, 2.0], dtype="float64"), mg.tensor([1.0, 3.0], dtype="float64")
    assert np.all(np.isfinite(fn(a, x).numpy()))
