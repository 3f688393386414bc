"""A reverse-mode transform's argument is a leaf: a recorded in-place write into it is refused, as
``torch.func`` refuses it -- also when the caller's tensor is on a graph.

``mg.func.grad(lambda x: (x.mul_(2) * x).sum())(q)`` with ``q = p * 1`` (``p`` requires grad): the
handle on ``q`` was a recorded alias, which the write rebased, and the gradient came out with respect
to the written value: ``4 q`` where ``f(x) = sum((2x)^2)`` has ``8 x`` (and ``vjp`` of ``x.mul_(2)``
answered 1 for 2), silently.  torch 2.13 refuses: "a leaf Variable that requires grad is being used
in an in-place operation."  ``autograd.functional`` with ``create_graph=True`` still lets the function
write such an input, as torch's passes it as a view of itself (``inp.view_as(inp)``).

Expected answers: ``tests/data/make_torch_seams.py`` (torch 2.13 on the same programs).
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import programs, torch_answers

import minigrad_ckpt as mg

WRITES = programs("argument_write_programs")
PROGRAMS, run = WRITES.PROGRAMS, WRITES.run
TORCH = torch_answers("argument_writes")


def _flat(v):
    return [x for u in v for x in _flat(u)] if isinstance(v, list) else [v]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_writes_into_a_differentiated_argument_on_a_graph(name):
    got, want = run(mg, name), TORCH[name]
    if isinstance(want, dict):
        assert isinstance(got, dict), f"the engine answered {got}; torch 2.13 refuses: {want['message']}"
        assert got["error"] == want["error"] and want["message"].rstrip(".") in got["message"]
    else:
        assert not isinstance(got, dict), got
        np.testing.assert_allclose(_flat(got), _flat(want), rtol=1e-12, atol=1e-12)


def test_a_write_into_the_argument_of_a_transform_made_inside_a_functional_call_is_refused():
    """``autograd.functional``'s allowance is for its own inputs: a ``mg.func.grad`` the function
    calls still refuses a write into its argument."""
    q = mg.tensor([0.3, -0.7], dtype=mg.float64, requires_grad=True) * 1

    def f(x):
        return mg.func.grad(lambda y: (y.mul_(2) * y).sum())(x * 1)

    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        mg.autograd.functional.vjp(f, q, mg.ones(2, dtype=mg.float64), create_graph=True)
