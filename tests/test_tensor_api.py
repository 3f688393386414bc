"""Tensor's fields are the core's business: outer layers use a small public API.

``Tensor.constant`` wraps an array as a constant, the in-place methods under
``no_grad`` update state and restamp its version, ``Tensor.set_`` swaps the
array behind a tensor that must keep its identity, and ``Tensor.version()``
reads the stamp.  No module above the engine writes the underscored fields.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn, optim

PACKAGE = Path(mg.__file__).parent
FIELDS = {"_data", "_device", "_node", "_requires_grad", "_version_box"}
ENGINE_ONLY = {"_wrap", "_bump_version"}
# The engine: the Tensor itself, the tape and the backward pass that build Tensors and nodes, the
# creation functions and the public math (they build constants with _wrap),
# forward mode (it builds dual tensors beside the tape), the tape decoder
# (it rebuilds a graph), and custom autograd functions (a user's forward recorded as
# one node: its outputs get that node, their version boxes, and requires_grad).
CORE = ("tensor.py", "tape.py", "backward.py", "backward_steps.py", "creation.py", "functional/", "func/",
        "snapshot/tape_codec.py", "autograd/function.py")


def _offences(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute) and sub.attr in FIELDS and isinstance(sub.ctx, ast.Store):
                        found.append(f"line {node.lineno}: writes .{sub.attr}")
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Attribute) and node.value.attr in FIELDS:
                found.append(f"line {node.lineno}: writes into .{node.value.attr}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ENGINE_ONLY:
            if not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls")):
                found.append(f"line {node.lineno}: calls .{node.func.attr}()")
    return found


def test_no_outer_layer_writes_tensor_fields():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(CORE) or rel in ("backend.py", "testing/strict.py"):  # no Tensors there: their
            continue  # own classes' fields (a CuPy device, a strict array)
        bad += [f"minigrad_ckpt/{rel} {o}" for o in _offences(path.read_text(encoding="utf-8"))]
    assert not bad, ("outside the core, use Tensor.constant, the in-place API under no_grad, "
                     "Tensor.set_ and Tensor.version():\n" + "\n".join(bad))


def test_the_scan_catches_each_kind_of_offence():
    src = "p._data -= 1\np._version_box = [0]\np._data[...] = 0\nt = Tensor._wrap(a, None, d)\np._bump_version()\n"
    assert len(_offences(src)) == 5
    assert _offences("x = p._data\nself._bump_version()\nq.data[...] = 1\n") == []


def test_constant_wraps_without_copy_on_the_arrays_device():
    a = np.arange(3.0)
    t = mg.Tensor.constant(a)
    assert t.device == "cpu" and not t.requires_grad and t.is_leaf
    a[0] = 7.0
    assert t.tolist() == [7.0, 1.0, 2.0]
    s = mg.device("strict")
    u = mg.Tensor.constant(s.xp.asarray(a), "strict")
    assert u.device is s


def test_in_place_updates_under_no_grad_restamp_the_version():
    p = nn.Parameter(mg.ones(3))
    v0 = p.version()
    with pytest.raises(RuntimeError, match="no_grad"):
        p.sub_(1.0)
    with mg.no_grad():
        p.sub_(0.5)
    assert p.version() > v0 and p.tolist() == [0.5, 0.5, 0.5]


def test_set_keeps_identity_and_restamps():
    p = nn.Parameter(mg.ones(2))
    old = p.version()
    with mg.no_grad():
        p.set_(mg.zeros(4))
    assert p.dtype == np.float32 and p.shape == (4,) and p.requires_grad and p.version() > old
    with pytest.raises(TypeError):
        p.set_(np.zeros(2))


def test_parameter_takes_over_the_array_without_copying():
    t = mg.ones(3, requires_grad=True)
    p = nn.Parameter(t)
    assert p._data is t._data and p.requires_grad and p.is_leaf


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: optim.Adam(ps, lr=0.1, amsgrad=True)])
def test_optimizers_update_through_the_in_place_api(make):
    # Every tensor an optimizer updates gets a new version stamp, its state included
    # (SGD's momentum buffer was written behind its version's back).
    p = nn.Parameter(mg.tensor([1.0, -2.0]))
    opt = make([p])
    for _ in range(2):
        before = p.version()
        state_before = {k: v.version() for k, v in opt.state.get(p, {}).items() if isinstance(v, mg.Tensor)}
        (p * p).sum().backward()
        opt.step()
        assert p.version() > before
        for k, v in opt.state[p].items():
            if isinstance(v, mg.Tensor) and k in state_before:
                assert v.version() > state_before[k], k
        opt.zero_grad(set_to_none=False)
