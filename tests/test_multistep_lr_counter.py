"""``MultiStepLR`` keeps its milestones as PyTorch 2.13 keeps them: a ``collections.Counter`` of
milestone: times, in ``state_dict()`` too.

torch 2.13 (written here as literals: torch is not imported):
``MultiStepLR(opt, [3, 1, 3], 0.5).milestones == Counter({3: 2, 1: 1})``, its ``state_dict()``
holds that Counter, and ``torch.save``/``torch.load(weights_only=True)`` give a Counter back.  The
engine kept a sorted list ``[1, 3, 3]`` (``sched.milestones[3]`` indexed it, ``state_dict()`` was
not PyTorch's), and ``mg.save`` refused a Counter.  A snapshot carries the Counter (its int keys
exactly); one written when the engine kept the list still resumes.
"""

from __future__ import annotations

from collections import Counter

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as lrs
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

# torch 2.13: the lr before each of 7 steps of MultiStepLR(SGD(lr=0.1), [3, 1, 3], gamma=0.5)
TORCH_LRS = [0.1, 0.05, 0.05, 0.0125, 0.0125, 0.0125, 0.0125]


def _parts(device="cpu", dtype="float64", milestones=(3, 1, 3)):
    mg.manual_seed(0)
    model = nn.Linear(3, 2).to(device=device, dtype=dtype)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = lrs.MultiStepLR(opt, list(milestones), gamma=0.5)
    return model, opt, sched, mg.Executor(model, opt, sched)


def _train(model, opt, sched, ex, n):
    lrs_seen = []
    for _ in range(n):
        lrs_seen.append(opt.param_groups[0]["lr"])
        opt.zero_grad()
        (model(mg.ones(2, 3, dtype=model.weight.dtype, device=model.weight.device)) ** 2).sum().backward()
        opt.step()
        sched.step()
        ex.step()
    return lrs_seen


def test_milestones_and_the_state_dict_hold_pytorchs_counter():
    model, opt, sched, ex = _parts()
    assert type(sched.milestones) is Counter and sched.milestones == Counter({3: 2, 1: 1})
    state = sched.state_dict()
    assert type(state["milestones"]) is Counter and state["milestones"][3] == 2
    assert _train(model, opt, sched, ex, 7) == pytest.approx(TORCH_LRS, rel=1e-15)
    numpy_ints = lrs.MultiStepLR(optim.SGD([mg.zeros(1, requires_grad=True)], 0.1), mg.arange(2, 4).numpy())
    assert all(type(k) is int for k in numpy_ints.milestones)


@pytest.mark.parametrize("form", [Counter({3: 2, 1: 1}), {3: 2, 1: 1}, [1, 3, 3]])
def test_load_state_dict_takes_the_counter_a_map_or_the_list_of_before(form):
    want = _train(*_parts(), 7)
    saved = _parts()
    _train(*saved, 2)
    model, opt, sched, ex = _parts(milestones=(9,))
    opt.load_state_dict(saved[1].state_dict())
    sched.load_state_dict({**saved[2].state_dict(), "milestones": form})
    assert type(sched.milestones) is Counter and sched.milestones == Counter({3: 2, 1: 1})
    assert _train(model, opt, sched, ex, 5) == want[2:]


def test_the_state_dict_saves_and_loads_with_its_counter(tmp_path):
    sched = _parts()[2]
    mg.save(sched.state_dict(), tmp_path / "s.pt")
    loaded = mg.load(tmp_path / "s.pt")
    assert type(loaded["milestones"]) is Counter and loaded["milestones"] == Counter({3: 2, 1: 1})


@pytest.mark.parametrize("device,dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                          ("strict-f32", "float32")])
def test_a_snapshot_resumes_the_counter_exactly(device, dtype):
    want = _train(*_parts(device, dtype), 7)
    parts = _parts(device, dtype)
    got = _train(*parts, 2)
    snap = Snapshot.from_executor(parts[3])
    parts = _parts(device, dtype)
    snap.restore_into(parts[3])
    assert type(parts[2].milestones) is Counter and parts[2].milestones == Counter({3: 2, 1: 1})
    got += _train(*parts, 5)
    assert got == want


def test_a_snapshot_of_the_list_of_before_resumes():
    """A header written when the engine kept the sorted list (plain data: no exact state)."""
    want = _train(*_parts(), 7)
    parts = _parts()
    got = _train(*parts, 2)
    snap = Snapshot.from_executor(parts[3])
    snap.state["scheduler"].pop("exact")
    snap.state["scheduler"]["state"]["milestones"] = [1, 3, 3]
    parts = _parts()
    snap.restore_into(parts[3])
    assert type(parts[2].milestones) is Counter and parts[2].milestones == Counter({3: 2, 1: 1})
    got += _train(*parts, 5)
    assert got == want


def test_a_sequential_lrs_multistep_resumes_from_either_form():
    def build():
        model = nn.Linear(3, 2)
        opt = optim.SGD(model.parameters(), lr=0.1)
        sched = lrs.SequentialLR(opt, [lrs.ExponentialLR(opt, 0.9), lrs.MultiStepLR(opt, [4, 6, 6], 0.5)],
                                 milestones=[2])
        return model, opt, sched, mg.Executor(model, opt, sched)
    want = _train(*build(), 9)
    for old_form in (False, True):
        parts = build()
        got = _train(*parts, 5)
        snap = Snapshot.from_executor(parts[3])
        if old_form:
            snap.state["scheduler"].pop("exact")
            snap.state["scheduler"]["state"]["_schedulers"][1]["milestones"] = [4, 6, 6]
        parts = build()
        snap.restore_into(parts[3])
        assert parts[2]._schedulers[1].milestones == Counter({6: 2, 4: 1})
        got += _train(*parts, 4)
        assert got == want
