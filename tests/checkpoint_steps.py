"""One measured training step for the checkpoint tests: the ledger's peak, the gradients of the
input and the weight, and the op forwards the replays ran."""

from __future__ import annotations

import contextlib
import gc
import warnings
from collections.abc import Iterator

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck


def step(fn, x, w):
    """Backward from ``fn(x).sum()``: ``(peak saved bytes, [x.grad, w.grad] on the host, replayed ops)``."""
    x.grad = w.grad = None
    ck.reset_statistics()
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        fn(x).sum().backward()
    grads = [mg.backend.to_host(t.grad._data).copy() for t in (x, w)]
    return ledger.peak("saved"), grads, ck.statistics().recomputed_ops


def plan_step(layers, x, plan):
    """Backward from ``run_plan(layers, plan, x).sum()``: ``(peak saved bytes, the layers' parameters'
    gradients on the host, replayed ops)``, dropout drawing the same keys each time."""
    for layer in layers:
        for p in layer.parameters():
            p.grad = None
    mg.manual_seed(7)
    ck.reset_statistics()
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        ck.run_plan(layers, plan, x).sum().backward()
    grads = [mg.backend.to_host(p.grad._data).copy() for layer in layers for p in layer.parameters()]
    return ledger.peak("saved"), grads, ck.statistics().recomputed_ops


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The garbage collector off inside the block (and as it was after): what is released dies when
    its last reference goes, so a test sees what reference counting frees -- a graph freed only by
    the collector (a reference cycle) stays."""
    was = gc.isenabled()
    gc.collect()  # (what earlier tests left is not this test's)
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.fixture
def collector_off():
    """The garbage collector off: cycles are collected where the test says (gc.collect()), not at
    random, and what is released dies when its last reference goes -- the same moment in a run with
    checkpointing and one without."""
    gc.collect()
    gc.freeze()  # the survivors out of later collections' walk (see conftest.collect_and_freeze)
    with gc_paused():
        yield
