"""``mg.autograd.functional.jacobian(strategy="forward-mode")`` and ``hessian(outer_jacobian_strategy=
"forward-mode")`` of a tuple of inputs hand back lists, as torch 2.13's do (its ``_jacfwd`` returns
the lists it builds, where its reverse mode returns tuples); a single input Tensor keeps the reverse
mode's containers.  Before, both strategies gave tuples, so ``isinstance(jac, list)`` or a
comparison of containers in ported code saw another structure.  The structures below are torch
2.13's on the same calls.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)

AF = mg.autograd.functional


def _shape(result):
    """The containers of a result, its Tensors as "T": ``list[list[T, T]]``."""
    if isinstance(result, (tuple, list)):
        return f"{type(result).__name__}[{', '.join(_shape(r) for r in result)}]"
    assert isinstance(result, mg.Tensor)
    return "T"


JACOBIANS = [  # (name, function, whether the inputs are a tuple, forward mode's containers, reverse mode's)
    ("tuple in, tuple out", lambda a, b: (a * b, a.sum()), True, "list[list[T, T], list[T, T]]",
     "tuple[tuple[T, T], tuple[T, T]]"),
    ("tuple in, tensor out", lambda a, b: a * b, True, "list[T, T]", "tuple[T, T]"),
    ("1-tuple in", lambda a: a * 2, True, "list[T]", "tuple[T]"),
    ("tensor in, tuple out", lambda a: (a * 2, a.sum()), False, "tuple[T, T]", "tuple[T, T]"),
    ("tensor in, 1-tuple out", lambda a: (a * 2,), False, "tuple[T]", "tuple[T]"),
    ("tensor in, tensor out", lambda a: a * 2, False, "T", "T"),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name,fn,tupled,forward,reverse", JACOBIANS, ids=[j[0] for j in JACOBIANS])
def test_forward_mode_jacobian_containers_are_torchs(device, dtype, name, fn, tupled, forward, reverse):
    x = mg.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device)
    inputs = (x, x * 3) if tupled and "1-tuple" not in name else (x,) if tupled else x
    by_forward = AF.jacobian(fn, inputs, vectorize=True, strategy="forward-mode")
    by_reverse = AF.jacobian(fn, inputs)
    assert _shape(by_forward) == forward
    assert _shape(by_reverse) == reverse
    flat = lambda r: [t for part in r for t in (part if isinstance(part, (tuple, list)) else (part,))]  # noqa: E731
    for f, r in zip(flat(by_forward) if forward != "T" else [by_forward], flat(by_reverse) if reverse != "T" else
                    [by_reverse]):
        assert f.dtype == dtype and np.allclose(f.numpy(), r.numpy())


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_forward_over_reverse_hessian_containers_are_torchs(device):
    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, device=device)
    pair = AF.hessian(lambda a, b: ((a * b).sum()) ** 2, (x, x * 3), vectorize=True,
                      outer_jacobian_strategy="forward-mode")
    assert _shape(pair) == "list[list[T, T], list[T, T]]"
    one = AF.hessian(lambda a: (a ** 3).sum(), (x,), vectorize=True, outer_jacobian_strategy="forward-mode")
    assert _shape(one) == "list[list[T]]"
    assert one[0][0].tolist() == AF.hessian(lambda a: (a ** 3).sum(), x).tolist()
    single = AF.hessian(lambda a: (a ** 3).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode")
    assert _shape(single) == "T"
    assert _shape(AF.hessian(lambda a, b: ((a * b).sum()) ** 2, (x, x * 3))) == "tuple[tuple[T, T], tuple[T, T]]"
