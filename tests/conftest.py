"""Shared fixtures for the example-based tests."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.grad_mode import state as _grad_state


@pytest.fixture(autouse=True)
def _engine_state_restored():
    """Fail (and repair) a test that leaks grad mode or the default dtype."""
    dtype = mg.get_default_dtype()
    yield
    leaked = []
    if not mg.is_grad_enabled():
        _grad_state.enabled = True
        leaked.append("grad mode left disabled")
    if mg.get_default_dtype() != dtype:
        mg.set_default_dtype(dtype)
        leaked.append("default dtype changed")
    if leaked:
        pytest.fail("test leaked engine state: " + ", ".join(leaked))
