"""Shared fixtures for the example-based tests."""

from __future__ import annotations

import gc
import importlib.util
import os
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import stale_writes as _stale_writes
from minigrad_ckpt.grad_mode import state as _grad_state

REPO = Path(__file__).resolve().parent.parent

# Child processes (the CLI, the examples, the crash tests) must run the code
# under test -- this checkout -- not an installed copy of the package, or none.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``@pytest.mark.msgpack`` tests, saying why, where msgpack is not installed.

    msgpack is a runtime dependency, but only saving and loading snapshots
    need it; without it the rest of the engine works and is still tested.
    """
    if importlib.util.find_spec("msgpack") is not None:
        return
    skip = pytest.mark.skip(reason="msgpack (a runtime dependency) is not installed")
    for item in items:
        if "msgpack" in item.keywords:
            item.add_marker(skip)


def collect_and_freeze() -> None:
    """A full collection, then what survived it moves out of the collector's sight (``gc.freeze``).

    What survives lives on (imports, caches, Hypothesis' state, earlier tests' module fixtures), and a
    full collection walks all of it: late in the suite that took about a second, and the checkpoint
    tests ask for one each (a checkpointed graph is a cycle).  Frozen, the next collection walks only
    what later tests made -- and everything a test makes is made after the freeze before it."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def float64_default():
    """The default dtype float64 for the test (PyTorch's ``torch.set_default_dtype(torch.float64)``)."""
    before = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    yield
    mg.set_default_dtype(before)


@pytest.fixture(autouse=True)
def _engine_state_restored():
    """Fail (and repair) a test that leaks grad mode or the default dtype."""
    dtype = mg.get_default_dtype()
    yield
    leaked = []
    if not mg.is_grad_enabled():
        _grad_state.enabled = True
        leaked.append("grad mode left disabled")
    if mg.get_default_dtype() != dtype:
        mg.set_default_dtype(dtype)
        leaked.append("default dtype changed")
    if _stale_writes._watched:
        # A checkpointed graph is a reference cycle (nodes <-> segment): one a test dropped
        # waits for the collector, its kept values watched for writes meanwhile (a write guard
        # installed, which tests of "writes pay nothing" would see)
        collect_and_freeze()
    if leaked:
        pytest.fail("test leaked engine state: " + ", ".join(leaked))
