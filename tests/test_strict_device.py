"""The layer, optimizer, checkpoint and snapshot paths on the strict stand-in device.

Every step runs on ``"strict"`` (implicit host conversion and host/device
mixing fail loudly) and must give bit-for-bit the CPU's results; a float32
model on ``"strict-f32"`` proves no float64 appears anywhere in a step.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.demo import CharTransformer
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.testing.strict import StrictDeviceError


def mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 16), nn.Tanh(),
                         nn.LayerNorm(16), nn.Linear(16, 3))


def cnn():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 4, 3, padding=1, groups=2), nn.GELU(), nn.AvgPool2d(2), nn.Flatten(),
                         nn.Linear(4 * 2 * 2, 3))


def transformer():
    return CharTransformer(vocab_size=11, block_size=8, d_model=16, n_heads=2, n_layers=2, dropout=0.1)


def data(kind, device):
    rng = np.random.default_rng(0)
    if kind == "mlp":
        x = mg.tensor(rng.standard_normal((8, 6)).astype(np.float32), device=device)
        y = mg.tensor(rng.integers(0, 3, 8), device=device)
    elif kind == "cnn":
        x = mg.tensor(rng.standard_normal((4, 2, 8, 8)).astype(np.float32), device=device)
        y = mg.tensor(rng.integers(0, 3, 4), device=device)
    else:
        x = mg.tensor(rng.integers(0, 11, (3, 8)), device=device)
        y = mg.tensor(rng.integers(0, 11, (3, 8)), device=device)
    return x, y


def train(kind, device, steps=3, checkpoint=None):
    mg.manual_seed(0)
    model = {"mlp": mlp, "cnn": cnn, "transformer": transformer}[kind]().to(device)
    if checkpoint is not None:
        target = model if kind != "transformer" else model.blocks
        target.enable_checkpointing(checkpoint)
    opt = mg.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = data(kind, device)
    losses = []
    for _ in range(steps):
        out = model(x)
        loss = F.cross_entropy(mg.reshape(out, (-1, out.shape[-1])), mg.reshape(y, (-1,)))
        opt.zero_grad()
        loss.backward()
        mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    state = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    return losses, state, model, opt


@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_training_on_the_strict_device_matches_the_cpu_bitwise(kind):
    cpu_losses, cpu_state, _, _ = train(kind, "cpu")
    s_losses, s_state, model, _ = train(kind, "strict")
    assert s_losses == cpu_losses
    for k in cpu_state:
        np.testing.assert_array_equal(s_state[k], cpu_state[k], err_msg=k)
    assert all(str(p.device) == "strict:0" for p in model.parameters())


@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_float32_models_never_create_float64(kind):
    # the strict-f32 device raises on any float64 array, so completing is the proof
    losses, state, model, opt = train(kind, "strict-f32")
    assert all(np.isfinite(losses))
    assert all(v.dtype != np.float64 for v in state.values())
    for st in opt.state.values():
        for v in st.values():
            if isinstance(v, mg.Tensor):
                assert v.dtype == np.float32


def test_checkpointing_on_the_strict_device_is_bitwise_equal():
    plain = train("mlp", "strict")
    for policy in (ck.EveryNLayers(2), ck.Sqrt(), ck.Optimal(None)):
        got = train("mlp", "strict", checkpoint=ck.CheckpointingConfig(policy))
        assert got[0] == plain[0], policy
        for k in plain[1]:
            np.testing.assert_array_equal(got[1][k], plain[1][k])


@pytest.mark.msgpack
def test_snapshot_taken_on_the_strict_device_restores_on_the_cpu(tmp_path):
    _, state, model, opt = train("mlp", "strict")
    path = Snapshot.from_executor(mg.Executor(model, opt), 3).save(tmp_path / "s.mgsnap")
    mg.manual_seed(1)
    cpu_model = mlp()
    cpu_opt = mg.optim.AdamW(cpu_model.parameters(), lr=1e-2)
    Snapshot.load(path).restore_into(mg.Executor(cpu_model, cpu_opt))
    for k, v in cpu_model.state_dict().items():
        assert v.device == "cpu"
        np.testing.assert_array_equal(v.numpy(), state[k])


def test_the_strict_device_refuses_implicit_host_access():
    x = mg.ones(3, device="strict")
    with pytest.raises(StrictDeviceError, match="implicit"):
        np.asarray(x._data)
    with pytest.raises(StrictDeviceError):
        float(x._data.sum())
    with pytest.raises(StrictDeviceError, match="host"):
        x._data + np.ones(3)
    assert x.sum().item() == 3.0  # Tensor.item is an explicit, user-requested read
    with pytest.raises(StrictDeviceError, match="float64"):
        mg.ones(2, dtype="float64", device="strict-f32")


def _sym(x):
    return x + x.mT


HIGHER_ORDER = {  # each backward or jvp rule makes a constant with no tensor to follow (xp.eye(n), ...)
    "eigh": lambda x: mg.linalg.eigh(_sym(x)).eigenvectors ** 2,
    "einsum_ii": lambda x: mg.einsum("ii,ij->j", x, x),
    "lu_factor": lambda x: mg.linalg.lu_factor(x).LU ** 2,
    "ldl_factor": lambda x: mg.linalg.ldl_factor(_sym(x)).LD ** 2,
    "ctc_loss": lambda x: F.ctc_loss(F.log_softmax(x[:, None, :], -1), mg.tensor([[1]], device=x.device),
                                     mg.tensor([3], device=x.device), mg.tensor([1], device=x.device)),
}


@pytest.mark.parametrize("name", sorted(HIGHER_ORDER))
def test_second_derivatives_on_the_strict_device_match_the_cpu_bitwise(name):
    """A recorded backward (create_graph) and a forward-mode rule on Tensors run with the
    device of their values as the default, so ``xp.eye(n)`` inside them lands there: before,
    it went to the CPU and the op mixing it with the device's tensors failed."""
    f = HIGHER_ORDER[name]
    rng = np.random.default_rng(0)
    a, t = rng.standard_normal((3, 3)) + np.eye(3), rng.standard_normal((3, 3))
    results = []
    for device in ("cpu", "strict"):
        x = mg.tensor(a, device=device, requires_grad=True)
        tangent = mg.tensor(t, device=device)
        (g,) = mg.grad(f(x).sum(), [x], create_graph=True)
        (hv,) = mg.grad((g * tangent).sum(), [x])  # reverse over reverse
        _, jj = mg.func.jvp(lambda z, v=tangent: mg.func.jvp(f, (z,), (v,))[1], (x.detach(),), (tangent,))
        results.append((hv.numpy(), jj.numpy()))
        assert mg.get_default_device() == mg.device("cpu")  # the default is the caller's again
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


def test_strict_scalars_round_as_the_numpy_scalars_the_cpu_holds():
    """Where NumPy on the CPU hands back a scalar (an op on 0-d arrays), the strict device hands
    back a 0-d array that still computes as that scalar: NumPy's scalar math rounds a complex
    product differently from its array loop, and the complex arccosh's forward-mode derivative
    at a 0-d input differed from the CPU's in the last bit."""
    z = np.array(2.9375 - 0.5j)
    xp = mg.device("strict").xp
    s = xp.asarray(z)
    want = 1 / (np.sqrt(z - 1) * np.sqrt(z + 1))
    got = xp.to_host(1 / (xp.sqrt(s - 1) * xp.sqrt(s + 1)))
    assert isinstance(got, np.ndarray) and got.shape == ()
    assert got.tobytes() == np.asarray(want).tobytes()
    tangents = []
    for device in ("cpu", "strict"):
        x, t = mg.tensor(z, device=device), mg.tensor(np.array(0.125 + 0.125j), device=device)
        tangents.append(mg.func.jvp(mg.arccosh, (x,), (t,))[1].numpy())
    assert tangents[0].tobytes() == tangents[1].tobytes()


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_a_profiled_write_is_undone_on_a_device_through_its_memory_owner(device):
    # the undo copies a written memory's owner and writes it back through a tensor of that device: the
    # strict device's owner was the NumPy array behind the wall, and the tensor made of it failed at the
    # next write ('numpy.ndarray' object has no attribute '_a'), where CuPy's owner is a device array
    from minigrad_ckpt.no_trace import leaving_no_trace

    w = mg.ones(2, 3, device=device)
    xp = w.device.xp
    owner = xp.memory_owner(w._data)
    assert xp.holds(owner) and xp.memory_owner(w[1:, ::2]._data) is owner
    with leaving_no_trace():
        w[1:].mul_(2.0)
        w.add_(1.0)
    w[0].add_(3.0)
    np.testing.assert_array_equal(w.to("cpu").numpy(), [[4, 4, 4], [1, 1, 1]])


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_planning_a_function_that_writes_in_place_on_a_device(device):
    def fn(x, w):
        h = x @ w
        h[1].mul_(2.0)
        return (h.tanh() * h).sum()

    peaks = []
    for dev in ("cpu", device):
        mg.manual_seed(0)
        x, w = mg.randn(3, 4, requires_grad=True, device=dev), mg.randn(4, 4, requires_grad=True, device=dev)
        peaks.append(ck.plan_graph(fn, x, w, budget_bytes=10**6).predicted_peak_bytes)
        assert x.grad is None and w.grad is None
    assert peaks[0] == peaks[1]


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_the_ledger_counts_a_view_and_its_base_as_one_memory_on_a_device(device):
    # the ledger follows ``.base`` (NumPy's and CuPy's) to a memory's owner: the strict device's base
    # was the NumPy array behind the wall, so a view and its base were two memories there (twice the bytes)
    held = []
    for dev in ("cpu", device):
        h = mg.randn(4, 6, requires_grad=True, device=dev) * 2.0
        with mg.memory.track() as ledger:
            y = h[1:3]
            graph = (y * y, h * h, h.T.reshape(24)[::2] * 3.0)  # noqa: F841  (held while the ledger is read)
            held.append(ledger.live("saved"))
    assert held == [4 * 6 * 4] * 2
    xp = mg.device(device).xp
    a = xp.asarray(np.arange(12.0, dtype="float32"))
    for view in (a[2:], a[2:][1:], a.reshape(3, 4).T, xp.as_strided(a, (3, 2), (16, 4))):
        assert view.base is a and xp.memory_owner(view) is a and not xp.owns_memory(view)
    assert a.base is None and xp.owns_memory(a)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_no_hidden_read_of_device_memory_in_these_paths(device):
    # each read a raw device array implicitly (bool() of it, or its .imag attribute): a GPU synchronizes
    # behind the engine's back there, the strict device refuses
    results = {}
    for dev in ("cpu", device):
        mg.manual_seed(0)
        x = mg.randn(3, 2, device=dev)
        same = mg.func.vmap(lambda a: a.sum() * 0 + 1, out_dims=None)(x)                 # func/vmap.py
        z = mg.tensor([1 + 0j, 2 - 1j], dtype=mg.complex64, device=dev)
        real = mg.isreal(z)                                                                # torch_functions.py
        y = mg.zeros(2, device=dev)
        with pytest.raises(RuntimeError, match="complex value into a real tensor"):
            y[mg.tensor([True, False], device=dev)] = mg.tensor(1 + 2j, dtype=mg.complex64, device=dev)
        y[mg.tensor([True, False], device=dev)] = mg.tensor(3 + 0j, dtype=mg.complex64, device=dev)
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True).to(dev).eval()  # nested: mask read
        with mg.no_grad():
            out = encoder(mg.randn(2, 5, 8, device=dev),
                          src_key_padding_mask=mg.tensor([[False] * 5, [False] * 3 + [True] * 2], device=dev))
        results[dev] = [t.to("cpu").numpy() for t in (same, real, y, out)]
    for got, want in zip(results[device], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
