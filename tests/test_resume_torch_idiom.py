"""A PyTorch training script's resume, ported by the rename: one checkpoint dict of the model's,
optimizer's, scheduler's and GradScaler's state dicts and every generator's state (the engine's,
``cuda.get_rng_state_all()``, NumPy's, Python's) through ``mg.save``/``mg.load``, restored into
freshly built objects at an epoch boundary, continues bit for bit (dropout, BatchNorm, shuffling,
OneCycleLR, AdamW): the losses and the NumPy/Python draws are those of the run that never stopped."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.utils.data import DataLoader, TensorDataset

pytestmark = pytest.mark.msgpack


def _build(dtype):
    mg.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 1)).to(dtype)
    opt = optim.AdamW(model.parameters(), lr=1e-2)
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=40)
    data = TensorDataset(mg.randn(20, 4, dtype=dtype, generator=mg.Generator().manual_seed(2)),
                         mg.randn(20, 1, dtype=dtype, generator=mg.Generator().manual_seed(3)))
    return model, opt, sched, mg.amp.GradScaler("cpu"), DataLoader(data, batch_size=5, shuffle=True)


def _epoch(parts):
    model, opt, sched, scaler, loader = parts
    out = []
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()
        out.append((loss.numpy().tobytes(), np.random.rand(), random.random()))
    return out


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_a_pytorch_style_checkpoint_resumes_bit_for_bit(dtype):
    parts = _build(dtype)
    want = [_epoch(parts) for _ in range(4)]
    parts = _build(dtype)
    got = [_epoch(parts) for _ in range(2)]
    model, opt, sched, scaler, _ = parts
    buf = io.BytesIO()
    mg.save({"epoch": 2, "model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
             "scaler": scaler.state_dict(), "rng": {"torch": mg.get_rng_state(), "cuda": mg.cuda.get_rng_state_all(),
                                                    "numpy": np.random.get_state(), "python": random.getstate()}}, buf)
    fresh = _build(dtype)
    _epoch(fresh)  # a different state to overwrite
    buf.seek(0)
    ck = mg.load(buf)
    model, opt, sched, scaler, _ = fresh
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["optimizer"])
    sched.load_state_dict(ck["scheduler"])
    scaler.load_state_dict(ck["scaler"])
    mg.set_rng_state(ck["rng"]["torch"])
    mg.cuda.set_rng_state_all(ck["rng"]["cuda"])
    np.random.set_state(ck["rng"]["numpy"])
    random.setstate(ck["rng"]["python"])
    got += [_epoch(fresh) for _ in range(ck["epoch"], 4)]
    assert got == want
