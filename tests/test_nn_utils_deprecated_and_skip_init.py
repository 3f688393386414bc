"""``nn.utils.clip_grad_norm`` (PyTorch's deprecated spelling, with its FutureWarning) and
``nn.utils.skip_init(module_cls, *args)`` (PyTorch's refusal for a class without ``device=``):
both were AttributeErrors.  torch 2.13 clips ``[10, 10, 10]`` to norm 1 and returns 17.3205."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def test_clip_grad_norm_is_the_deprecated_spelling_of_clip_grad_norm_():
    p = nn.Parameter(mg.ones(3))
    p.grad = mg.ones(3) * 10
    with pytest.warns(FutureWarning, match="deprecated in favor of `torch.nn.utils.clip_grad_norm_`"):
        total = nn.utils.clip_grad_norm([p], 1.0)
    np.testing.assert_allclose(float(total), np.sqrt(300.0), rtol=1e-6)
    np.testing.assert_allclose(p.grad.numpy(), np.full(3, 1 / np.sqrt(3)), rtol=1e-5)


def test_skip_init_builds_the_module_and_refuses_a_class_without_device():
    m = nn.utils.skip_init(nn.Linear, 3, 4, bias=False)
    assert isinstance(m, nn.Linear) and m.weight.shape == (4, 3) and m.bias is None
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(nn.Sequential)


def test_skip_init_refuses_what_is_not_a_module_class():
    # a class that is no Module raised inspect's ValueError ("no signature found for builtin type")
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int, 1)
    with pytest.raises(TypeError, match="must be a class"):
        nn.utils.skip_init(nn.Linear(3, 4), 1)
