"""``logsumexp``'s derivative is the slice's softmax, normalized from the max-shifted
exponentials: ``exp(x - out)`` loses ``out``'s rounding once the logits are large (float64 past
1e16, float32 past 1e7), where ``out`` rounds to ``x`` itself and each tied weight came out 1, not
1/2 -- the gradient doubled, and ``logcumsumexp`` (built on it) with it.

torch 2.13's forward mode gives the softmax (``torch.func.jvp(lambda x: torch.logsumexp(x, 0),
(x,), (t,))`` at x = (3e7, 3e7, 0) float32, t = (1, 3, 5) is 2.0); its reverse mode gives
``exp(x - out)`` (x.grad (1, 1, 0)), which disagrees with its own forward mode; the engine gives
the softmax in both.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

CASES = [(mg.float32, 3e7), (mg.float64, 1e17), (mg.float64, 1e300)]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype, big", CASES)
def test_tied_large_logits_share_the_gradient(dtype, big, device):
    x = mg.tensor([big, big, 0.0], dtype=dtype, device=device, requires_grad=True)
    mg.logsumexp(x, 0).backward()
    assert x.grad.tolist() == [0.5, 0.5, 0.0]
    x = mg.tensor([big, big, 0.0], dtype=dtype, device=device, requires_grad=True)
    mg.checkpoint.checkpoint(lambda a: mg.logsumexp(a, 0), x, use_reentrant=False).backward()
    assert x.grad.tolist() == [0.5, 0.5, 0.0]
    g = mg.func.grad(lambda a: mg.logsumexp(a, 0))(x.detach())
    assert g.tolist() == [0.5, 0.5, 0.0]


@pytest.mark.parametrize("dtype, big", CASES)
def test_forward_mode_is_the_softmax_weighted_tangent(dtype, big):
    x = mg.tensor([big, big, 0.0], dtype=dtype)
    _, t = mg.func.jvp(lambda a: mg.logsumexp(a, 0), (x,), (mg.tensor([1.0, 3.0, 5.0], dtype=dtype),))
    assert t.item() == 2.0  # torch 2.13's torch.func.jvp answer


@pytest.mark.parametrize("dtype, big", CASES)
def test_logcumsumexp_of_tied_large_logits(dtype, big):
    # d/dx of (x0, log(e^x0 + e^x1), log(e^x0 + e^x1 + e^x2)).sum() at x = (big, big, 0): (1 + 1/2 + 1/2, 1/2 + 1/2, 0)
    x = mg.tensor([big, big, 0.0], dtype=dtype, requires_grad=True)
    mg.logcumsumexp(x, 0).sum().backward()
    assert x.grad.tolist() == [2.0, 1.0, 0.0]


def test_an_all_minus_inf_slice_keeps_weights_zero():
    x = mg.tensor([[-np.inf, -np.inf], [0.0, 0.0]], requires_grad=True)
    mg.logsumexp(x, 1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.5, 0.5]]
    _, t = mg.func.jvp(lambda a: mg.logsumexp(a, 1), (x.detach(),), (mg.ones(2, 2),))
    assert t.tolist() == [0.0, 1.0]
