"""Which saved inputs may change between forward and backward: a battery over every op in the op database.

The engine refuses a backward whose saved input was written in place after forward (PyTorch's
"modified by an inplace operation"), except an input no *needed* gradient reads: ``Op.grad_reads``
declares which inputs each gradient reads (``w`` in ``x @ w`` when only ``w`` needs a gradient,
whose gradient ``x.T @ g`` reads ``x`` only).  A declaration that leaves out an input its gradient
does read would let backward answer from the written value: a wrong gradient, silently.  The same
holds for what else decides which inputs are checked -- ``save_inputs``, ``reads_beside_number``,
``drops_beside_constant``.

So for each op, each sample the op database draws, and each subset of the differentiable inputs
that needs a gradient: run forward afresh, write a perturbation in place (under ``no_grad``) into one
tensor operand, run backward.  Either backward refuses with the version error, or every gradient is
*bitwise* the one the same call gives with no write -- whichever operand was written, declared or
not.  And for an op that declares ``grad_reads``, the operands refused are exactly the declared ones:
a write into an input a needed gradient reads is refused, a write into one none reads is not
(where every input needs its gradient, every saved one is checked).

The perturbation moves each value to its neighbour's place (a roll of the flattened array), so it
stays in the op's domain -- an index stays in range, a positive input positive -- and an element
that would not change is nudged by a few units in the last place.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import Tensor
from minigrad_ckpt.ops import registry
from minigrad_ckpt.tape import SAVED_VALUE_MODIFIED, apply

from .op_db import Sample, op_db

OPS = sorted(n for n, c in registry.items()
             if c.__module__.startswith("minigrad_ckpt.") and c.differentiable
             and n in op_db and not op_db[n].forward_only)
MAX_SIZE = 12  # each sample runs a backward per (subset, operand): keep inputs small


def perturbed(a: np.ndarray) -> np.ndarray:
    """``a``'s values moved one place along its flattened order; where that changes nothing (a
    constant or one-element array), a float nudged up by a few units in the last place."""
    flat = a.reshape(-1)
    moved = np.roll(flat, 1)
    if a.dtype.kind in "fc":
        moved = np.where(moved == flat, flat * (1 + 2.0 ** -20) + 2.0 ** -40, moved).astype(a.dtype)
    return moved.reshape(a.shape)


def needed_subsets(diff: list[int]) -> list[tuple[int, ...]]:
    """The sets of inputs that need a gradient: every non-empty subset of up to three differentiable
    inputs; of more (an LSTM step), each one alone, all but each one, and all."""
    if len(diff) <= 3:
        return [s for k in range(1, len(diff) + 1) for s in itertools.combinations(diff, k)]
    alone = [(i,) for i in diff]
    all_but = [tuple(j for j in diff if j != i) for i in diff]
    return alone + all_but + [tuple(diff)]


def gradients(sample: Sample, needed: tuple[int, ...], g: np.ndarray | None,
              write_into: int | None = None) -> list[np.ndarray | None]:
    """The gradients of ``<g, op(inputs)>`` in the ``needed`` inputs (a fresh forward), after a write
    into input ``write_into`` between forward and backward."""
    args: list[Any] = [Tensor.constant(v.copy()) if isinstance(v, np.ndarray) else v for v in sample.inputs]
    wrt = [args[i].requires_grad_() for i in needed]
    mg.manual_seed(0)  # (a random op draws the same numbers each time)
    out = apply(sample.op, *args)
    if write_into is not None:
        with mg.no_grad():
            args[write_into].copy_(Tensor.constant(perturbed(sample.inputs[write_into])))
    grads = mg.autograd.grad(out, wrt, grad_outputs=Tensor.constant(g.astype(out.dtype)), allow_unused=True)
    return [None if r is None else np.ascontiguousarray(r.numpy()) for r in grads]


def upstream(sample: Sample) -> np.ndarray:
    """A fixed upstream gradient of the output's shape: distinct values, no zeros."""
    mg.manual_seed(0)
    shape = apply(sample.op, *[Tensor.constant(v) if isinstance(v, np.ndarray) else v
                               for v in sample.inputs]).shape
    rng = np.random.default_rng(0)
    return rng.integers(1, 9, size=shape) / 8 * rng.choice([-1, 1], size=shape)


def bitwise_equal(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def refused_writes(sample: Sample, needed: tuple[int, ...], g: np.ndarray) -> set[int]:
    """The tensor operands whose write backward refuses; asserts every other write leaves every
    gradient as it was."""
    want = gradients(sample, needed, g)
    refused = set()
    for j, v in enumerate(sample.inputs):
        if not isinstance(v, np.ndarray):
            continue
        try:
            got = gradients(sample, needed, g, write_into=j)
        except RuntimeError as e:
            if SAVED_VALUE_MODIFIED not in str(e):
                raise
            refused.add(j)
            continue
        for i, a, b in zip(needed, got, want):
            assert bitwise_equal(a, b), (
                f"{type(sample.op).__name__}: with gradients needed for inputs {needed}, a write into input "
                f"{j} between forward and backward was not refused and changed input {i}'s gradient -- "
                f"backward reads input {j}: declare it (Op.grad_reads / save_inputs)\n{sample!r}")
    return refused


def declared_refusals(sample: Sample, needed: tuple[int, ...]) -> set[int]:
    """The tensor operands ``grad_reads`` says are read by the gradients ``needed`` -- where every input
    needs its gradient, the saved ones, and of two or more inputs only those some gradient reads
    (``Op.read_by_some_gradient``: ``Linear``'s bias may change), as the tape checks then."""
    op, n = sample.op, len(sample.inputs)
    tensors = {j for j, v in enumerate(sample.inputs) if isinstance(v, np.ndarray)}
    read = {j for i in needed for j in op.grad_reads[i]} & tensors
    if tensors == set(needed) == set(range(n)):
        which = type(op).save_inputs
        saved = tensors if which is True else set() if which is False else tensors & set(which)
        return saved if n == 1 else saved & read
    return read


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_a_write_between_forward_and_backward_is_refused_or_changes_no_gradient(name: str, data: Any) -> None:
    sample = data.draw(op_db[name].samples("float64", grad=True, max_size=MAX_SIZE), label="sample")
    diff = [i for i, (v, d) in enumerate(zip(sample.inputs, sample.diff))
            if d and isinstance(v, np.ndarray) and v.dtype.kind in "fc"]
    if not diff:
        return
    g = upstream(sample)
    for needed in needed_subsets(diff):
        refused = refused_writes(sample, needed, g)
        if sample.op.grad_reads is not None:
            assert refused == declared_refusals(sample, needed), (
                f"{name}: with gradients needed for inputs {needed}, writes into {sorted(refused)} were "
                f"refused, grad_reads declares {sorted(declared_refusals(sample, needed))}\n{sample!r}")


def test_the_battery_covers_every_op_that_declares_grad_reads() -> None:
    declaring = sorted(n for n, c in registry.items()
                       if c.__module__.startswith("minigrad_ckpt.") and c.grad_reads is not None)
    assert declaring and set(declaring) <= set(OPS), sorted(set(declaring) - set(OPS))
