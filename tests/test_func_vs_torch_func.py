"""``mg.func`` against torch.func on random nested programs that close over tensors (a fixture made offline).

``tests/data/torch_func_reference.npz`` comes from
``tests/data/make_torch_func_reference.py`` (run with torch installed; nothing
here imports it).  Both engines build each program from the same spec
(``tests/data/func_programs.py``): two or three nested transforms, each inner
function closing over the outer variables and a parameter, Linear and
BatchNorm layers in training and evaluation mode.  Every stored value was
checked when it was made: each inner transform against central differences of
the function it transforms, the outer derivative against those of the whole
program.  Where torch.func was wrong (training-mode batch_norm under nested
transforms) or could not run the program, the case says so and mg is checked
on it by central differences alone, at every level.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
import func_programs as fp  # noqa: E402

sys.path.remove(str(DATA))
REF = np.load(DATA / "torch_func_reference.npz")
META = json.loads(str(REF["__meta__"]))
EXACT = dict(rtol=1e-9, atol=1e-10)     # torch.func's value: both engines are exact up to round-off
CENTRAL = dict(rtol=2e-5, atol=2e-6)    # a central-difference value


def test_the_fixture_pins_a_few_hundred_derivatives():
    values = sum(REF[f"{i}|ref"].size for i in range(len(META)))
    assert len(META) >= 100 and values >= 300
    assert sum(m["source"] == "torch.func" for m in META) > len(META) // 2


@pytest.mark.parametrize("i", range(len(META)))
def test_matches_torch_func(i):
    spec, source = META[i]["spec"], META[i]["source"]
    E = fp.MgEngine()
    closures = E.closures(spec)
    program = fp.build(E, spec, closures)
    got = fp.derivative(E, spec, program, E.const(spec["x"]))
    if source == "torch.func":
        want = REF[f"{i}|ref"]
        tol = EXACT
    else:  # torch.func was wrong here: central differences of mg's own program, at every level
        want = fp.expected(spec, lambda xn: E.numpy(program(E.const(xn))))
        tol = CENTRAL if spec["outer"] != "hessian" else dict(CENTRAL, rtol=1e-4)
        fp.check_every_level(E, spec, closures, CENTRAL)
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"] * scale,
                               err_msg=f"{source}: {spec['kinds']} under {spec['outer']}")
