"""SGD updates a large CPU parameter a chunk at a time (``Tensor._sub_scaled_``): the same bits as
``p - lr * g`` in one expression, the same version stamp, refusals and fallbacks as ``p.sub_``."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager
from minigrad_ckpt.tensor import _SCRATCH_SIZE
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

LARGE = 2 * _SCRATCH_SIZE + 12_345  # several chunks and a ragged last one


def _reference_sgd(p, grads, lr, momentum, nesterov, weight_decay):
    """PyTorch's SGD rule in NumPy, one expression per step."""
    buf = None
    for g in grads:
        g = g + weight_decay * p if weight_decay else g
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("momentum, nesterov, weight_decay", [(0, False, 0), (0.9, False, 0), (0.9, True, 1e-3)])
@pytest.mark.parametrize("size", [LARGE, 1000])
def test_sgd_steps_are_the_one_expression_bit_for_bit(dtype, momentum, nesterov, weight_decay, size):
    rng = np.random.default_rng(size)
    start = rng.standard_normal(size).astype(dtype)
    grads = [rng.standard_normal(size).astype(dtype) for _ in range(3)]
    p = mg.nn.Parameter(mg.tensor(start.copy()))
    opt = mg.optim.SGD([p], lr=0.013, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay)
    for g in grads:
        p.grad = mg.tensor(g)
        opt.step()
    np.testing.assert_array_equal(p.numpy(), _reference_sgd(start, grads, 0.013, momentum, nesterov, weight_decay))


@pytest.mark.parametrize("size", [LARGE, 1000])  # chunked, and the small parameter's direct write
def test_a_chunked_step_stamps_the_parameter_like_any_in_place_write(size):
    """A value saved before the step is stale after it: backward refuses, as after ``p.sub_``."""
    p = mg.nn.Parameter(mg.ones(size))
    y = (p * p).sum()
    p.grad = mg.ones(size)
    mg.optim.SGD([p], lr=0.1).step()
    np.testing.assert_array_equal(p.numpy(), np.full(size, 0.9, dtype=np.float32))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


@pytest.mark.parametrize("layout", ["transposed", "strict"])
def test_what_cannot_be_chunked_takes_the_plain_write(layout):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((400, 300)).astype("float32")
    g = rng.standard_normal((400, 300)).astype("float32")
    if layout == "transposed":  # a parameter whose memory is not row-major
        p = mg.nn.Parameter(mg.tensor(np.asfortranarray(w)))
        expected = w - np.float32(0.05) * g
    else:
        p = mg.nn.Parameter(mg.tensor(w, device="strict-f32"))
        expected = w - np.float32(0.05) * g
    p.grad = mg.tensor(g, device=p.device)
    mg.optim.SGD([p], lr=0.05).step()
    np.testing.assert_array_equal(p.detach().cpu().numpy(), expected)


@pytest.mark.parametrize("width", [300, 20])  # a 90,000-element weight: chunked; 400: written directly
def test_a_chunked_step_after_an_async_snapshot_leaves_the_snapshot_of_the_call(tmp_path, width):
    """The copy-on-write guard of an asynchronous snapshot sees the chunked write, as any write:
    the writer thread is held busy, the step writes, the snapshot still has the values before it."""
    mg.manual_seed(0)
    model = mg.nn.Linear(width, width)
    opt = mg.optim.SGD(model.parameters(), lr=0.5)
    ex = mg.Executor(model, opt)
    before = model.weight.numpy().copy()
    for p in model.parameters():
        p.grad = mg.ones_like(p)
    manager = SnapshotManager(tmp_path / "async")
    gate = threading.Event()
    manager._writer.submit(lambda: gate.wait(60), -1)
    handle = manager.save_snapshot(ex, blocking=False)
    try:
        opt.step()
    finally:
        gate.set()
    saved = Snapshot.load(handle.result()).tensors
    weight = next(v for k, v in saved.items() if k.endswith("weight"))
    np.testing.assert_array_equal(weight, before)
    np.testing.assert_array_equal(model.weight.numpy(), before - np.float32(0.5))
    manager.wait()


def test_threads_update_through_scratch_arrays_of_their_own():
    """Two threads stepping optimizers at once (NumPy lets go of the GIL inside each chunk's product)
    must not share a scratch array: each thread has its own, and both results are exact."""
    from minigrad_ckpt.tensor import _scratch

    mine = _scratch(np.dtype(np.float32))
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(_scratch(np.dtype(np.float32))))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and _scratch(np.dtype(np.float32)) is mine

    rng = np.random.default_rng(5)
    starts = [rng.standard_normal(LARGE).astype("float32") for _ in range(2)]
    grads = [rng.standard_normal(LARGE).astype("float32") for _ in range(2)]
    params = [mg.nn.Parameter(mg.tensor(s.copy())) for s in starts]

    def train(k):
        opt = mg.optim.SGD([params[k]], lr=0.01)
        for _ in range(20):
            params[k].grad = mg.tensor(grads[k])
            opt.step()

    threads = [threading.Thread(target=train, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(2):
        expected = starts[k]
        for _ in range(20):
            expected = expected - np.float32(0.01) * grads[k]
        np.testing.assert_array_equal(params[k].numpy(), expected)
