"""An ``out=`` that shares memory with an input, on every function of the engine that PyTorch's
operator database says takes ``out=``: refused where PyTorch 2.13 refuses it ("some elements of the
input tensor and the written-to tensor refer to a single memory location"), taken where it takes it.

PyTorch's kernels write ``out`` while they read the inputs, so each refuses an ``out`` it could not
read and write in one pass; the engine computes first and copies after, and without the refusal it
answered where PyTorch refuses (before, only a dozen functions refused: ``mg.sin(x[:-1],
out=x[1:])`` answered, as did ``mg.gather(x, 0, i, out=x)``).

Expected: torch 2.13 on each function's sample from ``tests/data/torch_out_samples.json``, its input
and an ``out`` in the input's dtype laid in one buffer so that they share one element (the input's
last, the out's first); the two lists below are what torch answered (refused, or took).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from tests.test_out_samples import SAMPLES, _function, decode

#: torch 2.13 refuses these with the out sharing one element with the input
REFUSED = frozenset("""
    abs absolute acos acosh add addbmm addcdiv addcmul angle arccos arccosh arcsin arcsinh arctan
    arctan2 arctanh asin asinh atan atan2 atanh baddbmm bernoulli bitwise_and bitwise_left_shift
    bitwise_not bitwise_or bitwise_right_shift bitwise_xor ceil clamp clamp_max clamp_min conj_physical
    copysign cos cosh cross cumsum deg2rad digamma div eq erf erfc erfinv exp exp2 expm1 fix float_power
    floor floor_divide fmax fmin fmod frac frexp gather gcd ge greater greater_equal gt heaviside hypot
    i0 igamma igammac index_select kron kthvalue lcm ldexp le lerp less less_equal lgamma linalg.cross
    log log10 log1p log2 logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or
    logical_xor logit lt masked_select max maximum min minimum mode msort mul nan_to_num ne neg negative
    nextafter normal not_equal outer pow rad2deg reciprocal remainder renorm round rsqrt scatter
    scatter_add scatter_reduce sgn sigmoid sign sin sinc sinh sort special.airy_ai special.bessel_j0
    special.bessel_j1 special.bessel_y0 special.bessel_y1 special.chebyshev_polynomial_t
    special.chebyshev_polynomial_u special.chebyshev_polynomial_v special.chebyshev_polynomial_w
    special.digamma special.entr special.erf special.erfc special.erfcx special.erfinv special.exp2
    special.expit special.expm1 special.gammainc special.gammaincc special.gammaln
    special.hermite_polynomial_h special.hermite_polynomial_he special.i0 special.i0e special.i1
    special.i1e special.laguerre_polynomial_l special.legendre_polynomial_p special.log1p
    special.log_ndtr special.logit special.modified_bessel_i0 special.modified_bessel_i1
    special.modified_bessel_k0 special.modified_bessel_k1 special.ndtri special.psi special.round
    special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1
    special.shifted_chebyshev_polynomial_t special.shifted_chebyshev_polynomial_u
    special.shifted_chebyshev_polynomial_v special.shifted_chebyshev_polynomial_w special.sinc
    special.spherical_bessel_j0 special.xlog1py special.xlogy special.zeta sqrt square sub take tan tanh
    topk true_divide trunc xlogy""".split())
#: ... and takes these (a matrix product's, a decomposition's, a reduction's kernel reads before it
#: writes or works in its own buffer; addmm's and take_along_dim's sample input is broadcast, which
#: PyTorch reads through an expanded view whose overlap it does not judge)
TAKEN = frozenset("""
    addmm addmv addr amax amin aminmax bmm cholesky cholesky_inverse cholesky_solve cummax cummin
    cumprod diag diff dot fft.hfft fft.hfft2 fft.hfftn fft.irfft fft.irfft2 fft.irfftn histc histogram
    index_add index_copy index_reduce inner inverse linalg.cholesky linalg.cholesky_ex linalg.cond
    linalg.det linalg.eigh linalg.eigvalsh linalg.householder_product linalg.inv linalg.inv_ex
    linalg.ldl_factor linalg.ldl_factor_ex linalg.ldl_solve linalg.lstsq linalg.lu linalg.lu_factor
    linalg.lu_factor_ex linalg.lu_solve linalg.matrix_norm linalg.matrix_power linalg.matrix_rank
    linalg.norm linalg.pinv linalg.qr linalg.slogdet linalg.solve linalg.solve_ex
    linalg.solve_triangular linalg.svd linalg.svdvals linalg.tensorsolve linalg.vecdot
    linalg.vector_norm log_softmax logsumexp lu_unpack matmul matrix_power mean mm mv mvlgamma nanmean
    nanquantile nansum norm qr quantile slice_scatter slogdet softmax special.logsumexp
    special.multigammaln special.ndtr std svd take_along_dim tensordot tril triu var vdot""".split())
OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory location"


def _call_sharing_one_element(name: str, apart: bool = False):
    """``name``'s sample with its input and its (first) out laid in one buffer, sharing one element."""
    case = SAMPLES[name]
    x = decode(case["input"])
    n, m = x.numel(), int(np.prod(case["shapes"][0]))
    buffer = mg.zeros(n + m, dtype=x.dtype)
    buffer[:n] = x.reshape(-1)
    out = mg.zeros(case["shapes"][0], dtype=x.dtype) if apart else buffer[n - 1:n - 1 + m].reshape(case["shapes"][0])
    outs = (out, *(mg.empty(0, dtype=getattr(mg, d)) for d in case["dtypes"][1:])) if case["many"] else out
    mg.manual_seed(0)
    return _function(name)(buffer[:n].reshape(x.shape), *decode(case["args"]), **decode(case["kwargs"]), out=outs)


def test_the_lists_name_sampled_functions_once():
    assert REFUSED <= SAMPLES.keys() and TAKEN <= SAMPLES.keys() and not REFUSED & TAKEN


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_out_sharing_part_of_an_input_is_refused_as_pytorch_refuses_it(name):
    _call_sharing_one_element(name, apart=True)  # (the same call apart is answered)
    with pytest.raises(RuntimeError, match=OVERLAP):
        _call_sharing_one_element(name)


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_an_out_sharing_part_of_an_input_is_taken_where_pytorch_takes_it(name):
    _call_sharing_one_element(name)


def test_out_the_input_itself_is_taken_by_the_elementwise_functions_and_refused_by_the_gathers():
    x, ones = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([1, 1, 1])
    assert mg.sin(x, out=x) is x and np.allclose(x.numpy(), np.sin([1.0, 2.0, 3.0]))
    v, i = mg.sort(x, out=(x, mg.empty(0, dtype=mg.int64)))
    assert v is x
    for gather in (lambda: mg.gather(x, 0, mg.tensor([2, 1, 0]), out=x),
                   lambda: mg.index_select(x, 0, mg.tensor([2, 1, 0]), out=x),
                   lambda: mg.take(x, mg.tensor([2, 1, 0]), out=x),
                   lambda: mg.masked_select(x, mg.tensor([True, True, True]), out=x),
                   lambda: mg.linalg.cross(x, mg.tensor([4.0, 5.0, 7.0]), out=x),
                   lambda: mg.nonzero(ones, out=ones.view(3, 1))):
        with pytest.raises(RuntimeError, match=OVERLAP):
            gather()


def test_kthvalue_refuses_its_input_itself_as_values_out_where_sort_topk_mode_median_take_it():
    # torch 2.13: kthvalue's kernel asserts no overlap at all between its input and the values
    # (found running PyTorch's test_kthvalue_overlap against the engine, which answered)
    def x():
        return mg.tensor([3.0, 1.0, 4.0, 1.5, 9.0])
    with pytest.raises(RuntimeError, match=OVERLAP):
        a = x()
        mg.kthvalue(a, 2, out=(a, mg.empty(0, dtype=mg.int64)))
    with pytest.raises(RuntimeError, match=OVERLAP):
        a = x().view(5, 1)
        mg.kthvalue(a, 1, 1, True, out=(a, mg.empty(0, dtype=mg.int64)))
    a = x()
    v, i = mg.kthvalue(a.view(5, 1)[::2], 1, 1, out=(a[::2], mg.empty(0, dtype=mg.int64)))  # (not dense: taken)
    assert v.tolist() == [3.0, 4.0, 9.0]
    for other in (lambda a, i: mg.sort(a, out=(a, i)), lambda a, i: mg.topk(a, 5, out=(a, i)),
                  lambda a, i: mg.mode(a.view(5, 1), 1, True, out=(a.view(5, 1), i)),
                  lambda a, i: mg.median(a.view(5, 1), 1, True, out=(a.view(5, 1), i)),
                  lambda a, i: mg.max(a.view(5, 1), 1, True, out=(a.view(5, 1), i))):
        other(x(), mg.empty(0, dtype=mg.int64))
    k = mg.tensor([3, 1, 2])  # the indices out: an elementwise function's
    assert mg.kthvalue(k, 2, out=(mg.empty(0, dtype=mg.int64), k)).indices.tolist() == 2


def test_the_scatters_refuse_their_source_and_index_as_gathers_and_their_input_as_elementwise():
    def x():
        return mg.tensor([3.0, 1.0, 2.0, 5.0])
    i = mg.tensor([2, 1, 0])
    a = x()
    mg.index_add(a[:3], 0, i, mg.ones(3), out=a[:3])  # out the input itself: taken
    assert a.tolist() == [4.0, 2.0, 3.0, 5.0]
    for call in (lambda a: mg.index_add(a[:3], 0, i, mg.ones(3), out=a[1:]),
                 lambda a: mg.index_add(mg.ones(3), 0, i, a[:3], out=a[:3]),
                 lambda a: mg.scatter(a[:3], 0, i, mg.ones(3), out=a[1:])):
        with pytest.raises(RuntimeError, match=OVERLAP):
            call(x())


def test_an_elementwise_input_is_judged_before_it_is_broadcast_and_addmms_after():
    a = mg.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match=OVERLAP):  # (PyTorch's TensorIterator: the input as given)
        mg.add(a[:1], mg.ones(3), out=a[:3])
    m = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(RuntimeError, match=OVERLAP):
        mg.addmm(m[:2], mg.eye(2), mg.eye(2), out=m[1:])
    mg.addmm(m[0, :1], mg.eye(2), mg.eye(2), out=m[1:])  # broadcast: read through an expanded view
    assert m.tolist() == [[1.0, 2.0], [2.0, 1.0], [1.0, 2.0]]
    assert mg.max(a, out=a[0]) is not None and a[0].item() == 4.0  # max over all: its own kernel, taken
