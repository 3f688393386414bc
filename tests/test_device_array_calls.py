"""How many array calls a small training step makes on a device: each is a kernel launch on a GPU.

On a GPU the engine is bound by the host, and each CuPy call costs ~16 us on the H100 it was
measured on (docs/performance.md): the count of array results a phase makes is the budget that
decides its time there.  Counted on the strict stand-in device, whose every result passes its wall
(views included, so the counts are upper bounds of the launches).
"""

from __future__ import annotations

import collections

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict as strict
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F


def _phase_counts(monkeypatch, step_targets: np.ndarray) -> collections.Counter:
    counts, phase = collections.Counter(), [None]
    wrap = strict.StrictNamespace._wrap

    def counting(self, v):
        if phase[0] and hasattr(v, "dtype"):
            counts[phase[0]] += 1
        return wrap(self, v)

    monkeypatch.setattr(strict.StrictNamespace, "_wrap", counting)
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10)).to("strict-f32")
    opt = mg.optim.SGD(model.parameters(), lr=0.01)
    x = mg.tensor(np.random.default_rng(0).standard_normal((128, 784)).astype(np.float32), device="strict-f32")
    y = mg.tensor(step_targets, device="strict-f32")
    for step in range(2):  # the second step counted: the first makes the gradients' buffers
        phase[0] = step and "forward"
        out = model(x)
        phase[0] = step and "loss"
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        phase[0] = step and "backward"
        loss.backward()
        phase[0] = step and "step"
        opt.step()
    phase[0] = None
    return counts


def test_the_loss_of_a_usual_batch_makes_no_masking_passes(monkeypatch):
    # the class-index check reads the targets' min and max in one transfer; the bounds of the counted
    # targets (ignore_index read as 0: two passes and two reductions more) only where one may be ignored.
    # Before: 20 array calls for this loss, ~800 us on an H100 where torch's took ~80
    counts = _phase_counts(monkeypatch, np.arange(128) % 10)
    assert counts["loss"] <= 16, counts
    # backward: 27 before float32 sums over more than 64 rows went pairwise (xp.pairwise_sum) -- each bias
    # gradient is now two reductions of a (8, 16, n) view and its result, one launch and three views more
    assert counts["forward"] <= 11 and counts["backward"] <= 39 and counts["step"] <= 12, counts


def test_a_batch_with_ignored_targets_still_masks_them(monkeypatch):
    targets = np.arange(128) % 10
    targets[::4] = -100
    counts = _phase_counts(monkeypatch, targets)
    assert counts["loss"] > 16, counts   # the counted targets' bounds and the mask: computed here
    x = mg.tensor(np.random.default_rng(1).standard_normal((6, 4)), device="strict", requires_grad=True)
    t = mg.tensor([0, -100, 3, 2, -100, 1], device="strict")
    loss = F.cross_entropy(x, t)
    loss.backward()
    xc = mg.tensor(x.detach().to("cpu").numpy(), requires_grad=True)
    want = F.cross_entropy(xc, mg.tensor([0, -100, 3, 2, -100, 1]))
    want.backward()
    assert loss.item() == want.item()
    np.testing.assert_array_equal(x.grad.to("cpu").numpy(), xc.grad.numpy())
    assert not x.grad.to("cpu").numpy()[[1, 4]].any()
