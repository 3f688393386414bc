"""``mg.prod``, ``mg.cumsum`` and ``mg.cumprod`` take PyTorch's ``out=`` as ``mg.sum`` does (they
refused it: "out= is not supported"): the result is reduced in ``out``'s dtype and written there
(resized with PyTorch's warning), a ``dtype=`` given must be ``out``'s, and an input that requires
grad is refused in grad mode.  A running sum or product in bool -- ``dtype=mg.bool`` under PyTorch's
spelling -- is PyTorch's NotImplementedError ("cumsum_out_cpu" not implemented for 'Bool'); it
answered.  The values are torch 2.13's."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

X = [[1.0, 2.0], [3.0, -4.0]]
TORCH = {  # (function, out dtype): torch's out after fn(x, 1, out=out)
    ("prod", mg.float64): [2.0, -12.0], ("prod", mg.int64): [2, -12], ("prod", mg.bool): [True, True],
    ("cumsum", mg.float32): [[1.0, 3.0], [3.0, -1.0]], ("cumsum", mg.int32): [[1, 3], [3, -1]],
    ("cumprod", mg.float64): [[1.0, 2.0], [3.0, -12.0]], ("cumprod", mg.int64): [[1, 2], [3, -12]],
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name,dtype", list(TORCH), ids=[f"{n}-{d}" for n, d in TORCH])
def test_out_is_written_in_its_dtype_and_returned(name, dtype, device):
    x = mg.tensor(X, dtype=mg.float64, device=device)
    out = mg.zeros(len(TORCH[name, dtype]), dtype=dtype, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (out had the result's element count: no resize warning)
        if name != "prod":
            out = mg.zeros(2, 2, dtype=dtype, device=device)
        result = getattr(mg, name)(x, dim=1, out=out)
    assert result is out and out.dtype == dtype and out.to("cpu").tolist() == TORCH[name, dtype]


@pytest.mark.parametrize("name", ["prod", "cumsum", "cumprod"])
def test_out_refusals_as_pytorch(name):
    x = mg.tensor(X, dtype=mg.float64)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        getattr(mg, name)(x, dim=1, dtype=mg.float64, out=mg.zeros(2, 2, dtype=mg.float32))
    with pytest.raises(RuntimeError):  # the write is not recorded: an input that requires grad is refused
        getattr(mg, name)(x.requires_grad_(), dim=1, out=mg.zeros(2, 2, dtype=mg.float64))
    with pytest.warns(UserWarning, match="resized"):  # an out of another element count is resized
        getattr(mg, name)(x.detach(), dim=0, out=mg.zeros(5, dtype=mg.float64))


@pytest.mark.parametrize("call", [
    lambda x: x.cumsum(0, dtype=mg.bool), lambda x: x.cumprod(dim=0, dtype=mg.bool),
    lambda x: mg.cumsum(x, dim=0, dtype=mg.bool), lambda x: mg.cumprod(x, dim=0, out=mg.zeros(2, dtype=mg.bool)),
], ids=["cumsum method", "cumprod method", "cumsum dim", "cumprod out"])
def test_a_running_sum_in_bool_is_refused_under_pytorchs_spelling(call):
    with pytest.raises(NotImplementedError, match="_out_cpu\" not implemented for 'Bool'"):
        call(mg.tensor([1.0, 0.0]))


def test_numpys_spelling_still_answers_in_bool_and_an_integer_dtype_is_kept():
    x = mg.tensor([1.0, 0.0])
    assert mg.cumsum(x, dtype=bool).tolist() == [True, True]  # NumPy's
    assert mg.tensor([3, 4], dtype=mg.int32).cumsum(0, dtype=mg.int32).dtype == mg.int32
    assert mg.tensor([3, 4], dtype=mg.int32).cumsum(0).dtype == mg.int64  # PyTorch's: integers in int64
    assert mg.tensor([True, True]).cumsum(0).tolist() == [1, 2]
