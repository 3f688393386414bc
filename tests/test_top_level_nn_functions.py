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
