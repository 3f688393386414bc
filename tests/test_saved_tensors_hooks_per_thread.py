"""``saved_tensors_hooks`` and ``disable_saved_tensors_hooks`` hold for the thread that opens them, as
PyTorch's (its default saved-tensor hooks are thread-local state): another thread's ops are recorded
as if no block were open.  They were process-wide: a worker thread's ops were packed by the main
thread's hooks, and a worker could not open hooks while the main thread had them disabled."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import tape
from minigrad_ckpt.autograd.graph import disable_saved_tensors_hooks, saved_tensors_hooks


def _in_another_thread(fn):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result()


def _square_sum_gradient(dtype=mg.float64):
    x = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    (x * x).sum().backward()
    return x.grad.tolist()


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_another_threads_ops_are_not_packed_by_this_threads_hooks(dtype):
    packed_in = []

    def pack(t):
        packed_in.append(threading.current_thread())
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        assert _in_another_thread(lambda: _square_sum_gradient(dtype)) == [2.0, 4.0, 6.0]
        assert packed_in == []  # torch 2.13: no pack call from the other thread
        assert _square_sum_gradient(dtype) == [2.0, 4.0, 6.0]
    assert packed_in and set(packed_in) == {threading.current_thread()}


def test_each_thread_packs_with_its_own_innermost_hooks():
    barrier = threading.Barrier(2)

    def work(scale):
        def unpack(t):
            return t * scale  # both saved x come back scaled: d(x*x) = 2 scale x

        with saved_tensors_hooks(lambda t: t, unpack):
            barrier.wait()  # both threads' blocks are open now
            x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
            y = (x * x).sum()
            barrier.wait()
        y.backward()
        return x.grad.tolist()

    with ThreadPoolExecutor(2) as pool:
        two, three = pool.map(work, [2.0, 3.0])
    assert two == [4.0, 8.0] and three == [6.0, 12.0]
    assert tape.saved_hooks == ()


def test_hooks_disabled_in_one_thread_may_be_opened_in_another():
    def opens():
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            return _square_sum_gradient()

    with disable_saved_tensors_hooks("not here"):
        assert _in_another_thread(opens) == [2.0, 4.0, 6.0]  # torch 2.13 lets the other thread in
        with pytest.raises(RuntimeError, match="not here"):
            opens()
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        def disables():
            with disable_saved_tensors_hooks("nope"):
                return "disabled"
        assert _in_another_thread(disables) == "disabled"  # no hooks open in that thread
        with pytest.raises(RuntimeError, match="nope"):
            disables()


def test_hooks_closed_out_of_order_across_threads_leave_each_threads_own():
    main_opened, worker_closed = threading.Event(), threading.Event()
    seen = []

    def worker():
        with saved_tensors_hooks(lambda t: ("worker", t), lambda p: p[1]):
            main_opened.wait()
        worker_closed.set()  # the worker's block closes while the main thread's is still open

    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(worker)
        with saved_tensors_hooks(lambda t: seen.append("main") or t, lambda t: t):
            main_opened.set()
            worker_closed.wait()
            x = mg.tensor([1.0, 2.0], requires_grad=True)
            (x * x).sum().backward()
        done.result()
    assert seen == ["main", "main"] and np.array_equal(x.grad.numpy(), [2.0, 4.0])
    assert tape.saved_hooks == ()
