"""``t.data = v`` (and ``set_``) on a value a checkpointed function computed.

The tensor keeps its history and holds the new array: an op after it reads the new values, and its
node's backward still comes.  The replay recomputed the node and handed the op the old values (a
silently different gradient), and once a checkpoint let go of what the function dropped, the old
array's death read as the node's: a backward through the tensor found it freed.  Gradients are
bitwise those of the run without checkpointing (PyTorch's meaning of ``.data =``).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def returned_after_data_set(t):
    h = t.exp()
    h.data = h.data * 2.0  # another array, the same history
    return h


def read_after_data_set(t):
    h = t.exp()
    h.data = mg.zeros(t.shape, dtype=t.dtype, device=t.device)
    return h * t + h.sin()


def read_after_set_(t):
    h = t * 2.0  # (a product by a number saves nothing: set_ bumps the version)
    with mg.no_grad():
        h.set_(t * 3.0)
    return (h * t).exp()


RUNS = {"checkpoint": lambda fn: lambda x: ck.checkpoint(fn, x),
        "nested": lambda fn: lambda x: ck.checkpoint(lambda a: ck.checkpoint(fn, a) * 1.0, x),
        "save_everything": lambda fn: ck.remat(fn, ck.save_everything)}
PLAIN = {"checkpoint": lambda fn: fn, "nested": lambda fn: lambda x: fn(x) * 1.0, "save_everything": lambda fn: fn}


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("fn", [returned_after_data_set, read_after_data_set, read_after_set_])
def test_a_value_given_another_array_inside_a_checkpoint(fn, run, device, dtype):
    found = []
    for wrap in (PLAIN[run], RUNS[run]):
        x = mg.tensor([0.1, 0.2, -0.7], dtype=dtype, device=device, requires_grad=True)
        wrap(fn)(x).sum().backward()
        found.append(mg.backend.to_host(x.grad._data))
    assert np.array_equal(found[0], found[1])
