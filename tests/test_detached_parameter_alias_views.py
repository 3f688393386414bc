"""A recorded write through a view of a detached alias of a leaf that requires grad moves the alias's
history, as a write through a view of any other tensor does.

``b`` a leaf that requires grad, ``d = b.detach(); d.select(1, 2).mul_(a.select(1, 2).cos())``: the
engine wrote the values and left ``d`` without history (``requires_grad`` False, and ``(d * 1).sum()
.backward()`` refused "does not require grad"; with other terms in the loss, ``a.grad`` silently missed
the write's part), because the views of a parameter's memory are not listed and the alias's views were
not either.  torch 2.13 gives ``d`` the history (``CopySlices``): ``a.grad = [[0, 0, -0.1411], [0, 0,
0.1397]]``, the same as for a ``d`` that is a plain tensor -- which is the reference here: each program
runs on a detached alias of a parameter and on a plain copy, and must answer the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
B = [[0.5, 0.25, 1.0], [2.0, 1.0, 0.5]]


def _through_a_view(a, d):
    d.select(1, 2).mul_(a.select(1, 2).cos())
    return d


def _view_made_before(a, d):
    v = d[0]
    d[:, 1:].add_(a[:, :2] * 0.5)
    return v * d.sum(0)  # v saw the write: it follows d's new history


def _setitem_of_a_view(a, d):
    w = d.t()
    w[1] = a[:, 0].exp()
    return d * w.t()


def _two_aliases(a, d):
    e = d.view(-1)
    e[::2].copy_(a.reshape(-1)[1::2])
    return d.tanh() + e.view(2, 3)


PROGRAMS = [_through_a_view, _view_made_before, _setitem_of_a_view, _two_aliases]
ALIASES = {"detach": lambda b: b.detach(), "data": lambda b: b.data, "detach of a view": lambda b: b.detach()[:]}


def _run(program, make_d, device, dtype, checkpointed=False):
    a = mg.tensor(A, dtype=dtype, device=device, requires_grad=True)
    b = mg.tensor(B, dtype=dtype, device=device, requires_grad=True)
    d = make_d(b)
    if checkpointed:
        out = mg.checkpoint.checkpoint(lambda x: program(x, d) * x, a)
    else:
        out = program(a, d)
    assert out.requires_grad and d.requires_grad
    (out * mg.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=dtype, device=device)).sum().backward()
    return out.detach().cpu().numpy(), d.detach().cpu().numpy(), a.grad.cpu().numpy(), b.grad


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("alias", sorted(ALIASES))
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_a_write_through_a_view_of_a_detached_alias_is_recorded(program, alias, device, dtype):
    got = _run(program, ALIASES[alias], device, dtype)
    want = _run(program, lambda b: mg.tensor(B, dtype=dtype, device=device), device, dtype)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
    assert got[3] is None  # the parameter's history is not the alias's (torch: b.grad None)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_inside_a_checkpoint(program):
    got = _run(program, ALIASES["detach"], "cpu", mg.float64, checkpointed=True)
    want = _run(program, lambda b: mg.tensor(B, dtype=mg.float64), "cpu", mg.float64, checkpointed=True)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_the_torch_answer_of_the_reproducer():
    a = mg.tensor(A, dtype=mg.float64, requires_grad=True)
    d = mg.tensor(B, dtype=mg.float64, requires_grad=True).detach()
    d.select(1, 2).mul_(a.select(1, 2).cos())
    (d * 1).sum().backward()
    # torch 2.13: [[0, 0, -0.14112000806], [0, 0, 0.13970774909]] (-sin(3) * 1, -sin(6) * 0.5)
    np.testing.assert_allclose(a.grad.numpy(), [[0, 0, -np.sin(3.0)], [0, 0, -np.sin(6.0) * 0.5]], rtol=1e-12)
