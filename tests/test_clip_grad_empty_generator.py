"""``clip_grad_norm_`` given a generator that yields nothing -- ``model.parameters()`` read up by an
earlier loop, a common slip -- warns, as PyTorch's: "`parameters` is an empty generator, no
gradient clipping will occur." (torch 2.13; its test_clip_grad_norm in test/test_nn.py).  The engine
clipped nothing silently.  An empty list is no slip, and neither warns."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils import clip_grad_norm_


def test_an_empty_generator_warns_that_nothing_is_clipped():
    layer = mg.nn.Linear(3, 2)
    params = layer.parameters()
    for _ in params:
        pass
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
        total = clip_grad_norm_(params, 1.0)
    assert total.item() == 0.0


def test_an_empty_list_and_a_full_generator_do_not_warn():
    layer = mg.nn.Linear(3, 2)
    layer(mg.ones(1, 3)).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clip_grad_norm_([], 1.0)
        clip_grad_norm_(layer.parameters(), 1.0)
