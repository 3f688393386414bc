"""The sequence factories (``arange``, ``linspace``, ``logspace``, ``fft.fftfreq``, ``fft.rfftfreq``)
given an ``out`` that holds as many elements as the sequence, in another shape, fill it in its own
shape and memory, as PyTorch's kernels do: they resize only an ``out`` of another length.  The
engine used to resize every such ``out`` (with arange's warning, whose numbers then agreed: "is 4
which does not match the computed number of elements 4"), so a view's base never saw the values.
PyTorch's ``test_torch.py`` (``test_arange``, ``test_range``) writes ``arange(0, 4, out=x.narrow(1, 1, 2))``.
Values read off torch 2.13."""
from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg

SEQUENCES = {
    "arange": (lambda out: mg.arange(0, 4, out=out), [0.0, 1.0, 2.0, 3.0]),
    "linspace": (lambda out: mg.linspace(0, 3, 4, out=out), [0.0, 1.0, 2.0, 3.0]),
    "logspace": (lambda out: mg.logspace(0, 3, 4, out=out), [1.0, 10.0, 100.0, 1000.0]),
    "fftfreq": (lambda out: mg.fft.fftfreq(4, out=out), [0.0, 0.25, -0.5, -0.25]),
    "rfftfreq": (lambda out: mg.fft.rfftfreq(6, out=out), [0.0, 1 / 6, 1 / 3, 0.5]),
}


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_an_out_view_of_the_sequences_length_is_filled_in_place(name):
    make, values = SEQUENCES[name]
    base = mg.zeros(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no resize, so no warning of one
        answer = make(base.narrow(1, 1, 2))
    assert answer.shape == (2, 2)
    assert base[:, 0].tolist() == [0.0, 0.0]
    assert base[:, 1:].flatten().tolist() == pytest.approx(values, rel=1e-6)


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_an_out_of_another_length_is_still_resized_to_one_dim(name):
    make, values = SEQUENCES[name]
    out = mg.zeros(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # arange and the fftfreqs warn here, as PyTorch's
        answer = make(out)
    assert answer is out and out.shape == (len(values),)
    assert out.tolist() == pytest.approx(values, rel=1e-6)


def test_arange_warns_of_a_resize_only_where_the_length_differs():
    with pytest.warns(UserWarning, match="is 3 which does not match the computed number of elements 4"):
        mg.arange(4.0, out=mg.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.arange(4.0, out=mg.zeros(2, 2))
