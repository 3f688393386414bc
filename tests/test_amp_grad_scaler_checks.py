"""``GradScaler``'s checks and accessors, as torch 2.13's:

* ``unscale_``, ``step`` and ``update`` before any ``scale()`` are PyTorch's AssertionError ("Attempted
  step but _scale is None"): they went on, dividing gradients that were never scaled by ``init_scale``
  (65536), so a loop that forgot ``scaler.scale(loss)`` silently stepped with gradients 65536 times
  too small.
* ``step`` for an optimizer none of whose parameters has a gradient, and ``update`` when no optimizer
  had one, are PyTorch's AssertionError ("No inf checks were recorded ..."): they stepped and grew the
  scale as if a clean step had been taken.
* ``update(new_scale)`` refuses a tensor of more than one element or one that requires grad.
* ``get_growth_factor``/``set_growth_factor``, ``get_backoff_factor``/``set_backoff_factor`` and
  ``get_growth_interval``/``set_growth_interval`` exist (they were AttributeErrors).
* ``scale()`` of an iterable that is not a list or tuple (a generator) is a lazy ``map``, as PyTorch's
  (it was a ValueError).
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict"]


def _setup(device, grads=True):
    w = mg.tensor([1.0, -2.0], device=device, requires_grad=True)
    idle = mg.tensor([3.0], device=device, requires_grad=True)  # never in the loss: no gradient
    return w, mg.optim.SGD([w], lr=0.1), mg.optim.SGD([idle], lr=0.1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", ["unscale_", "step", "update"])
def test_before_any_scale_is_pytorchs_error(device, call):
    w, opt, _ = _setup(device)
    (w * w).sum().backward()  # the loss not scaled: the forgotten scaler.scale(loss)
    scaler = mg.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match=f"Attempted {call} but _scale is None"):
        getattr(scaler, call)(*(() if call == "update" else (opt,)))
    assert w.grad.tolist() == [2.0, -4.0]  # untouched
    with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
        scaler.update(16.0)


@pytest.mark.parametrize("device", DEVICES)
def test_an_optimizer_without_gradients_records_no_inf_check(device):
    w, opt, idle_opt = _setup(device)
    scaler = mg.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)
    scaler.scale((w * w).sum()).backward()
    with pytest.raises(AssertionError, match="No inf checks were recorded for this optimizer"):
        scaler.step(idle_opt)
    scaler.step(opt)  # the optimizer with gradients steps, and update() reads its check
    scaler.update()
    assert scaler.get_scale() == 8.0 and w.tolist() == [pytest.approx(0.8), pytest.approx(-1.6)]
    scaler.scale((w * w).sum())
    scaler.unscale_(idle_opt)
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        scaler.update()
    assert scaler.get_scale() == 8.0


def test_update_new_scale_tensor_checks():
    scaler = mg.amp.GradScaler("cpu")
    scaler.scale(mg.ones(()))
    for bad in (mg.tensor([2.0, 4.0]), mg.tensor(8.0, requires_grad=True)):
        with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
            scaler.update(bad)
    scaler.update(mg.tensor(8.0))
    assert scaler.get_scale() == 8.0


def test_growth_and_backoff_accessors():
    scaler = mg.amp.GradScaler("cpu", init_scale=4.0, growth_interval=9)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor(), scaler.get_growth_interval()) == (2.0, 0.5, 9)
    scaler.set_growth_factor(3.0)
    scaler.set_backoff_factor(0.25)
    scaler.set_growth_interval(1)
    assert scaler.state_dict() == {"scale": 4.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 1,
                                   "_growth_tracker": 0}
    w = mg.tensor([1.0], requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    for loss_factor, want in ((1.0, 12.0), (float("inf"), 3.0)):
        scaler.scale(w.sum() * loss_factor).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        assert scaler.get_scale() == want


def test_scale_of_a_generator_is_a_lazy_map():
    scaler = mg.amp.GradScaler("cpu", init_scale=2.0)
    out = scaler.scale(t for t in (mg.ones(1), mg.full((2,), 3.0)))
    assert isinstance(out, map)
    assert [t.tolist() for t in out] == [[2.0], [6.0, 6.0]]
    nested = scaler.scale([mg.ones(1), (mg.ones(1), [mg.ones(1)])])
    assert isinstance(nested, list) and isinstance(nested[1], tuple) and nested[1][1][0].tolist() == [2.0]
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3.0)
