"""A buffer held by holders of two categories counts once, under the one that holds it longest.

A gradient in flight is ``"grad"``; a ``create_graph=True`` pass records nodes, and one of them may
save that same array (the gradient ``Add`` hands both its inputs, or the root's ones, which a
``Mul`` of the recorded backward keeps) while another node still waits for it.  The ledger used to
count a buffer under the category of its first holder for as long as anyone held it: after the
pass the saved gradient stayed in ``"grad"`` -- ``live("grad")`` above zero with nothing in flight,
``live("saved")`` short of what the tape holds by as much, and ``peak("saved")`` below it.

The truth here is computed apart from the ledger: the distinct buffers the live graph's nodes hold
in their saved slots (parameters left out, the ledger's rule), found by walking the graph.
"""

from __future__ import annotations

import gc

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.memory import _base, saved_arrays

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict", mg.float32)]


def tape_bytes(*tensors: mg.Tensor) -> int:
    """The bytes of the distinct buffers the nodes behind ``tensors`` keep for backward, and the
    values their checkpoint segments keep to replay from."""
    arrays = []
    for node in mg.tape.walk(*tensors):
        if type(node.saved) is tuple:
            arrays += saved_arrays(node)
        segment = node.segment
        while segment is not None:
            arrays += [k.value for k in segment.kept if not k.param]
            segment = segment.parent
    return sum({id(_base(a)): _base(a).nbytes for a in arrays}.values())


def shared_gradient(x: mg.Tensor) -> mg.Tensor:
    h = mg.tanh(x)
    return mg.tanh(mg.tanh(h) + mg.sin(h)).sum()  # Add sends one gradient array to both branches


def root_ones(x: mg.Tensor) -> mg.Tensor:
    return (mg.tanh(x) ** 2).sum() + (x * x).sum()  # the root's ones, broadcast, saved by a Mul


def in_a_checkpoint(x: mg.Tensor) -> mg.Tensor:
    return ck.checkpoint(shared_gradient, x * 1.0, use_reentrant=False)


@pytest.mark.parametrize("program", [shared_gradient, root_ones, in_a_checkpoint], ids=lambda f: f.__name__)
@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_saved_gradient_counts_as_saved_after_a_create_graph_pass(program, device, dtype):
    x = mg.randn(6, 5, dtype=dtype, device=device, requires_grad=True)
    gc.collect()
    with mg.memory.track() as ledger:
        loss = program(x)
        (gx,) = mg.grad(loss, [x], create_graph=True)
        del loss
        gc.collect()
        assert ledger.live("grad") == 0  # nothing is in flight after the pass
        assert ledger.live("saved") == tape_bytes(gx) > 0
        assert ledger.peak("saved") >= ledger.live("saved")
        (gx * gx).sum().backward()
        del gx
        gc.collect()
        assert ledger.live("total") == 0


def test_a_buffer_moves_to_the_category_that_still_holds_it():
    # the ledger's own bookkeeping, holder by holder: saved outranks grad while both hold it
    a = mg.randn(4, 4)._data
    with mg.memory.track() as ledger:
        ledger.hold([a], "grad")
        assert (ledger.live("saved"), ledger.live("grad")) == (0, a.nbytes)
        ledger.hold([a[1:]], "saved")  # a view: the same buffer, counted once
        assert (ledger.live("saved"), ledger.live("grad")) == (a.nbytes, 0)
        ledger.release([a], category="grad")
        assert (ledger.live("saved"), ledger.live("grad")) == (a.nbytes, 0)
        ledger.hold([a], "grad")
        ledger.release([a])
        assert (ledger.live("saved"), ledger.live("grad")) == (0, a.nbytes)
        ledger.release([a], category="grad")
        assert ledger.live("total") == 0 and ledger.released_bytes == a.nbytes
