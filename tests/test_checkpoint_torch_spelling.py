"""``torch.utils.checkpoint``'s spelling: ``from minigrad_ckpt.utils.checkpoint import checkpoint``.

Code written for PyTorch imports its checkpoint from ``torch.utils.checkpoint``; the module was
missing here (``AttributeError: module 'minigrad_ckpt.utils' has no attribute 'checkpoint'``).
It holds the very functions of ``mg.checkpoint``.
"""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def test_the_module_holds_mg_checkpoints_functions():
    from minigrad_ckpt.utils import checkpoint as torch_spelling

    assert mg.utils.checkpoint is torch_spelling
    assert torch_spelling.checkpoint is mg.checkpoint.checkpoint
    assert torch_spelling.checkpoint_sequential is mg.checkpoint.checkpoint_sequential
    assert torch_spelling.CheckpointError is mg.checkpoint.CheckpointError


def test_a_step_written_for_pytorch_runs_bitwise_as_without_checkpointing():
    from minigrad_ckpt.utils.checkpoint import checkpoint, checkpoint_sequential

    def grads(run):
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.2), nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 2))
        x = mg.randn(5, 4, requires_grad=True)
        run(model, x).pow(2).sum().backward()
        return [x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]

    expected = grads(lambda m, x: m(x))
    for run in (lambda m, x: checkpoint(m, x, use_reentrant=False),
                lambda m, x: checkpoint_sequential(m, 2, x, use_reentrant=False)):
        for e, g in zip(expected, grads(run)):
            np.testing.assert_array_equal(g, e)
