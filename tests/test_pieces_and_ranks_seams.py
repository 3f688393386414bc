"""Seams of this engine's cache-sized pieces (erf, GELU) and rank-by-rank row sums (an embedding's
gradient): under checkpoint replay, ``mg.func.vmap``/``grad`` and a snapshot round trip, the values are
those of the plain run, bit for bit, at sizes where the pieces and ranks are taken."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.ops import elementwise

WIDE = 4 * elementwise._CACHE_PIECE // 64 + 64  # 64 rows of this many features: the pieces are taken


def _model(seed):
    mg.manual_seed(seed)
    return nn.Sequential(nn.Embedding(50, 64), nn.Linear(64, WIDE), nn.GELU(), nn.Linear(WIDE, 8))


def _grads(model, ids, wrap):
    for p in model.parameters():
        p.grad = None
    out = wrap(model, ids)
    out.square().mean().backward()
    return [p.grad.numpy().tobytes() for p in model.parameters()]


def test_a_checkpointed_gelu_mlp_over_an_embedding_gives_the_plain_runs_bits():
    ids = mg.tensor(np.random.RandomState(0).randint(0, 50, (64,)))  # repeated ids: the ranks are taken
    plain = _grads(_model(1), ids, lambda m, x: m(x))
    replayed = _grads(_model(1), ids, lambda m, x: checkpoint(m, x, use_reentrant=False))
    assert plain == replayed


def test_per_sample_gradients_through_gelu_by_vmap_are_the_loops():
    rs = np.random.RandomState(2)
    w = mg.tensor(rs.randn(WIDE, 16).astype(np.float32))
    xs = mg.tensor(rs.randn(64, 16).astype(np.float32))  # batched: (64, WIDE), the pieces' size

    def loss(w, x):
        return F.gelu(w @ x).sum()

    batched = mg.func.vmap(mg.func.grad(loss), in_dims=(None, 0))(w, xs)
    for i in range(0, 64, 9):
        np.testing.assert_allclose(batched[i].numpy(), mg.func.grad(loss)(w, xs[i]).numpy(), rtol=1e-6, atol=1e-7)


def test_a_gelu_model_resumed_from_a_snapshot_steps_as_the_unbroken_run(tmp_path):
    ids = mg.tensor(np.random.RandomState(3).randint(0, 50, (64,)))

    def run(steps, model, opt):
        for _ in range(steps):
            opt.zero_grad()
            model(ids).square().mean().backward()
            opt.step()

    a = _model(4)
    opt_a = mg.optim.AdamW(a.parameters(), lr=1e-2)
    run(4, a, opt_a)
    b = _model(4)
    opt_b = mg.optim.AdamW(b.parameters(), lr=1e-2)
    run(2, b, opt_b)
    mg.save({"model": b.state_dict(), "opt": opt_b.state_dict()}, tmp_path / "s.mgc")
    c = _model(5)
    opt_c = mg.optim.AdamW(c.parameters(), lr=1e-2)
    state = mg.load(tmp_path / "s.mgc")
    c.load_state_dict(state["model"])
    opt_c.load_state_dict(state["opt"])
    run(2, c, opt_c)
    assert all(p.numpy().tobytes() == q.numpy().tobytes() for p, q in zip(a.parameters(), c.parameters()))


def test_per_sample_embedding_gradients_by_vmap_are_the_loops_and_an_in_place_write_of_the_ids_is_refused():
    rs = np.random.RandomState(5)
    w = mg.tensor(rs.randn(30, 32).astype(np.float32))
    ids = mg.tensor(rs.randint(0, 30, (6, 40)))  # repeated ids within each sample: the ranks' case

    def loss(w, i):
        return (F.embedding(i, w) ** 2).sum()

    batched = mg.func.vmap(mg.func.grad(loss), in_dims=(None, 0))(w, ids)
    for k in range(6):
        assert batched[k].numpy().tobytes() == mg.func.grad(loss)(w, ids[k]).numpy().tobytes()
    weight = mg.tensor(w.numpy(), requires_grad=True)
    out = F.embedding(ids, weight)
    ids.add_(1)  # the op holds the ids' array: backward must not read the changed ones
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
