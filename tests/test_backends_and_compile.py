"""``mg.backends`` and ``mg.compile``: the lines training scripts start with,
``torch.backends.cudnn.benchmark = True``, ``import torch.backends.cudnn as cudnn``,
``model = torch.compile(model)``, were AttributeErrors after the rename. torch 2.13 on a CPU
answers ``cudnn.is_available()`` False, ``cudnn.version()`` None, ``mps.is_available()`` False,
``cuda.matmul.allow_tf32`` False by default, and compiled models give the same outputs."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.backends.cudnn as cudnn


def test_the_switches_keep_what_is_written_and_the_questions_answer_no():
    assert cudnn.is_available() is False and cudnn.version() is None
    assert mg.backends.mps.is_available() is False and mg.backends.mps.is_built() is False
    assert mg.backends.cuda.matmul.allow_tf32 is False and mg.backends.cuda.is_built() is False
    before = (cudnn.benchmark, cudnn.deterministic, mg.backends.cuda.matmul.allow_tf32)
    try:
        cudnn.benchmark = True
        mg.backends.cudnn.deterministic = True
        mg.backends.cuda.matmul.allow_tf32 = True
        assert mg.backends.cudnn.benchmark and cudnn.deterministic and mg.backends.cuda.matmul.allow_tf32
    finally:
        cudnn.benchmark, cudnn.deterministic, mg.backends.cuda.matmul.allow_tf32 = before


def test_compile_returns_the_model_and_works_as_a_decorator():
    net = mg.nn.Linear(2, 1)
    assert mg.compile(net, mode="max-autotune", fullgraph=True) is net
    assert list(mg.compile(net).state_dict()) == ["weight", "bias"]  # PyTorch's would read _orig_mod.weight

    @mg.compile
    def double(x):
        return x * 2

    @mg.compile(dynamic=True)
    def triple(x):
        return x * 3

    np.testing.assert_array_equal(double(mg.ones(2)).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(triple(mg.ones(2)).numpy(), [3.0, 3.0])
    with pytest.raises(TypeError, match="Module or a function"):
        mg.compile(3)
    assert "compile" not in mg.__all__  # `from minigrad_ckpt import *` leaves the builtin alone
