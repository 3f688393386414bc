"""``detach_()`` called from a ``__del__`` that the cycle collector runs.  The collector clears every
weak reference to the garbage before it runs a finalizer, so the engine's lists of who shares a
tensor's memory (weak references) read the tensor itself as gone while it is alive: ``detach_``
took a detached alias, or a tensor a view was taken of, for a view and refused ("Can't detach
views in-place").  Found porting pytorch-grad-cam: ``BaseCAM.__del__`` releases its hooks, and
``ActivationsAndGradients.clear`` calls ``detach_()`` on every captured ``activation.cpu().detach()``;
the model, its hooks and the CAM object form a cycle.  PyTorch 2.13 detaches all of these (a view
of a live tensor it refuses, in a finalizer as anywhere: so does the engine)."""

from __future__ import annotations

import gc

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


class _Cycle:
    """Holds tensors in a reference cycle; its finalizer detaches them, as BaseCAM's does."""

    def __init__(self, tensors, outcome):
        self.tensors, self.outcome, self.me = tensors, outcome, self

    def __del__(self):
        for t in self.tensors:
            try:
                t.detach_()
                self.outcome.append(("ok", t.requires_grad, t.grad_fn))
            except RuntimeError as e:
                self.outcome.append(("refused", str(e)))


def _collect(make):
    outcome = []
    gc.collect()
    _Cycle(make(), outcome)
    gc.collect()
    return outcome


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_detached_alias_of_a_gone_result_detaches_in_a_finalizer(device):
    w = mg.ones(3, device=device, requires_grad=True)
    outcome = _collect(lambda: [(w * 2).cpu().detach()])  # ActivationsAndGradients' spelling
    assert outcome == [("ok", False, None)]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_base_whose_view_is_in_the_cycle_too_detaches_in_a_finalizer(device):
    def make():
        base = mg.ones(4, device=device) * 3
        return [base, base[1:]]

    outcome = _collect(make)
    # torch 2.13: the base detaches, its view is refused; the engine cannot tell the two apart once
    # the collector has cleared their references, and detaches both (garbage, read by no one again)
    assert outcome[0] == ("ok", False, None)


def test_a_view_of_a_live_tensor_is_still_refused_in_a_finalizer():
    base = mg.ones(4, requires_grad=True) * 3
    outcome = _collect(lambda: [base[1:]])
    assert outcome == [("refused", "Can't detach views in-place. Use detach() instead.")]
    assert base.grad_fn is not None


def test_outside_a_finalizer_a_view_of_a_gone_base_is_still_refused():
    base = mg.ones(4) * 3
    view = base[1:]
    del base
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        view.detach_()
