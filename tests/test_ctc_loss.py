"""``F.ctc_loss`` / ``nn.CTCLoss`` at the seams: derivatives of the loss of ``log_softmax`` outputs
(first and second order, reverse and forward mode), PyTorch's gradient on raw inputs, the strict
device, checkpointing, and the argument checks.  PyTorch's values and gradients for every
argument form are in ``tests/data/torch_nn_reference.npz`` (``tests/test_nn_vs_torch.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

TARGETS = np.array([[1, 1, 2], [3, 2, 0], [2, 0, 0]])  # a repeated label, and padding past each length
INPUT_LENGTHS, TARGET_LENGTHS = (5, 4, 3), (3, 2, 1)


def _logits(dtype="float64", device="cpu", shape=(5, 3, 4)):
    rng = np.random.default_rng(7)
    return mg.tensor(rng.standard_normal(shape).astype(dtype), device=device, requires_grad=True)


def _loss(x, reduction="mean", **kw):
    return F.ctc_loss(F.log_softmax(x, axis=2), mg.tensor(TARGETS, device=x.device), INPUT_LENGTHS,
                      TARGET_LENGTHS, reduction=reduction, **kw)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_derivatives_of_the_loss_of_log_softmax_both_modes_and_second_order(reduction):
    x = _logits()
    assert gradcheck(lambda t: _loss(t, reduction), x, modes=("rev", "fwd"))
    assert gradgradcheck(lambda t: _loss(t, reduction), x)


def test_the_gradient_of_raw_log_probs_is_pytorchs_not_the_derivative():
    # PyTorch adds exp(log_probs) on each sample's frames (right after a log_softmax only)
    x = _logits()
    frames = np.arange(5)[:, None] < np.array(INPUT_LENGTHS)
    plain = lambda t: F.ctc_loss(t, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS, reduction="sum")  # noqa: E731
    (g,) = mg.grad(plain(x), [x])
    eps, derivative = 1e-6, np.zeros(x.shape)
    for i in np.ndindex(*x.shape):
        step = np.zeros(x.shape)
        step[i] = eps
        derivative[i] = (plain(x.detach() + step).item() - plain(x.detach() - step).item()) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), derivative + np.exp(x.numpy()) * frames[:, :, None], atol=1e-7)
    assert np.all(g.numpy()[~frames] == 0)


def test_forward_mode_is_the_same_linear_map_as_reverse_mode_on_raw_inputs():
    x = _logits()
    v = mg.tensor(np.random.default_rng(1).standard_normal(x.shape))
    f = lambda t: F.ctc_loss(t, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS)  # noqa: E731
    _, tangent = mg.func.jvp(f, (x.detach(),), (v,))
    (g,) = mg.grad(f(x), [x])
    np.testing.assert_allclose(tangent.item(), float((g.numpy() * v.numpy()).sum()), rtol=1e-12)


def test_float32_stays_float32_and_the_strict_float32_device_matches_the_cpu():
    x, xs = _logits("float32"), _logits("float32", device="strict-f32")
    out, outs = _loss(x), _loss(xs)
    assert out.dtype == np.float32 and str(outs.device).startswith("strict-f32")
    (g,), (gs,) = mg.grad(out, [x]), mg.grad(outs, [xs])
    assert g.dtype == np.float32
    np.testing.assert_array_equal(outs.numpy(), out.numpy())
    np.testing.assert_array_equal(gs.numpy(), g.numpy())


def test_checkpointed_gradients_are_bitwise_equal():
    x = _logits()
    (plain,) = mg.grad(_loss(x), [x])
    (replayed,) = mg.grad(ck.checkpoint(_loss, x), [x])
    np.testing.assert_array_equal(replayed.numpy(), plain.numpy())


def test_impossible_targets_cost_inf_with_nan_gradient_or_zero_with_zero_infinity():
    x = _logits()
    lengths = (2, 4, 3)  # "1 1 2" needs 4 frames
    loss = F.ctc_loss(F.log_softmax(x, axis=2), TARGETS, lengths, TARGET_LENGTHS, reduction="none")
    assert loss.numpy()[0] == np.inf and np.isfinite(loss.numpy()[1:]).all()
    (g,) = mg.grad(loss[1:].sum() + 0 * loss[0], [x])
    # as PyTorch: NaN on the sample's frames (its kernel computes -inf + inf there), 0 after them
    assert np.isnan(g.numpy()[:2, 0]).all() and np.all(g.numpy()[2:, 0] == 0)
    kept = F.ctc_loss(F.log_softmax(x, axis=2), TARGETS, lengths, TARGET_LENGTHS, zero_infinity=True,
                      reduction="none")
    (gk,) = mg.grad(kept.sum(), [x])
    assert kept.numpy()[0] == 0 and np.all(gk.numpy()[:, 0] == 0) and np.isfinite(gk.numpy()).all()


def test_a_log_prob_of_minus_inf_has_gradient_zero_where_pytorchs_is_nan():
    # no alignment passes through an impossible emission: its derivative is 0 (PyTorch: -inf - -inf)
    lp = F.log_softmax(_logits(), axis=2).detach().numpy().copy()
    lp[2, 0, 3] = -np.inf  # class 3 is not in sample 0's target
    x = mg.tensor(lp, requires_grad=True)
    loss = F.ctc_loss(x, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS)
    (g,) = mg.grad(loss, [x])
    assert np.isfinite(loss.item()) and np.isfinite(g.numpy()).all() and g.numpy()[2, 0, 3] == 0


def test_the_layer_and_the_argument_forms_agree():
    x = _logits()
    lp = F.log_softmax(x, axis=2)
    concatenated = mg.tensor([1, 1, 2, 3, 2, 2])
    want = F.ctc_loss(lp, TARGETS, mg.tensor(INPUT_LENGTHS), mg.tensor(TARGET_LENGTHS), blank=0).item()
    assert nn.CTCLoss()(lp, concatenated, list(INPUT_LENGTHS), list(TARGET_LENGTHS)).item() == want
    one = F.ctc_loss(lp[:, 1], TARGETS[1], (4,), (2,), reduction="none")
    assert one.shape == () and one.item() == F.ctc_loss(lp, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS,
                                                         reduction="none")[1].item()


@pytest.mark.parametrize("call, error, match", [
    (lambda lp: F.ctc_loss(lp, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS, blank=4), ValueError, "blank"),
    (lambda lp: F.ctc_loss(lp, TARGETS, (6, 4, 3), TARGET_LENGTHS), ValueError, "at most 5"),
    (lambda lp: F.ctc_loss(lp, TARGETS, (5, 4), TARGET_LENGTHS), ValueError, "one entry per sample"),
    (lambda lp: F.ctc_loss(lp, TARGETS, INPUT_LENGTHS, (4, 2, 1)), ValueError, "padded targets"),
    (lambda lp: F.ctc_loss(lp, TARGETS.ravel(), INPUT_LENGTHS, TARGET_LENGTHS), ValueError, "sum"),
    (lambda lp: F.ctc_loss(lp, TARGETS + 3, INPUT_LENGTHS, TARGET_LENGTHS), ValueError, "class indices"),
    (lambda lp: F.ctc_loss(lp, TARGETS, mg.tensor([5.0, 4.0, 3.0]), TARGET_LENGTHS), TypeError, "integers"),
    (lambda lp: F.ctc_loss(lp, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS, reduction="avg"), ValueError, "reduction"),
    (lambda lp: F.ctc_loss(lp[0], TARGETS, INPUT_LENGTHS, TARGET_LENGTHS), ValueError, "one entry per sample"),
    (lambda lp: F.ctc_loss(lp[0], TARGETS[0], (3,), (4,)), ValueError, "fewer than its length"),
    (lambda lp: F.ctc_loss(lp[None], TARGETS, INPUT_LENGTHS, TARGET_LENGTHS), ValueError, "log_probs must be"),
])
def test_bad_arguments_are_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(F.log_softmax(_logits(), axis=2))


def test_a_nan_log_prob_gives_a_nan_loss_and_gradient_even_with_zero_infinity():
    lp = F.log_softmax(_logits(), axis=2).detach().numpy().copy()
    lp[1, 0, 1] = np.nan
    x = mg.tensor(lp, requires_grad=True)
    loss = F.ctc_loss(x, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS, reduction="none", zero_infinity=True)
    (g,) = mg.grad(loss.sum(), [x])
    assert np.isnan(loss.numpy()[0]) and np.isfinite(loss.numpy()[1:]).all()
    assert np.isnan(g.numpy()[:5, 0]).any() and np.isfinite(g.numpy()[:, 1:]).all()
