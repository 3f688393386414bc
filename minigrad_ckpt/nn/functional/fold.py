"""``unfold`` (im2col) and ``fold`` (col2im), PyTorch's sliding-block rearrangements.

``unfold`` gathers every ``kernel_size`` block of the padded (N, C, H, W) input into a
column: (N, C * kh * kw, L), channel ``c * kh * kw + i * kw + j`` holding offset ``(i, j)``.
``fold`` is its adjoint: it sums each column back into its block.  Both are one
``take`` / ``index_add`` along the flattened padded plane, at positions computed on the
host from the sizes alone -- so each is the other's derivative, to any order.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...functional.errors import InputMismatch
from ...tensor import Tensor
from .conv import _batched, _pair
from .inputs import floating_kernel

__all__ = [
    "unfold", "fold",
]


def _geometry(name: str, spatial: tuple[int, int], kernel_size: Any, dilation: Any, padding: Any,
              stride: Any) -> tuple[Any, tuple[int, int], tuple[int, int], tuple[int, int]]:
    """The block positions in the flattened padded plane, ``(K, L)``, and the padded size."""
    k, d, p, s = (_pair(v, n) for v, n in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                           (padding, "padding"), (stride, "stride")))
    if min(k) < 1 or min(d) < 1 or min(s) < 1 or min(p) < 0:
        raise InputMismatch(f"{name}: kernel_size, dilation and stride must be >= 1 and padding >= 0")
    hp, wp = spatial[0] + 2 * p[0], spatial[1] + 2 * p[1]
    blocks = [(n - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, ss in zip((hp, wp), k, d, s)]
    if min(blocks) < 1:
        raise InputMismatch(f"{name}: kernel {k} (dilation {d}) does not fit the padded plane {(hp, wp)}")
    ki, kj = np.meshgrid(np.arange(k[0]) * d[0], np.arange(k[1]) * d[1], indexing="ij")
    bi, bj = np.meshgrid(np.arange(blocks[0]) * s[0], np.arange(blocks[1]) * s[1], indexing="ij")
    rows = ki.reshape(-1, 1) + bi.reshape(1, -1)
    cols = kj.reshape(-1, 1) + bj.reshape(1, -1)
    return rows * wp + cols, (hp, wp), p, (blocks[0], blocks[1])


# PyTorch's im2col/col2im kernels are built for floating, complex and bool blocks, not integers: its
# NotImplementedError, where the gather would answer
@floating_kernel("im2col_out_cpu", "iu")
def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """The sliding blocks of (N, C, H, W) (or (C, H, W)) as columns: (N, C * kh * kw, L)."""
    input, unbatched = _batched(_tensor(input), "unfold")
    n, c = input.shape[:2]
    pos, (hp, wp), p, _ = _geometry("unfold", input.shape[2:], kernel_size, dilation, padding, stride)
    padded = mf.pad(input, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    cols = mf.take(mf.reshape(padded, (n, c, hp * wp)), pos.reshape(-1).tolist(), axis=2)
    out = mf.reshape(cols, (n, c * pos.shape[0], pos.shape[1]))
    return mf.squeeze(out, 0) if unbatched else out


@floating_kernel("col2im_out_cpu", "iu")
def fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """Sum the columns of (N, C * kh * kw, L) (or 2-D) back into their blocks of an
    (N, C) + ``output_size`` plane: ``unfold``'s adjoint."""
    input = _tensor(input)
    if input.ndim not in (2, 3):
        raise InputMismatch(f"fold: expected a 2-D or 3-D input, got shape {input.shape}")
    unbatched = input.ndim == 2
    if unbatched:
        input = mf.expand_dims(input, 0)
    size = _pair(output_size, "output_size")
    pos, (hp, wp), p, blocks = _geometry("fold", size, kernel_size, dilation, padding, stride)
    n, ck, length = input.shape
    k = pos.shape[0]
    if ck % k or length != pos.shape[1]:
        raise InputMismatch(f"fold: input of shape {input.shape} needs C * {k} channels and {pos.shape[1]} blocks "
                         f"({blocks[0]} x {blocks[1]}) for output_size {size}")
    c = ck // k
    where = Tensor.constant(input.device.xp.asarray(pos.reshape(-1)), input.device)
    flat = mf.index_add((n, c, hp * wp), (slice(None), slice(None), where),
                        mf.reshape(input, (n, c, k * length)))
    out = mf.reshape(flat, (n, c, hp, wp))[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    return mf.squeeze(out, 0) if unbatched else out
