"""``t.data`` shares ``t``'s memory, as PyTorch's: a later recorded in-place write into ``t``
(``t`` requires grad, or the value written does) is seen through the alias.  It was not: the
write gave ``t`` a new array (nothing in the version box told it the memory was lent), and the
alias kept the old values silently.  Expected values are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)

WRITES = [
    ("b.mul_(2)", lambda a: a * 2),
    ("b.add_(1)", lambda a: a + 1),
    ("b += 1", lambda a: a + 1),
    ("b.exp_()", np.exp),
    ("b.clamp_(max=4.0)", lambda a: np.minimum(a, 4.0)),
    ("b.zero_()", np.zeros_like),
    ("b.masked_fill_(b > 3, 0.0)", lambda a: np.where(a > 3, 0.0, a)),
]


@pytest.mark.parametrize("statement, expected", WRITES)
@pytest.mark.parametrize("alias", ["b.data", "b.data[1:]", "b.data.t()"])
@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict-f32", "float32")])
def test_a_recorded_write_is_seen_through_data(statement, expected, alias, device, dtype):
    w = mg.arange(12.0, dtype=dtype, device=device).reshape(3, 4).requires_grad_()
    b = w * 1
    v = eval(alias, {"b": b})
    exec(statement, {}, {"b": b})
    want = expected(np.arange(12.0).reshape(3, 4))
    np.testing.assert_allclose(b.detach().cpu().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(v.cpu().numpy(), eval(alias, {"b": mg.tensor(want)}).numpy(), rtol=1e-6)
    assert not v.requires_grad


def test_a_write_of_a_value_that_requires_grad_is_seen_through_data():
    x = mg.zeros(3, dtype="float64")
    d = x.data
    w = mg.tensor(2.0, dtype="float64", requires_grad=True)
    x[1] = w * 3
    np.testing.assert_array_equal(d.numpy(), [0.0, 6.0, 0.0])
    x.sum().backward()
    assert w.grad.item() == 3.0


def test_gradients_through_the_written_tensor_are_unchanged():
    w = mg.arange(4.0, dtype="float64", requires_grad=True)
    b = w * 1
    _ = b.data
    b.mul_(mg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64"))
    (b * b).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), 2 * np.arange(4.0) * np.array([1.0, 4.0, 9.0, 16.0]))


def test_a_saved_value_overwritten_after_data_was_taken_is_refused():
    """torch: 'one of the variables needed for gradient computation has been modified by an
    inplace operation' (the write changed the memory the product saved)."""
    w = mg.arange(4.0, dtype="float64", requires_grad=True)
    b = w * 1
    y = (b * b).sum()
    _ = b.data
    b.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_deleting_data_is_refused_as_pytorch_refuses_it():
    # torch 2.13: a RuntimeError with these words (an AttributeError here before: a property without a deleter)
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Deleting tensor data is not allowed. Delete tensor instead!$"):
        del t.data
    assert t.tolist() == [1.0, 2.0]
