"""PyTorch's operators beyond NumPy's (gather/scatter, ordering, NaN-aware reductions, shape
helpers) against PyTorch's own answers, stored offline by ``tests/data/make_torch_operators.py``.

Each case of ``tests/data/operator_cases.py`` runs here with minigrad_ckpt (no torch import):
the outputs must equal PyTorch's (values, shapes, integer or float kind) and the gradient of
``sum(out_i * cot_i)`` must equal PyTorch's for every float input, to float64 round-off.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

sys.path.insert(0, str(Path(__file__).parent / "data"))
from operator_cases import CASES  # noqa: E402

# The edge-value cases compute with inf and NaN: NumPy's overflow/invalid warnings are expected there.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

with np.load(Path(__file__).parent / "data" / "torch_operators.npz") as _npz:
    STORED = {k: _npz[k] for k in _npz.files}


def _outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    assert (got.dtype.kind in "iub") == (want.dtype.kind in "iub"), f"{what}: dtype {got.dtype}, PyTorch {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_values_and_gradients_equal_pytorchs(case):
    tensors = {k: mg.tensor(v, requires_grad=v.dtype == np.float64) for k, v in case.inputs.items()}
    outs = _outputs(case.call(mg, **tensors))
    total = None
    for n, out in enumerate(outs):
        _same(out.numpy(), STORED[f"{case.name}|out{n}"], f"{case.name} output {n}")
        key = f"{case.name}|cot{n}"
        if key in STORED:
            term = (out * mg.tensor(STORED[key])).sum()
            total = term if total is None else total + term
    wrt = [k for k, t in tensors.items() if t.requires_grad]
    if total is None or not wrt or f"{case.name}|backward_failed" in STORED or case.gradient_differs:
        return
    grads = mg.grad(total, [tensors[k] for k in wrt], allow_unused=True)
    for k, g in zip(wrt, grads):
        want = STORED.get(f"{case.name}|grad_{k}")
        got = np.zeros(tensors[k].shape) if g is None else g.numpy()
        _same(got, np.zeros(tensors[k].shape) if want is None else want, f"{case.name} gradient of {k}")
