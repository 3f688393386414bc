"""Linear algebra: matmul (NumPy semantics, batched and 1-D) and einsum."""

from __future__ import annotations

from ..backend import HALF, half_in_float32, rounded_to_half
from .base import Op, add_tangents


class MatMul(Op):
    """``x @ y`` with NumPy's rules: 1-D operands are promoted and the added
    axis removed again; leading (batch) axes broadcast.

    A batch of rows times one matrix (``(..., K) @ (K, N)``, every Linear
    layer) is computed as a single 2-D product: NumPy's batched matmul loops
    over the batch, several times slower for the same arithmetic.
    """

    uses_needs_input_grad = True
    grad_reads = ((1,), (0,))  # x's gradient reads y, y's reads x

    def forward(self, xp, x, y):
        return _matmul(xp, x, y)

    def backward(self, xp, g, out, x, y, needs_input_grad=(True, True)):
        gx = gy = None
        if x.ndim > 1 and y.ndim == 2:
            # rows times a matrix: both gradients are plain 2-D products
            if needs_input_grad[0]:
                gx = _matmul(xp, g, xp.swapaxes(y, 0, 1))
            if needs_input_grad[1]:
                k, n = y.shape
                x2, g2 = x.reshape((_rows(x), k)), g.reshape((_rows(g), n))
                if _column_major(y):
                    # y is a transposed view (``h @ W.T``): produce the gradient in y's layout, so
                    # the transpose's backward hands W a row-major array, not a view to copy
                    gy = xp.swapaxes(xp.matmul(xp.swapaxes(g2, 0, 1), x2), 0, 1)
                else:
                    gy = xp.matmul(xp.swapaxes(x2, 0, 1), g2)
            return gx, gy
        x2 = x.reshape((1,) + x.shape) if x.ndim == 1 else x
        y2 = y.reshape(y.shape + (1,)) if y.ndim == 1 else y
        if x.ndim == 1 and y.ndim == 1:
            g2 = g.reshape((1, 1))
        elif x.ndim == 1:
            g2 = g.reshape(g.shape[:-1] + (1, g.shape[-1]))
        elif y.ndim == 1:
            g2 = g.reshape(g.shape + (1,))
        else:
            g2 = g
        if needs_input_grad[0]:
            gx = xp.matmul(g2, xp.swapaxes(y2, -1, -2))
            if x.ndim == 1:
                gx = gx.reshape(gx.shape[:-2] + gx.shape[-1:])
        if needs_input_grad[1]:
            gy = xp.matmul(xp.swapaxes(x2, -1, -2), g2)
            if y.ndim == 1:
                gy = gy.reshape(gy.shape[:-1])
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        return add_tangents(None if tx is None else _matmul(xp, tx, y),
                            None if ty is None else _matmul(xp, x, ty))

    def reference(self, np, x, y):
        return np.matmul(x, y)


_OUTER_PRODUCT_DTYPES = ("f", "d")  # float32, float64 by their type characters (a dtype's name is a
# Python property, about 1 us a call: the test runs on every product)


def _matmul(xp, x, y):
    if (y.ndim == 2 and x.ndim >= 2 and x.shape[-1] == 1 and y.shape[0] == 1 and y.shape[1] > 1
            and _rows(x) > 1 and x.dtype.char in _OUTER_PRODUCT_DTYPES):
        # One product per element (x_t @ W_ih.T of an LSTM fed one feature): broadcast, it took a third of
        # OpenBLAS's time on (97, 1) @ (1, 204). Only where PyTorch 2.13 keeps a zero product's sign, as the
        # broadcast does: 2-D products (leading axes folded into rows) of at least two rows and columns in
        # float32/64 -- one row or column, a batch of matrices, float16 and complex give +0.0 there, as BLAS
        # (which adds the product to its accumulator's +0.0).
        return xp.ascontiguousarray(xp.multiply(x, y))  # (C order whatever x's, as matmul's result)
    if x.ndim > 2 and y.ndim == 2:
        k = x.shape[-1]
        return xp.matmul(x.reshape((_rows(x), k)), y).reshape(x.shape[:-1] + (y.shape[-1],))
    return xp.matmul(x, y)


def _column_major(a):
    """Is ``a`` a column-major (Fortran-ordered) array, e.g. the transpose of a weight?
    (False for what has no layout flags: Tensors while differentiating twice.)"""
    flags = getattr(a, "flags", None)
    return flags is not None and flags.f_contiguous and not flags.c_contiguous


def _rows(a):
    # the product of the leading axes; not -1, which NumPy cannot infer for size-0 arrays
    n = 1
    for s in a.shape[:-1]:
        n *= s
    return n


def _one_operand_sum(xp, subscripts: str, xs: tuple):
    """``einsum`` of one operand that only sums letters away and permutes the rest (``"ij->j"``,
    ``"bij->ji"``), as a pairwise sum: NumPy's einsum adds the summed elements one by one, and
    its float32 ``"ij->j"`` over 1e4 rows was 2e-6 off (torch 2.13: 7e-8).  ``None`` where the
    subscripts do something else (repeated letters, several operands), and for float64, whose
    einsum stays NumPy's, bit for bit."""
    ins, out = subscripts.split("->")
    if len(xs) != 1 or "," in ins or len(set(ins)) != len(ins) or len(out) == len(ins):
        return None
    if xs[0].dtype not in (xp.float32, xp.float16, xp.complex64):
        return None
    summed = tuple(i for i, c in enumerate(ins) if c not in out)
    kept = [c for c in ins if c in out]
    r = xp.pairwise_sum(xs[0], summed)
    order = [kept.index(c) for c in out]
    return r if order == list(range(len(order))) else xp.ascontiguousarray(xp.transpose(r, order))


@half_in_float32
def _einsum(xp, subscripts, *operands):
    """``xp.einsum``, float16 operands in float32 with the result rounded once, as PyTorch's
    (its einsum is a batched matrix product, which accumulates in float).  NumPy's float16 einsum
    adds each product into its float16 output: the attention scores of guided-diffusion's
    float16 UNet, ``einsum("bct,bcs->bts", q, k)`` over 64 channels, were up to 342 units in
    the last place off (PyTorch's: half a unit)."""
    return xp.einsum(subscripts, *operands)


class Einsum(Op):
    """``einsum`` with explicit output subscripts (``functional.einsum`` makes
    them explicit and expands ``...``).  The gradient for operand ``k`` is
    another einsum: the output gradient contracted with the other operands;
    letters that only operand ``k`` sums over are broadcast back.
    Repeated letters within one operand (traces, diagonals) are supported by
    masking with an identity."""

    subscripts: str

    uses_needs_input_grad = True

    @property
    def grad_reads(self) -> tuple[tuple[int, ...], ...]:  # type: ignore[override]
        """Operand ``k``'s gradient reads every other operand (not its own values)."""
        n = self.subscripts.split("->")[0].count(",") + 1
        return tuple(tuple(i for i in range(n) if i != k) for k in range(n))

    def forward(self, xp, *xs):
        out = _one_operand_sum(xp, self.subscripts, xs)
        if out is not None:
            return out
        out = _einsum(xp, self.subscripts, *xs)
        # one operand: NumPy returns a view for a transpose or a diagonal ("ij->ji", "ii->i"),
        # and this op's output is its own array (not declared is_view)
        return out if xp.owns_memory(out) else out.copy()

    def backward(self, xp, g, out, *xs, needs_input_grad=None):
        ins, outs = self.subscripts.split("->")
        specs = ins.split(",")
        grads = []
        for k in range(len(specs)):
            if needs_input_grad is not None and not needs_input_grad[k]:
                grads.append(None)
                continue
            grads.append(_einsum_operand_grad(xp, g, outs, specs, xs, k))
        return tuple(grads)

    def jvp(self, xp, tangents, out, *xs):
        # multilinear: one einsum per operand with a tangent, that operand replaced by it
        terms = []
        for k, t in enumerate(tangents):
            if t is not None:
                summed = _one_operand_sum(xp, self.subscripts, (t,))
                terms.append(summed if summed is not None else _einsum(xp, self.subscripts, *xs[:k], t, *xs[k + 1:]))
        return add_tangents(*terms)

    def reference(self, np, *xs):
        return np.einsum(self.subscripts, *xs)


def _einsum_operand_grad(xp, g, out_spec, specs, xs, k):
    spec = specs[k]
    others = [(s, x) for i, (s, x) in enumerate(zip(specs, xs)) if i != k]
    available = set(out_spec).union(*[set(s) for s, _ in others]) if others else set(out_spec)
    unique = "".join(dict.fromkeys(spec))  # letters of operand k, first occurrence order
    reachable = "".join(c for c in unique if c in available)
    expr = ",".join([out_spec] + [s for s, _ in others]) + "->" + reachable
    r = _einsum(xp, expr, g, *[x for _, x in others])
    # letters only operand k had (summed over in the forward): broadcast back
    sizes = {}
    for c, n in zip(spec, xs[k].shape):
        sizes[c] = n
    # a subscript of size 1 here and n in another operand was broadcast (as PyTorch's einsum does): its
    # gradient sums back over the n; one of size 1 there and n here broadcasts back to n below
    wide = tuple(i for i, c in enumerate(reachable) if sizes[c] == 1 and r.shape[i] != 1)
    if wide:
        r = xp.sum(r, axis=wide, keepdims=True)
    full_shape = tuple(sizes[c] for c in unique)
    reached = dict(zip(reachable, r.shape))
    shape_r = tuple(reached.get(c, 1) for c in unique)
    r = xp.broadcast_to(r.reshape(shape_r), full_shape)
    if len(unique) == len(spec):
        return r
    # Repeated letters (e.g. "ii"): the value belongs on the diagonal.  Each
    # repeat gets a fresh letter tied to the first by an identity matrix.
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    spare = iter(c for c in letters if c not in spec)
    terms, operands, out_letters, seen = [unique], [r], [], set()
    for c in spec:
        if c in seen:
            fresh = next(spare)
            out_letters.append(fresh)
            terms.append(c + fresh)
            operands.append(xp.eye(sizes[c], dtype=xs[k].dtype))
        else:
            out_letters.append(c)
            seen.add(c)
    return xp.einsum(",".join(terms) + "->" + "".join(out_letters), *operands)


class Linear(Op):
    """``x @ w.T + b`` in one op (PyTorch's ``linear``): w is (out, in), b optional.

    One node instead of three (transpose, matmul, add), and the transpose is
    a free view, so neither time nor memory is spent on it.
    """

    uses_needs_input_grad = True
    grad_reads = ((1,), (0,), ())  # x's gradient reads w, w's reads x, b's reads neither

    def forward(self, xp, x, w, b):
        if b is None:
            return _matmul(xp, x, w.T)
        if x.dtype is HALF and b.dtype is HALF:
            # PyTorch's half addmm adds the bias to the float product and rounds once: the product
            # rounded to float16 first, then the sum, was 1.2 units in the last place off (its: 0.5),
            # and hundreds where the bias cancels the product
            out = _matmul(xp, x.astype(xp.float32), w.T.astype(xp.float32))
            out += b
            return rounded_to_half(out)
        out = _matmul(xp, x, w.T)
        if b.ndim == 1 and out.dtype == b.dtype and b.shape[0] == out.shape[-1]:  # into the product (new memory
            # no one else has): one array fewer, the same bits (a bias that broadcasts the product: a new array)
            out += b
            return out
        return out + b

    def backward(self, xp, g, out, x, w, b, needs_input_grad=(True, True, True)):
        gx = _matmul(xp, g, w) if needs_input_grad[0] else None
        if g.ndim != 2:  # (..., out): the weight sees every leading position as a row
            g = g.reshape((_rows(g), w.shape[0]))
            x = x.reshape((_rows(x), w.shape[1]))
        gw = xp.matmul(g.T, x) if needs_input_grad[1] else None
        gb = xp.pairwise_sum(g, (0,)) if b is not None and needs_input_grad[2] else None  # (over rows: pairwise)
        return gx, gw, gb

    def jvp(self, xp, tangents, out, x, w, b):
        tx, tw, tb = tangents
        return add_tangents(None if tx is None else _matmul(xp, tx, w.T),
                            None if tw is None else _matmul(xp, x, tw.T), tb)

    def reference(self, np, x, w, b):
        out = np.matmul(x, w.T)
        return out if b is None else out + b
