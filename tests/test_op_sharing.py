"""Ops built once per attribute value (``Op.shared``) at the seams: one op object stands in
several nodes -- of one graph, of a function transform's inner graph, of a checkpoint's replay,
of a restored tape -- and each node still differentiates as its own (reshape, unsqueeze, cat,
transpose and the reductions take their ops from the cache)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint

DEVICES = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def program(w, c):
    """``sum(stack([w, w*w], 1) * c)`` through the shared ops: unsqueeze, cat, transpose, reshape, sum."""
    n = w.shape[0]
    z = mg.cat([mg.unsqueeze(w, 1), mg.unsqueeze(w * w, 1)], 1)  # (n, 2): two Reshapes of one op value
    z = mg.reshape(mg.transpose(z), (2 * n,))
    cz = mg.reshape(mg.transpose(c), (2 * n,))
    return mg.sum(mg.sum(mg.reshape(z * cz, (2, n)), axis=1))


def expected_grad(w, c):
    return c[:, 0] + 2 * w * c[:, 1]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_shared_ops_under_transforms_checkpointing_and_in_place_writes(device, dtype):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    rng = np.random.default_rng(3)
    wv, cv, vv = (rng.standard_normal(s).astype(dtype) for s in ((5,), (5, 2), (5,)))
    c = mg.tensor(cv).to(device)  # closed over by the transformed functions, never an argument
    tol = 1e-5 if dtype == "float32" else 1e-12
    want = expected_grad(wv, cv)

    w = mg.tensor(wv).to(device)
    np.testing.assert_allclose(mg.func.grad(lambda t: program(t, c))(w).numpy(), want, rtol=tol, atol=tol)
    tangent = mg.func.jvp(lambda t: program(t, c), (w,), (mg.tensor(vv).to(device),))[1]
    np.testing.assert_allclose(tangent.numpy(), np.sum(want * vv), rtol=tol, atol=tol)
    hess = mg.func.hessian(lambda t: program(t, c))(w).numpy()  # second derivatives through the shared ops
    np.testing.assert_allclose(hess, np.diag(2 * cv[:, 1]), rtol=tol, atol=tol)

    plain, ckpt = (mg.tensor(wv).to(device).requires_grad_() for _ in range(2))
    program(plain, c).backward()
    checkpoint.checkpoint(lambda t: program(t, c), ckpt).backward()  # the replay reuses the same op objects
    assert np.array_equal(ckpt.grad.numpy(), plain.grad.numpy())
    np.testing.assert_allclose(plain.grad.numpy(), want, rtol=tol, atol=tol)

    x = mg.tensor(wv).to(device).requires_grad_()
    h = x * 1.0
    h *= 2.0  # recorded in place, between two uses of the same shared ops
    program(h, c).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * expected_grad(2 * wv, cv), rtol=tol, atol=tol)
    assert x.grad.dtype == dtype


def test_a_tape_of_shared_ops_snapshots_and_restores_bitwise(tmp_path):
    """A recorded tape's nodes share op objects; the snapshot stores each node's attributes and
    the restored tape (whose ops are built from them) backpropagates the same bits."""
    from tape_snapshots import gradients_before_and_after_restore

    nn = mg.nn
    c = mg.tensor(np.linspace(-1.0, 1.0, 8).reshape(4, 2))

    def build():
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
        return model, mg.Executor(model, mg.optim.SGD(model.parameters(), lr=0.1))

    x = mg.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 4.0]])

    def loss_of(model):
        h = model(x)
        return program(h[0], c) + program(h[1], c)  # the second call's nodes share the first's ops

    before, after = gradients_before_and_after_restore(build, loss_of, tmp_path / "t.mgsnap")
    assert after == before
