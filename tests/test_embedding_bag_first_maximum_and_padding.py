"""``embedding_bag``: ``mode="max"`` sends a bag's gradient to its first maximum, as PyTorch's
``max_indices`` do (and as the max pools here), and the rows of ``padding_idx`` are left out of
their bag rather than scaled by 0.

Before: ``max`` was NumPy's, whose ties share the gradient -- a bag of two rows equal in a column
gave each half; and a padding row holding inf made its bag NaN in ``sum`` and ``mean``
(``0 * inf``) where PyTorch leaves it out.  Found by comparing ``F.embedding_bag`` with PyTorch's
on random bags, with ties and non-finite rows, while translating PyTorch's test_embedding.py."""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

TABLE = [[1.0, 5.0], [1.0, 2.0], [3.0, 5.0]]


# torch 2.13's gradients (generated offline) for the sum of the bags
@pytest.mark.parametrize("ids, offsets, grad", [
    ([0, 1, 2, 0], [0, 2], [[1, 1], [0, 0], [1, 1]]),
    ([0, 1], [0], [[1, 1], [0, 0], [0, 0]]),
    ([1, 0], [0], [[0, 1], [1, 0], [0, 0]]),
    ([0, 2, 1], [0], [[0, 1], [0, 0], [1, 0]]),
    ([2, 2], [0], [[0, 0], [0, 0], [1, 1]]),
])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_max_bag_gradient_goes_to_the_first_maximum(ids, offsets, grad, dtype):
    w = mg.tensor(TABLE, dtype=dtype, requires_grad=True)
    out = F.embedding_bag(mg.tensor(ids), w, mg.tensor(offsets), mode="max")
    assert out.dtype == dtype
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), grad)


def test_max_bag_module_and_2d_input_agree():
    bag = mg.nn.EmbeddingBag.from_pretrained(mg.tensor(TABLE), mode="max", freeze=False)
    bag(mg.tensor([[0, 1], [2, 0]])).sum().backward()
    np.testing.assert_array_equal(bag.weight.grad.numpy(), [[1, 1], [0, 0], [1, 1]])


def test_max_bag_first_maximum_under_transforms_and_checkpoint():
    ids, offsets = mg.tensor([0, 1, 2, 0]), mg.tensor([0, 2])
    bags = lambda w: F.embedding_bag(ids, w, offsets, mode="max")  # noqa: E731
    w = mg.tensor(TABLE)
    expected = [[1, 1], [0, 0], [1, 1]]
    np.testing.assert_array_equal(mg.func.grad(lambda w: bags(w).sum())(w).numpy(), expected)
    _, tangent = mg.func.jvp(bags, (w,), (mg.ones_like(w),))
    np.testing.assert_array_equal(tangent.numpy(), np.ones((2, 2)))
    wr = w.clone().requires_grad_()
    mg.checkpoint.checkpoint(bags, wr, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(wr.grad.numpy(), expected)
    np.testing.assert_array_equal(mg.func.vmap(bags)(mg.stack([w, -w])).numpy(),
                                  [[[1, 5], [3, 5]], [[-1, -2], [-1, -5]]])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_a_non_finite_padding_row_is_left_out_of_its_bag(mode, bad):
    w = mg.tensor([[bad, 1.0], [2.0, 3.0]], requires_grad=True)
    out = F.embedding_bag(mg.tensor([0, 1, 0]), w, mg.tensor([0]), mode=mode, padding_idx=0)
    np.testing.assert_array_equal(out.detach().numpy(), [[2.0, 3.0]])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 0], [1, 1]])
    two_d = F.embedding_bag(mg.tensor([[0, 1], [1, 0]]), w, mode=mode, padding_idx=0)
    np.testing.assert_array_equal(two_d.detach().numpy(), [[2.0, 3.0], [2.0, 3.0]])


def test_a_non_finite_padding_row_with_per_sample_weights():
    w = mg.tensor([[math.inf, 1.0], [2.0, 3.0]])
    psw = mg.tensor([0.5, 2.0, 3.0], requires_grad=True)
    out = F.embedding_bag(mg.tensor([1, 0, 1]), w, mg.tensor([0]), mode="sum", per_sample_weights=psw, padding_idx=0)
    np.testing.assert_array_equal(out.detach().numpy(), [[7.0, 10.5]])
    out.sum().backward()
    np.testing.assert_array_equal(psw.grad.numpy(), [5.0, 0.0, 5.0])


def test_on_the_strict_device():
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    w = mg.tensor(TABLE, device="strict", requires_grad=True)
    F.embedding_bag(mg.tensor([0, 1, 2, 0], device="strict"), w, mg.tensor([0, 2], device="strict"),
                    mode="max").sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[1, 1], [0, 0], [1, 1]])
    pad = mg.tensor([[math.inf, 1.0], [2.0, 3.0]], device="strict")
    out = F.embedding_bag(mg.tensor([0, 1], device="strict"), pad, mg.tensor([0], device="strict"), mode="mean",
                          padding_idx=0)
    np.testing.assert_array_equal(out.numpy(), [[2.0, 3.0]])
