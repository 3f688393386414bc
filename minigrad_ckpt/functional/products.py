"""Matrix and tensor products: ``mg.matmul``, ``mg.einsum``, ``mg.tensordot``, ``mg.dot``,
``mg.inner``, ``mg.outer``, ``mg.kron``, ``mg.cross``.

``matmul`` and ``einsum`` are ops of their own
(:mod:`minigrad_ckpt.ops.linalg`); the others are compositions of
transposes, reshapes and one matrix product (or a broadcast product).
"""

from __future__ import annotations

import builtins
from typing import Any

from ..backend import cpp_type_name, host_numpy, scalar_type_name
from ..ops import linalg as _la
from ..tape import apply
from ..tensor import Tensor, fresh_result
from .arguments import as_tensor, broadcast_shapes, one_axis, paired_axes
from .einsum_subscripts import explicit_einsum
from .elementwise import multiply
from .errors import InputMismatch, TooFewDims
from .shape import broadcast_to, concatenate, moveaxis, reshape, transpose

__all__ = ["matmul", "einsum", "tensordot", "dot", "inner", "outer", "kron", "cross"]


def one_product_dtype(a: Any, b: Any) -> None:
    """Refuse two tensors of different dtypes (float32 with float64, int64 with float32) in a matrix
    product of PyTorch's spelling (``a @ b``, ``a.mm(b)``, ``mg.bmm``): PyTorch's kernels compute in
    one dtype and raise, where NumPy's ``matmul`` promotes.  The words are those of the kernel the
    operands' ranks reach in PyTorch (``dot``, ``addmv``, ``mm``, ``bmm``).  ``mg.matmul`` itself,
    NumPy's function, keeps NumPy's promotion."""
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or a.dtype == b.dtype:
        return
    first, second = a.dtype, b.dtype
    if a.ndim == 1 and b.ndim == 1:
        message = (f"dot : expected both vectors to have same dtype, but found {scalar_type_name(first)} and "
                   f"{scalar_type_name(second)}")
    elif b.ndim == 1:  # (the output takes the vector's dtype there: it is named first)
        message = (f"addmv input tensors must have the same dtype, but got {scalar_type_name(second)}, "
                   f"{scalar_type_name(first)}, and {scalar_type_name(second)}")
    elif b.ndim == 2:  # (a 1-D or N-D first operand is folded into a matrix)
        message = (f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(first)} != "
                   f"{cpp_type_name(second)}")
    else:
        message = f"expected scalar type {scalar_type_name(first)} but found {scalar_type_name(second)}"
    raise InputMismatch(message)


def same_batches(batch1: Tensor, batch2: Tensor) -> None:
    """Refuse two 3-D operands of PyTorch's batched products (``bmm``, ``baddbmm``, ``addbmm``) whose
    batches or inner sizes differ, in PyTorch's words: its kernels do not broadcast the batch, where
    ``matmul`` would (``bmm`` of (2, 2, 3) and (1, 3, 4) was silently (2, 2, 4))."""
    expected = (batch1.shape[0], batch1.shape[2])
    if tuple(batch2.shape[:2]) != expected:
        raise InputMismatch(f"Expected size for first two dimensions of batch2 tensor to be: {list(expected)} "
                            f"but got: {list(batch2.shape[:2])}.")


_MATMUL = _la.MatMul()


def matmul(x: Any, y: Any) -> Tensor:
    """Matrix product with NumPy's rules (1-D promotion, batch broadcasting)."""
    x = as_tensor(x, y if isinstance(y, Tensor) else None)
    y = as_tensor(y, x)
    xs, ys = x._data.shape, y._data.shape  # (read once: Tensor.shape is a property call each time)
    if not xs or not ys:  # (InputMismatch: PyTorch's RuntimeError, and the ValueError raised before)
        raise InputMismatch(f"both arguments to matmul need to be at least 1D, but they are {len(xs)}D and "
                            f"{len(ys)}D (shapes {xs} and {ys})")
    k1 = xs[-1]
    k2 = ys[0] if len(ys) == 1 else ys[-2]
    if k1 != k2:
        raise InputMismatch(
            f"matmul: shapes {xs} and {ys} are not aligned: "
            f"{k1} (last axis of the first) != {k2} ({'only' if len(ys) == 1 else 'second-to-last'} "
            f"axis of the second)"
        )
    if len(xs) > 2 and len(ys) > 2:
        broadcast_shapes("matmul", xs[:-2], ys[:-2])
    return apply(_MATMUL, x, y)


def einsum(subscripts: Any, *operands: Any) -> Tensor:
    """Einstein summation, e.g. ``einsum("bij,bjk->bik", a, b)``.

    Implicit output (no ``->``) and ``...`` are supported, as in NumPy.  So is NumPy's and
    PyTorch's sublist form, each operand followed by its axes as integers (``...`` as
    ``Ellipsis``), then optionally the output's: ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts, *operands))
    like = next((o for o in operands if isinstance(o, Tensor)), None)
    ts = [as_tensor(o, like) for o in operands]
    explicit = explicit_einsum(subscripts, [t.shape for t in ts])
    return apply(_la.Einsum(subscripts=explicit), *ts)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _from_sublists(args: tuple) -> tuple[str, tuple]:
    """``(subscripts, operands)`` of einsum's sublist form ``op, axes, op, axes, ..., [out_axes]``."""
    def letters(axes: Any) -> str:
        if not isinstance(axes, (list, tuple)) or not all(
                a is Ellipsis or (isinstance(a, int) and not isinstance(a, bool) and 0 <= a < 52) for a in axes):
            raise ValueError(f"einsum: a sublist holds axes as integers in [0, 52) or Ellipsis, got {axes!r}")
        return "".join("..." if a is Ellipsis else _LETTERS[a] for a in axes)

    pairs, out = args, None
    if len(args) % 2:
        pairs, out = args[:-1], args[-1]
    subscripts = ",".join(letters(axes) for axes in pairs[1::2])
    return subscripts + ("" if out is None else "->" + letters(out)), tuple(pairs[0::2])


def _pair(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    a = as_tensor(a, b if isinstance(b, Tensor) else None)
    return a, as_tensor(b, a)


def _broadcast_contracted(a: Tensor, b: Tensor, ax_a: tuple[int, ...], ax_b: tuple[int, ...]) -> tuple[Tensor, Tensor]:
    """Contracted axes of equal length, a length-1 one broadcast to its partner's (PyTorch's
    ``tensordot`` does; the gradient of the broadcast operand sums back)."""
    shape_a, shape_b = list(a.shape), list(b.shape)
    for i, j in zip(ax_a, ax_b):
        if shape_a[i] == shape_b[j]:
            continue
        if shape_a[i] == 1:
            shape_a[i] = shape_b[j]
        elif shape_b[j] == 1:
            shape_b[j] = shape_a[i]
        else:
            raise ValueError(f"tensordot: shape mismatch for sum: {a.shape}[{i}] != {b.shape}[{j}]")
    return broadcast_to(a, tuple(shape_a)), broadcast_to(b, tuple(shape_b))


def tensordot(a: Any, b: Any, axes: Any = 2) -> Tensor:
    """Sum products over ``axes`` (an int N: the last N of ``a`` with the first N of ``b``;
    or two sequences of axes), as NumPy: transposes and one matrix product."""
    a, b = _pair(a, b)
    if isinstance(axes, (int, host_numpy.integer)):
        n = int(axes)
        if n < 0 or n > builtins.min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={n} does not fit shapes {a.shape} and {b.shape}")
        ax_a, ax_b = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    else:
        ax_a, ax_b = axes
        ax_a, ax_b = paired_axes(ax_a, ax_b, a.ndim, b.ndim, "tensordot: the two axis lists differ in length")
    a, b = _broadcast_contracted(a, b, ax_a, ax_b)
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    k = 1
    for i in ax_a:
        k *= a.shape[i]
    m = 1
    for i in free_a:
        m *= a.shape[i]
    n = 1
    for j in free_b:
        n *= b.shape[j]
    a2 = reshape(transpose(a, tuple(free_a) + ax_a), (m, k))
    b2 = reshape(transpose(b, ax_b + tuple(free_b)), (k, n))
    return reshape(matmul(a2, b2), tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))


def _same_length(name: str, a: Tensor, b: Tensor, i: int, j: int) -> None:
    """``dot``/``inner``/``vdot`` contract axes of equal length: unlike ``tensordot``, NumPy's and
    PyTorch's never broadcast a length-1 axis (dot of lengths 1 and 3 is their error)."""
    if a.shape[i] != b.shape[j]:
        raise InputMismatch(f"{_misaligned_words(name, a.shape, b.shape)} ({name}: shapes {a.shape} and {b.shape} "
                            f"are not aligned: {a.shape[i]} (axis {i % a.ndim}) != {b.shape[j]} (axis {j % b.ndim}))")


def _misaligned_words(name: str, a: tuple, b: tuple) -> str:
    """PyTorch's words for operands of ``dot``/``vdot``/``inner`` whose contracted lengths differ.
    ``mg.dot`` is NumPy's, which takes other ranks than torch.dot's vectors where their axes align."""
    if name == "inner":
        return f"inner() the last dimension must match on both input tensors but got shapes {list(a)} and {list(b)}"
    if len(a) != 1 or len(b) != 1:
        return (f"1D tensors expected, but got {len(a)}D and {len(b)}D tensors (torch.dot's words: mg.dot, "
                f"NumPy's, takes other ranks whose axes align)")
    return (f"inconsistent tensor size, expected tensor {list(a)} and src {list(b)} to have the same number of "
            f"elements, but got {a[0]} and {b[0]} elements respectively")


def dot(a: Any, b: Any) -> Tensor:
    """NumPy's ``dot``: a product for 0-d operands, the inner product of vectors, the
    matrix product, and for N-D the sum over ``a``'s last and ``b``'s second-to-last axis."""
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    j = 0 if b.ndim == 1 else b.ndim - 2
    _same_length("dot", a, b, -1, j)
    return tensordot(a, b, ((a.ndim - 1,), (j,)))


def inner(a: Any, b: Any) -> Tensor:
    """The sum of products over the last axes (a product for 0-d operands)."""
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    _same_length("inner", a, b, -1, -1)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a: Any, b: Any) -> Tensor:
    """``ravel(a)[:, None] * ravel(b)[None, :]``."""
    a, b = _pair(a, b)
    return multiply(reshape(a, (a.size, 1)), reshape(b, (1, b.size)))


def kron(a: Any, b: Any) -> Tensor:
    """The Kronecker product: blocks ``a[i, j] * b`` (NumPy's ``kron``, any rank)."""
    a, b = _pair(a, b)
    nd = builtins.max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    inter_a: tuple[int, ...] = ()
    inter_b: tuple[int, ...] = ()
    for p, q in zip(sa, sb):
        inter_a += (p, 1)
        inter_b += (1, q)
    prod_ = multiply(reshape(a, inter_a), reshape(b, inter_b))
    return fresh_result(reshape(prod_, tuple(p * q for p, q in zip(sa, sb))), a, b)  # (of the product: new)


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``axisa``/``axisb`` (or ``axis``), leading axes broadcast."""
    a, b = _pair(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.ndim == 0 or b.ndim == 0:
        raise TooFewDims("cross: operands must have at least one dimension")
    a = moveaxis(a, one_axis(axisa, a.ndim), -1)
    b = moveaxis(b, one_axis(axisb, b.ndim), -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise InputMismatch(f"cross: vectors must have 3 components, got {a.shape[-1]} and {b.shape[-1]} "
                            f"(2-component cross products are deprecated in NumPy 2 and not supported)")
    # components as slices, not a[..., i]: a 1-d operand's would be 0-d, and a 0-d float64 does not
    # promote a float32 vector (PyTorch's rule), so the dtype would depend on the operands' ranks
    a0, a1, a2 = (a[..., i:i + 1] for i in range(3))
    b0, b1, b2 = (b[..., i:i + 1] for i in range(3))
    c = concatenate([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return fresh_result(moveaxis(c, -1, one_axis(axisc, c.ndim)), a, b)  # (of the stacked parts: new)
