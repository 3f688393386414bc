"""One check for a composite operator, in every mode: ``check_everywhere(fn, *arrays)``.

It runs ``gradcheck`` (reverse and forward mode against central differences),
``gradgradcheck`` (second derivatives, both modes) and the same program on the strict
stand-in device (values and gradients equal to the CPU's), for ``fn`` of float64 Tensors.
Non-float arrays (indices, masks) are passed as constants.
"""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.testing import gradcheck, gradgradcheck


def _tensors(arrays, device="cpu", grad=True):
    return [mg.tensor(a, device=device, requires_grad=grad and a.dtype.kind == "f") for a in arrays]


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def check_everywhere(fn, *arrays, second_order: bool = True, strict: bool = True) -> None:
    arrays = [np.asarray(a) for a in arrays]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]

    def of_floats(*xs):
        full = _tensors(arrays, grad=False)
        for i, x in zip(floats, xs):
            full[i] = x
        return _first(fn(*full))

    inputs = [t for t in _tensors(arrays) if t.requires_grad]
    assert gradcheck(of_floats, inputs, modes=("rev", "fwd"))
    if second_order:
        assert gradgradcheck(of_floats, inputs, modes=("rev", "fwd"))
    if strict:
        cpu, dev = _tensors(arrays), _tensors(arrays, "strict")
        outs = [_first(fn(*ts)) for ts in (cpu, dev)]
        np.testing.assert_array_equal(outs[1].numpy(), outs[0].numpy())
        if outs[0].requires_grad:
            w = np.linspace(-1, 1, outs[0].size).reshape(outs[0].shape)
            gs = [mg.grad((o * mg.tensor(w, device=o.device)).sum(), [t for t in ts if t.requires_grad],
                          allow_unused=True) for o, ts in zip(outs, (cpu, dev))]
            for a, b in zip(*gs):
                assert (a is None) == (b is None)
                if a is not None:
                    np.testing.assert_array_equal(b.numpy(), a.numpy())
