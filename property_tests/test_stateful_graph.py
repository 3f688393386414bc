"""Random graphs against a naive reference implementation (MyGrad's GraphCompare idea).

A Hypothesis state machine builds a graph step by step -- leaves, add / sub /
mul / square (``x * x``) / tanh / exp / sum -- drawing operands from all the
nodes built so far, so reused tensors and diamonds appear on their own.  Next
to every engine tensor it keeps a *model* node: the op, the parents and the
value, computed here with plain NumPy from the parents' model values.

``backward`` rules run the engine (sometimes twice with ``retain_graph``,
which must exactly double the accumulated gradient) and compare every leaf's
``.grad`` with the model's own reverse accumulation: adjoints in a dict,
visited in decreasing creation order, broadcast gradients summed back to each
parent's shape.  The model also knows which nodes a ``backward`` without
``retain_graph`` freed (those that saved a value: as PyTorch's, a node that saved
nothing can be gone through again), so it predicts the "backward through the
graph a second time" error -- and that a failed call leaves every ``.grad`` alone.
``grad`` rules check ``mg.grad`` with respect to leaves *and* intermediate
nodes against the model's adjoints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

import minigrad_ckpt as mg
from minigrad_ckpt.tape import Node

# Every pair broadcasts: the last axis is 1 or 3, the one before 1 or 2, and
# sums with keepdims stay in the family.
SHAPES = [(), (1,), (3,), (1, 3), (2, 1), (2, 3)]
VALUES = st.floats(-2.0, 2.0, allow_nan=False, allow_subnormal=False)
LIMIT = 1e6  # keep products and exponentials far from overflow


@dataclass
class ModelNode:
    op: str                      # "leaf", "add", "sub", "mul", "tanh", "exp", "sum"
    parents: tuple[int, ...]
    value: np.ndarray
    axis: int | None = None      # for "sum": None (everything) or one axis, kept


def unbroadcast(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``g`` down to ``shape`` (written independently of the engine's sum_to)."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


#: The model's ops whose nodes save a value for backward (x * y its inputs, tanh and exp their output)
SAVES_VALUES = frozenset({"mul", "tanh", "exp"})


class GraphMachine(RuleBasedStateMachine):
    nodes = Bundle("nodes")

    def __init__(self) -> None:
        super().__init__()
        self.model: list[ModelNode] = []
        self.tensors: list[mg.Tensor] = []
        self.expected: dict[int, np.ndarray | None] = {}  # leaf id -> accumulated .grad
        self.freed: set[int] = set()

    # ------------------------------------------------------------ the model
    def _add(self, node: ModelNode, t: mg.Tensor) -> int:
        i = len(self.model)
        self.model.append(node)
        self.tensors.append(t)
        if node.op == "leaf":
            self.expected[i] = None
        else:
            # the tape recorded the same structure: same op, edges to the parents
            assert t.grad_fn is not None and t.grad_fn.op.name.lower() == node.op, t.grad_fn
            for edge, p in zip(t.grad_fn.inputs, node.parents):
                parent = self.tensors[p]
                assert edge is (parent if self.model[p].op == "leaf" else parent.grad_fn)
        return i

    def ancestors(self, root: int) -> set[int]:
        seen, stack = set(), [root]
        while stack:
            i = stack.pop()
            if i not in seen:
                seen.add(i)
                stack.extend(self.model[i].parents)
        return seen

    def adjoints(self, root: int, g: np.ndarray) -> dict[int, np.ndarray]:
        """Reverse accumulation over a dict, in decreasing creation order."""
        adj: dict[int, np.ndarray] = {root: g}
        for i in sorted(self.ancestors(root), reverse=True):
            node = self.model[i]
            if i not in adj or node.op == "leaf":
                continue
            gi = adj[i]
            vals = [self.model[p].value for p in node.parents]
            if node.op == "add":
                local = [gi, gi]
            elif node.op == "sub":
                local = [gi, -gi]
            elif node.op == "mul":
                local = [gi * vals[1], gi * vals[0]]
            elif node.op == "tanh":
                local = [gi * (1 - node.value ** 2)]
            elif node.op == "exp":
                local = [gi * node.value]
            else:  # sum
                local = [np.broadcast_to(gi, vals[0].shape)]
            for p, lg in zip(node.parents, local):
                lg = unbroadcast(np.asarray(lg), self.model[p].value.shape)
                adj[p] = adj[p] + lg if p in adj else lg
        return adj

    # ------------------------------------------------------------ building
    @initialize(target=nodes, shape=st.sampled_from(SHAPES), data=st.data())
    def first_leaf(self, shape: tuple[int, ...], data: Any) -> int:
        return self.leaf(shape, data)

    @rule(target=nodes, shape=st.sampled_from(SHAPES), data=st.data())
    def new_leaf(self, shape: tuple[int, ...], data: Any) -> int:
        return self.leaf(shape, data)

    def leaf(self, shape: tuple[int, ...], data: Any) -> int:
        v = data.draw(hnp.arrays(np.float64, shape, elements=VALUES), label="leaf value")
        t = mg.tensor(v, dtype="float64", requires_grad=True)
        return self._add(ModelNode("leaf", (), v.copy()), t)

    def _binary(self, op: str, a: int, b: int) -> int:
        va, vb = self.model[a].value, self.model[b].value
        value = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](va, vb)
        assume(np.all(np.abs(value) < LIMIT))
        ta, tb = self.tensors[a], self.tensors[b]
        t = {"add": ta + tb, "sub": ta - tb, "mul": ta * tb}[op]
        return self._add(ModelNode(op, (a, b), value), t)

    @rule(target=nodes, a=nodes, b=nodes)
    def add(self, a: int, b: int) -> int:
        return self._binary("add", a, b)

    @rule(target=nodes, a=nodes, b=nodes)
    def sub(self, a: int, b: int) -> int:
        return self._binary("sub", a, b)

    @rule(target=nodes, a=nodes, b=nodes)
    def mul(self, a: int, b: int) -> int:
        return self._binary("mul", a, b)

    @rule(target=nodes, a=nodes)
    def square(self, a: int) -> int:
        return self._binary("mul", a, a)  # the same tensor twice: x * x

    @rule(target=nodes, a=nodes)
    def tanh(self, a: int) -> int:
        value = np.tanh(self.model[a].value)
        return self._add(ModelNode("tanh", (a,), value), mg.tanh(self.tensors[a]))

    @rule(target=nodes, a=nodes)
    def exp(self, a: int) -> int:
        assume(np.all(self.model[a].value < np.log(LIMIT)))
        value = np.exp(self.model[a].value)
        return self._add(ModelNode("exp", (a,), value), mg.exp(self.tensors[a]))

    @rule(target=nodes, a=nodes, data=st.data())
    def sum(self, a: int, data: Any) -> int:
        v = self.model[a].value
        axis = data.draw(st.sampled_from([None, *range(-v.ndim, v.ndim)]), label="axis")
        if axis is None:
            value, t = np.sum(v), mg.sum(self.tensors[a])
        else:
            value, t = np.sum(v, axis=axis, keepdims=True), mg.sum(self.tensors[a], axis=axis, keepdims=True)
        return self._add(ModelNode("sum", (a,), np.asarray(value), axis), t)

    # ------------------------------------------------------------ backward
    def _upstream(self, data: Any, root: int) -> np.ndarray:
        shape = self.model[root].value.shape
        return data.draw(hnp.arrays(np.float64, shape, elements=VALUES), label="upstream")

    def _check_leaf_grads(self) -> None:
        for i, exp in self.expected.items():
            got = self.tensors[i].grad
            if exp is None:
                assert got is None, f"leaf {i} has a gradient but no backward reached it"
            else:
                assert got is not None, f"leaf {i} has no gradient"
                np.testing.assert_allclose(got.numpy(), exp, rtol=1e-9, atol=1e-12,
                                           err_msg=f"gradient of leaf {i}")

    @rule(root=nodes, retain=st.booleans(), twice=st.booleans(), data=st.data())
    def backward(self, root: int, retain: bool, twice: bool, data: Any) -> None:
        g = self._upstream(data, root)
        t = self.tensors[root]
        anc = self.ancestors(root)
        before = {i: (None if self.tensors[i].grad is None else self.tensors[i].grad.numpy().copy())
                  for i in self.expected}
        if anc & self.freed:
            # retain_graph=True: the failing call frees nothing more, so the model stays exact
            with pytest.raises(RuntimeError, match="second time"):
                t.backward(mg.tensor(g, dtype="float64"), retain_graph=True)
            self._check_leaf_grads()  # a failed backward changes no .grad
            return
        adj = self.adjoints(root, g)
        calls = 2 if retain and twice else 1
        for k in range(calls):
            t.backward(mg.tensor(g, dtype="float64"), retain_graph=retain)
            for i in self.expected:
                if i in adj:
                    prev = self.expected[i]
                    self.expected[i] = adj[i].copy() if prev is None else prev + adj[i]
            if k == 0:
                after_one = {i: self.tensors[i].grad.numpy().copy() for i in adj if i in self.expected}
        if calls == 2:
            # the second call adds exactly what the first added
            for i, a1 in after_one.items():
                b = before[i] if before[i] is not None else 0.0
                np.testing.assert_allclose(self.tensors[i].grad.numpy() - b, 2 * (a1 - b),
                                           rtol=1e-9, atol=1e-12)
        if not retain:  # only what saved a value is freed: a second backward through add/sub/sum runs, as torch's
            self.freed |= {i for i in anc if self.model[i].op in SAVES_VALUES}
        self._check_leaf_grads()

    @rule(root=nodes, data=st.data())
    def grad_wrt_nodes(self, root: int, data: Any) -> None:
        anc = sorted(self.ancestors(root))
        if set(anc) & self.freed:
            return  # covered by the backward rule's error check
        wrt = data.draw(st.lists(st.sampled_from(anc), min_size=1, max_size=3, unique=True), label="wrt")
        g = self._upstream(data, root)
        adj = self.adjoints(root, g)
        got = mg.grad(self.tensors[root], [self.tensors[i] for i in wrt],
                      grad_outputs=mg.tensor(g, dtype="float64"), retain_graph=True)
        for i, r in zip(wrt, got):
            np.testing.assert_allclose(r.numpy(), adj[i], rtol=1e-9, atol=1e-12,
                                       err_msg=f"mg.grad w.r.t. node {i} ({self.model[i].op})")
        self._check_leaf_grads()  # mg.grad never touches .grad

    @rule()
    def zero_grads(self) -> None:
        for i in self.expected:
            self.tensors[i].grad = None
            self.expected[i] = None

    # ------------------------------------------------------------ invariants
    @invariant()
    def values_match_model(self) -> None:
        for i, (node, t) in enumerate(zip(self.model, self.tensors)):
            assert t.shape == node.value.shape, f"node {i}: shape {t.shape} != {node.value.shape}"
            np.testing.assert_allclose(t.numpy(), node.value, rtol=1e-12, atol=0,
                                       err_msg=f"value of node {i} ({node.op})")

    @invariant()
    def leaves_stay_leaves(self) -> None:
        for i, node in enumerate(self.model):
            t = self.tensors[i]
            assert t.requires_grad
            assert (t.grad_fn is None) == (node.op == "leaf")
            if node.op != "leaf":
                assert type(t.grad_fn) is Node


TestGraph = GraphMachine.TestCase
TestGraph.settings = settings(settings(), stateful_step_count=30)
