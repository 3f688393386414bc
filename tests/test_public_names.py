"""Each public name is declared once, in the table of public names, and everything else is read off it.

``minigrad_ckpt/functional/public_names.py`` says, for every public function and Tensor
method, what it is, which namespace exports it, Tensor's method of that name and whether the
in-place twin exists.  These tests hold the package to the table: the namespaces export
exactly what it declares, Tensor carries exactly its methods (nothing later rewrites them),
and no name is declared twice.
"""

from __future__ import annotations

import ast
import collections
import importlib
from pathlib import Path

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn  # noqa: F401  (everything the package imports is loaded before the checks)
from minigrad_ckpt.functional import public_names as table

PACKAGE = Path(mg.__file__).resolve().parent
HOMES = sorted({s.home for s in table.SECTIONS if s.home is not None})


def test_each_name_is_declared_once_in_its_namespace():
    counts = collections.Counter((section.home, row.name) for section, row in table.rows() if row.function)
    assert [key for key, n in counts.items() if n > 1] == []


def test_each_tensor_method_is_declared_once():
    declared = [row.name for _, row in table.rows() if row.method is not None]
    declared += [row.name + "_" for _, row in table.rows() if row.in_place]
    assert [name for name, n in collections.Counter(declared).items() if n > 1] == []


def test_an_in_place_twin_needs_a_method_and_a_tensor_method_no_namespace():
    for section, row in table.rows():
        assert not row.in_place or row.method is not None, row.name
        assert (section.home is None) == (row.function is None), (section.title, row.name)


@pytest.mark.parametrize("home", HOMES)
def test_a_namespace_exports_exactly_what_the_table_declares(home):
    module = importlib.import_module(home)
    declared = table.exports(home)
    assert [name for name in module.__all__ if name in declared] == list(declared)
    assert [name for name, fn in declared.items() if getattr(module, name) is not fn] == []


def test_the_package_all_lists_the_table_once():
    assert len(mg.__all__) == len(set(mg.__all__))
    assert set(table.exports("minigrad_ckpt")) <= set(mg.__all__)


def test_tensor_carries_exactly_the_tables_methods_after_the_whole_package_is_imported():
    for name in ("nn", "optim", "func", "checkpoint", "snapshot", "testing", "utils.data", "viz"):
        importlib.import_module(f"minigrad_ckpt.{name}")
    methods = table.methods()
    rewritten = [name for name, m in methods.items() if not name.endswith("_") and vars(mg.Tensor)[name] is not m]
    assert rewritten == []
    twins = [name for _, row in table.rows() if row.in_place for name in [row.name + "_"]]
    assert [name for name in twins if vars(mg.Tensor)[name].__qualname__ != "in_place.<locals>.method"] == []
    assert set(methods) <= set(vars(mg.Tensor))


def test_the_table_does_not_shadow_what_tensor_py_defines():
    tree = ast.parse((PACKAGE / "tensor.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    own |= {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert sorted(own & set(table.methods())) == []


def test_only_the_table_puts_methods_on_tensor():
    """No module but the table's binds a Tensor attribute (``setattr(Tensor, ...)`` or ``Tensor.x = ...``)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr" and node.args \
                    and ast.unparse(node.args[0]) == "Tensor":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and ast.unparse(t.value) == "Tensor"
                                                    for t in node.targets):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == ["functional/public_names.py:" + str(_bind_line())]


def _bind_line() -> int:
    tree = ast.parse((PACKAGE / "functional" / "public_names.py").read_text(encoding="utf-8"))
    return next(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "setattr")


def test_a_method_and_its_in_place_twin_agree():
    x = mg.tensor([0.25, 0.5, 0.75], dtype="float64")
    for name in ("exp", "clamp", "logit", "xlogy"):
        args = (x,) if name == "xlogy" else (0.4,) if name == "clamp" else ()  # clamp() with no bound is an error
        expected = getattr(x, name)(*args).numpy()
        y = x.clone()
        assert getattr(y, name + "_")(*args) is y
        assert (y.numpy() == expected).all()


# The differentiable namespace (``xp`` of a backward that builds a graph) holds the math with NumPy's
# meaning; the package exports the same functions, or PyTorch-extended ones whose NumPy call is the same.
PYTORCH_EXTENDED = {
    "var", "std",  # correction=/unbiased= and PyTorch's default under dim=
    "transpose",  # two dims: PyTorch's swap
    "split",  # dim=: pieces of a size
    "sort", "argsort",  # dim=/descending=: PyTorch's (values, indices)
    "flatten",  # start_dim/end_dim
    "squeeze",  # dim=: a named dim of another size than 1 stays
    "mean",  # dim=: integer input refused, dtype= casts first
    "index_add",  # mg.index_add is PyTorch's; xp.index_add is the adjoint of indexing
    "cumsum", "cumprod",  # dim=: a running sum or product of bools is PyTorch's NotImplementedError
    "flip", "roll",  # dims=, shifts=: PyTorch's keyword names
    "swapaxes",  # axis0=/axis1=: PyTorch's keyword names (its axis1 is NumPy's axis2)
    "max", "min", "argmax", "argmin", "take",  # input= (take's index=): PyTorch's keyword names
    "cross",  # dim=None: PyTorch's first dim of size 3, with its deprecation warning
    "meshgrid",  # operands in one list: PyTorch's spelling, with its default indexing="ij"
    "add",  # other=, and PyTorch's deprecated add(input, alpha, other) (deprecated_signatures.py)
}
NAMESPACE_ONLY = {"to_device"}  # a move between devices: Tensor.to is its public face


def test_the_differentiable_namespace_math_is_the_tables():
    from minigrad_ckpt.functional import math as mf
    from minigrad_ckpt.functional import namespace
    from minigrad_ckpt.functional.public_names import _WITH_OUT

    exported = table.exports("minigrad_ckpt")
    differs = set()
    for name in mf.__all__:
        assert getattr(namespace, name) is getattr(mf, name)
        public = exported.get(name)
        unwrapped = [public, getattr(public, "__wrapped__", None)]  # out= (out_arguments.with_out) wraps once more
        unwrapped.append(getattr(unwrapped[-1], "__wrapped__", None) if public in _WITH_OUT.values() else None)
        if getattr(mf, name) not in unwrapped:
            differs.add(name)
    assert differs == PYTORCH_EXTENDED | NAMESPACE_ONLY
    assert [name for name in PYTORCH_EXTENDED if name not in exported] == []


NUMPY_CALLS = {"var": (1,), "std": (1, 1), "sort": (1,), "argsort": (0,), "transpose": ((1, 0),), "split": (2,),
               "flatten": ()}


@pytest.mark.parametrize("name", sorted(NUMPY_CALLS))
def test_a_pytorch_extended_function_called_numpys_way_is_the_namespaces(name):
    from minigrad_ckpt.functional import namespace

    x = mg.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], dtype="float64")
    got, want = getattr(mg, name)(x, *NUMPY_CALLS[name]), getattr(namespace, name)(x, *NUMPY_CALLS[name])
    got, want = (got, want) if isinstance(want, list) else ([got], [want])
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
