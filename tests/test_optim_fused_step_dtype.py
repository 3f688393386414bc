"""A group stepped by PyTorch's fused kernels (``fused=True``: Adam, AdamW, Adagrad) counts its steps
in a float32 ``state["step"]`` whatever the default dtype, and ``load_state_dict`` makes the step of a
saved group marked ``fused`` or ``capturable`` float32 (a plain group's keeps its saved dtype), as
PyTorch's does.  Before, under a float64 default, mg's fused step was float64 and a loaded one kept
its saved dtype: ``state_dict()`` had another layout than torch 2.13's.  A snapshot keeps the count as
a number of its header; it comes back float32 for such a group.

torch's dtypes: ``tests/data/torch_optim_fused_step_dtype.json``
(``tests/data/make_torch_optim_fused_step_dtype.py``, which defines the runs); torch is not imported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from make_torch_optim_fused_step_dtype import FUSED, step_dtypes  # noqa: E402
from optim_cases import assert_resumes_bit_for_bit  # noqa: E402

TORCH = json.loads((DATA / "torch_optim_fused_step_dtype.json").read_text())["step_dtypes"]


def test_the_step_dtypes_are_torchs(float64_default):
    assert step_dtypes(mg.optim, mg) == TORCH


def test_adagrads_step_made_at_construction_is_float32(float64_default):
    p = mg.zeros(2, requires_grad=True)
    assert mg.optim.Adagrad([p], fused=True).state[p]["step"].dtype == mg.float32


@pytest.mark.parametrize("name", FUSED)
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_fused_group_resumes_bit_for_bit_with_its_float32_step(tmp_path, name, device, float64_default):
    def build():
        mg.manual_seed(0)
        model = nn.Linear(3, 2).to(device)
        opt = getattr(mg.optim, name)(model.parameters(), lr=0.05, fused=True)
        return model, opt, mg.Executor(model, opt)

    def train(model, opt, ex, n):
        x = mg.linspace(-1, 1, 12).reshape(4, 3).to(device)
        for _ in range(n):
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()
            ex.step()
        return [p.detach().cpu().numpy().tobytes() for p in model.parameters()]

    def restored(model, opt, ex):
        assert [st["step"].dtype for st in opt.state.values()] == [mg.float32, mg.float32]
    assert_resumes_bit_for_bit(tmp_path, build, train, restored=restored)
