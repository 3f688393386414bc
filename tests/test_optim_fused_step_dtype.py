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

import pytest
from optim_cases import assert_resumes_bit_for_bit, torch_numbers
from seam_fixtures import programs

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

generator = programs("make_torch_optim_fused_step_dtype")
TORCH = torch_numbers("torch_optim_fused_step_dtype")["step_dtypes"]


def test_the_step_dtypes_are_torchs(float64_default):
    assert generator.step_dtypes(mg.optim, mg) == TORCH


def test_adagrads_step_made_at_construction_is_float32(float64_default):
    p = mg.zeros(2, requires_grad=True)
    assert mg.optim.Adagrad([p], fused=True).state[p]["step"].dtype == mg.float32


@pytest.mark.parametrize("name", generator.FUSED)
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
