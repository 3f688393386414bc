"""PyTorch's tutorials on function transforms and custom Functions, ported by the rename, against torch 2.13.

The programs (``tests/data/func_tutorial_programs.py``, written once for both engines) are the tutorials'
own, shrunk: per-sample gradients (``vmap(grad(...))`` over ``functional_call``), model ensembling
(``stack_module_state``), Jacobians, Hessians and hvp (``jacrev``/``jacfwd`` with ``argnums``, ``vjp``
under ``vmap``), neural tangent kernels (by Jacobian contraction and by ``vjp``/``jvp`` under nested
``vmap``), forward-mode AD (dual tensors as module attributes and through ``functional_call``, a custom
Function's ``jvp``), double backward with custom Functions, convolution and batch norm fused into a custom
Function (trained two Adadelta steps), and custom Functions with ``setup_context``/``vmap`` under
``mg.func``.  ``tests/data/torch_func_tutorials.npz`` holds torch's answers
(``tests/data/make_torch_func_tutorials.py``); each program runs here on the CPU and on the strict devices.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
import func_tutorial_programs as tp  # noqa: E402

sys.path.remove(str(DATA))
REF = np.load(DATA / "torch_func_tutorials.npz")
TOL = {"float64": dict(rtol=1e-9, atol=1e-11), "float32": dict(rtol=2e-4, atol=2e-5)}
CASES = [(name, device, dtype) for name in tp.PROGRAMS for dtype in tp.DTYPES.get(name, ("float64",))
         for device in ("cpu", "strict" if dtype == "float64" else "strict-f32")]


def test_the_fixture_holds_every_program():
    stored = {key.split("|")[0] for key in REF.files}
    assert stored == set(tp.PROGRAMS) and len(REF.files) > 100


@pytest.mark.parametrize("name, device, dtype", CASES, ids=["-".join(c) for c in CASES])
def test_tutorial_program_matches_torch(name, device, dtype):
    got = tp.run(mg, name, device, dtype)
    prefix = f"{name}|{dtype}|"
    assert sorted(got) == sorted(k[len(prefix):] for k in REF.files if k.startswith(prefix))
    for path, value in got.items():
        want = REF[prefix + path]
        assert value.shape == want.shape and value.dtype == want.dtype, path
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(value, want, rtol=TOL[dtype]["rtol"], atol=TOL[dtype]["atol"] * scale,
                                   err_msg=f"{name} on {device}: {path}")
