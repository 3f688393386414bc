"""BatchNorm reads its flags and buffers as PyTorch's forward does, at each call: batch statistics in
training mode, and in eval mode only when ``running_mean`` and ``running_var`` are None; the running
statistics updated (and ``num_batches_tracked`` counted, if there is one) in training mode only while
``track_running_stats`` is set.

The engine decided "batch statistics" by ``track_running_stats`` alone and counted batches whenever it
was set, so: ``bn.track_running_stats = False`` after construction gave batch statistics in eval mode
where torch 2.13 uses the running ones (silently other outputs); buffers set to None after construction
in eval mode, and a module built without running statistics whose flag was turned on, or one whose
``num_batches_tracked`` was dropped, raised.  Expected values: torch 2.13's, recorded by
``tests/data/make_torch_batch_norm_flags.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from tests.data.batch_norm_flag_programs import CASES, MODES, run

TORCH = json.loads((Path(__file__).parent / "data" / "torch_batch_norm_flags.json").read_text())


def _same(got, want, tol, where):
    if want is None or got is None:
        assert got is None and want is None, where
    else:
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=tol, atol=tol,
                                   err_msg=where)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("modes", sorted(MODES))
@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_norm_follows_its_flags_as_torch(case, modes, dtype):
    tol = 1e-5 if dtype == "float32" else 1e-12
    got = run(mg, case, MODES[modes], dtype)
    want = TORCH[f"{case}/{modes}/{dtype}"]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        for what, a, b in zip(("output", "input grad", "running_mean", "num_batches_tracked"), g, w):
            _same(a, b, tol, f"call {k}: {what}")


def test_the_flag_turned_off_inside_a_checkpoint_uses_the_running_statistics_in_eval():
    bn = mg.nn.BatchNorm1d(2).eval()
    bn.track_running_stats = False
    x = mg.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    y = mg.checkpoint.checkpoint(bn, x, use_reentrant=False)
    y.sum().backward()
    scale = 1 / np.sqrt(1 + 1e-5)  # torch: x / sqrt(running_var + eps), running stats 0 and 1
    np.testing.assert_allclose(y.numpy(), x.detach().numpy() * scale, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 2), scale), rtol=1e-6)
