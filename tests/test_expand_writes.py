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
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

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


# -- a real broadcast is a writable view too: a write that repeats nothing goes through --------------
# (NumPy's broadcast_to is read-only, so every write into a part of an expand, or a fill of it all, was
# NumPy's "ValueError: assignment destination is read-only"; PyTorch writes them into the base.)

PART_WRITES = [("v[:, 0] = 1.0", [1.0, 1.0, 1.0]), ("v[:, 0] = mg.tensor([1.0, 2.0, 3.0], dtype=v.dtype, "
               "device=v.device)", [1.0, 2.0, 3.0]), ("v[1, 2] = 5.0", [0.0, 5.0, 0.0]),
               ("v[:, 0].add_(1)", [1.0, 1.0, 1.0]), ("v[:, 3] += 2", [2.0, 2.0, 2.0]),
               ("v[:, :1].copy_(mg.ones(3, 1, dtype=v.dtype))", [1.0, 1.0, 1.0]),
               ("v[:, 0].relu_().add_(4)", [4.0, 4.0, 4.0]), ("v.fill_(2.0)", [2.0, 2.0, 2.0]),
               ("v.zero_()[:, 1].fill_(3.0)", [3.0, 3.0, 3.0]), ("v[[0, 2]] = 6.0", [6.0, 0.0, 6.0])]


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("statement, expected", PART_WRITES)
@pytest.mark.parametrize("spread", ["x.expand(3, 4)", "mg.broadcast_to(x, (3, 4))"])
def test_a_write_into_a_broadcast_that_repeats_nothing_reaches_the_base(device, dtype, statement, expected, spread):
    x = mg.zeros(3, 1, dtype=dtype, device=device)
    v = eval(spread, {"x": x, "mg": mg})
    exec(statement, {"mg": mg}, {"v": v})
    np.testing.assert_array_equal(x.cpu().numpy()[:, 0], expected)
    assert x.dtype == dtype


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("statement", ["v[0] = 1.0", "v[...] = 1.0", "v[1, :] = mg.ones(4)", "v[:] = 2.0"])
def test_a_basic_index_write_that_repeats_an_element_is_pytorchs_runtime_error(device, dtype, statement):
    x = mg.zeros(3, 1, dtype=dtype, device=device)
    v = x.expand(3, 4)
    with pytest.raises(RuntimeError, match="single memory location"):
        exec(statement, {"mg": mg}, {"v": v})
    np.testing.assert_array_equal(x.cpu().numpy(), np.zeros((3, 1)))


def _writes_through_columns(b):
    c = b * 1
    x = c.expand(3, 4)
    x[:, 1].mul_(b[:, 0])
    x[:, 2] = b[:, 0] * 3
    return c


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_recorded_writes_into_columns_of_a_broadcast_have_pytorchs_gradients(device, dtype):
    b = mg.tensor([[1.0], [2.0], [3.0]], dtype=dtype, device=device, requires_grad=True)
    w = mg.arange(12, dtype=dtype, device=device).reshape(3, 4)
    y = (_writes_through_columns(b).expand(3, 4) * w).sum()
    y.backward()
    assert y.item() == 492.0  # torch 2.13
    np.testing.assert_allclose(b.grad.cpu().numpy(), [[18.0], [66.0], [114.0]])


def test_recorded_writes_into_columns_of_a_broadcast_inside_checkpoint():
    b = mg.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    w = mg.arange(12.0).reshape(3, 4)
    y = mg.checkpoint.checkpoint(lambda b: (_writes_through_columns(b).expand(3, 4) * w).sum(), b)
    y.backward()
    assert y.item() == 492.0  # torch 2.13
    np.testing.assert_array_equal(b.grad.numpy(), [[18.0], [66.0], [114.0]])


def test_a_value_written_over_a_whole_broadcast_replaces_its_gradient():
    b = mg.zeros(3, 1, requires_grad=True)
    v = mg.ones(3, requires_grad=True)
    x = (b * 1).expand(3, 4)
    x[:, 0] = v * 2  # every element of b * 1 is written: b's gradient is 0
    (x * mg.arange(4.0)).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [[0.0], [0.0], [0.0]])  # torch 2.13
    np.testing.assert_array_equal(v.grad.numpy(), [12.0, 12.0, 12.0])


def test_forward_mode_follows_writes_into_columns_of_a_broadcast():
    b = mg.tensor([[1.0], [2.0], [3.0]], dtype=mg.float64)
    t = mg.tensor([[1.0], [0.5], [2.0]], dtype=mg.float64)
    out, tangent = mg.func.jvp(_writes_through_columns, (b,), (t,))
    np.testing.assert_array_equal(out.numpy(), [[3.0], [6.0], [9.0]])  # torch 2.13
    np.testing.assert_array_equal(tangent.numpy(), [[3.0], [1.5], [6.0]])
