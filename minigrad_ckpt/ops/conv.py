"""2-D convolution and max pooling, NCHW layout (PyTorch's conventions).

A convolution is a matrix product over *windows*: the windows of the padded
input are a strided view (``xp.as_strided``, no copy), reshaped into columns
(the "im2col" copy) and multiplied by the weight matrix, a chunk of images at
a time; the columns are taken channel-major or, where their copy's runs are
longer so, channels-last (see "channels last" below).  Its two adjoints have
kernels of their own:

``conv2d_input_grad(g, w, ...)``   the columns' gradient ``wᵀ g`` added back
                                    per kernel offset ("col2im"), or on the
                                    padded input's grid for narrow images, or
                                    (the narrowest) a convolution of ``g`` with
                                    the flipped kernel
``conv2d_weight_grad(x, g, ...)``  ``g`` times the input's columns

and ops of their own, so that second derivatives through a convolution are
convolutions again: the three ops are each other's backward.

Max pooling routes each output to the first maximum of its window (as
PyTorch does).  ``MaxPool2d(values, routing)`` picks ``values`` where
``routing`` has its window maxima; ``MaxPool2dBackward(g, routing)`` sends
``g`` back to those positions.  Each is the other's backward, and the
routing input gets no gradient (the choice of maximum is piecewise constant).
"""

from __future__ import annotations

from ..backend import HALF, register_kernel, rounded_to_half
from .base import Op, add_tangents


def _out_size(n: int, k: int, s: int, p: int, d: int) -> int:
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _windows(xp, x, kernel, stride, padding, dilation, fill=0.0):
    """View of the padded input as (N, C, KH, KW, Ho, Wo) windows."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = x.shape
    if ph or pw:
        # padded channel-major, (C, N, H, W) in memory: the columns then read it in order
        padded = xp.full((c, n, h + 2 * ph, w + 2 * pw), fill, dtype=x.dtype)
        xp.transpose(padded, (1, 0, 2, 3))[:, :, ph:ph + h, pw:pw + w] = x
        x = xp.transpose(padded, (1, 0, 2, 3))
    ho, wo = _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)
    s0, s1, s2, s3 = x.strides
    return xp.as_strided(x, (n, c, kh, kw, ho, wo), (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw))


def _columns(xp, x, kernel, stride, padding, dilation, groups):
    """The im2col copy, batch folded into the columns: ``(groups, C/groups * KH * KW, N * Ho * Wo)``.

    One copy of the strided window view, ordered so that a convolution over the
    whole batch is a single matrix product per group (NumPy's batched matmul
    would loop over the batch instead).
    """
    win = _windows(xp, x, kernel, stride, padding, dilation)
    n, c, kh, kw, ho, wo = win.shape
    cols = xp.transpose(win, (1, 2, 3, 0, 4, 5)).reshape(groups, (c // groups) * kh * kw, n * ho * wo)
    return cols, (ho, wo)


def _channels_first(xp, a, groups):
    """``(N, O, H, W)`` as ``(groups, O/groups, N * H * W)``: free when ``a`` is laid out
    channel-major, which is how ``conv2d`` returns its output."""
    n, o, h, w = a.shape
    return xp.transpose(a, (1, 0, 2, 3)).reshape(groups, o // groups, n * h * w)


# The batch is cut into chunks of images whose columns take about _CHUNK_BYTES: a
# product over columns that stay in the cache is 1.3x faster than one over the
# whole batch's (the MNIST example's 32 -> 64 layer, interleaved: forward 20 vs
# 27 ms, weight gradient 22 vs 28 ms, input gradient 26 vs 36 ms), and the
# columns never take more memory than a chunk.  Intended rounding change: BLAS
# blocks a narrower product differently, and the weight gradient adds the chunks'
# products in turn, so results move in the last bits (the same terms in another order).
_CHUNK_BYTES = 1 << 21
# The forward takes half a chunk: its product reads the columns once and OpenBLAS packs
# them into buffers of its own, and on a host with 2 MiB of L2 per core (AVX-512) a
# 2 MiB chunk (3 images of the MNIST example's 32 -> 64 layer, N = 1728 columns) ran the
# product at 95-105 GFLOP/s against 150-160 for one image's 576.  Interleaved, the
# forward, ms: 17.8 -> 14.4-14.8 on that layer, 0.90 -> 0.80-0.82 for 16 -> 16 channels
# on 32x32 (batch 8); the gradients' kernels gained nothing from smaller chunks (the
# input gradient lost: 18.2 -> 19.4 ms there), so they keep the whole chunk.
_FORWARD_CHUNK_SHARE = 2


def _image_chunks(xp, n: int, bytes_per_image: int, share: int = 1) -> list[slice]:
    """Slices of the batch whose columns take about ``_CHUNK_BYTES / share`` each (at least
    one image).  A GPU takes the whole batch at once: a launch per chunk costs more there
    than the cache saves."""
    step = max(1, n) if xp.name == "cupy" else max(1, _CHUNK_BYTES // share // max(1, bytes_per_image))
    return [slice(a, min(n, a + step)) for a in range(0, n, step)] or [slice(0, 0)]  # an empty batch: one empty chunk


def _geometry_sizes(x_shape, w_shape, stride, padding, dilation):
    """``(Ho, Wo)`` and the bytes of one image's columns per element size: ``C/g*KH*KW*Ho*Wo``."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = w_shape[2:], stride, padding, dilation
    ho, wo = _out_size(x_shape[2], kh, sh, ph, dh), _out_size(x_shape[3], kw, sw, pw, dw)
    return (ho, wo), x_shape[1] * kh * kw * ho * wo


@register_kernel
def conv2d(xp, x, w, stride, padding, dilation, groups):
    """Cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C/groups, KH, KW).

    The result is an (N, O, Ho, Wo) view of a channel-major (O, N, Ho, Wo)
    array: the layout the matrix product produces, and the one the next
    layer's columns and the gradients read without a copy.  Each chunk of
    images is one product per group, written into its slice of the result;
    narrow images take channels-last columns where they pay (see "channels
    last" below).
    """
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    (ho, wo), per_image = _geometry_sizes(x.shape, w.shape, stride, padding, dilation)
    if wo <= _CHANNELS_LAST_FORWARD_MAX_WIDTH and _channels_last_pays(x.shape, w.shape, stride, padding,
                                                                       dilation, groups):
        return _channels_last_conv2d(xp, x, w, stride, padding, dilation)
    wm = w.reshape(groups, o // groups, cg * kh * kw)
    out = xp.empty((groups, o // groups, n * ho * wo), dtype=xp.result_type(x, w))
    for part in _image_chunks(xp, n, per_image * x.dtype.itemsize, _FORWARD_CHUNK_SHARE):
        cols, _ = _columns(xp, x[part], (kh, kw), stride, padding, dilation, groups)
        xp.matmul(wm, cols, out=out[:, :, part.start * ho * wo:part.stop * ho * wo])
    return xp.transpose(out.reshape(o, n, ho, wo), (1, 0, 2, 3))


@register_kernel
def conv2d_input_grad(xp, g, w, x_shape, stride, padding, dilation, groups):
    """The adjoint of ``conv2d`` in ``x``: ``g`` (N, O, Ho, Wo) back to ``x_shape``.

    With stride 1, one group and a finite kernel: for inputs at most 4 wide where
    channels-last columns pay and the padding is at most ``dilation * (kernel - 1)``
    (the flipped convolution's padding is the difference), as a convolution of ``g``
    with the flipped kernel (:func:`_flipped_kernel`); else, for inputs of at least
    8 channels, with ``g``'s rows widened to the padded input's
    (:func:`_wide_rows_input_grad`); else for outputs at most 16 wide on the padded
    input's grid (:func:`_grid_input_grad`).  Otherwise by "col2im"
    (:func:`_col2im_input_grad`).  The grid and col2im add the same products in the
    same order: the same bits.  The flipped convolution sums each input position's
    products in one matrix product, and the wide rows' product is wider than
    col2im's (BLAS blocks it differently): the same terms in another order, so the
    last bits differ (an intended rounding change).
    """
    if tuple(stride) == (1, 1) and groups == 1:
        flipped = _flipped_padding(w.shape, padding, dilation)
        flip = (min(flipped) >= 0 and x_shape[3] <= _FLIPPED_INPUT_GRAD_MAX_WIDTH
                and _channels_last_pays(g.shape, _flipped_shape(w.shape), stride, flipped, dilation, 1))
        wide = x_shape[1] >= _WIDE_ROWS_MIN_CHANNELS
        grid = g.shape[3] <= _GRID_MAX_WIDTH
        # the finiteness test last: on a GPU it waits for the device
        if (flip or wide or grid) and bool(xp.scalar(xp.isfinite(w.sum()))):
            if flip:
                return _channels_last_conv2d(xp, g, _flipped_kernel(xp, w), stride, flipped, dilation)
            if wide:
                return _wide_rows_input_grad(xp, g, w, x_shape, padding, dilation)
            return _grid_input_grad(xp, g, w, x_shape, padding, dilation)
    return _col2im_input_grad(xp, g, w, x_shape, stride, padding, dilation, groups)


def _col2im_input_grad(xp, g, w, x_shape, stride, padding, dilation, groups):
    """Chunk by chunk of images, the columns' gradient ``wᵀ g`` (one product per group),
    then one strided add per kernel offset into the padded input's gradient (within one
    offset every window has its own input position, so a plain add is exact; offsets
    overlap and add up).  The padding's gradient is cut off at the end."""
    n, c, h, wd = x_shape
    o, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    (ho, wo), per_image = _geometry_sizes(x_shape, w.shape, stride, padding, dilation)
    dtype = xp.result_type(g, w)
    wt = xp.swapaxes(w.reshape(groups, o // groups, cg * kh * kw), 1, 2)  # (groups, C/g*KH*KW, O/g)
    gf = _channels_first(xp, g, groups)  # (groups, O/g, N*Ho*Wo)
    gx = xp.zeros((c, n, h + 2 * ph, wd + 2 * pw), dtype=dtype)  # channel-major, as the layers around it
    for part in _image_chunks(xp, n, per_image * dtype.itemsize):
        b = part.stop - part.start
        cols = xp.matmul(wt, gf[:, :, part.start * ho * wo:part.stop * ho * wo])
        cols = cols.reshape(c, kh, kw, b, ho, wo)
        for i in range(kh):
            for j in range(kw):
                r, q = i * dh, j * dw
                gx[:, part, r:r + sh * (ho - 1) + 1:sh, q:q + sw * (wo - 1) + 1:sw] += cols[:, i, j]
    return xp.transpose(gx, (1, 0, 2, 3))[:, :, ph:ph + h, pw:pw + wd]


# ---------------------------------------------------------------- channels last
# The column copy is what a convolution of small images costs: NumPy copies the
# strided window view one contiguous run at a time, and channel-major columns
# (C, KH, KW, N, Ho, Wo) have runs of one output row, Wo elements.  Taken
# channels-last, (N, Ho, Wo, KH, KW, C) from an (N, Hp, Wp, C) copy of each chunk
# of the input, a window row's KW pixels of C channels are one run of KW*C.
#
# The results stay channel-major, the layout the rest of the engine reduces per
# channel fast: NumPy summed a (32*16*16, C) float32 array's columns 5-10x slower
# than a (C, 32*16*16) array's rows for C = 8 to 32, 2-7x on the digits and MNIST
# shapes (batch norm, the bias gradients).  So the forward's product is taken as
# rows, (N*Ho*Wo, O), and copied transposed: BLAS runs that orientation faster
# when O is small (0.11 against 0.19 ms for the digits CNN's 16 -> 32 layer in
# float32).
#
# Measured one thread, float32, ms, channel-major -> channels-last: the weight
# gradient of the digits CNN's 16 -> 32 layer on 4x4 images 0.49 -> 0.18, of the
# MNIST example's 32 -> 64 layer on 26x26 21.8 -> 19.4, of 16 -> 32 channels on
# 16x16 4.3 -> 2.8; the forward on 4x4 0.35 -> 0.19 and of 8 -> 16 channels on
# 8x8 0.20 -> 0.16, but 0.85-1.17x from 16 to 32 wide (the transposed copies of
# the input and the result cost about what the longer runs save there); the input
# gradient as a flipped convolution (below) on 4x4 0.42 -> 0.27 (against the
# grid), slower from 8x8 up.  With 1 or 3 input channels channel-major stays
# faster (runs of 3 or 9 against rows of 28 or 32): the rule compares the runs.


_CHANNELS_LAST_FORWARD_MAX_WIDTH = 8
_FLIPPED_INPUT_GRAD_MAX_WIDTH = 4


def _channels_last_pays(x_shape, w_shape, stride, padding, dilation, groups) -> bool:
    """Take the channels-last columns when their runs (KW*C, or C with dilation) are at
    least as long as the channel-major ones (Wo, or 1 with stride): one group only, and
    never for a 1x1 kernel with stride 1 and no padding, whose columns are the input
    itself (channel-major, a view of a channel-major input: no copy at all)."""
    c, kh, kw = w_shape[1:]
    if groups != 1 or (kh == kw == 1 and tuple(stride) == (1, 1) and tuple(padding) == (0, 0)):
        return False
    wo = _out_size(x_shape[3], kw, stride[1], padding[1], dilation[1])
    return c * (kw if dilation[1] == 1 else 1) >= (wo if stride[1] == 1 else 1)


def _padded_channels_last(xp, x, padding):
    """``x`` (N, C, H, W) as a zero-padded (N, Hp, Wp, C) array: one copy, or none when ``x``
    is laid out channels-last already and needs no padding."""
    nhwc = xp.transpose(x, (0, 2, 3, 1))
    (ph, pw), (n, h, w, c) = padding, nhwc.shape
    if not (ph or pw):
        return xp.ascontiguousarray(nhwc)
    padded = xp.zeros((n, h + 2 * ph, w + 2 * pw, c), dtype=x.dtype)
    padded[:, ph:ph + h, pw:pw + w] = nhwc
    return padded


def _channels_last_columns(xp, padded, kernel, stride, dilation, out_hw):
    """The (b*Ho*Wo, KH*KW*C) columns of a padded channels-last chunk: one copy of its windows."""
    (kh, kw), (sh, sw), (dh, dw), (ho, wo) = kernel, stride, dilation, out_hw
    b, _, _, c = padded.shape
    s0, s1, s2, s3 = padded.strides
    win = xp.as_strided(padded, (b, ho, wo, kh, kw, c), (s0, s1 * sh, s2 * sw, s1 * dh, s2 * dw, s3))
    return win.reshape(b * ho * wo, kh * kw * c)


def _channels_last_conv2d(xp, x, w, stride, padding, dilation):
    """``conv2d`` with one group through channels-last columns, a chunk of images at a time:
    each chunk's product as (b*Ho*Wo, O) rows, copied transposed into the channel-major
    result (an (N, O, Ho, Wo) view of an (O, N, Ho, Wo) array, as the other path's)."""
    n, (o, c, kh, kw) = x.shape[0], w.shape
    (ho, wo), per_image = _geometry_sizes(x.shape, w.shape, stride, padding, dilation)
    wt = xp.transpose(w, (2, 3, 1, 0)).reshape(kh * kw * c, o)  # rows ordered (i, j, c), as the columns
    out = xp.empty((o, n * ho * wo), dtype=xp.result_type(x, w))
    for part in _image_chunks(xp, n, per_image * x.dtype.itemsize, _FORWARD_CHUNK_SHARE):
        padded = _padded_channels_last(xp, x[part], padding)  # a chunk at a time: no batch-sized copy
        cols = _channels_last_columns(xp, padded, (kh, kw), stride, dilation, (ho, wo))
        out[:, part.start * ho * wo:part.stop * ho * wo] = xp.transpose(xp.matmul(cols, wt))
    return xp.transpose(out.reshape(o, n, ho, wo), (1, 0, 2, 3))


def _channels_last_weight_grad(xp, x, g, w_shape, stride, padding, dilation):
    """``conv2d_weight_grad`` with one group: ``g`` as (O, N*Ho*Wo) (free when it is
    channel-major) times the input's channels-last columns, the chunks' products added
    in turn, the (O, KH, KW, C) sum copied to the weight's layout."""
    n, (o, c, kh, kw) = x.shape[0], w_shape
    (ho, wo), per_image = _geometry_sizes(x.shape, w_shape, stride, padding, dilation)
    gf = _channels_first(xp, g, 1)[0]
    gw = None
    for part in _image_chunks(xp, n, per_image * x.dtype.itemsize):
        padded = _padded_channels_last(xp, x[part], padding)
        cols = _channels_last_columns(xp, padded, (kh, kw), stride, dilation, (ho, wo))
        term = xp.matmul(gf[:, part.start * ho * wo:part.stop * ho * wo], cols)
        gw = term if gw is None else xp.add(gw, term, out=gw)
    return xp.ascontiguousarray(xp.transpose(gw.reshape(o, kh, kw, c), (0, 3, 1, 2)))


# The input gradient with stride 1 is a convolution of the output gradient with the
# kernel flipped in space and its two channel axes swapped, padded by d*(k-1) - p:
# input position y collects w[:, :, i] times g at y + p - i*d, which is that
# correlation.  Only where p <= d*(k-1) (else the flipped padding would be
# negative) and, as on the grid, only for a finite kernel: the zeros of g's padding
# meet every weight, and 0 * inf = nan where no true window pairs them.
def _flipped_padding(w_shape, padding, dilation) -> tuple[int, int]:
    return tuple(d * (k - 1) - p for k, p, d in zip(w_shape[2:], padding, dilation))


def _flipped_shape(w_shape) -> tuple[int, ...]:
    return (w_shape[1], w_shape[0], *w_shape[2:])


def _flipped_kernel(xp, w):
    return xp.transpose(w[:, :, ::-1, ::-1], (1, 0, 2, 3))


# ---------------------------------------------------------------- the full grid
# The input gradient with stride 1: input position (n, y, x) collects, for every
# kernel offset (i, j), w[:, :, i, j]^T times the gradient of output (n, y - i*dh,
# x - j*dw).  Give every output a place on the padded input's grid, flattened
# channel-major to (channels, N*Hp*Wp) -- the places with y >= Ho or x >= Wo are
# extra outputs with zero gradient -- and offset (i, j) becomes one *shift* of the
# flat index, s = i*dh*Wp + j*dw: the columns' gradient is one product on the grid,
# and col2im's strided adds become adds of contiguous rows.  The product does
# Hp*Wp / (Ho*Wo) times col2im's work (2.25x on 4x4 images with padding 1), yet on
# narrow images the whole gradient takes half the time (the digits CNN's 16 -> 32
# layer on 4x4: 0.55x in float32): col2im's strided adds of short rows are what costs
# there.  On wide images col2im's rows are long and the grid's extra work shows.
# A valid output's window never leaves its image, so the
# chunks' extra outputs add only zeros to the next chunk -- which is why the kernel
# must be finite (0 * inf = nan where no true window pairs them).
_GRID_MAX_WIDTH = 16  # interleaved, grid / col2im time: 0.5-0.9x at widths 4-16, 0.9-1.1x at 24, 1.35-1.6x at 26


class _FlatGrid:
    """The padded input's grid flattened channel-major, (C, N*Hp*Wp), plus room for the
    largest shift: what the grid and the wide rows add each kernel offset's columns into,
    the offset (i, j) a shift of the flat index by i*dh*Wp + j*dw."""

    def __init__(self, xp, g, w, x_shape, padding, dilation) -> None:
        self.n, self.c, self.h, self.w = x_shape
        self.o, _, self.kh, self.kw = w.shape
        (self.ph, self.pw), (self.dh, self.dw) = padding, dilation
        self.hp, self.wp = self.h + 2 * self.ph, self.w + 2 * self.pw
        self.ho, self.wo = g.shape[2:]
        self.dtype = xp.result_type(g, w)

    def shift(self, k: int) -> int:
        """The flat index's shift for kernel offset ``k`` (row-major over (KH, KW))."""
        return (k // self.kw) * self.dh * self.wp + (k % self.kw) * self.dw

    def zeros(self, xp):
        return xp.zeros((self.c, self.n * self.hp * self.wp + self.shift(self.kh * self.kw - 1)), dtype=self.dtype)

    def input_grad(self, xp, flat):
        """The (N, C, H, W) gradient: the padding and the room past the last image cut off."""
        q = self
        grid = flat[:, :q.n * q.hp * q.wp].reshape(q.c, q.n, q.hp, q.wp)
        return xp.transpose(grid[:, :, q.ph:q.ph + q.h, q.pw:q.pw + q.w], (1, 0, 2, 3))


def _grid_input_grad(xp, g, w, x_shape, padding, dilation):
    q = _FlatGrid(xp, g, w, x_shape, padding, dilation)
    wt = xp.transpose(w, (2, 3, 1, 0)).reshape(q.kh * q.kw * q.c, q.o)  # rows ordered (i, j, c)
    gx = q.zeros(xp)
    for part in _image_chunks(xp, q.n, q.kh * q.kw * q.c * q.hp * q.wp * q.dtype.itemsize):
        a, z = part.start * q.hp * q.wp, part.stop * q.hp * q.wp
        on_grid = xp.zeros((q.o, part.stop - part.start, q.hp, q.wp), dtype=q.dtype)
        on_grid[:, :, :q.ho, :q.wo] = xp.transpose(g[part], (1, 0, 2, 3))
        cols = xp.matmul(wt, on_grid.reshape(q.o, z - a))
        for k in range(q.kh * q.kw):
            gx[:, a + q.shift(k):z + q.shift(k)] += cols[k * q.c:(k + 1) * q.c]
    return q.input_grad(xp, gx)


# ---------------------------------------------------------------- wide rows
# col2im's adds, one per kernel offset, run over rows of Wo elements: on the MNIST
# example's 32 -> 64 layer (24 wide) the 9 strided adds cost NumPy about as much
# per row as per element.  Give g's rows the padded input's width Wp (zeros past
# Wo) and an output row's place on the grid is an input row's: kernel offset (i, j)
# moves a flat position by i*dh*Wp + j*dw.  A window row never leaves its input row,
# so an extra column's product (zero) lands on the next row's first columns or the
# padding, adding 0 -- which is why the kernel must be finite (0 * inf = nan).
#
# The column shifts go into the product: the operand holds the widened g and its
# copies shifted by dw, 2*dw, ... along the flat rows (contiguous copies; a shift
# past a row's start reads the previous row's zeros), (O*KW, b*Ho*Wp), and the
# weights as (KH*C, O*KW), so one product sums each kernel row's KW offsets and
# leaves KH adds of (C, Ho*Wp) rows per image, not KH*KW: the adds were a third of
# the kernel's time, and the product has the same size (KH*C rows and O*KW terms
# for KH*KW*C and O) and runs as fast.  Interleaved in one process, ms (1 thread,
# float32), KH*KW adds -> KH adds, [the grid, col2im]: the MNIST example's 32 -> 64
# layer on 26x26 (batch 64) 26.4 -> 21.9 [24.8, 25.5] (float64 54.8 -> 43.8); 16 ->
# 16 channels on 32x32 (batch 8) 1.72 -> 0.97 [1.29, 1.95]; on 64x64 4.30 -> 3.13
# [-, 6.75]; on 12x12 (batch 16) 0.95 -> 0.32 [0.54]; 16 -> 32 on 8x8 (batch 64)
# 1.48 -> 1.01 [2.34].  With fewer than 8 input channels the adds are cheap and the
# grid (up to 16 wide) or col2im keep up: 4 -> 16 on 8x8 0.31 against the grid's
# 0.27, on 28x28 0.73 against col2im's 0.59; 3 channels 0.36 against 0.27.  On
# inputs at most 4 wide the flipped convolution stays ahead (0.32 against 0.36).
_WIDE_ROWS_MIN_CHANNELS = 8


def _wide_rows_input_grad(xp, g, w, x_shape, padding, dilation):
    q = _FlatGrid(xp, g, w, x_shape, padding, dilation)
    ws = xp.transpose(w, (2, 1, 0, 3)).reshape(q.kh * q.c, q.o * q.kw)  # rows (i, c), terms (o, j)
    gx = q.zeros(xp)
    image, row = q.hp * q.wp, q.ho * q.wp  # an image's place on the grid; a widened g's image
    for part in _image_chunks(xp, q.n, (q.o * q.kw + q.kh * q.c) * row * q.dtype.itemsize):
        b = part.stop - part.start
        shifted = xp.empty((q.o, q.kw, b * row), dtype=q.dtype)
        wide = shifted[:, 0].reshape(q.o, b, q.ho, q.wp)
        wide[..., q.wo:] = 0
        wide[..., :q.wo] = xp.transpose(g[part], (1, 0, 2, 3))
        for j in range(1, q.kw):
            s = j * q.dw
            shifted[:, j, :s] = 0
            shifted[:, j, s:] = shifted[:, 0, :b * row - s]
        rows = xp.matmul(ws, shifted.reshape(q.o * q.kw, b * row)).reshape(q.kh, q.c, b, row)
        for i in range(q.kh):
            start = part.start * image + i * q.dh * q.wp
            gx[:, start:start + b * image].reshape(q.c, b, image)[:, :, :row] += rows[i]
    return q.input_grad(xp, gx)


@register_kernel
def conv2d_weight_grad(xp, x, g, w_shape, stride, padding, dilation, groups):
    """The adjoint of ``conv2d`` in ``w``: ``g`` against the input's columns, one matrix
    product per group and chunk of images, the chunks' products added in turn; the
    columns channels-last wherever :func:`_channels_last_pays`.  (KH*KW
    products over shifted slices of a flattened grid were slower on every shape measured:
    1.1x for the MNIST example's second layer, 9x with one input channel.)"""
    if _channels_last_pays(x.shape, w_shape, stride, padding, dilation, groups):
        return _channels_last_weight_grad(xp, x, g, w_shape, stride, padding, dilation)
    o, cg, kh, kw = w_shape
    n = x.shape[0]
    (ho, wo), per_image = _geometry_sizes(x.shape, w_shape, stride, padding, dilation)
    gf = _channels_first(xp, g, groups)
    gw = None
    for part in _image_chunks(xp, n, per_image * x.dtype.itemsize):
        cols, _ = _columns(xp, x[part], (kh, kw), stride, padding, dilation, groups)
        term = xp.matmul(gf[:, :, part.start * ho * wo:part.stop * ho * wo], xp.swapaxes(cols, 1, 2))
        gw = term if gw is None else xp.add(gw, term, out=gw)
    return gw.reshape(w_shape)


class _ConvGeometry(Op):
    """What the three convolution ops share: the geometry every kernel call takes after its arrays."""

    abstract = True

    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    groups: int

    @property
    def geometry(self) -> tuple:
        return self.stride, self.padding, self.dilation, self.groups

    def jvp(self, xp, tangents, out, a, b):
        # each of the three is bilinear in its two inputs: f(ta, b) + f(a, tb)
        ta, tb = tangents
        return add_tangents(None if ta is None else self.forward(xp, ta, b),
                            None if tb is None else self.forward(xp, a, tb))


class Conv2d(_ConvGeometry):
    """``conv2d(x, w)`` or ``conv2d(x, w, b)``; attributes ``stride``, ``padding``,
    ``dilation`` (pairs), ``groups``.

    The bias is added in place to the fresh result, in one op: a separate ``+ b``
    allocated a second output-sized array (the MNIST example's two biases: 4.1 ms
    of a 120 ms step, the new array's pages faulted in) and a node of its own.
    Backward does not read the bias, so it is not saved.
    """

    uses_needs_input_grad = True
    save_inputs = (0, 1)
    grad_reads = ((1,), (0,), ())  # x's gradient reads w, w's reads x, b's reads neither

    def forward(self, xp, x, w, b=None):
        if b is not None and x.dtype is HALF and b.dtype is HALF:
            # PyTorch's half convolution adds the bias to the float sums and rounds once: the sums
            # rounded to float16 first, then the sum with the bias, were 38 units in the last place
            # off where the bias cancelled them (its: 0.5)
            out = xp.conv2d(x.astype(xp.float32), w.astype(xp.float32), *self.geometry)
            out += b.reshape(1, -1, 1, 1)
            return rounded_to_half(out)
        out = xp.conv2d(x, w, *self.geometry)
        if b is None:
            return out
        if b.dtype == out.dtype:
            out += b.reshape(1, -1, 1, 1)
            return out
        return out + b.reshape(1, -1, 1, 1)  # a bias of another dtype promotes, as ``+`` does

    def backward(self, xp, g, out, x, w, b=None, needs_input_grad=(True, True, True)):
        a = self.geometry
        gx = xp.conv2d_input_grad(g, w, x.shape, *a) if needs_input_grad[0] else None
        gw = xp.conv2d_weight_grad(x, g, w.shape, *a) if needs_input_grad[1] else None
        if len(needs_input_grad) == 2:  # no bias input
            return gx, gw
        return gx, gw, (xp.pairwise_sum(g, (0, 2, 3)) if needs_input_grad[2] else None)

    def jvp(self, xp, tangents, out, x, w, b=None):
        # bilinear in (x, w), plus the bias's tangent on every position
        conv = super().jvp(xp, tangents[:2], out, x, w)
        tb = tangents[2] if len(tangents) > 2 else None
        return add_tangents(conv, None if tb is None else tb.reshape(1, -1, 1, 1))

    def reference(self, np, x, w, b=None):
        out = _reference_conv(np, x, w, *self.geometry)
        return out if b is None else out + b.reshape(1, -1, 1, 1)


class Conv2dInputGrad(_ConvGeometry):
    """``conv2d_input_grad(g, w)`` as an op (used for second derivatives)."""

    x_shape: tuple[int, ...]

    def forward(self, xp, g, w):
        return xp.conv2d_input_grad(g, w, self.x_shape, *self.geometry)

    def backward(self, xp, h, out, g, w):
        a = self.geometry
        return xp.conv2d(h, w, *a), xp.conv2d_weight_grad(h, g, w.shape, *a)

    def reference(self, np, g, w):
        return _reference_adjoint(np, self.x_shape, np.result_type(g, w), g,
                                  lambda e: _reference_conv(np, e, w, *self.geometry))


class Conv2dWeightGrad(_ConvGeometry):
    """``conv2d_weight_grad(x, g)`` as an op (used for second derivatives)."""

    w_shape: tuple[int, ...]

    def forward(self, xp, x, g):
        return xp.conv2d_weight_grad(x, g, self.w_shape, *self.geometry)

    def backward(self, xp, h, out, x, g):
        a = self.geometry
        return xp.conv2d_input_grad(g, h, x.shape, *a), xp.conv2d(x, h, *a)

    def reference(self, np, x, g):
        return _reference_adjoint(np, self.w_shape, np.result_type(x, g), g,
                                  lambda e: _reference_conv(np, x, e, *self.geometry))


def _reference_adjoint(np, shape, dtype, g, conv):
    """The adjoint of the linear map ``conv`` applied to ``g``, read off one-hot inputs of ``shape``:
    entry ``i`` is ``<conv(e_i), g>`` (``<conv(x, w), g> = <x, conv_input_grad(g, w)>``, and so in ``w``)."""
    out = np.zeros(shape, dtype=dtype)
    flat = out.reshape(-1)
    for i in range(flat.size):
        e = np.zeros(flat.size, dtype=dtype)
        e[i] = 1
        flat[i] = np.sum(conv(e.reshape(shape)) * g)
    return out


def _reference_conv(np, x, w, stride, padding, dilation, groups):
    """Direct loops over output positions: slow, obviously correct."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp_ = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    ho, wo = _out_size(h, kh, sh, ph, dh), _out_size(wd, kw, sw, pw, dw)
    out = np.zeros((n, o, ho, wo), dtype=np.result_type(x, w))
    og = o // groups
    for oc in range(o):
        gi = oc // og
        xs = xp_[:, gi * cg:(gi + 1) * cg]
        for i in range(ho):
            for j in range(wo):
                patch = xs[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
                out[:, oc, i, j] = np.sum(patch * w[oc], axis=(1, 2, 3))
    return out


# ---------------------------------------------------------------- max pooling
def _argmax_in_windows(xp, routing, kernel, stride, padding, dilation):
    # the padding never the maximum: -inf, or an integer's minimum (-inf cast to an integer was 0, which beat
    # a window of negative integers)
    lowest = -xp.inf if routing.dtype.kind in "fc" else xp.iinfo(routing.dtype).min
    win = _windows(xp, routing, kernel, stride, padding, dilation, fill=lowest)
    n, c, kh, kw, ho, wo = win.shape
    flat = win.reshape(n, c, kh * kw, ho, wo)
    idx = last_nan_picks(xp, flat, xp.argmax(flat, axis=2), 2)
    if any(padding):
        idx = _past_the_padding(xp, flat, idx, routing.shape[2:], kernel, stride, padding, dilation)
    return idx, (ho, wo)


def last_nan_picks(xp, stacked, idx, axis: int):
    """``idx``, ``argmax`` of ``stacked`` along ``axis`` (each window's first maximum, or its first
    NaN), with every window that holds a NaN sent to its *last* NaN: PyTorch's max pooling
    kernels replace the running maximum by each NaN they meet (``val > max || isnan(val)``),
    so its gradient and its indices go there.  Costs one look at the picked values when no
    window has a NaN."""
    if stacked.dtype.kind != "f":
        return idx
    picked = xp.take_along_axis(stacked, xp.expand_dims(idx, axis), axis=axis)
    if not bool(xp.scalar(xp.isnan(picked).any())):
        return idx
    backwards = (slice(None),) * axis + (slice(None, None, -1),)
    last = (stacked.shape[axis] - 1) - xp.argmax(xp.isnan(stacked)[backwards], axis=axis)
    return xp.where(xp.isnan(xp.squeeze(picked, axis)), last, idx)


def _past_the_padding(xp, flat, idx, size, kernel, stride, padding, dilation):
    """``idx`` with each window whose input taps are all -inf sent to its first input tap:
    ``argmax`` ties such a window with its (-inf) padding and picks a padding tap, whose value
    (0 in ``values``) would be the output; PyTorch's maximum there is -inf, at the first input
    element.  (A window wholly in the padding keeps its pick: its caller overwrites it.)"""
    picked = xp.take_along_axis(flat, idx[:, :, None], axis=2)[:, :, 0]
    lost = picked == -xp.inf
    if not bool(xp.scalar(lost.any())):
        return idx
    inside = _windows(xp, xp.ones((1, 1) + tuple(size), dtype=flat.dtype), kernel, stride, padding, dilation)
    first_inside = xp.argmax(inside.reshape((1, 1, -1) + inside.shape[4:]), axis=2)
    return xp.where(lost, first_inside, idx)


@register_kernel
def max_pool2d(xp, values, routing, kernel, stride, padding, dilation):
    """``values`` at the position of each window's first maximum of ``routing``."""
    if values is routing and _tiles(kernel, stride, padding, dilation) and kernel[0] * kernel[1] > 1:
        # the plain forward (max_pool2d(x) passes x twice) on tiling windows: the maximum is
        # the value, taken as elementwise maxima of strided slices (a reduction over two
        # short strided axes is several times slower in NumPy)
        top = _tiled_window_maxima(xp, routing, kernel)
        if top is not None:
            return top
    idx, (ho, wo) = _argmax_in_windows(xp, routing, kernel, stride, padding, dilation)
    win = _windows(xp, values, kernel, stride, padding, dilation)
    n, c, kh, kw = win.shape[:4]
    flat = win.reshape(n, c, kh * kw, ho, wo)
    return xp.take_along_axis(flat, idx[:, :, None], axis=2)[:, :, 0]


# Which operand ``maximum`` returns where zeros of opposite signs tie, per array library and dtype:
# "second" (NumPy's loops here, vectorized or not), "first", or "mixed" where layouts
# disagree.  A window's maximum is PyTorch's first maximum's value, -0.0 or 0.0 as it
# comes first, so the maxima are folded in the order that hands each tie to the earlier.
_MAXIMUM_TIES: dict[tuple[str, str], str] = {}


def _maximum_ties(xp, dtype) -> str:
    key = (xp.name, dtype.str)
    if key not in _MAXIMUM_TIES:
        neg, pos, seen = xp.full(130, -0.0, dtype=dtype), xp.zeros(130, dtype=dtype), set()
        for a, b in ((neg, pos), (neg[::2], pos[::2]), (neg[:1], pos[:1])):  # vectorized, strided, one
            signs = xp.signbit(xp.maximum(a, b))
            seen.add("first" if bool(xp.scalar(signs.all())) else
                     "second" if not bool(xp.scalar(signs.any())) else "mixed")
        _MAXIMUM_TIES[key] = seen.pop() if len(seen) == 1 else "mixed"
    return _MAXIMUM_TIES[key]


def _first_maximum(xp, parts):
    """The elementwise maximum of ``parts`` (in window order), each tie the earlier part's
    value; None where the library's ``maximum`` has no fixed operand for ties."""
    ties = _maximum_ties(xp, parts[0].dtype) if parts[0].dtype.kind == "f" else "first"  # (ints: no signed zeros)
    if ties == "mixed":
        return None
    order = parts[::-1] if ties == "second" else parts  # each maximum(folded, part) hands a tie to the earlier
    out = order[0]
    for part in order[1:]:
        out = xp.maximum(out, part)
    return out


def _rows_in_memory(a):
    """The memory order of ``a``'s two leading axes, (0, 1) or (1, 0), when ``a`` (N, C, H, W)
    is one contiguous block with its rows last (W, then H); else None."""
    n, c, h, w = a.shape
    item = a.dtype.itemsize
    if a.size == 0 or a.strides[3] != item or a.strides[2] != w * item:
        return None
    if a.strides[1] == h * w * item and a.strides[0] == c * h * w * item:
        return (0, 1)
    if a.strides[0] == h * w * item and a.strides[1] == n * h * w * item:
        return (1, 0)
    return None


def _tiled_window_maxima(xp, routing, kernel):
    """Each tiling window's maximum, the value of its first maximum in row-major window order.

    Rows in one contiguous block (a convolution's channel-major output, an NCHW array) whose
    windows cover them take two stages: the maximum of each window row's ``kw`` neighbours, as
    ``kw`` long stride-``kw`` views of the whole block, then of the ``kh`` rows, as rows of
    ``Wo`` -- 1.07 against 1.76 ms for the kh*kw strided slices on the MNIST example's (64, 64,
    24, 24) float32 maps, whose slices NumPy reads in runs of 12 one element apart.  The first
    maximum of the window is the first row's holding one, at that row's first.  Others take
    the slices.  None where ``maximum`` has no fixed operand for ties (the caller's ``argmax``)."""
    (kh, kw), (n, c, h, w) = kernel, routing.shape
    ho, wo = h // kh, w // kw
    order = _rows_in_memory(routing)
    if order is None or (h, w) != (ho * kh, wo * kw):
        return _first_maximum(xp, [routing[:, :, i:ho * kh:kh, j:wo * kw:kw] for i in range(kh) for j in range(kw)])
    flat = xp.transpose(routing, order + (2, 3)).reshape(-1)
    in_rows = _first_maximum(xp, [flat[j::kw] for j in range(kw)])  # (lead, ho, kh, wo) in memory
    if in_rows is None:
        return None
    in_rows = in_rows.reshape(-1, kh, wo)
    top = _first_maximum(xp, [in_rows[:, i] for i in range(kh)])
    lead = (n, c) if order == (0, 1) else (c, n)
    return xp.transpose(top.reshape(lead + (ho, wo)), order + (2, 3))


@register_kernel
def max_pool2d_backward(xp, g, routing, kernel, stride, padding, dilation, top=None):
    """Send each output's gradient to the input position ``max_pool2d`` picked.  ``top``,
    when given, is ``max_pool2d(routing, routing, ...)`` (the forward's output, saved):
    the tiled windows' maxima are then not computed again."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = routing.shape
    if _tiles(kernel, stride, padding, dilation):
        gx = _tiled_pool_backward(xp, g, routing, kh, kw, top)
        if gx is not None:  # (None: a window holds a NaN)
            return gx
    idx, (ho, wo) = _argmax_in_windows(xp, routing, kernel, stride, padding, dilation)
    gx = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=g.dtype)
    for i in range(kh):
        for j in range(kw):
            r, q = i * dh, j * dw
            # within one kernel offset every output has its own input position,
            # so a plain strided add is exact; overlaps across offsets add up
            # (where, not g * mask: an infinite gradient must not make 0 * inf = NaN elsewhere)
            gx[:, :, r:r + sh * (ho - 1) + 1:sh, q:q + sw * (wo - 1) + 1:sw] += xp.where(idx == i * kw + j, g, 0)
    return gx[:, :, ph:ph + h, pw:pw + w]


def _tiles(kernel, stride, padding, dilation):
    """Do the windows tile the input (stride = kernel, no padding or dilation: PyTorch's default)?"""
    return tuple(stride) == tuple(kernel) and tuple(padding) == (0, 0) and tuple(dilation) == (1, 1)


def _axis_order(a) -> list[int]:
    """``a``'s axes from the slowest-varying in memory to the fastest."""
    return sorted(range(a.ndim), key=lambda k: -abs(a.strides[k]))


def _new_in_layout_of(xp, like, dtype, allocate):
    """A new array of ``like``'s shape laid out in memory as ``like`` is, from ``allocate``
    (``xp.empty`` or ``xp.zeros``)."""
    order = _axis_order(like)
    buf = allocate(tuple(like.shape[k] for k in order), dtype=dtype)
    return xp.transpose(buf, tuple(order.index(k) for k in range(like.ndim)))


def _in_layout_of(xp, a, like):
    """A copy of ``a`` laid out in memory as ``like`` is."""
    out = _new_in_layout_of(xp, like, a.dtype, xp.empty)
    out[...] = a
    return out


def _tiled_pool_backward(xp, g, routing, kh, kw, top=None):
    """``max_pool2d_backward`` when the windows tile the input (stride = kernel, no padding
    or dilation, PyTorch's default).  Each kernel offset is one strided slice of the input
    and of the gradient, disjoint from the others; the first maximum of each window is
    found by comparing the slices with the window maximum in order, remembering which
    windows are already served.  (NumPy's ``argmax`` over a short last axis of a copied
    window array was several times slower.)  A window with a NaN sends its gradient to its
    last NaN, as PyTorch's kernel does: such a gradient takes the general path (None here,
    checked by the maxima, which NaN propagates to).  The window maxima are ``top``
    where the caller has them (the forward's output): 0.67-0.74x the time of taking them
    again from the strided slices, on the MNIST and digits shapes.

    Every pass writes into a buffer it owns (``out=``): one boolean array per offset and
    no other temporaries; the result is not zero-filled first when the slices cover it
    (0.65-0.75x the time of the version with temporaries, on the MNIST and digits shapes)."""
    n, c, h, w = routing.shape
    ho, wo = g.shape[2:]
    slices = [routing[:, :, i:ho * kh:kh, j:wo * kw:kw] for i in range(kh) for j in range(kw)]
    if top is None:  # (given: the forward's output, the same maxima taken in the same order)
        top = slices[0]
        for s in slices[1:]:
            top = xp.maximum(top, s)
    if bool(xp.scalar(xp.isnan(top).any())):  # np.maximum propagates NaN: a NaN window has a NaN top
        return None
    if _axis_order(g) != _axis_order(top):
        # g in the routing's layout first: a product of two layouts runs 3x slower than one
        # copy plus four products of one layout (the MNIST example: g from a flatten is
        # batch-major, its routing channel-major: 16 vs 10 ms)
        g = _in_layout_of(xp, g, top)
    finite = bool(xp.scalar(xp.isfinite(g).all()))
    covered = h == ho * kh and w == wo * kw
    gx = _new_in_layout_of(xp, routing, g.dtype, xp.empty if covered else xp.zeros)  # as the layers around it
    served = None
    for k, s in enumerate(slices):
        if k + 1 == len(slices) > 1:  # no NaN: some position holds the maximum, so the last serves the rest
            first = xp.logical_not(served, out=served)
        else:
            first = xp.equal(s, top)
            if served is not None:
                xp.greater(first, served, out=first)  # first and not served (booleans)
        dst = gx[:, :, k // kw:ho * kh:kh, k % kw:wo * kw:kw]
        if finite:
            xp.multiply(g, first, out=dst)
        else:  # 0 * inf is NaN (and NumPy warns): positions that are not a window's maximum get exactly 0
            dst[...] = xp.where(first, g, 0)
        if served is None:
            served = first
        elif k + 1 < len(slices):
            xp.logical_or(served, first, out=served)
    # PyTorch adds each gradient into zeros: +0.0 where no maximum is (the products above left -0.0
    # beside a negative g) and at a maximum whose gradient is -0.0 -- one in-place pass, where a
    # selection into the slices instead of the products measured 1.4x the whole backward's time
    return xp.add(gx, 0, out=gx)


class _PoolGeometry(Op):
    """What the two max pooling ops share: the window geometry and the saved routing input."""

    abstract = True

    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]

    save_inputs = (1,)

    @property
    def geometry(self) -> tuple:
        return self.kernel, self.stride, self.padding, self.dilation

    def jvp(self, xp, tangents, out, first, routing):
        # linear in the first input; the routing only picks positions (piecewise constant)
        if tangents[0] is None:
            return None
        return self.forward(xp, tangents[0], routing)

    def _pooled_shape(self, in_shape: tuple) -> tuple:
        """The shape max pooling gives an input of shape ``in_shape`` (N, C, H, W)."""
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.geometry
        n, c, h, w = in_shape
        return n, c, _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)

    def _reference_picks(self, np, routing):
        """Per output ``(a, b, i, j)``, the padded input position ``(y, x)`` of its window's first
        maximum of ``routing`` (the last NaN, as PyTorch's; an input -inf before the -inf padding),
        by direct loops: slow, obviously correct."""
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.geometry
        rp = np.pad(routing, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
        h, w = routing.shape[2:]
        for a, b, i, j in np.ndindex(self._pooled_shape(routing.shape)):
            best, pos, padded = -np.inf, None, True
            for u in range(kh):
                for v in range(kw):
                    y, x = i * sh + u * dh, j * sw + v * dw
                    r, inside = rp[a, b, y, x], ph <= y < ph + h and pw <= x < pw + w
                    if (pos is None or r > best or np.isnan(r)
                            or (padded and inside and r == best)):
                        best, pos, padded = r, (y, x), not inside
            yield (a, b, i, j), pos


class MaxPool2d(_PoolGeometry):
    """``max_pool2d(values, routing)``; the public function passes ``x`` as both, and says
    so with ``own_max``: the output is then the routing's window maxima, which backward
    reads instead of taking them again (so the output is saved too, a quarter of the
    input's bytes for 2x2 windows; the next layer usually keeps it anyway)."""

    own_max: bool = False  # values and routing are one array (set by F.max_pool2d only)
    save_output = True

    def forward(self, xp, values, routing):
        return xp.max_pool2d(values, routing, *self.geometry)

    def backward(self, xp, g, out, values, routing):
        return xp.max_pool2d_backward(g, routing, *self.geometry, top=out if self.own_max else None), None

    def reference(self, np, values, routing):
        ph, pw = self.padding
        vp = np.pad(values, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        out = np.zeros(self._pooled_shape(routing.shape), dtype=values.dtype)
        for place, (y, x) in self._reference_picks(np, routing):
            out[place] = vp[place[:2] + (y, x)]
        return out


class MaxPool2dBackward(_PoolGeometry):
    """``max_pool2d_backward(g, routing)`` as an op (for second derivatives)."""

    def forward(self, xp, g, routing):
        return xp.max_pool2d_backward(g, routing, *self.geometry)

    def backward(self, xp, h, out, g, routing):
        # the routing only picks positions: derivative 0 in it, but on its graph, as PyTorch's
        # max_pool2d_with_indices_backward keeps its input (a third derivative is zeros, not an unused input).
        # Zeros on arrays too, not xp.zero_gradient_on_graph's None: the routing is this op's only link to the
        # pooled input, so a plain second grad in it would find the input unused
        return xp.max_pool2d(h, routing, *self.geometry), xp.zeros_like(routing)

    def reference(self, np, g, routing):
        (ph, pw), (n, c, h, w) = self.padding, routing.shape
        gx = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=g.dtype)
        for place, (y, x) in self._reference_picks(np, routing):
            gx[place[:2] + (y, x)] += g[place]
        return gx[:, :, ph:ph + h, pw:pw + w]
