"""Writes into ``expand``'s result, as PyTorch's (torch 2.13):

- an ``expand`` that repeats nothing (``x.expand(1, n)``, ``x.expand(-1)``, ``x.expand_as(x)``)
  is a plain view: an in-place write into it reaches ``x``, with gradients.  It was NumPy's
  read-only broadcast, so every write raised ``ValueError: output array is read-only``;
- a write whose result differs element by element (``add_``, ``mul_``, ``+=``, ``copy_``,
  ``exp_``) into a real broadcast is PyTorch's RuntimeError ("unsupported operation: more than
  one element of the written-to tensor refers to a single memory location"), not NumPy's
  ValueError.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg

NO_REPEAT = ["x.expand(1, 3)", "x.expand(-1)", "x.expand(3)", "x.expand_as(x)", "x.expand(1, 1, -1)"]
WRITES = [("v.add_(1)", [1.0, 1.0, 1.0]), ("v.fill_(2.0)", [2.0, 2.0, 2.0]),
          ("v.copy_(mg.ones(v.shape))", [1.0, 1.0, 1.0]), ("v.exp_()", [1.0, 1.0, 1.0]),
          ("v += 4", [4.0, 4.0, 4.0]), ("v[..., 1] = 5.0", [0.0, 5.0, 0.0])]


@pytest.mark.parametrize("expand", NO_REPEAT)
@pytest.mark.parametrize("statement, expected", WRITES)
def test_an_expand_that_repeats_nothing_is_a_writable_view(expand, statement, expected):
    x = mg.zeros(3)
    v = eval(expand, {"x": x})
    exec(statement, {"mg": mg}, {"v": v})
    np.testing.assert_array_equal(x.numpy(), expected)


def test_a_recorded_write_through_it_reaches_the_base_with_gradients():
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = w * 1
    y.expand(1, 3).mul_(mg.tensor([[2.0, 3.0, 4.0]]))
    np.testing.assert_array_equal(y.detach().numpy(), [2.0, 6.0, 12.0])
    (y * y).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [8.0, 36.0, 96.0])  # torch 2.13


@pytest.mark.parametrize("expand", ["x.expand(2, 3)", "x[None].expand(2, 3)", "x.expand(2, 3).t()"])
@pytest.mark.parametrize("statement", ["v.add_(1)", "v.mul_(2)", "v += 1", "v.copy_(mg.ones(v.shape))",
                                       "v.exp_()", "v.clamp_(max=0.5)"])
def test_an_elementwise_write_into_a_real_broadcast_is_pytorchs_runtime_error(expand, statement):
    x = mg.zeros(3)
    v = eval(expand, {"x": x})
    with pytest.raises(RuntimeError, match="single memory location"):
        exec(statement, {"mg": mg}, {"v": v})
    np.testing.assert_array_equal(x.numpy(), [0.0, 0.0, 0.0])


def test_expand_still_broadcasts_and_stays_read_only_where_it_repeats():
    x = mg.tensor([[1.0], [2.0]])
    e = x.expand(2, 3)
    assert e.shape == (2, 3) and e.stride() == (1, 0)
    assert x.expand_as(mg.zeros(2, 3)).shape == (2, 3)
