"""2-D convolution and max pooling, NCHW layout (PyTorch's conventions).

A convolution is a matrix product over *windows*: the windows of the padded
input are a strided view (``xp.as_strided``, no copy), reshaped into columns
(the "im2col" copy) and multiplied by the weight matrix.  Its two adjoints
have kernels of their own:

``conv2d_input_grad(g, w, ...)``   scatters ``w^T g`` back onto the input
                                    (one strided add per kernel offset)
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

from ..backend import register_kernel
from .base import Op


def _out_size(n: int, k: int, s: int, p: int, d: int) -> int:
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _windows(xp, x, kernel, stride, padding, dilation, fill=0.0):
    """View of the padded input as (N, C, KH, KW, Ho, Wo) windows."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = x.shape
    if ph or pw:
        x = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), mode="constant", constant_values=fill)
    ho, wo = _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)
    s0, s1, s2, s3 = x.strides
    return xp.as_strided(x, (n, c, kh, kw, ho, wo), (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw))


@register_kernel
def conv2d(xp, x, w, stride, padding, dilation, groups):
    """Cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C/groups, KH, KW)."""
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    win = _windows(xp, x, (kh, kw), stride, padding, dilation)
    ho, wo = win.shape[4:]
    cols = win.reshape(n, groups, cg * kh * kw, ho * wo)
    out = xp.matmul(w.reshape(groups, o // groups, cg * kh * kw), cols)
    return out.reshape(n, o, ho, wo)


@register_kernel
def conv2d_input_grad(xp, g, w, x_shape, stride, padding, dilation, groups):
    """The adjoint of ``conv2d`` in ``x``: ``g`` (N, O, Ho, Wo) back to ``x_shape``."""
    n, c, h, wd = x_shape
    o, cg, kh, kw = w.shape
    ho, wo = g.shape[2:]
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    wm = w.reshape(groups, o // groups, cg * kh * kw)
    cols = xp.matmul(xp.swapaxes(wm, 1, 2), g.reshape(n, groups, o // groups, ho * wo))
    cols = cols.reshape(n, c, kh, kw, ho, wo)
    gx = xp.zeros((n, c, h + 2 * ph, wd + 2 * pw), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            r, q = i * dh, j * dw
            gx[:, :, r:r + sh * (ho - 1) + 1:sh, q:q + sw * (wo - 1) + 1:sw] += cols[:, :, i, j]
    return gx[:, :, ph:ph + h, pw:pw + wd]


@register_kernel
def conv2d_weight_grad(xp, x, g, w_shape, stride, padding, dilation, groups):
    """The adjoint of ``conv2d`` in ``w``: ``g`` (N, O, Ho, Wo) against the input windows."""
    n = x.shape[0]
    o, cg, kh, kw = w_shape
    win = _windows(xp, x, (kh, kw), stride, padding, dilation)
    ho, wo = win.shape[4:]
    cols = win.reshape(n, groups, cg * kh * kw, ho * wo)
    gm = g.reshape(n, groups, o // groups, ho * wo)
    return xp.einsum("ngol,ngkl->gok", gm, cols).reshape(w_shape)


class Conv2d(Op):
    """``conv2d(x, w)``; attributes ``stride``, ``padding``, ``dilation`` (pairs), ``groups``."""

    uses_needs_input_grad = True

    def forward(self, xp, x, w):
        return xp.conv2d(x, w, self.stride, self.padding, self.dilation, self.groups)

    def backward(self, xp, g, out, x, w, needs_input_grad=(True, True)):
        a = (self.stride, self.padding, self.dilation, self.groups)
        gx = xp.conv2d_input_grad(g, w, x.shape, *a) if needs_input_grad[0] else None
        gw = xp.conv2d_weight_grad(x, g, w.shape, *a) if needs_input_grad[1] else None
        return gx, gw

    def reference(self, np, x, w):
        return _reference_conv(np, x, w, self.stride, self.padding, self.dilation, self.groups)


class Conv2dInputGrad(Op):
    """``conv2d_input_grad(g, w)`` as an op (used for second derivatives)."""

    def forward(self, xp, g, w):
        return xp.conv2d_input_grad(g, w, self.x_shape, self.stride, self.padding,
                                    self.dilation, self.groups)

    def backward(self, xp, h, out, g, w):
        a = (self.stride, self.padding, self.dilation, self.groups)
        return xp.conv2d(h, w, *a), xp.conv2d_weight_grad(h, g, w.shape, *a)

    def reference(self, np, g, w):
        n, c, hh, ww = self.x_shape
        out = np.zeros(self.x_shape, dtype=np.result_type(g, w))
        # <conv(x, w), g> = <x, conv_input_grad(g, w)>: read the adjoint off one-hot inputs
        flat = out.reshape(-1)
        for i in range(flat.size):
            e = np.zeros(flat.size, dtype=out.dtype)
            e[i] = 1
            y = _reference_conv(np, e.reshape(self.x_shape), w, self.stride, self.padding,
                                self.dilation, self.groups)
            flat[i] = np.sum(y * g)
        return out


class Conv2dWeightGrad(Op):
    """``conv2d_weight_grad(x, g)`` as an op (used for second derivatives)."""

    def forward(self, xp, x, g):
        return xp.conv2d_weight_grad(x, g, self.w_shape, self.stride, self.padding,
                                     self.dilation, self.groups)

    def backward(self, xp, h, out, x, g):
        a = (self.stride, self.padding, self.dilation, self.groups)
        return xp.conv2d_input_grad(g, h, x.shape, *a), xp.conv2d(x, h, *a)

    def reference(self, np, x, g):
        out = np.zeros(self.w_shape, dtype=np.result_type(x, g))
        flat = out.reshape(-1)
        for i in range(flat.size):
            e = np.zeros(flat.size, dtype=out.dtype)
            e[i] = 1
            y = _reference_conv(np, x, e.reshape(self.w_shape), self.stride, self.padding,
                                self.dilation, self.groups)
            flat[i] = np.sum(y * g)
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
    win = _windows(xp, routing, kernel, stride, padding, dilation, fill=-xp.inf)
    n, c, kh, kw, ho, wo = win.shape
    return xp.argmax(win.reshape(n, c, kh * kw, ho, wo), axis=2), (ho, wo)


@register_kernel
def max_pool2d(xp, values, routing, kernel, stride, padding, dilation):
    """``values`` at the position of each window's first maximum of ``routing``."""
    idx, (ho, wo) = _argmax_in_windows(xp, routing, kernel, stride, padding, dilation)
    win = _windows(xp, values, kernel, stride, padding, dilation)
    n, c, kh, kw = win.shape[:4]
    flat = win.reshape(n, c, kh * kw, ho, wo)
    return xp.take_along_axis(flat, idx[:, :, None], axis=2)[:, :, 0]


@register_kernel
def max_pool2d_backward(xp, g, routing, kernel, stride, padding, dilation):
    """Send each output's gradient to the input position ``max_pool2d`` picked."""
    idx, (ho, wo) = _argmax_in_windows(xp, routing, kernel, stride, padding, dilation)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = routing.shape
    gx = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=g.dtype)
    for i in range(kh):
        for j in range(kw):
            r, q = i * dh, j * dw
            # within one kernel offset every output has its own input position,
            # so a plain strided add is exact; overlaps across offsets add up
            gx[:, :, r:r + sh * (ho - 1) + 1:sh, q:q + sw * (wo - 1) + 1:sw] += g * (idx == i * kw + j)
    return gx[:, :, ph:ph + h, pw:pw + w]


class MaxPool2d(Op):
    """``max_pool2d(values, routing)``; the public function passes ``x`` as both."""

    save_inputs = (1,)

    def forward(self, xp, values, routing):
        return xp.max_pool2d(values, routing, self.kernel, self.stride, self.padding, self.dilation)

    def backward(self, xp, g, out, values, routing):
        a = (self.kernel, self.stride, self.padding, self.dilation)
        return xp.max_pool2d_backward(g, routing, *a), None

    def reference(self, np, values, routing):
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.kernel, self.stride, self.padding, self.dilation
        n, c, h, w = routing.shape
        rp = np.pad(routing, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
        vp = np.pad(values, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        ho, wo = _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)
        out = np.zeros((n, c, ho, wo), dtype=values.dtype)
        for a in range(n):
            for b in range(c):
                for i in range(ho):
                    for j in range(wo):
                        best, pos = -np.inf, None
                        for u in range(kh):
                            for v in range(kw):
                                y, x = i * sh + u * dh, j * sw + v * dw
                                if pos is None or rp[a, b, y, x] > best:
                                    best, pos = rp[a, b, y, x], (y, x)
                        out[a, b, i, j] = vp[a, b, pos[0], pos[1]]
        return out


class MaxPool2dBackward(Op):
    """``max_pool2d_backward(g, routing)`` as an op (for second derivatives)."""

    save_inputs = (1,)

    def forward(self, xp, g, routing):
        return xp.max_pool2d_backward(g, routing, self.kernel, self.stride, self.padding,
                                      self.dilation)

    def backward(self, xp, h, out, g, routing):
        a = (self.kernel, self.stride, self.padding, self.dilation)
        return xp.max_pool2d(h, routing, *a), None

    def reference(self, np, g, routing):
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.kernel, self.stride, self.padding, self.dilation
        n, c, h, w = routing.shape
        rp = np.pad(routing, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
        gx = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=g.dtype)
        for a in range(n):
            for b in range(c):
                for i in range(g.shape[2]):
                    for j in range(g.shape[3]):
                        best, pos = -np.inf, None
                        for u in range(kh):
                            for v in range(kw):
                                y, x = i * sh + u * dh, j * sw + v * dw
                                if pos is None or rp[a, b, y, x] > best:
                                    best, pos = rp[a, b, y, x], (y, x)
                        gx[a, b, pos[0], pos[1]] += g[a, b, i, j]
        return gx[:, :, ph:ph + h, pw:pw + w]
