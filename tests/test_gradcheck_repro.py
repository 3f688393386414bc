"""``GradcheckError.repro_script()`` / ``save_repro(path)``: a standalone script that
reproduces the failure, with the function's source and the inputs embedded bit-exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import GradcheckError, gradcheck, gradgradcheck

ROOT = Path(__file__).resolve().parent.parent


def doubled_gradient_square(t):
    """``t * t`` whose gradient a hook doubles on the way: wrong by a factor 2."""
    u = t * 1.0
    u.register_hook(lambda g: g * 2)
    return u * u


def _run(script_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script_path)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def _inputs():
    # values whose last bits matter: a reproducer that rounds them would not be bit-exact
    return [mg.tensor(np.array([np.pi / 3, -1 / 7, 1e-300 * 3, 2.0 ** 0.5]), requires_grad=True)]


def test_a_failing_gradcheck_saves_a_script_that_fails_the_same_way(tmp_path):
    with pytest.raises(GradcheckError) as info:
        gradcheck(doubled_gradient_square, _inputs(), modes=("rev",))
    script = info.value.repro_script()
    assert "def doubled_gradient_square(t):" in script and "u.register_hook" in script
    path = info.value.save_repro(tmp_path / "repro.py")
    run = _run(Path(path))
    assert run.returncode != 0 and "GradcheckError" in run.stderr and "first derivatives" in run.stderr
    # the inputs come back to the last bit
    namespace: dict = {}
    exec(script.split("\nmg.testing.gradcheck(")[0], namespace)
    (x,) = namespace["inputs"]
    assert x.numpy().tobytes() == _inputs()[0].numpy().tobytes() and x.requires_grad


def test_a_lambda_is_carried_as_its_own_text(tmp_path):
    def hooked(t):
        t.register_hook(lambda g: g * 3)
        return t

    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda t: mg.sin(hooked(t * 1.0)), _inputs(), modes=("rev",))
    script = info.value.repro_script()
    assert "fn = lambda t: mg.sin(hooked(t * 1.0))" in script  # hooked is not carried: a global of the test


class SquareWithHalfTheGradient(mg.autograd.Function):
    """x * x whose backward forgot the 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


def test_a_custom_functions_apply_is_carried_as_its_class(tmp_path):
    # the script held the source of Function.apply itself (fn = apply), which fails with a NameError
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareWithHalfTheGradient.apply, _inputs(), modes=("rev",))
    script = info.value.repro_script()
    assert "class SquareWithHalfTheGradient(mg.autograd.Function):" in script
    assert "fn = SquareWithHalfTheGradient.apply" in script
    run = _run(Path(info.value.save_repro(tmp_path / "repro.py")))
    assert run.returncode != 0 and "GradcheckError" in run.stderr and "first derivatives" in run.stderr


def test_gradgradcheck_failures_carry_their_cotangents(tmp_path):
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(doubled_gradient_square, _inputs(), modes=("rev",))
    script = info.value.repro_script()
    assert "mg.testing.gradgradcheck(fn, inputs, grad_outputs=[mg.tensor(np.frombuffer(" in script
    path = info.value.save_repro(tmp_path / "repro2.py")
    assert "GradcheckError" in _run(Path(path)).stderr
