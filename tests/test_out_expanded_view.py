"""An ``out=`` that is an expanded view (``mg.empty(1).expand(7)``: seven elements, one place in
memory), on every function of the engine that PyTorch's operator database says takes ``out=``:
refused where PyTorch 2.13 refuses it ("unsupported operation: more than one element of the
written-to tensor refers to a single memory location"), taken where it takes it.

PyTorch's TensorIterator (the elementwise functions) and the kernels of the selections and scatters
judge ``out`` before they resize it; the others resize it first, into a fresh buffer.  The engine
resized it everywhere, so ``mg.add(a, b, out=mg.empty(1).expand(7))`` answered where PyTorch refuses
(found by running PyTorch's OpInfo error inputs against the engine: ``index_select``'s, ``take``'s and
``masked_select``'s ask for this refusal).

Expected: torch 2.13 on each function's sample from ``tests/data/torch_out_samples.json`` with its
(first) ``out`` a one-element tensor of the result's dtype expanded to two elements more than the
result holds; the lists below are what torch answered.  Left out: ``fft.ifft`` and ``fft.ihfft``,
which torch refuses only for a real input (the cast to complex runs on TensorIterator; a complex
input is taken, as every other transform's), and the engine takes for both.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from tests.test_out_samples import SAMPLES, _function, decode

#: torch 2.13 refuses an expanded out of another length on these
REFUSED = frozenset("""
    abs absolute acos acosh add addcdiv addcmul addr angle arccos arccosh arcsin arcsinh arctan
    arctan2 arctanh asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_not
    bitwise_or bitwise_right_shift bitwise_xor ceil clamp clamp_max clamp_min complex conj_physical
    copysign cos cosh deg2rad digamma div eq erf erfc erfinv exp exp2 expm1 fix float_power floor
    floor_divide fmax fmin fmod frac frexp gcd ge greater greater_equal gt heaviside hypot i0 igamma
    igammac index_select isneginf isposinf lcm ldexp le lerp less less_equal lgamma log log10 log1p
    log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit lt masked_select
    maximum minimum mul nan_to_num ne neg negative nextafter nonzero not_equal outer polar pow
    rad2deg reciprocal remainder round rsqrt scatter scatter_add scatter_reduce sgn sigmoid sign
    signbit sin sinc sinh special.airy_ai special.bessel_j0 special.bessel_j1 special.bessel_y0
    special.bessel_y1 special.chebyshev_polynomial_t special.chebyshev_polynomial_u
    special.chebyshev_polynomial_v special.chebyshev_polynomial_w special.digamma special.entr
    special.erf special.erfc special.erfcx special.erfinv special.exp2 special.expit special.expm1
    special.gammainc special.gammaincc special.gammaln special.hermite_polynomial_h
    special.hermite_polynomial_he special.i0 special.i0e special.i1 special.i1e
    special.laguerre_polynomial_l special.legendre_polynomial_p special.log1p special.log_ndtr
    special.logit special.modified_bessel_i0 special.modified_bessel_i1 special.modified_bessel_k0
    special.modified_bessel_k1 special.ndtri special.psi special.round
    special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1
    special.shifted_chebyshev_polynomial_t special.shifted_chebyshev_polynomial_u
    special.shifted_chebyshev_polynomial_v special.shifted_chebyshev_polynomial_w special.sinc
    special.spherical_bessel_j0 special.xlog1py special.xlogy special.zeta sqrt square sub take tan
    tanh true_divide trunc xlogy""".split())
#: ... and resizes it, into a fresh buffer, on these
TAKEN = frozenset("""
    addbmm addmm addmv all amax amin aminmax any arange argmax argmin baddbmm bernoulli bmm
    bucketize cat cholesky cholesky_inverse cholesky_solve column_stack cross cummax cummin cumprod
    cumsum diag diff dot dstack empty eye fft.fft fft.fft2 fft.fftn fft.hfft fft.hfft2 fft.hfftn
    fft.ifft2 fft.ifftn fft.ihfft2 fft.ihfftn fft.irfft fft.irfft2 fft.irfftn fft.rfft fft.rfft2
    fft.rfftn full gather histc histogram hstack index_add index_copy index_reduce inner inverse
    isin kron kthvalue linalg.cholesky linalg.cholesky_ex linalg.cond linalg.cross linalg.det
    linalg.eig linalg.eigh linalg.eigvals linalg.eigvalsh linalg.householder_product linalg.inv
    linalg.inv_ex linalg.ldl_factor linalg.ldl_factor_ex linalg.ldl_solve linalg.lstsq linalg.lu
    linalg.lu_factor linalg.lu_factor_ex linalg.lu_solve linalg.matrix_norm linalg.matrix_power
    linalg.matrix_rank linalg.multi_dot linalg.norm linalg.pinv linalg.qr linalg.slogdet
    linalg.solve linalg.solve_ex linalg.solve_triangular linalg.svd linalg.svdvals
    linalg.tensorsolve linalg.vecdot linalg.vector_norm linspace log_softmax logcumsumexp logspace
    logsumexp lu_unpack matmul matrix_power max mean min mm mode msort multinomial mv mvlgamma
    nanmean nanquantile nansum norm normal ones qr quantile randn renorm searchsorted slice_scatter
    slogdet softmax sort special.logsumexp special.multigammaln special.ndtr stack std svd
    take_along_dim tensordot topk tril triu var vdot vstack zeros""".split())
OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory location"
EXPANDED = "more than one element of the written-to tensor refers to a single memory location"


def _call_into_expanded(name: str):
    case = SAMPLES[name]
    n = int(np.prod(case["shapes"][0]))
    first = mg.empty(1, dtype=getattr(mg, case["dtypes"][0])).expand(n + 2)
    outs = (first, *(mg.empty(0, dtype=getattr(mg, d)) for d in case["dtypes"][1:])) if case["many"] else first
    mg.manual_seed(0)
    return _function(name)(decode(case["input"]), *decode(case["args"]), **decode(case["kwargs"]), out=outs)


def test_the_lists_name_sampled_functions_once():
    assert REFUSED <= SAMPLES.keys() and TAKEN <= SAMPLES.keys() and not REFUSED & TAKEN


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_expanded_out_is_refused_where_pytorch_judges_out_before_resizing_it(name):
    with pytest.raises(RuntimeError, match=EXPANDED):
        _call_into_expanded(name)


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_an_expanded_out_is_resized_where_pytorch_resizes_it_first(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's warning that an out holding elements was resized)
        _call_into_expanded(name)


def test_the_shape_does_not_matter_and_nothing_is_written():
    a, b = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([4.0, 5.0, 6.0])
    base = mg.tensor([7.0])
    for out in (base.expand(3), base.expand(5)):
        with pytest.raises(RuntimeError, match=EXPANDED):
            mg.add(a, b, out=out)
    with pytest.raises(RuntimeError, match=EXPANDED):
        mg.max(a, b, out=base.expand(4))  # two tensors: PyTorch's maximum
    assert base.tolist() == [7.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values, _ = mg.max(mg.tensor([[1.0, 2.0], [3.0, 0.0]]), 1, out=(base.expand(4), mg.empty(0, dtype=mg.int64)))
    assert values.tolist() == [2.0, 3.0] and base.tolist() == [7.0]  # a reduction's kernel: resized first


def test_kthvalue_and_outer_refuse_an_out_that_is_their_input_itself():
    """Both read their input elsewhere than they write it (a selection; a vector read as a column), so
    PyTorch refuses an ``out`` sharing any of its memory, the same memory too, where the elementwise
    functions and ``sort`` take it (found by kthvalue's OpInfo error input: the engine answered)."""
    x = mg.tensor([3.0, 1.0, 2.0])
    with pytest.raises(RuntimeError, match=OVERLAP):
        mg.kthvalue(x, 2, out=(x, mg.empty(0, dtype=mg.int64)))
    with pytest.raises(RuntimeError, match=OVERLAP):
        mg.outer(x, mg.tensor([1.0, 2.0]), out=x)
    assert x.tolist() == [3.0, 1.0, 2.0]
    v, i = mg.sort(x, out=(x, mg.empty(0, dtype=mg.int64)))
    assert v is x and x.tolist() == [1.0, 2.0, 3.0]
