"""The generator's bits, made a block at a time on the CPU and in one piece elsewhere.

Every random draw is SplitMix64's output function of ``index * GOLDEN + mix(key)``;
the CPU mixes 2**15 values at a time (cache-sized passes) and dropout's mask is
compared block by block, so no uint64 array of the mask's full size is made.
The bits must not depend on any of that: they are checked here against the
formula in Python integers, across block boundaries, against the strict device
(which mixes everything in one piece), through dropout's forward, backward and
checkpoint replay, and for the memory the mask takes to make.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import random as R
from minigrad_ckpt.backend import get_device
from minigrad_ckpt.nn import functional as F

_M = (1 << 64) - 1
BLOCK = R._BLOCK
SIZES = [0, 1, 100, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 7]
KEYS = [0, 1, 12345, _M, (1 << 70) + 3]


def splitmix(key: int, i: int) -> int:
    """The value of index ``i`` of ``key``'s stream, in Python integers."""
    z = (i * 0x9E3779B97F4A7C15 + R._mix64(key)) & _M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M
    return z ^ (z >> 31)


def traced_peak(fn):
    """``fn()`` and the most memory it held at once beyond what was held before (tracemalloc;
    started and stopped here unless the caller's run already traces)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        out = fn()
        return out, tracemalloc.get_traced_memory()[1] - before
    finally:
        if started:
            tracemalloc.stop()


def _indices(n: int) -> list[int]:
    around = {0, 1, n - 1, n // 2}
    for b in range(BLOCK, n, BLOCK):
        around |= {b - 1, b, b + 1}
    return sorted(i for i in around if 0 <= i < n)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("n", SIZES)
def test_uniform_bits_are_splitmix64_of_each_index_across_block_boundaries(key, n):
    cpu = get_device("cpu").xp
    bits = cpu.uniform_bits(key, n)
    assert bits.dtype == np.uint64 and bits.shape == (n,)
    for i in _indices(n):
        assert int(bits[i]) == splitmix(key, i), (key, n, i)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("n", SIZES)
def test_the_cpus_blocks_give_the_bits_and_masks_one_piece_gives_on_another_device(device, n):
    cpu, other = get_device("cpu").xp, get_device(device).xp
    for key in KEYS[:3]:
        assert np.array_equal(cpu.uniform_bits(key, n), other.to_host(other.uniform_bits(key, n)))
        for p in (0.0, 1e-9, 0.25, 0.5, 1.0 - 1e-9, 1.0):
            mask = R.bernoulli_keep(cpu, key, (n,), p)
            assert mask.dtype == bool
            assert np.array_equal(mask, other.to_host(R.bernoulli_keep(other, key, (n,), p)))
            threshold = min(int(p * 2.0**64), _M)
            assert np.array_equal(mask, cpu.uniform_bits(key, n) >= np.uint64(threshold))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("n", SIZES)
def test_uniform_and_normal_numbers_in_blocks_are_one_pieces_numbers(device, n):
    """``rand``/``randn``'s numbers: made block by block on the CPU, in one piece on the strict
    devices (NumPy's math behind a wall), the same values -- float16, float32 and float64."""
    cpu, other = get_device("cpu").xp, get_device(device).xp
    dtypes = ["float16", "float32"] + (["float64"] if device == "strict" else [])
    for dtype in dtypes:
        for draw in (R.uniform, R.normal):
            here = draw(cpu, 42, (n,), dtype)
            there = other.to_host(draw(other, 42, (n,), dtype))
            assert here.dtype == there.dtype == np.dtype(dtype)
            assert np.array_equal(here, there), (draw.__name__, dtype)
    # value i of randn is Box-Muller of the bits of indices i and n + i
    if n:
        bits = cpu.uniform_bits(42, 2 * n)
        i = n - 1
        u1 = ((float(bits[i] >> np.uint64(11)) + 0.5) * 2.0**-53)
        u2 = float(bits[n + i] >> np.uint64(11)) * 2.0**-53
        want = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * 3.141592653589793 * u2)
        assert np.isclose(R.normal(cpu, 42, (n,), "float64")[i], want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("draw, dtype, bound", [(R.uniform, "float32", 1.0), (R.normal, "float32", 1.0),
                                                (R.uniform, "float64", 1.0), (R.normal, "float64", 1.0)])
def test_drawing_numbers_takes_about_the_results_bytes(draw, dtype, bound):
    cpu = get_device("cpu").xp
    n = 1 << 20
    draw(cpu, 8, (n,), dtype)
    out, peak = traced_peak(lambda: draw(cpu, 8, (n,), dtype))
    assert peak <= bound * out.nbytes + 12 * BLOCK * 8, (peak, out.nbytes)  # a few blocks' temporaries


@pytest.mark.parametrize("shape", [(), (0, 5), (3, 1), (64, 64, 12, 12), (2, BLOCK + 3)])
def test_a_mask_keeps_its_shape_and_its_rate(shape):
    cpu = get_device("cpu").xp
    mask = R.bernoulli_keep(cpu, 99, shape, 0.25)
    assert mask.shape == shape and mask.dtype == bool
    if mask.size > 10_000:
        assert abs(mask.mean() - 0.75) < 0.01


def test_making_a_mask_takes_its_own_bytes_and_a_few_blocks_not_eight_bytes_a_value():
    cpu = get_device("cpu").xp
    n = 1 << 21
    R.bernoulli_keep(cpu, 5, (n,), 0.5)  # warm: nothing first-time is counted
    mask, peak = traced_peak(lambda: R.bernoulli_keep(cpu, 5, (n,), 0.5))
    assert mask.nbytes == n
    assert peak <= n + 6 * BLOCK * 8, peak  # the mask, the steps, a block and its shift's temporary


def test_one_piece_adds_its_offset_in_place():
    """Where the bits are made in one piece (a GPU; the strict device here), the values and one
    shift's temporary are all that is held: 16 bytes a value, as before the blocks."""
    strict = get_device("strict").xp
    n = 1 << 20
    strict.uniform_bits(1, n)
    _, peak = traced_peak(lambda: strict.uniform_bits(1, n))
    assert peak <= 2 * 8 * n + (1 << 16), peak


@pytest.mark.parametrize("key", [np.uint64(5), np.int64(7), np.uint64(_M), np.int32(3)])
def test_numpy_integer_keys_and_sizes_are_their_python_integers(key):
    cpu = get_device("cpu").xp
    for n in (10, BLOCK + 3, np.int64(BLOCK + 3)):
        assert np.array_equal(cpu.uniform_bits(key, n), cpu.uniform_bits(int(key), int(n)))
        assert np.array_equal(R.normal(cpu, key, (n,), "float32"), R.normal(cpu, int(key), (int(n),), "float32"))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_dropout_larger_than_a_block_is_one_mask_in_forward_backward_and_replay(device):
    """The forward's mask, the backward's (made again from the key) and a checkpoint replay's
    are the same; and the same on the strict device as on the CPU."""
    shape = (4, BLOCK // 2 + 5)  # two blocks and a bit
    x0 = np.random.default_rng(0).standard_normal(shape).astype(np.float32) + 5.0  # no zeros
    results = {}
    for dev in ("cpu", device):
        mg.manual_seed(3)
        x = mg.tensor(x0, device=dev, requires_grad=True)
        y = F.dropout(x, 0.3)
        (y * 2.0).sum().backward()
        grad = x.grad.numpy() if dev == "cpu" else get_device(dev).xp.to_host(x.grad._data)
        out = y.detach().numpy() if dev == "cpu" else get_device(dev).xp.to_host(y.detach()._data)
        results[dev] = (out, grad)
        kept = out != 0
        assert np.array_equal(grad, np.where(kept, np.float32(2.0 / 0.7), 0).astype(np.float32))
        # a checkpointed step replays the same mask from the key: bitwise the plain gradient
        mg.manual_seed(3)
        xc = mg.tensor(x0, device=dev, requires_grad=True)
        yc = ck.checkpoint(lambda t: F.dropout(t, 0.3) * 2.0, xc)
        yc.sum().backward()
        gc = xc.grad.numpy() if dev == "cpu" else get_device(dev).xp.to_host(xc.grad._data)
        assert np.array_equal(gc, grad)
    assert np.array_equal(results["cpu"][0], results[device][0])
    assert np.array_equal(results["cpu"][1], results[device][1])


def _wide_dropout_net(seed: int):
    mg.manual_seed(seed)
    from minigrad_ckpt import nn, optim

    model = nn.Sequential(nn.Linear(6, BLOCK // 4 + 3), nn.Tanh(), nn.Dropout(0.4), nn.Linear(BLOCK // 4 + 3, 2))
    return model, optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _wide_steps(model, opt, start: int, stop: int) -> None:
    for i in range(start, stop):  # batch 8: each dropout mask spans two blocks and a bit
        x = mg.tensor(np.random.default_rng(i).standard_normal((8, 6)).astype(np.float32))
        loss = (model(x) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


@pytest.mark.msgpack
def test_a_resumed_run_draws_the_same_masks_over_several_blocks(tmp_path):
    """Snapshot and resume in the middle of training with dropout masks of several blocks: the
    generator's state is a key counter, so the resumed run is bitwise the run without a stop."""
    from minigrad_ckpt.snapshot import Snapshot

    model, opt = _wide_dropout_net(0)
    _wide_steps(model, opt, 0, 4)
    want = {k: v.numpy().tobytes() for k, v in model.state_dict().items()}
    model, opt = _wide_dropout_net(0)
    _wide_steps(model, opt, 0, 2)
    path = Snapshot.from_executor(mg.Executor(model, opt), 2).save(tmp_path / "s.mgsnap")
    model2, opt2 = _wide_dropout_net(9)  # another seed: the generator's state must come from the snapshot
    Snapshot.load(path).restore_into(mg.Executor(model2, opt2))
    _wide_steps(model2, opt2, 2, 4)
    assert {k: v.numpy().tobytes() for k, v in model2.state_dict().items()} == want


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_mask_of_several_blocks_under_transforms_closing_over_a_weight_and_in_place(dtype):
    """``mg.func.grad``, ``vjp`` and ``jvp`` of a function that closes over a weight and drops
    out over two blocks and a bit: each regenerates the forward's mask from the op's key, so the
    gradient is the mask times the scale (times the weight), and the tangent agrees with it.
    Dropout written in place (``inplace=True``) draws the same mask."""
    n = 2 * BLOCK + 11
    w = mg.tensor(np.linspace(0.5, 1.5, n).astype(dtype))  # closed over, not differentiated
    x0 = mg.tensor(np.random.default_rng(1).standard_normal(n).astype(dtype) + 4.0)  # no zeros

    def f(x):
        mg.manual_seed(11)  # the same key on every call: the transforms compare one mask
        return (F.dropout(x * w, 0.4) * 3.0).sum()

    g = mg.func.grad(f)(x0)
    mg.manual_seed(11)
    kept = F.dropout(mg.ones(n, dtype=dtype), 0.4).numpy() != 0
    scale = np.asarray(1.0 / 0.6, dtype=dtype)
    want = np.where(kept, (w.numpy() * scale) * np.asarray(3.0, dtype=dtype), 0).astype(dtype)
    assert g.dtype == np.dtype(dtype) and np.allclose(g.numpy(), want, rtol=1e-6, atol=0)
    assert 0.55 < kept.mean() < 0.65
    _, pullback = mg.func.vjp(f, x0)
    assert np.array_equal(pullback(mg.tensor(np.asarray(1.0, dtype=dtype)))[0].numpy(), g.numpy())
    t = mg.tensor(np.random.default_rng(2).standard_normal(n).astype(dtype))
    _, tangent = mg.func.jvp(f, (x0,), (t,))
    assert np.isclose(float(tangent.numpy()), float((g.numpy().astype(np.float64) * t.numpy()).sum()), rtol=1e-4)
    mg.manual_seed(11)
    out_of_place = F.dropout(x0 * w, 0.4).numpy()
    mg.manual_seed(11)
    y = (x0 * w).detach()
    assert F.dropout(y, 0.4, inplace=True) is y
    assert np.array_equal(y.numpy(), out_of_place)

