"""PyTorch's ``quantile``/``nanquantile`` take a tensor ``q`` of the input's own dtype only: a float64
``q`` beside a float32 input is its RuntimeError ("quantile() q tensor must be same dtype as the input
tensor"); it answered.  NumPy's spelling (``mg.quantile(x, q)`` without ``dim=``/``interpolation=``)
still converts ``q``."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("x_dtype,q_dtype", [(mg.float32, mg.float64), (mg.float64, mg.float32)])
def test_a_q_of_another_dtype_is_refused_under_pytorchs_spelling(name, x_dtype, q_dtype, device):
    x = mg.tensor([1.0, 2.0, 3.0], dtype=x_dtype, device=device)
    q = mg.tensor([0.5], dtype=q_dtype, device=device)
    for call in (lambda: getattr(x, name)(q), lambda: getattr(mg, name)(x, q, dim=0),
                 lambda: getattr(mg, name)(x, q, interpolation="lower")):
        with pytest.raises(RuntimeError, match="q tensor must be same dtype as the input tensor"):
            call()
    assert getattr(x, name)(mg.tensor([0.5], dtype=x_dtype, device=device)).to("cpu").tolist() == [2.0]
    assert getattr(mg, name)(x, q).item() == 2.0  # NumPy's spelling
