"""Cases found by running PyTorch's OpInfo samples (its own operator database) through the engine.

A differential probe fed every ``sample_inputs``/``error_inputs`` of torch 2.13's ``op_db`` to the
matching ``mg`` function and compared.  Each table below is one class of disagreement that was a
defect here; the expected answers come from NumPy (which agrees with PyTorch on each of them).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = np.arange(24, dtype=np.float64).reshape(2, 3, 2, 2) ** 1.5


# --- casting methods take to()'s memory_format (x.float(memory_format=torch.channels_last)) -------
CASTS = [("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"),
         ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"), ("bool", "bool"),
         ("cfloat", "complex64"), ("cdouble", "complex128")]


@pytest.mark.parametrize("method,dtype", CASTS)
@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format", "channels_last"])
def test_cast_methods_take_a_memory_format(method, dtype, fmt):
    x = mg.tensor(X)
    y = getattr(x, method)(memory_format=getattr(mg, fmt))
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y.numpy(), X.astype(dtype))
    if fmt == "channels_last":
        assert y.is_contiguous(memory_format=mg.channels_last)


# --- PyTorch's std(x, unbiased) / var(x, unbiased) overload: a bool second argument --------------
SPREADS = [
    ("std(x, True)", lambda x: mg.std(x, True), lambda a: np.std(a, ddof=1)),
    ("std(x, False)", lambda x: mg.std(x, False), lambda a: np.std(a, ddof=0)),
    ("var(x, True)", lambda x: mg.var(x, True), lambda a: np.var(a, ddof=1)),
    ("var(x, False)", lambda x: mg.var(x, False), lambda a: np.var(a, ddof=0)),
    ("x.std(True)", lambda x: x.std(True), lambda a: np.std(a, ddof=1)),
    ("x.var(False)", lambda x: x.var(False), lambda a: np.var(a, ddof=0)),
    ("var_mean(x, True)", lambda x: mg.var_mean(x, True), lambda a: (np.var(a, ddof=1), np.mean(a))),
    ("std_mean(x, False)", lambda x: mg.std_mean(x, False), lambda a: (np.std(a, ddof=0), np.mean(a))),
]


@pytest.mark.parametrize("case", SPREADS, ids=[c[0] for c in SPREADS])
def test_a_bool_second_argument_is_unbiased_over_all_elements(case):
    _, fn, ref = case
    x = mg.tensor(X[0, :, :, 0], requires_grad=True)
    got, want = fn(x), ref(X[0, :, :, 0])
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.shape == ()
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-13)
    got[0].backward()
    assert x.grad is not None


# --- diff with n=0 is the input, prepend/append unread (NumPy's and PyTorch's order of checks) ----
@pytest.mark.parametrize("kw", [dict(prepend=np.ones((1, 4))), dict(append=np.ones((2, 4))),
                                dict(prepend=np.ones((1, 4)), append=np.ones((2, 4)))])
def test_diff_of_order_zero_ignores_prepend_and_append(kw):
    a = np.arange(12.0).reshape(3, 4)
    got = mg.diff(mg.tensor(a), 0, 0, **{k: mg.tensor(v) for k, v in kw.items()})
    np.testing.assert_array_equal(got.numpy(), np.diff(a, 0, 0, **kw))


# --- arguments PyTorch and NumPy refuse, where an answer came back -------------------------------
def _t(*shape, dtype="float64"):
    return mg.tensor(np.linspace(0.5, 2.0, int(np.prod(shape))).astype(dtype).reshape(shape))


REFUSED = [
    ("cov: 2-D fweights", lambda: mg.cov(_t(5), fweights=_t(5, 5, dtype="int64"))),
    ("cov: 2-D aweights", lambda: mg.cov(_t(5), aweights=_t(5, 5))),
    ("cov: float fweights", lambda: mg.cov(_t(5), fweights=_t(5))),
    ("cov: one fweight for five observations", lambda: mg.cov(_t(5), fweights=mg.tensor(np.array([1])))),
    ("cov: three aweights for five observations", lambda: mg.cov(_t(2, 5), aweights=_t(3))),
    ("cov: a negative fweight", lambda: mg.cov(_t(5), fweights=mg.tensor(np.array([1, 2, -1, 1, 1])))),
    ("cov: a negative aweight", lambda: mg.cov(_t(5), aweights=mg.tensor(np.array([1., 2, -1, 1, 1])))),
    ("dot of lengths 1 and 3", lambda: mg.dot(_t(1), _t(3))),
    ("dot of (2, 1) and (3,)", lambda: mg.dot(_t(2, 1), _t(3))),
    ("x.dot of lengths 1 and 3", lambda: _t(1).dot(_t(3))),
    ("inner of lengths 1 and 3", lambda: mg.inner(_t(1), _t(3))),
    ("vdot of lengths 1 and 3", lambda: mg.vdot(_t(1), _t(3))),
    ("isclose with rtol < 0", lambda: mg.isclose(_t(3), _t(3), rtol=-0.4)),
    ("isclose with atol < 0", lambda: mg.isclose(_t(3), _t(3), atol=-0.4)),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_where_pytorch_and_numpy_refuse(case):
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        case[1]()


def test_the_accepted_neighbours_of_the_refusals_still_answer():
    a = np.linspace(0.5, 2.0, 10).reshape(2, 5)
    fw, aw = np.array([1, 2, 1, 3, 1]), np.array([0.5, 1.0, 2.0, 1.0, 0.25])
    got = mg.cov(mg.tensor(a), fweights=mg.tensor(fw), aweights=mg.tensor(aw))
    np.testing.assert_allclose(got.numpy(), np.cov(a, fweights=fw, aweights=aw), rtol=1e-13)
    np.testing.assert_allclose(mg.dot(_t(3), _t(3)).numpy(), np.dot(_t(3).numpy(), _t(3).numpy()))
    np.testing.assert_allclose(mg.inner(_t(2, 3), _t(3)).numpy(), np.inner(_t(2, 3).numpy(), _t(3).numpy()))
    assert bool(mg.isclose(_t(3), _t(3), rtol=0.0, atol=0.0).all())


@pytest.mark.parametrize("call", [lambda x: mg.sum(x, 0), lambda x: mg.mean(x, -1), lambda x: mg.cumsum(x, 0)])
def test_a_0d_tensors_refused_axis_does_not_quote_a_range_that_holds_it(call):
    """NumPy's meaning of a function's positional axis refuses axis 0 of a 0-d tensor; the message quoted
    PyTorch's range for it, "[-1, 0], but got 0", which contradicts itself (found porting test_vmap.py)."""
    with pytest.raises(IndexError, match="Dimension specified as -?[01] but tensor has no dimensions") as caught:
        call(mg.tensor(3.0))
    assert "[-1, 0]" not in str(caught.value)
