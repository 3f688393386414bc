"""After a recorded write through a view, the view and its siblings read through their base's history.

``y = x * 2; v = y[1:3]; v.mul_(3)``: PyTorch gives ``y`` the history ``CopySlices`` and regenerates
every view of ``y`` from it, so a later read of ``v`` (or of a sibling view, written or not) passes
through ``y``'s node.  ``mg.grad(loss, y)``, ``backward(inputs=[y])``, ``y.retain_grad()`` and a hook
on ``y`` therefore count the reads of its views, and those on ``v`` count the reads of ``v`` alone.
The engine had given the written view the history of the op's result and its base a ``where`` beside
it, so the gradient with respect to ``y`` missed what reached it through ``v`` (a wrong value, or
"appears to not have been used in the graph"), and ``v``'s counted ``y``'s reads.  Leaves' gradients
were right before and stay so.  Expected values: torch 2.13 in float64, the same programs.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import checkpoint as ck

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
X = [1.0, 2.0, 3.0, 4.0]


def leaf(device, dtype, values=X):
    return mg.tensor(values, dtype=dtype, device=device, requires_grad=True)


def close(t, expected, dtype):
    assert t.dtype == dtype
    np.testing.assert_allclose(t.cpu().numpy(), expected, rtol=1e-6 if dtype == mg.float32 else 1e-12)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_the_gradient_with_respect_to_the_base_counts_the_reads_of_the_written_view(device, dtype):
    x = leaf(device, dtype)
    y = x * 2
    v = y[1:3]
    v.mul_(3)
    loss = (v * v).sum() + (y * y).sum()
    gy, gv = mg.autograd.grad(loss, [y, v], retain_graph=True)
    close(gy, [4.0, 48.0, 72.0, 16.0], dtype)  # was [4, 24, 36, 16]: v's reads were missing
    close(gv, [24.0, 36.0], dtype)  # was [48, 72]: y's reads were counted
    loss.backward(inputs=[y], retain_graph=True)
    close(y.grad, [4.0, 48.0, 72.0, 16.0], dtype)
    loss.backward(inputs=[x])
    close(x.grad, [8.0, 288.0, 432.0, 32.0], dtype)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_sibling_view_the_write_did_not_reach_reads_through_the_base(device, dtype):
    x = leaf(device, dtype)
    y = x * 2
    w = y[0:2]
    y[2:].mul_(3)
    (gy,) = mg.autograd.grad((w * w).sum(), y)  # was "appears to not have been used in the graph"
    close(gy, [4.0, 8.0, 0.0, 0.0], dtype)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_retain_grad_and_hooks_on_the_base_and_the_view(device, dtype):
    x = leaf(device, dtype)
    y = x * 2
    y.retain_grad()
    v = y[1:3]
    v.add_(1.0)
    v.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.cpu().numpy().tolist()))
    ((v ** 3).sum() + y.sum()).backward()
    close(y.grad, [1.0, 76.0, 148.0, 1.0], dtype)
    close(v.grad, [75.0, 147.0], dtype)
    np.testing.assert_allclose(seen, [[1.0, 76.0, 148.0, 1.0]])
    close(x.grad, [2.0, 152.0, 296.0, 2.0], dtype)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_written_column_beside_a_transposed_view(device, dtype):
    x = leaf(device, dtype, [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    h = x * 1.0
    col = h[:, 0]
    col.mul_(3.0)
    h_t = h.t()
    loss = col.exp().sum() + (h_t * h_t).sum() * 0.5
    gh, gc, ght = mg.autograd.grad(loss, [h, col, h_t])
    close(gh, [[5.9816890703380645, -1.0, 2.0], [94.51713130052181, 0.25, -0.75]], dtype)
    close(gc, [4.4816890703380645, 90.01713130052181], dtype)
    close(ght, [[1.5, 4.5], [-1.0, 0.25], [2.0, -0.75]], dtype)


def program(x):
    y = x * 2
    w = y[0:2]
    v = y[1:3]
    v.mul_(3)
    return (w * w).sum() + (v * v * v).sum() + (y * y).sum()


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_forward_mode_through_the_routed_histories(device, dtype):
    value, tangent = mg.func.jvp(program, (mg.tensor(X, dtype=dtype, device=device),),
                                 (mg.tensor([1.0, -1.0, 0.5, 2.0], dtype=dtype, device=device),))
    close(value, 8244.0, dtype)
    close(tangent, 224.0, dtype)


@pytest.mark.parametrize("wrap", ["none", "checkpoint", "save_everything"])
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_inside_a_checkpoint(wrap, device, dtype):
    fn = {"none": program, "checkpoint": lambda t: ck.checkpoint(program, t),
          "save_everything": ck.remat(program, ck.save_everything)}[wrap]
    x = leaf(device, dtype)
    fn(x * 1.0).backward()
    close(x.grad, [16.0, 2880.0, 6048.0, 32.0], dtype)


@pytest.mark.parametrize("views_before", [0, 20])
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_view_whose_base_is_gone_is_no_base_of_views_taken_of_it_later(views_before, device, dtype):
    # ``t0`` is a view of ``y``; ``y`` is gone when ``t0`` is written, so the write gives ``t0`` memory of
    # its own -- but PyTorch's ``t0`` stays a view of ``y``, and ``t5``, taken of it afterwards, is a view
    # of ``y`` too: ``t0``'s kept gradient counts ``t0``'s reads, not ``t5``'s
    def kept_gradient(read_t0):
        x = mg.tensor(np.arange(24.0).reshape(4, 6) / 10, dtype=dtype, device=device, requires_grad=True)
        y = x * 1.5
        t0 = y.select(1, 5)
        t0.retain_grad()
        t0.fill_(-0.95)
        del y
        for _ in range(views_before):  # (past 16 entries the memory's list of sharers drops its dead)
            t0[0]
        t0.zero_()
        t5 = t0.select(0, 0)
        t5.sin_()
        loss = t5 * 10.0
        if read_t0:
            loss = loss + (t0 * mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=dtype, device=device)).sum()
        loss.backward()
        return t0.grad

    assert kept_gradient(read_t0=False) is None
    close(kept_gradient(read_t0=True), [1.0, 2.0, 3.0, 4.0], dtype)


@pytest.mark.parametrize("views_before", [0, 20])
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_view_whose_base_is_gone_stays_no_base_after_many_views(views_before, device, dtype):
    # The memory's list of sharers drops its dead references now and then (at 16, 32, ... entries); the
    # base ``y`` was the first of them, dead, and with it gone from the list ``v`` was taken for the base:
    # ``w``'s reads passed through ``v``'s history, so ``v``'s gradient counted them ([25, 46, 16])
    x = leaf(device, dtype)
    y = x * 2
    v = y[1:]
    del y
    for _ in range(views_before):
        v[0]  # (a view made and dropped: the list grows past 16 entries)
    w = v[:2]
    w.mul_(3)
    loss = (v * v).sum() + (w * mg.tensor([1.0, 10.0], dtype=dtype, device=device)).sum()
    gv, gw, gx = mg.autograd.grad(loss, [v, w, x])
    close(gv, [24.0, 36.0, 16.0], dtype)
    close(gw, [1.0, 10.0], dtype)
    close(gx, [0.0, 150.0, 276.0, 32.0], dtype)
