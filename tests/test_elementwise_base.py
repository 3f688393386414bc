"""Each derivative is written once: elementwise ops state a local derivative (or two
partials) and get backward, jvp and second derivatives from it; no op's jvp calls its
own backward; erf and erfc share one coefficient table and one polynomial helper."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import BinaryElementwise, UnaryElementwise, registry
from minigrad_ckpt.ops import elementwise as ew
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import check_op, gradgradcheck

PACKAGE = Path(mg.__file__).parent


def _calls_own_backward(fn) -> bool:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    return any(isinstance(n, ast.Attribute) and n.attr == "backward" and isinstance(n.value, ast.Name)
               and n.value.id == "self" for n in ast.walk(tree))


def test_no_op_class_has_a_jvp_that_calls_its_own_backward():
    offenders = []
    for name, cls in sorted(registry.items()):
        jvp = cls.__dict__.get("jvp") or next((c.__dict__["jvp"] for c in cls.__mro__ if "jvp" in c.__dict__), None)
        if jvp is not None and _calls_own_backward(jvp):
            offenders.append(name)
    assert not offenders, f"jvp calls backward in: {offenders}"


def test_the_erf_coefficients_and_the_polynomial_helper_exist_once():
    sources = {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}
    # the first coefficient of Cephes' P table (erf's tail and erfc's middle range)
    holders = [k for k, s in sources.items() if "5.64189564831068821977e-1" in s]
    assert holders == ["ops/special.py"]
    assert sources["ops/special.py"].count("5.64189564831068821977e-1") == 1
    defs = [k for k, s in sources.items() if "_TWO_OVER_SQRT_PI =" in s]
    assert defs == ["ops/special.py"]
    horners = [f"{k}:{n.name}" for k, s in sources.items() if k.startswith("ops/")
               for n in ast.walk(ast.parse(s)) if isinstance(n, ast.FunctionDef)
               and n.name in ("horner", "_horner", "_poly", "_poly_horner", "polyval")]
    assert horners == ["ops/elementwise.py:horner"]


class Softsign(UnaryElementwise):
    """x / (1 + |x|), stated by its derivative only."""

    name = "SoftsignOfTheTests"  # docs/ops.md defines a Softsign of its own

    def forward(self, xp, x):
        return x / (1 + xp.abs(x))

    def derivative(self, xp, out, x):
        d = 1 + xp.abs(x)
        return 1 / (d * d)

    def reference(self, np, x):
        return x / (1 + np.abs(x))


class RootOf(BinaryElementwise):
    """sqrt(x) * y: d/dx is infinite at x = 0 (singular), d/dy = sqrt(x)."""

    singular = True
    save_output = True

    def forward(self, xp, x, y):
        return xp.sqrt(x) * y

    def d_first(self, xp, out, x, y):
        return y * 0.5 / xp.sqrt(x)

    def d_second(self, xp, out, x, y):
        return xp.sqrt(x)

    def reference(self, np, x, y):
        return np.sqrt(x) * y


# Defining an op registers it; the registry keeps only the package's ops (the battery runs on them).
for _name in ("SoftsignOfTheTests", "RootOf"):
    registry.pop(_name, None)


@pytest.fixture
def user_ops():
    yield
    for name in ("SoftsignOfTheTests", "RootOf"):
        registry.pop(name, None)


def test_a_derivative_gives_backward_jvp_and_second_derivatives(user_ops):
    x = np.array([[-2.0, -0.5, 0.0], [0.3, 1.0, 4.0]])
    assert "gradgradcheck" in check_op(Softsign(), x)
    a, b = np.array([0.5, 1.5, 4.0]), np.array([-1.0, 2.0, 0.25])
    assert "gradgradcheck" in check_op(RootOf(), a, b)


def test_a_singular_point_keeps_a_zero_gradient_zero_in_both_modes(user_ops):
    x = mg.tensor([0.0, 4.0], dtype="float64", requires_grad=True)
    y = mg.tensor([2.0, 3.0], dtype="float64", requires_grad=True)
    out = apply(RootOf(), x, y)
    gx, gy = mg.grad(out, (x, y), grad_outputs=mg.tensor([0.0, 1.0], dtype="float64"))
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.75])  # not 0 * inf = nan
    np.testing.assert_array_equal(gy.numpy(), [0.0, 2.0])
    _, tangent = mg.func.jvp(lambda a: apply(RootOf(), a, y.detach()), (x.detach(),),
                             (mg.tensor([0.0, 1.0], dtype="float64"),))
    np.testing.assert_array_equal(tangent.numpy(), [0.0, 0.75])


def test_a_constant_operand_gets_no_gradient_and_its_partial_is_never_computed(user_ops):
    class Loud(RootOf):
        name = "Loud"

        def d_second(self, xp, out, x, y):
            raise AssertionError("the partial of a constant was computed")

    try:
        x = mg.tensor([1.0, 4.0], dtype="float64", requires_grad=True)
        apply(Loud(), x, 3.0).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [1.5, 0.75])
    finally:
        registry.pop("Loud", None)


@pytest.mark.parametrize("values", [
    ([0.0, 2.0, -1.5], [0.0, 0.5, 2.0]),     # 0 ** 0, 0 ** y, a negative base to an integer power
    ([0.0, 0.0, 3.0], [-1.0, 2.0, 0.0]),     # a pole, a zero base, a zero power
])
def test_pow_special_cases_agree_between_the_modes(values):
    # The special cases of x ** y are stated once: at the singular points both modes
    # give the same numbers, including the zero-gradient convention.
    xv, yv = (np.array(v) for v in values)
    x = mg.tensor(xv, requires_grad=True)
    y = mg.tensor(yv, requires_grad=True)
    for k in range(len(xv)):
        e = np.zeros(len(xv))
        e[k] = 1.0
        gx, gy = mg.grad(x ** y, (x, y), grad_outputs=mg.tensor(e))
        _, tx = mg.func.jvp(lambda a: a ** y.detach(), (x.detach(),), (mg.tensor(e),))
        _, ty = mg.func.jvp(lambda b: x.detach() ** b, (y.detach(),), (mg.tensor(e),))
        np.testing.assert_array_equal(gx.numpy()[k], tx.numpy()[k])
        np.testing.assert_array_equal(gy.numpy()[k], ty.numpy()[k])


def test_maximum_splits_ties_in_both_modes_and_keeps_float32():
    x = mg.tensor([1.0, 2.0, 3.0], dtype="float32", requires_grad=True)
    y = mg.tensor([1.0, 5.0, 0.0], dtype="float32", requires_grad=True)
    mg.maximum(x, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(y.grad.numpy(), [0.5, 1.0, 0.0])
    assert x.grad.dtype == np.float32
    _, t = mg.func.jvp(lambda a: mg.maximum(a, y.detach()), (x.detach(),), (mg.ones(3, dtype="float32"),))
    np.testing.assert_array_equal(t.numpy(), [0.5, 0.0, 1.0])
    assert t.dtype == np.float32


def test_plain_ops_multiply_and_special_ones_go_through_their_product():
    assert ew.Tanh._plain and ew.Mul._plain and ew.Exp._plain
    assert not ew.Log._plain  # singular
    assert not ew.Sinh._plain  # quiet
    assert not ew.Maximum._plain and not ew.Add._plain  # products of their own


def test_second_derivatives_of_base_class_ops_through_a_zero_gradient():
    # d/da d/db [a * log(b)] at a = 0 is 1 / b: the mask of a singular point sits
    # on the derivative, not on the product, so create_graph keeps it exact
    a = mg.tensor([0.0, 0.0], dtype="float64", requires_grad=True)
    b = mg.tensor([2.0, 0.5], dtype="float64", requires_grad=True)
    assert gradgradcheck(lambda p, q: p * mg.log(q), (a, b))
    assert gradgradcheck(lambda q: mg.erf(q) * mg.special.erfc(q), (b,))
