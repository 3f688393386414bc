"""Every public function of ``mg``, ``mg.linalg`` and ``mg.fft`` on complex input, classified.

One table says, for each name, what it does with a complex tensor:

* ``FIXTURES`` -- it is differentiable there, and PyTorch fixtures check its value,
  gradient, jvp, second derivative and complex64 forward pass: the table names the
  functions of ``tests/data/torch_complex_reference.npz`` that call it (``"exp"``,
  ``"fft.rfft"``, ``"ops.getitem_mask"`` -- ``tests/data/complex_op_cases.py`` --,
  ``"cases.qr_r"`` -- ``tests/data/complex_linalg_cases.py``), and each must be there;
* ``FORWARD_ONLY`` -- it takes complex input and has no derivative (tests, counts,
  indices, constructors): its result is checked against NumPy's;
* ``GRADCHECKED`` -- it is differentiable there but PyTorch has no complex derivatives
  for it (``cdist``, ``index_reduce``, ``erf``): ``mg.testing.gradcheck`` and ``gradgradcheck``
  check its first and second derivatives, both modes, against central differences;
* ``REFUSED`` -- it has no meaning for complex numbers (an order, rounding, a real-only
  kernel, a factorization whose gradient is written for real matrices): a clear error
  that names it, as PyTorch's;
* ``NO_TENSOR_INPUT`` -- it takes no tensor to make complex (sizes, seeds, state, files,
  the autograd entry points);
* ``ELSEWHERE`` -- its complex support is another part's: the special functions.

A public function that is in none of them fails ``test_every_public_function_is_classified``:
adding one means saying what it does with complex numbers.  Aliases (``absolute`` of
``abs``) share their function's entry.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck

with np.load(Path(__file__).with_name("data") / "torch_complex_reference.npz") as _npz:
    FIXTURE_FUNCTIONS = {case["fn"] for case in json.loads(_npz["__meta__"].tobytes().decode()).values()}

#: public name -> the fixture functions that call it (each must be in the fixture)
FIXTURES: dict[str, tuple[str, ...]] = {
    # elementwise
    "abs": ("abs", "ops.abs_method"), "angle": ("angle",), "arccos": ("arccos",), "arccosh": ("arccosh",),
    "arcsin": ("arcsin",), "arcsinh": ("arcsinh",), "arctan": ("arctan",), "arctanh": ("arctanh",),
    "add": ("add",), "subtract": ("subtract",), "multiply": ("multiply",), "divide": ("divide", "ops.true_divide"),
    "negative": ("negative",), "power": ("power", "ops.power_int", "ops.power_float", "ops.rpow"),
    "reciprocal": ("reciprocal",), "square": ("square",), "sqrt": ("sqrt",), "rsqrt": ("ops.rsqrt",),
    "exp": ("exp",), "exp2": ("exp2",), "expm1": ("expm1",), "log": ("log",), "log10": ("log10",),
    "log1p": ("log1p",), "log2": ("log2",), "sin": ("sin",), "cos": ("cos",), "tan": ("tan",),
    "sinh": ("sinh",), "cosh": ("cosh",), "tanh": ("tanh",), "sinc": ("sinc",), "sign": ("ops.sign",),
    "deg2rad": ("ops.deg2rad",), "rad2deg": ("ops.rad2deg",), "lerp": ("ops.lerp_scalar", "ops.lerp_tensor"),
    "ldexp": ("ops.ldexp",), "nan_to_num": ("ops.nan_to_num",), "where": ("ops.where", "ops.where_real_operand"),
    # complex parts and construction
    "real": ("real", "ops.real_imag_attrs"), "imag": ("imag",), "conj": ("conj", "ops.conj_method"),
    "conj_physical": ("conj_physical",), "adjoint": ("adjoint",), "sigmoid": ("sigmoid",),
    "complex": ("complex", "ops.complex_from_parts"), "polar": ("polar", "ops.polar_of_parts"),
    "view_as_real": ("view_as_real",), "view_as_complex": ("view_as_complex",), "clone": ("ops.clone",),
    # reductions, scans, statistics
    "sum": ("sum", "ops.sum_keepdim"), "mean": ("mean", "ops.mean_dim"), "prod": ("prod", "ops.prod_dim"),
    "cumsum": ("cumsum", "ops.cumsum_dim0"), "cumprod": ("cumprod", "ops.cumprod_dim0"),
    "var": ("var", "ops.var_dim"), "std": ("std", "ops.std_biased"), "var_mean": ("ops.var_mean",),
    "std_mean": ("ops.std_mean",), "nansum": ("ops.nansum",), "nanmean": ("ops.nanmean",),
    "logsumexp": ("ops.logsumexp",), "logcumsumexp": ("ops.logcumsumexp",), "renorm": ("ops.renorm",),
    "diff": ("ops.diff",), "gradient": ("ops.gradient",), "trapezoid": ("ops.trapezoid",),
    "cumulative_trapezoid": ("ops.cumulative_trapezoid",), "cov": ("ops.cov",), "corrcoef": ("ops.corrcoef",),
    "trace": ("ops.trace",), "sum_to": ("ops.sum_to",),
    # products
    "matmul": ("matmul", "ops.matmul_batched", "ops.matmul_vector"),
    "einsum": ("einsum", "ops.einsum_trace", "ops.einsum_batched", "ops.einsum_outer_sum"),
    "tensordot": ("tensordot", "ops.tensordot_int"), "dot": ("ops.dot",), "inner": ("ops.inner",),
    "outer": ("outer",), "kron": ("kron",), "cross": ("ops.cross",),
    # shape and layout
    "reshape": ("ops.reshape", "ops.view_method"), "transpose": ("ops.transpose",), "permute": ("ops.permute",),
    "t": ("ops.matrix_t",), "swapaxes": ("ops.swapaxes",), "moveaxis": ("ops.movedim",), "movedim": ("ops.movedim",),
    "squeeze": ("ops.squeeze",), "unsqueeze": ("ops.unsqueeze",), "expand_dims": ("ops.expand_dims",),
    "flatten": ("ops.flatten",), "ravel": ("ops.ravel",), "unflatten": ("ops.unflatten",),
    "atleast_1d": ("ops.atleast_1d",), "atleast_2d": ("ops.atleast_2d",), "atleast_3d": ("ops.atleast_3d",),
    "cat": ("ops.cat",), "concat": ("ops.cat",), "concatenate": ("ops.concatenate",), "stack": ("ops.stack",),
    "hstack": ("ops.hstack",), "vstack": ("ops.vstack",), "dstack": ("ops.dstack",),
    "column_stack": ("ops.column_stack",), "split": ("ops.split_sizes", "ops.split_even"), "chunk": ("ops.chunk",),
    "unbind": ("ops.unbind",), "tensor_split": ("ops.tensor_split",), "hsplit": ("ops.hsplit",),
    "vsplit": ("ops.vsplit",), "dsplit": ("ops.dsplit",), "flip": ("flip", "ops.flip"),
    "roll": ("ops.roll", "ops.roll_flat"), "rot90": ("ops.rot90",), "broadcast_to": ("ops.broadcast_to",),
    "broadcast_tensors": ("ops.broadcast_tensors",), "tile": ("ops.tile",), "repeat": ("ops.repeat_interleave",),
    "pad": ("ops.pad",), "narrow": ("ops.narrow",), "tril": ("ops.tril",), "triu": ("ops.triu",),
    "diagonal": ("ops.diagonal",), "diag": ("ops.diag_of_matrix", "ops.diag_of_vector"),
    "diag_embed": ("ops.diag_embed",), "diagflat": ("ops.diagflat",), "block_diag": ("ops.block_diag",),
    "meshgrid": ("ops.meshgrid",), "cartesian_prod": ("ops.cartesian_prod",), "combinations": ("ops.combinations",),
    # indexing and writes (out of place; in-place writes are the ``setitem_*`` cases)
    "getitem": ("ops.getitem_function",), "gather": ("ops.gather",), "take_along_axis": ("ops.take_along_axis",),
    "index_select": ("ops.index_select",), "take": ("ops.take",), "masked_select": ("ops.masked_select",),
    "masked_fill": ("ops.masked_fill",), "index_fill": ("ops.index_fill",), "scatter": ("ops.scatter",),
    "scatter_add": ("ops.scatter_add",), "scatter_reduce": ("ops.scatter_reduce_sum",),
    "index_add": ("ops.index_add",), "index_copy": ("ops.index_copy",),
    "index_put": ("ops.index_put", "ops.index_put_accumulate"), "masked_scatter": ("ops.masked_scatter",),
    "put": ("ops.put",), "select_scatter": ("ops.select_scatter",), "slice_scatter": ("ops.slice_scatter",),
    "diagonal_scatter": ("ops.diagonal_scatter",),
    # mg.linalg
    "linalg.inv": ("linalg.inv",), "linalg.det": ("linalg.det",), "linalg.solve": ("linalg.solve",),
    "linalg.norm": ("linalg.norm",), "linalg.vector_norm": ("ops.vector_norm_1", "ops.vector_norm_2"),
    "linalg.matrix_norm": ("ops.matrix_norm_fro", "ops.matrix_norm_nuc"), "linalg.vecdot": ("ops.vecdot",),
    "linalg.multi_dot": ("ops.multi_dot",), "linalg.matrix_power": ("ops.matrix_power", "ops.matrix_power_negative"),
    "linalg.eigh": ("cases.eigh_values", "cases.eigh_projector"), "linalg.eigvalsh": ("ops.eigvalsh",),
    "linalg.svd": ("cases.svd_values", "cases.svd_polar"), "linalg.svdvals": ("ops.svdvals",),
    "linalg.qr": ("cases.qr_q", "cases.qr_r"), "linalg.cholesky": ("cases.cholesky",),
    "linalg.slogdet": ("cases.slogdet_sign", "cases.slogdet_logabsdet"), "linalg.eig": ("cases.eig_exp",),
    # (mg.slogdet is linalg.slogdet's answer in torch.return_types.slogdet: one computation)
    "slogdet": ("cases.slogdet_sign", "cases.slogdet_logabsdet"),
    "linalg.eigvals": ("cases.eigvals_exp_sum",), "linalg.cond": ("ops.cond",),
    "linalg.householder_product": ("ops.householder_product",), "linalg.tensorinv": ("ops.tensorinv",),
    "linalg.tensorsolve": ("ops.tensorsolve",),
    "linalg.pinv": ("linalg.pinv", "cases.pinv_hermitian"), "linalg.lstsq": ("cases.lstsq_solution",),
    "linalg.solve_triangular": ("cases.solve_upper", "cases.solve_lower_unit_right"),
    "linalg.cholesky_solve": ("cases.cholesky_solve", "cases.cholesky_solve_upper"),
    "linalg.cholesky_inverse": ("cases.cholesky_inverse",),
    "cholesky_inverse": ("cases.cholesky_inverse",),
    "cholesky_solve": ("cases.cholesky_solve", "cases.cholesky_solve_upper"),
    "linalg.matrix_exp": ("linalg.matrix_exp",),
    "linalg.lu": ("cases.lu_lower", "cases.lu_upper"), "linalg.lu_factor": ("cases.lu_factor_packed",),
    "linalg.lu_solve": ("cases.lu_solve_adjoint", "cases.lu_solve_right"),
    # mg.fft
    **{f"fft.{n}": (f"fft.{n}",) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
                                           "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn",
                                           "ihfftn", "fftshift", "ifftshift")},
}

#: public name -> a function of one complex tensor (3, 2) that calls it, for gradcheck
GRADCHECKED = {
    # PyTorch's names of subtract, a function of their own since they read its deprecated sub(x, alpha, y)
    "sub": lambda z: mg.sub(z, z[::-1], alpha=0.5 - 1j),
    "linalg.matmul": lambda z: mg.linalg.matmul(z, z.T * 0.5 + 1j),  # torch.linalg's matmul (its own refusals of bools)
    "cdist": lambda z: mg.cdist(z, z[:2] * 1.5 + 1.0),  # distances of complex vectors: sqrt(sum |x - y|^2)
    "erf": mg.erf,  # PyTorch's erf refuses complex input (SciPy's values: tests/test_special_complex.py)
    # the randomized SVD and PCA of complex input, seeded (q = min(m, n): the exact singular values)
    "svd_lowrank": lambda z: (mg.manual_seed(0), mg.svd_lowrank(z, q=2)[1])[1],
    "pca_lowrank": lambda z: (mg.manual_seed(0), mg.pca_lowrank(z, q=2)[1])[1],
    # the short-time transforms of a complex signal (PyTorch's values and gradients: tests/test_stft.py)
    "stft": lambda z: mg.stft(z, 2, hop_length=1, center=False, window=mg.tensor(np.array([0.5, 1.0]))),
    "istft": lambda z: mg.istft(z, 3, hop_length=1, center=False, window=mg.tensor(np.array([0.5, 1.0, 0.75])),
                                return_complex=True),
    # a complex mean draws PyTorch's complex normal (tests/test_complex_random_fills.py; PyTorch has no
    # derivative of it): mean + std z, z a constant -- drawn from one seed, so differences see one z
    "normal": lambda z: mg.normal(z * z, 0.5, generator=mg.Generator().manual_seed(0)),
    # PyTorch's values and gradients: tests/test_complex_numbers.py::test_logaddexp_of_complex_numbers_is_pytorchs
    "logaddexp": lambda z: mg.logaddexp(z, z[::-1] * 0.5 + 1j),
    # L and U read from a packed complex LU (tests/test_lu_unpack.py: linalg.lu's factors, bit for bit)
    "lu_unpack": lambda z: mg.lu_unpack(z, mg.tensor(np.array([3, 2], dtype=np.int32)))[1:],
    # PyTorch's deprecated solves, compositions of linalg's (whose complex fixtures are above): b first
    "lu": lambda z: mg.lu(z @ z.T + 4 * mg.eye(3))[0],
    "lu_solve": lambda z: mg.lu_solve(z, *mg.lu(z @ z.T + 4 * mg.eye(3))),
    "triangular_solve": lambda z: mg.triangular_solve(z, z @ z.T + 4 * mg.eye(3)).solution,
    "index_reduce": lambda z: (mg.index_reduce(z, 0, mg.tensor([0, 2, 0]), z * z, "prod")
                               + mg.index_reduce(z, 0, mg.tensor([1, 1, 0]), z, "mean")),
    # PyTorch's top-level names: compositions of the functions above (their fixtures are the parts')
    "addmm": lambda z: mg.addmm(z[:, :1], z, z.T, beta=0.5, alpha=2),
    "addmv": lambda z: mg.addmv(z[:, 0], z, z[0], beta=2),
    "addr": lambda z: mg.addr(z, z[:, 0], z[0], alpha=0.5),
    "baddbmm": lambda z: mg.baddbmm(z[None], z[None], z.T[None][:, :, :2], beta=1.5, alpha=0.3),
    "addbmm": lambda z: mg.addbmm(z, z[None], z.T[None][:, :, :2]),
    "addcmul": lambda z: mg.addcmul(z, z, z[::-1], value=0.5),
    "addcdiv": lambda z: mg.addcdiv(z, z, z[::-1] + 3, value=0.5),
    "mm": lambda z: mg.mm(z, z.T), "spmm": lambda z: mg.spmm(z, z.T),
    "mv": lambda z: mg.mv(z, z[0]), "bmm": lambda z: mg.bmm(z[None], z.T[None]),
    "vdot": lambda z: mg.vdot(z[:, 0], z[:, 1]), "dist": lambda z: mg.dist(z, 2 * z[::-1]),
    "norm": lambda z: mg.norm(z) + mg.norm(z, 3, dim=1).sum(), "fliplr": mg.fliplr, "flipud": mg.flipud,
    "positive": lambda z: mg.positive(z) * 2, "float_power": lambda z: mg.float_power(z, 2),
    "logdet": lambda z: mg.logdet(z[:2] + 2), "repeat_interleave": lambda z: mg.repeat_interleave(z, 2, 0),
    "select": lambda z: mg.select(z, 1, 0), "sgn": mg.sgn,
    "svd": lambda z: mg.svd(z)[1], "qr": lambda z: (lambda r: r.mH @ r)(mg.qr(z)[1]),  # R^H R = Z^H Z
    "cholesky": lambda z: mg.cholesky(z.mH @ z + mg.eye(2), upper=True),
    "pinverse": mg.pinverse, "rsub": lambda z: mg.rsub(z, 2 * z[::-1], alpha=0.5),
    "take_along_dim": lambda z: mg.take_along_dim(z, mg.tensor([[1, 0], [0, 1], [1, 1]]), 1),
    "vander": lambda z: mg.vander(z[:, 0], N=3),
    # torch.linalg's names beside NumPy's: the functions above with other defaults, or reporting info
    "linalg.vander": lambda z: mg.linalg.vander(z[:, 0], N=3),
    "linalg.cross": lambda z: mg.linalg.cross(z.T, z.T[::-1] * 2),
    "linalg.diagonal": lambda z: mg.linalg.diagonal(z, offset=-1),
    "linalg.inv_ex": lambda z: mg.linalg.inv_ex(z[:2] + 2).inverse,
    "linalg.lu_factor_ex": lambda z: mg.linalg.lu_factor_ex(z).LU,
    "linalg.solve_ex": lambda z: mg.linalg.solve_ex(z[:2] + 2, z[2]).result,
    "linalg.cholesky_ex": lambda z: mg.linalg.cholesky_ex(z[:2] @ mg.conj(z[:2]).T + 3 * mg.eye(2)).L,
}

Z = np.array([[1.5 - 2.0j, 0.0 + 0.0j, -0.5 + 1.0j], [2.0 + 0.0j, 0.0 - 3.0j, 1.5 - 2.0j]])

#: public name -> (what it does with ``z``, the same with NumPy) for the non-differentiable functions
FORWARD_ONLY = {
    "equal": (lambda z: mg.equal(z, z[0]), lambda a: a == a[0]),
    "eq": (lambda z: mg.eq(z, z[0]), lambda a: a == a[0]),  # (mg.equal warns its two meanings; eq does not)
    "not_equal": (lambda z: mg.not_equal(z, z[0]), lambda a: a != a[0]),
    "isnan": (mg.isnan, np.isnan), "isfinite": (mg.isfinite, np.isfinite), "isinf": (mg.isinf, np.isinf),
    "logical_and": (lambda z: mg.logical_and(z, z[::-1]), lambda a: np.logical_and(a, a[::-1])),
    "logical_or": (lambda z: mg.logical_or(z, z[::-1]), lambda a: np.logical_or(a, a[::-1])),
    "logical_not": (mg.logical_not, np.logical_not),
    "count_nonzero": (mg.count_nonzero, np.count_nonzero), "argwhere": (mg.argwhere, np.argwhere),
    "nonzero": (lambda z: mg.stack(mg.nonzero(z)), lambda a: np.stack(np.nonzero(a))),
    "is_complex": (mg.is_complex, np.iscomplexobj), "numel": (mg.numel, np.size),
    "zeros_like": (mg.zeros_like, np.zeros_like), "ones_like": (mg.ones_like, np.ones_like),
    "full_like": (lambda z: mg.full_like(z, 2 - 1j), lambda a: np.full_like(a, 2 - 1j)),
    "astype": (lambda z: mg.astype(z, "complex64"), lambda a: a.astype(np.complex64)),
    # rounding each part, as NumPy's (PyTorch refuses round of complex numbers); derivative 0
    "round": (lambda z: mg.round(z * 1.3), lambda a: np.round(a * 1.3)),
    "tensor": (mg.tensor, np.asarray), "from_numpy": (lambda z: mg.from_numpy(z.numpy()), np.asarray),
    "from_dlpack": (lambda z: mg.from_dlpack(z.numpy()), np.asarray),
    "to_dlpack": (lambda z: mg.from_dlpack(mg.to_dlpack(z)), np.asarray),
    "geqrf": (lambda z: mg.geqrf(z.T).a, lambda a: np.linalg.qr(a.T, mode="raw")[0].T),  # LAPACK's, no derivative
    "linalg.matrix_rank": (lambda z: mg.linalg.matrix_rank(z), np.linalg.matrix_rank),
    "all": (mg.all, np.all), "any": (mg.any, np.any),
    "isclose": (lambda z: mg.isclose(z, z * 1.0000001), lambda a: np.isclose(a, a * 1.0000001)),
    "allclose": (lambda z: mg.allclose(z, z * 1.01), lambda a: np.allclose(a, a * 1.01)),
    "as_tensor": (mg.as_tensor, np.asarray), "asarray": (mg.asarray, np.asarray),
    "empty_like": (mg.empty_like, np.zeros_like),
    # complex samples of z's shape and dtype (tests/test_complex_creation.py checks their distribution)
    "rand_like": (lambda z: mg.rand_like(z) * 0, np.zeros_like),
    "randn_like": (lambda z: mg.randn_like(z) * 0, np.zeros_like),
    "is_floating_point": (mg.is_floating_point, lambda a: False),
    "is_nonzero": (lambda z: mg.is_nonzero(z[0, 0]), lambda a: bool(a[0, 0])),
    "is_tensor": (mg.is_tensor, lambda a: True), "isreal": (mg.isreal, np.isreal),
    # PyTorch's top-level twins of Tensor methods: a complex tensor has no lazy conjugate or negative
    # bit here, is signed, keeps its values through detach, fill and split_with_sizes
    "is_conj": (mg.is_conj, lambda a: False), "is_neg": (mg.is_neg, lambda a: False),
    "is_signed": (mg.is_signed, lambda a: True), "is_same_size": (lambda z: mg.is_same_size(z, z.T.T), lambda a: True),
    "resolve_conj": (mg.resolve_conj, lambda a: a), "resolve_neg": (mg.resolve_neg, lambda a: a),
    "detach": (mg.detach, lambda a: a), "fill": (lambda z: mg.fill(z, 2 - 1j), lambda a: np.full_like(a, 2 - 1j)),
    "split_with_sizes": (lambda z: mg.split_with_sizes(z, [1, z.shape[0] - 1])[0], lambda a: a[:1]),
    "swapdims": (lambda z: mg.swapdims(z, 0, 1), lambda a: a.swapaxes(0, 1)),
    "get_device": (mg.get_device, lambda a: -1),
    "logical_xor": (lambda z: mg.logical_xor(z, z[::-1]), lambda a: np.logical_xor(a, a[::-1])),
}

#: public name -> a call that refuses complex input, and the error: (call, type, what the message says)
ORDER = "complex numbers have no order"
_M = mg.tensor(np.array([[2.0 + 1.0j, 0.5], [0.5j, 3.0]]))  # a complex matrix for the linalg refusals
REFUSED = {
    **{n: (lambda z, n=n: getattr(mg, n)(z, z), TypeError, ORDER)
       for n in ("maximum", "minimum", "greater", "greater_equal", "less", "less_equal", "fmax", "fmin",
                 "heaviside", "copysign")},
    **{n: (lambda z, n=n: getattr(mg, n)(z), TypeError, ORDER)
       for n in ("max", "min", "argmax", "argmin", "sort", "argsort", "aminmax", "unique", "unique_consecutive",
                 "histc", "histogram", "isposinf", "isneginf", "frac", "mode")},
    "histogramdd": (lambda z: mg.histogramdd(z, bins=2), NotImplementedError, "histogramdd"),
    "binomial": (lambda z: mg.binomial(z, z), ValueError, "binomial only supports floating-point dtypes"),
    "clip": (lambda z: mg.clip(z, 0, 1), TypeError, ORDER), "clamp": (lambda z: mg.clamp(z, 0, 1), TypeError, ORDER),
    "segment_reduce": (lambda z: mg.segment_reduce(z, "sum", lengths=mg.tensor([1, 1])), NotImplementedError,
                       "floating point only"),
    "cummax": (lambda z: mg.cummax(z, 0), TypeError, ORDER), "cummin": (lambda z: mg.cummin(z, 0), TypeError, ORDER),
    "kthvalue": (lambda z: mg.kthvalue(z, 1), TypeError, ORDER), "topk": (lambda z: mg.topk(z, 1), TypeError, ORDER),
    "searchsorted": (lambda z: mg.searchsorted(z[0], z[1]), TypeError, ORDER),
    "bucketize": (lambda z: mg.bucketize(z, mg.tensor([0.0, 1.0])), TypeError, ORDER),
    "median": (mg.median, TypeError, ORDER), "nanmedian": (mg.nanmedian, TypeError, ORDER),
    "quantile": (lambda z: mg.quantile(z, 0.5), TypeError, ORDER),
    "nanquantile": (lambda z: mg.nanquantile(z, 0.5), TypeError, ORDER),
    # NumPy's ufunc for the real line, which names itself (PyTorch has no cbrt)
    "cbrt": (mg.cbrt, TypeError, "ufunc 'cbrt'"),
    # PyTorch's NotImplementedError in its words (a TypeError too)
    **{n: (lambda z, n=n: getattr(mg, n)(z), NotImplementedError, f"{n} is not supported for complex inputs")
       for n in ("floor", "ceil", "trunc")},
    "signbit": (mg.signbit, NotImplementedError, "signbit is not implemented for complex tensors"),
    # PyTorch's NotImplementedError, which names its kernel (a TypeError too)
    **{n: (lambda z, n=n: getattr(mg, n)(z, z), NotImplementedError, f'"{k}" not implemented for')
       for n, k in (("arctan2", "atan2_cpu"), ("mod", "remainder_cpu"), ("fmod", "fmod_cpu"),
                    ("floor_divide", "div_floor_cpu"), ("hypot", "hypot_cpu"), ("logaddexp2", "logaddexp2_cpu"),
                    ("nextafter", "nextafter_cpu"))},
    "bincount": (mg.bincount, TypeError, "integer tensor"),
    **{n: (lambda z, n=n: getattr(mg, n)(z, z), TypeError, "integer and bool")
       for n in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    "bitwise_not": (mg.bitwise_not, TypeError, "integer and bool"),
    # integer-only arithmetic: PyTorch has no complex (nor float) kernel for them
    **{n: (lambda z, n=n: getattr(mg, n)(z, z), TypeError, "only integer tensors")
       for n in ("gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift")},
    "frexp": (mg.frexp, TypeError, "floating-point"),
    # factorizations whose gradients are written for real matrices
    **{n: (lambda z, n=n: getattr(mg, n)(z), TypeError, ORDER) for n in ("amax", "amin", "msort", "relu")},
    "clamp_min": (lambda z: mg.clamp_min(z, 0), TypeError, ORDER),
    "clamp_max": (lambda z: mg.clamp_max(z, 0), TypeError, ORDER),
    # sampling needs real probabilities and dtypes; PyTorch refuses these too (it draws complex normals)
    "bernoulli": (mg.bernoulli, TypeError, "floating point"),
    "poisson": (mg.poisson, NotImplementedError, "poisson_cpu"),
    "multinomial": (lambda z: mg.multinomial(z, 1), ValueError, "float tensor"),
    "randint_like": (lambda z: mg.randint_like(z, 3), TypeError, "integer, float or bool"),
    "softmax": (lambda z: mg.softmax(z, 1), TypeError, "complex"),
    "log_softmax": (lambda z: mg.log_softmax(z, 1), TypeError, "complex"),
    "isin": (lambda z: mg.isin(z, z[0]), TypeError, "complex"),
}

#: PyTorch's spellings whose errors use NumPy's name
ALSO_CALLED = {"clamp": "clip", "clamp_min": "clip", "clamp_max": "clip", "amax": "max", "amin": "min",
               "msort": "argsort", "arctan2": "atan2", "mod": "remainder", "floor_divide": "div_floor"}

#: no tensor argument to make complex: sizes, seeds, state, files, devices, the autograd entry points
NO_TENSOR_INPUT = {
    "arange", "linspace", "zeros", "ones", "empty", "full", "eye", "rand", "randn", "randint", "randperm",
    "tril_indices", "triu_indices", "manual_seed", "initial_seed", "seed", "get_rng_state", "set_rng_state",
    "thread_safe_generator",
    "get_default_dtype",
    "set_default_dtype", "get_default_device", "set_default_device", "is_grad_enabled",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "is_anomaly_check_inf_enabled", "is_recomputing",
    "is_inference_mode_enabled",
    "save", "load", "grad", "vmap", "backward", "backward_steps", "fft.fftfreq", "fft.rfftfreq",
    "broadcast_shapes", "logspace", "scalar_tensor", "hann_window", "hamming_window",
    "blackman_window", "bartlett_window", "kaiser_window",
    "unravel_index",  # its tensor holds integer indices
    "result_type", "promote_types", "can_cast",  # a dtype or a bool out, from dtypes (complex ones too)
    # PyTorch's process-wide settings
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_num_threads", "get_num_threads", "set_printoptions",
    "empty_strided", "empty_permuted", "frombuffer",  # sizes and strides, or a Python buffer
    "set_warn_always", "is_warn_always_enabled", "set_deterministic_debug_mode", "get_deterministic_debug_mode",
    "typename",  # a type's name (a complex tensor's: x.type())
    "cond", "while_loop",  # call the user's functions: their operands' complex rules are those functions'
    # autocast's state (a flag, a dtype, a nesting count per device type)
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled",
    "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype",
    "set_autocast_gpu_dtype",
}

#: complex support that belongs to another part of the engine
ELSEWHERE = {
    "xlogy": "the special functions (mg.special.xlogy)",
    "logit": "the special functions (mg.special.logit)",
    "igamma": "the special functions (mg.special.gammainc, real only as PyTorch's)",
    **{n: "mg.nn.functional's (its complex rules: tests/test_complex_refusals_activations.py)"
       for n in mg._NN_FUNCTIONS},
    "igammac": "the special functions (mg.special.gammaincc, real only as PyTorch's)",
    **{n: "the special functions (mg.special)" for n in ("digamma", "erfinv", "erfc", "i0", "lgamma", "mvlgamma",
                                                          "polygamma")},
    # the linalg functions below take complex matrices: the op battery's complex samples
    # check them (LdlFactor), and their results are integer pivots or a factorization
    # PyTorch's top-level in-place functions: the Tensor method of the same name, whose complex rules are
    # its out-of-place function's (tests/test_torch_in_place_functions.py)
    **{n: "the Tensor method of its name (x.<name>(...)), the out-of-place function's rules"
       for n in ("abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
                 "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_",
                 "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_",
                 "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "i0_", "index_put_", "ldexp_", "log10_",
                 "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
                 "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
                 "trunc_", "xlogy_", "zero_", "gcd_", "lcm_")},
    # PyTorch's *_copy functions: the view of the name, then clone (tests/test_view_copies.py)
    **{n + "_copy": "the view of its name then clone: their complex rules (tests/test_view_copies.py)"
       for n in ("alias", "detach", "diagonal", "expand", "narrow", "permute", "select", "slice", "split",
                 "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unfold", "unsqueeze", "view",
                 "view_as_real", "view_as_complex")},
    "orgqr": "linalg.householder_product's (the same function), the op battery's complex samples",
    "ormqr": "linalg.householder_product's Q times a matrix, the op battery's complex householder samples",
    "nuclear_norm": "linalg.matrix_norm(A, 'nuc', dim)'s (deprecated spelling), the op battery's samples",
    "frobenius_norm": "linalg.vector_norm(A, 2, dim)'s (deprecated spelling), the op battery's samples",
    "chain_matmul": "linalg.multi_dot's (its deprecated spelling), the op battery's complex matmul samples",
    "linalg.ldl_factor": "the op battery's complex LdlFactor samples",
    "linalg.ldl_factor_ex": "the op battery's complex LdlFactor samples",
    "linalg.ldl_solve": "solves with the factors of the op battery's complex LdlFactor samples",
}


def public_functions() -> dict[str, object]:
    found = {}
    for prefix, module in (("", mg), ("linalg.", mg.linalg), ("fft.", mg.fft)):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj):
                found[prefix + name] = obj
    return found


def entry(name: str, functions: dict[str, object]) -> str | None:
    """Which table ``name`` is in, directly or as an alias of a name that is."""
    for table_name, table in (("FIXTURES", FIXTURES), ("GRADCHECKED", GRADCHECKED),
                              ("FORWARD_ONLY", FORWARD_ONLY), ("REFUSED", REFUSED),
                              ("NO_TENSOR_INPUT", NO_TENSOR_INPUT), ("ELSEWHERE", ELSEWHERE)):
        if name in table or any(functions[other] is functions[name] for other in table if other in functions):
            return table_name
    return None


def test_every_public_function_is_classified():
    functions = public_functions()
    missing = sorted(n for n in functions if entry(n, functions) is None)
    assert not missing, f"public functions with no entry for complex input: {missing}"
    tables = (FIXTURES, GRADCHECKED, FORWARD_ONLY, REFUSED, NO_TENSOR_INPUT, ELSEWHERE)
    twice = sorted(n for n in functions if sum(n in t for t in tables) > 1)
    assert not twice, f"in two tables: {twice}"
    stale = sorted(n for t in tables for n in t if n not in functions)
    assert not stale, f"table entries that are not public functions: {stale}"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_differentiable_functions_have_torch_fixtures(name):
    absent = [fn for fn in FIXTURES[name] if fn not in FIXTURE_FUNCTIONS]
    assert not absent, f"{name}: no case of {absent} in tests/data/torch_complex_reference.npz"


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_derivatives_without_torch_fixtures_match_central_differences(name):
    rng = np.random.default_rng(3)
    z = mg.tensor(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)), requires_grad=True)
    assert gradcheck(GRADCHECKED[name], (z,), modes=("rev", "fwd"))
    assert gradgradcheck(GRADCHECKED[name], (z,), modes=("rev", "fwd"))


@pytest.mark.parametrize("name", sorted(FORWARD_ONLY))
def test_forward_only_functions_match_numpy(name):
    fn, reference = FORWARD_ONLY[name]
    got = fn(mg.tensor(Z))
    want = reference(Z)
    got_np = got.numpy() if isinstance(got, mg.Tensor) else np.asarray(got)
    assert np.array_equal(got_np, want), f"{name}: {got_np} != NumPy's {want}"
    assert got_np.dtype == np.asarray(want).dtype or np.ndim(want) == 0


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_name_the_function(name):
    call, error, says = REFUSED[name]
    with pytest.raises(error) as info:
        call(mg.tensor(Z))
    message = str(info.value)
    assert says in message, f"{name}: {message!r} does not say {says!r}"
    short = ALSO_CALLED.get(name, name.removeprefix("linalg."))
    assert short in message or (says.startswith("ufunc") and says in message), \
        f"{name}: the error does not name the function: {message!r}"
