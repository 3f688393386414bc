"""Margin and hinge losses against PyTorch 2.13 where they are easy to get wrong: at the hinge
itself (``z == 0``), where PyTorch's ``clamp_min`` passes the gradient on (relu's would be 0,
maximum's 1/2), and with targets listed twice.

The expected numbers are torch 2.13's (CPU), made with the torch expression quoted beside each
case, inputs as written, in the test's dtype; ``torch.ones``/``-torch.ones`` targets as named.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

DTYPES = ["float32", "float64"]


def loss_and_grads(fn, dtype, *inputs):
    xs = [mg.tensor(np.array(x, dtype=dtype), requires_grad=True) for x in inputs]
    loss = fn(*xs)
    loss.backward()
    assert loss.dtype == np.dtype(dtype)
    return loss.item(), [x.grad.numpy() for x in xs]


def check(got, want, dtype):
    tol = dict(rtol=2e-7, atol=1e-7) if dtype == "float32" else dict(rtol=1e-14, atol=1e-16)
    (loss, grads), (want_loss, want_grads) = got, want
    np.testing.assert_allclose(loss, want_loss, **tol)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g, w, **tol)


def ones(dtype, sign=1.0):
    return mg.tensor(np.full(2, sign, dtype))


# name: (the call, the inputs, torch's (loss, grads) for float32 and float64 where they differ)
HINGE_CASES = {
    # F.margin_ranking_loss(a, b, torch.ones(2)), a = b = [0, 0]: at the hinge
    "margin_ranking": (lambda d: lambda a, b: F.margin_ranking_loss(a, b, ones(d)),
                       ([0.0, 0.0], [0.0, 0.0]), (0.0, [[-0.5, -0.5], [0.5, 0.5]])),
    # F.margin_ranking_loss(a, b, -torch.ones(2), margin=0.5): one pair at the hinge, one above
    "margin_ranking_target_-1": (lambda d: lambda a, b: F.margin_ranking_loss(a, b, ones(d, -1.0), margin=0.5),
                                 ([0.5, 1.5], [0.0, 1.0]), (1.0, [[0.5, 0.5], [-0.5, -0.5]])),
    # F.hinge_embedding_loss(x, torch.tensor([-1., -1., 1.]), margin=0.5): x == margin with y = -1
    "hinge_embedding": (lambda d: lambda x: F.hinge_embedding_loss(x, mg.tensor(np.array([-1, -1, 1], d)), margin=0.5),
                        ([0.5, 0.25, 0.5],), (0.25, [[-1 / 3, -1 / 3, 1 / 3]])),
    # F.triplet_margin_loss(a, p, n, margin=1.0, eps=0.0): d(a, p) = 5, d(a, n) = 6, a tie
    "triplet": (lambda d: lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=1.0, eps=0.0),
                ([[0.0, 0.0]], [[3.0, 4.0]], [[0.0, 6.0]]),
                (0.0, [[[-0.6, 0.2]], [[0.6, 0.8]], [[0.0, -1.0]]])),
    # F.triplet_margin_with_distance_loss(a, p, n, margin=1.0,
    #     distance_function=lambda u, v: (u - v).abs().sum(-1)): 7 + 1 - 8, a tie
    "triplet_with_distance": (lambda d: lambda a, p, n: F.triplet_margin_with_distance_loss(
                                  a, p, n, margin=1.0, distance_function=lambda u, v: mg.abs(u - v).sum(-1)),
                              ([[0.0, 0.0]], [[3.0, 4.0]], [[0.0, 8.0]]),
                              (0.0, [[[-1.0, 0.0]], [[1.0, 1.0]], [[0.0, -1.0]]])),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(HINGE_CASES))
def test_a_hinge_loss_at_its_margin_passes_the_gradient_as_torch(name, dtype):
    make, inputs, want = HINGE_CASES[name]
    check(loss_and_grads(make(dtype), dtype, *inputs), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_triplet_loss_adds_the_margin_first_as_torch(dtype):
    """``margin + d(a, p) - d(a, n)`` in PyTorch's order: 0.1 + 0.2 - 0.3 is 2**-54 in float64
    (0.2 - 0.3 + 0.1 would round below 0). torch: ``F.triplet_margin_loss([[0.]], [[0.2]], [[0.3]],
    margin=0.1, eps=0.0, reduction="sum")``."""
    want_loss = 0.0 if dtype == "float32" else 5.551115123125783e-17
    got = loss_and_grads(lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.1, eps=0.0, reduction="sum"),
                         dtype, [[0.0]], [[0.2]], [[0.3]])
    check(got, (want_loss, [[[0.0]], [[1.0]], [[-1.0]]]), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cosine_embedding_loss_at_the_margin_passes_the_whole_gradient_as_torch(dtype):
    """torch: ``F.cosine_embedding_loss(u, v, torch.tensor([-1., -1.]), margin=0.0)``; the first
    pair is orthogonal (cos == margin): PyTorch's ``clamp_min`` gradient 1 (maximum's was 1/2)."""
    grads = {
        "float32": [[[0.0, 0.5], [-0.03162276744842529, 0.06324555724859238]],
                    [[0.5, 0.0], [0.07905694842338562, -0.07905693352222443]]],
        "float64": [[[0.0, 0.49999999999949996], [-0.03162277660163476, 0.06324555320336443]],
                    [[0.49999999999949996, 0.0], [0.07905694150430043, -0.0790569415040632]]],
    }[dtype]
    loss = {"float32": 0.47434163093566895, "float64": 0.47434164902509085}[dtype]
    got = loss_and_grads(lambda u, v: F.cosine_embedding_loss(u, v, mg.tensor([-1.0, -1.0]), margin=0.0),
                         dtype, [[1.0, 0.0], [2.0, 1.0]], [[0.0, 1.0], [1.0, 1.0]])
    check(got, (loss, grads), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_margin_losses_keep_a_zero_gradient_at_the_hinge_as_torch(dtype):
    """PyTorch's kernels for these two test ``z > 0``: the class at the hinge gets 0.
    torch: ``F.multi_margin_loss(x, torch.tensor([0]))`` and
    ``F.multilabel_margin_loss(x, torch.tensor([[0, -1, 0]]))``, x = [[1., 0., 0.5]]."""
    want = (1 / 6, [[[-1 / 3, 0.0, 1 / 3]]])
    for p in (1, 2):
        want_p = want if p == 1 else (1 / 12, want[1])
        check(loss_and_grads(lambda x, p=p: F.multi_margin_loss(x, mg.tensor([0]), p=p), dtype, [[1.0, 0.0, 0.5]]),
              want_p, dtype)
    check(loss_and_grads(lambda x: F.multilabel_margin_loss(x, mg.tensor([[0, -1, 0]])), dtype, [[1.0, 0.0, 0.5]]),
          want, dtype)


@pytest.mark.parametrize("name", ["margin_ranking", "hinge_embedding", "triplet"])
def test_the_hinge_gradient_at_the_margin_in_forward_mode_and_as_a_transform(name):
    """mg.func.grad and jvp see the same derivative at the hinge as backward."""
    make, inputs, (_, want_grads) = HINGE_CASES[name]
    fn = make("float64")
    args = tuple(mg.tensor(np.array(x, dtype="float64")) for x in inputs)
    np.testing.assert_allclose(mg.func.grad(fn)(*args).numpy(), want_grads[0], atol=1e-15)
    direction = mg.ones_like(args[0])
    _, tangent = mg.func.jvp(lambda a: fn(a, *args[1:]), (args[0],), (direction,))
    np.testing.assert_allclose(tangent.item(), np.sum(want_grads[0]), atol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
def test_multilabel_margin_loss_counts_a_repeated_target_each_time_as_torch(dtype):
    """torch: ``F.multilabel_margin_loss(x, y, reduction="none")`` and its gradient of the sum,
    x = [[0.1, 0.2, 0.4, 0.8], [0.3, -0.5, 0.9, 0.0]], y = [[2, 2, -1, 0], [3, 1, 3, -1]]
    (the 0 after the -1 is not a target)."""
    want = {"float32": [1.4500000476837158, 2.6500000953674316],
            "float64": [1.4499999999999997, 2.6500000000000004]}[dtype]
    x = mg.tensor(np.array([[0.1, 0.2, 0.4, 0.8], [0.3, -0.5, 0.9, 0.0]], dtype), requires_grad=True)
    y = mg.tensor([[2, 2, -1, 0], [3, 1, 3, -1]])
    loss = F.multilabel_margin_loss(x, y, reduction="none")
    check((loss.numpy(), []), (want, []), dtype)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, 0.5, -1.5, 0.5], [0.75, -0.5, 0.75, -1.0]], rtol=1e-6)
    one = F.multilabel_margin_loss(mg.tensor(np.array([0.1, 0.2, 0.4, 0.8], dtype)), mg.tensor([2, 2, -1, 0]))
    check((one.item(), []), (want[0], []), dtype)  # torch: 1.45 for the unbatched row too
