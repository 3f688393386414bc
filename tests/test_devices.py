"""Devices: naming, defaults, mixing errors, transfers, DLPack, and the CuPy guard."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import nn


def test_device_names_and_equality():
    cpu = mg.device("cpu")
    assert str(cpu) == "cpu" and cpu == "cpu" and cpu == mg.device("CPU")
    s = mg.device("strict")
    assert str(s) == "strict:0" and s == "strict:0" and s != "cpu"
    assert mg.tensor([1.0]).device == "cpu"
    with pytest.raises(ValueError, match="unknown device"):
        mg.device("tpu")


def test_cuda_is_reported_absent_cleanly_without_a_gpu():
    if mg.cuda.is_available():
        pytest.skip("a GPU is present")
    assert mg.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="CuPy and a CUDA GPU"):
        mg.tensor([1.0], device="cuda")


def test_default_device_is_per_thread():
    seen = {}

    def worker():
        mg.set_default_device("strict")
        seen["worker"] = mg.zeros(2).device

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert str(seen["worker"]) == "strict:0"
    assert mg.zeros(2).device == "cpu" and mg.get_default_device() == "cpu"


def test_mixing_devices_names_both():
    a = mg.ones(3)
    b = mg.ones(3, device="strict")
    with pytest.raises(RuntimeError, match=r"cpu.*strict:0|strict:0.*cpu"):
        a + b
    with pytest.raises(RuntimeError, match="strict:0"):
        mg.matmul(mg.ones((2, 2)), mg.ones((2, 2), device="strict"))


def test_to_device_and_back_is_differentiable():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.to("strict")
    assert str(y.device) == "strict:0"
    z = (y * y).sum().to("cpu")
    z.backward()
    assert x.grad.device == "cpu"
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_module_to_device_keeps_parameter_identity():
    m = nn.Linear(3, 2)
    w = m.weight
    m.to("strict")
    assert m.weight is w and str(w.device) == "strict:0"
    out = m(mg.ones((4, 3), device="strict"))
    out.sum().backward()
    assert str(w.grad.device) == "strict:0"
    m.to("cpu")
    assert w.device == "cpu" and w.grad.device == "cpu"


def test_dlpack_zero_copy_with_numpy():
    a = np.arange(6.0).reshape(2, 3)
    t = mg.from_dlpack(a)
    a[0, 0] = 42.0
    assert t.numpy()[0, 0] == 42.0  # shares memory
    back = np.from_dlpack(mg.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(back, [1.0, 2.0])
    with pytest.raises(TypeError, match="DLPack"):
        mg.from_dlpack([1, 2, 3])


def test_dlpack_device_reports_cpu():
    assert mg.ones(2).__dlpack_device__()[0] == 1  # kDLCPU


def test_a_device_move_is_recorded_like_any_op():
    # The move is built through the tape's recording path, so an active
    # checkpoint segment (a recorder) owns its node, and the ledger sees it.
    from minigrad_ckpt.checkpoint import checkpoint

    x = mg.randn(3, 4, dtype="float64", requires_grad=True)
    out = checkpoint(lambda t: (t.to("strict") * 2.0).to("cpu") * t, x)
    moves = [n for n in mg.tape.walk(out) if n.op.name == "ToDevice"]
    assert len(moves) == 2 and all(n.segment is not None for n in moves)
    assert moves[0].xp is mg.device("strict").xp  # the node lives where its gradient arrives
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4.0 * x.numpy())


def test_a_device_move_is_differentiable_twice():
    x = mg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    y = (x.to("strict") ** 3).to("cpu").sum()
    (g,) = mg.grad(y, x, create_graph=True)
    (h,) = mg.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6.0 * x.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_copy_from_another_device_moves_the_value_as_pytorch(dtype):
    # before: RuntimeError 'copy_: value is on strict:0, tensor is on cpu' (torch: buf.copy_(cuda_t) transfers)
    src = mg.tensor([1.0, -2.0, 3.0], dtype=dtype, device="strict")
    host = mg.zeros(2, 3, dtype="float64")
    assert host.copy_(src, non_blocking=True) is host           # broadcast, cast and moved
    np.testing.assert_array_equal(host.numpy(), [[1.0, -2.0, 3.0]] * 2)
    w = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    buf = mg.zeros(3, dtype=dtype, device="strict")
    buf.copy_(w * w)                                             # recorded: the gradient comes back to the host
    (buf * mg.tensor([1.0, 10.0, 100.0], dtype=dtype, device="strict")).sum().backward()
    assert w.grad.device == w.device
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 40.0, 600.0])

    def through_a_device_copy(a):
        out = mg.zeros(3, dtype=dtype, device="strict")
        out[1:].copy_(a[:2] * 3)
        return out

    y, dy = mg.func.jvp(through_a_device_copy, (w.detach(),), (mg.tensor([1.0, 0.5, 2.0], dtype=dtype),))
    assert dy.device == y.device == mg.device("strict")
    np.testing.assert_array_equal(dy.to("cpu").numpy(), [0.0, 3.0, 1.5])


@pytest.mark.parametrize("device, dtype", [("strict", "float64"), ("strict-f32", "float32")])
def test_a_cpu_scalar_tensor_meets_tensors_of_another_device_as_pytorch(device, dtype, tmp_path):
    # nanoGPT's resume on a GPU: `losses['val'] < best_val_loss`, a CPU mean against the checkpoint's
    # value loaded with map_location='cuda', raised 'Less: expected all tensors on the same device'
    d = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=dtype, device=device)
    c = mg.tensor(2.0, dtype=dtype)
    mg.save({"best_val_loss": mg.tensor(3.0, dtype=dtype)}, tmp_path / "ckpt.pt")
    best = mg.load(tmp_path / "ckpt.pt", map_location=device)["best_val_loss"]
    assert best.device == d.device and (c < best).device == d.device and (c < best).item()
    assert (d * c).dtype == d.dtype                               # no hidden float64 (strict-f32 refuses one)
    for got, want in [(d + c, [[3, 4, 5], [6, 7, 8]]), (c * d, [[2, 4, 6], [8, 10, 12]]),
                      (mg.where(d > 2, c, d), [[1, 2, 2], [2, 2, 2]]), (d.clamp(min=c), [[2, 2, 3], [4, 5, 6]])]:
        assert got.device == d.device
        np.testing.assert_array_equal(got.to("cpu").numpy(), want)
    for write, want in [(lambda t: t.add_(c), [[3, 4, 5], [6, 7, 8]]), (lambda t: t.mul_(c), [[2, 4, 6], [8, 10, 12]]),
                        (lambda t: t.__setitem__((0, 1), c), [[1, 2, 3], [4, 5, 6]]),
                        (lambda t: t.__setitem__(1, c), [[1, 2, 3], [2, 2, 2]]),
                        (lambda t: t.fill_(c), [[2] * 3] * 2)]:
        t = d.clone()
        write(t)
        np.testing.assert_array_equal(t.to("cpu").numpy(), want)


def test_a_cpu_scalar_tensor_moved_to_another_device_keeps_its_gradient_and_tangent():
    w = mg.tensor(3.0, requires_grad=True)                       # on the CPU
    x = mg.tensor([1.0, 2.0], device="strict", requires_grad=True)
    (x * w + mg.where(x > 1, w, x)).sum().backward()
    assert w.grad.device == w.device and w.grad.item() == 4.0    # 1 + 2 from x * w, 1 from the where
    np.testing.assert_array_equal(x.grad.to("cpu").numpy(), [4.0, 3.0])
    h = mg.zeros(2, device="strict", requires_grad=True) * 1
    h[0] = w * 2                                                 # a recorded write of a CPU scalar
    h.sum().backward()
    assert w.grad.item() == 6.0
    _, dy = mg.func.jvp(lambda s: mg.tensor([1.0, 5.0], device="strict") * s, (mg.tensor(2.0),), (mg.tensor(1.0),))
    assert dy.device == mg.device("strict") and dy.to("cpu").tolist() == [1.0, 5.0]


def test_only_a_cpu_scalar_tensor_moves():
    d, c = mg.ones(2, device="strict"), mg.ones(2)
    with pytest.raises(RuntimeError, match="same device"):
        d + c                                                     # a CPU tensor with elements: an error
    with pytest.raises(RuntimeError, match="same device"):
        c + mg.tensor(1.0, device="strict")                       # a device scalar does not come to the CPU
    with pytest.raises(RuntimeError, match="same device"):
        mg.where(d > 0, c, d)
    with pytest.raises(RuntimeError, match="value is on cpu"):
        d.add_(c)
    with pytest.raises(RuntimeError, match="value is on strict"):
        mg.zeros(()).add_(mg.tensor(1.0, device="strict"))


def test_moves_between_devices_replay_bitwise_inside_a_checkpoint():
    # the CPU scalar moved beside device tensors, and copy_ from the CPU into a device tensor,
    # both recorded, replayed by a checkpoint: the same loss and gradients, bit for bit
    from minigrad_ckpt import checkpoint as ck

    c = mg.tensor(1.5, requires_grad=True)

    def f(x):
        h = mg.tanh(x * c)
        buf = mg.zeros(3, 4, device="strict")
        buf.copy_(h.to("cpu") * 2)
        return (buf * h).sum()

    results = []
    for checkpointed in (False, True):
        c.grad = None
        x = mg.tensor(np.arange(12.0).reshape(3, 4) / 10, device="strict", requires_grad=True)
        y = ck.checkpoint(f, x) if checkpointed else f(x)
        y.backward()
        results.append((y.to("cpu").item(), x.grad.to("cpu").numpy(), c.grad.item()))
    (y0, gx0, gc0), (y1, gx1, gc1) = results
    assert y0 == y1 and gc0 == gc1 and c.grad.device == c.device
    np.testing.assert_array_equal(gx0, gx1)
