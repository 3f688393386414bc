"""``vmap``: a function of one example, run over a batch (``torch.func.vmap``'s meaning).

    per_example_grads = mg.func.vmap(mg.func.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)

``vmap(f, in_dims, out_dims)(*args)`` is ``f`` applied to each slice of the
arguments along their mapped dimension, the results stacked along
``out_dims``.  Here that is literally what happens: ``f`` runs once per batch
element on a slice (a view, ``x.select(d, i)``) and the outputs are stacked --
PyTorch's own *fallback* for ops without a batching rule, used for every op.
The slices and the stack are ordinary recorded ops, so ``vmap`` composes with
every transform (``grad(vmap(f))``, ``vmap(jvp(...))``, ``jacrev(vmap(f))``)
and with ``.backward()``, at the cost of ``B`` Python calls of ``f``.

Where the loop answers and PyTorch's batching raises: ``.item()`` and
data-dependent control flow work (each call sees one example).  An in-place
write into a tensor ``f`` closes over is refused where the loop would get it
wrong (:mod:`.vmap_writes`): a batched value (``buffer.add_(x)``, a
BatchNorm's running statistics in training mode), refused by PyTorch too,
and an update that reads the old value (``counter.add_(1)``), which PyTorch
makes once for the batch.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from typing import Any

from .. import functional as _F
from ..backend import host_numpy
from ..random import draws_made, rewind, watching_draws
from ..tensor import Tensor
from .pytree import flatten, unflatten
from .transforms import RANDOM_DRAW_REFUSED, check_chunk_size
from .vmap_writes import BatchScope

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


class BoolInDim(TypeError, ValueError):
    """A bool where ``in_dims`` wants an int or None (``in_dims=True``): PyTorch's ``TypeError``
    (its ``size()`` refuses a bool dim), and the ``ValueError`` of an in_dims of the wrong type here
    (and PyTorch's, where ``True`` is past a 1-D input's dims)."""


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """``func`` vectorised over a batch dimension of its arguments.

    ``in_dims``: an int (every tensor argument is mapped over that dimension)
    or a tuple with one entry per positional argument, each an int, ``None``
    (not mapped: passed whole to every call) or a pytree of those matching
    that argument's structure.  ``out_dims`` likewise for the outputs: where
    the batch dimension goes in each (``None``: the output does not depend on
    the batch, returned once).  Keyword arguments are passed whole.
    ``randomness``: ``"error"`` refuses random draws inside ``func`` (PyTorch's
    default), ``"different"`` gives each example its own draws, ``"same"`` the
    same draws for every example.  ``chunk_size`` is PyTorch's memory knob;
    the loop runs one example at a time anyway, so it changes nothing but is
    checked as PyTorch checks it.
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")
    check_chunk_size(chunk_size, f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = getattr(func, "__name__", type(func).__name__)

    @functools.wraps(func)
    def batched(*args: Any, **kwargs: Any) -> Any:
        where = f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             f"trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, tree = flatten(args)
        dims = _leaf_dims(in_dims, args, where)
        size = _batch_size(leaves, dims, where)
        slices = [_slicer(leaf, d) for leaf, d in zip(leaves, dims)]
        calls = _Calls(func, tree, slices, kwargs, randomness)
        with BatchScope([leaf for leaf, d in zip(leaves, dims) if d is not None], randomness):
            if size == 0:
                outs = [calls.run_empty(leaves, dims)]
            else:
                outs = [calls.run(i) for i in range(size)]
        return _stack_outputs(outs, out_dims, name, size)

    return batched


# ---------------------------------------------------------------------------
# in_dims and out_dims: an int/None, or a pytree prefix of the values' structure
# ---------------------------------------------------------------------------
def _leaf_dims(in_dims: Any, args: tuple, where: str) -> list[int | None]:
    """One mapped dimension (or None) per leaf of ``args``, in :func:`flatten`'s order."""
    if isinstance(in_dims, int) and not isinstance(in_dims, bool):
        return _expand(in_dims, args, where, "in_dims")
    if isinstance(in_dims, bool) or isinstance(in_dims, tuple) and any(map(_is_bool, flatten(in_dims)[0])):
        raise BoolInDim(f"{where}: in_dims holds a bool; each mapped dim must be an int, or None for an "
                        f"input that is not mapped (got {in_dims!r})")
    if not isinstance(in_dims, tuple):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching "
                         f"the structure of inputs, got: {type(in_dims)}.")
    return _expand(in_dims, args, where, "in_dims")


def _is_bool(dim: Any) -> bool:
    return isinstance(dim, bool)


def _expand(dims: Any, value: Any, where: str, what: str) -> list[int | None]:
    """``dims`` (a prefix of ``value``'s structure) read out to one entry per leaf of ``value``."""
    if dims is None or (isinstance(dims, int) and not isinstance(dims, bool)):
        if value is None and dims is not None:  # PyTorch's pytrees hold None as a leaf: not a Tensor
            raise ValueError(_not_tensor(where, what, dims, value))
        children = value.values() if isinstance(value, dict) else value
        if isinstance(value, (tuple, list, dict, deque)):  # (pytree.flatten's containers)
            return [d for v in children for d in _expand(dims, v, where, what)]
        return [] if value is None else [dims]
    kind = type(dims)
    if isinstance(dims, (tuple, list)) and type(value) is kind or (
            isinstance(dims, tuple) and isinstance(value, tuple) and hasattr(value, "_fields")):
        if len(dims) == len(value):
            return [d for sub_d, sub_v in zip(dims, value) for d in _expand(sub_d, sub_v, where, what)]
    elif isinstance(dims, dict) and isinstance(value, dict) and list(dims) == list(value):
        return [d for k in value for d in _expand(dims[k], value[k], where, what)]
    elif not isinstance(dims, (tuple, list, dict)):
        raise ValueError(_wrong_type(where, what, dims))
    raise ValueError(f"{where}: {what} is not compatible with the structure of "
                     f"`{'inputs' if what == 'in_dims' else 'outputs'}`: {what} is {dims!r}")


def _wrong_type(where: str, what: str, dims: Any) -> str:
    """PyTorch's words for an in_dims or out_dims (or an entry of one) that is not an int, None or a container."""
    if what == "in_dims":
        return (f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the structure of "
                f"inputs, got: {type(dims)}.")
    return (f"{where}: `out_dims` must be an int, None or a python collection of ints representing where in the "
            f"outputs the vmapped dimension should appear.")


def _not_tensor(where: str, what: str, dim: int, value: Any) -> str:
    if what == "in_dims":
        return (f"{where}: Got in_dim={dim} for an input but the input is of type {type(value)}. We cannot "
                f"vmap over non-Tensor arguments, please use None as the respective in_dim")
    return (f"{where}: must only return Tensors, got type {type(value)}. Did you mean to set out_dims= to "
            f"None for output?")


def _batch_size(leaves: list[Any], dims: list[int | None], where: str) -> int:
    sizes = []
    for leaf, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(_not_tensor(where, "in_dims", d, leaf))
        if not -leaf.ndim <= d < leaf.ndim:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                             f"dimensionality {leaf.ndim} so expected in_dim to satisfy "
                             f"-{leaf.ndim} <= in_dim < {leaf.ndim}.")
        sizes.append(leaf.shape[d])
    if not sizes:
        raise ValueError(f"{where}: Expected at least one Tensor to vmap over (an input that is a Tensor, with "
                         f"an in_dim that is not None): there is no batch to map over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got "
                         f"sizes {sizes} for the mapped dimension")
    return sizes[0]


def _slicer(leaf: Any, dim: int | None) -> Callable[[int], Any]:
    """Example ``i`` of ``leaf``: the slice at ``i`` along ``dim`` (a view), or ``leaf`` itself."""
    if dim is None:
        return lambda i: leaf
    index = (slice(None),) * (dim % leaf.ndim)
    return lambda i: leaf[index + (i,)]


# ---------------------------------------------------------------------------
# The calls, and the random generator under each randomness mode
# ---------------------------------------------------------------------------
class _Calls:
    """``func`` on example ``i``: its output leaves and structure."""

    def __init__(self, func: Callable, tree: Any, slices: list, kwargs: dict, randomness: str) -> None:
        self.func, self.tree, self.slices, self.kwargs = func, tree, slices, kwargs
        self.randomness = randomness
        # "same": where each generator the calls drew from stood before its first draw -- the
        # engine's and any handed to a sampling function (``mg.rand(3, generator=g)``), as
        # PyTorch's one unbatched draw takes from either -- and every call starts from there
        self.starts: dict[Any, int] = {}

    def _call(self, leaves: list[Any]) -> tuple[list[Any], Any]:
        if self.randomness == "same":
            rewind(self.starts)
        drawn = draws_made()
        with watching_draws() as started:
            try:
                result = self.func(*unflatten(self.tree, leaves), **self.kwargs)
            except Exception:  # PyTorch refuses a draw when it is made: before whatever failed after it
                self._refuse_draws(drawn, started)
                raise
        self._refuse_draws(drawn, started)
        for generator, counter in started.items():
            self.starts.setdefault(generator, counter)
        return flatten(result) + (result,)

    def _refuse_draws(self, drawn: int, started: dict) -> None:
        """Under ``randomness="error"``, the refusal of any draw the call made (``drawn``: the count
        of draws before it), as if the draw had been refused before it happened."""
        if self.randomness == "error" and draws_made() != drawn:
            rewind(started)
            raise RuntimeError(RANDOM_DRAW_REFUSED)

    def run(self, i: int) -> tuple:
        return self._call([s(i) for s in self.slices])

    def run_empty(self, leaves: list[Any], dims: list[int | None]) -> tuple:
        """An empty batch: one call on a stand-in example, for the outputs' structure, shapes and dtypes.

        PyTorch runs the ops on the empty batch itself, so no value is ever seen; here ``func``
        sees one example, and the stand-ins are tried in turn until one is taken (see
        :func:`_example`): zeros; the identity in the last two dimensions (``linalg.inv``,
        ``cholesky``, ``solve`` refuse a singular matrix); a generic example (``tensorinv``
        reshapes the identity into a singular matrix, LAPACK pivots count from 1).  If every
        one is refused, the refusal of zeros is raised.
        """
        refusal = None
        for kind in _STAND_INS:
            try:
                with watching_draws() as started:
                    return self._call([leaf if d is None else _example(leaf, d, kind)
                                       for leaf, d in zip(leaves, dims)])
            except Exception as refused:
                rewind(started)  # a refused stand-in's draws are not the batch's
                refusal = refusal or refused
        raise refusal


_STAND_INS = ("zeros", "identity", "generic")


def _example(leaf: Tensor, dim: int, kind: str = "zeros") -> Tensor:
    """A stand-in for example 0 of an empty batch, on ``leaf``'s tape -- the sum over the empty
    dimension plus a constant -- so that the outputs require grad where PyTorch's would.

    ``kind``: ``"zeros"``; ``"identity"``, ones on the diagonal of the last two dimensions (a
    ``(3, 5)`` stand-in has full rank too); ``"generic"``, values drawn from a fixed private
    generator (never the engine's: the batch's draws stay the batch's), which no reshaping makes
    singular, and integers counting 1, 2, ... along the last dimension: a pivot vector that swaps
    nothing (LAPACK's count from 1, so zeros are no pivots).  Integer leaves are zeros otherwise.
    """
    ax = dim % leaf.ndim
    shape = leaf.shape[:ax] + leaf.shape[ax + 1:]
    xp = leaf.device.xp
    if leaf.dtype.kind not in "fc":
        ints = xp.zeros(shape, dtype=leaf.dtype)
        if kind == "generic" and shape:
            ints = ints + xp.arange(1, shape[-1] + 1, dtype=leaf.dtype)
        return Tensor._wrap(ints, None, leaf.device)
    zeros = leaf.sum(dim)
    if kind == "zeros":
        return zeros
    if kind == "identity":
        if zeros.ndim < 2:
            return zeros + 1
        return zeros + _F.eye(*zeros.shape[-2:], dtype=zeros.dtype, device=zeros.device)
    values = host_numpy.random.default_rng(0).standard_normal(shape).astype(leaf.dtype)
    return zeros + Tensor._wrap(xp.asarray(values), None, leaf.device)


# ---------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------
def _stack_outputs(outs: list[tuple], out_dims: Any, name: str, size: int) -> Any:
    leaves0, tree, result0 = outs[0]
    where = f"vmap({name}, ..., out_dims={out_dims!r})(<inputs>)"
    if not isinstance(out_dims, (int, tuple, list, dict, type(None))) or isinstance(out_dims, bool):
        raise ValueError(_wrong_type(where, "out_dims", out_dims))
    if result0 is None and out_dims is not None:
        raise ValueError(_not_tensor(f"vmap({name}, ...)", "out_dims", 0, None))
    if isinstance(result0, Tensor) and type(out_dims) is tuple and len(out_dims) == 1:
        out_dims = out_dims[0]  # one tensor returned, its out_dims in a 1-tuple: PyTorch takes it too
    dims = _expand(out_dims, result0, where, "out_dims")
    stacked = []
    for k, d in enumerate(dims):
        column = [o[0][k] for o in outs]
        if d is None:
            stacked.append(_unbatched(column, name))
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(_not_tensor(f"vmap({name}, ...)", "out_dims", d, column[0]))
        stacked.append(_stack(column, d, size, where))
    return unflatten(tree, stacked)


def _check_one_shape(column: list[Tensor], where: str) -> None:
    """Refuse examples whose outputs differ in shape (a boolean mask's selection, ``nonzero``): one
    batched tensor has one shape. PyTorch refuses such ops under vmap whatever the values; this loop
    finds it out when two examples differ, and says so in vmap's words, not ``stack``'s."""
    shape = column[0].shape
    for i, out in enumerate(column):
        if out.shape != shape:
            raise RuntimeError(f"{where}: the output has shape {tuple(shape)} for example 0 and "
                               f"{tuple(out.shape)} for example {i}: vmap returns one batched tensor, so "
                               f"every example's output needs one shape (an op whose output shape depends "
                               f"on the values, such as a boolean mask's selection or nonzero, cannot be "
                               f"batched; PyTorch refuses it too)")


def _stack(column: list[Tensor], dim: int, size: int, where: str) -> Tensor:
    """The examples' outputs stacked along ``dim``: batch-first in memory, and ``dim`` a view that
    moves the batch there -- PyTorch's layout (its batched tensor keeps the batch outermost and
    ``out_dims`` moves it), so strides, ``is_contiguous`` and which ``view`` calls work agree:
    ``vmap(f, out_dims=1)(x)[:, 0]`` is contiguous there, and here."""
    ndim = column[0].ndim + 1
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                         f"but got {dim})")
    if size == 0:  # the stand-in example's output, cut to none: its history kept (run_empty)
        stacked = column[0].unsqueeze(0)[0:0]
    else:
        _check_one_shape(column, where)
        stacked = _F.stack(column, axis=0)
    return stacked if dim % ndim == 0 else stacked.movedim(0, dim % ndim)


def _unbatched(column: list[Any], name: str) -> Any:
    """An output with out_dim None: the same in every call (else it depends on the batch: refused)."""
    first = column[0]
    if isinstance(first, Tensor):
        a, xp = first._data, first.device.xp
        for other in column[1:]:
            b = other._data if isinstance(other, Tensor) else None
            if b is None or b.shape != a.shape or not xp.scalar(((a == b) | ((a != a) & (b != b))).all()):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is "
                                 f"None (this output differs between the examples)")
    return first
