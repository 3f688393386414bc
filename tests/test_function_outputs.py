"""A custom ``autograd.Function``'s outputs, as torch 2.13's: several outputs share the call's one node
(``y1.grad_fn is y2.grad_fn``, named ``SplitBackward``, a later op's ``next_functions`` pointing at
``(node, k)``), and a tensor ``forward`` returns twice (``return y, z, y``) is handed out once -- the same
object at both positions, its gradient received at the last, zeros (or None) at the others -- except under
``mg.func`` transforms, which keep the positions apart as ``torch.func`` does.

Expected answers: ``tests/data/torch_function_outputs.json``, written by
``tests/data/make_torch_function_outputs.py``, whose scenarios run here on the engine.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_torch_function_outputs import INPUT, SCENARIOS, _repeated, _values  # noqa: E402

TORCH = json.loads((Path(__file__).parent / "data" / "torch_function_outputs.json").read_text())
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _plain(data):  # JSON's lists for tuples
    return json.loads(json.dumps(data))


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_outputs_of_a_function_are_torchs(name, device, dtype):
    x = mg.tensor(INPUT, dtype=dtype, device=device, requires_grad=True)
    assert _plain(SCENARIOS[name](mg, x)) == TORCH[f"{dtype}/{name}"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_repeated_output_inside_checkpoint(dtype):
    want = TORCH[f"{dtype}/repeated"]["True"]
    fn, seen = _repeated(mg, True)
    x = mg.tensor(INPUT, dtype=dtype, requires_grad=True)
    a, b, c = mg.checkpoint.checkpoint(fn.apply, x)
    assert a is c and a.grad_fn is b.grad_fn
    (a.sum() * 10 + b.sum()).backward()
    assert seen[-1] == want["received"] and _values(x.grad) == want["grad"]


def test_grad_fn_shows_the_shared_node_while_the_tape_keeps_each_piece():
    # the node's own hooks and saved values stay where they were: only what grad_fn shows changed
    fn, _ = _repeated(mg, True)
    x = mg.tensor(INPUT, requires_grad=True)
    a, b, c = fn.apply(x)
    assert a.grad_fn.name() == "RepeatedBackward" and a._node is not a.grad_fn
    assert [k for _, k in (a + b).grad_fn.next_functions] == [2, 1]


class SinCosUnmaterialized(mg.autograd.Function):
    """Two outputs, both saved, and ``set_materialize_grads(False)``: backward gets None for an output
    no gradient reached."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        s, c = x.sin(), x.cos()
        ctx.save_for_backward(s, c)
        return s, c

    @staticmethod
    def backward(ctx, gs, gc):
        s, c = ctx.saved_tensors
        return sum(g * d for g, d in ((gs, c), (gc, -s)) if g is not None)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("checkpointed", [False, True])
def test_saved_outputs_of_an_unmaterialized_function_give_second_derivatives(device, dtype, checkpointed):
    # the second pass reaches the node through the saved outputs backward read, not the pieces handed out:
    # it handed backward None for both, and the second derivative was wrong (torch 2.13: the formula's)
    import numpy as np

    x = mg.tensor([0.3, 1.1], dtype=dtype, device=device, requires_grad=True)
    run = (lambda t: mg.checkpoint.checkpoint(SinCosUnmaterialized.apply, t)) if checkpointed \
        else SinCosUnmaterialized.apply
    s, c = run(x)
    (g,) = mg.autograd.grad((s * s + 2 * c).sum(), x, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum() + s.sum(), x)
    v = np.array([0.3, 1.1])
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(gg.cpu().numpy(), 2 * np.cos(2 * v) - 2 * np.cos(v) + np.cos(v), rtol=tol)
