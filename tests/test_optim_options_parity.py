"""Optimizer options and their refusals as PyTorch 2.13 has them (torch is not imported: its
answers are written here, each with the torch call that gave it)."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim


def test_lbfgs_refuses_an_unknown_line_search_with_pytorchs_runtime_error():
    # torch.optim.LBFGS([w], line_search_fn="armijo").step(closure) raises
    # RuntimeError("only 'strong_wolfe' is supported"); mg raised ValueError.  mg refuses at construction
    # (before any step is taken), with PyTorch's type
    w = mg.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        optim.LBFGS([w], line_search_fn="armijo")
    optim.LBFGS([w], line_search_fn="strong_wolfe")  # the one PyTorch has
    optim.LBFGS([w], line_search_fn=None)
