"""The op contract: declared attributes and the checks the engine makes
where a user's op breaks the contract."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op, registry
from minigrad_ckpt.ops.base import Array, Index
from minigrad_ckpt.tape import apply


@pytest.fixture
def scratch_ops():
    """Registers test ops under their names and removes them afterwards (the battery
    checks that every registered op has a spec)."""
    before = dict(registry)
    yield
    registry.clear()
    registry.update(before)


# ---------------------------------------------------------------------------
# declared attributes
# ---------------------------------------------------------------------------
def test_every_op_declares_what_its_functions_build() -> None:
    # The public functions build ops through the checking constructor: running them
    # is the test that each op class declares the attributes it is given.
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = (mg.sum(x, axis=1) + mg.var(x, axis=0, ddof=1).sum() + mg.cumsum(x, axis=1).sum()
         + x[0, 1:].sum() + mg.transpose(x).reshape(6).sum() + mg.pad(x, 1).sum()
         + mg.nn.functional.softmax(x, axis=-1).sum() + mg.nn.functional.dropout(x, 0.5).sum()
         + mg.nn.functional.cross_entropy(x, mg.tensor([0, 2])))
    y.sum().backward()
    assert x.grad.shape == x.shape
    sum_op = mg.sum(x, axis=1).grad_fn.op
    assert type(sum_op).fields == {"axes": tuple[int, ...], "keepdims": bool, "in_shape": tuple[int, ...]}
    assert sum_op.attrs == {"axes": (1,), "keepdims": False, "in_shape": (2, 3)}


def test_missing_unknown_and_wrongly_typed_attributes_name_the_op_and_its_fields() -> None:
    Sum = registry["Sum"]
    fields = r"Sum takes axes: tuple\[int, \.\.\.\], keepdims: bool, in_shape: tuple\[int, \.\.\.\]"
    with pytest.raises(TypeError, match=r"Sum: missing attribute 'keepdims' \(" + fields):
        Sum(axes=(0,), in_shape=(3,))
    with pytest.raises(TypeError, match=r"Sum: unknown attribute 'backward' \(" + fields):
        Sum(axes=(0,), keepdims=False, in_shape=(3,), backward=1)
    with pytest.raises(TypeError, match=r"Sum: attribute 'keepdims' must be bool, got 'no' \(str\)"):
        Sum(axes=(0,), keepdims="no", in_shape=(3,))
    with pytest.raises(TypeError, match=r"Sum: attribute 'axes' must be tuple\[int, \.\.\.\], got 0 \(int\)"):
        Sum(axes=0, keepdims=False, in_shape=(3,))
    with pytest.raises(TypeError, match="Add takes no attributes"):
        registry["Add"](axis=1)


def test_from_attrs_checks_values_in_full() -> None:
    Sum = registry["Sum"]
    op = Sum.from_attrs({"axes": (0,), "keepdims": True, "in_shape": (3,)})
    assert op == Sum(axes=(0,), keepdims=True, in_shape=(3,))
    # the constructor checks only the outer type (it runs once per call); from_attrs looks inside
    bad = {"axes": ("0",), "keepdims": True, "in_shape": (3,)}
    Sum(**bad)
    with pytest.raises(TypeError, match=r"'axes' must be tuple\[int, \.\.\.\], got \('0',\)"):
        Sum.from_attrs(bad)
    with pytest.raises(TypeError, match="'keepdims' must be bool, got 1"):
        Sum.from_attrs({"axes": (0,), "keepdims": 1, "in_shape": (3,)})
    Conv = registry["Conv2d"]
    with pytest.raises(TypeError, match=r"'stride' must be tuple\[int, int\], got \(1, 1, 1\)"):
        Conv.from_attrs({"stride": (1, 1, 1), "padding": (0, 0), "dilation": (1, 1), "groups": 1})
    GetItem = registry["GetItem"]
    ok = {"index": (0, slice(None, 2, None), None, Ellipsis, np.array([0, 1])), "in_shape": (2, 3, 4)}
    assert GetItem.from_attrs(ok).index[0] == 0
    with pytest.raises(TypeError, match="'index' must be"):
        GetItem.from_attrs({"index": (slice("a", None, None),), "in_shape": (2,)})
    with pytest.raises(TypeError, match="'index' must be"):
        GetItem.from_attrs({"index": ("0",), "in_shape": (2,)})
    # a float where the type says float accepts an int too (the numeric tower)
    assert registry["Normalize"].from_attrs({"axes": (0,), "eps": 1}).eps == 1
    with pytest.raises(TypeError, match="mapping"):
        Sum.from_attrs([("axes", (0,))])


def test_shared_ops_are_built_once_per_value(monkeypatch) -> None:
    from minigrad_ckpt.ops import base

    Sum, Reshape = registry["Sum"], registry["Reshape"]
    op = Sum.shared((0,), False, (3,))
    assert op is Sum.shared((0,), False, (3,)) and op == Sum(axes=(0,), keepdims=False, in_shape=(3,))
    assert Sum.shared((0,), True, (3,)).keepdims is True
    assert registry["Mean"].shared((0,), False, (3,)) is not op  # the class is part of the key
    with pytest.raises(TypeError, match=r"Sum.shared takes 3 values \(axes, keepdims, in_shape\), got 2"):
        Sum.shared((0,), False)
    with pytest.raises(TypeError, match="'in_shape' must be"):  # built by the constructor: checked as it checks
        Reshape.shared((3,), 3)
    with pytest.raises(TypeError, match="unhashable"):  # the values are the key
        Reshape.shared((3,), (3, [1]))
    for bad in (0.0, -0.0, float("nan"), np.int64(3), [3]):  # equal would not mean the same op
        with pytest.raises(TypeError, match=r"Sum.shared takes ints, bools, strings, None and tuples"):
            Sum.shared((0,), False, bad)
    monkeypatch.setattr(base, "_SHARED", {})
    monkeypatch.setattr(base, "_SHARED_LIMIT", 4)
    for n in range(1, 10):
        Reshape.shared((n,), (n, 1))
        assert len(base._SHARED) <= 4  # bounded: ever new shapes do not grow it


def test_nodes_share_an_op_and_differentiate_as_before() -> None:
    x = mg.tensor(np.arange(6.0), requires_grad=True)
    a, b = mg.reshape(x, (2, 3)), mg.reshape(x * 2, (2, 3))
    assert a._node.op is b._node.op
    c = mg.cat([mg.unsqueeze(x, 1), mg.unsqueeze(x ** 2, 1)], 1)
    (a.sum() + (b * b).sum() + c.sum(axis=0).sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), 1 + 8 * np.arange(6.0) + 1 + 2 * np.arange(6.0))


def test_declarations_defaults_classvars_and_reserved_names(scratch_ops) -> None:
    class Scale(Op):
        """A user op with one required and one optional attribute."""

        factor: float
        offset: float = 0.0
        calls: ClassVar[int] = 0  # a class-level setting, not an attribute
        save_inputs = False

        def forward(self, xp, x):
            return x * self.factor + self.offset

        def backward(self, xp, g, out, x):
            return g * self.factor

        def reference(self, np, x):
            return x * self.factor + self.offset

    assert Scale.fields == {"factor": float, "offset": float}
    assert Scale(factor=2.0).attrs == {"offset": 0.0, "factor": 2.0}
    assert Scale(factor=2.0) == Scale(factor=2.0, offset=0.0)
    assert Scale.from_attrs({"factor": 3}).attrs == {"offset": 0.0, "factor": 3}
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    apply(Scale(factor=3.0, offset=1.0), x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    with pytest.raises(TypeError, match="'backward' cannot be an op attribute"):
        class Bad(Op):
            backward: int

    with pytest.raises(TypeError, match="cannot resolve its attribute annotations"):
        class Unresolved(Op):
            size: NoSuchType  # noqa: F821

    class WithArray(Op):
        mask: Array
        index: Index
        limit: int | None

        def forward(self, xp, x):
            return x[self.index] * self.mask

    op = WithArray.from_attrs({"mask": np.ones(2), "index": (slice(0, 2, None),), "limit": None})
    assert op.limit is None
    with pytest.raises(TypeError, match="'mask' must be Array"):
        WithArray.from_attrs({"mask": [1.0, 1.0], "index": (), "limit": None})
    with pytest.raises(TypeError, match=r"'limit' must be int \| None"):
        WithArray(mask=np.ones(2), index=(), limit=1.5)


# ---------------------------------------------------------------------------
# the contract, enforced where a user's op breaks it (one test per row)
# ---------------------------------------------------------------------------
def _leaves(*shapes: tuple[int, ...]) -> list:
    return [mg.tensor(np.arange(1.0, 1.0 + np.prod(s)).reshape(s), requires_grad=True) for s in shapes]


def test_wrong_number_of_gradients(scratch_ops) -> None:
    class MulOneGrad(Op):
        def forward(self, xp, x, y):
            return x * y

        def backward(self, xp, g, out, x, y):
            return g * y  # forgot the second input's gradient

    x, y = _leaves((2,), (2,))
    with pytest.raises(RuntimeError, match="MulOneGrad.backward returned 1 gradient for 2 inputs: "
                                           "expected 2 gradients, got 1"):
        apply(MulOneGrad(), x, y).sum().backward()


def test_gradient_shape_that_is_not_a_broadcast_of_the_input(scratch_ops) -> None:
    class Widen(Op):
        save_inputs = False

        def forward(self, xp, x):
            return x * 2

        def backward(self, xp, g, out, x):
            return xp.ones((3, 2))  # was silently summed to (2,)

    (x,) = _leaves((2,))
    with pytest.raises(RuntimeError, match=r"Widen.backward returned a gradient of shape \(3, 2\) for "
                                           r"input 0 of shape \(2,\): a gradient must have the input's "
                                           r"shape or be a broadcast of it"):
        apply(Widen(), x).sum().backward()
    # a real broadcast (to the output's shape) is fine: Mul's gradient for a (2,) operand of a (3, 2) product
    a, b = _leaves((2,), (3, 2))
    (a * b).sum().backward()
    assert a.grad.shape == (2,)


def test_scalar_where_an_array_is_due(scratch_ops) -> None:
    class Double(Op):
        save_inputs = False

        def forward(self, xp, x):
            return x * 2

        def backward(self, xp, g, out, x):
            return 2.0  # a Python float, not g * 2

    class DoubleSum(Double):
        def backward(self, xp, g, out, x):
            return (g * 2).sum()  # a 0-d array

    (x,) = _leaves((3,))
    with pytest.raises(RuntimeError, match=r"Double.backward returned a float as the gradient of input 0, "
                                           r"where an array of the input's shape \(3,\) is due"):
        apply(Double(), x).sum().backward()
    with pytest.raises(RuntimeError, match=r"DoubleSum.backward returned a 0-d \(scalar\) gradient for "
                                           r"input 0 of shape \(3,\)"):
        apply(DoubleSum(), x).sum().backward()


def test_backward_reads_an_input_it_did_not_declare(scratch_ops) -> None:
    class UserSquare(Op):
        save_inputs = False  # but backward reads x

        def forward(self, xp, x):
            return x * x

        def backward(self, xp, g, out, x):
            return 2 * g * x

    class Scaled(Op):
        save_inputs = (0,)  # but backward reads y as well

        def forward(self, xp, x, y):
            return x * y

        def backward(self, xp, g, out, x, y):
            return g * y, g * x

    (x,) = _leaves((2,))
    with pytest.raises(TypeError, match=r"UserSquare.backward failed with TypeError: .*NoneType.* it gets "
                                        r"None for the output and input 0, because UserSquare does not "
                                        r"declare that backward reads them.*save_inputs = True"):
        apply(UserSquare(), x).sum().backward()
    x, y = _leaves((2,), (2,))
    with pytest.raises(TypeError, match=r"Scaled.backward .* None for the output and input 1.*save_output "
                                        r"= True; save_inputs = \(\.\.\.\) with the positions it reads"):
        apply(Scaled(), x, y).sum().backward()


@pytest.mark.parametrize("where", ["forward", "backward"])
def test_a_name_outside_the_array_namespace(scratch_ops, where: str) -> None:
    class UserSoftplus(Op):
        def forward(self, xp, x):
            if where == "forward":
                return xp.softplus(x)  # was: AttributeError: 'ArrayNamespace' object has no attribute ...
            return xp.logaddexp(x, 0 * x)

        def backward(self, xp, g, out, x):
            return g * xp.sigmoidd(x)

    (x,) = _leaves((2,))
    if where == "forward":
        match = r"UserSoftplus.forward uses xp.softplus, which the array namespace .* does not offer"
    else:
        match = r"UserSoftplus.backward uses xp.sigmoidd, .*\(did you mean xp.sigmoid\?\).*LIBRARY_FUNCTIONS"
    with pytest.raises(AttributeError, match=match):
        apply(UserSoftplus(), x).sum().backward()


def test_a_name_missing_from_the_differentiable_namespace_names_it(scratch_ops) -> None:
    import minigrad_ckpt.functional as mf

    class UserCube(Op):
        def forward(self, xp, x):
            return x * x * x

        def backward(self, xp, g, out, x):
            if isinstance(xp, type(mf)):  # the differentiable namespace (create_graph=True)
                return g * xp.no_such_function(x)
            return 3 * g * x * x

    (x,) = _leaves((2,))
    (g,) = mg.grad(apply(UserCube(), x).sum(), x)
    assert g.tolist() == [3.0, 12.0]
    with pytest.raises(AttributeError, match=r"UserCube.backward uses xp.no_such_function, which the "
                                             r"differentiable namespace \(minigrad_ckpt.functional"):
        mg.grad(apply(UserCube(), x).sum(), x, create_graph=True)


def test_a_name_clash_with_a_built_in_op_names_it_and_suggests_a_name(scratch_ops) -> None:
    with pytest.raises(TypeError, match=r"op name 'Gelu' is already registered by "
                                        r"minigrad_ckpt.ops.activation.Gelu; give Gelu a registry name "
                                        r"of its own: name = \"MyGelu\""):
        class Gelu(Op):
            def forward(self, xp, x):
                return x

    class Gelu(Op):  # noqa: F811  (with a name of its own it registers)
        name = "MyGelu"

        def forward(self, xp, x):
            return x

    assert registry["MyGelu"] is Gelu and registry["Gelu"].__module__ == "minigrad_ckpt.ops.activation"


def test_defining_the_same_class_again_replaces_it(scratch_ops) -> None:
    # a notebook cell run twice: same module, same qualified name
    classes = []
    for factor in (2.0, 3.0):
        class Twice(Op):
            save_inputs = False
            f = factor

            def forward(self, xp, x):
                return x * self.f

            def backward(self, xp, g, out, x):
                return g * self.f

        classes.append(Twice)
    assert registry["Twice"] is classes[1] and classes[0] is not classes[1]
    (x,) = _leaves((1,))
    apply(registry["Twice"](), x).sum().backward()
    assert x.grad.tolist() == [3.0]


def test_checks_cover_the_first_calls_of_each_op_class(scratch_ops) -> None:
    from minigrad_ckpt.ops.base import CONTRACT_CHECKS

    class Ident(Op):
        save_inputs = False

        def forward(self, xp, x):
            return x + 0

        def backward(self, xp, g, out, x):
            return g

    assert Ident.contract_checks_left == CONTRACT_CHECKS
    for _ in range(CONTRACT_CHECKS + 2):
        (x,) = _leaves((2,))
        apply(Ident(), x).sum().backward()
    assert Ident.contract_checks_left == 0
