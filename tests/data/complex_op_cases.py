"""Complex-capable shape, indexing, writing, reduction and product functions of the PyTorch
fixture, written once for both engines.

Each function takes the namespace first (``torch`` when ``make_torch_complex_reference.py``
makes ``torch_complex_reference.npz``, ``minigrad_ckpt`` when ``tests/test_complex_vs_torch.py``
replays it) and the fixture's inputs after it, and returns one tensor.  Most spell the call
alike in both engines (minigrad_ckpt takes PyTorch's ``dim=`` spelling); where the two differ
-- NumPy's ``pad``, ``repeat`` and ``take_along_axis`` against PyTorch's ``nn.functional.pad``,
``repeat_interleave`` and ``take_along_dim`` -- the function says so and branches on the name.

Functions that return several tensors (``split``, ``chunk``, ``unbind``, ``var_mean``) are
recombined into one with distinct weights, so that every piece's gradient is checked.  The
writes (``x[i] = v``, ``scatter``, ``index_put``, in-place methods) write into a clone of
the input, so both the overwritten input and the written values get gradients.
"""

from __future__ import annotations

import numpy as np

ROWS = np.array([2, 0, 2, 1])  # repeats one row: its gradient adds up
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
GATHER = np.array([[3, 0, 0], [1, 2, 1], [0, 3, 2]])  # (3, 3) into a (3, 4)
SCATTER = np.array([[3, 0], [1, 2], [0, 3]])  # distinct per row: a scatter without collisions


#: In-place writes (``setitem_*``): minigrad_ckpt carries tangents through them (forward mode)
#: and records them for reverse mode as PyTorch does, for real tensors as for complex ones; the
#: replay checks their values, gradients, jvps and second derivatives like every other case.


def _torch(F) -> bool:
    return F.__name__ == "torch"


def _index(F, a: np.ndarray):
    return F.tensor(a)


def _weighted(parts):
    """One tensor from several of one shape: ``sum_k (k + 1) part_k`` (every part's gradient seen)."""
    total = parts[0]
    for k, p in enumerate(parts[1:], start=2):
        total = total + k * p
    return total


# ---------------------------------------------------------------------------
# shape and layout
# ---------------------------------------------------------------------------
def reshape(F, x):
    return F.reshape(x, (2, 6))


def view_method(F, x):
    return x.reshape(4, 3)


def transpose(F, x):
    return x.transpose(0, 1)


def permute(F, x):
    return x.permute(2, 0, 1)


def matrix_transpose(F, x):
    return x.mT


def squeeze(F, x):
    return F.squeeze(x, 1)


def unsqueeze(F, x):
    return F.unsqueeze(x, 1)


def flatten(F, x):
    return F.flatten(x, 1)


def ravel(F, x):
    return F.ravel(x)


def unflatten(F, x):
    return F.unflatten(x, 1, (2, 2))


def movedim(F, x):
    return F.movedim(x, 0, 2)


def swapaxes(F, x):
    return F.swapaxes(x, 0, 2)


def cat(F, x, y):
    return F.cat([x, y, x], dim=1)


def stack(F, x, y):
    return F.stack([x, y], dim=1)


def hstack(F, x, y):
    return F.hstack([x, y])


def vstack(F, x, y):
    return F.vstack([x, y])


def dstack(F, x, y):
    return F.dstack([x, y])


def column_stack(F, x, y):
    return F.column_stack([x[0], y[1]])


def split_sizes(F, x):
    a, b = F.split(x, [1, 3], dim=1)
    return a * b  # (3, 1) * (3, 3): a product, so the second derivative is not zero


def split_even(F, x):
    return _weighted(F.split(x, 2, dim=1))


def chunk(F, x):
    a, b = F.chunk(x, 2, dim=1)
    return a * b


def unbind(F, x):
    return _weighted(F.unbind(x, 0))


def tensor_split(F, x):
    return _weighted(F.tensor_split(x, 2, dim=1))


def flip(F, x):
    return F.flip(x, dims=(0, 1)) if _torch(F) else F.flip(x, dim=(0, 1))


def roll(F, x):
    return F.roll(x, 1, dims=1) if _torch(F) else F.roll(x, 1, dim=1)


def roll_flat(F, x):
    return F.roll(x, -5)


def rot90(F, x):
    return F.rot90(x, 1, (0, 1))


def broadcast_to(F, x):
    return F.broadcast_to(x, (2, 3, 4))


def expand(F, x):
    return x.expand(3, 4)  # x is (3, 1)


def tile(F, x):
    return F.tile(x, (2, 1))


def repeat_method(F, x):
    return x.repeat(1, 2)  # PyTorch's Tensor.repeat tiles


def repeat_interleave(F, x):
    return F.repeat_interleave(x, 2, dim=1) if _torch(F) else F.repeat(x, 2, dim=1)


def pad(F, x):
    if _torch(F):
        return F.nn.functional.pad(x, (1, 2, 0, 1))
    return F.pad(x, ((0, 1), (1, 2)))


def narrow(F, x):
    return F.narrow(x, 1, 1, 2)


def atleast_3d(F, x):
    return F.atleast_3d(x)


def tril(F, x):
    return F.tril(x, 1)


def triu(F, x):
    return F.triu(x, -1)


def diagonal(F, x):
    return F.diagonal(x, 1)


def diag_of_matrix(F, x):
    return F.diag(x, -1)


def diag_of_vector(F, x):
    return F.diag(x, 1)


def diag_embed(F, x):
    return F.diag_embed(x)


def diagflat(F, x):
    return F.diagflat(x)


def trace(F, x):
    return F.trace(x)


def block_diag(F, x, y):
    return F.block_diag(x, y)


def clone(F, x):
    return F.clone(x)


def atleast_1d(F, x):
    return F.atleast_1d(x)  # x is 0-d


def atleast_2d(F, x):
    return F.atleast_2d(x)


def expand_dims(F, x):
    return F.unsqueeze(x, 1) if _torch(F) else F.expand_dims(x, 1)


def matrix_t(F, x):
    return F.t(x)


def concatenate(F, x, y):
    return F.cat([x, y]) if _torch(F) else F.concatenate([x, y])


def hsplit(F, x):
    return _weighted(F.hsplit(x, 2))


def vsplit(F, x):
    return _weighted(F.vsplit(x, 2))  # x is (4, 3)


def dsplit(F, x):
    return _weighted(F.dsplit(x, 2))  # x is (2, 3, 4)


def broadcast_tensors(F, x, y):
    a, b = F.broadcast_tensors(x, y)  # (3, 1) and (4,)
    return a * b


def meshgrid(F, x, y):
    a, b = F.meshgrid(x, y, indexing="ij")
    return a * b


def cartesian_prod(F, x, y):
    return F.cartesian_prod(x, y)


def combinations(F, x):
    return F.combinations(x, 2)


def sum_to(F, x):
    return x.sum_to_size(1, 4) if _torch(F) else F.sum_to(x, (1, 4))


# ---------------------------------------------------------------------------
# reading: indexing, gathers, selections
# ---------------------------------------------------------------------------
def getitem_slices(F, x):
    return x[1:, ::2]


def getitem_int(F, x):
    return x[1]


def getitem_negative(F, x):
    return x[:, -1]


def getitem_int_array(F, x):
    return x[_index(F, ROWS)]  # a repeated row: its gradient adds up


def getitem_two_arrays(F, x):
    return x[_index(F, np.array([0, 2, 0])), _index(F, np.array([1, 3, 1]))]


def getitem_mask(F, x):
    return x[_index(F, MASK)]


def getitem_none_ellipsis(F, x):
    return x[..., None, 1:3]


def getitem_function(F, x):
    return x[1:, _index(F, np.array([3, 0]))] if _torch(F) else F.getitem(x, (slice(1, None), F.tensor([3, 0])))


def gather(F, x):
    return F.gather(x, 1, _index(F, GATHER))


def take_along_axis(F, x):
    if _torch(F):
        return F.take_along_dim(x, _index(F, GATHER), dim=1)
    return F.take_along_axis(x, _index(F, GATHER), axis=1)


def index_select(F, x):
    return F.index_select(x, 0, _index(F, ROWS))


def take(F, x):
    return F.take(x, _index(F, np.array([0, 5, 11, 5])))


def masked_select(F, x):
    return F.masked_select(x, _index(F, MASK))


def where(F, x, y):
    return F.where(_index(F, MASK), x, y)


def where_real_operand(F, x, y):
    """A complex ``x`` and a real ``y``: PyTorch's where cannot differentiate mixed operands
    (torch 2.13), so its side converts ``y`` first -- the same function, whose gradient
    reaches the real ``y`` as its real part in both engines."""
    if _torch(F):
        return F.where(_index(F, MASK), x, y.to(x.dtype))
    return F.where(_index(F, MASK), x, y)


def masked_fill(F, x):
    return F.masked_fill(x, _index(F, MASK), 0.5 - 2j)


def index_fill(F, x):
    return F.index_fill(x, 1, _index(F, np.array([0, 2])), 1.5j)


# ---------------------------------------------------------------------------
# writing: into a clone, so both the input and the written values get gradients
# ---------------------------------------------------------------------------
def setitem_slice(F, x, v):
    out = x.clone()
    out[0, 1:3] = v[0, :2]
    return out


def setitem_mask(F, x, v):
    out = x.clone()
    out[_index(F, MASK)] = v[_index(F, MASK)] * 2
    return out


def setitem_int_array(F, x, v):
    out = x.clone()
    out[_index(F, np.array([2, 0]))] = v[:2]
    return out


def setitem_then_read(F, x, v):
    """A write followed by a product with what was written over: the second derivative meets the write."""
    out = x.clone()
    out[1] = v[1] * x[0]
    return out * x


def scatter(F, x, v):
    return F.scatter(x, 1, _index(F, SCATTER), v[:, :2])


def scatter_add(F, x, v):
    return F.scatter_add(x, 1, _index(F, np.array([[3, 3], [1, 2], [0, 0]])), v[:, :2])


def index_add(F, x, v):
    return F.index_add(x, 0, _index(F, np.array([2, 0, 2])), v)


def index_copy(F, x, v):
    return F.index_copy(x, 0, _index(F, np.array([2, 0])), v[:2])


def index_put(F, x, v):
    idx = (_index(F, np.array([0, 2, 1])), _index(F, np.array([3, 0, 1])))
    return F.index_put(x, idx, v[0, :3])


def index_put_accumulate(F, x, v):
    idx = (_index(F, np.array([0, 2, 0])), _index(F, np.array([3, 0, 3])))
    return F.index_put(x, idx, v[0, :3], accumulate=True)


def scatter_reduce_sum(F, x, v):
    """PyTorch's scatter_reduce has no complex derivatives: its ``"sum"`` is scatter_add."""
    index, src = _index(F, np.array([[3, 3], [1, 2], [0, 0]])), v[:, :2]
    return F.scatter_add(x, 1, index, src) if _torch(F) else F.scatter_reduce(x, 1, index, src, "sum")


def masked_scatter(F, x, v):
    return F.masked_scatter(x, _index(F, MASK), v)


def put(F, x, v):
    if _torch(F):
        return x.put(_index(F, np.array([1, 7, 4])), v[0, :3])
    return F.put(x, _index(F, np.array([1, 7, 4])), v[0, :3])


def select_scatter(F, x, v):
    if _torch(F):  # PyTorch's select_scatter has no complex derivatives: the same write, spelled out
        return setitem_row(F, x, v)
    return F.select_scatter(x, v[0], 0, 1)


def setitem_row(F, x, v):
    out = x.clone()
    out[1] = v[0]
    return out


def slice_scatter(F, x, v):
    if _torch(F):  # as select_scatter
        out = x.clone()
        out[:, 1:3] = v[:, :2]
        return out
    return F.slice_scatter(x, v[:, :2], 1, 1, 3)


def diagonal_scatter(F, x, v):
    return F.diagonal_scatter(x, v[0, :3], 0)


# ---------------------------------------------------------------------------
# reductions and scans
# ---------------------------------------------------------------------------
def sum_keepdim(F, x):
    return F.sum(x, dim=1, keepdim=True)


def mean_dim(F, x):
    return F.mean(x, dim=0)


def prod_dim(F, x):
    return F.prod(x, dim=1)


def cumsum_dim0(F, x):
    return F.cumsum(x, dim=0)


def cumprod_dim0(F, x):
    return F.cumprod(x, dim=0)


def var_dim(F, x):
    return F.var(x, dim=1)


def std_biased(F, x):
    return F.std(x, dim=0, correction=0)


def var_mean(F, x):
    v, m = F.var_mean(x, dim=1)
    return v + m  # real + complex


def std_mean(F, x):
    s, m = F.std_mean(x, dim=0)
    return s * m


def nansum(F, x):
    """(The fixture's ``x`` has a NaN.)  PyTorch's nansum takes no complex input: its sum of the non-NaNs."""
    if _torch(F):
        return F.where(F.isnan(x), 0, x).sum(dim=1)
    return F.nansum(x, dim=1)


def nanmean(F, x):
    if _torch(F):
        return F.where(F.isnan(x), 0, x).sum(dim=0) / (~F.isnan(x)).sum(dim=0)
    return F.nanmean(x, dim=0)


def logsumexp(F, x):
    return F.logsumexp(x, dim=1)


def vector_norm_2(F, x):
    return F.linalg.vector_norm(x, dim=1)


def vector_norm_1(F, x):
    return F.linalg.vector_norm(x, 1, dim=0)


def vector_norm_inf(F, x):
    return F.linalg.vector_norm(x, float("inf"))


def matrix_norm_fro(F, x):
    return F.linalg.matrix_norm(x)


def matrix_norm_nuc(F, x):
    return F.linalg.matrix_norm(x, "nuc")


def logcumsumexp(F, x):
    return F.logcumsumexp(x, 0)


def renorm(F, x):
    return F.renorm(x, 2, 0, 1.5)


def gradient(F, x):
    return _weighted(F.gradient(x, dim=1))


def diff(F, x):
    return F.diff(x, dim=1)


def trapezoid(F, x):
    return F.trapezoid(x, dim=1)


def cumulative_trapezoid(F, x):
    return F.cumulative_trapezoid(x, dim=1)


def cov(F, x):
    return F.cov(x)


def corrcoef(F, x):
    return F.corrcoef(x)


# ---------------------------------------------------------------------------
# products
# ---------------------------------------------------------------------------
def matmul_batched(F, x, y):
    return F.matmul(x, y)


def matmul_vector(F, x, y):
    return F.matmul(x, y[0])


def einsum_trace(F, x, y):
    return F.einsum("ii->", x @ y.mT)


def einsum_batched(F, x, y):
    return F.einsum("bij,jk->bik", x, y)


def einsum_outer_sum(F, x, y):
    return F.einsum("i,j->", x[0], y[0])


def tensordot_int(F, x, y):
    return F.tensordot(x, y, 1) if _torch(F) else F.tensordot(x, y, axes=1)


def dot(F, x, y):
    return F.dot(x[0], y[0])


def inner(F, x, y):
    return F.inner(x, y)


def vecdot(F, x, y):
    return F.linalg.vecdot(x, y)  # conjugates x, in both engines


def multi_dot(F, x, y):
    return F.linalg.multi_dot([x, y, x])


def cross(F, x, y):
    return F.linalg.cross(x[:, :3], y[:, :3]) if _torch(F) else F.cross(x[:, :3], y[:, :3])


def matrix_power(F, x):
    return F.linalg.matrix_power(x, 3)


def matrix_power_negative(F, x):
    return F.linalg.matrix_power(x, -2)


def cond(F, x):
    return F.linalg.cond(x)


def eigvalsh(F, x):
    return F.linalg.eigvalsh((x + x.mT.conj()) / 2)


def svdvals(F, x):
    return F.linalg.svdvals(x)


def householder_product(F, x, tau):
    return F.linalg.householder_product(x, tau)


def tensorinv(F, x):
    return F.linalg.tensorinv(x, 1)  # x is (4, 2, 2)


def tensorsolve(F, x, y):
    return F.linalg.tensorsolve(x, y)  # x is (6, 2, 3), y (6,)


# ---------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------
def rsqrt(F, x):
    return F.rsqrt(x)


def sign(F, x):
    return F.sgn(x) if _torch(F) else F.sign(x)


def deg2rad(F, x):
    """PyTorch's (and NumPy's) deg2rad refuse complex input; minigrad_ckpt's scales it: ``x pi / 180``."""
    return x * (np.pi / 180) if _torch(F) else F.deg2rad(x)


def rad2deg(F, x):
    return x * (180 / np.pi) if _torch(F) else F.rad2deg(x)


def lerp_scalar(F, x, y):
    return F.lerp(x, y, 0.3)


def lerp_tensor(F, x, y, w):
    return F.lerp(x, y, w)


def ldexp(F, x):
    """Float exponents: PyTorch's gradient of ``ldexp`` with a negative *integer* exponent is 0
    (torch 2.13 takes ``2 ** -2`` in integers), minigrad_ckpt's is ``2 ** other``."""
    return F.ldexp(x, _index(F, np.array([1.0, -2.0, 0.0, 3.0])))


def nan_to_num(F, x):
    """(The fixture's ``x`` has NaN and inf parts.)  PyTorch's nan_to_num has no complex derivatives:
    its value part by part, as NumPy's."""
    if _torch(F):
        return F.complex(F.nan_to_num(x.real), F.nan_to_num(x.imag))
    return F.nan_to_num(x)


def power_int(F, x):
    return x ** 3


def power_float(F, x):
    return x ** 0.5


def rpow(F, x):
    return 2.0 ** x


def rpow_complex_base(F, x):
    return (1.5 - 0.5j) ** x


def true_divide(F, x, y):
    return F.true_divide(x, y)


def divide_scalar(F, x):
    return (1 + 2j) / x


def abs_method(F, x):
    return x.abs()


def conj_method(F, x):
    return x.conj() * x  # |x|^2 as a complex number: not holomorphic


def real_imag_attrs(F, x):
    return x.real * x.imag


def complex_from_parts(F, x):
    return F.complex(x.real, x.imag * 2)


def polar_of_parts(F, x):
    return F.polar(F.abs(x), F.angle(x))
