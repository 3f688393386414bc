"""PyTorch's process-wide settings (``torch.use_deterministic_algorithms(True)``,
``torch.set_float32_matmul_precision("high")``, ``torch.set_num_threads(4)``): AttributeErrors in
ported scripts before.  They read back what was written, with torch 2.13's defaults and refusals
(``highest`` to start; an unknown precision warns and changes nothing; a thread count of 0 and a
non-bool mode are refused)."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import settings


@pytest.fixture(autouse=True)
def _restore():
    saved = dict(settings._state)
    yield
    settings._state.update(saved)


def test_settings_read_back_what_is_written():
    assert mg.get_float32_matmul_precision() == "highest" and not mg.are_deterministic_algorithms_enabled()
    mg.use_deterministic_algorithms(True, warn_only=True)
    assert mg.are_deterministic_algorithms_enabled() and mg.is_deterministic_algorithms_warn_only_enabled()
    mg.set_float32_matmul_precision("high")
    assert mg.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="no effect"):
        mg.set_float32_matmul_precision("low")
    assert mg.get_float32_matmul_precision() == "high"
    mg.set_num_threads(3)
    assert mg.get_num_threads() == 3


def test_settings_refuse_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="positive integer"):
        mg.set_num_threads(0)
    with pytest.raises(TypeError, match="bool"):
        mg.use_deterministic_algorithms(1)
    x = mg.randn(3)  # a result is the same bits whatever the switches say
    mg.use_deterministic_algorithms(True)
    assert (x * 2).tolist() == (x * 2).tolist()
