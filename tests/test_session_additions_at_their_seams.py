"""What one session added, at its seams rather than alone: the legacy LU and triangular solves, the
sizes read by ``operator.index``, ``F.normalize(out=)``, the ``_foreach`` additions, ``Tensor.new`` and
a sparse-flagged embedding -- each under the transforms, inside a checkpoint (bitwise the plain
gradients), in float32, on the strict stand-in device, and through a save/load resume where it holds
state. The parts alone are tested beside them (tests/test_legacy_lu_and_triangular_solves.py,
test_float_sizes_refused.py, test_normalize_out.py, test_foreach_functions.py, test_tensor_legacy_new.py,
test_embedding_sparse_flag_is_a_dense_gradient.py)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

DEVICES = ["cpu", "strict"]
RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
B = RNG.standard_normal((3, 2))


def _solves(a, b):
    lu, pivots = mg.lu(a)
    return mg.lu_solve(b, lu, pivots).sum() + mg.triangular_solve(b, a).solution.sum() + a.lu()[0].sum()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_the_legacy_solves_inside_a_checkpoint_give_the_plain_gradients(device, dtype):
    grads = []
    for checkpointed in (False, True):
        a = mg.tensor(A, dtype=dtype, device=device, requires_grad=True)
        b = mg.tensor(B, dtype=dtype, device=device, requires_grad=True)
        loss = mg.checkpoint.checkpoint(_solves, a, b) if checkpointed else _solves(a, b)
        loss.backward()
        assert a.grad.dtype == dtype and a.grad.device == mg.device(device)
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for plain, replayed in zip(*grads):
        np.testing.assert_array_equal(plain, replayed)


def test_the_legacy_solves_under_grad_and_vmap_are_the_loops():
    a = mg.tensor(A)
    g = func.grad(_solves, argnums=(0, 1))(a, mg.tensor(B))
    a_ = mg.tensor(A, requires_grad=True)
    b_ = mg.tensor(B, requires_grad=True)
    _solves(a_, b_).backward()
    np.testing.assert_allclose(g[0].numpy(), a_.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(g[1].numpy(), b_.grad.numpy(), rtol=1e-13)
    stack = mg.tensor(RNG.standard_normal((4, 3, 2)))
    batched = func.vmap(lambda b: mg.triangular_solve(b, a).solution)(stack)
    looped = mg.stack([mg.triangular_solve(b, a).solution for b in stack])
    np.testing.assert_allclose(batched.numpy(), looped.numpy(), rtol=1e-13)
    lu, pivots = mg.lu(a)
    jac = func.jacrev(lambda b: mg.lu_solve(b, lu, pivots))(mg.tensor(B))  # linear in b: A^-1 on each column
    np.testing.assert_allclose(jac[:, 0, :, 0].numpy(), np.linalg.inv(A), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_sizes_read_by_index_inside_transforms_and_a_checkpoint(device):
    size = mg.tensor(3, device=device)  # an integer tensor of one element stands for an int
    x = mg.tensor(RNG.standard_normal(6), device=device, requires_grad=True)

    def f(t):
        return (t.reshape(size, 2).sin() * t.view(np.int64(2), 3).t()).sum()

    f(x).backward()
    plain = x.grad.numpy().copy()
    x.grad = None
    mg.checkpoint.checkpoint(f, x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), plain)
    np.testing.assert_allclose(func.grad(f)(x.detach()).numpy(), plain, rtol=1e-13)
    with pytest.raises(TypeError, match="tuple of ints"):
        func.grad(lambda t: t.reshape(3.0, 2).sum())(x.detach())  # refused inside a transform too


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_normalize_into_out_keeps_its_device_and_dtype(device, dtype):
    u = mg.tensor(RNG.standard_normal(5), dtype=dtype, device=device)
    expected = (u / u.norm()).numpy()
    assert F.normalize(u, dim=0, out=u) is u  # the power iteration's in-place normalization
    np.testing.assert_allclose(u.numpy(), expected, rtol=1e-6 if dtype == mg.float32 else 1e-15)
    assert u.dtype == dtype and u.device == mg.device(device)


@pytest.mark.parametrize("device", DEVICES)
def test_foreach_additions_on_a_device_and_in_float32(device):
    ts = [mg.tensor(RNG.standard_normal((2, 3)), dtype=mg.float32, device=device) for _ in range(2)]
    maxima = mg._foreach_max(ts)
    assert [m.device for m in maxima] == [mg.device(device)] * 2 and maxima[0].dtype == mg.float32
    assert [m.item() for m in maxima] == [float(t.numpy().max()) for t in ts]
    sums = mg._foreach_powsum(ts, 2)
    np.testing.assert_allclose([s.item() for s in sums], [float((t.numpy() ** 2).sum()) for t in ts], rtol=1e-6)
    clones = mg._foreach_clone(ts)
    clones[0].add_(1)  # a clone is its own memory
    assert not np.array_equal(clones[0].numpy(), ts[0].numpy())
    products = mg._foreach_mm(ts, [t.t() for t in ts])
    np.testing.assert_allclose(products[1].numpy(), ts[1].numpy() @ ts[1].numpy().T, rtol=1e-6)


def test_foreach_max_under_grad_is_the_max():
    x = mg.tensor([1.0, 3.0, 2.0])
    g = func.grad(lambda t: mg._foreach_max([t, t * 2])[1])(x)
    assert g.tolist() == [0.0, 2.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_new_keeps_the_device_and_dtype(device):
    x = mg.ones(2, dtype=mg.float32, device=device)
    for made in (x.new(2, 3), x.new([1, 2]), x.new()):
        assert made.device == mg.device(device) and made.dtype == mg.float32
    view = x.new(x)
    view.add_(1)  # x.new(t) is a view of t: the write shows in x
    assert x.tolist() == [2.0, 2.0]


def test_a_sparse_table_inside_a_checkpoint_and_through_a_resume():
    def run(steps, checkpointed, resume_after=None):
        mg.manual_seed(0)
        table = mg.nn.Embedding(6, 3, sparse=True)
        opt = mg.optim.SGD(table.parameters(), lr=0.1, momentum=0.9)
        for step, ids in enumerate(([0, 2, 2], [5, 1], [2, 3, 3], [4, 0])[:steps]):
            if step == resume_after:  # a new table and optimizer, their states saved and loaded
                buf = io.BytesIO()
                mg.save({"model": table.state_dict(), "opt": opt.state_dict()}, buf)
                buf.seek(0)
                state = mg.load(buf)
                table = mg.nn.Embedding(6, 3, sparse=True)
                opt = mg.optim.SGD(table.parameters(), lr=0.1, momentum=0.9)
                table.load_state_dict(state["model"])
                opt.load_state_dict(state["opt"])
            opt.zero_grad()
            lookup = mg.checkpoint.checkpoint(table, mg.tensor(ids)) if checkpointed else table(mg.tensor(ids))
            (lookup ** 2).sum().backward()
            opt.step()
        return table.weight.detach().numpy()

    plain = run(4, False)
    np.testing.assert_array_equal(run(4, True), plain)
    np.testing.assert_array_equal(run(4, False, resume_after=2), plain)
