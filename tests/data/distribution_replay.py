"""Replay of recorded torch answers: run a distribution case (``f(D, T, func)``, see distribution_cases.py)
with minigrad_ckpt in ``dtype`` and compare each output with the array recorded for it -- its count,
dtype (torch's: numbers alone make the default dtype), shape and values."""

import numpy as np


def replay(case, dtype, recorded, tol, mg, D, func):
    def T(values):
        return mg.tensor(values, dtype=getattr(mg, dtype))

    outputs = case(D, T, func)
    assert len(outputs) == sum(k.startswith(f"{case.__name__}|{dtype}|") for k in recorded.files)
    for i, out in enumerate(outputs):
        expected = recorded[f"{case.__name__}|{dtype}|{i}"]
        assert str(out.dtype) == str(expected.dtype) and tuple(out.shape) == expected.shape, (i, out.dtype, out.shape)
        np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=tol, err_msg=str(i))
