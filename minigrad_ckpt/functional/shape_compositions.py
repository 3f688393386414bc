"""NumPy's and PyTorch's further shape functions: ``atleast_1d/2d/3d``, ``hstack``/``vstack``/
``dstack``/``column_stack``, ``block_diag``, ``diag_embed``, ``diagflat``, ``rot90``,
``broadcast_tensors``, ``unflatten``, ``movedim``, ``narrow``, ``cartesian_prod``,
``combinations``, and the index grids ``tril_indices``/``triu_indices``.

Each is a rearrangement -- reshapes, joins, flips, a gather or its adjoint -- of the
engine's differentiable shape ops, so gradients in every mode and order are theirs.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

from ..backend import check_layout, host_numpy, scalar_type_name
from ..creation import pinned_as_asked, zeros
from ..ops import shape as _sh
from ..tape import apply
from ..tensor import Tensor, fresh_result
from . import math as mf
from . import namespace
from .arguments import as_tensor, broadcast_shapes, number, one_axis, paired_axes
from .errors import IndexOutOfBounds, RefusedArgument, TooFewDims, WrongTensorKind
from .indexing import index_add
from .promotion import promote_types
from .scatter import constant
from .torch_idioms import _one_dim


def _many(name: str, tensors: Sequence[Any], *, none_ok: bool = False) -> list[Tensor]:
    """``f(a, b)`` and ``f((a, b))`` alike, as tensors; none at all is PyTorch's error unless ``none_ok``
    (``atleast_1d()``, ``broadcast_tensors()``, ``block_diag()`` answer as PyTorch's)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors and not none_ok:
        raise RefusedArgument(f"{name} expects a non-empty TensorList (it needs at least one tensor)")
    return [as_tensor(t) for t in tensors]


def _at_least(ndim: int, x: Tensor) -> Tensor:
    if x.ndim >= ndim:
        return x
    if ndim == 3 and x.ndim == 2:
        return mf.reshape(x, x.shape + (1,))
    if ndim == 3 and x.ndim == 1:
        return mf.reshape(x, (1, x.shape[0], 1))
    return mf.reshape(x, (1,) * (ndim - x.ndim) + x.shape)


def _atleast(ndim: int) -> Any:
    def fn(*tensors: Any) -> Any:
        out = tuple(_at_least(ndim, t) for t in _many(f"atleast_{ndim}d", tensors, none_ok=True))
        return out[0] if len(out) == 1 and not isinstance(tensors[0], (list, tuple)) else out

    fn.__name__ = fn.__qualname__ = f"atleast_{ndim}d"
    how = "(n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)" if ndim == 3 else "new dims in front"
    fn.__doc__ = (f"Each tensor with at least {ndim} dims ({how}); one tensor for one argument, else a "
                  f"tuple (NumPy's and PyTorch's ``atleast_{ndim}d``).")
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def hstack(tensors: Sequence[Any]) -> Tensor:
    """Join along the second dim (the first for 1-D tensors), as NumPy's and PyTorch's ``hstack``."""
    ts = [_at_least(1, t) for t in _many("hstack", (tensors,))]
    return mf.concatenate(ts, axis=0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Any]) -> Tensor:
    """Stack as rows: each made at least 2-D, joined along the first dim (``vstack``)."""
    return mf.concatenate([_at_least(2, t) for t in _many("vstack", (tensors,))], axis=0)


def dstack(tensors: Sequence[Any]) -> Tensor:
    """Stack along the third dim, each made at least 3-D first (``dstack``)."""
    return mf.concatenate([_at_least(3, t) for t in _many("dstack", (tensors,))], axis=2)


def column_stack(tensors: Sequence[Any]) -> Tensor:
    """Join as columns: 0-D and 1-D tensors become columns ``(n, 1)``, 2-D ones stay (``column_stack``)."""
    ts = [mf.reshape(t, (t.size, 1)) if t.ndim < 2 else t for t in _many("column_stack", (tensors,))]
    return mf.concatenate(ts, axis=1)


def block_diag(*tensors: Any) -> Tensor:
    """The tensors as the blocks of a block-diagonal matrix, zeros elsewhere (``torch.block_diag``,
    SciPy's ``block_diag``): a 0-d tensor is a 1 x 1 block, a 1-D one a row."""
    blocks = []
    many = _many("block_diag", tensors, none_ok=True)
    if not many:  # PyTorch's: a matrix of one row and no columns
        return zeros(1, 0)
    for t in many:
        if t.ndim > 2:
            raise RefusedArgument(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                                  f"Input {len(blocks)} has {t.ndim} dimensions")
        blocks.append(_at_least(2, t))
    dtype = functools.reduce(promote_types, [b.dtype for b in blocks])  # PyTorch's: float32 beside int64 is float32
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        b = b if b.dtype == dtype else mf.astype(b, dtype)
        rows.append(mf.pad(b, ((0, 0), (left, width - left - b.shape[1]))))
        left += b.shape[1]
    return mf.concatenate(rows, axis=0)


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    """Tensors whose (``dim1``, ``dim2``) diagonals at ``offset`` are ``input``'s last dim, zeros
    elsewhere (``torch.diag_embed``): a batch of diagonal matrices."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise TooFewDims("diag_embed: needs at least one dim, got a 0-d tensor")
    n = x.shape[-1]
    m = n + abs(offset)
    d1, d2 = one_axis(dim1, x.ndim + 1), one_axis(dim2, x.ndim + 1)
    if d1 == d2:  # PyTorch's RuntimeError, in its words
        raise RefusedArgument(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    # the diagonal is every (m + 1)-th element of the flattened square, from (max(-offset, 0), max(offset, 0)):
    # a slice, so the values are assigned, bits and all (an index array would add them to zeros: -0.0 + 0.0)
    start = max(-offset, 0) * m + max(offset, 0)
    flat = index_add(x.shape[:-1] + (m * m,), (Ellipsis, slice(start, start + (m + 1) * n, m + 1)), x)
    return fresh_result(mf.moveaxis(mf.reshape(flat, x.shape[:-1] + (m, m)), (-2, -1), (d1, d2)), x)


def diagflat(input: Any, offset: int = 0) -> Tensor:  # noqa: A002
    """A 2-D matrix with ``input``, flattened, on its ``offset`` diagonal (``diagflat``)."""
    offset = number("diagflat", "offset", offset, "int")
    x = as_tensor(input)
    return fresh_result(mf.diag(mf.ravel(x), offset), x)  # (a view of the square diag fills: a new tensor)


def rot90(input: Any, k: int = 1, dims: Sequence[int] = (0, 1), *, axes: Any = None) -> Tensor:  # noqa: A002
    """Rotated by ``k`` quarter turns in the plane of ``dims`` (NumPy: ``axes``), from the first
    towards the second, as NumPy's and PyTorch's ``rot90``."""
    k = number("rot90", "k", k, "int")
    x = as_tensor(input)
    dims = tuple(axes if axes is not None else dims)
    if len(dims) != 2:  # each refusal PyTorch's RuntimeError, and the ValueError NumPy's is
        raise RefusedArgument(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:  # before the dims' range: PyTorch's first check
        raise RefusedArgument(f"expected total dims >= 2, but got total dims = {x.ndim}")
    a, b = (one_axis(d, x.ndim) for d in dims)
    if a == b:
        raise RefusedArgument(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 0:
        return mf.clone(x)
    if k == 2:
        return mf.flip(mf.flip(x, a), b)
    if k == 1:  # a transpose of the flipped copy: a new tensor, as PyTorch's (no view of anyone's)
        return fresh_result(mf.swapaxes(mf.flip(x, b), a, b), x)
    return mf.flip(mf.swapaxes(x, a, b), b)


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape (``torch.broadcast_tensors``, NumPy's
    ``broadcast_arrays``); the gradients sum back."""
    ts = _many("broadcast_tensors", tensors, none_ok=True)
    shape = broadcast_shapes("broadcast_tensors", *[t.shape for t in ts])
    return tuple(t if t.shape == shape else mf.broadcast_to(t, shape) for t in ts)


def _unflatten_shape_refusal(sizes: tuple[int, ...], n: int) -> str:
    """PyTorch's words where unflatten's sizes are no shape at all (its reshape's refusal)."""
    bad = next((i for i, s in enumerate(sizes) if s < -1), None)
    if bad is not None:
        return f"invalid shape dimension {sizes[bad]} at index {bad} of shape {list(sizes)}"
    if sizes.count(-1) > 1:
        return "only one dimension can be inferred"
    return (f"cannot reshape tensor of {n} elements into shape {list(sizes)} because the unspecified dimension "
            f"size -1 can be any value and is ambiguous")


def unflatten(input: Any, dim: int, sizes: Sequence[int]) -> Tensor:  # noqa: A002
    """Dim ``dim`` split into ``sizes`` (one may be -1), as ``torch.unflatten``."""
    x = as_tensor(input)
    if x.ndim == 0:  # PyTorch's RuntimeError: a 0-d tensor has no dim to split
        raise RefusedArgument("unflatten: a 0-d tensor has no dim to split")
    d = _one_dim("unflatten", x, dim)
    sizes = tuple(int(s) for s in sizes)
    known = int(host_numpy.prod([s for s in sizes if s != -1]))
    if not sizes:  # each refusal PyTorch's RuntimeError in its words, and NumPy's ValueError
        raise RefusedArgument("unflatten: sizes must be non-empty")
    if min(sizes) < -1 or sizes.count(-1) > 1 or (-1 in sizes and known == 0 == x.shape[d]):  # reshape's, as PyTorch's
        raise RefusedArgument(_unflatten_shape_refusal(sizes, x.shape[d]))
    if (-1 not in sizes and known != x.shape[d]) or (-1 in sizes and (known == 0 or x.shape[d] % known)):
        raise RefusedArgument(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                              f"({x.shape[d]}) in the input tensor")
    # -1 is this dim's length over the others' (not the whole tensor's: an empty tensor's would be ambiguous)
    sizes = tuple(x.shape[d] // known if s == -1 else s for s in sizes)
    return mf.reshape(x, x.shape[:d] + sizes + x.shape[d + 1:])


def movedim(input: Any, source: Any, destination: Any) -> Tensor:  # noqa: A002
    """Dims ``source`` moved to positions ``destination`` (PyTorch's name for ``moveaxis``); a 0-d
    tensor's dim 0 (or -1) moved there is itself, as PyTorch's."""
    x = as_tensor(input)
    if x.ndim == 0:
        src, dst = paired_axes(source, destination, 1, 1, "movedim: source and destination must have the same "
                               "number of elements")
        if len(src) > 1:  # 0 and -1 twice
            raise RefusedArgument(f"movedim: repeated dim in `source` ({source})")
        return mf.moveaxis(x, (), ())
    return mf.moveaxis(x, source, destination)


def narrow(input: Any, dim: int, start: Any, length: int) -> Tensor:  # noqa: A002
    """The ``length`` elements from ``start`` (negative: from the end) along ``dim``, as
    ``torch.narrow``; out of range is an error, never a shorter result."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise TooFewDims("narrow() cannot be applied to a 0-dim tensor.")
    d = _one_dim("narrow", x, dim)
    n = x.shape[d]
    if isinstance(start, Tensor) and (start.ndim or start.dtype.kind not in "iu"):  # (a bool one read as 0 or 1)
        raise RefusedArgument(f"narrow: start must be an 0-dim integral Tensor, got a {start.ndim}-D {start.dtype} one")
    s = int(start.item()) if isinstance(start, Tensor) else number("narrow", "start", start, "SymInt")
    length = number("narrow", "length", length, "SymInt")  # (a bool is PyTorch's TypeError)
    if length < 0:  # PyTorch's checks, in its order and words (each a RuntimeError and an IndexError)
        raise IndexOutOfBounds("narrow(): length must be non-negative.")
    if not -n <= s <= n:
        raise IndexOutOfBounds(f"start out of range (expected to be in range of [{-n}, {n}], but got {s})")
    s = s + n if s < 0 else s
    if s + length > n:
        raise IndexOutOfBounds(f"start ({s}) + length ({length}) exceeds dimension size ({n}).")
    return x[(slice(None),) * d + (slice(s, s + length),)]


def cartesian_prod(*tensors: Any) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row (``torch.cartesian_prod``;
    one tensor: itself)."""
    ts = _many("cartesian_prod", tensors)
    if any(t.ndim != 1 for t in ts):
        raise RefusedArgument(f"Expect a 1D vector, but got shape {[list(t.shape) for t in ts if t.ndim != 1][0]} "
                              f"(cartesian_prod takes 1-D tensors)")
    if len(ts) == 1:
        return ts[0]
    grids = mf.meshgrid(*ts, indexing="ij")
    return mf.stack([mf.ravel(g) for g in grids], axis=1)


def combinations(input: Any, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """The length-``r`` combinations of the 1-D ``input``'s elements, one per row, in order
    (``torch.combinations``, Python's ``itertools.combinations``); a gather, so differentiable."""
    x = as_tensor(input)
    if x.ndim != 1:
        raise RefusedArgument(f"Expect a 1D vector, but got shape {list(x.shape)} (combinations of a 1-D input)")
    if r < 0:
        raise RefusedArgument(f"Expect a non-negative number, but got {r} (combinations' r)")
    if r == 0:
        return x[:0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = host_numpy.array(list(pick(range(x.shape[0]), r)), dtype=host_numpy.int64).reshape(-1, r)
    return x[constant(idx, x)]


def tensor_split(input: Any, indices_or_sections: Any = None, dim: int = 0, *,  # noqa: A002
                 sections: Any = None, indices: Any = None) -> tuple[Tensor, ...]:
    """``torch.tensor_split`` (NumPy's ``array_split``): ``n`` pieces as equal as can be (the first
    ``len % n`` one longer), or the pieces between the listed split points, along ``dim``.
    PyTorch's other spellings name the one argument ``sections=`` or ``indices=``."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise TooFewDims("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _one_dim("tensor_split", x, dim)
    given = [a for a in (indices_or_sections, sections, indices) if a is not None]
    if len(given) != 1:
        raise TypeError("tensor_split: pass one of indices_or_sections, sections= and indices=")
    ios = given[0]
    if isinstance(ios, Tensor):
        if ios.dtype != host_numpy.int64:  # PyTorch's checks, in its order: int64 alone, then 0-d or 1-D
            raise WrongTensorKind(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                                  f"{scalar_type_name(ios.dtype)}")
        if ios.ndim > 1:
            raise WrongTensorKind(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                                  f"one-dimensional tensor, but got a tensor with {ios.ndim} dims")
        ios = ios.tolist()
    return tuple(namespace.array_split(x, ios, d))


def _split_along(name: str, axis: int, min_ndim: int) -> Any:
    def fn(input: Any, indices_or_sections: Any, *more_indices: Any) -> tuple[Tensor, ...]:  # noqa: A002
        x = as_tensor(input)
        if x.ndim < min_ndim:
            raise TooFewDims(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                             f"with {x.ndim} dimensions!")
        ax = 0 if name == "hsplit" and x.ndim == 1 else axis
        # PyTorch's x.hsplit(1, 2): the split points as separate arguments
        ios = [indices_or_sections, *more_indices] if more_indices else indices_or_sections
        if isinstance(ios, Tensor) and ios.ndim == 0:  # a count, as PyTorch's int (a 1-D one: split points)
            ios = number(name, "sections", ios, "int")
        if isinstance(ios, (int, host_numpy.integer)):  # PyTorch's checks and words (a count of 0 divides nothing)
            if int(ios) == 0 or x.shape[ax] % int(ios):
                raise RefusedArgument(f"torch.{name} attempted to split along dimension {ax}, but the size of the "
                                      f"dimension {x.shape[ax]} is not divisible by the split_size {ios}!")
            if ios < 0:
                raise RefusedArgument(f"number of sections must be larger than 0, got {ios}")
        return tuple(mf.split(x, list(ios) if isinstance(ios, (list, tuple)) else ios, ax))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Split into equal pieces (or at the listed points) along dim {axis}"
                  f"{' (dim 0 for 1-D)' if name == 'hsplit' else ''}, as NumPy's and PyTorch's ``{name}``.")
    return fn


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


def unfold_method(x: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """PyTorch's ``x.unfold(dimension, size, step)``: the windows of ``size`` every ``step`` along
    ``dimension``, that dim becoming the window count and a new last dim the window -- a view of
    ``x``, as PyTorch's (``x.unfold(0, 400, 160)`` frames a signal without copying it)."""
    d = _one_dim("unfold", x, dimension)
    n = (x.shape or (1,))[d]
    if size > n:  # PyTorch's RuntimeErrors, in its order and words (and the ValueError NumPy's would be)
        raise RefusedArgument(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RefusedArgument(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RefusedArgument(f"step is {step} but must be > 0")
    if x.ndim == 0:  # PyTorch's: the one element's window, (1,) or (0,) -- no window-count dim
        return mf.reshape(x, (1,))[:size]
    return apply(_sh.Unfold(dim=d, size=int(size), step=int(step), in_shape=x.shape), x)


def _triangle(name: str, args: tuple, kwargs: dict) -> Any:
    """NumPy's ``(n, k=0, m=None)`` -> a tuple of index tensors, or PyTorch's ``(row, col, offset=0)``
    -> one (2, N) int64 tensor.  Two or more positional arguments could mean either, so they
    must be named (``col=``/``offset=`` or ``k=``/``m=``) -- unless a keyword only PyTorch's has
    (``dtype=``, ``device=``, ``layout=``, ``pin_memory=``) says which: ``triu_indices(3, 4, 1, dtype=mg.int32)``."""
    factory_words = {"dtype", "device", "layout", "pin_memory"}
    torch_words, numpy_words = {"row", "col", "offset"} | factory_words, {"n", "k", "m"}
    if kwargs.keys() - torch_words - numpy_words:
        raise TypeError(f"{name}: unexpected keywords {sorted(kwargs.keys() - torch_words - numpy_words)}")
    torch_spelling = bool(kwargs.keys() & torch_words)
    if torch_spelling and kwargs.keys() & numpy_words:
        raise TypeError(f"{name}: mixes PyTorch's keywords (row, col, offset) with NumPy's (n, k, m)")
    if len(args) > 1 and kwargs.keys() & factory_words:
        positional = dict(zip(("row", "col", "offset"), args))
        if len(args) > 3 or kwargs.keys() & positional.keys():
            raise TypeError(f"{name}() takes at most 3 positional arguments (row, col, offset), each given once")
        kwargs, args = {**kwargs, **positional}, ()
    if len(args) > 1:
        raise TypeError(f"{name}: {name}(3, 3) means (n=3, k=3) in NumPy and (row=3, col=3) in PyTorch; name "
                        f"the arguments: {name}(3, col=3, offset=0) gives PyTorch's (2, N) tensor, {name}(3, k=0, "
                        f"m=3) NumPy's pair")
    device = kwargs.get("device")
    check_layout(name, kwargs.get("layout"))
    if torch_spelling:
        if "col" not in kwargs:
            raise TypeError(f"{name}: PyTorch's form needs col= (the number of columns)")
        row = args[0] if args else kwargs["row"]
        if row < 0 or kwargs["col"] < 0:
            raise RuntimeError(f"{name}: row and col must be non-negative, got row={row}, col={kwargs['col']}")
        rows, cols = host_numpy.tril_indices(row, kwargs.get("offset", 0), kwargs["col"]) if name == "tril_indices" \
            else host_numpy.triu_indices(row, kwargs.get("offset", 0), kwargs["col"])
        dtype = kwargs.get("dtype") or "int64"
        made = Tensor._from_data(host_numpy.stack([rows, cols]), dtype=dtype, device=device)
        return pinned_as_asked(name, made, kwargs.get("pin_memory"))
    n = args[0] if args else kwargs["n"]
    fn = host_numpy.tril_indices if name == "tril_indices" else host_numpy.triu_indices
    pair = fn(n, kwargs.get("k", 0), kwargs.get("m"))
    return tuple(Tensor._from_data(a.astype(host_numpy.int64), device=device) for a in pair)


def tril_indices(*args: Any, **kwargs: Any) -> Any:
    """The indices of a lower triangle.  NumPy's ``tril_indices(n, k=0, m=None)``: a tuple
    (rows, cols); PyTorch's ``tril_indices(row, col=..., offset=0)``: one (2, N) int64 tensor.
    ``tril_indices(3, 3)`` would mean different things, so name the second argument."""
    return _triangle("tril_indices", args, kwargs)


def triu_indices(*args: Any, **kwargs: Any) -> Any:
    """The indices of an upper triangle: NumPy's ``triu_indices(n, k=0, m=None)`` (a tuple) or
    PyTorch's ``triu_indices(row, col=..., offset=0)`` (a (2, N) tensor); see :func:`tril_indices`."""
    return _triangle("triu_indices", args, kwargs)
