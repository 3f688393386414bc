"""``torch.special``'s names for functions the package offers under its own: ``softmax``,
``log_softmax`` (with ``dtype=``), ``expm1``, ``exp2``, ``log1p`` and ``round``.  Each was an
``AttributeError`` on ``mg.special`` (torch 2.13 has all six); each is the package's function.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

ALIASES = {"softmax": mg.softmax, "log_softmax": mg.log_softmax, "expm1": mg.expm1, "exp2": mg.exp2,
           "log1p": mg.log1p, "round": mg.round}
X = np.random.default_rng(2).uniform(0.1, 2.0, (3, 4))


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_torch_special_names_are_the_packages_functions(name):
    assert getattr(mg.special, name) is ALIASES[name]
    assert name in mg.special.__all__


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_special_softmax_casts_to_its_dtype_and_sends_the_inputs_dtype_back(name, device):
    x = mg.tensor(X, dtype=mg.float32, device=device, requires_grad=True)
    out = getattr(mg.special, name)(x, 1, dtype=mg.float64)
    assert out.dtype == mg.float64
    want = X - np.log(np.exp(X).sum(1, keepdims=True))
    np.testing.assert_allclose(out.detach().numpy(), want if name == "log_softmax" else np.exp(want), rtol=1e-6)
    (out * mg.tensor(X, device=device)).sum().backward()
    assert x.grad.dtype == mg.float32


def test_special_round_takes_decimals():
    assert mg.special.round(mg.tensor([1.234, -5.678]), decimals=1).tolist() == pytest.approx([1.2, -5.7])
