"""The memory layout PyTorch's resampling kernels give their result, for ops composed of ``take``s.

``interpolate`` and ``pad``'s reflect/replicate/circular modes are built here from ``take`` along one
spatial axis after another, and NumPy lays out an advanced index's result with the indexed axis
outermost -- so after two axes the width is outermost in memory, then the height.  ``y.view(...)``
of such a result works (``view`` lays a fresh result out row-major first), but a view of a *view*
of it cannot: DINO's ``interpolate_pos_encoding`` does ``interpolate(...).permute(0, 2, 3, 1).view(1,
-1, dim)``, which PyTorch takes because its result is laid out as its input (channels-last there,
so the permute is contiguous).  PyTorch's kernels write a new tensor, row-major or in the input's
channels-last format, even where nothing is resampled; so does :func:`as_pytorch_lays_out`.
"""

from __future__ import annotations

from ... import functional as mf
from ...backend import channels_last, channels_last_3d, contiguous_format
from ...tensor import Tensor


def suggested_format(x: Tensor) -> object:
    """PyTorch's ``suggest_memory_format`` of a 4-D or 5-D ``x``: channels-last (-3d) where ``x`` is
    laid out so and not also row-major (a tensor of one channel is both), row-major otherwise."""
    layout = {4: channels_last, 5: channels_last_3d}.get(x.ndim)
    if layout is None or x.is_contiguous() or not x.is_contiguous(memory_format=layout):
        return contiguous_format
    return layout


def as_pytorch_lays_out(input: Tensor, out: Tensor, keeps_channels_last: bool = True) -> Tensor:
    """``out`` laid out as PyTorch's kernel lays out its result for ``input``: in ``input``'s
    channels-last format where it has one and the kernel keeps it (``keeps_channels_last``), else
    row-major; a new tensor where ``out`` is ``input`` itself (an op that changed nothing), since
    PyTorch's result never aliases its input."""
    fmt = suggested_format(input) if keeps_channels_last else contiguous_format
    if out is input:
        return mf.clone(out, memory_format=fmt)
    return out.contiguous(memory_format=fmt)
