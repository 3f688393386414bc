"""The results of functions of several results are PyTorch's ``torch.return_types``: a class named as the
function (``mg.return_types.max``, ``mg.return_types.linalg_svd``), its fields in torch's order, built from
one sequence of them as torch's struct sequences are (``type(r)(map(f, r))``), a repr that names the
function, pickled as itself, and the function's ``<name>_out`` class where ``out=`` holds the results
(torch's ``max_out``, ...).

The engine answered one class for many functions (``max``, ``sort``, ``topk``, ``median``, ... all
``ValuesIndices``; ``linalg.slogdet`` and ``torch.slogdet`` both ``SlogdetResult``), with no
``mg.return_types`` to name them, a repr naming that shared class, and ``type(r)(list(r))`` a TypeError.
Found running PyTorch's ``test_namedtuple_return_api.py`` against the engine.  Expected: the class names
and field names of torch 2.13's answers (its ``test_namedtuple_return``), pasted here.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg

A = np.array([[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 5.0]])  # symmetric positive definite
#: (torch.return_types' name, the call, its fields in torch's order, a Tensor method giving the same class)
CASES = [
    ("max", lambda x, **o: mg.max(x, dim=0, **o), ("values", "indices"), lambda x: x.max(0)),
    ("min", lambda x, **o: mg.min(x, dim=0, **o), ("values", "indices"), lambda x: x.min(0)),
    ("median", lambda x, **o: mg.median(x, dim=0, **o), ("values", "indices"), lambda x: x.median(0)),
    ("nanmedian", lambda x, **o: mg.nanmedian(x, dim=0, **o), ("values", "indices"), lambda x: x.nanmedian(0)),
    ("mode", lambda x, **o: mg.mode(x, 0, **o), ("values", "indices"), lambda x: x.mode(0)),
    ("sort", lambda x, **o: mg.sort(x, dim=0, **o), ("values", "indices"), lambda x: x.sort(0)),
    ("topk", lambda x, **o: mg.topk(x, 2, **o), ("values", "indices"), lambda x: x.topk(2)),
    ("cummax", lambda x, **o: mg.cummax(x, 0, **o), ("values", "indices"), lambda x: x.cummax(0)),
    ("cummin", lambda x, **o: mg.cummin(x, 0, **o), ("values", "indices"), lambda x: x.cummin(0)),
    ("kthvalue", lambda x, **o: mg.kthvalue(x, 1, 0, **o), ("values", "indices"), lambda x: x.kthvalue(1, 0)),
    ("aminmax", lambda x, **o: mg.aminmax(x, **o), ("min", "max"), lambda x: x.aminmax()),
    ("frexp", lambda x, **o: mg.frexp(x, **o), ("mantissa", "exponent"), lambda x: x.frexp()),
    ("histogram", lambda x, **o: mg.histogram(x, 3, **o), ("hist", "bin_edges"), lambda x: x.histogram(3)),
    ("svd", lambda x, **o: mg.svd(x, **o), ("U", "S", "V"), lambda x: x.svd()),
    ("linalg_svd", lambda x, **o: mg.linalg.svd(x, **o), ("U", "S", "Vh"), None),
    ("slogdet", lambda x, **o: mg.slogdet(x, **o), ("sign", "logabsdet"), lambda x: x.slogdet()),
    ("linalg_slogdet", lambda x, **o: mg.linalg.slogdet(x, **o), ("sign", "logabsdet"), None),
    ("qr", lambda x, **o: mg.qr(x, **o), ("Q", "R"), lambda x: x.qr()),
    ("linalg_qr", lambda x, **o: mg.linalg.qr(x, **o), ("Q", "R"), None),
    ("linalg_eig", lambda x, **o: mg.linalg.eig(x, **o), ("eigenvalues", "eigenvectors"), None),
    ("linalg_eigh", lambda x, **o: mg.linalg.eigh(x, **o), ("eigenvalues", "eigenvectors"), None),
    ("linalg_cholesky_ex", lambda x, **o: mg.linalg.cholesky_ex(x, **o), ("L", "info"), None),
    ("linalg_inv_ex", lambda x, **o: mg.linalg.inv_ex(x, **o), ("inverse", "info"), None),
    ("linalg_solve_ex", lambda x, **o: mg.linalg.solve_ex(x, x, **o), ("result", "info"), None),
    ("linalg_lu_factor", lambda x, **o: mg.linalg.lu_factor(x, **o), ("LU", "pivots"), None),
    ("linalg_lu_factor_ex", lambda x, **o: mg.linalg.lu_factor_ex(x, **o), ("LU", "pivots", "info"), None),
    ("linalg_ldl_factor", lambda x, **o: mg.linalg.ldl_factor(x, **o), ("LD", "pivots"), None),
    ("linalg_ldl_factor_ex", lambda x, **o: mg.linalg.ldl_factor_ex(x, **o), ("LD", "pivots", "info"), None),
    ("linalg_lu", lambda x, **o: mg.linalg.lu(x, **o), ("P", "L", "U"), None),
    ("linalg_lstsq", lambda x, **o: mg.linalg.lstsq(x, x, **o), ("solution", "residuals", "rank",
                                                                  "singular_values"), None),
    ("lu_unpack", lambda x, **o: mg.lu_unpack(*mg.linalg.lu_factor(x), **o), ("P", "L", "U"), None),
]
#: torch.linalg.lstsq takes no out=
WITHOUT_OUT = {"linalg_lstsq"}
IDS = [case[0] for case in CASES]


@pytest.mark.parametrize("name, call, fields, method", CASES, ids=IDS)
def test_each_answer_is_its_functions_return_type(name, call, fields, method):
    result = call(mg.tensor(A))
    cls = getattr(mg.return_types, name)
    assert type(result) is cls and cls.__name__ == name and cls.__module__ == "minigrad_ckpt.return_types"
    assert isinstance(result, tuple) and len(result) == len(fields) == cls.n_fields and cls._fields == fields
    assert all(getattr(result, field) is result[i] for i, field in enumerate(fields))
    first, *rest = result
    assert first is result[0] and len(rest) == len(fields) - 1 and result[-1] is result[len(fields) - 1]
    assert repr(result).startswith(f"minigrad_ckpt.return_types.{name}(\n{fields[0]}=tensor(")
    assert all(f"\n{field}=" in repr(result) for field in fields)
    if method is not None:
        assert type(method(mg.tensor(A))) is cls


@pytest.mark.parametrize("name, call, fields, method", CASES, ids=IDS)
def test_each_return_type_is_built_as_torchs_and_as_a_named_tuple(name, call, fields, method):
    result = call(mg.tensor(A))
    cls = type(result)
    for rebuilt in (cls(list(result)), cls(iter(result)), cls(*result), cls(**result._asdict()), cls._make(result)):
        assert type(rebuilt) is cls and all(a is b for a, b in zip(rebuilt, result))
    with pytest.raises(TypeError, match=f"{name}\\(\\) takes a {len(fields)}-sequence \\(1-sequence given\\)"):
        cls([result[0]])
    for copied in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
        assert type(copied) is cls
        for a, b in zip(copied, result):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("name, call, fields, method", [c for c in CASES if c[0] not in WITHOUT_OUT],
                         ids=[i for i in IDS if i not in WITHOUT_OUT])
def test_an_out_tuple_answers_the_functions_out_class_of_the_out_tensors(name, call, fields, method):
    """torch 2.13 answers ``out=`` in ``torch.return_types.<name>_out`` (``max_out``, ``linalg_eigh_out``), a
    sibling of ``<name>``, not a subclass: the engine answered ``<name>`` itself."""
    result = call(mg.tensor(A))
    outs = tuple(mg.empty(0, dtype=t.dtype) for t in result)
    written = call(mg.tensor(A), out=outs)
    cls = getattr(mg.return_types, f"{name}_out")
    assert type(written) is cls and cls.__name__ == f"{name}_out" and not isinstance(written, type(result))
    assert isinstance(written, type(result).__bases__[0]) and cls._fields == fields and cls.n_fields == len(fields)
    assert all(a is b for a, b in zip(written, outs)) and written[0] is getattr(written, fields[0])
    assert repr(written).startswith(f"minigrad_ckpt.return_types.{name}_out(\n{fields[0]}=tensor(")
    for a, b in zip(written, result):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for rebuilt in (pickle.loads(pickle.dumps(written)), cls(list(written))):
        assert type(rebuilt) is cls


def test_the_module_offers_torchs_names():
    import minigrad_ckpt.return_types as rt

    assert rt is mg.return_types and set(IDS) <= set(rt.__all__)
    assert rt.sort is not rt.max and issubclass(rt.sort, mg.ValuesIndices)  # one class each, one base
