"""The gradient of an elementwise function, found through every seam it can be reached by.

``seam_gradients(fn, inputs, dtype, device)`` gives, for ``sum(fn(*inputs))``, the gradient of
each input as ``backward`` finds it, as ``mg.func.grad`` of a closure finds it, as forward mode
finds it (``mg.func.jvp`` with a tangent of ones on that input: for an elementwise ``fn`` the
tangent out is the gradient), and as ``backward`` through ``mg.checkpoint.checkpoint`` finds it.
A test compares each against PyTorch's answer, so one wrong mode cannot hide behind another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


def _leaves(inputs: Sequence[Sequence[float]], dtype, device: str, grad: bool) -> list:
    return [mg.tensor(v, dtype=dtype, device=device, requires_grad=grad) for v in inputs]


def _host(t) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy(), dtype=np.float64)


def seam_gradients(fn: Callable, inputs: Sequence[Sequence[float]], dtype, device: str = "cpu") -> dict:
    """``{seam: [gradient of input 0, gradient of input 1, ...]}`` as float64 host arrays."""
    found = {}
    xs = _leaves(inputs, dtype, device, True)
    fn(*xs).sum().backward()
    found["backward"] = [_host(x.grad) for x in xs]
    xs = _leaves(inputs, dtype, device, True)
    mg.checkpoint.checkpoint(fn, *xs, use_reentrant=False).sum().backward()
    found["checkpoint"] = [_host(x.grad) for x in xs]
    found["func.grad"] = [_host(g) for g in
                          mg.func.grad(lambda *a: fn(*a).sum(), argnums=tuple(range(len(inputs))))(
                              *_leaves(inputs, dtype, device, False))]
    tangents = []
    for i in range(len(inputs)):
        primals = _leaves(inputs, dtype, device, False)
        tans = [mg.ones_like(p) if j == i else mg.zeros_like(p) for j, p in enumerate(primals)]
        tangents.append(_host(mg.func.jvp(fn, tuple(primals), tuple(tans))[1]))
    found["jvp"] = tangents
    return found


def assert_torch_gradients(fn: Callable, inputs: Sequence[Sequence[float]], want: Sequence[Sequence[float]],
                           dtype, device: str = "cpu") -> None:
    """Every seam's gradient equals ``want`` (PyTorch's), NaN for NaN; float32 to its rounding."""
    tol = 1e-6 if dtype == mg.float32 else 1e-14
    for seam, grads in seam_gradients(fn, inputs, dtype, device).items():
        for got, expected in zip(grads, want):
            np.testing.assert_allclose(got, expected, rtol=tol, atol=0, equal_nan=True, err_msg=seam)
