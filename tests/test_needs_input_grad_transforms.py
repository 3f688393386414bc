"""``ctx.needs_input_grad`` of a custom ``autograd.Function`` under the ``mg.func`` transforms, as torch
2.13's: at the innermost transform's level -- a weight the function closes over (which requires grad
outside) needs no gradient inside ``grad``, ``vjp``, ``jacrev``; nothing does inside ``jvp``, ``jacfwd`` --
and, in an outer backward through the node (what ``vjp`` handed out, an outer ``grad``), the level outside,
so a ``backward`` that skips what is not needed still gives every gradient.  The engine answered
``requires_grad`` (the weight: True) everywhere.

Expected answers: ``tests/data/torch_needs_input_grad.json``, written by
``tests/data/make_torch_needs_input_grad.py``, whose scenarios run here on the engine.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_torch_needs_input_grad import SCENARIOS, W, X, _values, run, scaled  # noqa: E402

TORCH = json.loads((Path(__file__).parent / "data" / "torch_needs_input_grad.json").read_text())
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_needs_input_grad_is_torch_funcs(name, device, dtype):
    assert json.loads(json.dumps(run(mg, name, getattr(mg, dtype), device))) == TORCH[f"{dtype}/{name}"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inside_checkpoint_under_grad_and_vmap(dtype):
    want = TORCH[f"{dtype}/grad_closing_over_w"]
    seen: dict = {}
    f = scaled(mg, seen)
    x, w = mg.tensor(X, dtype=dtype), mg.tensor(W, dtype=dtype, requires_grad=True)
    got = mg.func.grad(lambda a: mg.checkpoint.checkpoint(lambda b: (f(b, w) * b).sum(), a))(x)
    assert _values(got) == want["grad"] and seen["setup"] == want["setup"]
    assert seen["backward"] == want["backward"]  # (the replay's forward keeps the first one's needs)
    seen.clear()
    rows = mg.func.vmap(mg.func.grad(lambda a: (f(a, w) * a).sum()))(mg.stack([x, x]))
    assert [_values(r) for r in rows] == [want["grad"]] * 2  # vmap changes no level (as torch.func's)
    assert seen["setup"] == want["setup"] and seen["backward"] == want["backward"] * 2


def test_a_second_derivative_through_the_outer_level():
    # create_graph outside: the outer pass differentiates the node with w's level, twice
    seen: dict = {}
    f = scaled(mg, seen)
    x, w = mg.tensor(X, requires_grad=True), mg.tensor(W, requires_grad=True)
    out, pullback = mg.func.vjp(lambda a: f(a, w), x)
    (gw,) = mg.autograd.grad((out * out).sum(), w, create_graph=True)
    assert _values(gw) == [2 * a * a * b for a, b in zip(X, W)]
    assert seen["backward"] == [[True, True]]  # (x requires grad outside too: both, at that level)
