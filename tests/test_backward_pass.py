"""The backward pass as an object: driven node by node it gives what ``backward()``
gives; the op-contract check is a per-class counter; the no-copy hand-over of a
gradient view trusts only reference counts measured on the running interpreter."""

from __future__ import annotations

import ast
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.backward import BackwardPass
from minigrad_ckpt.ops import Op, registry
from minigrad_ckpt.ops.base import CONTRACT_CHECKS
from minigrad_ckpt.tape import FREED, apply

bw = sys.modules["minigrad_ckpt.backward"]  # mg.backward is the function; the module by its full name


def _leaf(values) -> mg.Tensor:
    return mg.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def _model(x, w):
    h = mg.tanh(x * w)
    return (h * h + x).sum()


def test_stepping_the_pass_node_by_node_gives_what_backward_gives():
    x, w = _leaf([0.5, -1.0, 2.0]), _leaf([1.5, 0.25, -0.5])
    _model(x, w).backward()
    expected = (x.grad.numpy(), w.grad.numpy())

    x2, w2 = _leaf([0.5, -1.0, 2.0]), _leaf([1.5, 0.25, -0.5])
    loss = _model(x2, w2)
    bp = BackwardPass([loss])
    seqs = []
    bp.begin()
    try:
        while bp.heap:
            node = bp.step()
            seqs.append(node.seq)
            # released as soon as its step is done (a node that saved nothing keeps its empty slots)
            assert node.saved is FREED or all(v is None for v in node.saved)
        bp.close_segments()
    finally:
        bp.end()
    found = bp.results()
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == len(mg.tape.walk(loss))
    np.testing.assert_array_equal(found[id(x2)], expected[0])
    np.testing.assert_array_equal(found[id(w2)], expected[1])
    assert mg.is_grad_enabled()  # end() restored grad mode


def test_a_pass_that_fails_midway_restores_grad_mode():
    x = _leaf([1.0, 2.0])
    loss = (x * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    assert mg.is_grad_enabled()


class _Counted(Op):
    """Returns the wrong number of gradients from its fifth backward call on."""

    save_inputs = False
    calls = 0

    def forward(self, xp, x):
        return x + 0

    def backward(self, xp, g, out, x):
        type(self).calls += 1
        return g if type(self).calls <= CONTRACT_CHECKS else (g, g)

    def jvp(self, xp, tangents, out, x):
        return tangents[0]


registry.pop("_Counted", None)  # defining an op registers it; the registry keeps the package's ops only


@pytest.fixture
def counted():
    _Counted.calls = 0
    _Counted.contract_checks_left = CONTRACT_CHECKS
    yield _Counted
    registry.pop("_Counted", None)


def test_the_contract_check_is_a_per_class_counter_and_the_method_is_never_replaced(counted):
    original = counted.__dict__["backward"]
    for i in range(CONTRACT_CHECKS):
        assert counted.contract_checks_left == CONTRACT_CHECKS - i
        x = _leaf([1.0, 2.0])
        apply(counted(), x).sum().backward()
    assert counted.contract_checks_left == 0
    assert counted.__dict__["backward"] is original  # no wrapper came or went
    # checked calls are over: a later broken result is no longer validated (the
    # engine reads the counter, nothing else), which is what makes checking free
    x = _leaf([1.0, 2.0])
    apply(counted(), x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


def test_a_broken_op_is_caught_by_its_first_checked_call(counted):
    counted.calls = CONTRACT_CHECKS  # its first backward call already returns two gradients
    x = _leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"_Counted.backward returned 2 gradients for 1 input"):
        apply(counted(), x).sum().backward()
    assert counted.contract_checks_left == CONTRACT_CHECKS - 1


def test_a_subclass_counts_its_own_checks(counted):
    class Child(counted):
        pass

    try:
        assert Child.contract_checks_left == CONTRACT_CHECKS
        x = _leaf([1.0])
        apply(Child(), x).sum().backward()
        assert Child.contract_checks_left == CONTRACT_CHECKS - 1
        assert counted.contract_checks_left == CONTRACT_CHECKS
    finally:
        registry.pop("Child", None)


def _free_threaded() -> bool:
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info >= (3, 14) or _free_threaded(),
                    reason="the no-copy hand-over is proven on CPython 3.10-3.13 with the GIL; elsewhere "
                           "the measurement decides (and every view is copied where it cannot tell)")
def test_the_measured_counts_recognise_a_sole_view_on_the_tested_versions():
    assert bw._SOLE_VIEW_COUNTS is not None
    found = {1: np.zeros((3, 2)).T}
    assert bw._sole_views(found) == {id(found[1])}
    kept = found[1]
    assert bw._sole_views(found) == set()  # one more reference to the view: shared
    buffer = kept.base
    del kept
    assert bw._sole_views(found) == set()  # one more reference to the buffer: shared
    del buffer
    assert bw._sole_views(found) == {id(found[1])}


def test_where_counting_cannot_be_trusted_every_view_is_copied(monkeypatch):
    monkeypatch.setattr(bw, "_SOLE_VIEW_COUNTS", None)
    rng = np.random.default_rng(0)
    w = mg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    h = mg.tensor(rng.standard_normal((5, 3)))
    mg.tanh(h @ w.T).sum().backward()
    expected = (1 - np.tanh(h.numpy() @ w.numpy().T) ** 2).T @ h.numpy()
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)
    assert w.grad._data.base is None  # a copy of the view, as everywhere the counts are unknown


_ENGINE = ["tape.py", "backward.py", "ops"]


def test_no_function_of_the_engine_is_longer_than_a_screen():
    root = Path(mg.__file__).parent
    files = [p for name in _ENGINE for p in (sorted((root / name).glob("*.py")) if (root / name).is_dir()
                                             else [root / name])]
    long = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > 60:
                    long.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, "functions over 60 lines:\n" + "\n".join(long)
