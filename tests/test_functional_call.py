"""``mg.func.functional_call``: a module run with tensors of one's own for its parameters and buffers,
under the function transforms. Expected values are torch 2.13's ``torch.func.functional_call`` for the
same weights (the torch expression quoted beside each); torch is not imported."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.func import functional_call


def tied_pair(dtype: str = "float64") -> nn.Sequential:
    """Linear(2, 2) twice with one shared weight (eye), biases [0.5, -0.5] and [1, 2]."""
    a, b = nn.Linear(2, 2, dtype=dtype), nn.Linear(2, 2, dtype=dtype)
    b.weight = a.weight
    with mg.no_grad():
        a.weight.copy_(mg.eye(2, dtype=dtype))
        a.bias.copy_(mg.tensor([0.5, -0.5], dtype=dtype))
        b.bias.copy_(mg.tensor([1.0, 2.0], dtype=dtype))
    return nn.Sequential(a, b)


X = [[3.0, -1.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tied_weights_stand_in_together_unless_told_not_to(dtype):
    seq, x = tied_pair(dtype), mg.tensor(X, dtype=dtype)
    zeros = mg.zeros(2, 2, dtype=dtype)
    # torch: functional_call(s, {'0.weight': zeros}, (x,)) == [[1., 2.]]; with tie_weights=False [[1.5, 1.5]]
    np.testing.assert_allclose(functional_call(seq, {"0.weight": zeros}, (x,)).numpy(), [[1.0, 2.0]])
    np.testing.assert_allclose(functional_call(seq, {"0.weight": zeros}, (x,), tie_weights=False).numpy(),
                               [[1.5, 1.5]])
    np.testing.assert_allclose(seq(x).numpy(), [[4.5, 0.5]])  # the module itself is untouched
    assert isinstance(seq[0].weight, nn.Parameter) and seq[1].weight is seq[0].weight


def test_grad_and_jvp_with_respect_to_the_weights():
    seq, x = tied_pair(), mg.tensor(X, dtype="float64")
    params = {k: v.detach() for k, v in seq.named_parameters()}
    g = mg.func.grad(lambda p: functional_call(seq, p, (x,)).pow(2).sum())(params)
    # torch: grad(lambda p: functional_call(s, p, (x,)).pow(2).sum())(p)
    np.testing.assert_allclose(g["0.weight"].numpy(), [[58.5, -22.5], [6.5, -2.5]])
    np.testing.assert_allclose(g["0.bias"].numpy(), [9.0, 1.0])
    np.testing.assert_allclose(g["1.bias"].numpy(), [9.0, 1.0])
    w_dot = mg.tensor([[1.0, 2.0], [0.0, 1.0]], dtype="float64")
    out, tangent = mg.func.jvp(lambda w: functional_call(seq, {"0.weight": w}, (x,)),
                               (mg.eye(2, dtype="float64"),), (w_dot,))
    # torch: jvp(lambda w: functional_call(s, {'0.weight': w}, (x,)), (eye,), (W,)) == ([[4.5, .5]], [[1.5, -2.5]])
    np.testing.assert_allclose(out.numpy(), [[4.5, 0.5]])
    np.testing.assert_allclose(tangent.numpy(), [[1.5, -2.5]])


def test_buffers_strictness_hooks_and_restoring_after_an_error():
    bn = nn.BatchNorm1d(2).eval()
    x = mg.tensor([[1.0, 3.0]])
    out = functional_call(bn, {"running_mean": mg.tensor([1.0, 1.0]), "running_var": mg.tensor([4.0, 4.0])}, x)
    np.testing.assert_allclose(out.numpy(), [[0.0, 2.0 / np.sqrt(4 + 1e-5)]], rtol=1e-6)
    assert bn.running_mean.tolist() == [0.0, 0.0]
    lin, seen = nn.Linear(2, 1), []
    lin.register_forward_hook(lambda m, a, o: seen.append(1))  # torch: hooks run under functional_call too
    functional_call(lin, {"weight": mg.ones(1, 2)}, (x,))
    assert seen == [1]
    with pytest.raises(RuntimeError, match="bias"):  # torch: RuntimeError naming the missing key 'bias'
        functional_call(lin, {"weight": mg.ones(1, 2)}, (x,), strict=True)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(lin, ({"weight": mg.ones(1, 2)}, {"weight": mg.ones(1, 2)}), (x,))
    own = lin.weight
    with pytest.raises(ValueError):
        functional_call(lin, {"weight": mg.ones(1, 3)}, (x,))  # a shape the forward cannot use
    assert lin.weight is own
