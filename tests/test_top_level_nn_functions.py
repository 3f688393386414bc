"""PyTorch's top-level nn functions: ``torch.dropout(input, p, train)``, ``torch.batch_norm(input,
weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)``,
``torch.embedding(weight, indices)``, ``torch.layer_norm``, ``torch.max_pool1d``, ... -- ATen's
signatures, another argument order than ``nn.functional``'s -- and the top-level twins of Tensor
methods (``torch.is_conj``, ``torch.fill``, ``torch.split_with_sizes``, ``torch.row_stack``, ...).
Each was an AttributeError.  Outputs and input gradients are torch 2.13's
(``tests/data/make_torch_top_level_nn.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

sys.path.insert(0, str(Path(__file__).with_name("data")))
from top_level_nn_cases import CASES, INPUTS  # noqa: E402

with np.load(Path(__file__).with_name("data") / "torch_top_level_nn.npz") as _npz:
    TORCH = {k: _npz[k] for k in _npz.files}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_top_level_nn_functions_match_pytorch(name, device):
    t = {k: mg.tensor(v, device=device, requires_grad=True) for k, v in INPUTS.items()}
    out = CASES[name](mg, t)
    want = TORCH[f"{name}/out"]
    assert out.shape == want.shape and out.dtype == want.dtype
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-14)
    if out.dtype.kind != "f":
        return
    weights = np.random.default_rng(len(name)).standard_normal(want.shape)
    (out * mg.tensor(weights, device=device)).sum().backward()
    for k, v in t.items():
        key = f"{name}/grad/{k}"
        if key in TORCH:
            np.testing.assert_allclose(v.grad.numpy(), TORCH[key], rtol=1e-10, atol=1e-12, err_msg=key)
        else:
            assert v.grad is None or not v.grad.numpy().any(), key


def test_the_method_twins_at_the_top_level():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert mg.is_conj(x) is False and mg.is_neg(x) is False and mg.resolve_conj(x) is x and mg.resolve_neg(x) is x
    assert mg.is_signed(x) and not mg.is_signed(mg.tensor([1], dtype=mg.uint8))
    assert mg.is_same_size(x, mg.zeros(2, 2)) and not mg.is_same_size(x, mg.zeros(4))
    assert mg.detach(x).requires_grad is False and mg.detach(x).data_ptr() == x.data_ptr()
    v = mg.tensor(2.0, requires_grad=True)
    mg.fill(x, v).sum().backward()  # the value gets the gradient, summed, as torch's
    assert float(v.grad) == 4.0
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        np.testing.assert_allclose(mg.chain_matmul(x, x, x).detach().numpy(), np.linalg.matrix_power(x.numpy(), 3))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_top_level_hardshrink_and_threshold_take_out(device):
    """``torch.hardshrink`` and ``torch.threshold`` -- alone among the nn functions PyTorch also
    offers at the top level -- take ``out=`` (``F.hardshrink`` and ``F.threshold`` do not).  Ours
    were ``F``'s twins themselves, so ``out=`` was a TypeError.  The dtypes ``out`` may have are
    torch 2.13's: ``threshold`` casts (float64 and float16 taken, int64 refused), ``hardshrink``
    takes the result's dtype only."""
    x = mg.tensor([0.25, -0.75, 2.0], device=device)
    out = mg.zeros(0, device=device)
    assert mg.hardshrink(x, 0.5, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [0.0, -0.75, 2.0])
    for dtype in (mg.float64, mg.float16, mg.int64):
        with pytest.raises(RuntimeError, match=r"Found dtype \w+ but expected Float"):
            mg.hardshrink(x, out=mg.zeros(0, dtype=dtype, device=device))

    for dtype in (mg.float32, mg.float64, mg.float16):
        out = mg.zeros(3, dtype=dtype, device=device)
        assert mg.threshold(x, 0.5, -1.0, out=out) is out and out.dtype == dtype
        np.testing.assert_array_equal(out.numpy(), np.array([-1.0, -1.0, 2.0], dtype=dtype))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        mg.threshold(x, 0.5, -1.0, out=mg.zeros(3, dtype=mg.int64, device=device))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        mg.threshold(mg.tensor([1.0, 2.0], requires_grad=True), 1.5, 0.0, out=mg.zeros(2))

    # without out=, they are F's, gradients included; F's own functions still take no out=
    w = mg.tensor([0.25, -0.75, 2.0], requires_grad=True)
    (mg.hardshrink(w) * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 2.0, 3.0])
    for f, args in ((mg.nn.functional.hardshrink, (0.5,)), (mg.nn.functional.threshold, (0.5, -1.0))):
        with pytest.raises(TypeError, match="out"):
            f(x, *args, out=mg.zeros(3))
