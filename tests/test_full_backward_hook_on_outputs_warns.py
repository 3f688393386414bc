"""A module's full backward hooks (or pre-hooks) when no input requires grad: PyTorch calls them as the
gradient reaches the module's outputs, with ``grad_input`` of Nones, and warns that they fire there
("Full backward hook is firing when gradients are computed with respect to module outputs since no
inputs require gradients ...").  Before, the engine called them the same way in silence.  torch 2.13's
answers are in the comments."""

import warnings

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn

FIRING = "Full backward hook is firing when gradients are computed with respect to module outputs"


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("kind", ["hook", "pre_hook"])
def test_hooks_firing_on_outputs_warn(kind, dtype):
    m = nn.Linear(2, 2).to(dtype)
    seen = []
    if kind == "hook":
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, tuple(go[0].shape))))
    else:
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(tuple(go[0].shape)))
    with pytest.warns(UserWarning, match=FIRING):
        m(mg.ones(1, 2, dtype=dtype)).sum().backward()
    assert seen == ([((None,), (1, 2))] if kind == "hook" else [(1, 2)])  # torch: [None] [(1, 2)]


def test_an_input_that_requires_grad_is_silent():
    m = nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(mg.ones(1, 2, requires_grad=True)).sum().backward()   # torch: no warning


def test_inside_a_checkpoint():
    m = nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with pytest.warns(UserWarning, match=FIRING):
        mg.checkpoint.checkpoint(m, mg.ones(1, 2), use_reentrant=False).sum().backward()
