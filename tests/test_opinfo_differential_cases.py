"""Cases found by running PyTorch's OpInfo samples (its own operator database) through the engine.

A differential probe fed every ``sample_inputs``/``error_inputs`` of torch 2.13's ``op_db`` to the
matching ``mg`` function and compared.  Each table below is one class of disagreement that was a
defect here; the expected answers come from NumPy (which agrees with PyTorch on each of them).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F  # noqa: N812

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
    ("gradient along dim 0 twice", lambda: mg.gradient(_t(3, 4), dim=(0, 0))),
    ("gradient along dims 0 and -2", lambda: mg.gradient(_t(3, 4), dim=[0, -2])),
    ("gradient: one spacing in a list for two dims", lambda: mg.gradient(_t(3, 4), spacing=[2.0], dim=(0, 1))),
    ("gradient: one spacing in a list for every dim", lambda: mg.gradient(_t(3, 4), spacing=[2.0])),
    ("gradient: one coordinate tensor for two dims",
     lambda: mg.gradient(_t(3, 4), spacing=(mg.tensor(np.arange(3.0)),), dim=(0, 1))),
    ("cat into one of its inputs", lambda: _joined_into_an_input(lambda o: mg.cat([o[:3], o[3:]], out=o))),
    ("cat into a tensor an input views", lambda: _joined_into_an_input(lambda o: mg.cat([o[3:], o[3:]], out=o))),
    ("concat into one of its inputs", lambda: _joined_into_an_input(lambda o: mg.concat([o[:3], o[3:]], out=o))),
    ("stack into one of its inputs",
     lambda: _joined_into_an_input(lambda o: mg.stack([o[:3], o[3:]], out=o.view(2, 3)))),
    ("add into a shifted view of its input", lambda: _joined_into_an_input(lambda o: mg.add(o[:5], 1, out=o[1:]))),
    ("mul into a shifted view of its input", lambda: _joined_into_an_input(lambda o: mg.mul(o[1:], o[:5], out=o[:5]))),
    ("clamp into a shifted view of its input", lambda: _joined_into_an_input(lambda o: mg.clamp(o[:5], 0, out=o[1:]))),
    ("cumsum into a shifted view of its input",
     lambda: _joined_into_an_input(lambda o: mg.cumsum(o[:5], 0, out=o[1:]))),
    ("cumprod into a shifted view of its input",
     lambda: _joined_into_an_input(lambda o: mg.cumprod(o[1:], 0, out=o[:5]))),
    ("max_pool1d of no channels", lambda: F.max_pool1d(_t(2, 0, 4), 2)),
    ("max_pool1d of an unbatched (0, L)", lambda: F.max_pool1d(_t(0, 4), 2)),
    ("max_pool2d of no channels", lambda: F.max_pool2d(_t(2, 0, 4, 4), 2)),
    ("max_pool3d of no channels", lambda: F.max_pool3d(_t(2, 0, 4, 4, 4), 2)),
    ("max_pool3d of an unbatched (0, D, H, W)", lambda: F.max_pool3d(_t(0, 4, 4, 4), 2)),
    ("avg_pool1d of no channels", lambda: F.avg_pool1d(_t(2, 0, 4), 2)),
    ("avg_pool2d of no channels", lambda: F.avg_pool2d(_t(2, 0, 4, 4), 2)),
    ("avg_pool3d of no channels", lambda: F.avg_pool3d(_t(2, 0, 4, 4, 4), 2)),
    ("lp_pool2d of no channels", lambda: F.lp_pool2d(_t(2, 0, 4, 4), 2.0, 2)),
    ("adaptive_max_pool1d of no channels", lambda: F.adaptive_max_pool1d(_t(2, 0, 4), 2)),
    ("adaptive_max_pool2d of no channels", lambda: F.adaptive_max_pool2d(_t(2, 0, 4, 4), 2)),
    ("adaptive_max_pool3d of no channels", lambda: F.adaptive_max_pool3d(_t(2, 0, 4, 4, 4), 2)),
    ("adaptive_avg_pool3d of no channels", lambda: F.adaptive_avg_pool3d(_t(2, 0, 4, 4, 4), 2)),
    ("narrow from a bool tensor", lambda: mg.narrow(_t(3, 4), 0, mg.tensor(True), 1)),
    ("narrow from a float tensor", lambda: mg.narrow(_t(3, 4), 0, mg.tensor(1.0), 1)),
    ("narrow from a 1-D tensor", lambda: mg.narrow(_t(3, 4), 0, mg.tensor([1]), 1)),
    ("x.narrow from a bool tensor", lambda: _t(3, 4).narrow(0, mg.tensor(True), 1)),
    ("narrow from True", lambda: mg.narrow(_t(3, 4), 0, True, 1)),
    ("narrow for a length of True", lambda: mg.narrow(_t(3, 4), 0, 0, True)),
]


def _joined_into_an_input(write):
    """PyTorch's kernels write ``out`` while they read: an ``out`` that shares memory with an input
    (any of it, for cat and stack; some but not all, for elementwise ops) is refused."""
    return write(mg.tensor(np.arange(6.0)))


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
    f = np.arange(12.0).reshape(3, 4) ** 2
    for got, want in zip(mg.gradient(mg.tensor(f), spacing=None, dim=None), np.gradient(f)):  # PyTorch's defaults
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)
    (got,) = mg.gradient(mg.tensor(f), spacing=[2.0], dim=1)
    np.testing.assert_allclose(got.numpy(), np.gradient(f, 2.0, axis=1), rtol=1e-13)
    o = mg.tensor(np.arange(6.0))
    np.testing.assert_array_equal(mg.add(o, 1, out=o).numpy(), np.arange(6.0) + 1)  # the same memory: fine
    np.testing.assert_array_equal(mg.cumsum(o, 0, out=o).numpy(), np.cumsum(np.arange(6.0) + 1))
    assert F.max_pool2d(_t(0, 2, 4, 4), 2).shape == (0, 2, 2, 2)  # an empty batch is fine
    assert F.adaptive_avg_pool2d(_t(2, 0, 4, 4), 2).shape == (2, 0, 2, 2)  # (PyTorch's answer too)
    np.testing.assert_array_equal(mg.narrow(mg.tensor(a), 1, mg.tensor(2), 2).numpy(), a[:, 2:4])


# --- PyTorch's convolutions and pools expand a one-entry size list to every spatial dim -----------
_X4 = np.linspace(-1.0, 1.0, 2 * 6 * 6).reshape(1, 2, 6, 6) ** 3
_X5 = np.linspace(-1.0, 1.0, 2 * 4 * 6 * 6).reshape(1, 2, 4, 6, 6) ** 3
_W4, _W5 = np.linspace(-1, 1, 2 * 2 * 9).reshape(2, 2, 3, 3), np.linspace(-1, 1, 2 * 2 * 27).reshape(2, 2, 3, 3, 3)
ONE_FOR_ALL = [
    ("avg_pool2d", lambda x: F.avg_pool2d(x, [3], [1], [1]), lambda x: F.avg_pool2d(x, 3, 1, 1), _X4),
    ("avg_pool2d, stride [2]", lambda x: F.avg_pool2d(x, [3], [2]), lambda x: F.avg_pool2d(x, 3, 2), _X4),
    ("max_pool2d", lambda x: F.max_pool2d(x, [3], [1], [1], [2]), lambda x: F.max_pool2d(x, 3, 1, 1, 2), _X4),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, [3], [1], [1]), lambda x: F.avg_pool3d(x, 3, 1, 1), _X5),
    ("max_pool3d", lambda x: F.max_pool3d(x, [3], [2], [1]), lambda x: F.max_pool3d(x, 3, 2, 1), _X5),
    ("conv2d", lambda x: F.conv2d(x, mg.tensor(_W4), padding=[1], stride=[2], dilation=[2]),
     lambda x: F.conv2d(x, mg.tensor(_W4), padding=1, stride=2, dilation=2), _X4),
    ("conv3d", lambda x: F.conv3d(x, mg.tensor(_W5), padding=[1], stride=[2]),
     lambda x: F.conv3d(x, mg.tensor(_W5), padding=1, stride=2), _X5),
    ("conv_transpose2d", lambda x: F.conv_transpose2d(x, mg.tensor(_W4), stride=[2], padding=[1], output_padding=[1]),
     lambda x: F.conv_transpose2d(x, mg.tensor(_W4), stride=2, padding=1, output_padding=1), _X4),
]


@pytest.mark.parametrize("case", ONE_FOR_ALL, ids=[c[0] for c in ONE_FOR_ALL])
def test_a_one_entry_list_is_every_spatial_dims_size(case):
    _, listed, plain, x = case
    np.testing.assert_array_equal(listed(mg.tensor(x)).numpy(), plain(mg.tensor(x)).numpy())


@pytest.mark.parametrize("call", [lambda x: F.unfold(x, [2]), lambda x: F.fold(F.unfold(x, 2), (6, 6), [2]),
                                  lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), [2])],
                         ids=["unfold", "fold", "max_unpool2d"])
def test_where_pytorch_refuses_a_one_entry_list_so_does_the_engine(call):
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        call(mg.tensor(_X4))


# --- calls PyTorch answers that the engine refused (expected values from NumPy) ------------------
_ROW = np.array([[0.5, -1.0, 2.0, 3.5]])
_I8 = (np.arange(36) * 37 % 251 - 125).astype(np.int8).reshape(1, 2, 3, 6)


def _np_max_pool_ceil(a, k, s, p=0):
    """NumPy's max over (k, k) windows every s, a last partial window kept (ceil_mode), after
    padding p places of the dtype's minimum on each side."""
    h, w = a.shape[-2:]
    oh, ow = -(-(h + 2 * p - k) // s) + 1, -(-(w + 2 * p - k) // s) + 1
    oh, ow = oh - ((oh - 1) * s >= h + p), ow - ((ow - 1) * s >= w + p)
    a = np.pad(a, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=np.iinfo(a.dtype).min)
    return np.array([[[[a[n, c, i * s:i * s + k, j * s:j * s + k].max() for j in range(ow)] for i in range(oh)]
                      for c in range(a.shape[1])] for n in range(a.shape[0])])


ANSWERED = [
    ("pad replicate, a crop past the edge", lambda: F.pad(mg.tensor(_ROW), (-4, 5), "replicate"),
     np.full((1, 5), 3.5)),
    ("pad replicate, crop left and grow right", lambda: F.pad(mg.tensor(_ROW), (-3, 2), "replicate"),
     np.full((1, 3), 3.5)),
    ("pad replicate, grow left and crop right past", lambda: F.pad(mg.tensor(_ROW), (1, -4), "replicate"),
     np.array([[0.5]])),
    ("pad replicate, 2-D", lambda: F.pad(mg.tensor(_ROW[None]), (-4, 5, 0, 1), "replicate"), np.full((1, 2, 5), 3.5)),
    ("masked_scatter, mask of more dims", lambda: mg.masked_scatter(mg.tensor(np.arange(3.0)), mg.tensor(np.eye(3,
     dtype=bool)), mg.tensor(-np.arange(1.0, 10.0).reshape(3, 3))), np.where(np.eye(3, dtype=bool), [[-1, 0, 0],
                                                                                                  [0, -2, 0],
                                                                                                  [0, 0, -3]],
                                                                         np.arange(3.0))),
    ("multi_margin_loss of a 0-d input", lambda: F.multi_margin_loss(mg.tensor(0.7), mg.tensor(0)), np.float32(0.0)),
    ("multilabel_margin_loss of a 0-d input", lambda: F.multilabel_margin_loss(mg.tensor(0.7), mg.tensor(0),
                                                                               reduction="none"), np.float32(0.0)),
    ("max_pool2d of int8, ceil_mode", lambda: F.max_pool2d(mg.tensor(_I8), 3, 2, ceil_mode=True),
     _np_max_pool_ceil(_I8, 3, 2)),
    ("max_pool2d of negative int8, padding, ceil_mode", lambda: F.max_pool2d(mg.tensor(-abs(_I8) - 1), 3, 2, 1,
                                                                              ceil_mode=True),
     _np_max_pool_ceil(-abs(_I8) - 1, 3, 2, 1)),
    ("max_pool2d of int64, ceil_mode", lambda: F.max_pool2d(mg.tensor(_I8.astype(np.int64)), 3, 2, ceil_mode=True),
     _np_max_pool_ceil(_I8.astype(np.int64), 3, 2)),
    ("linalg.vander of a 0-d input", lambda: mg.linalg.vander(mg.tensor(1.5), N=3),
     np.array([[1.0, 1.5, 2.25]], np.float32)),
    ("triu_indices(3, 4, 1, dtype=int32)", lambda: mg.triu_indices(3, 4, 1, dtype=mg.int32),
     np.stack(np.triu_indices(3, 1, 4)).astype(np.int32)),
    ("tril_indices(3, 4, -1, device='cpu')", lambda: mg.tril_indices(3, 4, -1, device="cpu"),
     np.stack(np.tril_indices(3, -1, 4))),
]


@pytest.mark.parametrize("case", ANSWERED, ids=[c[0] for c in ANSWERED])
def test_answered_as_pytorch_answers(case):
    _, call, want = case
    got = call()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_replicate_padding_past_the_edge_sends_the_gradient_to_the_edge():
    x = mg.tensor(_ROW, requires_grad=True)
    F.pad(x, (-4, 5), "replicate").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0, 0.0, 5.0]])


@pytest.mark.parametrize("mode,widths", [("replicate", (-3, -1)), ("replicate", (-4, 0)), ("reflect", (-3, -1))])
def test_padding_to_nothing_is_refused(mode, widths):
    with pytest.raises((ValueError, RuntimeError)):
        F.pad(mg.tensor(_ROW), widths, mode)


# --- integer and bool results keep their dtype, wrapping as PyTorch's kernels do -----------------
_B1, _B2 = np.arange(30).reshape(3, 5, 2) % 7, np.arange(24).reshape(3, 2, 4) % 5
_C = np.arange(20).reshape(5, 4) % 9
_V1, _V2 = np.array([True, False, True]), np.array([True, True, False, False])
_CB = np.array([[True, False, False, True]] * 3)


def _wrapped(values, dtype):
    return np.asarray(values).astype(np.int64).astype(dtype)  # (C's conversion: modulo 2**bits)


KEPT_DTYPES = [
    ("addbmm of uint8", lambda: mg.addbmm(*(mg.tensor(a.astype(np.uint8)) for a in (_C, _B1, _B2)), beta=3, alpha=2),
     _wrapped(3 * _C + 2 * (_B1 @ _B2).sum(0), np.uint8)),
    ("addbmm of int8", lambda: mg.addbmm(*(mg.tensor(a.astype(np.int8)) for a in (_C, _B1, _B2)), beta=3, alpha=2),
     _wrapped(3 * _C + 2 * (_B1 @ _B2).sum(0), np.int8)),
    ("addbmm of int32", lambda: mg.addbmm(*(mg.tensor(a.astype(np.int32)) for a in (_C, _B1, _B2))),
     (_C + (_B1 @ _B2).sum(0)).astype(np.int32)),
    ("addr of bools, beta=3, alpha=2", lambda: mg.addr(mg.tensor(_CB), mg.tensor(_V1), mg.tensor(_V2), beta=3, alpha=2),
     _CB | np.outer(_V1, _V2)),
    ("addr of bools, beta=True, alpha=False", lambda: mg.addr(mg.tensor(_CB), mg.tensor(_V1), mg.tensor(_V2),
                                                            beta=True, alpha=False), _CB),
    ("addr of bools, beta=0", lambda: mg.addr(mg.tensor(_CB), mg.tensor(_V1), mg.tensor(_V2), beta=0),
     np.outer(_V1, _V2)),
    ("addmm of bools, beta=3, alpha=2", lambda: mg.addmm(mg.tensor(_CB[:2, :2]), mg.tensor(_CB[:2, :3]),
                                                         mg.tensor(_CB[:3, :2]), beta=3, alpha=2),
     _CB[:2, :2] | (_CB[:2, :3].astype(int) @ _CB[:3, :2].astype(int) > 0)),
    ("arange(-1, 2, 2, dtype=uint8)", lambda: mg.arange(-1, 2, 2, dtype=mg.uint8), np.array([255, 1], np.uint8)),
    ("arange(0, -8, -4, dtype=uint8)", lambda: mg.arange(0, -8, -4, dtype=mg.uint8), np.array([0, 252], np.uint8)),
    ("arange(250, 260, 3, dtype=int8)", lambda: mg.arange(250, 260, 3, dtype=mg.int8),
     np.array([-6, -3, 0, 3], np.int8)),
]


@pytest.mark.parametrize("case", KEPT_DTYPES, ids=[c[0] for c in KEPT_DTYPES])
def test_integer_and_bool_results_keep_their_dtype(case):
    _, call, want = case
    got = call()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_a_float_coefficient_of_a_bool_fused_form_is_refused():
    with pytest.raises(RuntimeError):
        mg.addr(mg.tensor(_CB), mg.tensor(_V1), mg.tensor(_V2), beta=0.5)


# --- side outputs PyTorch records on the graph: a real slogdet's sign, lstsq's residuals ---------
_SQUARE = np.array([[2.0, 1.0, 0.0], [1.0, -3.0, 1.0], [0.5, 1.0, 1.0]])
_TALL = np.linspace(-1, 1, 15).reshape(5, 3) ** 3 + np.eye(5, 3)
_WIDE = np.linspace(-1, 1, 6).reshape(2, 3) + np.eye(2, 3)


@pytest.mark.parametrize("a", [_SQUARE, np.array([[1.0, 2.0], [2.0, 4.0]]), np.stack([_SQUARE, -_SQUARE])],
                         ids=["regular", "singular", "batch"])
def test_a_real_slogdet_sign_is_recorded_with_gradient_zero(a):
    x = mg.tensor(a, requires_grad=True)
    sign, logabsdet = mg.linalg.slogdet(x)
    np.testing.assert_array_equal(sign.numpy(), np.linalg.slogdet(a)[0])
    assert sign.requires_grad
    sign.sum().backward()  # (PyTorch's runs too; its gradient is None, here 0 -- not NaN at a singular matrix)
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros_like(a))
    g = mg.func.grad(lambda m: (mg.linalg.slogdet(m)[0] * mg.linalg.slogdet(m)[1]).sum())(mg.tensor(_SQUARE))
    np.testing.assert_allclose(g.numpy(), np.linalg.slogdet(_SQUARE)[0] * np.linalg.inv(_SQUARE).T, rtol=1e-12)


@pytest.mark.parametrize("a,driver", [(_TALL, "gelsy"), (_TALL, "gels"), (_WIDE, "gelsd"), (_WIDE, None),
                                      (np.stack([_WIDE, _WIDE]), "gelss")])
def test_lstsq_residuals_are_on_the_graph_even_empty(a, driver):
    x = mg.tensor(a, requires_grad=True)
    b = mg.tensor(np.ones(a.shape[:-1] + (2,)), requires_grad=True)
    result = mg.linalg.lstsq(x, b, driver=driver)
    assert result.residuals.requires_grad and result.solution.requires_grad
    assert not result.rank.requires_grad
    (result.solution.sum() + result.residuals.sum()).backward()
    assert x.grad is not None and b.grad is not None


@pytest.mark.parametrize("call", [lambda x: mg.sum(x, 0), lambda x: mg.mean(x, -1), lambda x: mg.cumsum(x, 0)])
def test_a_0d_tensors_refused_axis_does_not_quote_a_range_that_holds_it(call):
    """NumPy's meaning of a function's positional axis refuses axis 0 of a 0-d tensor; the message quoted
    PyTorch's range for it, "[-1, 0], but got 0", which contradicts itself (found porting test_vmap.py)."""
    with pytest.raises(IndexError, match="Dimension specified as -?[01] but tensor has no dimensions") as caught:
        call(mg.tensor(3.0))
    assert "[-1, 0]" not in str(caught.value)
