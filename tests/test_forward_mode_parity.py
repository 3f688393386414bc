"""Forward mode where it once differed from torch 2.13's ``torch.func.jvp``: torch's numbers
and words come from ``tests/data/make_torch_forward_mode_parity.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

TORCH = json.loads((Path(__file__).parent / "data" / "torch_forward_mode_parity.json").read_text())
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_embedding_max_norm_rescales_values_not_tangents(device, dtype):
    """The renorm of ``max_norm`` has no derivative (PyTorch's ``embedding_renorm_``): the looked-up
    rows' tangents are the weight's own, unscaled (the engine once answered zero for them)."""
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    case = TORCH["embedding_max_norm"]
    ids = mg.tensor(case["ids"], device=device)
    weight = mg.tensor(case["weight"], dtype=dtype, device=device)
    tangent = mg.tensor(case["tangent"], dtype=dtype, device=device)
    tol = 1e-5 if dtype == mg.float32 else 1e-12

    def lookup(w):
        return mg.nn.functional.embedding(ids, w.clone(), max_norm=1.0)

    out, out_tangent = mg.func.jvp(lookup, (weight,), (tangent,))
    np.testing.assert_allclose(out.cpu().numpy(), case["out"], atol=tol)
    np.testing.assert_allclose(out_tangent.cpu().numpy(), case["out_tangent"], atol=tol)
    assert out_tangent.dtype == dtype
    with mg.autograd.forward_ad.dual_level():  # PyTorch's dual numbers, and the weight itself renormed
        dual = mg.autograd.forward_ad.make_dual(weight.clone(), tangent)
        looked_up = mg.nn.functional.embedding(ids, dual, max_norm=1.0)
        np.testing.assert_allclose(mg.autograd.forward_ad.unpack_dual(looked_up).tangent.cpu().numpy(),
                                   case["out_tangent"], atol=tol)
        np.testing.assert_allclose(mg.autograd.forward_ad.unpack_dual(dual).tangent.cpu().numpy(),
                                   case["tangent"], atol=tol)


sys.path.insert(0, str(Path(__file__).parent / "data"))
from custom_function_jvp_programs import (  # noqa: E402
    KINDS,
    jvp_input_tangents,
    tangent_for_nondifferentiable_output,
    with_nondifferentiable_output,
)


@pytest.mark.parametrize("kind", KINDS)
def test_custom_jvp_tangent_for_nondifferentiable_output_is_refused(kind):
    """The engine once dropped the tangent silently; torch refuses it."""
    expected = TORCH["jvp_tangent_for_nondifferentiable_output"][kind]
    assert tangent_for_nondifferentiable_output(mg, kind) == expected
    function = with_nondifferentiable_output(mg, kind)
    with mg.autograd.forward_ad.dual_level(), pytest.raises(RuntimeError, match="not a differentiable Tensor"):
        function.apply(mg.autograd.forward_ad.make_dual(mg.ones(3), mg.ones(3)))


def test_custom_jvp_none_for_nondifferentiable_output_is_accepted():
    class Fixed(with_nondifferentiable_output(mg, "round")):
        @staticmethod
        def jvp(ctx, xt):
            return None, 2 * xt

    _, tangent = mg.func.jvp(lambda x: Fixed.apply(x)[1], (mg.ones(3),), (mg.ones(3),))
    np.testing.assert_allclose(tangent.numpy(), [2.0, 2.0, 2.0])


def test_custom_jvp_input_tangents_and_a_number_returned_are_torchs():
    """After ``set_materialize_grads(False)`` an input without a tangent hands the jvp None, as
    torch's (the engine once handed zeros whatever the setting); a number returned as a tangent
    is torch's RuntimeError (the engine's was an AttributeError, 'float' has no 'shape')."""
    assert jvp_input_tangents(mg) == TORCH["jvp_input_tangents"]


from autograd_functional_refusal_programs import CASES, run  # noqa: E402


@pytest.mark.parametrize("case", sorted(CASES))
def test_autograd_functional_refusals_are_torchs(case):
    """``autograd.functional``'s forward mode refuses what torch's does (``create_graph``, ``strict``,
    anything but ``vectorize=True``; the engine once computed them, or named ``vectorize`` for
    ``strict``), and an integer input is torch's RuntimeError (the engine's was a ValueError)."""
    assert run(mg, case) == TORCH["autograd_functional_refusals"][case]


@pytest.mark.parametrize("primal_dtype, tangent_dtype", [(mg.float64, mg.float32), (mg.float32, mg.float64)])
def test_linearize_refuses_a_tangent_of_another_dtype(primal_dtype, tangent_dtype):
    """torch's ``linearize`` replays a graph traced for the primal's dtype and refuses another (the
    engine once cast the tangent); ``mg.func.jvp`` casts it, as ``torch.func.jvp`` does."""
    expected = TORCH["linearize_tangent_of_another_dtype"]
    _, jvp_fn = mg.func.linearize(mg.exp, mg.ones(3, dtype=primal_dtype))
    with pytest.raises(RuntimeError) as err:
        jvp_fn(mg.ones(3, dtype=tangent_dtype))
    if primal_dtype == mg.float64:  # the fixture's case (dtype names without torch's "torch.")
        assert str(err.value) == expected["message"].replace("torch.", "")
    np.testing.assert_allclose(jvp_fn(mg.ones(3, dtype=primal_dtype) * 2).numpy(), [2 * np.e] * 3, rtol=1e-6)
    _, tangent = mg.func.jvp(mg.exp, (mg.ones(3, dtype=primal_dtype),), (mg.ones(3, dtype=tangent_dtype),))
    assert tangent.dtype == primal_dtype


from forward_mode_view_write_programs import CASES as WRITES  # noqa: E402
from forward_mode_view_write_programs import TRANSFORMS  # noqa: E402
from forward_mode_view_write_programs import run as run_write  # noqa: E402


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("case", sorted(WRITES))
def test_view_writes_under_nested_transforms(case, transform, device, dtype):
    """An in-place write into a view (or a base) whose tangent has a tangent of its own (``jvp`` of
    ``jacfwd``, of ``jvp``) or a history (``grad`` of ``jvp``) carries both into the views and the
    base, as torch's (the engine once refused it: "cannot carry its forward-mode tangent")."""
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    tol = 1e-4 if dtype == mg.float32 else 1e-10
    got = run_write(mg, case, transform, device, dtype)
    np.testing.assert_allclose(got, TORCH["view_writes"][f"{case}/{transform}"], rtol=tol, atol=tol)
