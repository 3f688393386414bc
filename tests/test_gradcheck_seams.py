"""gradcheck and gradgradcheck where they meet the rest of the engine: devices, custom
Functions, checkpointing."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)
from minigrad_ckpt.testing import gradgradcheck


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("given", [np.ones(3), [1.0, 2.0, 3.0]], ids=["array", "list"])
def test_gradgradcheck_grad_outputs_given_as_arrays_go_to_the_outputs_device(device, given):
    # they were built on the cpu whatever the device: "gradient is on cpu but the output is on strict:0"
    x = mg.tensor(np.array([0.3, -1.2, 2.0]), dtype=mg.float64, device=device, requires_grad=True)
    assert gradgradcheck(lambda t: t * t * t, [x], grad_outputs=[given])
