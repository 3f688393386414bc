"""PyTorch's rules for the dtype an ``out=`` may have, where a function's are not one of
:mod:`~minigrad_ckpt.out_arguments`' common ones (``CAST``, ``EXACT``, ``FOUND``, ...): the families
whose words name the function (the FFTs', linalg's "safely castable"), the functions of several
results (a rule each), words that depend on the dtypes, and rules that depend on the call (``clamp``
with a tensor bound is PyTorch's newer kernel, which casts).  The table of public names
(:mod:`~minigrad_ckpt.functional.public_names`) names them at each function's row.  Each was read off
torch 2.13, and ``tests/test_out_samples.py`` holds them to it.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy, scalar_type_name
from ..out_arguments import ANY, CAST, EXACT, FOUND, OutRule, can_cast, out_kind, rule
from ..tensor import Tensor


def castable(name: str, result: str = "result") -> OutRule:
    """linalg's: a result "safely castable" (PyTorch's can_cast) into ``out``, as ``name`` says it."""
    return rule(f"{name}: Expected {result} to be safely castable from {{result}} dtype, but got {result} with dtype "
                "{out}", can_cast)


def complex_out(name: str) -> OutRule:
    """The FFTs' of a complex result: a complex ``out`` of any width."""
    return rule(f"{name} expects a complex output tensor, but got {{out}}", can_cast)


def complex_out_only(name: str) -> OutRule:
    """ifft's and ihfft's: a complex ``out`` of the result's width only."""
    return rule(lambda result, out: f"{name} expects a complex output tensor, but got {{out}}" if out.kind != "c"
                else "Found dtype {out} but expected {result}")


def real_out(name: str) -> OutRule:
    """The FFTs' of a real result: a floating-point ``out`` of any width."""
    return rule(f"{name} expects a floating point output tensor, but got {{out}}", out_kind("f"))


def clamp(args: tuple, kwargs: dict) -> OutRule:
    """clamp's: a tensor bound is PyTorch's structured kernel (a result casts into ``out``), number bounds
    its older one (the result's dtype only)."""
    bounds = [*args[1:], kwargs.get("min"), kwargs.get("max")]
    return CAST if any(isinstance(b, Tensor) for b in bounds) else FOUND


DOT = rule("result dtype {out} does not match input dtype {result}")


def matmul(args: tuple, kwargs: dict) -> OutRule:
    """matmul's: of two vectors it is dot, in dot's words."""
    vectors = [a for a in [*args, *kwargs.values()][:2] if isinstance(a, Tensor) and a.ndim == 1]
    return DOT if len(vectors) == 2 else EXACT


TAKE = rule("take(): self and out expected to have the same dtype, but got self.dtype = {result} and "
            "out.dtype = {out}")
FREXP = (rule("torch.frexp() expects mantissa to have dtype {result_cpp} but got {out_cpp}"),
         rule("torch.frexp() expects exponent to have {result_cpp} dtype but got {out_cpp}"))
KTHVALUE = (rule("output values must be of same type as input"), rule("output indices must be of scalar type {result}"))
#: median's and nanmedian's (both say "median")
MEDIAN = (rule("Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
               "torch.{out}Tensor does not equal torch.{result}Tensor (while checking arguments for median)"),
          rule("Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.{out}Tensor "
               "instead (while checking arguments for median)"))
MODE = tuple(rule(f"expected scalar type '{{result}}' but got '{{out}}' for {part} output")
             for part in ("values", "indices"))
HISTC = rule("torch.histogram: input tensor and hist tensor should have the same dtype, but got input {result_cpp} "
             "and hist {out_cpp}")
HISTOGRAM = (HISTC, rule("torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got "
                         "input {result_cpp} and bin_edges {out_cpp} for dimension 0"))
AMAX = rule("Expected the dtype for input and out to match, but got {result} for input's dtype and {out} for out's "
            "dtype.")
FLOAT_POWER = rule("the output given to float_power has dtype {out} but the operation's result requires dtype {result}")
LOGSUMEXP = rule("logsumexp(): Expected floating point type for result tensor, but got: {out}", can_cast)
MVLGAMMA = rule("mvlgamma: result type {result} can't be cast to the desired output type {result}",  # (sic: twice)
                can_cast)
TENSORDOT = rule("tensordot: Expected the output tensor to have dtype {result}, but got an output tensor with dtype "
                 "{out}")
HEAVISIDE = rule(lambda result, out: "heaviside is not yet implemented for complex tensors." if out.kind == "c"
                 else "heaviside is not yet implemented for tensors with different dtypes.")
SEARCHSORTED = rule(lambda result, out: (
    "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending on "
    f"whether out_int32 flag is True, but we got output tensor's dtype {{out}} and out_int32 flag is "
    f"{result == 'int32'}"))
#: linalg.lstsq's four results: the solution and the residuals castable into their outs, both refused in the
#: solution's words as PyTorch's; the rank and the singular values in their own dtypes (PyTorch asserts it)
LSTSQ = (castable("torch.linalg.lstsq", "solution"), castable("torch.linalg.lstsq", "solution"),
         *(rule(castable("torch.linalg.lstsq", part).message) for part in ("rank", "singular_values")))
BERNOULLI = rule("\"bernoulli_tensor_cpu_self_\" not implemented for '{out}'", out_kind("biuf"), NotImplementedError)
NANSUM = rule("\"nansum_cpu\" not implemented for '{out}'", out_kind("f"), NotImplementedError)


def nansum(args: tuple, kwargs: dict) -> OutRule:
    """nansum's: the sum of integers (or bools) into an ``out`` of any dtype, of floats into a floating
    ``out``, of complex numbers (which PyTorch refuses on CPU and the engine sums) into a complex one --
    never a floating ``out`` that would drop the imaginary parts."""
    kind = _input_kind(args, kwargs)
    return ANY if kind in "biu" else CAST if kind == "c" else NANSUM


def nanmean(args: tuple, kwargs: dict) -> OutRule:
    """nanmean's: nansum's for floats and complex numbers (integers are PyTorch's error; the engine's
    mean of them is a float, into a floating ``out``)."""
    return CAST if _input_kind(args, kwargs) == "c" else NANSUM


def _complex_of(real: Any) -> Any:
    return host_numpy.promote_types(real, host_numpy.complex64)


#: abs of a complex tensor: its real result into a floating ``out`` of any width, or into the input's own
#: complex dtype (PyTorch's kernel computes there), another complex width in FOUND's words, an integer in CAST's
ABS_OF_COMPLEX = rule(lambda result, out: f"Found dtype {{out}} but expected {scalar_type_name(_complex_of(result))}"
                      if out.kind == "c" else CAST.message,
                      lambda result, out: out.kind == "f" or out == _complex_of(result))


def abs_(args: tuple, kwargs: dict) -> OutRule:
    """abs's: :data:`ABS_OF_COMPLEX` for a complex input, the result's dtype only for a real one."""
    return ABS_OF_COMPLEX if _input_kind(args, kwargs) == "c" else FOUND


def _input_kind(args: tuple, kwargs: dict) -> str:
    """The NumPy kind of the call's first operand ("f" where it is not a tensor: the float rules)."""
    x = args[0] if args else kwargs.get("input", kwargs.get("x"))
    return x.dtype.kind if isinstance(x, Tensor) else "f"
#: all and any: a bool out, or uint8 (PyTorch's older mask dtype)
ALL, ANY_TRUE = (rule(f"{name} only supports bool tensor for result, got: {{out}}", out_kind("bu"))
                 for name in ("all", "any"))
EIG = (castable("torch.linalg.eig", "eigenvalues"), castable("torch.linalg.eig", "eigenvectors"))
