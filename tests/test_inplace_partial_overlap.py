"""An in-place write whose operand shares part of the written memory is PyTorch's RuntimeError.

``x[1:].add_(x[:-1])``: NumPy reads the operand as if it copied it first, a GPU's kernel reads and
writes the same memory at once in no set order (CuPy checks nothing), so the engine answered one
thing on the CPU and another, from run to run, on a GPU -- where PyTorch 2.13 refuses (its
``assert_no_partial_overlap``: "some elements of the input tensor and the written-to tensor refer
to a single memory location").  The same memory in the same layout (``x.mul_(x)``), memory apart,
and layouts PyTorch does not decide (a slice of columns: not dense) write as before.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

REFUSED = [  # each one refused by torch 2.13 with the message below
    lambda x: x[1:].add_(x[:-1]),
    lambda x: x[:2].mul_(x[1:]),
    lambda x: x.add_(x[0]),
    lambda x: x[0].div_(x[0, 0]),          # normalizing by a first element: a 0-d operand inside the row
    lambda x: x.view(-1)[1:4].sub_(x.view(-1)[0:3]),
    lambda x: x.copy_(x.T),
    lambda x: x[1:].copy_(x[:-1]),
    lambda x: x.__setitem__(slice(1, None), x[:-1]),
]
# (statement, torch 2.13's result from arange(9.).reshape(3, 3))
ALLOWED = [
    (lambda x: x.mul_(x), [[0, 1, 4], [9, 16, 25], [36, 49, 64]]),
    (lambda x: x[0].add_(x[0]), [[0, 2, 4], [3, 4, 5], [6, 7, 8]]),
    (lambda x: x[1:].add_(x[0]), [[0, 1, 2], [3, 5, 7], [6, 8, 10]]),
    (lambda x: x.copy_(x), [[0, 1, 2], [3, 4, 5], [6, 7, 8]]),
    (lambda x: x.__setitem__(slice(1, None), x[0]), [[0, 1, 2], [0, 1, 2], [0, 1, 2]]),
    (lambda x: x.__setitem__(0, x[0, 0]), [[0, 0, 0], [3, 4, 5], [6, 7, 8]]),  # a 0-d value: PyTorch's fill_
    (lambda x: x.fill_(x[2, 2]), [[8] * 3] * 3),
    (lambda x: x[1:].add_(x[:-1].flip(0)), [[0, 1, 2], [6, 8, 10], [6, 8, 10]]),  # not dense: not decided
]


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("write", range(len(REFUSED)))
def test_a_write_reading_part_of_its_own_destination_is_refused(device, write):
    x = mg.arange(9.0, device=device).reshape(3, 3)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to "
                                           "a single memory location"):
        REFUSED[write](x)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]  # nothing written


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("write", range(len(ALLOWED)))
def test_writes_pytorch_allows_beside_them(device, write):
    x = mg.arange(9.0, device=device).reshape(3, 3)
    statement, want = ALLOWED[write]
    statement(x)
    assert x.tolist() == want


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_recorded_write_is_refused_too(device):
    w = mg.arange(6.0, device=device, requires_grad=True)
    h = w * 2
    with pytest.raises(RuntimeError, match="single memory location"):
        h[1:].add_(h[:-1])
    (h[1:] + h[:-1]).sum().backward()  # the graph is as before the refusal
    assert w.grad.tolist() == [2, 4, 4, 4, 4, 2]
