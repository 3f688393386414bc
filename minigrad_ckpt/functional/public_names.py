"""The public math API, declared once: a table of every public name.

Each row names one public function or Tensor method and says, in one place,

* its **function** -- what ``mg.<name>`` (or ``mg.linalg.<name>``, ...) is;
* its **home** -- the namespace that exports it (the row's :class:`Section`);
* Tensor's **method** of that name -- the function itself (:data:`AS_METHOD`: ``x.exp()`` is
  ``mg.exp(x)``), another function where PyTorch's method means something else (``x.max(1)``
  is ``(values, indices)``; :mod:`~minigrad_ckpt.functional.torch_methods`), or none;
* whether Tensor has the **in-place twin** ``x.<name>_(...)``: the method, copied back into
  ``x`` under the in-place rules (:func:`in_place`).

Everything else is read off the table: the package's exports and ``__all__``
(:func:`exports`, used by ``minigrad_ckpt/__init__.py``, ``linalg.py``, ``special.py`` and
``fft.py``), Tensor's methods (:func:`methods`, put on the class once by :func:`bind`), and the
sections of ``docs/api.md`` (``docs/gen_api.py``).  To add a public function, write it in the
module of its concept and add its row here; ``tests/test_public_names.py`` checks that every
name is declared once.

The functions themselves live by concept (:mod:`~minigrad_ckpt.functional.math` and its parts,
:mod:`~minigrad_ckpt.functional.torch_idioms` for the PyTorch spellings such as ``dim=``, ...);
the table only says where each one is public.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from .. import creation, tape
from .. import deprecated_signatures as old
from ..backend import as_dtype, strided
from ..grad_mode import is_grad_enabled
from ..out_arguments import (
    ANY,
    CAST,
    CAT,
    CREATION,
    EXACT,
    FOUND,
    MEAN,
    RANGE,
    REDUCTION,
    WHERE,
    can_cast,
    rule,
    with_out,
)
from ..tensor import Tensor, refuse_overlap
from . import complex_numbers as cn
from . import differences as diffs
from . import elementwise_compositions as ewc
from . import fft as ft
from . import histogramdd as hdd
from . import householder_qr, legacy_norms, namespace, numpy_ufuncs, poisson, segments, type_info
from . import integer_math as im
from . import legacy_solves as legacy
from . import linalg as la
from . import linalg_derived as lad
from . import linalg_ex as lex
from . import linalg_ldl as ldl
from . import linalg_lowrank as lowrank
from . import math as mf
from . import out_rules as outr
from . import random_fills as rf
from . import scatter as sc
from . import selection as sel
from . import shape_compositions as shapes
from . import special as sp
from . import special_bessel as spb
from . import special_extended as spx
from . import special_polynomials as spp
from . import spectral as spec
from . import statistics as stats
from . import tensor_methods as tm
from . import torch_functions as tf
from . import torch_idioms as ti
from . import torch_methods as tmeth
from . import view_copies as vc
from .elementwise import _ADD, _DIV, _MUL, _POW, _SUB
from .torch_idioms import with_dim
from .two_meanings import said_out_loud as loud

#: The namespaces a section's names are exported from (``None``: Tensor's methods only).
MG, LINALG, SPECIAL, FFT = "minigrad_ckpt", "minigrad_ckpt.linalg", "minigrad_ckpt.special", "minigrad_ckpt.fft"
TENSOR = None

#: A row's method is its function itself: ``x.<name>(...)`` is ``<name>(x, ...)``.
AS_METHOD: Any = object()


class Public(NamedTuple):
    """One public name: its function (``None`` for a Tensor method only), Tensor's method of
    that name (``None``: no method), and whether Tensor has the in-place twin ``<name>_``."""

    name: str
    function: Callable[..., Any] | None
    method: Any = None
    in_place: bool = False


#: Tensor's methods of a tensor-or-number ``other``: a list or tuple there is PyTorch's TypeError
_TENSOR_OR_NUMBER_OTHER = frozenset((
    "add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power eq ne "
    "not_equal lt less le less_equal gt greater ge greater_equal copysign xlogy bitwise_and bitwise_or bitwise_xor "
    "isclose allclose equal dist matmul").split())

#: Methods whose second operand PyTorch's signature types ``Tensor`` alone (its name there): a number is
#: its TypeError, where NumPy's function of the name broadcasts it
_TENSOR_OTHER = {**dict.fromkeys((
    "maximum minimum fmax fmin atan2 arctan2 hypot nextafter ldexp logical_and logical_or logical_xor logaddexp "
    "logaddexp2 gcd lcm igamma igammac").split(), "other"), "heaviside": "values", "lerp": "end"}


def public(name: str, function: Callable[..., Any], method: Any = None, *, in_place: bool = False,
           out: Any = None, out_pair: Callable[..., Any] | None = None) -> Public:
    """A row for a public function; ``method`` is :data:`AS_METHOD`, another function, or None.
    ``out`` (a rule of :mod:`~minigrad_ckpt.out_arguments`): the function takes PyTorch's ``out=``,
    Tensor's method does not (as PyTorch's); ``out_pair``: what a tuple ``out=`` calls where the
    function's NumPy spelling answers one tensor (``sort``, ``max``)."""
    exported = _taking_out(name, function, out, out_pair) if out else function
    method = getattr(function, "as_method", function) if method is AS_METHOD else method
    if method is not None and name in _TENSOR_OR_NUMBER_OTHER:
        method = tm.refusing_sequence_operand(method, name)
    if method is not None and name in _TENSOR_OTHER:
        method = tm.refusing_number_operand(method, name, _TENSOR_OTHER[name])
    return Public(name, exported, method, in_place)


_WITH_OUT: dict[tuple[int, Any], Callable[..., Any]] = {}
#: each function given out= by some row, to the function taking it (its twins' rows export that one)
_TAKING_OUT: dict[int, Callable[..., Any]] = {}
#: One function under two names is named in its errors as PyTorch's short name (torch.multiply's say multiply())
_SHORT_NAME = {"multiply": "mul", "subtract": "sub", "divide": "div", "true_divide": "div"}


def _taking_out(name: str, function: Callable[..., Any], rules: Any, pair: Any) -> Callable[..., Any]:
    """``function`` with ``out=``, made once for each function: a name and its alias (``mg.mul``,
    ``mg.multiply``) stay one function."""
    if hasattr(function, "write_out"):  # it takes out= itself (elementwise.unary_function's): no wrapper
        if id(function) not in _TAKING_OUT:  # (the first row naming it names it in its errors, as a wrapper's)
            function.write_out = with_out(_SHORT_NAME.get(name, name), _without_out(function), rules, pair=pair)
            _TAKING_OUT[id(function)] = function
        return function
    key = (id(function), rules)
    if key not in _WITH_OUT:
        _WITH_OUT[key] = with_out(_SHORT_NAME.get(name, name), function, rules, pair=pair)
        _TAKING_OUT.setdefault(id(function), _WITH_OUT[key])
    return _WITH_OUT[key]


def _without_out(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` called without ``out=``: what ``with_out`` writes into the one given."""
    @functools.wraps(function)
    def computed(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)
    computed.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    return computed


def tensor_method(name: str, method: Any, *, in_place: bool = False) -> Public:
    """A row for a Tensor method (or property, or operator) that no namespace exports."""
    return Public(name, None, method, in_place)


class Section(NamedTuple):
    """Rows under one heading of ``docs/api.md``, exported from ``home``."""

    title: str
    home: str | None
    names: tuple[Public, ...]


# Methods under PyTorch's kernel dtypes where NumPy's function of that name answers (a mask's abs,
# trunc, matrix product); functions only PyTorch has refuse the same (mg.frac)
_ABS_METHOD = tmeth.no_kernel_for(mf.abs, "abs_cpu")
_TRUNC_METHOD = tmeth.no_kernel_for(mf.trunc, "trunc_vml_cpu")
_MATMUL_METHOD = tmeth.no_kernel_for(tmeth.matmul_method, "addmm_impl_cpu_")
_FRAC = tmeth.no_kernel_for(ewc.frac, "frac_cpu", "biu")
_COV_OF_BOOLS = "cov(): bool dtype is not supported for input"
# PyTorch's keyword names for the second operand (mg.mul(x, other=2), mg.pow(x, exponent=2)); one
# function each, shared by the NumPy and PyTorch names, so that mg.mul is mg.multiply.
#: PyTorch's device kinds and layouts that no tensor here has: its is_<kind> properties read False
_ABSENT_KINDS = ("is_xpu", "is_mps", "is_ipu", "is_hpu", "is_mtia", "is_maia", "is_xla", "is_vulkan",
                 "is_mkldnn", "is_quantized", "is_sparse", "is_sparse_csr", "is_nested")
_MULTIPLY = ti.torch_keywords(mf.multiply, other="y")
_SUBTRACT = ti.torch_keywords(mf.subtract, other="y")
_DIVIDE = ti.torch_keywords(mf.divide, other="y")
_POWER = ti.torch_keywords(mf.power, exponent="y")


SECTIONS: tuple[Section, ...] = (
    Section("Arithmetic and elementwise functions", MG, (
        public("abs", mf.abs, _ABS_METHOD, in_place=True, out=outr.abs_),
        public("add", old.alpha_first("add", ti.torch_keywords(mf.add, other="y")),
               old.alpha_first("add", tmeth.add_method), out=CAST),
        public("subtract", _SUBTRACT, tmeth.sub_method, in_place=True, out=CAST),
        public("multiply", _MULTIPLY, AS_METHOD, in_place=True, out=CAST),
        public("divide", _DIVIDE, AS_METHOD, in_place=True, out=CAST),
        public("power", _POWER),
        public("negative", mf.negative, AS_METHOD, in_place=True, out=FOUND),
        public("exp", mf.exp, AS_METHOD, in_place=True, out=CAST),
        public("log", mf.log, AS_METHOD, in_place=True, out=CAST),
        public("log1p", mf.log1p, AS_METHOD, in_place=True, out=CAST),
        public("sqrt", mf.sqrt, AS_METHOD, in_place=True, out=CAST),
        public("sin", mf.sin, AS_METHOD, in_place=True, out=CAST),
        public("cos", mf.cos, AS_METHOD, in_place=True, out=CAST),
        public("tanh", mf.tanh, AS_METHOD, in_place=True, out=CAST),
        public("sigmoid", mf.sigmoid, AS_METHOD, in_place=True, out=CAST),
        public("erf", mf.erf, AS_METHOD, in_place=True, out=CAST),
        public("maximum", mf.maximum, AS_METHOD, out=CAST),
        public("minimum", mf.minimum, AS_METHOD, out=CAST),
        # (the method is PyTorch's, which needs a bound; NumPy 2's mg.clip(x) takes none; out= as clamp's)
        public("clip", ti.torch_keywords(mf.clip, min="a_min", max="a_max"), ti.clamp, in_place=True,
               out=outr.clamp),
        public("where", ti.torch_keywords(mf.where, input="x", other="y"),
               lambda self, condition, other: mf.where(condition, self, other), out=WHERE),
        public("tan", mf.tan, AS_METHOD, in_place=True, out=CAST),
        public("sinh", mf.sinh, AS_METHOD, in_place=True, out=CAST),
        public("cosh", mf.cosh, AS_METHOD, in_place=True, out=CAST),
        public("arcsin", mf.arcsin, AS_METHOD, in_place=True, out=CAST),
        public("arccos", mf.arccos, AS_METHOD, in_place=True, out=CAST),
        public("arctan", mf.arctan, AS_METHOD, in_place=True, out=CAST),
        public("arctan2", mf.arctan2, AS_METHOD, in_place=True, out=CAST),
        public("arcsinh", mf.arcsinh, AS_METHOD, in_place=True, out=CAST),
        public("arccosh", mf.arccosh, AS_METHOD, in_place=True, out=CAST),
        public("arctanh", mf.arctanh, AS_METHOD, in_place=True, out=CAST),
        public("log2", mf.log2, AS_METHOD, in_place=True, out=CAST),
        public("log10", mf.log10, AS_METHOD, in_place=True, out=CAST),
        public("exp2", mf.exp2, AS_METHOD, in_place=True, out=CAST),
        public("expm1", mf.expm1, AS_METHOD, in_place=True, out=CAST),
        public("hypot", mf.hypot, tmeth.no_kernel_for_result(mf.hypot, "hypot_cpu"), in_place=True, out=CAST),
        public("logaddexp", mf.logaddexp, tmeth.no_kernel_for_result(mf.logaddexp, "logaddexp_cpu"), out=CAST),
        public("logaddexp2", mf.logaddexp2, tmeth.no_kernel_for_result(mf.logaddexp2, "logaddexp2_cpu"), out=CAST),
        public("sinc", mf.sinc, AS_METHOD, in_place=True, out=CAST),
        public("square", mf.square, AS_METHOD, in_place=True, out=CAST),
        public("reciprocal", mf.reciprocal, AS_METHOD, in_place=True, out=CAST),
        public("cbrt", mf.cbrt, AS_METHOD),
        public("floor", mf.floor, tmeth.no_kernel_for(mf.floor, "floor_vml_cpu"), in_place=True, out=FOUND),
        public("ceil", mf.ceil, tmeth.no_kernel_for(mf.ceil, "ceil_vml_cpu"), in_place=True, out=FOUND),
        public("round", mf.round, tmeth.round, in_place=True, out=FOUND),
        public("around", mf.around),
        public("trunc", mf.trunc, _TRUNC_METHOD, in_place=True, out=FOUND),
        public("mod", mf.mod),
        public("remainder", mf.remainder, AS_METHOD, in_place=True, out=CAST),
        public("fmod", mf.fmod, AS_METHOD, in_place=True, out=CAST),
    )),
    Section("Comparisons and logical functions", MG, (
        public("sign", mf.sign, tmeth.sign_method, in_place=True, out=FOUND),
        public("equal", loud("equal", mf.equal), tmeth.equal_method),
        public("not_equal", mf.not_equal, AS_METHOD, in_place=True, out=ANY),
        public("less", mf.less, AS_METHOD, in_place=True, out=ANY),
        public("less_equal", mf.less_equal, AS_METHOD, in_place=True, out=ANY),
        public("greater", mf.greater, AS_METHOD, in_place=True, out=ANY),
        public("greater_equal", mf.greater_equal, AS_METHOD, in_place=True, out=ANY),
        public("logical_and", mf.logical_and, AS_METHOD, in_place=True, out=ANY),
        public("logical_or", mf.logical_or, AS_METHOD, in_place=True, out=ANY),
        public("logical_not", mf.logical_not, AS_METHOD, in_place=True, out=ANY),
        public("bitwise_and", mf.bitwise_and, AS_METHOD, in_place=True, out=CAST),
        public("bitwise_or", mf.bitwise_or, AS_METHOD, in_place=True, out=CAST),
        public("bitwise_xor", mf.bitwise_xor, AS_METHOD, in_place=True, out=CAST),
        public("bitwise_not", mf.bitwise_not, AS_METHOD, in_place=True, out=FOUND),
        public("bitwise_left_shift", im.bitwise_left_shift, AS_METHOD, in_place=True, out=CAST),
        public("bitwise_right_shift", im.bitwise_right_shift, AS_METHOD, in_place=True, out=CAST),
        public("gcd", im.gcd, AS_METHOD, in_place=True, out=CAST),
        public("lcm", im.lcm, AS_METHOD, in_place=True, out=CAST),
        public("isnan", mf.isnan, AS_METHOD),
        public("isfinite", mf.isfinite, AS_METHOD),
    )),
    Section("Reductions", MG, (
        public("sum", ti.sum, tmeth.dim_first_method(ti.sum), out=REDUCTION),
        public("mean", ti.mean, tmeth.mean_method, out=MEAN),
        public("max", loud("max", ti.torch_keywords(ti.max, input="x")), tmeth.extremum_method("max"), out=EXACT,
               out_pair=ti.extremum_pair("max")),
        public("min", loud("min", ti.torch_keywords(ti.min, input="x")), tmeth.extremum_method("min"), out=EXACT,
               out_pair=ti.extremum_pair("min")),
        public("prod", ti.prod, tmeth.dim_first_method(ti.prod), out=REDUCTION),
        public("var", loud("var", ti.var), tmeth.spread_method("var"), out=CAST),
        public("std", loud("std", ti.std), tmeth.spread_method("std"), out=CAST),
        public("logsumexp", ti.logsumexp, tmeth.along_dim_method(ti.logsumexp, "keepdim"),
               out=outr.LOGSUMEXP),
        public("cumsum", ti.cumsum, tmeth.along_dim_method(ti.cumsum), in_place=True, out=REDUCTION),
        public("argmax", ti.torch_keywords(ti.argmax, input="x"),
               tmeth.refusing_bool(tmeth.dim_first_method(ti.argmax, ("dim", "keepdim")), "argmax"), out=EXACT),
        public("argmin", ti.torch_keywords(ti.argmin, input="x"),
               tmeth.refusing_bool(tmeth.dim_first_method(ti.argmin, ("dim", "keepdim")), "argmin"), out=EXACT),
        public("cumprod", ti.cumprod, tmeth.along_dim_method(ti.cumprod), in_place=True, out=REDUCTION),
    )),
    Section("Products", MG, (
        public("matmul", mf.matmul, _MATMUL_METHOD, out=outr.matmul),
        public("einsum", ti.operands_as_list(mf.einsum, 1)),
        public("tensordot", ti.torch_keywords(mf.tensordot, dims="axes"),
               out=outr.TENSORDOT),
        public("dot", mf.dot, tmeth.no_kernel_for(tmeth.product_method("dot", mf.dot, (1, 1), "tensor"), "dot"),
               out=outr.DOT),
        public("inner", mf.inner, tmeth.no_kernel_for(tmeth.inner_method, "addmm_impl_cpu_"),
               out=outr.TENSORDOT),
        public("outer", mf.outer, tmeth.product_method("outer", mf.outer, (1, 1), "vec2", one_dtype=False), out=CAST),
        public("kron", mf.kron, AS_METHOD, out=CAST),
        public("cross", loud("cross", ti.cross), tmeth.cross_method, out=EXACT),
    )),
    Section("Shape functions", MG, (
        public("reshape", mf.reshape, tmeth.reshape_method),
        public("transpose", ti.torch_keywords(ti.transpose, dim0=ti.POSITIONAL, dim1=ti.POSITIONAL),
               ti.torch_keywords(tmeth.transpose_method, dim0=ti.POSITIONAL, dim1=ti.POSITIONAL)),
        public("permute", ti.torch_keywords(mf.permute, dims=ti.POSITIONAL), AS_METHOD),
        public("swapaxes", ti.swapaxes, AS_METHOD),
        public("moveaxis", mf.moveaxis, shapes.movedim),  # (ndarray has no moveaxis: the method is PyTorch's)
        public("expand_dims", ti.expand_dims, AS_METHOD),
        public("squeeze", ti.squeeze, tmeth.squeeze_method),
        public("broadcast_to", ti.torch_keywords(mf.broadcast_to, size="shape"), tmeth.expand_method),
        public("sum_to", mf.sum_to, AS_METHOD),
        public("concatenate", ti.concatenate),
        public("stack", ti.stack, out=CAT),
        public("split", loud("split", ti.torch_keywords(ti.split, tensor="x")),
               ti.torch_keywords(tmeth.split_method, split_size="split_size_or_sections")),
        public("flip", ti.torch_keywords(ti.flip, input="x", dims="dim"), tmeth.flip_method),
        public("pad", mf.pad, AS_METHOD),
        public("ravel", mf.ravel, AS_METHOD),
        public("flatten", ti.flatten, AS_METHOD),
        public("tile", ti.torch_keywords(mf.tile, dims="reps"), tmeth.tile_method),
        public("repeat", ti.repeat, tmeth.repeat_method),
        public("roll", ti.torch_keywords(ti.roll, input="x", shifts="shift", dims="axis"), tmeth.roll_method),
        public("meshgrid", loud("meshgrid", ti.meshgrid)),
    )),
    Section("Indexing and sorting", MG, (
        public("getitem", mf.getitem),
        public("take", ti.torch_keywords(ti.take, input="x", index="indices"), tmeth.take_method,
               out=outr.TAKE),
        public("sort", loud("sort", ti.torch_keywords(ti.sort, input="x")), tmeth.sort_method, out=EXACT,
               out_pair=ti.sort_pair),
        public("argsort", ti.torch_keywords(ti.argsort, input="x"), tmeth.argsort_method),
        public("take_along_axis", ti.take_along_axis),
    )),
    Section("Diagonals and triangles", MG, (
        public("eye", mf.eye, out=CREATION),
        public("diag", ti.torch_keywords(mf.diag, input="v", diagonal="k"), AS_METHOD, out=EXACT),
        public("diagonal", ti.torch_keywords(mf.diagonal, input="x", dim1="axis1", dim2="axis2"), AS_METHOD),
        public("trace", mf.trace, tmeth.trace_method),
        public("tril", ti.torch_keywords(mf.tril, input="x", diagonal="k"), AS_METHOD, in_place=True, out=EXACT),
        public("triu", ti.torch_keywords(mf.triu, input="x", diagonal="k"), AS_METHOD, in_place=True, out=EXACT),
    )),
    Section("Conversion", MG, (
        public("astype", mf.astype, AS_METHOD),
        public("clone", mf.clone, AS_METHOD),
    )),
    Section("Complex numbers", MG, (
        public("complex", cn.complex,
               out=rule("Expected object of scalar type {result} but got scalar type {out} for argument 'out'")),
        public("real", cn.real, tm.real_property),
        public("imag", cn.imag, tm.imag_property),
        public("conj", cn.conj, AS_METHOD),
        public("conj_physical", cn.conj, AS_METHOD, in_place=True, out=FOUND),
        public("adjoint", tm.adjoint_method),
        public("is_complex", cn.is_complex, lambda self: self.dtype.kind == "c"),
        public("angle", cn.angle, AS_METHOD, out=CAST),
        public("polar", cn.polar,
               out=rule("Expected object of scalar type {result} but got scalar type {out} for argument 'out'")),
        public("view_as_real", cn.view_as_real),
        public("view_as_complex", cn.view_as_complex),
    )),
    Section("More elementwise functions", MG, (
        public("rsqrt", ewc.rsqrt, AS_METHOD, in_place=True, out=CAST),
        public("frac", _FRAC, AS_METHOD, in_place=True, out=FOUND),
        public("lerp", tmeth.lerp, AS_METHOD, in_place=True, out=CAST),
        public("deg2rad", ewc.deg2rad, AS_METHOD, in_place=True, out=CAST),
        public("rad2deg", ewc.rad2deg, AS_METHOD, in_place=True, out=CAST),
        public("ldexp", ewc.ldexp, AS_METHOD, in_place=True,
               out=rule("ldexp can't be cast to the desired output type {out}", can_cast)),
        public("frexp", ewc.frexp, AS_METHOD,
               out=outr.FREXP),
        public("copysign", ewc.copysign, AS_METHOD, in_place=True, out=CAST),
        public("fmax", ewc.fmax, AS_METHOD, in_place=True, out=CAST),
        public("fmin", ewc.fmin, AS_METHOD, in_place=True, out=CAST),
        public("heaviside", ewc.heaviside, tmeth.heaviside_method, in_place=True, out=outr.HEAVISIDE),
        public("nan_to_num", ewc.nan_to_num, AS_METHOD, in_place=True,
               out=rule("nan_to_num: dtype of out: {out} should be same as input: {result}")),
        public("floor_divide", ewc.floor_divide, AS_METHOD, in_place=True, out=CAST),
        public("isinf", ewc.isinf, AS_METHOD),
        public("isposinf", ewc.isposinf, AS_METHOD, out=rule("isposinf does not support non-boolean outputs.")),
        public("isneginf", ewc.isneginf, AS_METHOD, out=rule("isneginf does not support non-boolean outputs.")),
        public("signbit", ewc.signbit, AS_METHOD, out=rule("signbit does not support non-boolean outputs.")),
        public("nextafter", ewc.nextafter, tmeth.no_kernel_for_result(ewc.nextafter, "nextafter_cpu"), in_place=True,
               out=CAST),
        public("logit", ewc.logit, AS_METHOD, in_place=True, out=CAST),
        public("xlogy", ewc.xlogy, sp.xlogy, in_place=True, out=CAST),
    )),
    Section("Statistics, differences and integrals", MG, (
        public("nansum", stats.nansum, tmeth.nansum_method,
               out=outr.nansum),
        public("nanmean", stats.nanmean, tmeth.nanmean_method,
               out=outr.nanmean),
        public("count_nonzero", ti.torch_keywords(stats.count_nonzero, input="x"), tmeth.count_nonzero_method),
        public("aminmax", stats.aminmax, AS_METHOD, out=EXACT),
        public("MinMax", stats.MinMax),
        public("var_mean", stats.var_mean),
        public("std_mean", stats.std_mean),
        public("cov", stats.cov, tmeth.no_kernel_for(tmeth.cov_method, "cov", message=_COV_OF_BOOLS)),
        public("corrcoef", stats.corrcoef,
               tmeth.no_kernel_for(lambda self: stats.corrcoef(self), "cov", message=_COV_OF_BOOLS)),
        public("renorm", stats.renorm, AS_METHOD, in_place=True, out=EXACT),
        public("diff", diffs.diff, tmeth.diff_method, out=rule("expected scalar_type {result} but found {out}")),
        public("gradient", loud("gradient", diffs.gradient)),
        public("trapezoid", diffs.trapezoid),
        public("cumulative_trapezoid", diffs.cumulative_trapezoid),
    )),
    Section("More shape functions", MG, (
        public("atleast_1d", shapes.atleast_1d),
        public("atleast_2d", shapes.atleast_2d),
        public("atleast_3d", shapes.atleast_3d),
        public("hstack", shapes.hstack, out=CAT),
        public("vstack", shapes.vstack, out=CAT),
        public("dstack", shapes.dstack, out=CAT),
        public("column_stack", shapes.column_stack, out=CAT),
        public("block_diag", shapes.block_diag),
        public("diag_embed", shapes.diag_embed, AS_METHOD),
        public("diagflat", shapes.diagflat, AS_METHOD),
        public("rot90", shapes.rot90, AS_METHOD),
        public("broadcast_tensors", shapes.broadcast_tensors),
        public("unflatten", shapes.unflatten, AS_METHOD),
        public("movedim", shapes.movedim, AS_METHOD),
        public("narrow", shapes.narrow, AS_METHOD),
        public("cartesian_prod", shapes.cartesian_prod),
        public("combinations", shapes.combinations),
        public("tril_indices", shapes.tril_indices),
        public("triu_indices", shapes.triu_indices),
        public("tensor_split", shapes.tensor_split, AS_METHOD),
        public("hsplit", shapes.hsplit, AS_METHOD),
        public("vsplit", shapes.vsplit, AS_METHOD),
        public("dsplit", shapes.dsplit, AS_METHOD),
    )),
    Section("PyTorch's gather and scatter family", MG, (
        public("gather", sc.gather, AS_METHOD, out=EXACT),
        public("scatter", sc.scatter, sc.scatter_method, in_place=True, out=EXACT),
        public("scatter_add", sc.scatter_add, AS_METHOD, in_place=True, out=EXACT),
        public("scatter_reduce", sc.scatter_reduce, AS_METHOD, in_place=True, out=EXACT),
        public("index_add", sc.index_add_along, AS_METHOD, in_place=True, out=EXACT),
        public("index_copy", sc.index_copy, AS_METHOD, in_place=True, out=EXACT),
        public("index_fill", sc.index_fill, AS_METHOD, in_place=True),
        public("index_reduce", sc.index_reduce, AS_METHOD, in_place=True, out=EXACT),
        public("segment_reduce", segments.segment_reduce),
        public("index_put", sc.index_put, AS_METHOD, in_place=True),
        public("index_select", sc.index_select, AS_METHOD,
               out=rule("index_select(): self and result must have the same scalar type")),
        public("masked_fill", sc.masked_fill, AS_METHOD, in_place=True),
        public("masked_select", sc.masked_select, AS_METHOD,
               out=rule("masked_select(): self and result must have the same scalar type")),
        public("masked_scatter", sc.masked_scatter, AS_METHOD, in_place=True),
        public("put", sc.put, AS_METHOD, in_place=True),
        public("nonzero", loud("nonzero", sc.nonzero), sc.nonzero_method),  # (its out=: its own, beside as_tuple=)
        public("argwhere", sc.argwhere, AS_METHOD),
        public("select_scatter", sc.select_scatter, AS_METHOD),
        public("slice_scatter", sc.slice_scatter, AS_METHOD, out=EXACT),
        public("diagonal_scatter", sc.diagonal_scatter, AS_METHOD),
    )),
    Section("Selection and ordering", MG, (
        public("kthvalue", sel.kthvalue, AS_METHOD,
               out=outr.KTHVALUE),
        public("median", loud("median", sel.median), sel.median_method("median"),
               out=outr.MEDIAN, out_pair=sel.median_pair("median")),
        public("nanmedian", loud("nanmedian", sel.nanmedian), sel.median_method("nanmedian"),
               out=outr.MEDIAN, out_pair=sel.median_pair("nanmedian")),
        public("quantile", sel.quantile, tmeth.quantile_method,
               out=rule("quantile() out tensor must be same dtype as the input tensor")),
        public("nanquantile", sel.nanquantile, tmeth.nanquantile_method,
               out=rule("quantile() out tensor must be same dtype as the input tensor")),
        public("mode", sel.mode, AS_METHOD,
               out=outr.MODE),
        public("cummax", sel.cummax, AS_METHOD, out=rule("expected scalar_type {result} but found {out}")),
        public("cummin", sel.cummin, AS_METHOD, out=rule("expected scalar_type {result} but found {out}")),
        public("logcumsumexp", tmeth.no_kernel_for(sel.logcumsumexp, "logcumsumexp_out_cpu", "biu"), AS_METHOD,
               out=rule("expected scalar_type {result} but found {out}")),
        public("unique", loud("unique", ti.torch_keywords(sel.unique, input="ar")), sel.unique_method),
        public("unique_consecutive", sel.unique_consecutive, AS_METHOD),
        public("searchsorted", ti.torch_keywords(sel.searchsorted, sorted_sequence="a", input="v"),
               out=outr.SEARCHSORTED),
        public("bucketize", sel.bucketize, out=outr.SEARCHSORTED),
        public("histc", sel.histc, AS_METHOD,
               out=outr.HISTC),
        public("histogram", loud("histogram", sel.histogram), sel.histogram_method,
               out=outr.HISTOGRAM),
        public("Histogram", sel.Histogram),
        public("histogramdd", hdd.histogramdd),
        public("bincount", sel.bincount, AS_METHOD),
    )),
    Section("PyTorch's names", MG, (
        public("cat", ti.cat, out=CAT),
        public("unsqueeze", ti.unsqueeze, AS_METHOD),
        public("ValuesIndices", ti.ValuesIndices),
        public("topk", ti.topk, AS_METHOD, out=EXACT),
        public("chunk", ti.chunk, AS_METHOD),
        public("unbind", ti.unbind, AS_METHOD),
        public("clamp", ti.clamp, AS_METHOD, in_place=True, out=outr.clamp),
        public("mul", _MULTIPLY, AS_METHOD, out=CAST),
        public("sub", old.alpha_first("sub", _SUBTRACT), old.alpha_first("sub", tmeth.sub_method), out=CAST),
        public("div", _DIVIDE, AS_METHOD, out=CAST),
        public("true_divide", _DIVIDE, AS_METHOD, in_place=True, out=CAST),
        public("neg", mf.negative, AS_METHOD, in_place=True, out=FOUND),
        public("pow", _POWER, AS_METHOD, in_place=True, out=CAST),
        public("eq", mf.equal, AS_METHOD, in_place=True, out=ANY),
        public("ne", mf.not_equal, AS_METHOD, in_place=True, out=ANY),
        public("lt", mf.less, AS_METHOD, in_place=True, out=ANY),
        public("le", mf.less_equal, AS_METHOD, in_place=True, out=ANY),
        public("gt", mf.greater, AS_METHOD, in_place=True, out=ANY),
        public("ge", mf.greater_equal, AS_METHOD, in_place=True, out=ANY),
        public("acos", mf.arccos, AS_METHOD, in_place=True, out=CAST),
        public("asin", mf.arcsin, AS_METHOD, in_place=True, out=CAST),
        public("atan", mf.arctan, AS_METHOD, in_place=True, out=CAST),
        public("atan2", mf.arctan2, AS_METHOD, in_place=True, out=CAST),
        public("acosh", mf.arccosh, AS_METHOD, in_place=True, out=CAST),
        public("asinh", mf.arcsinh, AS_METHOD, in_place=True, out=CAST),
        public("atanh", mf.arctanh, AS_METHOD, in_place=True, out=CAST),
        public("absolute", mf.abs, _ABS_METHOD, in_place=True, out=outr.abs_),
        public("concat", ti.cat, out=CAT),  # torch.concat is torch.cat
        public("t", ti.t, tmeth.t_method),
        public("numel", ti.numel, lambda self: int(self._data.size)),
    )),
    Section("PyTorch's top-level functions", MG, (
        public("amax", tf.amax, AS_METHOD,
               out=outr.AMAX),
        public("amin", tf.amin, AS_METHOD,
               out=outr.AMAX),
        public("all", tf.all, out=outr.ALL),
        public("any", tf.any, out=outr.ANY_TRUE),
        public("norm", tf.norm, AS_METHOD, out=EXACT),
        public("isclose", tf.isclose, AS_METHOD),
        public("allclose", tf.allclose, AS_METHOD),
        public("msort", tf.msort, AS_METHOD, out=EXACT),
        public("clamp_min", tf.clamp_min, AS_METHOD, in_place=True, out=CAST),
        public("clamp_max", tf.clamp_max, AS_METHOD, in_place=True, out=CAST),
        public("lgamma", sp.gammaln, AS_METHOD, in_place=True, out=CAST),
        public("digamma", sp.digamma, out=CAST),
        public("erfinv", sp.erfinv, out=CAST),
        public("polygamma", tf.polygamma, out=CAST),
        public("mvlgamma", tf.mvlgamma, AS_METHOD, in_place=True, out=outr.MVLGAMMA),
        public("i0", spx.i0, out=CAST),
        public("vander", tf.vander),
        public("addmm", old.beta_first("addmm", tf.addmm), AS_METHOD, in_place=True, out=EXACT),
        public("addmv", old.beta_first("addmv", tf.addmv), AS_METHOD, in_place=True, out=EXACT),
        public("addr", old.beta_first("addr", tf.addr), AS_METHOD, in_place=True, out=CAST),
        public("baddbmm", old.beta_first("baddbmm", tf.baddbmm), AS_METHOD, in_place=True, out=EXACT),
        public("addbmm", old.beta_first("addbmm", tf.addbmm), AS_METHOD, in_place=True,
               out=rule("self and mat2 must have the same dtype, but got {out} and {result}")),
        public("addcmul", old.value_first("addcmul", tf.addcmul), AS_METHOD, in_place=True, out=CAST),
        public("addcdiv", old.value_first("addcdiv", tf.addcdiv), AS_METHOD, in_place=True, out=CAST),
        public("swapdims", ti.torch_keywords(mf.swapaxes, dim0="axis1", dim1="axis2"), AS_METHOD),
        public("softmax", tf.softmax, AS_METHOD, out=EXACT),
        public("log_softmax", tf.log_softmax, AS_METHOD, out=EXACT),
        public("relu", tmeth.relu_method, AS_METHOD, in_place=True),
        public("mm", tmeth.no_kernel_for(tmeth.product_method("mm", mf.matmul, (2, 2), "mat2"), "addmm_impl_cpu_"),
               AS_METHOD, out=EXACT),
        public("spmm", tmeth.product_method("spmm", mf.matmul, (2, 2), "mat2")),
        public("fix", mf.trunc, _TRUNC_METHOD, in_place=True, out=FOUND),
        public("sgn", tmeth.sgn_method, AS_METHOD, in_place=True, out=FOUND),
        public("bmm", tmeth.no_kernel_for(tmeth.product_method("bmm", mf.matmul, (3, 3), "mat2"), "bmm"), AS_METHOD,
               out=EXACT),
        public("mv", tmeth.no_kernel_for(tmeth.product_method("mv", mf.matmul, (2, 1), "vec"), "addmv_impl_cpu"),
               AS_METHOD, out=EXACT),
        public("vdot", tmeth.product_method("vdot", tmeth._vdot, (1, 1)), AS_METHOD,
               out=outr.DOT),
        public("inverse", la.inv, AS_METHOD, out=EXACT),
        public("float_power", tmeth.float_power_method, AS_METHOD, in_place=True,
               out=outr.FLOAT_POWER),
        public("take_along_dim", tf.take_along_dim, AS_METHOD, out=EXACT),
        public("positive", tf.positive, AS_METHOD),
        public("fliplr", tf.fliplr, AS_METHOD),
        public("flipud", tf.flipud, AS_METHOD),
        public("is_floating_point", tf.is_floating_point, AS_METHOD),
        public("logdet", tf.logdet, AS_METHOD),
        public("dist", tf.dist, AS_METHOD),
        public("logical_xor", tmeth.logical_xor_method, AS_METHOD, in_place=True, out=ANY),
        public("is_nonzero", tf.is_nonzero, AS_METHOD),
        public("repeat_interleave", tf.repeat_interleave, AS_METHOD),
        public("select", tmeth.select_method, AS_METHOD),
        public("det", la.det),
        public("slogdet", tf.slogdet, out=EXACT),
        public("matrix_power", la.matrix_power, out=outr.castable("matrix_power")),
        public("matrix_exp", lad.matrix_exp),
        public("cholesky_solve", lad.cholesky_solve, out=outr.castable("cholesky_solve")),
        public("lu_unpack", lad.lu_unpack, out=EXACT),
        public("lu", legacy.lu, AS_METHOD),
        public("lu_solve", legacy.lu_solve, AS_METHOD),
        public("triangular_solve", legacy.triangular_solve, AS_METHOD),
        public("cholesky_inverse", lad.cholesky_inverse, out=outr.castable("cholesky_inverse")),
        public("erfc", sp.erfc, out=CAST),
        public("is_tensor", tf.is_tensor),
        public("isin", tf.isin, out=EXACT),
        public("isreal", tf.isreal, AS_METHOD),
        public("unravel_index", tf.unravel_index),
        public("broadcast_shapes", tf.broadcast_shapes),
        public("finfo", type_info.finfo),
        public("iinfo", type_info.iinfo),
        public("typename", type_info.typename),
        public("svd", tf.svd, out=EXACT),
        public("qr", tf.qr, out=EXACT),
        public("svd_lowrank", lowrank.svd_lowrank),
        public("pca_lowrank", lowrank.pca_lowrank),
        public("cholesky", tf.cholesky, out=outr.castable("cholesky")),
        public("pinverse", tf.pinverse),
        public("rsub", tf.rsub),
        public("ger", mf.outer),
        public("trapz", diffs.trapezoid),
        public("igamma", spx.gammainc, out=CAST),
        public("igammac", spx.gammaincc, out=CAST),
        public("result_type", tf.result_type),
        public("promote_types", tf.promote_types),
        public("can_cast", tf.can_cast),
        public("bernoulli", creation.bernoulli, AS_METHOD,
               out=outr.BERNOULLI),
        public("multinomial", creation.multinomial, AS_METHOD,
               out=rule("multinomial expects {result} tensor out, got: {out}")),
        public("poisson", poisson.poisson),
        public("is_conj", tf.is_conj),
        public("is_neg", tf.is_neg),
        public("resolve_conj", tf.resolve_conj),
        public("resolve_neg", tf.resolve_neg),
        public("is_signed", tf.is_signed),
        public("is_same_size", tf.is_same_size),
        public("detach", tf.detach),
        public("split_with_sizes", tf.split_with_sizes),
        public("fill", tf.fill),
        public("chain_matmul", tf.chain_matmul),
        public("row_stack", shapes.vstack, out=CAT),
        public("nuclear_norm", legacy_norms.nuclear_norm),
        public("frobenius_norm", legacy_norms.frobenius_norm),
        public("geqrf", householder_qr.geqrf, AS_METHOD),
        public("orgqr", householder_qr.orgqr, AS_METHOD),
        public("ormqr", householder_qr.ormqr, AS_METHOD),
    )),
    # PyTorch's functionalized views (``torch.t_copy``): the view, copied into memory of its own
    Section("Copies of views", MG, (
        public("alias_copy", vc.alias_copy),
        public("detach_copy", vc.detach_copy),
        public("diagonal_copy", vc.diagonal_copy),
        public("expand_copy", vc.expand_copy),
        public("narrow_copy", vc.narrow_copy),
        public("permute_copy", vc.permute_copy),
        public("select_copy", vc.select_copy),
        public("slice_copy", vc.slice_copy),
        public("split_copy", vc.split_copy),
        public("split_with_sizes_copy", vc.split_with_sizes_copy),
        public("squeeze_copy", vc.squeeze_copy),
        public("t_copy", vc.t_copy),
        public("transpose_copy", vc.transpose_copy),
        public("unbind_copy", vc.unbind_copy),
        public("unfold_copy", vc.unfold_copy),
        public("unsqueeze_copy", vc.unsqueeze_copy),
        public("view_copy", vc.view_copy),
        public("view_as_real_copy", vc.view_as_real_copy),
        public("view_as_complex_copy", vc.view_as_complex_copy),
    )),
    Section("Linear algebra", LINALG, (
        public("inv", la.inv, out=EXACT),
        public("det", la.det, AS_METHOD, out=EXACT),
        public("slogdet", la.slogdet, tf.slogdet, out=EXACT),
        public("solve", la.solve, out=EXACT),
        public("cholesky", la.cholesky, tmeth.cholesky_method, out=EXACT),
        public("eig", la.eig, out=outr.EIG),
        public("eigvals", la.eigvals, out=outr.castable("torch.linalg.eigvals", "eigenvalues")),
        public("eigh", la.eigh, out=EXACT),
        public("eigvalsh", la.eigvalsh, out=EXACT),
        public("svd", la.svd, lambda self, some=True: tmeth.svd_method(self, some), out=EXACT),
        public("svdvals", la.svdvals, out=EXACT),
        public("qr", la.qr, tf.qr, out=EXACT),
        public("norm", with_dim(la.norm), out=rule("linalg.norm expected out tensor dtype {result} but got: {out}")),
        public("pinv", la.pinv, out=outr.castable("linalg.pinv")),
        public("matrix_power", la.matrix_power, AS_METHOD, out=outr.castable("matrix_power")),
        public("lstsq", la.lstsq, out=outr.LSTSQ),
        public("solve_triangular", la.solve_triangular, out=rule("expected scalar type {result} but found {out}")),
        public("vector_norm", lad.vector_norm, out=EXACT),
        public("matrix_norm", lad.matrix_norm,
               out=rule("linalg.matrix_norm expected out tensor dtype {result} but got: {out}")),
        public("multi_dot", lad.multi_dot,
               out=rule("multi_dot(): expected out tensor to have dtype {result_cpp} but got {out_cpp}")),
        public("vecdot", lad.vecdot, out=rule("linalg.vecdot: Expected out of dtype{result} but found {out}")),
        public("cond", lad.cond, out=outr.castable("linalg.cond")),
        public("matrix_rank", lad.matrix_rank, out=outr.castable("torch.linalg.matrix_rank")),
        public("cholesky_solve", lad.cholesky_solve, AS_METHOD),
        public("cholesky_inverse", lad.cholesky_inverse, AS_METHOD),
        public("tensorsolve", lad.tensorsolve, out=outr.castable("tensorsolve")),
        public("tensorinv", lad.tensorinv, out=outr.castable("tensorinv")),
        public("householder_product", lad.householder_product, out=outr.castable("torch.linalg.householder_product")),
        public("matrix_exp", lad.matrix_exp, AS_METHOD),
        public("lu_factor", lad.lu_factor, out=EXACT),
        public("lu", lad.lu, out=EXACT),
        public("lu_solve", lad.lu_solve, out=EXACT),
        public("ldl_factor", ldl.ldl_factor, out=EXACT),
        public("ldl_factor_ex", ldl.ldl_factor_ex, out=EXACT),
        public("ldl_solve", ldl.ldl_solve, out=EXACT),
        public("inv_ex", lex.inv_ex, out=EXACT),
        public("solve_ex", lex.solve_ex, out=EXACT),
        public("cholesky_ex", lex.cholesky_ex, out=EXACT),
        public("lu_factor_ex", lex.lu_factor_ex, out=EXACT),
        public("cross", lad.cross, out=EXACT),
        public("vander", lad.vander),
        public("matmul", _MATMUL_METHOD, out=outr.matmul),  # (torch.linalg's: no bool kernel)
        public("diagonal", lad.diagonal),
    )),
    Section("Special functions", SPECIAL, (
        public("gammaln", sp.gammaln, out=CAST),
        public("digamma", sp.digamma, AS_METHOD, in_place=True, out=CAST),
        public("psi", sp.psi, out=CAST),
        public("polygamma", sp.polygamma, lambda self, n: sp.polygamma(n, self), in_place=True, out=CAST),
        public("gamma", sp.gamma),
        public("erf", mf.erf, out=CAST),
        public("erfc", sp.erfc, AS_METHOD, in_place=True, out=CAST),
        public("erfinv", sp.erfinv, AS_METHOD, in_place=True, out=CAST),
        public("erfcinv", sp.erfcinv),
        public("logit", sp.logit, out=CAST),
        public("expit", sp.expit, out=CAST),
        public("xlogy", sp.xlogy, out=CAST),
        public("xlog1py", sp.xlog1py, out=CAST),
        public("beta", sp.beta),
        public("betaln", sp.betaln),
        public("logsumexp", with_dim(sp.logsumexp, reduces=True, zero_d_axis=True), out=outr.LOGSUMEXP),
        public("ndtr", spx.ndtr, out=CAST),
        public("ndtri", spx.ndtri, out=CAST),
        public("log_ndtr", spx.log_ndtr, out=CAST),
        public("erfcx", spx.erfcx, out=CAST),
        public("i0", spx.i0, AS_METHOD, in_place=True, out=CAST),
        public("i0e", spx.i0e, out=CAST),
        public("i1", spx.i1, out=CAST),
        public("i1e", spx.i1e, out=CAST),
        public("entr", spx.entr, out=CAST),
        public("multigammaln", spx.multigammaln, out=outr.MVLGAMMA),
        public("sinc", mf.sinc, out=CAST),
        public("zeta", spx.zeta, out=CAST),
        public("gammainc", spx.gammainc, out=CAST),
        public("gammaincc", spx.gammaincc, out=CAST),
        public("chebyshev_polynomial_t", spp.chebyshev_polynomial_t, out=CAST),
        public("chebyshev_polynomial_u", spp.chebyshev_polynomial_u, out=CAST),
        public("chebyshev_polynomial_v", spp.chebyshev_polynomial_v, out=CAST),
        public("chebyshev_polynomial_w", spp.chebyshev_polynomial_w, out=CAST),
        public("shifted_chebyshev_polynomial_t", spp.shifted_chebyshev_polynomial_t, out=CAST),
        public("shifted_chebyshev_polynomial_u", spp.shifted_chebyshev_polynomial_u, out=CAST),
        public("shifted_chebyshev_polynomial_v", spp.shifted_chebyshev_polynomial_v, out=CAST),
        public("shifted_chebyshev_polynomial_w", spp.shifted_chebyshev_polynomial_w, out=CAST),
        public("hermite_polynomial_h", spp.hermite_polynomial_h, out=CAST),
        public("hermite_polynomial_he", spp.hermite_polynomial_he, out=CAST),
        public("laguerre_polynomial_l", spp.laguerre_polynomial_l, out=CAST),
        public("legendre_polynomial_p", spp.legendre_polynomial_p, out=CAST),
        public("spherical_bessel_j0", spb.spherical_bessel_j0, out=CAST),
        public("bessel_j0", spb.bessel_j0, out=CAST),
        public("bessel_j1", spb.bessel_j1, out=CAST),
        public("bessel_y0", spb.bessel_y0, out=CAST),
        public("bessel_y1", spb.bessel_y1, out=CAST),
        public("airy_ai", spb.airy_ai, out=CAST),
        public("modified_bessel_i0", spb.modified_bessel_i0, out=CAST),
        public("modified_bessel_i1", spb.modified_bessel_i1, out=CAST),
        public("modified_bessel_k0", spb.modified_bessel_k0, out=CAST),
        public("modified_bessel_k1", spb.modified_bessel_k1, out=CAST),
        public("scaled_modified_bessel_k0", spb.scaled_modified_bessel_k0, out=CAST),
        public("scaled_modified_bessel_k1", spb.scaled_modified_bessel_k1, out=CAST),
        # torch.special's names for functions the package offers under mg's own names
        public("softmax", tf.softmax),
        public("log_softmax", tf.log_softmax),
        public("expm1", mf.expm1, out=CAST),
        public("exp2", mf.exp2, out=CAST),
        public("log1p", mf.log1p, out=CAST),
        public("round", mf.round, out=FOUND),
    )),
    Section("Fourier transforms", FFT, (
        public("fft", ft.fft, out=outr.complex_out("fft")),
        public("ifft", ft.ifft, out=outr.complex_out_only("ifft")),
        public("rfft", ft.rfft, out=outr.complex_out("rfft")),
        public("irfft", ft.irfft, out=outr.real_out("irfft")),
        public("hfft", ft.hfft, out=outr.real_out("hfft")),
        public("ihfft", ft.ihfft, out=outr.complex_out_only("ihfft")),
        public("fft2", ft.fft2, out=outr.complex_out("fftn")),
        public("ifft2", ft.ifft2, out=outr.complex_out("fftn")),
        public("rfft2", ft.rfft2, out=outr.complex_out("rfftn")),
        public("irfft2", ft.irfft2, out=outr.real_out("irfftn")),
        public("fftn", ft.fftn, out=outr.complex_out("fftn")),
        public("ifftn", ft.ifftn, out=outr.complex_out("fftn")),
        public("rfftn", ft.rfftn, out=outr.complex_out("rfftn")),
        public("irfftn", ft.irfftn, out=outr.real_out("irfftn")),
        public("hfft2", ft.hfft2, out=outr.real_out("hfftn")),
        public("ihfft2", ft.ihfft2, out=outr.complex_out("ihfftn")),
        public("hfftn", ft.hfftn, out=outr.real_out("hfftn")),
        public("ihfftn", ft.ihfftn, out=outr.complex_out("ihfftn")),
        public("fftfreq", ft.fftfreq, out=RANGE),
        public("rfftfreq", ft.rfftfreq, out=RANGE),
        public("fftshift", ft.fftshift),
        public("ifftshift", ft.ifftshift),
    )),
    Section("PyTorch's top-level in-place functions", MG, tuple(
        public(name, tf.in_place_function(name)) for name in tf.TORCH_IN_PLACE)),
    Section("Short-time Fourier transforms", MG, (
        public("stft", spec.stft, AS_METHOD),
        public("istft", spec.istft, AS_METHOD),
    )),
    Section("Operators", TENSOR, (
        tensor_method("__add__", tm.operator_method(_ADD)),
        # ``2 + x`` and ``2 * x`` record the tensor as the first operand, as PyTorch's (its __radd__ and
        # __rmul__ are __add__ and __mul__): a walk down ``grad_fn.next_functions[0][0]`` goes to ``x``
        tensor_method("__radd__", tm.operator_method(_ADD)),
        tensor_method("__sub__", tm.operator_method(_SUB, slow=tm.subtract_slow_path)),
        tensor_method("__rsub__", tm.operator_method(_SUB, reflected=True, slow=tm.subtract_slow_path)),
        tensor_method("__mul__", tm.scaling_operator_method(_MUL, mf.multiply)),
        tensor_method("__rmul__", tm.scaling_operator_method(_MUL, mf.multiply)),
        tensor_method("__truediv__", tm.scaling_operator_method(_DIV, mf.divide, float_valued=True)),
        tensor_method("__rtruediv__", tm.rtruediv_method),  # ``reciprocal(x) * y``, rounded as PyTorch's
        tensor_method("__pow__", tm.power_method(_POW)),
        tensor_method("__rpow__", tm.rpow),
        tensor_method("__matmul__", tm.operand_method(_MATMUL_METHOD)),
        tensor_method("__rmatmul__", tm.rmatmul),
        tensor_method("__neg__", mf.negative),
        tensor_method("__pos__", tf.positive),
        tensor_method("__abs__", _ABS_METHOD),  # abs(mask): PyTorch's refusal, as mask.abs()
        tensor_method("__eq__", tm.eq_method),
        tensor_method("__ne__", tm.ne_method),
        tensor_method("__lt__", tm.operand_method(mf.less)),
        tensor_method("__le__", tm.operand_method(mf.less_equal)),
        tensor_method("__gt__", tm.operand_method(mf.greater)),
        tensor_method("__ge__", tm.operand_method(mf.greater_equal)),
        tensor_method("__getitem__", mf.getitem),
        tensor_method("__and__", tm.operand_method(mf.bitwise_and)),
        tensor_method("__or__", tm.operand_method(mf.bitwise_or)),
        tensor_method("__xor__", tm.operand_method(mf.bitwise_xor)),
        tensor_method("__rand__", tm.operand_method(ewc.reflected(mf.bitwise_and))),
        tensor_method("__ror__", tm.operand_method(ewc.reflected(mf.bitwise_or))),
        tensor_method("__rxor__", tm.operand_method(ewc.reflected(mf.bitwise_xor))),
        tensor_method("__invert__", mf.bitwise_not),
        tensor_method("__array_ufunc__", numpy_ufuncs.ForNumPyOnly(numpy_ufuncs.array_ufunc)),
        tensor_method("__lshift__", tm.operand_method(im.bitwise_left_shift)),
        tensor_method("__rshift__", tm.operand_method(im.bitwise_right_shift)),
        tensor_method("__rlshift__", tm.operand_method(ewc.reflected(im.bitwise_left_shift))),
        tensor_method("__rrshift__", tm.operand_method(ewc.reflected(im.bitwise_right_shift))),
        tensor_method("__mod__", tm.remainder_method),
        tensor_method("__rmod__", tm.rremainder_method),
        tensor_method("__round__", mf.round),
        tensor_method("__format__", tmeth.format_method),
        tensor_method("__floordiv__", tm.operand_method(ewc.floor_divide)),
        tensor_method("__rfloordiv__", tm.operand_method(ewc.reflected(ewc.floor_divide))),
        tensor_method("__ifloordiv__", tm.augmented_assignment("floor_divide_")),
        tensor_method("__imod__", tm.augmented_assignment("remainder_")),
        tensor_method("__ipow__", tm.augmented_assignment("pow_")),
        tensor_method("__iand__", tm.augmented_assignment("bitwise_and_")),
        tensor_method("__ior__", tm.augmented_assignment("bitwise_or_")),
        tensor_method("__ixor__", tm.augmented_assignment("bitwise_xor_")),
        tensor_method("__ilshift__", tm.augmented_assignment("bitwise_left_shift_")),
        tensor_method("__irshift__", tm.augmented_assignment("bitwise_right_shift_")),
    )),
    Section("Autograd, devices and dtypes", TENSOR, (
        tensor_method("backward", tm.backward_method),
        tensor_method("to", tm.to_method),
        tensor_method("cpu", tm.cpu_method),
        tensor_method("cuda", tm.cuda_method),
        tensor_method("float", tm.cast_method("float32", "A float32 copy (differentiable).")),
        tensor_method("double", tm.cast_method("float64", "A float64 copy (differentiable).")),
        tensor_method("half", tm.cast_method("float16", "A float16 copy (differentiable).")),
        tensor_method("bfloat16", tm.cast_method("bfloat16", "Refused (a TypeError): NumPy has no bfloat16; "
                                                 "``half()`` gives float16, ``float()`` float32.")),
        tensor_method("chalf", tm.cast_method("complex32", "Refused (a TypeError): NumPy has no complex32; "
                                              "``cfloat()`` gives complex64.")),
        tensor_method("long", tm.cast_method("int64", "An int64 copy (cuts the tape).")),
        tensor_method("int", tm.cast_method("int32", "An int32 copy (cuts the tape).")),
        tensor_method("bool", tm.cast_method("bool", "A bool copy (cuts the tape).")),
        tensor_method("type", tmeth.type_method),
        tensor_method("type_as", tm.type_as_method),
        tensor_method("is_cuda", property(lambda self: self.device.type == "cuda")),
        tensor_method("is_cpu", property(lambda self: self.device.type == "cpu")),
        tensor_method("is_meta", property(lambda self: self.device.type == "meta")),
        tensor_method("layout", property(lambda self: strided)),  # (every tensor here is one dense array)
        # PyTorch's other device kinds and layouts, which no tensor here has (device checks such as
        # dcgan's `input.is_cuda or input.is_xpu` read them)
        *(tensor_method(kind, property(lambda self: False)) for kind in _ABSENT_KINDS),
        tensor_method("pin_memory", tm.pin_memory_method),
        tensor_method("is_pinned", tm.is_pinned_method),
        tensor_method("get_device", lambda self: -1 if self.device.type == "cpu" else self.device.index),
        tensor_method("byte", tm.cast_method("uint8", "A uint8 copy (cuts the tape).")),
        tensor_method("char", tm.cast_method("int8", "An int8 copy (cuts the tape).")),
        tensor_method("short", tm.cast_method("int16", "An int16 copy (cuts the tape).")),
        tensor_method("T", tm.transpose_property),
        tensor_method("mT", tm.matrix_transpose_property),
        tensor_method("H", tm.conj_transpose_property),
        tensor_method("mH", tm.matrix_conj_transpose_property),
        tensor_method("adjoint", tm.adjoint_method),
        tensor_method("cfloat", tm.cast_method("complex64", "A complex64 copy (differentiable).")),
        tensor_method("cdouble", tm.cast_method("complex128", "A complex128 copy (differentiable).")),
        # the engine keeps no lazy conjugate or negative bit: every tensor is already resolved
        tensor_method("resolve_conj", lambda self: self),
        tensor_method("resolve_neg", lambda self: self),
        tensor_method("is_conj", lambda self: False),
        tensor_method("is_neg", lambda self: False),
    )),
    Section("PyTorch's Tensor methods", TENSOR, (
        tensor_method("normal_", rf.normal_),
        tensor_method("uniform_", rf.uniform_),
        tensor_method("bernoulli_", rf.bernoulli_),
        tensor_method("exponential_", rf.exponential_),
        tensor_method("geometric_", rf.geometric_),
        tensor_method("log_normal_", rf.log_normal_),
        tensor_method("cauchy_", rf.cauchy_),
        tensor_method("random_", rf.random_),
        tensor_method("view", tmeth.view_method),
        tensor_method("view_as", lambda self, other: tmeth.view_method(self, other.shape)),  # a view, not a copy
        tensor_method("reshape_as", lambda self, other: tmeth.reshape_method(self, other.shape)),
        tensor_method("expand", tmeth.expand_method),
        tensor_method("expand_as", tmeth.expand_as_method),
        tensor_method("nelement", lambda self: int(self._data.size)),
        tensor_method("dim", lambda self: self.ndim),
        tensor_method("ndimension", lambda self: self.ndim),
        tensor_method("all", tmeth.reduction_method(namespace.all)),
        tensor_method("any", tmeth.reduction_method(namespace.any)),
        tensor_method("new_zeros", tmeth.new_method(0)),
        tensor_method("new_ones", tmeth.new_method(1)),
        tensor_method("new_empty", tmeth.new_method(0, "new_empty")),
        tensor_method("new_full", tmeth.new_full_method),
        tensor_method("new_tensor", tmeth.new_tensor_method),
        tensor_method("new", tmeth.legacy_new_method),
        tensor_method("ger", tmeth.product_method("ger", mf.outer, (1, 1), "vec2", one_dtype=False)),
        tensor_method("pinverse", la.pinv),
        tensor_method("igamma", tm.refusing_number_operand(spx.gammainc, "igamma"), in_place=True),
        tensor_method("igammac", tm.refusing_number_operand(spx.gammaincc, "igammac"), in_place=True),
        tensor_method("is_signed", lambda self: self.dtype.kind in "fic"),
        tensor_method("element_size", lambda self: self.dtype.itemsize),
        tensor_method("is_contiguous", tmeth.is_contiguous_method),
        tensor_method("contiguous", tmeth.contiguous_method),
        tensor_method("stride", tmeth.stride_method),
        tensor_method("data_ptr", tmeth.data_ptr_method),
        tensor_method("is_same_size", lambda self, other: self.shape == other.shape),
        tensor_method("split_with_sizes", tmeth.split_with_sizes_method),
        tensor_method("unfold", shapes.unfold_method),
        tensor_method("sum_to_size", tmeth.sum_to_size_method),
        tensor_method("fill_diagonal_", tmeth.fill_diagonal_method),
        *(tensor_method(name + "_", tmeth.view_in_place(name))
          for name in ("unsqueeze", "squeeze", "t", "transpose", "swapaxes", "swapdims")),
    )),
)


def rows(home: Any = ...) -> Iterator[tuple[Section, Public]]:
    """Every ``(section, row)`` of the table (of ``home`` only, when it is given)."""
    for section in SECTIONS:
        if home is ... or section.home == home:
            for row in section.names:
                yield section, row


def exports(home: str) -> dict[str, Any]:
    """``{name: function}`` for every name the namespace ``home`` exports, in the table's order.  A name
    whose row declares no ``out=`` while another name of its function does is that name's function
    (``mg.power`` is ``mg.pow``, with its ``out=``): one function under two names stays one."""
    return {row.name: _TAKING_OUT.get(id(row.function), row.function) for _, row in rows(home)}


#: In-place twins whose value PyTorch converts to the tensor's dtype (``x.masked_fill_(m, 2.5)`` of
#: an integer ``x`` writes 2): a float result of the twin goes in as a float would.
_VALUE_TAKES_DTYPE = frozenset({"masked_fill", "index_fill", "scatter", "index_put", "put"})


#: In-place twins whose result dtype must be the tensor's own: ``float_power`` computes in double
#: precision, and PyTorch refuses ``x.float_power_(2)`` for a float32 ``x`` rather than round.
_RESULT_DTYPE_EXACT = frozenset({"float_power"})


def _lost_in_place(name: str, result: Any, target: Any) -> str | None:
    """What writing a ``result``-typed value into a ``target``-typed tensor would lose, as
    PyTorch's rule for in-place results (the same kind or a wider one): None if nothing."""
    if name in _RESULT_DTYPE_EXACT and result != target:
        return "precision the operation requires"
    if result.kind == "c" and target.kind != "c":
        return "imaginary part"
    if result.kind == "f" and target.kind == "c":  # z.abs_(): PyTorch's "In-place abs is not supported for complex"
        return "phase"
    if result.kind == "f" and target.kind in "iub" and name not in _VALUE_TAKES_DTYPE:
        return "fraction"
    if result.kind in "iu" and target.kind == "b" and name not in _VALUE_TAKES_DTYPE:
        return "integer values"  # x.clamp_(min=0) of a bool x: PyTorch refuses Long into Bool too
    return None


#: The in-place twins that write each element from another place (a source or an index), which
#: PyTorch refuses where that operand shares memory with the tensor (:func:`refuse_overlap`).
_READS_ELSEWHERE = frozenset({"scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_reduce",
                              "index_put", "put"})


def in_place(name: str) -> Any:
    """Tensor's ``<name>_``: the method ``<name>``, its result copied back into the tensor."""

    refuses_overlap = name in _READS_ELSEWHERE

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if refuses_overlap:
            refuse_overlap(name + "_", self, (*args, *kwargs.values()))
        if kwargs.get("dtype") is not None and as_dtype(kwargs["dtype"]) != self.dtype:
            # x.cumsum_(0, dtype=float64) of a float32 x: PyTorch refuses rather than round the result
            raise RuntimeError(f"{name}_: Bad in-place call: input tensor dtype {self.dtype} and output "
                               f"tensor dtype {as_dtype(kwargs['dtype'])} should match")
        result = getattr(self._write_source(*args, *kwargs.values()), name)(*args, **kwargs)
        result = _linked_to_operands(result, self, (*args, *kwargs.values()))
        # x.pow_(y) with a y of more or larger dims: PyTorch's RuntimeError ("output with shape [2, 1] doesn't
        # match the broadcast shape [2, 2]"), where copy_ raised NumPy's ValueError or dropped a leading 1
        self._refuse_wider_operand(result)
        lost = _lost_in_place(name, result.dtype, self.dtype)
        if lost:  # copy_ would drop it (a complex part with only NumPy's ComplexWarning); PyTorch refuses
            raise RuntimeError(f"{name}_: result type {result.dtype} can't be cast to the desired "
                               f"output type {self.dtype} (the {lost} would be lost)")
        return self._write_result(result, name + "_")

    method.__name__ = name + "_"
    method.__doc__ = (
        f"``x.{name}_(...)``: ``x.copy_(x.{name}(...))`` -- in place, under the in-place rules "
        f"(on the tape where ``x`` or an argument requires grad: ``x`` takes the result's history; "
        f"tangents carried; "
        f"a complex result for a real ``x``, a real one for a complex ``x``, a float one for an integer ``x``, "
        f"or an integer one for a bool ``x``, is an error, as PyTorch's)."
    )
    return method


def _linked_to_operands(result: Tensor, self: Tensor, operands: tuple[Any, ...]) -> Tensor:
    """A result that needs no grad (``x.eq_(y)``'s comparison), written into a float ``x``: cast to
    it and linked to each float operand that requires grad with the gradient 0 -- PyTorch's in-place
    comparisons give ``y`` zeros (as ``x``'s old value, which :meth:`Tensor._rebase` keeps), where
    nothing connected it here (``y.grad`` None: an optimizer skipped it)."""
    if result.requires_grad or self.dtype.kind != "f" or not is_grad_enabled():
        return result
    linked = [a for a in operands if isinstance(a, Tensor) and a.requires_grad and a.dtype.kind == "f"]
    if linked:
        if self.requires_grad:  # (a result that requires grad no longer keeps x's old value by itself)
            linked.append(self)
        result = result.to(self.dtype)
        for operand in linked:
            result = result + ewc.zero_link(operand, self.dtype)
    return result


def methods() -> dict[str, Any]:
    """Tensor's methods, operators and properties as the table declares them, in-place twins included."""
    table: dict[str, Any] = {}
    for _, row in rows():
        if row.method is not None:
            table[row.name] = row.method
        if row.in_place:
            twin = in_place(row.name)
            table[row.name + "_"] = old.naming_the_twin(row.name, twin) if row.name in old.SCALE_FIRST else twin
    return table


def bind() -> None:
    """Put :func:`methods` on Tensor, hand the tape its differentiable namespace and NumPy's ufuncs the
    engine's functions: the package's one binding point (DeZero's ``setup_variable``), called once by
    its ``__init__``."""
    for name, method in methods().items():
        setattr(Tensor, name, method)
    tape.differentiable_namespace = namespace
    numpy_ufuncs.use_engine_functions(exports(MG))
