"""``n=``/``s=`` of ``mg.fft`` and the ``n`` of ``fftfreq``/``rfftfreq`` take a one-element integer tensor,
as PyTorch's int arguments do (its ``__index__``).

torch 2.13: ``torch.fft.fft(torch.ones(3), n=torch.tensor(4)).shape`` -> ``(4,)``;
``torch.fft.fftn(torch.ones(3, 3), s=(torch.tensor(4), 2)).shape`` -> ``(4, 2)``;
``torch.fft.fftfreq(torch.tensor(4))`` -> ``[0, 0.25, -0.5, -0.25]``; a float, a float tensor or a bool is refused.
The engine refused every tensor: ``fft: invalid number of data points (tensor(4)) specified``.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_a_length_held_in_a_tensor_pads_and_crops_as_an_int(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    data = np.arange(1.0, 7.0)
    x = mg.tensor(data, dtype=dtype, device=device, requires_grad=True)
    lengths = mg.tensor([3, 8], device=device)
    y = mg.fft.rfft(x, n=lengths.max())                    # a 0-d integer tensor
    np.testing.assert_allclose(y.detach().cpu().numpy(), np.fft.rfft(data, 8), rtol=1e-5, atol=1e-5)
    assert y.dtype == (mg.complex128 if dtype == mg.float64 else mg.complex64)
    y.abs().sum().backward()
    assert x.grad.shape == (6,) and x.grad.dtype == dtype
    assert mg.fft.fft(x, n=mg.tensor([4], device=device)).shape == (4,)   # one element, as torch's SymInt
    assert mg.fft.irfft(y, n=mg.tensor(5)).shape == (5,)
    assert mg.fft.fftn(x.reshape(2, 3), s=(mg.tensor(4), 2)).shape == (4, 2)
    assert mg.fft.rfftn(x.reshape(2, 3), s=[mg.tensor(3), -1]).shape == (3, 2)
    assert mg.fft.fft(x, n=np.int64(4)).shape == (4,)


def test_frequencies_take_a_tensor_count():
    np.testing.assert_array_equal(mg.fft.fftfreq(mg.tensor(4)).numpy(), [0.0, 0.25, -0.5, -0.25])
    np.testing.assert_allclose(mg.fft.rfftfreq(mg.tensor(5), 0.5).numpy(), [0.0, 0.4, 0.8], rtol=1e-6)


@pytest.mark.parametrize("make_bad", [lambda: True, lambda: 4.0, lambda: mg.tensor(4.0), lambda: mg.tensor([4, 5]),
                                      lambda: 0, lambda: -2])
def test_what_is_not_a_whole_positive_length_is_still_refused(make_bad):
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        mg.fft.fft(mg.ones(3), n=make_bad())
