"""Lazy layers (``nn.LazyLinear``, ``nn.LazyConv2d``) and ``DistributedDataParallel``, on 2 ranks.

Wrapping a lazy model before its first call raised "Can't access the shape of an uninitialized
parameter" from DDP's check of the ranks' models (and, with ``init_sync=False``, a ValueError about
``register_post_accumulate_grad_hook``) -- not PyTorch's refusal, which says what to do (torch 2.13:
"Modules with uninitialized parameters can't be used with `DistributedDataParallel`. Run a dummy
forward pass ...").  Worse, where only one rank had run its dummy batch, the lazy rank raised before
the check's collective and the other waited in it.  (Found by a red team of the seams across ranks.)
Now it is PyTorch's RuntimeError, raised before any collective or, from the gathered signatures, on
every rank alike, naming the rank.  After the dummy batch the wrapped model trains as one process
on the whole batch would, and its snapshot of 2 ranks resumes on 2 (bitwise) and on 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_distributed import launch, results

import minigrad_ckpt as mg

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
from minigrad_ckpt import distributed as dist  # noqa: E402
from minigrad_ckpt.nn.parallel import DistributedDataParallel  # noqa: E402

REFUSAL = "Modules with uninitialized parameters can't be used with `DistributedDataParallel`. Run a dummy forward"


def test_a_lazy_model_is_refused_in_pytorchs_words_in_a_world_of_one():
    dist.init_process_group()
    try:
        for init_sync in (True, False):
            with pytest.raises(RuntimeError, match=REFUSAL.replace("(", r"\(")[:60]):
                DistributedDataParallel(mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.LazyLinear(1)),
                                        init_sync=init_sync)
    finally:
        dist.destroy_process_group()


def _params(r):
    return {n: np.array(v) for n, v in r.items()}


def test_lazy_layers_under_ddp_refuse_then_train_and_resume_on_any_world_size(tmp_path):
    two = results(launch("lazy_ddp", str(tmp_path / "two"), "fresh"))
    for rank in (0, 1):
        refused = two[rank]["refused"]
        assert all(REFUSAL in refused[k] for k in ("lazy", "no_init_sync", "rank0_only")), refused
        assert "uninitialized on rank 0: 0.weight" in refused["rank0_only"]  # every rank names the lazy one
        assert two[rank]["types"] == ["Conv2d", "ReLU", "Flatten", "Linear"]
    one = results(launch("lazy_ddp", str(tmp_path / "one"), "fresh", n=1), n=1)[0]
    ends = _params(two[0]["end"])
    for name, value in _params(one["end"]).items():  # one process on the whole batch
        np.testing.assert_allclose(ends[name], value, rtol=1e-10, atol=1e-12)
    again = results(launch("lazy_ddp", str(tmp_path / "two"), "resume"))
    for rank in (0, 1):  # 2 -> 2: bitwise the run that never stopped
        assert again[rank]["end"] == two[0]["end"]
    alone = results(launch("lazy_ddp", str(tmp_path / "two"), "resume", n=1), n=1)[0]
    assert alone["start"] == two[0]["start"]  # 2 -> 1: the snapshot's state, then the same steps
    for name, value in _params(alone["end"]).items():
        np.testing.assert_allclose(ends[name], value, rtol=1e-10, atol=1e-12)
