"""A snapshot does not save gradients, so one taken between the micro-batches of an accumulating step
resumes without what they had accumulated: the resumed step updates with part of its gradient, and
every later loss differs from the run that never stopped -- silently.  (Found by a red team of whole
training programs stopped at every micro-batch and resumed in a fresh process.)  The capture warns,
naming the parameters, when a gradient has changed since the optimizer's last step and is not zero;
it stays quiet at the usual points: after ``step()``, after ``zero_grad`` of either kind, after a step
that a GradScaler skipped for an inf, after an LBFGS step, before any backward."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager

pytestmark = pytest.mark.msgpack


def _parts(opt_kind=mg.optim.SGD, **kw):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = opt_kind(model.parameters(), **(kw or {"lr": 0.1, "momentum": 0.9}))
    return model, opt, mg.Executor(model, opt)


def _backward(model, scale=1.0):
    (model(mg.ones(2, 3)).pow(2).mean() * scale).backward()


def _warnings_of(save):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        save()
    said = [w for w in caught if "gradient" in str(w.message)]
    assert all(w.filename == __file__ for w in said), [w.filename for w in said]  # the user's line
    return [str(w.message) for w in said]


SAVES = {
    "from_executor": lambda ex, tmp: Snapshot.from_executor(ex),
    "manager": lambda ex, tmp: SnapshotManager(tmp).save_snapshot(ex),
    "manager async": lambda ex, tmp: SnapshotManager(tmp).save_snapshot(ex, blocking=False).result(),
}


@pytest.mark.parametrize("save", SAVES)
def test_a_snapshot_between_micro_batches_warns_naming_the_parameters(save, tmp_path):
    model, opt, ex = _parts()
    _backward(model)
    opt.step()
    opt.zero_grad()
    _backward(model)  # the first micro-batch of the next step: its gradient is not saved
    said = _warnings_of(lambda: SAVES[save](ex, tmp_path))
    assert len(said) == 1, said
    assert "0.weight" in said[0] and "accumulated since the optimizer's last step" in said[0]


def test_a_gradient_added_to_after_the_step_warns(tmp_path):
    model, opt, ex = _parts()
    _backward(model)
    opt.step()
    _backward(model)  # zero_grad forgotten, or accumulation into the old gradient: changed since the step
    assert len(_warnings_of(lambda: Snapshot.from_executor(ex))) == 1


def _after_step(model, opt):
    _backward(model)
    opt.step()


def _after_zero_grad_to_none(model, opt):
    _after_step(model, opt)
    opt.zero_grad()


def _after_zero_grad_in_place(model, opt):
    _after_step(model, opt)
    opt.zero_grad(set_to_none=False)


def _after_module_zero_grad_in_place(model, opt):
    _after_step(model, opt)
    model.zero_grad(set_to_none=False)


def _after_a_skipped_step(model, opt):
    scaler = mg.amp.GradScaler("cpu")
    scaler.scale(model[0].weight.sum() * float("inf")).backward()
    scaler.step(opt)  # skipped: an inf
    scaler.update()


def _after_lbfgs(model, opt):
    def closure():
        opt.zero_grad()
        loss = model(mg.ones(2, 3)).pow(2).mean()
        loss.backward()
        return loss
    opt.step(closure)


def _before_any_backward(model, opt):
    pass


QUIET = [_after_step, _after_zero_grad_to_none, _after_zero_grad_in_place, _after_module_zero_grad_in_place,
         _after_a_skipped_step, _before_any_backward]


@pytest.mark.parametrize("point", QUIET, ids=lambda f: f.__name__)
def test_no_warning_at_the_usual_points(point, tmp_path):
    model, opt, ex = _parts()
    point(model, opt)
    for save in SAVES.values():
        assert _warnings_of(lambda save=save: save(ex, tmp_path)) == []


def test_no_warning_after_an_lbfgs_step(tmp_path):
    model, opt, ex = _parts(mg.optim.LBFGS, lr=0.5, max_iter=3)
    _after_lbfgs(model, opt)
    assert _warnings_of(lambda: Snapshot.from_executor(ex)) == []


def test_no_warning_when_the_snapshot_stores_the_tape(tmp_path):
    """A snapshot with the recorded tape is taken between backward and step on purpose: the restored
    tape's backward gives those gradients again."""
    from minigrad_ckpt.snapshot import SnapshotConfig

    model, opt, ex = _parts()
    loss = model(mg.ones(2, 3)).pow(2).mean()
    ex.record(loss)
    loss.backward(retain_graph=True)
    assert _warnings_of(lambda: Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training())) == []
    assert len(_warnings_of(lambda: Snapshot.from_executor(ex))) == 1


def test_the_resume_it_warns_about_is_wrong_and_the_one_it_does_not_is_exact(tmp_path):
    """Why it warns: resumed from a snapshot between micro-batches, the step differs from the run
    that never stopped; from a snapshot after the step, it is bitwise the same."""
    def run(snapshot_after_micro_batch):
        model, opt, ex = _parts()
        snap = None
        for step in range(3):
            opt.zero_grad()
            for micro in range(2):
                _backward(model, 1 + micro)
                if (step, micro) == snapshot_after_micro_batch:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        snap = Snapshot.from_executor(ex)
            opt.step()
            if (step, None) == snapshot_after_micro_batch:
                snap = Snapshot.from_executor(ex)
        return model, opt, ex, snap

    def resumed(at):
        model, opt, ex, snap = run(at)
        want = [p.numpy().copy() for p in model.parameters()]
        snap.restore_into(ex)
        start = at[0] if at[1] is not None else at[0] + 1
        for step in range(start, 3):
            if at[1] is None or step > at[0]:
                opt.zero_grad()
            for micro in range(2):
                if step == at[0] and at[1] is not None and micro <= at[1]:
                    continue
                _backward(model, 1 + micro)
            opt.step()
        return all((a == p.numpy()).all() for a, p in zip(want, model.parameters()))

    assert resumed((1, None))
    assert not resumed((1, 0))


def test_an_optimizer_that_has_stepped_still_pickles_and_copies():
    """The step's note of the gradients it used holds weak references: not pickled, not copied."""
    import copy
    import pickle

    model = mg.nn.Linear(3, 2)
    opt = mg.optim.Adam(model.parameters(), lr=0.1)
    model(mg.randn(4, 3)).sum().backward()
    opt.step()
    for twin in (pickle.loads(pickle.dumps(opt)), copy.deepcopy(opt)):
        assert twin.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
