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


def test_a_random_function_is_named_as_such_not_as_a_nondeterministic_backward():
    # each call draws a new dropout mask: it was reported as "backward is not deterministic"
    from minigrad_ckpt import checkpoint as ck
    from minigrad_ckpt.testing import GradcheckError, gradcheck

    x = mg.tensor(np.array([0.3, -1.2, 2.0, 0.7]), dtype=mg.float64, requires_grad=True)

    def dropped(t):
        return ck.checkpoint(lambda u: mg.nn.functional.dropout(mg.tanh(u), 0.5, training=True), t)

    with pytest.raises(GradcheckError, match="fn is not deterministic: two calls with the same inputs"):
        gradcheck(dropped, [x])

    def seeded(t):
        mg.manual_seed(0)
        return dropped(t)

    assert gradcheck(seeded, [x], fast_mode=True) and gradcheck(seeded, [x])


def test_one_tensor_passed_twice_is_one_variable_as_in_pytorch():
    # backward gives the total derivative at each position, the finite differences perturbed one
    # position's copy only: gradcheck(lambda a, b: a * b, (x, x)) failed (analytic 2x, numeric x);
    # torch 2.13's gradcheck, fast mode and gradgradcheck pass all three below
    from minigrad_ckpt.testing import GradcheckError, gradcheck

    x = mg.tensor(np.array([0.3, -1.2]), dtype=mg.float64, requires_grad=True)
    z = mg.tensor(np.array([0.3 + 1j, -1.2]), dtype=mg.complex128, requires_grad=True)
    assert gradcheck(lambda a, b: a * b, (x, x))
    assert gradcheck(lambda a, b: a * b, (x, x), fast_mode=True)
    assert gradgradcheck(lambda a, b: a * b * a, (x, x))
    assert gradcheck(lambda a, k, b: a * b.conj() * k, (z, 2.0, z))
    # a wrong derivative through one of the positions is still found
    with pytest.raises(GradcheckError, match="with respect to input 0"):
        gradcheck(lambda a, b: a * b.detach(), (x, x))


@pytest.mark.parametrize("dtype", [mg.complex64, mg.float32])
def test_single_precision_complex_gets_single_precision_tolerance_in_the_dot_product_test(dtype):
    # complex64 is 8 bytes like float64, and was held to float64's rounding (1e-8 relative): a
    # right function failed 'forward and reverse mode disagree' by 4e-7
    import warnings

    from minigrad_ckpt.testing import gradcheck

    values = np.array([0.3 + 1j, -1.2 + 0.1j, 2 - 0.5j])
    z = mg.tensor(values if dtype == mg.complex64 else values.real, dtype=dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the single-precision warning
        assert gradcheck(lambda a: mg.exp(a) * a, [z], eps=1e-3, atol=1e-2, rtol=1e-2)
        assert gradgradcheck(lambda a: mg.exp(a) * a, [z], eps=1e-3, atol=1e-2, rtol=1e-2)
