"""The names a backward may use are one list, offered by every namespace a backward runs on.

``backend.backward_names()`` is the contract.  A backward runs on an array
namespace (arrays) and, for gradients of gradients, on the differentiable
namespace (Tensors): both must offer every name, with the same meaning, and no
op may reach for a name outside the list -- otherwise a backward passes
``gradcheck`` and then fails ``gradgradcheck`` with an ``AttributeError``.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import backend, ops
from minigrad_ckpt.functional import namespace as dns
from minigrad_ckpt.testing import gradcheck, gradgradcheck

NAMES = backend.backward_names()
DOCS = Path(__file__).resolve().parent.parent / "docs" / "ops.md"


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_every_array_namespace_offers_every_name(device):
    xp = mg.device(device).xp
    missing = sorted(n for n in NAMES if not hasattr(xp, n))
    assert not missing, f"the {device} array namespace lacks {missing}"


@pytest.mark.parametrize("ns", ["cpu", "strict", "differentiable"])
def test_every_namespace_offers_the_linalg_whitelist(ns):
    xp = dns if ns == "differentiable" else mg.device(ns).xp
    missing = [n for n in backend.LINALG_FUNCTIONS if not hasattr(xp.linalg, n)]
    assert not missing, f"{ns}: xp.linalg lacks {missing}"


def test_the_differentiable_namespace_offers_every_name():
    missing = sorted(n for n in NAMES if not hasattr(dns, n))
    assert not missing, (
        f"minigrad_ckpt.functional.namespace lacks {missing}: a backward using them would fail under "
        f"create_graph=True; add them to functional/namespace.py"
    )


def _backward_xp_uses() -> dict[str, set[str]]:
    """``{name: {op.method}}`` for every ``xp.<name>`` in an op method that runs on gradients
    (a LinearOp's forward too: its jvp runs forward on the tangent)."""
    uses: dict[str, set[str]] = {}
    for cls in set(ops.registry.values()):
        tree = ast.parse(inspect.getsource(inspect.getmodule(cls)))
        host_only = ("reference",) if issubclass(cls, ops.LinearOp) else ("forward", "reference")
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ClassDef) and node.name == cls.__name__):
                continue
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name not in host_only:
                    for n in ast.walk(fn):
                        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "xp":
                            uses.setdefault(n.attr, set()).add(f"{cls.__name__}.{fn.name}")
    return uses


def test_op_backwards_use_only_names_of_the_contract():
    uses = _backward_xp_uses()
    assert "sum_to" in uses or "where" in uses  # the scan sees real backwards
    outside = {n: sorted(where) for n, where in uses.items() if n not in NAMES}
    assert not outside, (
        f"backward/jvp code uses names outside backend.backward_names(): {outside}; use a name of the "
        f"contract (docs/ops.md), or add the function to the whitelist and the differentiable namespace"
    )


def test_the_scan_would_catch_a_name_outside_the_contract():
    assert "scatter_add" not in NAMES and "to_host" not in NAMES and "put_along_axis" not in NAMES


def test_docs_list_exactly_the_contract():
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## What a backward may call: the namespace contract", 1)[1].split("\n## ", 1)[0]
    listed = set()
    for line in section.split("```", 1)[0].split("\n- **")[1:]:
        item = line.split("\n\n")[0].split("(`scatter_add`")[0]
        listed |= set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", item))
    listed -= {"put_along_axis", "LINALG_FUNCTIONS", "FFT_FUNCTIONS"}
    assert listed == set(NAMES), (
        f"docs/ops.md's namespace contract is out of date: missing {sorted(set(NAMES) - listed)}, "
        f"extra {sorted(listed - set(NAMES))}"
    )


# ---------------------------------------------------------------------------
# Same results on arrays and on Tensors
# ---------------------------------------------------------------------------
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 2))
C = RNG.standard_normal((2, 3, 4))
IDX = np.array([[2, 0, 1, 1]] * 3)

CASES = {
    "tensordot": ((A, B), {"axes": 1}), "tensordot_pairs": ((C, A), {"axes": ([1, 2], [0, 1])}),
    "dot": ((A, B), {}), "dot_nd": ((C, RNG.standard_normal((3, 4, 5))), {}), "dot_scalar": ((A, 2.0), {}),
    "cumprod": ((A,), {"axis": 1}), "cumprod_flat": ((A,), {}),
    "sort": ((A,), {"axis": 0}), "sort_flat": ((A,), {"axis": None}),
    "take_along_axis": ((A, IDX), {"axis": 1}),
    "repeat": ((A, 2), {"axis": 1}), "repeat_flat": ((A, 3), {}),
    "tile": ((A, (2, 1, 3)), {}), "tril": ((C,), {"k": -1}), "triu": ((A,), {"k": 1}),
    "array_split": ((A, 3), {"axis": 1}), "array_split_points": ((A, [1, 2]), {"axis": 0}),
    "array_split_from_the_end": ((A, [-1]), {"axis": 1}),
    "ascontiguousarray": ((A.T,), {}),
    "zeros_like": ((A,), {}), "ones_like": ((A,), {"dtype": "float32"}), "full_like": ((A, 7.0), {}),
    "isinf": ((np.array([1.0, np.inf, -np.inf]),), {}), "argsort": ((A,), {"axis": 1}),
    "all": ((A > 0,), {}), "any": ((A > 0,), {"axis": 0}), "count_nonzero": ((A > 0,), {}),
    "nonzero": ((A > 0,), {}), "square": ((A,), {}), "expm1": ((A,), {}), "reciprocal": ((A,), {}),
    "cosh": ((A,), {}), "tan": ((A,), {}), "arctan": ((A,), {}), "floor": ((A,), {}),
}


def _name(case: str) -> str:
    for suffix in ("_pairs", "_nd", "_scalar", "_flat", "_points", "_from_the_end"):
        case = case.removesuffix(suffix)
    return case


def _values(r):
    if isinstance(r, (list, tuple)):
        return [_values(v) for v in r]
    return r.numpy() if isinstance(r, mg.Tensor) else np.asarray(r)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_differentiable_namespace_agrees_with_the_array_namespace(case):
    args, kwargs = CASES[case]
    name = _name(case)
    expected = getattr(backend.numpy_namespace, name)(*args, **kwargs)
    targs = [mg.tensor(a) if isinstance(a, np.ndarray) and a is not IDX else a for a in args]
    got = getattr(dns, name)(*targs, **kwargs)
    got, expected = _values(got), _values(expected)
    if isinstance(expected, np.ndarray) and expected.dtype.kind == "f":  # matmul may sum in another order
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_equal(got, expected)


DIFFERENTIABLE = ["tensordot", "tensordot_pairs", "dot", "dot_nd", "cumprod", "cumprod_flat", "sort",
                  "sort_flat", "take_along_axis", "repeat", "tile", "tril", "triu", "array_split"]


@pytest.mark.parametrize("case", DIFFERENTIABLE)
def test_the_compositions_have_correct_first_and_second_derivatives(case):
    args, kwargs = CASES[case]
    fn = getattr(dns, _name(case))
    tensors = [mg.tensor(a, requires_grad=True) for a in args if isinstance(a, np.ndarray) and a is not IDX]
    rest = list(args[len(tensors):])

    def f(*ts):
        out = fn(*ts, *rest, **kwargs)
        return mg.stack([o.sum() for o in out]) if isinstance(out, list) else out * out

    assert gradcheck(f, tensors)
    assert gradgradcheck(f, tensors)


class _UsesTheWholeContract(ops.Op):
    """A test op whose backward uses names the differentiable namespace once lacked."""

    name = "_TestUsesTheWholeContract"
    abstract = True  # not registered: the battery must not pick it up

    def forward(self, xp, x):
        return xp.square(x)

    def backward(self, xp, g, out, x):
        grad = xp.tensordot(g * 2, xp.ones_like(x), axes=0) if x.ndim == 0 else g * 2
        return grad * x + xp.zeros_like(x) + xp.cumprod(xp.ones_like(x), axis=None).reshape(x.shape) - 1

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return xp.multiply(t, x) * 2 + xp.zeros_like(x)


def test_a_backward_written_with_contract_names_has_second_derivatives():
    x = mg.tensor([0.5, -1.5, 2.0], dtype="float64", requires_grad=True)
    op = _UsesTheWholeContract()

    def f(t):
        return mg.tape.apply(op, t)

    assert gradcheck(f, [x])
    assert gradgradcheck(f, [x])  # AttributeError before the namespace offered these names


@pytest.mark.parametrize("ns", ["cpu", "strict", "differentiable"])
def test_every_namespace_offers_the_fft_whitelist(ns):
    xp = dns if ns == "differentiable" else mg.device(ns).xp
    missing = [n for n in backend.FFT_FUNCTIONS if not hasattr(xp.fft, n)]
    assert not missing, f"{ns}: xp.fft lacks {missing}"
