"""Real-GPU checks (CuPy vs NumPy), run with ``pytest -m gpu`` on a machine with a GPU.

Float32 results are compared with tolerances (GPU kernels sum in other
orders); integer-keyed randomness (dropout masks) must be identical.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.snapshot import Snapshot

pytestmark = pytest.mark.gpu

RTOL, ATOL = 2e-4, 2e-5


def both(fn, *arrays, grad=True):
    """Run ``fn`` on CPU and GPU tensors made from the same host arrays; return both results."""
    out = {}
    for dev in ("cpu", "cuda"):
        ts = [mg.tensor(a, device=dev, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        y = fn(*ts)
        grads = None
        if grad and y.requires_grad:
            y.sum().backward() if y.size > 1 else y.backward()
            grads = [t.grad.numpy() if t.grad is not None else None for t in ts]
        out[dev] = (y.numpy(), grads)
    return out


def close(out):
    (yc, gc), (yg, gg) = out["cpu"], out["cuda"]
    np.testing.assert_allclose(yg, yc, rtol=RTOL, atol=ATOL)
    for a, b in zip(gc or [], gg or []):
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=RTOL, atol=ATOL)


rng = np.random.default_rng(0)
X = rng.standard_normal((4, 6)).astype(np.float32)
Y = rng.standard_normal((6, 5)).astype(np.float32)
IMG = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
W = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)

CASES = {
    "elementwise": (lambda a: mg.tanh(a) * mg.exp(a * 0.1) + mg.sqrt(mg.abs(a) + 1) - mg.sigmoid(a), X),
    "reductions": (lambda a: mg.logsumexp(a, axis=1) + mg.var(a, axis=1) + mg.max(a, axis=1)
                   + mg.prod(a[:, :3], axis=1) + mg.cumsum(a, axis=1)[:, -1], X),
    "matmul": (lambda a, b: a @ b, X, Y),
    "einsum": (lambda a, b: mg.einsum("ij,jk->ik", a, b), X, Y),
    "shape": (lambda a: mg.concatenate([a.T, a.T], axis=1).reshape(-1)[::3].flip(0), X),
    "indexing": (lambda a: a[[0, 0, 3, 1, 0], 2:], X),
    "conv_pool": (lambda x, w: F.max_pool2d(F.conv2d(x, w, padding=1, stride=1), 2)
                  + F.avg_pool2d(F.conv2d(x, w, padding=1), 2), IMG, W),
    "norms": (lambda a: F.layer_norm(a, 6) + F.gelu(a) + F.silu(a), X),
    "softmax_ce": (lambda a: F.cross_entropy(a, mg.tensor([0, 4, 2, 1], device=a.device)), X),
    "views": (lambda a: a.t().diagonal(1) + a.unfold(1, 2, 2).sum(-1).sum(-1)[:3], X),
    "writes_through_views": (lambda a: _written_through_views(a), X),
}


def _written_through_views(a):
    # recorded writes through views go into the memory (functional/shared_memory.py on CuPy arrays)
    x = a * 1
    x[:, 0] *= 2
    x.t().diagonal(1).mul_(a[0, 0])
    x.unfold(1, 2, 2).add_(a[:, :3].unsqueeze(-1))
    return x * x


@pytest.mark.parametrize("name", sorted(CASES))
def test_ops_match_numpy(name):
    fn, *arrays = CASES[name]
    close(both(fn, *arrays))


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_mode_matches_numpy(name):
    # mg.func.jvp on CuPy: every op's jvp rule through the array namespace of the GPU
    fn, *arrays = CASES[name]
    tangents = [rng.standard_normal(a.shape).astype(a.dtype) for a in arrays]
    res = {}
    for dev in ("cpu", "cuda"):
        ps = tuple(mg.tensor(a, device=dev) for a in arrays)
        ts = tuple(mg.tensor(t, device=dev) for t in tangents)
        y, dy = mg.func.jvp(fn, ps, ts)
        assert dy.device == y.device and dy.dtype == y.dtype
        res[dev] = dy.numpy()
    np.testing.assert_allclose(res["cuda"], res["cpu"], rtol=RTOL, atol=ATOL)


def test_hessian_on_the_gpu():
    x = rng.standard_normal(5)
    f = lambda a: (mg.tanh(a) * mg.exp(a * 0.3)).sum()  # noqa: E731
    hc = mg.func.hessian(f)(mg.tensor(x, dtype="float64")).numpy()
    hg = mg.func.hessian(f)(mg.tensor(x, dtype="float64", device="cuda")).numpy()
    np.testing.assert_allclose(hg, hc, rtol=1e-10, atol=1e-12)


def test_every_registered_op_runs_on_the_gpu():
    # the op battery's samples, a few per op and dtype, forward, backward and jvp against the CPU
    pytest.importorskip("hypothesis")
    from property_tests.op_battery_gpu import run_all_ops_on

    failures = run_all_ops_on("cuda", rtol=RTOL, atol=ATOL)
    assert not failures, "\n".join(failures)


def test_scatter_add_with_heavy_duplicates():
    idx = rng.integers(0, 5, 20000)
    vals = rng.standard_normal(20000).astype(np.float32)
    for dev in ("cpu", "cuda"):
        w = mg.zeros(5, device=dev, requires_grad=True)
        (w[idx] * mg.tensor(vals, device=dev)).sum().backward()
        if dev == "cpu":
            ref = w.grad.numpy()
        else:
            np.testing.assert_allclose(w.grad.numpy(), ref, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(ref, np.bincount(idx, weights=vals, minlength=5), rtol=1e-4, atol=1e-3)


def test_infinities_in_max_and_argmax():
    a = np.array([[1.0, np.inf, 3.0], [-np.inf, -np.inf, -5.0], [2.0, 2.0, -np.inf]], dtype=np.float32)
    for dev in ("cpu", "cuda"):
        t = mg.tensor(a, device=dev, requires_grad=True)
        m = mg.max(t, axis=1)
        m.sum().backward()
        res = (m.numpy(), mg.argmax(t, axis=1).numpy(), t.grad.numpy())
        if dev == "cpu":
            ref = res
        else:
            for x, y in zip(res, ref):
                np.testing.assert_array_equal(x, y)


def test_dropout_masks_are_identical_on_cpu_and_gpu():
    masks = []
    for dev in ("cpu", "cuda"):
        mg.manual_seed(7)
        masks.append(F.dropout(mg.ones(1000, device=dev), 0.3).numpy())
    np.testing.assert_array_equal(masks[0], masks[1])


def _step(model, x, y, steps=2):
    opt = mg.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        out = model(x)
        loss = F.cross_entropy(mg.reshape(out, (-1, out.shape[-1])), mg.reshape(y, (-1,)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("example", ["mlp", "cnn", "transformer"])
def test_training_step_of_each_example_model(example):
    from minigrad_ckpt.demo import CharTransformer

    ids = rng.integers(0, 11, (3, 8))  # drawn once: both devices must see the same batch
    res = {}
    for dev in ("cpu", "cuda"):
        mg.manual_seed(0)
        if example == "mlp":
            model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 3))
            x, y = mg.tensor(X[:, :2], device=dev), mg.tensor([0, 1, 2, 1], device=dev)
        elif example == "cnn":
            model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
            x, y = mg.tensor(IMG, device=dev), mg.tensor([0, 2], device=dev)
        else:
            model = CharTransformer(11, block_size=8, d_model=16, n_heads=2, n_layers=2, dropout=0.1)
            x, y = mg.tensor(ids, device=dev), mg.tensor(np.roll(ids, -1, 1), device=dev)
        res[dev] = _step(model.to(dev), x, y)
    np.testing.assert_allclose(res["cuda"], res["cpu"], rtol=1e-3, atol=1e-4)


def test_checkpointing_is_bitwise_equal_on_the_gpu():
    def run(config):
        mg.manual_seed(0)
        model = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Dropout(0.1)) for _ in range(8)])
        model.to("cuda")
        if config is not None:
            model.enable_checkpointing(config)
        x = mg.randn(4, 16, device="cuda")
        loss = model(x).sum()
        loss.backward()
        return loss.item(), [p.grad.numpy() for p in model.parameters()], mg.get_rng_state()

    base = run(None)
    for policy in (ck.Sqrt(), ck.EveryNLayers(2), ck.Optimal(None)):
        got = run(ck.CheckpointingConfig(policy))
        assert got[0] == base[0] and got[2] == base[2]
        for a, b in zip(got[1], base[1]):
            np.testing.assert_array_equal(a, b)


def test_memory_ledger_matches_cupy_pool_savings():
    mg.manual_seed(0)
    layers = [nn.Sequential(nn.Linear(512, 512), nn.Tanh()).to("cuda") for _ in range(16)]
    x = mg.randn(256, 512, device="cuda")
    profile = ck.profile_chain(layers, x)
    for policy in (ck.NoCheckpointing(), ck.Sqrt()):
        plan = ck.plan_chain(layers, x, policy, profile=profile)
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, x).sum().backward()
        assert ledger.peak("saved") == plan.predicted_peak_bytes


def test_snapshot_gpu_cpu_gpu_round_trip(tmp_path):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to("cuda")
    opt = mg.optim.Adam(model.parameters())
    model(mg.randn(3, 4, device="cuda")).sum().backward()
    opt.step()
    p1 = Snapshot.from_executor(mg.Executor(model, opt), 1).save(tmp_path / "gpu.mgsnap")
    cpu_model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    cpu_opt = mg.optim.Adam(cpu_model.parameters())
    Snapshot.load(p1).restore_into(mg.Executor(cpu_model, cpu_opt))
    p2 = Snapshot.from_executor(mg.Executor(cpu_model, cpu_opt), 1).save(tmp_path / "cpu.mgsnap")
    gpu2 = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to("cuda")
    gpu2_opt = mg.optim.Adam(gpu2.parameters())
    Snapshot.load(p2).restore_into(mg.Executor(gpu2, gpu2_opt))
    for a, b in zip(model.parameters(), gpu2.parameters()):
        assert str(b.device) == "cuda:0"
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_demo_runs_on_cuda(tmp_path):
    r = subprocess.run([sys.executable, "-m", "minigrad_ckpt", "demo", "--device", "cuda", "--steps", "20",
                        "--out", str(tmp_path), "--sample-chars", "20"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["final_loss"] < summary["first_loss"]


class _MaxOfRows(nn.Module):
    def forward(self, x):
        return mg.max(x, dim=1)


def test_data_parallel_on_one_gpu_runs_the_module_there_and_refuses_a_split():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh()).to("cuda:0")
    wrapped = nn.DataParallel(model, device_ids=[0])
    x = np.random.default_rng(0).standard_normal((5, 3)).astype("float32")
    out = wrapped(mg.tensor(x))  # a CPU input goes to the module's GPU, as PyTorch's scatter moves it
    assert str(out.device) == "cuda:0"
    np.testing.assert_allclose(out.numpy(), model(mg.tensor(x, device="cuda:0")).numpy(), rtol=0, atol=0)
    values, indices = nn.DataParallel(_MaxOfRows())(mg.tensor(x))  # a named tuple's tensors move too
    assert str(values.device) == str(indices.device) == "cuda:0"
    if mg.cuda.device_count() > 1:
        with pytest.raises(NotImplementedError, match="DistributedDataParallel"):
            nn.DataParallel(model)


def test_set_device_makes_cuda_mean_that_gpu():
    last = mg.cuda.device_count() - 1
    with mg.cuda.device(last):
        x = mg.ones(2).cuda()
        assert str(x.device) == f"cuda:{last}" and mg.cuda.current_device() == last
        assert mg.cuda.memory_allocated() >= x.nbytes and isinstance(mg.cuda.get_device_name(), str)
    assert mg.cuda.current_device() == 0 and str(mg.ones(2).to(0).device) == "cuda:0"


def test_peak_memory_is_the_most_in_use_since_the_reset():
    # torch: max_memory_allocated() >= the bytes of a freed tensor made after reset_peak_memory_stats()
    mg.cuda.reset_peak_memory_stats()
    start = mg.cuda.memory_allocated()
    x = mg.zeros(1 << 20, device="cuda")
    nbytes = x.nbytes
    del x
    assert mg.cuda.max_memory_allocated() >= start + nbytes > mg.cuda.memory_allocated()
    assert mg.cuda.max_memory_reserved() >= mg.cuda.max_memory_allocated()
    stats = mg.cuda.memory_stats()
    assert stats["allocated_bytes.all.peak"] == mg.cuda.max_memory_allocated() and list(stats) == sorted(stats)
    mg.cuda.reset_peak_memory_stats()
    assert mg.cuda.max_memory_allocated() == mg.cuda.memory_allocated()

