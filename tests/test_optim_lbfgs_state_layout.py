"""LBFGS keeps its state as PyTorch's does: the two-loop recursion's scalars are 0-d tensors of the
parameters' dtype -- ``ro`` a list of them, ``H_diag`` one, and the coefficients in ``state["al"]``
(a list of ``history_size`` entries, ``None`` where not yet used) -- and ``t`` is the ``lr`` as given
(an int stays an int), a 0-d tensor when the first iteration's ``min(1, 1 / |g|_1) * lr`` took the
reciprocal.  Before, ``ro`` held Python floats, ``H_diag`` a float, ``t`` ``float(lr)`` and there was
no ``"al"``: ``state_dict()`` had another layout than torch 2.13's, and in float32 those scalars were
computed in float64 where PyTorch rounds them to float32.

torch's numbers and layouts: ``tests/data/torch_lbfgs_state.json``
(``tests/data/make_torch_lbfgs_state.py``, which also defines the problem); torch is not imported.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from optim_cases import assert_resumes_bit_for_bit, torch_numbers
from seam_fixtures import programs

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

generator = programs("make_torch_lbfgs_state")
TORCH = torch_numbers("torch_lbfgs_state")["runs"]


@pytest.mark.parametrize("key", sorted(TORCH))
def test_state_layout_and_path_are_torchs(key):
    name, dtype = key.split("/")
    path, opt = generator.run(mg, mg.optim.LBFGS, dtype, generator.CONFIGS[name])
    state = [[k, generator.kind(v)] for k, v in opt.state_dict()["state"][0].items()]
    assert json.loads(json.dumps(state)) == TORCH[key]["state"]
    want = np.array(TORCH[key]["path"])
    np.testing.assert_allclose(path, want, rtol=0, atol=(1e-12 if dtype == "float64" else 1e-6) * abs(want).max())


def _model(device, dtype):
    start = np.split(generator.X0, np.cumsum(generator.SIZES)[:-1])
    params = [mg.tensor(x, dtype=dtype, device=device, requires_grad=True) for x in start]
    return mg.nn.ParameterList([mg.nn.Parameter(p) for p in params])


def _steps(model, opt, ex, n):
    def closure():
        x = np.concatenate([p.detach().cpu().numpy() for p in model])
        loss, grad = generator.loss_and_grad(x)
        for p, g in zip(model, np.split(grad, np.cumsum(generator.SIZES)[:-1])):
            p.grad = mg.tensor(g, dtype=p.dtype, device=p.device)
        return loss
    out = []
    for _ in range(n):
        opt.step(closure)
        ex.step()
        out.append([p.detach().cpu().numpy().tobytes() for p in model])
    return out


def _run(dtype, config, n):
    """An LBFGS of ``config`` on the cpu after ``n`` steps: its model, itself, their executor."""
    model = _model("cpu", dtype)
    opt = mg.optim.LBFGS(model.parameters(), **generator.CONFIGS[config])
    ex = mg.Executor(model, opt)
    _steps(model, opt, ex, n)
    return model, opt, ex


def _loaded_copy(model, config, state_dict):
    """A model holding ``model``'s values and an LBFGS of ``config`` that loaded ``state_dict``."""
    again = _model(model[0].device, model[0].dtype)
    for p, q in zip(again, model):
        p.data = q.detach().clone()
    opt = mg.optim.LBFGS(again.parameters(), **generator.CONFIGS[config])
    opt.load_state_dict(state_dict)
    return again, opt


@pytest.mark.parametrize("name", sorted(generator.CONFIGS))
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_the_state_resumes_bit_for_bit_from_a_snapshot(tmp_path, name, device, dtype):
    def build():
        model = _model(device, dtype)
        opt = mg.optim.LBFGS(model.parameters(), **generator.CONFIGS[name])
        return model, opt, mg.Executor(model, opt)

    def restored(model, opt, ex):
        state = opt.state[model[0]]
        assert isinstance(state["H_diag"], mg.Tensor) and state["H_diag"].dtype == dtype
    assert_resumes_bit_for_bit(tmp_path, build, _steps, restored=restored)


def test_the_state_dict_goes_through_mg_save_and_load():
    model, opt, ex = _run(mg.float32, "one_iteration", 2)
    buf = io.BytesIO()
    mg.save(opt.state_dict(), buf)
    buf.seek(0)
    saved = mg.load(buf)
    again, other = _loaded_copy(model, "one_iteration", saved)
    kinds = [[generator.kind(v) for v in o.state[m[0]].values()] for o, m in ((other, again), (opt, model))]
    assert kinds[0] == kinds[1]
    assert _steps(again, other, mg.Executor(again, other), 2) == _steps(model, opt, ex, 2)


def test_a_state_of_numbers_as_mg_wrote_it_before_still_steps():
    model, opt, ex = _run(mg.float64, "fixed_step", 1)
    sd = opt.state_dict()
    st = sd["state"][0]
    st["ro"] = [float(r) for r in st["ro"]]
    st["H_diag"] = float(st["H_diag"])
    st.pop("al", None)
    again, other = _loaded_copy(model, "fixed_step", sd)
    assert _steps(again, other, mg.Executor(again, other), 2) == _steps(model, opt, ex, 2)
