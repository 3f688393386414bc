"""PyTorch's arguments of ``mg.fft``'s functions, as torch 2.13 takes them.

``fftfreq``/``rfftfreq`` take ``requires_grad=`` (a leaf, as PyTorch's factory functions make
it); it was a TypeError.  An argument they refuse is PyTorch's RuntimeError (and still NumPy's
ValueError, or the TypeError a complex input to a real transform was).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, n, want", [("fftfreq", 5, [0.0, 0.2, 0.4, -0.4, -0.2]),
                                           ("rfftfreq", 6, [0.0, 1 / 3, 2 / 3, 1.0])])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_the_frequencies_can_be_a_leaf_that_requires_grad(name, n, want, dtype, device):
    d = 0.5 if name == "rfftfreq" else 1.0
    f = getattr(mg.fft, name)(n, d, dtype=dtype, device=device, requires_grad=True)
    assert f.requires_grad and f.is_leaf and f.grad_fn is None and f.dtype == dtype
    (f * f).sum().backward()
    np.testing.assert_allclose(f.detach().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(f.grad.numpy(), 2 * np.array(want), rtol=1e-6)
    assert not getattr(mg.fft, name)(n, d).requires_grad


def _ones(*shape):
    return mg.ones(*shape)


# each call torch 2.13 refuses with a RuntimeError (the engine raised NumPy's ValueError, or a
# TypeError for a complex input to a real transform); the errors are both now
REFUSED = {
    "unknown norm": lambda: mg.fft.fft(_ones(4), norm="bad"),
    "n = 0": lambda: mg.fft.fft(_ones(4), n=0),
    "irfft n = 0": lambda: mg.fft.irfft(_ones(4) + 0j, n=0),
    "empty input": lambda: mg.fft.fft(_ones(0)),
    "empty rfft input": lambda: mg.fft.rfft(_ones(2, 0)),
    "repeated dims": lambda: mg.fft.fftn(_ones(4, 4), dim=(0, 0)),
    "s and dim lengths": lambda: mg.fft.rfftn(_ones(4, 4), s=(3,), dim=(0, 1)),
    "s longer than the input": lambda: mg.fft.fftn(_ones(4), s=(2, 2)),
    "no dim for a real transform": lambda: mg.fft.rfftn(_ones(4), dim=()),
    "integer frequencies": lambda: mg.fft.fftfreq(4, dtype=mg.int64),
}
COMPLEX_TO_REAL_TRANSFORM = {
    "rfft": lambda: mg.fft.rfft(_ones(4) * 1j),
    "ihfft": lambda: mg.fft.ihfft(_ones(4) * 1j),
    "rfft2": lambda: mg.fft.rfft2(_ones(2, 4) * 1j),
    "ihfftn": lambda: mg.fft.ihfftn(_ones(2, 4) * 1j),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_refused_argument_is_pytorchs_runtime_error_and_numpys_value_error(case):
    with pytest.raises(RuntimeError) as caught:
        REFUSED[case]()
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("case", sorted(COMPLEX_TO_REAL_TRANSFORM))
def test_a_complex_input_to_a_real_transform_is_a_runtime_error(case):
    with pytest.raises(RuntimeError, match="real(-valued)? input") as caught:
        COMPLEX_TO_REAL_TRANSFORM[case]()
    assert isinstance(caught.value, TypeError)
