"""Backward passes in several threads through one leaf (a shared parameter) accumulate every gradient
into its ``.grad``, as PyTorch's ``AccumulateGrad`` does under a mutex per leaf.  The sums raced: NumPy
lets go of the GIL inside a large ``+=``, so two threads adding into one ``.grad`` lost updates (4 threads
x 20 passes of 10^6 elements: 120 to 160 where every element is 160), and two first gradients could
both find ``.grad`` empty, one replacing the other."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.fixture
def switch_often():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns between few bytecodes: the interleavings show
    yield
    sys.setswitchinterval(before)


def _passes_together(threads, passes, step):
    barrier = threading.Barrier(threads)

    def work(_):
        for _ in range(passes):
            barrier.wait()  # every thread's pass starts (and so accumulates) at once
            step()

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(threads)))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_every_threads_gradient_reaches_a_shared_leaf(switch_often, dtype):
    for _ in range(3):  # (before: lost updates in nearly every round)
        w = mg.zeros(1_000_000, dtype=dtype, requires_grad=True)
        _passes_together(4, 10, lambda w=w: w.sum().backward())
        assert np.array_equal(w.grad.numpy(), np.full(1_000_000, 4 * 10, dtype=w.grad.numpy().dtype))


def test_first_gradients_of_a_shared_leaf_from_two_threads_both_count(switch_often):
    for _ in range(20):
        w = mg.zeros(50_000, requires_grad=True)
        _passes_together(2, 1, lambda w=w: (w * 3.0).sum().backward())
        assert np.array_equal(w.grad.numpy(), np.full(50_000, 6.0, dtype=np.float32))


def test_double_backward_into_a_shared_leaf_from_threads(switch_often):
    w = mg.full((1000,), 2.0, dtype=mg.float64, requires_grad=True)

    def step():
        g, = mg.autograd.grad((w ** 3).sum(), w, create_graph=True)  # 3 w^2
        g.sum().backward()  # 6 w = 12 per pass

    _passes_together(3, 5, step)
    assert np.array_equal(w.grad.numpy(), np.full(1000, 12.0 * 3 * 5))
