"""Regenerate ``tests/data/torch_complex_reference.npz``: PyTorch's derivatives of
complex-capable functions, of every ``fft`` function and of the complex factorizations
(through the phase-independent functions of ``complex_linalg_cases.py``), in float64/complex128.

    python tests/data/make_torch_complex_reference.py     # needs torch; the tests do not

PyTorch's gradient convention is the one minigrad_ckpt follows
(docs/complex.md), so its numbers are the answer without conversion.  Each
case calls one function ``f`` on inputs drawn from a fixed NumPy seed
(complex inputs have random real and imaginary parts) and stores:

``<case>|<name>``        the inputs
``<case>|out``           ``f(inputs)``
``<case>|cot``           a random cotangent for the output (complex if it is)
``<case>|grad_<name>``   the vector-Jacobian product ``vjp(cot)`` for each input
                         (``torch.autograd.grad(out, x, cot)``)
``<case>|tan_<name>``    a random tangent per input
``<case>|jvp``           ``torch.func.jvp(f, inputs, tangents)``
``<case>|dir_<name>``    a random direction per input, and
``<case>|gg_<name>``     the second derivative: the gradient of
                         ``<vjp(cot), dir>`` (the real inner product) with
                         respect to each input
``<case>|ggcot``         ... and with respect to the cotangent
``<case>|out32``         ``f(inputs)`` with the inputs in single precision (complex64,
                         float32): the complex64 forward pass
``__meta__``             JSON: for each case the function (``"fft.rfft"``), its
                         keyword arguments in NumPy's spelling and the inputs

``tests/test_complex_vs_torch.py`` replays every case with minigrad_ckpt (no
torch import).  The file name does not start with ``test_`` so pytest never
collects it.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
import complex_linalg_cases  # noqa: E402
import complex_op_cases  # noqa: E402

OUT = Path(__file__).with_name("torch_complex_reference.npz")
rng = np.random.default_rng(20261201)
ARRAYS: dict[str, np.ndarray] = {}
META: dict[str, dict] = {}

#: NumPy's argument names -> PyTorch's (``torch.fft`` says ``dim``, ``torch.var`` ``correction``)
TORCH_KWARGS = {"axis": "dim", "axes": "dim", "ddof": "correction"}


def draw(shape: tuple[int, ...], kind: str) -> np.ndarray:
    a = rng.standard_normal(shape)
    if kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return np.asarray(a)


def like(a: np.ndarray) -> np.ndarray:
    return draw(a.shape, a.dtype.kind)


def torch_function(name: str):
    if name.startswith("cases."):  # a composition in complex_linalg_cases.py
        return functools.partial(getattr(complex_linalg_cases, name.removeprefix("cases.")), torch)
    if name.startswith("ops."):  # a function of complex_op_cases.py
        return functools.partial(getattr(complex_op_cases, name.removeprefix("ops.")), torch)
    obj = torch
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def inner(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The real inner product of two tensors (complex numbers as pairs of reals)."""
    return (a * b.conj()).real.sum() if a.is_complex() or b.is_complex() else (a * b).sum()


def host(t: torch.Tensor) -> np.ndarray:
    return t.detach().resolve_conj().resolve_neg().numpy().copy()


def single(a: np.ndarray) -> np.ndarray:
    """``a`` in single precision: complex64 for complex128, float32 for float64, other dtypes kept."""
    return a.astype({"c": np.complex64, "f": np.float32}.get(a.dtype.kind, a.dtype))


def case(name: str, fn: str, inputs: dict[str, np.ndarray], mg_fn: str | None = None, prefix: tuple = (),
         mg_kwargs: dict | None = None, jvp_promoted: bool = False, jvp_by_reverse_mode: bool = False,
         **kwargs) -> None:
    """One call ``fn(*prefix, *inputs, **kwargs)``; ``mg_fn`` and ``mg_kwargs`` are minigrad_ckpt's
    spelling where it differs (``kwargs`` in NumPy's spelling are translated for torch).

    ``jvp_promoted``: take the jvp with the real inputs (and tangents) made complex -- the
    same function -- where PyTorch's own forward mode is wrong for mixed operands
    (``torch.pow`` of a real and a complex tensor, torch 2.13: off by O(1) from central
    differences, while the promoted call agrees with them to 1e-9).

    ``jvp_by_reverse_mode``: take the jvp with ``torch.autograd.functional.jvp`` (two reverse
    passes) where PyTorch's forward mode is wrong (``cholesky_inverse`` of a complex factor,
    torch 2.13: off by 3e-3 from the exact ``-A^-1 dA A^-1``, which the reverse passes give)."""
    torch_f = torch_function(fn)
    tkw = {TORCH_KWARGS.get(k, k): (list(v) if isinstance(v, tuple) else v) for k, v in kwargs.items()}

    def f(*xs, **kw):
        return torch_f(*prefix, *xs, **kw)

    names = list(inputs)
    xs = [torch.from_numpy(inputs[n].copy()).requires_grad_(True) for n in names]
    out = f(*xs, **tkw)
    cot = torch.from_numpy(like(host(out))).requires_grad_(True)
    grads = torch.autograd.grad(out, xs, cot, create_graph=True)
    dirs = [torch.from_numpy(like(inputs[n])) for n in names]
    second = sum(inner(g, d) for g, d in zip(grads, dirs))
    gg = torch.autograd.grad(second, [*xs, cot], allow_unused=True)
    tans = [torch.from_numpy(like(inputs[n])) for n in names]
    primals, directions = tuple(x.detach() for x in xs), tuple(tans)
    if jvp_promoted:
        primals = tuple(x.to(torch.complex128) for x in primals)
        directions = tuple(t.to(torch.complex128) for t in directions)
    if jvp_by_reverse_mode:
        _, jvp = torch.autograd.functional.jvp(lambda *a: f(*a, **tkw), primals, directions)
    else:
        _, jvp = torch.func.jvp(lambda *a: f(*a, **tkw), primals, directions)
    out32 = f(*(torch.from_numpy(single(inputs[n])) for n in names), **tkw)
    ARRAYS[f"{name}|out32"] = host(out32)
    for n in names:
        ARRAYS[f"{name}|{n}"] = inputs[n]
    ARRAYS[f"{name}|out"] = host(out)
    ARRAYS[f"{name}|cot"] = host(cot)
    ARRAYS[f"{name}|jvp"] = host(jvp)
    for n, x, g, d, t, h in zip(names, xs, grads, dirs, tans, gg):
        ARRAYS[f"{name}|grad_{n}"] = host(g)
        ARRAYS[f"{name}|dir_{n}"] = host(d)
        ARRAYS[f"{name}|tan_{n}"] = host(t)
        ARRAYS[f"{name}|gg_{n}"] = host(torch.zeros_like(x) if h is None else h)
    ARRAYS[f"{name}|ggcot"] = host(torch.zeros_like(cot) if gg[-1] is None else gg[-1])
    META[name] = {"fn": mg_fn or fn, "kwargs": kwargs if mg_kwargs is None else mg_kwargs, "inputs": names,
                  "prefix": list(prefix)}


def fft_cases() -> None:
    c1, r1 = draw((7,), "c"), draw((8,), "r")
    c2, r2 = draw((3, 5), "c"), draw((4, 6), "r")
    c3, r3 = draw((2, 3, 4), "c"), draw((3, 4, 5), "r")
    for norm in ("backward", "ortho", "forward"):
        case(f"fft_{norm}", "fft.fft", {"x": c1}, norm=norm)
        case(f"ifft_{norm}", "fft.ifft", {"x": c1}, norm=norm)
        case(f"rfft_{norm}", "fft.rfft", {"x": r1}, norm=norm)
        case(f"irfft_{norm}", "fft.irfft", {"x": c1}, norm=norm)
        case(f"hfft_{norm}", "fft.hfft", {"x": c1}, norm=norm)
        case(f"ihfft_{norm}", "fft.ihfft", {"x": r1}, norm=norm)
        case(f"fftn_{norm}", "fft.fftn", {"x": c3}, norm=norm)
        case(f"rfftn_{norm}", "fft.rfftn", {"x": r3}, norm=norm)
        case(f"irfftn_{norm}", "fft.irfftn", {"x": c3}, norm=norm)
    case("fft_real_input", "fft.fft", {"x": r1})
    case("fft_n_pad", "fft.fft", {"x": c1}, n=10)
    case("fft_n_crop_axis0", "fft.fft", {"x": c2}, n=2, axis=0)
    case("ifft_real_input_n", "fft.ifft", {"x": r1}, n=5)
    case("rfft_odd_n", "fft.rfft", {"x": r1}, n=7)
    case("rfft_pad_axis0", "fft.rfft", {"x": r2}, n=7, axis=0)
    case("irfft_odd_n", "fft.irfft", {"x": c1}, n=9)
    case("irfft_even_n_crop", "fft.irfft", {"x": c1}, n=6)
    case("irfft_axis0", "fft.irfft", {"x": c2}, axis=0)
    case("hfft_odd_n", "fft.hfft", {"x": c1}, n=11)
    case("ihfft_n", "fft.ihfft", {"x": r1}, n=5, norm="ortho")
    case("fft2", "fft.fft2", {"x": c2})
    case("fft2_s", "fft.fft2", {"x": c2}, s=(4, 3))
    case("ifft2", "fft.ifft2", {"x": c2}, norm="ortho")
    case("rfft2", "fft.rfft2", {"x": r2})
    case("rfft2_s", "fft.rfft2", {"x": r2}, s=(3, 7))
    case("irfft2", "fft.irfft2", {"x": c2})
    case("irfft2_s", "fft.irfft2", {"x": c2}, s=(4, 7))
    case("fftn_axes", "fft.fftn", {"x": c3}, axes=(0, 2))
    case("fftn_s_axes", "fft.fftn", {"x": c3}, s=(3, 2), axes=(2, 0))
    case("ifftn_s", "fft.ifftn", {"x": c3}, s=(2, 5))
    case("rfftn_axes", "fft.rfftn", {"x": r3}, axes=(2, 1))
    case("rfftn_s", "fft.rfftn", {"x": r3}, s=(4, 6), axes=(0, 1))
    case("irfftn_axes", "fft.irfftn", {"x": c3}, axes=(1, 0))
    case("irfftn_s", "fft.irfftn", {"x": c3}, s=(3, 5), axes=(1, 2))
    case("fftshift", "fft.fftshift", {"x": c2})
    case("fftshift_axes", "fft.fftshift", {"x": r3}, axes=(0, 2))
    case("ifftshift", "fft.ifftshift", {"x": c2})
    case("ifftshift_axis", "fft.ifftshift", {"x": r3}, axes=(1,))


def complex_cases() -> None:
    """Complex-capable functions: elementwise math, reductions, products, shapes, matrices, parts."""
    c, d = draw((3, 4), "c"), draw((3, 4), "c")
    r = draw((3, 4), "r")
    away = c + 2.0 * np.sign(c.real)  # away from 0 and from the negative real axis' neighbourhood
    for fn, mg_fn, ins in [
        ("add", None, {"x": c, "y": d}), ("sub", "subtract", {"x": c, "y": d}),
        ("mul", "multiply", {"x": c, "y": d}), ("div", "divide", {"x": c, "y": away}),
        ("mul", "multiply", {"x": r, "y": c}), ("div", "divide", {"x": c, "y": r + 3.0}),
        ("exp", None, {"x": c}), ("log", None, {"x": away}), ("sqrt", None, {"x": away}),
        ("sin", None, {"x": c}), ("cos", None, {"x": c}), ("tanh", None, {"x": c * 0.5}),
        ("square", None, {"x": c}), ("reciprocal", None, {"x": away}), ("neg", "negative", {"x": c}),
        ("abs", None, {"x": c}), ("angle", None, {"x": away}), ("real", None, {"x": c}),
        ("imag", None, {"x": c}), ("conj_physical", "conj", {"x": c}),
        ("complex", None, {"x": r, "y": draw((3, 4), "r")}), ("polar", None, {"x": np.abs(r) + 0.5, "y": r}),
        ("view_as_real", None, {"x": c}), ("view_as_complex", None, {"x": draw((3, 2), "r")}),
        ("sum", None, {"x": c}), ("mean", None, {"x": c}), ("prod", None, {"x": away[0]}),
        ("cumsum", None, {"x": c}), ("matmul", None, {"x": c, "y": d.T}),
        ("linalg.inv", None, {"x": draw((3, 3), "c") + 3 * np.eye(3)}),
        ("linalg.det", None, {"x": draw((3, 3), "c")}),
        ("linalg.solve", None, {"x": draw((3, 3), "c") + 3 * np.eye(3), "y": draw((3, 2), "c")}),
    ]:
        name = "cx_" + fn.replace(".", "_") + ("_real_operand" if any(v.dtype.kind == "f" for v in ins.values())
                                              and any(v.dtype.kind == "c" for v in ins.values()) else "")
        case(name, fn, ins, mg_fn=mg_fn, **({"axis": 1} if fn == "cumsum" else {}))
    case("cx_einsum", "einsum", {"x": c, "y": d}, prefix=("ij,kj->ik",))
    case("cx_tensordot", "tensordot", {"x": c, "y": d}, mg_kwargs={"axes": [[1], [1]]}, dims=([1], [1]))
    case("cx_flip", "flip", {"x": c}, mg_kwargs={"axis": 0}, dims=(0,))
    case("cx_sum_axis", "sum", {"x": c}, axis=0)


def linalg_cases() -> None:
    """Complex factorizations, through the phase-independent functions of complex_linalg_cases.py."""
    sq, sq2, tall, wide = draw((4, 4), "c"), draw((2, 3, 3), "c"), draw((4, 3), "c"), draw((3, 5), "c")
    real_sq = draw((4, 4), "r")
    spd = draw((4, 4), "c")
    spd = spd @ spd.conj().T + 4 * np.eye(4)
    for fn, ins in [
        ("eigh_values", {"x": sq}), ("eigh_moduli", {"x": sq}), ("eigh_projector", {"x": sq}),
        ("eigh_projector", {"x": sq2}), ("eigh_exp", {"x": sq}),
        ("svd_values", {"x": tall}), ("svd_values", {"x": wide}), ("svd_polar", {"x": tall}),
        ("svd_polar", {"x": wide}), ("svd_left_projector", {"x": tall}), ("svd_right_moduli", {"x": wide}),
        ("svd_polar", {"x": draw((2, 3, 4), "c")}),
        ("qr_q", {"x": tall}), ("qr_r", {"x": tall}), ("qr_q", {"x": draw((3, 4), "c")}),
        ("qr_r", {"x": draw((3, 4), "c")}), ("qr_r", {"x": sq2}),
        ("cholesky", {"x": spd}),
        ("slogdet_sign", {"x": sq}), ("slogdet_logabsdet", {"x": sq}), ("slogdet_sign", {"x": sq2}),
        ("eig_exp", {"x": draw((3, 3), "c")}), ("eig_exp", {"x": real_sq}), ("eig_power_sum", {"x": sq}),
        ("eigvals_exp_sum", {"x": real_sq}), ("eig_moduli_sum", {"x": draw((3, 3), "c")}),
    ]:
        shape = "x".join(map(str, ins["x"].shape))
        kind = "real" if ins["x"].dtype.kind == "f" else "complex"
        case(f"cx_linalg_{fn}_{kind}_{shape}", f"cases.{fn}", ins)
    for ord_ in (2, -2, "nuc", "fro", 1, float("inf")):
        case(f"cx_linalg_norm_matrix_{ord_}", "linalg.norm", {"x": tall}, ord=ord_)
    case("cx_linalg_norm_vector_3", "linalg.norm", {"x": draw((5,), "c")}, ord=3)


def more_complex_cases() -> None:
    """Powers with complex exponents, the rest of the elementwise functions, products and scans."""
    c, d = draw((3, 4), "c"), draw((3, 4), "c")
    r = draw((3, 4), "r")
    base = c * 0.5 + 2.0  # away from 0 and the negative real axis (the principal logarithm's cut)
    small = c * 0.3  # inside the unit disk: away from the cuts of arcsin, arctanh, log1p
    for fn, mg_fn, ins in [
        ("pow", "power", {"x": base, "y": d * 0.5}), ("pow", "power", {"x": np.abs(r) + 0.5, "y": d * 0.5}),
        ("pow", "power", {"x": base, "y": r}),
        ("tan", None, {"x": small}), ("sinh", None, {"x": c}), ("cosh", None, {"x": c}),
        ("asin", "arcsin", {"x": small}), ("acos", "arccos", {"x": small}), ("atan", "arctan", {"x": small}),
        ("asinh", "arcsinh", {"x": small}), ("atanh", "arctanh", {"x": small}), ("acosh", "arccosh", {"x": base}),
        ("log10", None, {"x": base}), ("log2", None, {"x": base}), ("expm1", None, {"x": c}),
        ("log1p", None, {"x": small}), ("exp2", None, {"x": c}), ("sinc", None, {"x": c}),
        ("cumprod", None, {"x": base}), ("var", None, {"x": c}), ("std", None, {"x": c}),
    ]:
        name = "cx_" + fn + ("_real_operand" if any(v.dtype.kind == "f" for v in ins.values())
                             and any(v.dtype.kind == "c" for v in ins.values()) else "")
        while name in META:
            name += "_"
        kwargs = {"cumprod": {"axis": 1}, "var": {"ddof": 1}, "std": {"ddof": 1}}.get(fn, {})
        mixed = "real_operand" in name
        case(name, fn, ins, mg_fn=mg_fn, jvp_promoted=fn == "pow" and mixed, **kwargs)
    case("cx_outer", "outer", {"x": c[0], "y": d[1]})
    case("cx_kron", "kron", {"x": c[:2, :2], "y": d[:2, :3]})


def op_cases() -> None:
    """The shape, indexing, writing, reduction, product and elementwise functions of
    complex_op_cases.py (one case each; ``y``/``v``/``w`` complex unless named ``real``)."""
    c, d = draw((3, 4), "c"), draw((3, 4), "c")
    c3, d3 = draw((2, 3, 4), "c"), draw((4, 2), "c")
    sq, col, vec = draw((3, 3), "c"), draw((3, 1), "c"), draw((4,), "c")
    away = c + 2.0 * np.sign(c.real)  # away from 0 and the negative real axis
    holes = c.copy()
    holes[1, 2] = complex(np.nan, 1.0)
    nonfinite = c.copy()
    nonfinite[0, 1], nonfinite[2, 3], nonfinite[1, 0] = complex(np.nan, 2.0), complex(1.0, np.inf), -np.inf
    one = {"x": c}
    two = {"x": c, "y": d}
    written = {"x": c, "v": d}
    special = {
        "permute": {"x": c3}, "squeeze": {"x": draw((3, 1, 4), "c")}, "flatten": {"x": c3},
        "unflatten": {"x": c}, "movedim": {"x": c3}, "swapaxes": {"x": c3}, "expand": {"x": col},
        "broadcast_to": one, "dstack": two, "atleast_3d": {"x": vec},
        "diagonal": one, "diag_of_vector": {"x": vec}, "diag_embed": {"x": c}, "diagflat": {"x": vec},
        "trace": {"x": sq}, "block_diag": {"x": sq, "y": d},
        "prod_dim": {"x": away}, "cumprod_dim0": {"x": away}, "logsumexp": {"x": c * 0.5},
        "matmul_batched": {"x": c3, "y": d3}, "matmul_vector": {"x": c, "y": d3.T.copy()},
        "einsum_trace": {"x": sq, "y": draw((3, 3), "c")}, "einsum_batched": {"x": c3, "y": d3},
        "tensordot_int": {"x": c3, "y": d3}, "multi_dot": {"x": sq, "y": draw((3, 3), "c")},
        "matrix_power": {"x": sq * 0.5}, "matrix_power_negative": {"x": sq + 3 * np.eye(3)},
        "cov": {"x": draw((3, 5), "c")}, "corrcoef": {"x": draw((3, 5), "c")},
        "where_real_operand": {"x": c, "y": draw((3, 4), "r")},
        "rsqrt": {"x": away}, "sign": {"x": away}, "power_float": {"x": away}, "divide_scalar": {"x": away},
        "abs_method": {"x": away}, "polar_of_parts": {"x": away},
        "lerp_tensor": {"x": c, "y": d, "w": draw((3, 4), "c") * 0.5},
        "rpow": {"x": c * 0.5}, "rpow_complex_base": {"x": c * 0.5},
        "nansum": {"x": holes}, "nanmean": {"x": holes}, "nan_to_num": {"x": nonfinite},
    }
    for fn in [
        "reshape", "view_method", "transpose", "permute", "matrix_transpose", "squeeze", "unsqueeze", "flatten",
        "ravel", "unflatten", "movedim", "swapaxes", "cat", "stack", "hstack", "vstack", "dstack",
        "column_stack", "split_sizes", "split_even", "chunk", "unbind", "tensor_split", "flip", "roll",
        "roll_flat", "rot90", "broadcast_to", "expand", "tile", "repeat_method", "repeat_interleave", "pad",
        "narrow", "atleast_3d", "tril", "triu", "diagonal", "diag_of_matrix", "diag_of_vector", "diag_embed",
        "diagflat", "trace", "block_diag", "clone",
        "getitem_slices", "getitem_int", "getitem_negative", "getitem_int_array", "getitem_two_arrays",
        "getitem_mask", "getitem_none_ellipsis", "gather", "take_along_axis", "index_select", "take",
        "masked_select", "where", "where_real_operand", "masked_fill", "index_fill",
        "setitem_slice", "setitem_mask", "setitem_int_array", "setitem_then_read",
        "scatter", "scatter_add", "index_add", "index_copy", "index_put", "index_put_accumulate",
        "masked_scatter", "put", "select_scatter", "setitem_row", "slice_scatter", "diagonal_scatter",
        "sum_keepdim", "mean_dim", "prod_dim", "cumsum_dim0", "cumprod_dim0", "var_dim", "std_biased",
        "var_mean", "std_mean", "nansum", "nanmean", "logsumexp", "vector_norm_2", "vector_norm_1",
        "vector_norm_inf", "matrix_norm_fro", "matrix_norm_nuc", "diff", "trapezoid", "cumulative_trapezoid",
        "cov", "corrcoef",
        "matmul_batched", "matmul_vector", "einsum_trace", "einsum_batched", "einsum_outer_sum",
        "tensordot_int", "dot", "inner", "vecdot", "multi_dot", "cross", "matrix_power",
        "matrix_power_negative",
        "rsqrt", "sign", "deg2rad", "rad2deg", "lerp_scalar", "lerp_tensor", "ldexp", "nan_to_num", "power_int",
        "power_float", "rpow", "rpow_complex_base", "divide_scalar", "abs_method", "conj_method",
        "real_imag_attrs", "complex_from_parts", "polar_of_parts",
    ]:
        params = list(inspect.signature(getattr(complex_op_cases, fn)).parameters)[1:]
        default = {("x",): one, ("x", "y"): two, ("x", "v"): written}[tuple(params)] if fn not in special else None
        case(f"op_{fn}", f"ops.{fn}", special.get(fn, default))


def more_op_cases() -> None:
    """The rest of the complex-capable public functions (aliases and the linalg helpers)."""
    c, d = draw((3, 4), "c"), draw((3, 4), "c")
    away = d + 2.0 * np.sign(d.real)
    for fn, ins in [
        ("atleast_1d", {"x": draw((), "c")}), ("atleast_2d", {"x": draw((4,), "c")}), ("expand_dims", {"x": c}),
        ("matrix_t", {"x": c}), ("concatenate", {"x": c, "y": d}), ("hsplit", {"x": c}),
        ("vsplit", {"x": draw((4, 3), "c")}), ("dsplit", {"x": draw((2, 3, 4), "c")}),
        ("broadcast_tensors", {"x": draw((3, 1), "c"), "y": draw((4,), "c")}),
        ("meshgrid", {"x": draw((3,), "c"), "y": draw((2,), "c")}),
        ("cartesian_prod", {"x": draw((3,), "c"), "y": draw((2,), "c")}), ("combinations", {"x": draw((4,), "c")}),
        ("sum_to", {"x": c}), ("getitem_function", {"x": c}), ("scatter_reduce_sum", {"x": c, "v": d}),
        ("logcumsumexp", {"x": c}), ("renorm", {"x": c}), ("gradient", {"x": c}),
        ("cond", {"x": draw((3, 3), "c") + 2 * np.eye(3)}), ("eigvalsh", {"x": draw((3, 3), "c")}),
        ("svdvals", {"x": c}), ("householder_product", {"x": draw((4, 3), "c"), "tau": draw((2,), "c")}),
        ("tensorinv", {"x": draw((4, 2, 2), "c")}), ("tensorsolve", {"x": draw((6, 2, 3), "c"), "y": draw((6,), "c")}),
        ("true_divide", {"x": c, "y": away}),
    ]:
        case(f"op_{fn}", f"ops.{fn}", ins)


def hermitian_fft_cases() -> None:
    """PyTorch's n-dimensional Hermitian transforms (NumPy has hfft and ihfft only); drawn last,
    so the cases before keep their inputs."""
    c2, c3, r2, r3 = draw((3, 4), "c"), draw((2, 3, 4), "c"), draw((3, 5), "r"), draw((2, 3, 4), "r")
    for norm in (None, "ortho", "forward"):
        case(f"hfft2_{norm}", "fft.hfft2", {"x": c2}, norm=norm)
        case(f"ihfft2_{norm}", "fft.ihfft2", {"x": r2}, norm=norm)
    case("hfft2_s", "fft.hfft2", {"x": c2}, s=(4, 7))
    case("ihfft2_s", "fft.ihfft2", {"x": r2}, s=(2, 6))
    case("hfftn", "fft.hfftn", {"x": c3})
    case("hfftn_s_axes", "fft.hfftn", {"x": c3}, s=(3, 5), axes=(2, 0))
    case("ihfftn", "fft.ihfftn", {"x": r3}, norm="ortho")
    case("ihfftn_s_axes", "fft.ihfftn", {"x": r3}, s=(4, 3), axes=(0, 1))


def logistic_and_conjugate_cases() -> None:
    """The logistic sigmoid (holomorphic, ``1 / (1 + exp(-z))``; PyTorch has no complex derivative
    of silu, tests/test_complex_numbers.py checks it), conj_physical and
    adjoint; drawn after the Hermitian transforms, so the cases before keep their inputs."""
    c, m = draw((3, 4), "c"), draw((2, 3, 4), "c")
    case("sigmoid", "sigmoid", {"x": c})
    case("conj_physical", "conj_physical", {"x": c})
    case("adjoint", "adjoint", {"x": m})


def pseudo_inverse_cases() -> None:
    """linalg.pinv of complex matrices (tall, wide, a batch, hermitian=True) and lstsq's solution;
    drawn last, so the cases before keep their inputs."""
    tall, wide, batch = draw((4, 3), "c"), draw((2, 5), "c"), draw((2, 3, 4), "c")
    case("cx_linalg_pinv_tall", "linalg.pinv", {"x": tall})
    case("cx_linalg_pinv_wide", "linalg.pinv", {"x": wide})
    case("cx_linalg_pinv_batch", "linalg.pinv", {"x": batch})
    case("cx_linalg_pinv_hermitian", "cases.pinv_hermitian", {"x": draw((3, 3), "c")})
    case("cx_linalg_lstsq_tall", "cases.lstsq_solution", {"x": draw((5, 3), "c"), "y": draw((5, 2), "c")})
    case("cx_linalg_lstsq_batch", "cases.lstsq_solution", {"x": draw((2, 4, 3), "c"), "y": draw((2, 4, 1), "c")})


def matrix_exponential_cases() -> None:
    """linalg.matrix_exp of complex matrices (small, needing squarings, a batch); drawn last, so
    the cases before keep their inputs."""
    case("cx_linalg_matrix_exp", "linalg.matrix_exp", {"x": draw((3, 3), "c") * 0.3})
    case("cx_linalg_matrix_exp_squared", "linalg.matrix_exp", {"x": draw((3, 3), "c") * 3})
    case("cx_linalg_matrix_exp_batch", "linalg.matrix_exp", {"x": draw((2, 4, 4), "c")})


def lu_cases() -> None:
    """The LU factorization of complex matrices (square, tall, wide, a batch) and the solves with
    its factors; drawn last, so the cases before keep their inputs."""
    for kind, shape in (("square", (3, 3)), ("tall", (4, 3)), ("wide", (2, 4)), ("batch", (2, 3, 3))):
        x = draw(shape, "c")
        case(f"cx_linalg_lu_lower_{kind}", "cases.lu_lower", {"x": x})
        case(f"cx_linalg_lu_upper_{kind}", "cases.lu_upper", {"x": x})
    case("cx_linalg_lu_factor", "cases.lu_factor_packed", {"x": draw((3, 3), "c")})
    case("cx_linalg_lu_solve_adjoint", "cases.lu_solve_adjoint", {"x": draw((3, 3), "c"), "y": draw((3, 2), "c")})
    case("cx_linalg_lu_solve_right", "cases.lu_solve_right", {"x": draw((2, 3, 3), "c"), "y": draw((2, 2, 3), "c")})


def triangular_solve_cases() -> None:
    """linalg.solve_triangular (upper; lower, unit diagonal, from the right; a batch) and the
    Cholesky solves built on it, of complex matrices; drawn last, so the cases before keep their inputs."""
    eye3 = 3 * np.eye(3)
    case("cx_linalg_solve_upper", "cases.solve_upper", {"x": draw((3, 3), "c") + eye3, "y": draw((3, 2), "c")})
    case("cx_linalg_solve_upper_batch", "cases.solve_upper", {"x": draw((2, 3, 3), "c") + eye3,
                                                              "y": draw((2, 3, 1), "c")})
    case("cx_linalg_solve_lower_unit_right", "cases.solve_lower_unit_right", {"x": draw((3, 3), "c"),
                                                                              "y": draw((2, 3), "c")})
    spd = {"x": draw((3, 3), "c") + eye3 * 2, "y": draw((3, 2), "c")}
    case("cx_linalg_cholesky_solve", "cases.cholesky_solve", spd)
    case("cx_linalg_cholesky_solve_upper", "cases.cholesky_solve_upper", spd)
    case("cx_linalg_cholesky_inverse", "cases.cholesky_inverse", {"x": draw((3, 3), "c") + eye3 * 2},
         jvp_by_reverse_mode=True)


def main() -> None:
    fft_cases()
    complex_cases()
    linalg_cases()
    more_complex_cases()
    op_cases()
    more_op_cases()
    hermitian_fft_cases()
    logistic_and_conjugate_cases()
    pseudo_inverse_cases()
    triangular_solve_cases()
    matrix_exponential_cases()
    lu_cases()
    meta = np.frombuffer(json.dumps(META).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, __meta__=meta, **ARRAYS)
    print(f"wrote {OUT} ({len(META)} cases, {OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
