"""Full backward hooks and pre-hooks on modules, against torch 2.13's logs of the same programs
(``tests/data/backward_hook_programs.py``, recorded by ``tests/data/make_torch_backward_hooks.py``).

Before, the hooks were made of one tensor hook per input and output, which gave: ``None`` where torch
gives zeros in ``grad_input`` (a tensor input that does not require grad, float, integer or bool); no
call at all when a gradient reached only some of the inputs (an input unused, or behind an output the
loss does not use); and a RuntimeError for a pre-hook on a module of several outputs that require
grad (MultiheadAttention, ``return x * 2, x * 3``) or a hook replacing the ``grad_input`` of several
inputs.  The hooks now stand on one node for the inputs and one for the outputs, as torch's
``BackwardHook``.  Every program also runs inside ``mg.checkpoint.checkpoint`` and on the strict device.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from tests.data.backward_hook_programs import PROGRAMS

TORCH = json.loads((Path(__file__).parent / "data" / "torch_backward_hooks.json").read_text())


def _checkpointed(m, *args):
    return mg.checkpoint.checkpoint(m, *args, use_reentrant=False)


def _assert_same(got, want, dtype, where="log"):
    """Logs equal: the same structure, strings and dtypes; numbers to the dtype's rounding."""
    if isinstance(want, list) and isinstance(got, (list, tuple)):
        assert len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, dtype, f"{where}[{k}]")
    elif isinstance(want, float) or isinstance(got, float):
        tol = 1e-6 if dtype == "float32" else 1e-13
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=where)
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("call", [None, _checkpointed], ids=["plain", "checkpoint"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_hooks_see_what_torchs_see(program, dtype, device, call):
    kwargs = {} if call is None else {"call": call}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = program(mg, dtype, device, **kwargs)
    _assert_same(json.loads(json.dumps(got)), TORCH[f"{program.__name__}/{dtype}"], dtype)


def _two_inputs_module(log):
    class Mul(mg.nn.Module):
        def forward(self, a, b):
            return a * b

    m = Mul()
    m.register_full_backward_hook(lambda mod, gi, go: log.append([g.tolist() for g in gi]))
    return m


def test_transforms_see_the_hooks_as_backward_does():
    # func.grad runs the hooks (the same grad_input as backward: torch's [[3, 4], [1, 2]]); forward mode
    # (jvp) passes the tangents through the hooks' nodes unchanged and calls no hook
    log = []
    m = _two_inputs_module(log)
    a, b = mg.tensor([1.0, 2.0], dtype=mg.float64), mg.tensor([3.0, 4.0], dtype=mg.float64)
    ga, gb = mg.func.grad(lambda x, y: m(x, y).sum(), argnums=(0, 1))(a, b)
    assert ga.tolist() == [3.0, 4.0] and gb.tolist() == [1.0, 2.0] and log == [[[3.0, 4.0], [1.0, 2.0]]]
    log.clear()
    _, tangent = mg.func.jvp(m, (a, b), (mg.ones_like(a), mg.zeros_like(b)))
    assert tangent.tolist() == [3.0, 4.0] and log == []


def test_no_grad_and_inputs_without_grad_leave_the_outputs_as_they_are():
    log = []
    m = _two_inputs_module(log)
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.no_grad():
        assert not m(a, a).requires_grad
    out = m(a, mg.tensor([3.0, 4.0]))
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0] and log == [[[3.0, 4.0], [0.0, 0.0]]]
