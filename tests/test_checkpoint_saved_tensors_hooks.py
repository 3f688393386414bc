"""Saved-tensor hooks (``mg.autograd.graph.saved_tensors_hooks``, ``save_on_cpu``) on the ops of a
checkpointed function.

A checkpointed node saves nothing in the forward pass: its segment replays it in backward.  The
tape skipped the hooks for every node recorded inside a segment, and the replay filled in the raw
recomputed values, so a hook that changes what backward reads (pack ``t * 2``; or pack ``t + 1``,
unpack ``x - 1``, which rounds) gave other gradients with checkpointing than without -- with
``checkpoint`` (either ``use_reentrant``), ``checkpoint_sequential``, ``run_plan``, ``remat`` under
every policy, nested checkpoints, and ``mg.func.grad`` through one.  Found by a red team; torch
2.13's ``checkpoint`` gives the plain run's gradients for hooks entered inside the function.

Now a checkpointed node notes the hooks active as it is recorded -- entered inside the function or
around the call -- and the replay puts the values it recomputes through them: ``pack_hook`` when
the replay makes them, ``unpack_hook`` each time backward reads them.  The gradients are the plain
run's, bit for bit.  The segment's kept inputs are not packed (a value-changing hook would change the
replayed forward pass; torch packs its checkpoint's inputs with hooks around the call, and its
gradients then are not the plain run's).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.autograd.graph import save_on_cpu, saved_tensors_hooks

HOOKS = {
    "double": lambda: saved_tensors_hooks(lambda t: t * 2, lambda t: t),
    "shift": lambda: saved_tensors_hooks(lambda t: t + 1, lambda t: t - 1),  # rounds: not the identity
    "save_on_cpu": save_on_cpu,
}


def layers(w, hooks_inside):
    """Three layers; with ``hooks_inside`` each enters the hooks itself (inside whatever checkpoints it)."""
    def enter(f):
        def layer(h):
            with hooks_inside() if hooks_inside else contextlib.nullcontext():
                return f(h)
        return layer
    return [enter(lambda h: (h @ w).tanh()), enter(lambda h: h.sin() * h), enter(lambda h: (h * h).exp())]


def chain(fs):
    def run(h):
        for f in fs:
            h = f(h)
        return h
    return run


PLAN = ck.Plan([ck.Block(0, 3, True, (ck.Block(0, 1, False), ck.Block(1, 3, True)))])

WRAPS = {
    "plain": lambda fs, x: chain(fs)(x),
    "checkpoint": lambda fs, x: ck.checkpoint(chain(fs), x, use_reentrant=False),
    "reentrant": lambda fs, x: ck.checkpoint(chain(fs), x, use_reentrant=True),
    "nested": lambda fs, x: ck.checkpoint(lambda h: ck.checkpoint(chain(fs[1:]), fs[0](h)) * 1.0, x),
    "sequential": lambda fs, x: ck.checkpoint_sequential(fs, 2, x),
    "run_plan": lambda fs, x: ck.run_plan(fs, PLAN, x),
    "save_nothing": lambda fs, x: ck.remat(chain(fs), ck.save_nothing)(x),
    "save_everything": lambda fs, x: ck.remat(chain(fs), ck.save_everything)(x),
    "save_matmuls": lambda fs, x: ck.remat(chain(fs), ck.save_matmuls)(x),
    "offload": lambda fs, x: ck.remat(chain(fs), ck.offload_to_host(ck.save_matmuls))(x),
}


def gradients(wrap, hooks, where, device="cpu", dtype=mg.float64):
    """x's and w's gradients of the program run with ``wrap``, the hooks entered ``where``."""
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    fs = layers(w, HOOKS[hooks] if where == "inside" else None)
    with HOOKS[hooks]() if where == "outside" else contextlib.nullcontext():
        loss = WRAPS[wrap](fs, x.tanh()).sum()
    loss.backward()
    return x.grad.cpu().numpy(), w.grad.cpu().numpy()


def assert_plain(wrap, hooks, where, device="cpu", dtype=mg.float64):
    for e, g in zip(gradients("plain", hooks, where, device, dtype), gradients(wrap, hooks, where, device, dtype)):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("wrap", sorted(set(WRAPS) - {"plain"}))
@pytest.mark.parametrize("where", ["inside", "outside"])
def test_value_changing_hooks_give_the_plain_gradients(wrap, where):
    assert_plain(wrap, "double", where)


@pytest.mark.parametrize("wrap", ["checkpoint", "reentrant", "nested", "save_matmuls", "run_plan"])
@pytest.mark.parametrize("where", ["inside", "outside"])
def test_hooks_that_round_give_the_plain_gradients(wrap, where):
    assert_plain(wrap, "shift", where)
    assert_plain(wrap, "shift", where, dtype=mg.float32)


@pytest.mark.parametrize("wrap", ["checkpoint", "nested", "sequential", "save_everything", "offload"])
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)])
def test_on_the_strict_device_and_in_float32(wrap, device, dtype):
    assert_plain(wrap, "shift", "inside", device, dtype)
    assert_plain(wrap, "double", "outside", device, dtype)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_save_on_cpu_inside_a_checkpoint(device):
    assert_plain("checkpoint", "save_on_cpu", "inside", device)
    hooks = save_on_cpu()
    pack, seen = hooks.pack_hook, []
    hooks.pack_hook = lambda t: seen.append(t.device.type) or pack(t)
    x = mg.tensor([0.5, -1.25], dtype=mg.float64, device=device, requires_grad=True)

    def f(v):
        with hooks:
            return v.exp() * v
    ck.checkpoint(f, x).sum().backward()
    assert seen == [device] * 3  # the replayed values went to the CPU, as a run without checkpointing's
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.exp([0.5, -1.25]) * (1 + np.array([0.5, -1.25])), rtol=1e-15)
    # save_on_cpu changes no value: the gradients are the hook-free ones, checked by central differences
    mg.manual_seed(0)
    x0 = mg.randn(3, 4, dtype=mg.float64).numpy()
    w0 = mg.randn(4, 4, dtype=mg.float64).numpy()

    def f(xa):
        return float(np.exp(np.square(np.sin(h := np.tanh(np.tanh(xa) @ w0)) * h)).sum())
    gx, _ = gradients("checkpoint", "save_on_cpu", "inside", device)
    eps, numeric = 1e-6, np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[i] = eps
        numeric[i] = (f(x0 + d) - f(x0 - d)) / (2 * eps)
    np.testing.assert_allclose(gx, numeric, rtol=1e-6, atol=1e-8)


def test_pack_runs_when_the_replay_makes_the_values_and_unpack_when_backward_reads_them():
    counts = {}

    def hooks():
        def pack(t):
            counts["pack"] = counts.get("pack", 0) + 1
            return t * 2

        def unpack(t):
            counts["unpack"] = counts.get("unpack", 0) + 1
            return t
        return saved_tensors_hooks(pack, unpack)

    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    w = mg.randn(4, 4, dtype=mg.float64, requires_grad=True)
    with hooks():
        plain = chain(layers(w, None))(x).sum()
    assert counts["pack"] == 9  # (matmul: x, w; tanh: its output; sin: its input; the two muls: two each; exp)
    e = mg.autograd.grad(plain, [x, w])
    plain_counts = dict(counts)
    assert plain_counts == {"pack": 9, "unpack": 9}
    counts.clear()
    with hooks():
        y = ck.checkpoint(chain(layers(w, None)), x).sum()
    assert counts == {}  # nothing is saved in the forward pass, so nothing is packed
    g = mg.autograd.grad(y, [x, w], retain_graph=True)
    assert counts == plain_counts  # (y's own sum saves nothing)
    g2 = mg.autograd.grad(y, [x, w])  # the second backward replays, and packs, again
    assert counts == {k: 2 * v for k, v in plain_counts.items()}
    for a, b, c in zip(g, g2, e):
        np.testing.assert_array_equal(a.numpy(), c.numpy())
        np.testing.assert_array_equal(b.numpy(), c.numpy())


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_func_grad_over_a_checkpointed_function(where):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=mg.float64)
    w = mg.randn(4, 4, dtype=mg.float64)
    hooks = HOOKS["double"]

    def loss(wrap):
        def f(w):
            fs = layers(w, hooks if where == "inside" else None)
            with hooks() if where == "outside" else contextlib.nullcontext():
                return WRAPS[wrap](fs, x).sum()
        return f
    expected = mg.func.grad(loss("plain"))(w).numpy()
    for wrap in ("checkpoint", "nested", "save_matmuls"):
        np.testing.assert_array_equal(mg.func.grad(loss(wrap))(w).numpy(), expected)


def test_a_look_at_a_checkpointed_nodes_saved_value_goes_through_the_hooks():
    x = mg.tensor([0.5, -1.25, 2.0], dtype=mg.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        plain = x.exp()
        ckpt = ck.checkpoint(lambda v: v.exp(), x)
    np.testing.assert_array_equal(ckpt.grad_fn._saved_result.numpy(), plain.grad_fn._saved_result.numpy())
    np.testing.assert_array_equal(ckpt.grad_fn._saved_result.numpy(), 2 * np.exp([0.5, -1.25, 2.0]))


def test_second_derivatives_through_a_checkpoint_with_hooks():
    def run(wrap):
        mg.manual_seed(0)
        x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
        w = mg.randn(4, 4, dtype=mg.float64, requires_grad=True)
        loss = WRAPS[wrap](layers(w, HOOKS["shift"]), x).sum()
        (gx,) = mg.grad(loss, [x], create_graph=True)
        (gx * gx).sum().backward()
        return x.grad.numpy(), w.grad.numpy()
    for e, g in zip(run("plain"), run("checkpoint")):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("wrap", ["checkpoint", "nested", "save_matmuls", "run_plan"])
def test_the_ledger_counts_no_packed_value_and_ends_empty(wrap):
    """What a pack hook returns is the user's (as without checkpointing): the replay's packed values
    are not counted as saved, and each backward -- the graph retained or not -- leaves nothing held."""
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    w = mg.randn(4, 4, dtype=mg.float64, requires_grad=True)
    with mg.memory.track() as ledger:
        y = WRAPS[wrap](layers(w, HOOKS["double"]), x.tanh()).sum()
        kept = ledger.live("saved")  # tanh's output, and what the segments keep
        ledger.reset_peak()
        mg.autograd.grad(y, [x, w], retain_graph=True)
        if wrap not in ("nested", "run_plan"):  # (whose inner segment holds the input the outer replay hands it)
            assert ledger.peak("saved") == kept  # every value the replay made for backward was packed
        g = mg.autograd.grad(y, [x, w])
        del y
        assert ledger.live("saved") == 0
    for a, e in zip(g, gradients("plain", "double", "inside")):
        np.testing.assert_array_equal(a.numpy(), e)
