"""Tensor: a handle on one array, plus what autograd needs to know about it.

A Tensor holds (the underscored fields are the engine's business: layers
above the tape use the public API below, never the fields)

``_data``           the backing array (NumPy on the CPU, CuPy on a GPU): ``data``
``_device``         the :class:`~minigrad_ckpt.backend.Device` it lives on: ``device``
``_requires_grad``  whether gradients flow to it: ``requires_grad``
``_node``           the tape node that produced it (``None`` for a leaf): ``grad_fn``
``_version_box``    a one-element list holding its *version stamp* (see
                    :data:`_seq`), shared with its views, restamped by every
                    in-place change -- so a value saved for backward cannot
                    change silently (``_version``: the stamp, an int, PyTorch's name)
``grad``            the accumulated gradient (a Tensor) after ``backward``
``_tangents``       forward mode (:mod:`minigrad_ckpt.func`): ``{level: tangent}``
                    for the ``mg.func.jvp`` calls this tensor takes part in

What outer layers (``nn``, ``optim``, ``checkpoint``, ``snapshot``) need:

* :meth:`Tensor.constant` -- wrap an array (no copy) as a constant on a device;
* the in-place API (``add_``, ``sub_``, ``mul_``, ``div_``, ``copy_``,
  ``fill_``, ``zero_``, ``__setitem__``) -- under ``mg.no_grad()`` it updates
  even a tensor that requires grad (an optimizer step, a running statistic),
  and it always restamps the version;
* :meth:`Tensor.set_` -- let a tensor hold another tensor's array (any dtype or
  device) while keeping its identity (``Module.to``);
* :meth:`Tensor.version` -- the current stamp, to tell later whether a tensor
  changed; :meth:`Tensor.increment_version` -- restamp after a write the engine
  could not see (MPI filling the array, a DLPack consumer, ``.data``), and
  :meth:`Tensor.prepare_write` before it (an asynchronous snapshot may still
  need the old values: every in-place method calls the *write guard* first).

This module knows nothing of the layers above it (the tape, the ops, the
public math).  Tensor's math methods and operators (``x + y``, ``x.sum()``),
``backward`` and the device/dtype conversions (``x.to("cuda")``) are sugar over
those layers, so they are installed from above, in one place:
:mod:`minigrad_ckpt.functional.public_names` (the package's one binding point).

Also here, because ``__setitem__`` needs it and indexing ops reuse it:
:func:`normalize_index`, which turns a user's index into plain data.
"""

from __future__ import annotations

import builtins
import copy
import functools
import itertools
import math
import operator
import os
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from numbers import Number
from typing import Any

from .backend import (
    HALF,
    BroadcastMismatch,
    Device,
    MetaArray,
    as_dtype,
    broadcast_refusal,
    canonical_array,
    castable_in_place,
    cpp_type_name,
    cpu,
    device_of,
    expand_mismatch,
    fill_scalar,
    get_default_dtype,
    get_device,
    host_numpy,
    is_array,
    is_floating,
    laid_out,
    layout_axes,
    number_beside_half,
    numpy_namespace,
    overflow_words,
    python_number,
    refuse_alpha,
    to_array,
    to_host,
    wrapped_int,
)
from .deprecated_signatures import UNSET, other_and_alpha
from .grad_mode import forward_mode as _forward
from .grad_mode import state as _grad_state
from .printing import format_array
from .user_frame import stacklevel_outside_the_engine

__all__ = ["Tensor", "normalize_index", "number", "numbers", "check_tensor_number"]

#: The engine's one clock.  Every recorded node takes its ``seq`` from it, and
#: every in-place change stamps the changed tensor's version with it.  So a
#: tensor's version is not a count of changes but a *stamp*: the sequence number
#: of its latest change (0: never changed).  A node saved a value intact iff the
#: value's stamp is older than the node (``stamp < node.seq``), so a node keeps
#: only references to the version boxes, never copies of the versions.
_seq = itertools.count(1)


class _HookHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook (twice is harmless), and as a
    context manager (``with t.register_hook(fn): ...``) it removes the hook on exit, as PyTorch's
    ``RemovableHandle``.  It removes its own registration, found by the token it was given (``id``),
    not by the function: one function registered twice is two hooks, each handle taking off its own."""

    def __init__(self, hooks: HookList, token: int) -> None:
        self._hooks = hooks
        self.id = token

    def remove(self) -> None:
        self._hooks.discard(self.id)

    def __enter__(self) -> _HookHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _HookHandles:
    """One handle for hooks registered together (``remove()`` takes off all of them; a context manager
    too): ``register_multi_grad_hook``'s, and the two parts of an ``AccumulateGrad`` hook."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self) -> _HookHandles:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def hook_rank(hook: Callable) -> int:
    """Where a gradient hook runs among a tensor's, as PyTorch orders them: the tensor's own hooks
    (``register_hook``, 0), then ``retain_grad``'s (1), then its node's pre-hooks
    (``grad_fn.register_prehook``, 2), each kind in registration order."""
    return getattr(type(hook), "hook_rank", 0)


def ranked_place(hooks: list, fn: Callable) -> int:
    """Where ``fn`` goes among ``hooks`` (kept in :func:`hook_rank` order, each rank in registration
    order): after the last hook of its rank or an earlier one.  Found from the end -- the hooks of a later
    rank are a short tail (a ``retain_grad``, a pre-hook), if any -- so registering n hooks on one tensor
    costs O(n) in all, not O(n^2) (10^4 hooks on one leaf took 16 s)."""
    rank, i = hook_rank(fn), len(hooks)
    while i and hook_rank(hooks[i - 1]) > rank:
        i -= 1
    return i


#: Registration tokens: each hook added to a :class:`HookList` gets the next (its handle's ``id``).
_hook_tokens = itertools.count()

#: How far from the end :meth:`HookList.discard` looks, one entry at a time, before one scan in C: the
#: newest hooks are there (nested ``with`` blocks, handles removed newest first), behind a short tail of
#: later-ranked ones (a ``retain_grad``, a pre-hook) at most.
_NEAR_THE_END = 4


class HookList(list):
    """Hooks in the order they run -- to the backward loop, which only iterates it, a plain list of
    callables -- with each one's registration token at the same place in ``tokens``.

    A handle removes the entry holding its token, so one function registered twice is two
    registrations, each removed by its own handle (PyTorch keeps hooks in a dict keyed by the
    handle's id).  Change it only through these methods, which keep ``tokens`` in step."""

    __slots__ = ("tokens",)

    def __init__(self, hooks: Any = ()) -> None:
        super().__init__(hooks)
        self.tokens = [next(_hook_tokens) for _ in range(len(self))]

    def place(self, fn: Callable) -> int:
        return ranked_place(self, fn)

    def add(self, fn: Callable, i: int | None = None) -> int:
        """Put ``fn`` at ``i`` (by default its :meth:`place`); the token its handle removes it by."""
        token = next(_hook_tokens)
        if i is None:
            i = self.place(fn)
        list.insert(self, i, fn)
        self.tokens.insert(i, token)
        return token

    def discard(self, token: int) -> None:
        """Take off the hook registered with ``token``; nothing if it is gone (removed, or cleared)."""
        tokens = self.tokens
        n = len(tokens)
        for i in range(n - 1, max(n - 1 - _NEAR_THE_END, -1), -1):  # newest first: found here, no scan
            if tokens[i] == token:  # (a scan each made removing 10^4 hooks take 2.5 s)
                break
        else:
            try:
                i = tokens.index(token)  # further in: one scan, in C
            except ValueError:
                return
        self._delete(i)

    def subset(self, keep: Callable[[Callable], bool]) -> HookList | None:
        """A new list of the hooks ``keep`` accepts, with their tokens (None if none)."""
        out = type(self)()
        for fn, token in zip(self, self.tokens):
            if keep(fn):
                list.append(out, fn)
                out.tokens.append(token)
        return out or None

    def _delete(self, i: int) -> Callable:
        del self.tokens[i]
        return list.pop(self, i)

    # list's own changes, kept in step with the tokens (nothing in the engine needs more of them)
    def append(self, fn: Callable) -> None:
        self.add(fn, len(self))

    def insert(self, i: int, fn: Callable) -> None:
        self.add(fn, i)

    def remove(self, fn: Callable) -> None:
        self._delete(self.index(fn))

    def pop(self, i: int = -1) -> Callable:
        return self._delete(i)

    def clear(self) -> None:
        super().clear()
        self.tokens.clear()


class CountedHooks(HookList):
    """A list of hooks that keeps ``count[0]`` -- how many lists of its kind are not empty -- current
    (the first hook added, the last removed, cleared, or the list dying with hooks in it), so that
    the backward loop can skip looking for such hooks while the count is 0."""

    count: list[int]  # each kind's own counter (a one-element list, read by the backward loop)

    def add(self, fn: Callable, i: int | None = None) -> int:
        if not self:
            self.count[0] += 1
        return super().add(fn, i)

    def _delete(self, i: int) -> Callable:
        fn = super()._delete(i)
        if not self:
            self.count[0] -= 1
        return fn

    def clear(self) -> None:
        if self:
            self.count[0] -= 1
        super().clear()

    def __del__(self) -> None:
        if self:
            self.count[0] -= 1


#: How many live tensors have post-accumulate-grad hooks: the backward loop
#: (tape.py) counts leaf edges only while this is non-zero.
post_hook_count = [0]


class _PostHooks(CountedHooks):
    """A leaf's post-accumulate-grad hooks (keeps :data:`post_hook_count` current), placed by rank as
    tensor hooks are: an AccumulateGrad hook runs after every post-accumulate hook."""

    count = post_hook_count


#: Called with a tensor just before an in-place write into its array (``None``, the usual
#: case: nobody needs to know).  An asynchronous snapshot that still holds references to
#: arrays it has not copied yet adds a guard (:mod:`minigrad_ckpt.snapshot.copy_on_write`):
#: it copies the values the write would change first; planning adds one that undoes the
#: profiling run's writes (:func:`minigrad_ckpt.no_trace.leaving_no_trace`).  With
#: one guard this *is* that guard, with several a function calling each: a write pays one test.
_write_guard: Callable[[Tensor], None] | None = None

#: Elements of :meth:`Tensor._sub_scaled_`'s scratch array: 128 KiB of float32, which stays in the cache.
_SCRATCH_SIZE = 1 << 15
_scratch_arrays = threading.local()  # per thread: two threads' optimizers must not share one


def _scratch(dtype: Any) -> Any:
    """This thread's scratch array of ``dtype`` (one per dtype, made on first use, kept)."""
    arrays = getattr(_scratch_arrays, "by_dtype", None)
    if arrays is None:
        arrays = _scratch_arrays.by_dtype = {}
    arr = arrays.get(dtype)
    if arr is None:
        arr = arrays[dtype] = host_numpy.empty(_SCRATCH_SIZE, dtype=dtype)
    return arr


#: Bytes of each array that :func:`update_in_chunks` hands its rule at a time: the rule's temporaries
#: (as large) stay under glibc's 128 KiB mmap threshold, so they come from the heap's free lists, not
#: fresh pages, and the chunk's arrays stay in the cache between the rule's passes.
_CHUNK_BYTES = 1 << 16
#: ... and the smallest array it takes in chunks: below, a few chunks cost more in calls than they
#: save (256x256 float32 Adam steps: 1.9 against 1.7 ms whole).
_CHUNKED_FROM_PIECES = 16
_CHUNKED_DTYPES = (host_numpy.dtype(host_numpy.float32), host_numpy.dtype(host_numpy.float64))


def large_enough_for_chunks(t: Tensor) -> bool:
    """Whether ``t``'s array is large enough for :func:`update_in_chunks` to take it (a check its callers
    make first, before building a rule they would not need)."""
    return t._data.nbytes >= _CHUNKED_FROM_PIECES * _CHUNK_BYTES


def update_in_chunks(rule: Callable[..., None], written: Sequence[Tensor], read: Sequence[Any]) -> bool:
    """An elementwise in-place update of large CPU tensors, a 64 KiB piece of each at a time (an
    optimizer's step: ``Optimizer.piecewise_rule``).

    ``rule(*written_arrays, *read_arrays)`` updates the arrays of ``written`` in place and is called
    once per piece, with same-position flat slices of every array; each tensor in ``written`` is
    checked and guarded as any in-place write and restamped once after (also when ``rule`` raises
    part-way: the pieces before are written, and stay so).  Why: a rule written on whole arrays
    (``m += (1 - b1) * (g - m)``, ...) makes temporaries of the arrays' size, which glibc serves from
    fresh pages -- Adam with weight decay over twelve 2048x512 float32 weights took 153 ms, a piece at a
    time 61.  Every operation being elementwise, the values are the same (a NaN's sign aside: NumPy's
    loops may pick either of two NaNs meeting in a sum).  False, having done nothing, where that does
    not apply: not plain NumPy arrays of one shape, float32 or float64 (float16 steps compute in
    float32) and C-contiguous, arrays overlapping, under forward mode or grad mode, or smaller than
    :data:`_CHUNKED_FROM_PIECES` pieces -- the caller then runs its rule on the whole arrays."""
    first = written[0]._data
    if (first.__class__ is not host_numpy.ndarray or not large_enough_for_chunks(written[0])
            or _forward.active or _grad_state.enabled or first.dtype not in _CHUNKED_DTYPES):
        return False
    arrays = [t._data for t in written] + list(read)
    if any(a.__class__ is not host_numpy.ndarray or a.shape != first.shape or a.dtype != first.dtype
           or not a.flags.c_contiguous for a in arrays):
        return False
    if any(host_numpy.may_share_memory(a, b) for i, a in enumerate(arrays[:len(written)]) for b in arrays[i + 1:]):
        return False  # (an element written through one array and read at another offset of another)
    for t in written:
        t._check_write("step")
        if _write_guard is not None:
            _write_guard(t)
    flats = [a.reshape(-1) for a in arrays]
    n = _CHUNK_BYTES // first.itemsize
    try:
        for start in range(0, first.size, n):
            rule(*[f[start:start + n] for f in flats])
    finally:  # (a rule raising half-way -- a Ctrl-C between pieces -- has written the pieces before it)
        for t in written:
            t._bump_version()
    return True


_guards: list[Callable[[Tensor], None]] = []  # in the order they were added
# Guards come and go on other threads (a snapshot's writer), and from finalizers: a checkpoint
# segment's ``__del__`` removes its guard, and the garbage collector may run it while this very
# thread holds the lock (an allocation inside add_write_guard) -- so it is re-entrant.
_guards_lock = threading.RLock()


def add_write_guard(guard: Callable[[Tensor], None]) -> None:
    """Call ``guard(t)`` before every in-place write into a tensor ``t``, until
    :func:`remove_write_guard`; the guards already there keep being called, first."""
    with _guards_lock:
        _guards.append(guard)
        _install_guards()


def remove_write_guard(guard: Callable[[Tensor], None]) -> None:
    """Stop calling ``guard`` (added by :func:`add_write_guard`; a no-op if it is not there)."""
    with _guards_lock:
        if guard in _guards:  # by equality: a bound method is a new object each time it is read
            _guards.remove(guard)
        _install_guards()


def _install_guards() -> None:
    global _write_guard
    guards = tuple(_guards)
    if len(guards) <= 1:
        _write_guard = guards[0] if guards else None
        return

    def every_guard(t: Tensor) -> None:
        for g in guards:
            g(t)

    _write_guard = every_guard


def _guards_in_child() -> None:
    # a forked child has no other threads: a lock one of them held at the fork would stay held
    global _guards_lock
    _guards_lock = threading.RLock()


os.register_at_fork(after_in_child=_guards_in_child)


class AmbiguousTruthValue(RuntimeError, ValueError):
    """``bool(t)`` of a tensor with other than one element: PyTorch's RuntimeError ("Boolean value of Tensor
    with more than one value is ambiguous"), and NumPy's ValueError for the same question."""


class Size(tuple):
    """PyTorch's ``torch.Size``: the shape a tensor's ``shape`` and ``size()`` give, a tuple of ints
    that stays a ``Size`` when added to (``x.size() + (n,)``), sliced or repeated.  It differs from
    a plain tuple in one place, as PyTorch's: the legacy constructors take a ``Size`` as a shape
    (``mg.FloatTensor(x.size())`` is uninitialised, of that shape) and a plain tuple as data
    (``mg.FloatTensor((2, 3))`` is ``[2., 3.]``).  It prints as a tuple."""

    __slots__ = ()

    def __new__(cls, sizes: Any = ()) -> Size:
        return tuple.__new__(cls, (_size_item(d, i) for i, d in enumerate(sizes)))

    def __add__(self, other: Any) -> Size:
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:  # (1,) + size: Python asks the subclass first
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> Size:
        return shape_size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return shape_size(item) if isinstance(index, slice) else item

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (PyTorch's ``Size.numel``)."""
        n = 1
        for d in self:
            n *= d
        return n


#: A ``Size`` of lengths known to be ints (an array's shape, a slice of a Size), built without reading
#: each one: ``x.shape`` is read on every step, and ``Size.__new__``'s checks cost it 4x (0.42 -> 1.8 us);
#: a partial of ``tuple.__new__`` is C all the way (no Python frame a call)
shape_size: Callable[[tuple[int, ...]], Size] = functools.partial(tuple.__new__, Size)


def _size_item(d: Any, i: int) -> int:
    """One length of a ``Size``, as PyTorch reads it: anything with ``__index__`` (a NumPy integer,
    a bool, an integer tensor of one element) becomes an int, and a float, a float tensor or
    anything else is PyTorch's TypeError -- ``Size([lengths])`` once kept them, so ``Size(t)`` of a
    float tensor was a "shape" of 0-d tensors that ``numel`` and ``reshape`` then tripped over."""
    try:
        return operator.index(d)
    except TypeError:
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')") from None


class ElementCount(int):
    """``Tensor.size``: NumPy's element count wherever a number is meant (``x.size * 2``,
    ``if x.size:``), and PyTorch's ``size()`` when called: ``x.size()`` is the shape,
    ``x.size(d)`` the length of dim ``d``."""

    def __new__(cls, shape: tuple[int, ...]) -> ElementCount:
        n = 1
        for d in shape:
            n *= d
        self = super().__new__(cls, n)
        self.shape = shape
        return self

    def __call__(self, dim: int | None = None) -> Any:
        return shape_size(self.shape) if dim is None else self.shape[dim]


def shared_version(source: Tensor, new: Tensor) -> list:
    """``source``'s version box, for ``new``, a tensor that shares ``source``'s memory (a view, a
    detached alias).  The box's second entry lists weak references to the tensors that share it:
    a recorded in-place change gives a tensor new memory (:meth:`Tensor._rebase`), which another
    *live* tensor sharing the old would not see, so then it refuses (a view that is gone is no
    obstacle: ``x[i] = x[i] + v``).  A parameter's views are not listed (``w.T`` in every step):
    their in-place changes are refused, as PyTorch refuses them."""
    box = source._version_box
    if len(box) == 1:
        box.append(_leaf_views(source) if source._node is None and source._requires_grad
                   else [weakref.ref(source)])
    if source._alias_group is not None:  # a view of a detached alias, of from_numpy's tensor, ...
        new._alias_group = group = source._alias_group
        if box[1].__class__ is tuple and group.__class__ is AliasGroup:  # a parameter's memory: its
            group.members.append(weakref.ref(new))  # views are not listed, a detached alias's views are
    if source._dual_lineage is not None:  # a view of a dual handle, of a detached tensor
        new._dual_lineage = source._dual_lineage
    sharers = box[1]
    if sharers.__class__ is list:
        n = len(sharers)
        if n >= 16 and not n & (n - 1):  # the dead dropped at sizes 16, 32, 64, ...: linear in the views made
            sharers[:] = _without_dead_runs(sharers)  # (a weak set costs 40x more to make)
        sharers.append(weakref.ref(new))
    return box


def _lend_memory(t: Tensor) -> None:
    """``t``'s memory is shown to an array the engine does not track (``t.numpy()``): a later recorded
    write into ``t`` -- or into a live tensor sharing its memory, whose alias ``t`` may be
    (``h.detach().numpy()``) -- goes into that memory, so the array shows it, as PyTorch's."""
    t._memory_lent = True
    box = t._version_box
    if len(box) > 1 and box[1].__class__ is list:
        for ref in box[1]:
            if (other := ref()) is not None:
                other._memory_lent = True


def fresh_result(result: Tensor, *inputs: Any) -> Tensor:
    """``result``, marked as a new tensor where it is a view only of the function's own temporaries.

    A function that PyTorch computes as one new tensor is here often a few ops whose last is a view
    (``max(x, 1)`` squeezes the kept dim of its values, ``rot90`` transposes a flip, ``reshape`` of a
    transpose views a copy).  The temporaries are gone when the function returns, so no one can see the
    memory is shared; PyTorch's result is no view, so neither is this one to ``detach_`` (which refuses
    views), ``view`` (which lays out row-major only memory nothing else holds) or a write through a view
    of it (whose base it is).  It keeps the shared version box, so a write into it still reaches the
    nodes that saved the temporaries' values.  A view of one of ``inputs`` (its box) is a true view, as
    PyTorch's (``reshape`` of a contiguous tensor): left as it is."""
    box = result._version_box
    if len(box) > 1 and box[1].__class__ is list and all(box is not getattr(x, "_version_box", None) for x in inputs):
        result._fresh_result = True
    return result


def untie_copy(result: Tensor, source: Tensor) -> Tensor:
    """``result``, which a view op made of ``source`` but in new memory (NumPy's ``reshape`` copies
    where the strides cannot give the shape: ``x.t().reshape(-1)``), untied from ``source``'s memory
    as PyTorch's copy is: a version of its own (a write into ``source`` no longer marks the values a
    node saved of ``result`` as changed), not listed among the tensors sharing ``source``'s memory,
    and no view (``detach_`` takes it)."""
    box = source._version_box
    if len(box) > 1 and box[1].__class__ is list:
        box[1][:] = [r for r in box[1] if r() is not result]
    group = result._alias_group
    if group.__class__ is AliasGroup:  # (a parameter's memory lists a detached alias's views there)
        group.members[:] = [r for r in group.members if r() is not result]
    result._version_box = [0]
    for name in ("_alias_group", "_no_grad_view", "_custom_function_view"):
        result.__dict__.pop(name, None)
    result._fresh_result = True
    return result


def _fresh_root(sharers: list, group: Any) -> Tensor | None:
    """The live tensor of ``group`` that :func:`fresh_result` marked among ``sharers``: the base of the
    views of it made later (the temporaries before it are gone, and were never anyone's to view)."""
    for r in sharers:
        o = r()
        if o is not None and o._alias_group is group and o.__dict__.get("_fresh_result"):
            return o
    return None


def _without_dead_runs(sharers: list[weakref.ref]) -> list[weakref.ref]:
    """``sharers`` with each run of dead references shortened to one: where a dead one stood before
    the first live tensor of an alias group, one still does, so :func:`history_root` still answers
    None (that group's base is gone) rather than taking the first live view for the base."""
    kept, last_dead = [], False
    for r in sharers:
        dead = r() is None
        if not (dead and last_dead):
            kept.append(r)
        last_dead = dead
    return kept


_A_PARAMETERS = ()  # box[1] of a parameter's memory: shared with views that are not listed


class AliasGroup:
    """The history a detached alias (``detach()``, ``.data``) and its views share, apart from the
    tensor whose memory they show.  In a parameter's memory, whose views are not listed (see
    :func:`shared_version`), the group lists its members itself: a recorded write through one of
    them must move the others' histories (``d = w.detach(); d[0].mul_(x)``: ``d`` takes it)."""

    __slots__ = ("members",)

    def __init__(self, first: Tensor) -> None:
        self.members = [weakref.ref(first)]


def _leaf_views(leaf: Tensor) -> tuple:
    """box[1] of the memory of a leaf that requires grad (a parameter): its views are not listed;
    the tuple names the leaf's alias group, whose views' in-place changes PyTorch refuses."""
    return _A_PARAMETERS if leaf._alias_group is None else (leaf._alias_group,)


def _is_first(ref: weakref.ref, t: Tensor) -> bool:
    """Whether ``ref``, the first of a list of the tensors that share a memory, is to ``t``.

    The cycle collector clears every weak reference to its garbage before it runs a finalizer, so
    a ``__del__`` that calls ``detach_()`` on a tensor it holds (pytorch-grad-cam's ``BaseCAM``
    does) finds the first entry gone though ``t`` is alive.  ``t`` with no weak reference left is
    such garbage (a tensor in a list of sharers always has one): it is answered as the first, which
    of the dead entries it was being unknowable -- a view in the same garbage then detaches too,
    where PyTorch, whose view holds its base, refuses; nothing reads either again."""
    first = ref()
    return first is t or (first is None and weakref.getweakrefcount(t) == 0)


def _shares_memory(t: Tensor) -> bool:
    """Whether another live tensor shares ``t``'s memory (see :func:`shared_version`)."""
    box = t._version_box
    if len(box) == 1:
        return False
    return box[1].__class__ is tuple or any((o := r()) is not None and o is not t for r in box[1])


#: PyTorch's names of the in-place arithmetic methods by their NumPy ufuncs (``mul_`` for ``multiply``)
_INPLACE_NAMES = {"subtract": "sub", "multiply": "mul", "divide": "div"}


def _dense(a: Any) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill their memory exactly, in some
    order of the axes (a transpose is; a slice of columns, a flip or an expanded view is not)."""
    steps = sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1)
    expected = a.itemsize
    for step, n in steps:
        if step != expected:
            return False
        expected *= n
    return True


def refuse_partial_overlap(what: str, dest: Tensor, operand: Any, written: Any = None) -> None:
    """PyTorch's refusal (``assert_no_partial_overlap``) of an in-place write whose tensor ``operand``
    and destination (``written``, ``dest``'s array or a view of it) share some but not all of their
    memory: ``x[1:].add_(x[:-1])``, ``x.copy_(x.T)``, ``v.div_(v[0])``.  NumPy answers as if it read
    the operand first; a GPU's kernel reads and writes it at once, in no set order -- its answer
    differs from the CPU's from run to run.  As PyTorch, only where both arrays fill their memory
    densely is the overlap decided (else it is "too hard" and the write goes on), and the same
    memory in the same layout (``x.mul_(x)``) is no overlap."""
    if not isinstance(operand, Tensor) or operand._device is not dest._device:
        return
    a, b = dest._data if written is None else written, operand._data
    xp = dest._device.xp
    # (memory apart first: the common case, and the cheap test -- this runs in every optimizer step)
    if a is b or xp.memory_owner(a) is not xp.memory_owner(b) or not a.size or not b.size \
            or not (_dense(a) and _dense(b)):
        return
    start_a, start_b = xp.address(a), xp.address(b)
    end_a, end_b = start_a + a.nbytes, start_b + b.nbytes
    if (start_a, end_a) == (start_b, end_b) and a.itemsize == b.itemsize and \
            [s for s, n in zip(a.strides, a.shape) if n != 1] == [s for s, n in zip(b.strides, b.shape) if n != 1]:
        return  # the same elements in the same order
    if start_a < end_b and start_b < end_a:
        raise RuntimeError(f"{what}: unsupported operation: some elements of the input tensor and the written-to "
                           f"tensor refer to a single memory location. Please clone() the tensor before "
                           f"performing the operation.")


def refuse_overlap(what: str, dest: Tensor, operands: tuple) -> None:
    """PyTorch's refusal (``assert_no_overlap``) of a scatter or index write (``scatter_``,
    ``index_add_``, ``index_copy_``, ``index_put_``, ``put_``, ``x[idx] = v``) whose source or index
    shares any memory with the destination -- the same memory too (``x.index_add_(0, i, x)``), unlike
    :func:`refuse_partial_overlap`'s elementwise ops, since each element is read at another place
    than it is written: ``x.scatter_(0, i, x[:1])``.  NumPy would answer as if it read the source
    first.  As PyTorch, only where both arrays fill their memory densely is it decided; an index
    tuple's tensors are each checked."""
    xp = dest._device.xp
    a = dest._data
    for operand in operands:
        if isinstance(operand, (tuple, list)):
            refuse_overlap(what, dest, tuple(operand))
            continue
        if not isinstance(operand, Tensor) or operand._device is not dest._device:
            continue
        b = operand._data
        if xp.memory_owner(a) is not xp.memory_owner(b) or not a.size or not b.size \
                or not (_dense(a) and _dense(b)):
            continue
        start_a, start_b = xp.address(a), xp.address(b)
        if start_a < start_b + b.nbytes and start_b < start_a + a.nbytes:
            raise RuntimeError(f"{what}: unsupported operation: some elements of the input tensor and the written-to "
                               f"tensor refer to a single memory location. Please clone() the tensor before "
                               f"performing the operation.")


def _views_a_leaf_that_requires_grad(t: Tensor) -> bool:
    """Whether ``t`` is a view (not a detached alias) of a leaf that requires grad: PyTorch refuses
    its recorded in-place changes, which would change the leaf."""
    box = t._version_box
    if len(box) == 1:
        return False
    if box[1].__class__ is tuple:  # a parameter's memory: its group is named there
        return t._alias_group is (box[1][0] if box[1] else None)
    return any(o._node is None and o._requires_grad for o in history_sharers(t))


def history_sharers(t: Tensor) -> list[Tensor]:
    """The live tensors other than ``t`` that share its memory *and* its history: listed in the
    memory's version box, of ``t``'s alias group (a parameter's views are not listed: none, but the
    members of a detached alias's group, which it lists, :class:`AliasGroup`)."""
    box = t._version_box
    if len(box) == 1:
        return []
    group = t._alias_group
    if box[1].__class__ is tuple:  # a parameter's memory: a detached alias's group lists its members
        if group.__class__ is not AliasGroup:
            return []
        return [o for r in group.members if (o := r()) is not None and o is not t]
    return [o for r in box[1] if (o := r()) is not None and o is not t and o._alias_group is group]


def history_root(t: Tensor) -> Tensor | None:
    """The tensor the other :func:`history_sharers` of ``t`` are views of (PyTorch's ``_base``):
    the first of ``t``'s alias group in its memory's list (a detached alias's group names it
    first), ``t`` itself where it is that one or shares its memory with no one, and None where that
    one may be gone (a dead reference before it, whose group can no longer be told, or a first that
    was itself a view of a base now gone: :meth:`Tensor._rebase` marks it)."""
    box = t._version_box
    if len(box) == 1:
        return t
    group = t._alias_group
    if group.__class__ is AliasGroup:
        return group.members[0]()
    if box[1].__class__ is tuple:  # a parameter's memory: its views are not listed
        return t
    for r in box[1]:
        o = r()
        if o is None:
            return _fresh_root(box[1], group)
        if o._alias_group is group:
            return None if o.__dict__.get("_view_of_a_gone_base") else o
    return t


#: The start stamps (engine clock) of the open ``mg.func`` transforms, innermost last
#: (:mod:`minigrad_ckpt.func.captures`).  A tensor made while one is open records the innermost
#: one's as its birth (``_born``), so that a write inside can tell the function's own tensors from
#: the ones it closes over, as ``torch.func`` tells them by their wrapping level.  Empty outside
#: the transforms: one truth test per new tensor.
transform_births: list[int] = []

#: Installed while a transform is open: ``guard(target, what)`` refuses a recorded in-place write
#: into a tensor the transformed function closes over (:mod:`minigrad_ckpt.func.captures`).
capture_guard: Callable[[Tensor, str], None] | None = None


def set_capture_guard(guard: Callable[[Tensor, str], None] | None) -> None:
    """Install (or, with ``None``, remove) :data:`capture_guard`."""
    global capture_guard
    capture_guard = guard


#: Installed while ``mg.func.vmap`` runs its function: ``guard(target, what, value)`` refuses an
#: in-place write that the loop over the examples would make where PyTorch's batching refuses it
#: or makes it once (:mod:`minigrad_ckpt.func.vmap_writes`); ``value`` is the written operand
#: (a tensor, a number, or ``None`` where the op has none).
batch_write_guard: Callable[[Tensor, str, Any], None] | None = None


def set_batch_write_guard(guard: Callable[[Tensor, str, Any], None] | None) -> None:
    """Install (or, with ``None``, remove) :data:`batch_write_guard`."""
    global batch_write_guard
    batch_write_guard = guard


class RandomFill:
    """:data:`batch_write_guard`'s ``value`` for a random fill (``x.normal_()``, ``x.bernoulli_(p)``,
    ``nn.init.trunc_normal_(x)``): what is written is a fresh draw of ``vmap``'s randomness -- one
    per example, or under ``randomness="same"`` one for them all -- not a value the call made from
    its example; ``operand`` is the tensor it was drawn with besides (``bernoulli_``'s ``p``), if any."""

    __slots__ = ("operand",)

    def __init__(self, operand: Any = None) -> None:
        self.operand = operand


class _JudgedFill(threading.local):
    """The tensor a random fill is writing into, its fill already judged by :data:`batch_write_guard`
    (:meth:`Tensor._write_drawn`): the ``copy_`` that writes it is not judged again."""

    target: Tensor | None = None


_judged_fill = _JudgedFill()


#: PyTorch's refusal of ``retain_grad()`` in a function an ``mg.func`` transform runs (torch 2.13's words)
_RETAIN_GRAD_IN_TRANSFORM = ("You are attempting to call Tensor.retain_grad() inside of a function being transformed "
                             "by a functorch transform. This is unsupported, please attempt to use the functorch "
                             "transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call retain_grad() outside of a "
                             "function being transformed instead.")


def birth_of(t: Tensor) -> int:
    """When ``t``'s value was made, on the engine clock, as a transform sees it: its node's stamp,
    or the start of the innermost transform open when it was made (0: outside every one)."""
    return t._node.seq if t._node is not None else t._born


#: Recorded in-place writes into memory that other tensors see, installed from above
#: (:mod:`minigrad_ckpt.functional.shared_memory`): ``write(target, result, what)``.
write_into_shared_memory: Callable[[Tensor, Tensor, str], Tensor] | None = None


def set_shared_memory_writer(write: Callable[[Tensor, Tensor, str], Tensor]) -> None:
    """Install :data:`write_into_shared_memory` (the layer above does, once)."""
    global write_into_shared_memory
    write_into_shared_memory = write


#: PyTorch's words (torch 2.13) for reading a non-leaf tensor's ``.grad``, which backward leaves None
_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead.")


class _RetainGrad:
    """The hook :meth:`Tensor.retain_grad` puts on a tensor's node: the gradient summed into the
    tensor's ``.grad`` while the node is still the tensor's (a recorded in-place change moves it)."""

    hook_rank = 1  # after the tensor's own hooks (see hook_rank)

    def __init__(self, t: Tensor) -> None:
        self.tensor, self.node = weakref.ref(t), t._node

    def __call__(self, g: Tensor) -> None:
        t = self.tensor()
        if t is None or t._node is not self.node:
            return
        kept = g if g._node is not None else Tensor._wrap(g._data.copy(), None, g._device)  # a later hook
        t._grad = kept if t._grad is None else t._grad + kept  # may change g in place


#: The out-of-place twins of ``x[i] = v``, ``copy_``, ``fill_`` and ``zero_`` (``"setitem"``, ...: a
#: function of the old tensor, the value and the index), built from differentiable ops by the
#: forward-mode layer (``func/inplace.py``), which installs them: the recorded writes use them.
out_of_place_writes: dict[str, Callable[[Any, Any, Any], Any]] = {}

#: PyTorch's storage-level names, absent here and refused with the reason (``_NotOffered``)
_STORAGE_LEVEL_NAMES = (
    "storage", "untyped_storage", "storage_offset", "storage_type", "as_strided", "as_strided_",
    "as_strided_scatter", "resize", "resize_", "resize_as", "resize_as_", "is_set_to", "is_shared",
    "share_memory_", "new_empty_strided")
_NO_STORAGE = ("a tensor here is one dense NumPy/CuPy array, with no storage object to ask about or to "
               "re-stride (docs/from-pytorch.md, \"Tensor methods not offered\"): x.numpy() is the array, its "
               "layout is x.stride(), x.is_contiguous() and x.data_ptr(), and x.clone() or x.contiguous() "
               "gives fresh memory")

#: PyTorch's names of its sparse layouts, absent here (every tensor is dense) and refused with the reason
_SPARSE_LAYOUT_NAMES = (
    "to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc",
    "indices", "values", "coalesce", "is_coalesced", "sparse_dim", "dense_dim", "sparse_mask", "crow_indices",
    "col_indices", "ccol_indices", "row_indices", "sparse_resize_", "sparse_resize_and_clear_", "smm", "sspaddmm",
    "resize_as_sparse_")
_NO_SPARSE_LAYOUT = ("there is no sparse layout: every tensor here is one dense NumPy/CuPy array (x.layout is "
                     "mg.strided; docs/from-pytorch.md, \"Tensor methods not offered\"), so keep the dense tensor: "
                     "a sparse tensor's indices() are the dense one's x.nonzero().T, its values() x[x != 0], "
                     "and a sparse product is a dense one (x @ y)")

#: PyTorch's linear-algebra functions removed in PyTorch itself (since 1.9, each a RuntimeError there naming
#: its replacement), with that replacement: a ported program that calls one reads the way across, not a gap
_REMOVED_FROM_PYTORCH = {
    "symeig": "L, V = mg.linalg.eigh(A, UPLO='U') for symeig(A, eigenvectors=True) (symeig read the upper "
              "triangle, eigh reads the lower by default); mg.linalg.eigvalsh(A, UPLO='U') for the values alone",
    "eig": "mg.linalg.eig(A) (complex eigenvalues and eigenvectors)",
    "lstsq": "mg.linalg.lstsq(A, B).solution for lstsq(B, A).solution[:A.size(1)] (the arguments are reversed, "
             "and lstsq's solution of a tall A had A.size(0) rows, the residuals' below the first A.size(1))",
    "solve": "mg.linalg.solve(A, B) for solve(B, A) (the arguments are reversed, no LU is returned)",
    "matrix_rank": "mg.linalg.matrix_rank(A)",
}


def removed_from_pytorch(name: str) -> str:
    """The reason a removed PyTorch function is absent, and what to call instead."""
    return f"removed from PyTorch (1.9 deprecated it); use {_REMOVED_FROM_PYTORCH[name]}"


class _NotOffered:
    """A name of PyTorch's ``Tensor`` that is absent here, with the reason: looked up on a tensor or on
    the class it raises AttributeError (``hasattr`` answers False) saying why and what answers instead,
    so ported code that asks ``x.storage()`` reads a decision, not a gap.  (A descriptor, not a
    ``Tensor.__getattr__``: a class with ``__getattr__`` takes CPython's slow attribute path on every
    lookup and loses its specialized ``x._data`` reads -- 4.6% more instructions per op.)"""

    def __init__(self, name: str, why: str) -> None:
        self.name, self.why = name, why

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        raise AttributeError(f"'{(owner or type(obj)).__name__}' object has no attribute '{self.name}': {self.why}")


#: PyTorch's type categories, lowest first: a lower category's operand never decides the dtype.
_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}

#: the in-place arithmetic a float16 tensor does in float32 beside a number, as ``mg.multiply`` (see
#: ``functional.arguments.beside_number_in_float32``)
_SCALING = ("multiply", "divide")


_PY_NUMBERS = frozenset((int, float, complex, bool))


def foreign_operand(other: Any) -> bool:
    """Whether an operator of Tensor (``x + other``, ``x < other``, ``x += other``) hands ``other`` back
    to Python with ``NotImplemented``, as PyTorch's operators do: a list or tuple (NumPy would read it
    as an array, an answer PyTorch's code never meant), and any object that is neither a tensor, a
    number nor an array -- ``None``, a ``Fraction``, a class of one's own.  Python then asks the other
    operand (its ``__radd__``, ``__gt__``, ...), and failing that raises its own TypeError
    ("unsupported operand type(s) for +"); reading such an object as data made every operator raise
    first, so a class with reflected operators never met a tensor."""
    if other.__class__ in _PY_NUMBERS or isinstance(other, (Tensor, host_numpy.ndarray, host_numpy.generic)):
        return False
    if isinstance(other, (list, tuple)):
        return True
    return not (isinstance(other, (int, float, complex)) or is_array(other)
                or hasattr(other, "__array__") or hasattr(other, "__array_interface__"))


#: the kind of dtype a Python number stands for beside a tensor (only its category counts)
_WEAK_KIND = {bool: host_numpy.dtype(bool), int: host_numpy.dtype(host_numpy.int64),
              float: host_numpy.dtype(host_numpy.float64), complex: host_numpy.dtype(host_numpy.complex128)}


def _takes_dtype_of(data: Any, other: Any) -> bool:
    """PyTorch's promotion of ``data <op> other`` (arrays or tensors) gives ``data``'s dtype: ``other`` is of
    a lower category (bool, integer, float, complex), or of the same as a 0-d beside ``data`` of some dims."""
    mine, its = _CATEGORY[data.dtype.kind], _CATEGORY[other.dtype.kind]
    return its < mine or (its == mine and other.ndim == 0 < data.ndim)


def _in_dtype_computed(other: Any, data: Any) -> Any:
    """The array ``other`` in the dtype PyTorch computes ``data <op>= other`` in, where NumPy would
    compute in a wider one and round into ``data``: PyTorch's result type is ``data``'s own where
    ``other``'s category is lower (``f32 += int64`` adds int64 rounded to float32, ``f16 += int32`` the
    int32 rounded to float16) or the same for a 0-d ``other`` beside an n-d ``data`` (``f32 *= 0-d f64
    0.1`` multiplies by 0.1 rounded to float32: 0.010000001, not 0.01)."""
    if _takes_dtype_of(data, other):
        with host_numpy.errstate(over="ignore", invalid="ignore"):  # (int64's max is inf in float16, silently)
            return other.astype(data.dtype)
    return other


def _scale_half_in_float32(xp: Any, data: Any, fn: str, other: Any) -> None:
    """``data *= other`` (``/=``) of a float16 ``data`` as PyTorch's half kernel: in float32, the
    number as it is (not rounded to float16 first: ``/= 65536.0`` was a division by inf), rounded
    once."""
    if not isinstance(other, (int, float)):
        other = other.astype(host_numpy.float32)
    with xp.errstate(over="ignore", divide="ignore", invalid="ignore"):
        xp.copyto(data, getattr(xp, fn)(data.astype(host_numpy.float32), other), casting="unsafe")


_ARITH = {"add": lambda x, y: x + y, "subtract": lambda x, y: x - y, "multiply": lambda x, y: x * y,
          "divide": lambda x, y: x / y}



def _real_number(value: Any) -> Any:
    """A complex tensor's value for ``float()``/``int()``: its real part when the imaginary part
    is 0, else PyTorch's error (Python's own ``float(1+0j)`` refuses even that)."""
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError(f"value {value!r} cannot be converted to a real number without overflow "
                               f"(its imaginary part would be lost; use .real or abs())")
        return value.real
    return value

_scalar_warned: list[bool] = []


def _warn_scalar_of_requires_grad() -> None:
    """PyTorch's warning, once per process, at ``float(t)``/``complex(t)`` of a tensor that requires
    grad (``math.exp(loss)`` included) while grad mode is on: the number has left the graph, so no
    gradient flows through what is computed from it.  ``int(t)``, ``t.item()`` and a conversion under
    ``no_grad`` (LBFGS reads its closure's loss there) do not warn, as PyTorch's do not."""
    if not _scalar_warned:
        _scalar_warned.append(True)
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first.", UserWarning, stacklevel=stacklevel_outside_the_engine())


def requires_grad_flag(value: Any) -> bool:
    """A creation function's ``requires_grad=``: a Python bool only, as PyTorch's (``mg.zeros(2,
    requires_grad=1)`` is its ``TypeError``; a truthy ``'x'`` or ``1`` is not taken as True)."""
    if type(value) is not bool:
        raise TypeError(f"argument 'requires_grad' must be bool, not {type(value).__name__}")
    return value


# Memory that an array outside the engine shows (``from_numpy``'s, ``as_tensor``'s, ``from_dlpack``'s
# source): id(memory owner) -> the owner, held weakly.  A write through that array skips
# ``prepare_write`` and so every write guard: whoever must see a tensor's values stay (an
# asynchronous snapshot's copy-on-write) copies such memory at once instead of waiting for a guard.
_SHOWN_OUTSIDE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _note_memory_shown_outside(t: Tensor) -> None:
    owner = t._device.xp.memory_owner(t._data)
    try:
        _SHOWN_OUTSIDE[id(owner)] = owner
    except TypeError:  # an owner that takes no weak reference cannot be told apart later: copy it always
        _SHOWN_OUTSIDE_UNTRACKABLE.add(type(owner))


_SHOWN_OUTSIDE_UNTRACKABLE: set[type] = set()


def memory_shown_outside(t: Tensor) -> bool:
    """Whether ``t``'s memory is also an array the caller of ``from_numpy``/``as_tensor``/``from_dlpack``
    holds, which it may write without the engine seeing the write."""
    owner = t._device.xp.memory_owner(t._data)
    return _SHOWN_OUTSIDE.get(id(owner)) is owner or type(owner) in _SHOWN_OUTSIDE_UNTRACKABLE


def _check_shareable(array: Any) -> None:
    """PyTorch's refusals of ``from_numpy`` / ``as_tensor`` of an array it cannot share."""
    dt = array.dtype
    if not dt.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")
    as_dtype(dt)  # a dtype no tensor has: its TypeError
    # A tensor's strides count elements: a byte stride between two of them has no such count
    # (``x.stride()`` would round it to a lie).
    if any(step % dt.itemsize for step in array.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy array "
                         "to reallocate the memory.")


class NotOneElement(RuntimeError, ValueError):
    """``item()`` of a tensor of other than one element: PyTorch's RuntimeError, with its words
    first; a ValueError too, as it was here and as ``float(t)`` is in PyTorch."""


class Tensor:
    """An n-dimensional array that can record the ops applied to it.

    Create tensors with :func:`minigrad_ckpt.tensor` and friends.  The constructor itself is
    PyTorch's legacy ``torch.Tensor``: ``Tensor(data)`` copies ``data`` in the default float dtype
    (``Tensor([1, 2])`` is float32, where ``mg.tensor([1, 2])`` is int64), ``Tensor(*sizes)`` is an
    uninitialised tensor of that shape (zeros here), ``Tensor()`` an empty one; only ``device=``
    is taken.  The engine builds tensors with :meth:`_from_data` (``mg.tensor``'s rules) and
    :meth:`_wrap`.
    """

    # Hot fields are slots (a tensor is created per op); ``_grad`` and
    # ``_hooks`` are set on few tensors, so they live in ``__dict__`` and read
    # as the class default ``None`` until set.
    __slots__ = ("_data", "_node", "_requires_grad", "_version_box", "_device", "__dict__", "__weakref__")
    _grad: Tensor | None = None
    _hooks: list | None = None
    _post_hooks: _PostHooks | None = None
    _tangents: dict | None = None
    _born: int = 0  # set only inside an mg.func transform (see transform_births)
    _no_grad_view: bool = False  # a view made in no_grad mode of a tensor that requires grad (or of such a view)
    # PyTorch's refusal ("Output k of F is a view and ...") of in-place changes in grad mode to an output of a
    # custom Function that is an input's memory (``return x``, a view of it, a module's backward-hook gate),
    # or to a view of one: they would bypass the Function's backward (its IN_CUSTOM_FUNCTION creation meta)
    _custom_function_view: str | None = None
    # None, or an object naming the tensors that share memory *and history* with this one: a detached
    # alias (detach(), .data, from_numpy's wrapper) starts a group of its own, its views join it.
    # A recorded in-place write reaches the group's other tensors' histories, and only theirs.
    _alias_group: object | None = None
    # True once ``.data`` has lent this memory to an alias the version box does not list: a recorded
    # in-place write must then go into the memory (the alias sees it, as PyTorch's) and not rebind it.
    _memory_lent: bool = False
    # Forward mode's view lineage: None, or ``(levels, parent)`` set where a tangent chain starts
    # afresh -- a dual handle (``make_dual``: its levels), ``detach()`` (every level, ``levels``
    # None) -- and inherited by views.  An in-place write carries its tangent at a level only into
    # the tensors sharing the memory that have the same lineage there (``func.inplace``), as
    # PyTorch's forward AD carries it to forward-differentiable views and bases only.
    _dual_lineage: tuple | None = None
    # (``__array_ufunc__``, NumPy's ufuncs of a tensor -- ``np.sin(t)``, and ``array * tensor``, which
    # is ``np.multiply`` -- is bound with the operators: ``functional/numpy_ufuncs.py``)

    def __init__(self, *args: Any, device: Any = None, **refused: Any) -> None:
        if refused:
            raise TypeError(f"Tensor() is PyTorch's legacy constructor: data or sizes and device= only, not "
                            f"{', '.join(refused)}=; use mg.tensor(data, dtype=..., requires_grad=...)")
        self._init_legacy(args, None, device)

    def _init_legacy(self, args: tuple, dtype: Any, device: Any) -> None:
        """PyTorch's legacy constructors: ``Tensor(*args)`` (``dtype`` None: the default float) and the
        typed ones, ``mg.LongTensor(*args)``."""
        source = _legacy_source(args, dtype, device)
        if isinstance(source, Tensor):  # PyTorch's Tensor(t): t itself; here an alias of it (a view)
            self._data, self._node, self._version_box, self._device = (source._data, source._node, source._version_box,
                                                                   source._device)
            self._requires_grad = source._requires_grad
            self._tangents = source._tangents  # forward mode: the alias carries the tangents too
            self._tell_segment_of_history()  # (``source`` may die first: a checkpoint must keep the node)
            return
        self._init_data(*source)

    @classmethod
    def _from_data(cls, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        """A new leaf holding a copy of ``data``, its dtype inferred as ``mg.tensor`` infers it:
        the engine's constructor from outside data (the public ``Tensor(...)`` is PyTorch's legacy one)."""
        t = cls.__new__(cls)
        t._init_data(data, dtype, device, requires_grad)
        return t

    def _init_data(self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> None:
        if isinstance(data, Tensor):
            arr, dev = _copy_of(data, dtype, device)
        elif isinstance(data, (list, tuple)) and _holds_tensor(data):
            # each one-element tensor as a NumPy scalar of its dtype (NumPy's own conversion through
            # ``__array__`` would also take bigger tensors, which PyTorch refuses, and lose the dtypes)
            arr, dev = to_array(_tensors_as_numbers(data), dtype, device)
        else:
            arr, dev = to_array(data, dtype, device)
        self._data = arr
        self._device = dev
        self._node = None
        self._version_box = [0]
        self._requires_grad = False
        if transform_births:
            self._born = transform_births[-1]
        if requires_grad_flag(requires_grad):
            self.requires_grad = True

    @classmethod
    def _wrap(cls, array: Any, node: Any, device: Device | None = None) -> Tensor:
        """The engine's one fast constructor: a Tensor around ``array``, no copy, no checks.

        ``node`` is the tape node that produced it (``None``: a constant).
        :func:`minigrad_ckpt.tape.apply` inlines these same five assignments
        (a call per op is measurable); everything else builds Tensors here.
        """
        t = cls.__new__(cls)
        t._data = array
        t._node = node
        t._requires_grad = node is not None
        t._version_box = [0]
        t._device = device if device is not None else device_of(array)
        if transform_births:  # (inside an mg.func transform: the tensor is the function's own)
            t._born = transform_births[-1]
        return t

    @classmethod
    def constant(cls, array: Any, device: Device | str | None = None) -> Tensor:
        """A Tensor around ``array`` (no copy) that needs no gradient: a constant.

        For engine layers that compute an array and hand it on as a Tensor (a
        mask, an optimizer's state, a loaded value).  ``device`` defaults to the
        device whose namespace holds ``array``; the array must live there.  A NumPy scalar (what a
        NumPy reduction or ufunc gives for a 0-d result) becomes a 0-d array: a tensor holds arrays
        (``.numpy()`` marks its view read-only, which a scalar refuses).
        """
        if isinstance(array, host_numpy.generic):
            array = host_numpy.asarray(array)
        return cls._wrap(array, None, None if device is None else get_device(device))

    @classmethod
    def standing_for(cls, node: Any) -> Tensor:
        """A tensor standing for ``node``'s output without its values: zeros broadcast to its shape
        and dtype, no memory of its own, ``node`` as its history -- what ``mg.autograd.grad``
        differentiates with respect to for a ``GradientEdge`` (``autograd/graph.py``)."""
        xp = node.xp
        return cls._wrap(xp.broadcast_to(xp.zeros((), dtype=node.dtype), node.shape), node)

    @classmethod
    def sharing(cls, array: Any, device: Device | str | None = None) -> Tensor:
        """:meth:`constant` around an array its caller keeps too (``from_numpy``, ``as_tensor``,
        ``from_dlpack``): every in-place write, a recorded one included, goes into that memory,
        so the caller's array shows it, as PyTorch's does.  An array of a dtype no tensor has (strings,
        datetimes, float128, records) is PyTorch's TypeError, one in the other byte order its ValueError:
        wrapped as it is, it would be a tensor that no op can compute with."""
        _check_shareable(array)
        t = cls.constant(canonical_array(array), device)  # (a view, where the dtype is an unpickled copy)
        t._alias_group = object()
        _note_memory_shown_outside(t)
        return t

    def set_(self, source: Tensor) -> Tensor:
        """Hold ``source``'s array (shared, any shape or device, this tensor's dtype) and keep this
        identity.  The version is restamped; the history is not touched (it is meant for leaves,
        under ``no_grad``).  Another dtype is PyTorch's RuntimeError ("Could not set tensor of type
        double to a tensor of type float"); ``t.data = v`` takes ``v``'s dtype.
        """
        if not isinstance(source, Tensor):
            raise TypeError(f"set_ takes a Tensor, got {type(source).__name__}")
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"Could not set tensor of type {cpp_type_name(source._data.dtype)} to a tensor "
                               f"of type {cpp_type_name(self._data.dtype)}")
        return self._hold(source)

    def _hold(self, source: Tensor) -> Tensor:
        """:meth:`set_` of any dtype: ``Module.to`` and ``Module.type`` cast a parameter an optimizer
        holds and keep it the same object (PyTorch's ``param.data = new``)."""
        self._check_inplace("set_", source)
        tangents = self._carry_tangents("set", source)
        self._data = source._data
        self._device = source._device
        self._tell_segment()
        self._bump_version()
        if _forward.active:
            # From now on the two share memory, as a view and its base do: forward mode's writes find
            # the tensors a write reaches in the version box (func/inplace.py), so this one joins the
            # source's -- else a write through either left the other's tangent stale.
            self._version_box = shared_version(source, self)
            self._dual_lineage = source._dual_lineage  # an alias of the source: its tangent chain too
        if tangents is not None:
            self._take_tangents(tangents)
        return self

    def _become(self, cls: type, source: Tensor) -> Tensor:
        """Hold ``source``'s array and device as this tensor's own and take the class ``cls``, keeping
        this identity (an optimizer built before holds it): how an uninitialized parameter or buffer
        is materialized (``nn/uninitialized.py``), PyTorch's ``self.data = torch.empty(shape);
        self.__class__ = cls_to_become``.  Meant for a leaf with no values yet: the version is
        restamped, nothing is checked or recorded."""
        if self._node is not None:
            raise RuntimeError("only a leaf tensor can be materialized in place")
        self._data, self._device = source._data, source._device
        self.__class__ = cls
        self._bump_version()
        return self

    def increment_version(self) -> None:
        """Restamp the version after a write the engine did not see: a library that filled the
        array in place (an MPI all-reduce, a DLPack consumer), or a write into ``.data``.

        Saved values of this tensor are then checked like after any in-place op
        (PyTorch's ``torch.autograd.graph.increment_version``).  Updates the engine
        can see -- ``add_``, ``copy_``, ``t[i] = v`` under ``no_grad`` -- restamp by
        themselves.
        """
        self._bump_version()

    def prepare_write(self) -> None:
        """Call just before writing into this tensor's array behind the engine's back (an MPI
        collective filling it, a DLPack consumer), and :meth:`increment_version` after.

        An asynchronous snapshot that still has to save this memory's current values
        copies them first (``SnapshotManager.save_snapshot(..., blocking=False)``).  The
        in-place methods (``add_``, ``copy_``, ``t[i] = v``, ...) do this by themselves.
        """
        if _write_guard is not None:
            _write_guard(self)

    def version(self) -> int:
        """The version stamp: the engine clock's value at the latest in-place change (0: never)."""
        return self._version_box[0]

    @property
    def _version(self) -> int:
        """PyTorch's ``Tensor._version``, read-only: an int that changes with every in-place change of
        the tensor's memory (through it or any view of it), so ``v = t._version; ...; t._version != v``
        tells whether ``t`` was written.  It is the engine clock's value at the latest change (see
        :meth:`version`), not a count of changes as PyTorch's: compare versions, do not count them."""
        return self._version_box[0]

    # ------------------------------------------------------------------ data
    @property
    def data(self) -> Tensor:
        """PyTorch's escape hatch: a Tensor sharing this one's memory, with no history, that
        does not require grad.

        ``p.data.add_(-lr * p.grad)`` and micrograd's ``p.data -= lr * p.grad`` update the
        weights in place without recording anything.  Writes through ``.data`` are *not*
        seen by the version check (the alias has a version of its own), exactly as in
        PyTorch: changing a value that backward still needs this way silently changes the
        gradient.  Prefer the in-place methods under ``mg.no_grad()``, which are checked.
        ``.numpy()`` is the way to a (read-only) array.
        """
        alias = Tensor.__new__(Tensor)
        self._memory_lent = True  # a later recorded write into this tensor goes into the memory the alias shows
        alias._data = self._data
        alias._node = None
        alias._requires_grad = False
        alias._version_box = [0]
        alias._device = self._device
        alias._alias_group = AliasGroup(alias)  # a recorded write into it goes into the memory, as PyTorch's
        if transform_births:  # the same memory: captured by a transform where this tensor is
            alias._born = birth_of(self)
        return alias

    @data.setter
    def data(self, value: Any) -> None:
        """``t.data = v``: ``t`` holds ``v``'s values from now on, keeping its identity, its history and --
        as in PyTorch -- its version.  A tensor ``v`` brings its dtype and shape, as PyTorch's
        (``p.data = p.data.double()``, a resized embedding); an integer one is refused for a tensor that
        requires grad, with PyTorch's error.  A tensor with a history keeps its shape and dtype (``v`` is
        cast: its node's gradient has them), and so does one given an array."""
        original = value
        keep = not isinstance(value, Tensor) or self._node is not None
        if isinstance(value, Tensor):
            if value._device is not self._device:
                raise RuntimeError(f"cannot set .data on {self.device} to a tensor on {value.device}")
            value = value._data
            if self._requires_grad and value.dtype.kind not in "fc":
                raise RuntimeError("data set to a tensor that requires gradients must be floating point or "
                                   "complex dtype")
        if keep and tuple(value.shape) != self._data.shape:
            raise ValueError(
                f"cannot set .data of shape {self._data.shape} to an array of shape "
                f"{tuple(value.shape)}"
            )
        if value is not self._data:  # ``p.data -= g`` wrote in place already and sets the same array back
            if batch_write_guard is not None:  # inside vmap: not a value of the example into a tensor of all
                batch_write_guard(self, ".data", original)
            self._data = self._device.xp.asarray(value, dtype=self._data.dtype if keep else value.dtype)
            self._tell_segment()

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")  # torch 2.13's words

    def _tell_segment(self) -> None:
        """This tensor holds another array now, its history kept: a checkpoint segment recording
        its node learns of it (see ``Segment.rebound``)."""
        node = self._node
        if node is not None and node.segment is not None:
            node.segment.rebound(node, self)

    @property
    def shape(self) -> Size:
        return shape_size(self._data.shape)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        """The number of elements (NumPy's ``size``), an int; called, PyTorch's ``size()``: the
        shape, or ``x.size(d)`` the length of dim ``d``."""
        return ElementCount(self._data.shape)

    @property
    def dtype(self) -> Any:
        """The element type, a NumPy dtype (also on the GPU)."""
        return self._data.dtype

    @property
    def device(self) -> Device:
        return self._device

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:  # at iter(), as PyTorch's (a generator would raise only at the first next())
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    def __reversed__(self) -> Tensor:
        """PyTorch's ``reversed(t)``: a tensor, ``t.flip(0)`` (a 0-d tensor is itself), not an iterator."""
        return self if self._data.ndim == 0 else self.flip(0)

    def __contains__(self, element: Any) -> bool:
        """PyTorch's ``element in t``: whether any entry equals ``element`` (a number, or a tensor compared
        by broadcasting), not Python's walk along the first dim (``0 in labels`` of a 2-D tensor asked the
        truth of each row)."""
        if isinstance(element, (Tensor, Number)):
            return bool((element == self).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def numpy(self, *, force: bool = False) -> Any:
        """The values as a NumPy array: a read-only view on the CPU, a copy from a GPU.

        Read-only so that a value the tape saved cannot be changed behind its
        back; call ``.copy()`` on the result to get a writable array, or one that keeps
        today's values: the view shows later in-place writes, recorded ones too.  ``force``
        is PyTorch's (its ``numpy()`` refuses a tensor that requires grad or is on
        a GPU unless forced); here both convert either way.
        """
        if self._device is cpu:
            _lend_memory(self)
            v = self._data.view()
            v.flags.writeable = False
            return v
        return self._device.xp.to_host(self._data)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """NumPy's conversion protocol: ``np.asarray(t)`` is ``t.numpy()`` (a read-only view),
        ``np.array(t)`` a writable copy, ``dtype=`` converts -- so ``np.array(t)``,
        ``np.where(np.array(labels) == 3)`` and ``np.mean([loss0, loss1])`` give numbers, as with
        PyTorch, not arrays of tensor objects. A GPU tensor is refused (PyTorch's TypeError): an
        implicit device-to-host copy hides a synchronisation; ``t.cpu()`` or ``t.numpy()`` say it.
        """
        if self._device is not cpu:
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")
        a = self.numpy()
        if dtype is not None and a.dtype != dtype:
            if copy is False:
                raise ValueError(f"Unable to avoid copy while converting a {a.dtype} tensor to {dtype}")
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self) -> Any:
        """The single value of a one-element tensor, as a Python number."""
        if self._data.size != 1:
            raise NotOneElement(f"a Tensor with {self._data.size} elements cannot be converted to Scalar "
                                f"(item() needs a tensor with one element, this one has shape {self.shape})")
        return self._device.xp.to_host(self._data).item()

    def tolist(self) -> Any:
        return self._device.xp.to_host(self._data).tolist()

    def __float__(self) -> float:
        if self._requires_grad and _grad_state.requested:
            _warn_scalar_of_requires_grad()
        return float(_real_number(self.item()))

    def __int__(self) -> int:
        return int(_real_number(self.item()))

    def __complex__(self) -> complex:
        if self._requires_grad and _grad_state.requested:
            _warn_scalar_of_requires_grad()
        return complex(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of one element can be used as an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            many = "no values" if self._data.size == 0 else "more than one value"
            raise AmbiguousTruthValue(f"Boolean value of Tensor with {many} is ambiguous (use .any() or .all())")
        return bool(self.item())

    __hash__ = object.__hash__

    # PyTorch's storage-level names: absent here, each an AttributeError that says why (_NotOffered)
    (storage, untyped_storage, storage_offset, storage_type, as_strided, as_strided_, as_strided_scatter, resize,
     resize_, resize_as, resize_as_, is_set_to, is_shared, share_memory_, new_empty_strided) = (
        _NotOffered(name, _NO_STORAGE) for name in _STORAGE_LEVEL_NAMES)
    # PyTorch's sparse-layout names: absent here, each an AttributeError that says why and the dense way
    (to_sparse, to_sparse_coo, to_sparse_csr, to_sparse_csc, to_sparse_bsr, to_sparse_bsc, indices, values,
     coalesce, is_coalesced, sparse_dim, dense_dim, sparse_mask, crow_indices, col_indices, ccol_indices, row_indices,
     sparse_resize_, sparse_resize_and_clear_, smm, sspaddmm, resize_as_sparse_) = (
        _NotOffered(name, _NO_SPARSE_LAYOUT) for name in _SPARSE_LAYOUT_NAMES)
    # removed from PyTorch itself: the replacement is named (PyTorch's Tensor never had matrix_rank)
    symeig, eig, lstsq, solve = (_NotOffered(name, removed_from_pytorch(name))
                                 for name in ("symeig", "eig", "lstsq", "solve"))

    # -------------------------------------------------------------- autograd
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if type(flag) is not bool:  # PyTorch's rule: a truthy 'x', 1 or np.True_ is not taken as True
            raise RuntimeError("requires_grad must be a bool")
        if self._node is not None and not flag:
            raise RuntimeError(
                "requires_grad can only be turned off on leaf tensors; use .detach()"
            )
        if not flag and "_made_at" in self.__dict__:  # an argument handle of mg.func.grad/vjp/jacrev: the
            raise RuntimeError(  # transform's derivative would silently become 0 (PyTorch refuses the call)
                "You are attempting to call Tensor.requires_grad_() (or perhaps using torch.autograd.functional.* "
                "APIs) inside of a function being transformed by a functorch transform. This is unsupported, "
                "please attempt to use the functorch transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call "
                "requires_grad_() outside of a function being transformed instead.")
        if flag and not is_floating(self._data.dtype):  # PyTorch's RuntimeError, in its words
            raise RuntimeError(
                f"Only Tensors of floating point and complex dtype can require gradients (this one is "
                f"{self._data.dtype}: gradients of integer or bool values are not defined)"
            )
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return ``self``."""
        if type(requires_grad) is not bool:  # PyTorch's TypeError, in its words
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type(requires_grad).__name__}")
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by ``backward`` (``None`` until then).  A non-leaf tensor's is
        None unless it :meth:`retain_grad`; reading it then warns, as PyTorch's does (the usual
        slip: a gradient looked for on ``w * 1``, a view, or ``w.to(...)``, not on ``w``)."""
        if self._grad is None and self._node is not None and not self.retains_grad:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=stacklevel_outside_the_engine())
        return self._grad

    @grad.deleter
    def grad(self) -> None:
        """``del t.grad``: PyTorch's spelling of ``t.grad = None``."""
        self.grad = None

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            # PyTorch's exception types and words (torch 2.13): a TypeError for a non-Tensor, else RuntimeError
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value is self:  # backward would accumulate into the tensor's own values
                raise RuntimeError("can't assign Variable as its own grad")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                                   f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                                   f"the same size")
            if value._device is not self._device:
                raise RuntimeError(f"attempting to assign a gradient located on device '{value.device}' to a "
                                   f"tensor located on device '{self.device}'. Please ensure that the gradient "
                                   f"and the tensor are on the same device")
            if value.dtype != self.dtype:  # .grad always has its tensor's dtype
                raise RuntimeError(f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor with "
                                   f"dtype '{self.dtype}' (grad has dtype {value.dtype}, tensor has dtype "
                                   f"{self.dtype}): assign grad.to({self.dtype})")
        self._grad = value

    @property
    def is_leaf(self) -> bool:
        """True if no recorded op produced this tensor."""
        return self._node is None

    @property
    def output_nr(self) -> int:
        """Which output of :attr:`grad_fn` this tensor is (0 for a leaf, and for an op's one output;
        k for output k of a custom ``autograd.Function``): PyTorch's, for
        ``GradientEdge(t.grad_fn, t.output_nr)``, the edge ``get_gradient_edge(t)`` gives."""
        node = self._node
        shown = None if node is None else node.__dict__.get("output_of")
        return 0 if shown is None else shown[1]

    @property
    def grad_fn(self) -> Any:
        """The tape node that produced this tensor (``None`` for leaves); for an output of a custom
        ``autograd.Function`` with several, the Function's one node, which they share, as PyTorch's
        (each is recorded as a piece of the node's packed output: ``tape.output_of``)."""
        node = self._node
        if node is None:
            return None
        shown = node.__dict__.get("output_of")
        return node if shown is None or shown[0] is None else shown[0]

    def to_dense(self, dtype: Any = None, *, masked_grad: bool | None = None) -> Tensor:
        """The tensor itself, as PyTorch's ``to_dense`` of a dense (strided) tensor answers -- every tensor
        here is dense -- or, given another ``dtype``, its cast (``x.to(dtype)``).  ``masked_grad`` concerns
        sparse inputs only."""
        return self if dtype is None or as_dtype(dtype) == self._data.dtype else self.to(dtype)

    def detach(self) -> Tensor:
        """The same values (shared memory), cut off from the tape."""
        data = self._data
        if data.ndim >= 4 and not data.flags.c_contiguous and data.strides[1] > data.strides[0]:
            # a result in the engine's own channel-major layout (a convolution's product, a gradient
            # of one; PyTorch's is row-major) is laid out row-major before it is shared: once shared,
            # ``view`` can no longer lay it out, and ``conv(x).detach().view(n * c, 1, h, w)`` (Opacus's
            # backward hooks, of the gradient they are handed) would be refused where PyTorch answers.
            # Channels-last keeps its layout; a layout of PyTorch's own with dim 1 outermost (the clone
            # of ``x.transpose(0, 1)``, an elementwise result of one) cannot be told from the engine's
            # and is laid out row-major too -- its ``stride()``, and its source's, then differ from
            # PyTorch's.  (ndim first: a flags object costs 80 ns, and most tensors detached are < 4-d.)
            self._lay_out_row_major()
        t = Tensor._wrap(self._data, None, self._device)
        t._version_box = shared_version(self, t)  # shares memory, so shares the version stamp
        t._alias_group = AliasGroup(t)  # but not the history: a recorded write into it stays its own
        t._dual_lineage = (None, self._dual_lineage)  # nor the tangents: forward mode's writes stay its own
        return t

    def module_load(self, other: Tensor, assign: bool = False) -> Tensor:
        """PyTorch's extension point of ``load_state_dict`` when
        ``mg.__future__.set_swap_module_params_on_conversion(True)``: ``self`` is the module's parameter
        or buffer, ``other`` the state dict's value, and what this returns is swapped into ``self``'s
        place -- ``self.copy_(other).detach()`` (the module's dtype and device, the given values), or with
        ``assign`` ``other.detach()`` (the state dict's tensor itself).  It must return a new object.
        A Tensor subclass overrides it to transform what it loads (PyTorch reaches such a transform
        through ``__torch_function__``, which the engine does not have)."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

    def detach_(self) -> Tensor:
        """Cut this tensor off from the tape in place: it becomes a leaf that does not require grad
        (PyTorch's ``detach_``, which ``zero_grad(set_to_none=False)`` uses on a gradient made with
        ``create_graph=True``).  A view of a tensor on the tape refuses, as PyTorch's: detaching it
        would leave its base's history pointing at memory it no longer follows."""
        if ((self._node is not None and self._node.op.is_view) or self._is_unrecorded_view()) \
                and not self.__dict__.get("_fresh_result"):
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._node, self._requires_grad = None, False
        if self._tangents is not None:
            self._tangents = None
        self.__dict__.pop("_retains_grad", None)
        return self

    def _is_unrecorded_view(self) -> bool:
        """Whether a view op made this tensor off the tape (of a tensor that needs no gradient, or
        under no_grad): it shows memory another tensor first held (its box's first entry), and is
        not a detached alias (``detach()``, ``.data``, which head their own group)."""
        box = self._version_box
        if len(box) == 1 or box[1].__class__ is not list or _is_first(box[1][0], self):
            return False
        group = self._alias_group
        return group is None or not _is_first(group.members[0], self)

    def _become_view(self, view: Tensor, what: str) -> Tensor:
        """``x.unsqueeze_(0)``, ``x.t_()``, ...: this tensor takes ``view``'s shape and strides and,
        on the tape, its history (``view`` is a view of this tensor, made by a recorded view op).
        The memory and its version stay the same, so the values every node saved and every other
        view of the memory are untouched, as PyTorch's in-place view changes leave them."""
        if _grad_state.enabled and (self._requires_grad or self._no_grad_view):
            self._refuse_view_change(what)
        if view._node is None and self._node is not None:
            _refuse_unrecorded_view_change(what)
        self._data, self._node = view._data, view._node
        self._tell_segment_of_history()
        if view._tangents is not None or self._tangents is not None:
            self._tangents = view._tangents
        if self.__dict__.get("_retains_grad") and self._node is not None:  # PyTorch moves it to the new value
            self.register_hook(_RetainGrad(self))
        return self

    def _refuse_view_change(self, what: str) -> None:
        """PyTorch's refusals of an in-place view change in grad mode, the same as of a write: the
        tensor's history would change under a leaf that requires grad (the leaf itself, or any view
        of it, however nested), or under a view made in no_grad mode, whose base's history it
        does not follow."""
        if self._node is None and self._requires_grad:
            raise RuntimeError(f"{what}: a leaf Variable that requires grad is being used in an in-place "
                               f"operation (PyTorch's refusal); use the out-of-place form (x = x.{what[:-1]}(...))")
        if self._no_grad_view:
            raise RuntimeError(
                f"{what}: a view was created in no_grad mode and is being modified in place with grad mode "
                f"enabled (PyTorch's refusal); use the out-of-place form (x = x.{what[:-1]}(...))")
        if _views_a_leaf_that_requires_grad(self):
            raise RuntimeError(f"{what}: a view of a leaf Variable that requires grad is being used in an "
                               f"in-place operation (PyTorch's refusal: it would change the leaf's view); "
                               f"use the out-of-place form (x = x.{what[:-1]}(...))")

    def register_hook(self, fn: Callable[[Tensor], Tensor | None]) -> _HookHandle:
        """Call ``fn(grad)`` when this tensor's gradient is computed.

        ``fn`` may return a Tensor to use instead of ``grad``.  For a leaf the
        hook sees the total gradient of one backward call, before it is
        accumulated into ``.grad``.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")  # PyTorch's words
        if self._node is not None:
            if self._node.hooks is None:
                self._node.hooks = HookList()
            hooks = self._node.hooks
        else:
            if self._hooks is None:
                self._hooks = HookList()
            hooks = self._hooks
        # PyTorch runs retain_grad's hook after every other hook of the tensor, whenever each was
        # registered (.grad holds the gradient as the hooks left it), and the node's pre-hooks after both
        # (HookList.place: by rank)
        return _HookHandle(hooks, hooks.add(fn))

    def retain_grad(self) -> None:
        """PyTorch's: keep this non-leaf tensor's gradient in ``.grad`` (summed over backward
        passes, as a leaf's), ``mg.grad``'s passes included; a leaf keeps its own already.  After
        a recorded in-place change it is the gradient of the tensor's new value, as in PyTorch."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if _grad_state.transforms:  # the gradient would be the transform's, its history leaking out
            raise RuntimeError(_RETAIN_GRAD_IN_TRANSFORM)
        if self._node is None or self.retains_grad:
            return
        self._retains_grad = True
        self.register_hook(_RetainGrad(self))

    @property
    def retains_grad(self) -> bool:
        """Whether :meth:`retain_grad` was called on this non-leaf tensor (False for a leaf)."""
        return self._node is not None and self.__dict__.get("_retains_grad", False)

    def register_post_accumulate_grad_hook(self, fn: Callable[[Tensor], None]) -> _HookHandle:
        """Call ``fn(self)`` once per ``backward()``, as soon as this leaf's ``.grad``
        holds its final value for that backward -- *during* the backward pass,
        while the engine is still computing other gradients.

        The hook receives the tensor (read ``t.grad``) and returns nothing.  It
        fires for leaves that got a gradient; ``mg.grad`` (which accumulates
        nothing) does not fire it.  Data-parallel training uses it to start
        each bucket's all-reduce while backward continues.
        """
        if self._node is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")  # PyTorch's words
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")  # PyTorch's words
        if self._post_hooks is None:
            self._post_hooks = _PostHooks()
            weakref.finalize(self, self._post_hooks.clear)  # a dead tensor's hooks stop counting
        return _HookHandle(self._post_hooks, self._post_hooks.add(fn))

    # -------------------------------------------------------------- in place
    def _bump_version(self) -> None:
        # The version is the sequence number of the latest in-place change, so
        # a node can tell "changed after I saved it" by comparing with its own seq.
        self._version_box[0] = next(_seq)

    def _records_write(self, value: Any = None) -> bool:
        """Whether an in-place change of this tensor by ``value`` must be recorded: grad mode is
        on and this tensor or the value requires grad (else it is a plain write, checked by
        :meth:`_check_inplace`)."""
        return _grad_state.enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad))

    def _write_result(self, result: Tensor, what: str) -> Tensor:
        """The last step of an in-place method computed out of place (``x.relu_()``,
        ``inplace=True``): ``result`` written into this tensor, which is returned -- recorded
        (:meth:`_rebase`) where this tensor or the result requires grad in grad mode, a plain
        write elsewhere."""
        if result is self:  # nothing to write (dropout in evaluation, p = 0)
            return self
        if batch_write_guard is not None:  # (the op's own name in vmap's refusal, not copy_'s)
            batch_write_guard(self, what, result)
        if self._records_write(result):
            self._check_rebase(what, result)
            return self._rebase(result, what)
        return self.copy_(result)  # (forward mode carries the tangent as for any copy_)

    def _write_drawn(self, drawn: Tensor, what: str, operand: Any = None) -> Tensor:
        """A random fill's write (``x.normal_()``, ``what`` its name): ``drawn``, a fresh sample in
        this tensor's shape, written with ``copy_`` (its in-place rules, its record).  Inside ``vmap``
        the guard judges the fill (:class:`RandomFill`: a draw of the vmap's randomness, with
        ``operand``) and not its ``copy_``, whose value -- made in the call -- it would count as the
        example's own: a fill into an unbatched tensor under ``randomness="same"`` writes one draw
        for the batch, as PyTorch's does."""
        if batch_write_guard is None:
            return self.copy_(drawn)
        batch_write_guard(self, what, RandomFill(operand))
        _judged_fill.target = self
        try:
            return self.copy_(drawn)
        finally:
            _judged_fill.target = None

    def _check_rebase(self, what: str, value: Any = None) -> None:
        """The in-place changes :meth:`_rebase` records, and PyTorch's refusals beside them
        (``value``: the written operand, for :meth:`_check_write`)."""
        if capture_guard is not None:  # inside an mg.func transform: not into a tensor it closes over
            capture_guard(self, what)
        if self._node is None and self._requires_grad:
            raise RuntimeError(f"{what}: a leaf Variable that requires grad is being used in an in-place "
                               f"operation (PyTorch's refusal); update it under mg.no_grad(), or work on "
                               f"a copy (x = x.clone())")
        if what != "__setitem__":  # (which checks the region it writes, not all of this tensor)
            self._refuse_overlapping_write(what)
        if _views_a_leaf_that_requires_grad(self):
            raise RuntimeError(f"{what}: a view of a leaf Variable that requires grad is being used in an "
                               f"in-place operation (PyTorch's refusal: it would change the leaf); update it "
                               f"under mg.no_grad(), or work on a copy (x = x.clone())")
        self._check_write(what, value)

    def _lay_out_row_major(self) -> None:
        """Lay out row-major the memory of an op's result (or a gradient) that no other tensor holds.

        PyTorch's is row-major where NumPy's layout may differ -- a convolution's result is a view of
        its channel-major product, an advanced index's a transposed one, a convolution's input gradient
        too -- so ``conv(x).view(n, -1)`` is a view there (``view`` asks for this first).  The values
        stay; no other tensor reads this memory, and the nodes that saved the old array still read it
        (as after a recorded in-place change).  A view op's result keeps its layout: PyTorch refuses to
        view it across its strides, and so does ``view`` (a tensor that ever shared memory has a
        version box of two entries, see :func:`shared_version`)."""
        box = self._version_box
        if self._data.flags.c_contiguous or (len(box) > 1 and not self.__dict__.get("_fresh_result")) \
                or self._memory_is_shared():
            return
        self._data = self._device.xp.ascontiguousarray(self._data)
        if len(box) > 1:  # a fresh result (:func:`fresh_result`): its new memory is its own, as its stamp
            self._version_box = [box[0]]
        segment = self._node.segment if self._node is not None else None
        if segment is not None:  # a checkpoint recording: its value lives here now (a write off the tape
            segment.now_shows(self._node, self._data)  # marks it written; the tensor is alive while this is)

    def _memory_is_shared(self) -> bool:
        """Whether a write into this tensor must go into its memory: another live tensor shares
        it (a view, a base, a detached alias), or a holder the engine cannot see may (``.data``'s
        alias, ``from_numpy``'s array)."""
        return self._alias_group is not None or self._memory_lent or _shares_memory(self)

    def _write_source(self, *operands: Any) -> Tensor:
        """The tensor an in-place op of this tensor and ``operands`` computes from: this one, or,
        where a recorded write will go into shared memory, a recorded copy -- so the values the op
        saves for backward are not the ones the write overwrites (PyTorch saves the original
        self likewise)."""
        if self._memory_is_shared() and any(self._records_write(o) for o in (None, *operands)):
            return self.clone()
        return self

    def _rebase(self, result: Tensor, what: str) -> Tensor:
        """A recorded in-place change, as PyTorch rebases a tensor's history: this tensor takes
        ``result`` -- computed out of place from it, so the tape holds the op -- as its value and
        its history (``x += y`` is ``x = x + y`` for every holder of ``x``).  Where no other
        tensor shares its memory, the new value is the result's own array and the old memory is
        left as it was, so every node that saved the old value still reads what it saved: no
        "modified by an in-place operation" error where the values are intact.  Where another
        does (a view, a base, a detached alias), the change goes into the memory, for them all
        (:func:`write_into_shared_memory`).
        """
        if result is self:  # nothing was written (an empty region)
            return self
        if result.shape != self.shape:
            raise RuntimeError(f"{what}: output with shape {list(self.shape)} doesn't match the broadcast "
                               f"shape {list(result.shape)}")
        if result.dtype != self.dtype:  # PyTorch keeps the tensor's dtype (the cast is recorded too)
            if not castable_in_place(result.dtype, self.dtype):  # (as the unrecorded write refuses it)
                raise RuntimeError(f"{what}: result type {result.dtype} can't be cast to the desired output type "
                                   f"{self.dtype}")
            result = result.to(self.dtype)
        # fill_, zero_, and copy_ (whose result never reads the old value, even when it requires grad
        # through the source): the old value stays on the tape, as in PyTorch, its gradient 0 (a
        # where that never picks it); an optimizer then steps a zero gradient, not a missing one
        if self._requires_grad and (not result._requires_grad or what == "copy_"):
            never = Tensor._wrap(self._device.xp.zeros((), dtype=bool), None, self._device)
            result = self.where(never, result)
        if self._memory_is_shared():  # every holder of the memory sees the change
            return write_into_shared_memory(self, result, what)
        if _shares_memory(result):  # a view of the value (copy_ of a tensor): memory of its own
            result = result.clone()
        old = self._version_box
        if len(old) > 1 and old[1].__class__ is list and old[1][0]() is not self \
                and not self.__dict__.get("_fresh_result"):
            # a view whose base is gone: PyTorch's stays a view of it, so views taken of this one later
            # are not its views but the base's, whose history theirs is (see :func:`history_root`)
            self._view_of_a_gone_base = True
        box = result._version_box  # the result's own box: a node that saved it sees later changes of this tensor
        box[0] = result._node.seq if result._node is not None else next(_seq)  # a newer stamp, not newer than
        self._data, self._version_box = result._data, box  # the node's own (no false error)
        return self._take_history(result)

    def _take_history(self, result: Tensor) -> Tensor:
        """This tensor's history becomes ``result``'s (its value is, or has just been made, the same):
        its node, whether it requires grad, a kept gradient's hook and forward mode's tangents."""
        self._node, self._requires_grad = result._node, result._requires_grad
        if self.__dict__.get("_retains_grad") and self._node is not None:  # PyTorch moves it to the new value
            self.register_hook(_RetainGrad(self))
        if result._tangents is not None or self._tangents is not None:
            self._tangents = result._tangents
        self._tell_segment_of_history()
        return self

    def _tell_segment_of_history(self) -> None:
        """This tensor took its node's history after the op that made it (an in-place write, ``x.t_()``):
        a checkpoint segment recording the node learns of it (see ``Segment.adopted``)."""
        node = self._node
        if node is not None and node.segment is not None:
            node.segment.adopted(node, self)

    def _refuse_overlapping_write(self, what: str, region: Any = None) -> None:
        """PyTorch's refusal of a write into an expanded view, whose elements share memory (its
        RuntimeError): into this tensor's array, or ``region``, the view of it a basic index writes
        (``x.expand(3, 4)[0] = v`` is refused, ``x.expand(3, 4)[:, 0] = v`` repeats nothing and writes)."""
        if _repeats_elements(self._data if region is None else region):
            raise RuntimeError(f"{what}: unsupported operation: more than one element of the written-to tensor "
                               f"refers to a single memory location (an expanded view); clone() it first")

    def _check_write(self, what: str, value: Any = None) -> None:
        """What every in-place change checks first: a view made in no_grad mode of a tensor that
        requires grad is not changed in grad mode (PyTorch's refusal: the change would be half
        recorded), outside the forward-mode transforms a tensor that carries a tangent is
        not written, and inside ``vmap`` not a tensor the function closes over (``value``: the
        written operand, see :data:`batch_write_guard`)."""
        if batch_write_guard is not None and _judged_fill.target is not self:
            batch_write_guard(self, what, value)
        # the tensor's flags before grad mode, a thread-local property that costs more: an optimizer's
        # parameters are no views and require grad
        if self._no_grad_view and _grad_state.enabled:
            raise RuntimeError(
                f"{what}: a view was created in no_grad mode and is being modified in place with grad mode "
                f"enabled (PyTorch's refusal: the change would not reach its base's history); make the view "
                f"and the change both inside the no_grad block, or both outside it")
        if (not self._requires_grad and len(self._version_box) > 1 and _grad_state.enabled  # (own memory: no call)
                and _views_a_leaf_that_requires_grad(self)):
            # a view made before its base was set to require grad: the write is unrecorded, and would change the leaf
            raise RuntimeError(f"{what}: a view of a leaf Variable that requires grad is being used in an "
                               f"in-place operation (PyTorch's refusal: it would change the leaf); update it "
                               f"under mg.no_grad()")
        if self._custom_function_view is not None and _grad_state.enabled and self._requires_grad:
            raise RuntimeError(f"{what}: {self._custom_function_view}")
        if _forward.written is None and self._tangents and not _forward.levels.isdisjoint(self._tangents):
            raise RuntimeError(
                f"{what}: in-place changes to a tensor that carries a forward-mode tangent "
                f"(inside mg.func.jvp) would leave the tangent stale; use the out-of-place op"
            )

    def _check_inplace(self, what: str, value: Any = None) -> None:
        self._check_write(what, value)
        if not _grad_state.enabled:
            return
        if self._requires_grad:
            raise RuntimeError(
                f"{what}: in-place changes to a tensor that requires grad are not recorded; "
                f"use the out-of-place op, or wrap the update in mg.no_grad()"
            )
        if isinstance(value, Tensor) and value._requires_grad:
            raise RuntimeError(
                f"{what}: writing a value that requires grad into a tensor in place would lose its "
                f"gradient (in-place ops are not recorded); build the result out of place instead "
                f"(mg.where, mg.concatenate, mg.stack, mg.pad), or detach the value"
            )

    def _carry_tangents(self, kind: str, operand: Any, index: Any = None) -> Any:
        """Forward mode (``mg.func``): the tangents this tensor has after the write
        (``None``: no tangent involved).  Computed before the write, set after it."""
        return _forward.written(self, kind, operand, index) if _forward.active else None

    def _take_tangents(self, tangents: dict) -> None:
        """Forward mode: the tangents this tensor has after an in-place write, on the node that made
        it too, as on a view or base the write reaches (``func/inplace.py``): a backward over the tape
        rebuilds a saved value with its node's tangents (``y.mul_(1.5)`` under ``no_grad``, then
        ``y * y``: the rebuilt ``y`` kept the tangent from before the write)."""
        self._tangents = tangents or None
        if self._node is not None:
            self._node.tangents = self._tangents

    def _is_cpu_scalar(self) -> bool:
        """A zero-dimensional CPU tensor: PyTorch lets it meet tensors of any device, as a number
        (the one exception to "one op, one device"; ``tape.apply`` and the in-place writes ask)."""
        return self._data.ndim == 0 and self._device.type == "cpu"

    def _on_my_device(self, value: Tensor, what: str) -> Tensor:
        """``value``, of another device, for a write into this tensor: a CPU scalar tensor moves
        here, as PyTorch lets a zero-dim CPU tensor meet a GPU tensor; another tensor is an error."""
        if value._is_cpu_scalar():
            return value.to(self.device)
        raise RuntimeError(f"{what}: value is on {value.device}, tensor is on {self.device}")

    def _set_inplace(self, value: Any, what: str) -> Tensor:
        # copy_, fill_, zero_ on the tape: the value broadcast, as a result (the test inline, as above)
        if what == "copy_":
            refuse_partial_overlap(what, self, value)
        if _grad_state.enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
            self._check_rebase(what, value)
            return self._rebase(out_of_place_writes[what.rstrip("_")](self, value, None), what)
        self._check_write(what, value)  # (nothing here requires grad in grad mode)
        if what == "copy_":  # (fill_ and zero_ of an expanded view: one value everywhere, as PyTorch allows)
            self._refuse_overlapping_write(what)
        if self._device.type == "meta":  # checked as on any device, with no values to write (nn.init's
            if not isinstance(value, Tensor):  # fills of a model built on meta): a fill value is written
                scratch = host_numpy.empty((), self._data.dtype)  # into one element, whose refusals
                scratch[...] = fill_scalar(what, value, self._data.dtype)  # ("a" in float32) are the CPU's
            return self
        tangents = self._carry_tangents(what.rstrip("_"), value)
        if isinstance(value, Tensor):
            if value._device is not self._device:
                value = self._on_my_device(value, what)
            value = value._data
        else:
            value = fill_scalar(what, value, self._data.dtype)  # (x.fill_(-1) of uint8: 255, as PyTorch's)
        if _write_guard is not None:
            _write_guard(self)
        self._data[...] = value
        self._bump_version()
        if tangents is not None:
            self._take_tangents(tangents)
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        if index.__class__ is bool:
            return self._set_at_bare_bool(index, value)
        records = self._records_write(value)  # x[i] = v on the tape: x becomes x with v placed at i
        if records:
            self._check_rebase("__setitem__", value)
        else:
            self._check_write("__setitem__", value)  # (nothing here requires grad in grad mode)
        idx = normalize_index(index, self)
        if 0 in self._data.strides and not any(_index_kind(it) in "ao" for it in idx):  # (rare: an expanded view)
            self._refuse_overlapping_write("__setitem__", self._data[idx])  # (PyTorch's index_put_ writes on)
            if _repeats_elements(self._data):  # PyTorch's write: a copy_ into the view of the region, whose
                view = self[index]  # history (and forward-mode tangent) is followed where the whole's repeats elements
                view.copy_(value) if isinstance(value, Tensor) else view.fill_(value)
                return
        if isinstance(value, Tensor) and value._device is not self._device:
            value = self._setitem_value_here(value, idx)
        elif isinstance(value, Tensor):
            self._refuse_setitem_overlap(index, idx, value)
        try:
            if records:
                self._rebase(out_of_place_writes["setitem"](self, value, idx), "__setitem__")
            else:
                self._write_item(idx, value)
        except IndexError:
            explain_index_error(index, self)  # NumPy refused an index array: PyTorch's words for it
            raise
        except (ValueError, TypeError) as error:  # NumPy's words for a value that does not fit the region
            refuse_value_shape(self, idx, value, error)
            raise

    def __delitem__(self, index: Any) -> None:
        # Python's `del x[i]` on a class with __setitem__ alone raises AttributeError("__delitem__")
        raise TypeError("Tensor does not support deleting items")  # PyTorch's words (NumPy's: ValueError)

    def _refuse_setitem_overlap(self, index: Any, idx: tuple, value: Tensor) -> None:
        """``x[i] = v`` where ``v`` shares memory with ``x``: refused where PyTorch's write would be
        undefined -- a basic index is its ``copy_`` into the view (a zero-dim ``v`` its ``fill_``, which
        reads the one number first), an advanced one its ``index_put_`` (one mask and one number: its fill)."""
        kinds = [_index_kind(it) for it in idx]  # (one scan of the index for both rules)
        if value._data.ndim and "a" not in kinds and "o" not in kinds:
            refuse_partial_overlap("__setitem__", self, value, self._data[idx])
        elif "a" in kinds and not (
                value._data.size == 1 and getattr(getattr(index, "dtype", None), "kind", None) == "b"):
            refuse_overlap("__setitem__", self, (value,))

    def _set_at_bare_bool(self, index: bool, value: Any) -> None:
        """PyTorch's ``x[True] = v`` and ``x[False] = v`` (the bool alone, not in a tuple): True writes
        ``v`` into ``x[None]`` as a basic index writes (casting ``v``), False writes nothing and checks
        nothing but a number's conversion -- not even that ``x`` is a leaf requiring grad."""
        if index:
            self[None] = value
        elif isinstance(value, (int, float, complex)):
            fill_scalar("__setitem__", value, self._data.dtype)

    def _setitem_value_here(self, value: Tensor, idx: tuple) -> Tensor:
        """``value``, of another device, moved here for ``self[idx] = value`` by PyTorch's rules (a
        recorded move: its gradient goes back): a basic index (ints, slices, ``None``, ``...``) writes
        through ``copy_``, which takes a value from any device (``gpu_x[0] = cpu_row``), and an index
        array through ``index_put_``, which moves a zero-dim value only."""
        if value._data.ndim == 0 or not any(_index_kind(it) in "ao" for it in idx):
            return value.to(self.device)
        raise RuntimeError(f"__setitem__: value is on {value.device}, tensor is on {self.device} (with an index "
                           f"tensor, a value from another device must be zero-dimensional)")

    def _write_item(self, idx: tuple, value: Any) -> None:
        """``self[idx] = value`` in place, off the tape (``idx`` normalized)."""
        tangents = self._carry_tangents("setitem", value, idx)
        if isinstance(value, Tensor):
            if value._device is not self._device:
                value = self._on_my_device(value, "__setitem__")
            refuse_index_put_cast(self, idx, value)
            value = value._data
        elif isinstance(value, (int, float, complex)):  # by PyTorch's checked conversion (x[0] = -1 of uint8)
            value = fill_scalar("__setitem__", value, self._data.dtype)
        if getattr(value, "ndim", 0) and value.shape[0] == 1:  # (a bool mask's NumPy assignment keeps them)
            value = value.reshape(without_leading_ones(value.shape, self._data[idx].ndim))
        if _write_guard is not None:
            _write_guard(self)
        self._data[idx] = value
        self._bump_version()
        if tangents is not None:
            self._take_tangents(tangents)

    def copy_(self, src: Any, non_blocking: bool = False) -> Tensor:
        """Copy ``src``'s values into this tensor (in place), broadcast to its shape and cast to its
        dtype.  ``src`` may live on another device, as in PyTorch: it is moved first with
        ``src.to(self.device)`` (an explicit, differentiable transfer).  ``non_blocking`` is
        accepted for PyTorch's signature; transfers here are always synchronous."""
        if isinstance(src, Tensor) and src._device is not self._device:
            src = src.to(self.device)
        # PyTorch broadcasts the source to this tensor's shape only: more dims (NumPy's assignment drops
        # leading 1s, a (1, 3) source into (3,)) or a larger size ((2, 2) into (2, 1), NumPy's ValueError)
        # is its RuntimeError in its words
        self._refuse_wider_operand(src)
        return self._set_inplace(src, "copy_")

    def fill_(self, value: Any) -> Tensor:
        if isinstance(value, Tensor):  # PyTorch's: a 0-d tensor of any device, read as a number
            if value._data.ndim:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{value._data.ndim} dimensions.")
            if value._device is not self._device:
                value = value.to(self.device)
        return self._set_inplace(value, "fill_")

    def zero_(self) -> Tensor:
        return self._set_inplace(0, "zero_")

    def _arith_inplace(self, other: Any, fn: str, scaled: bool = False) -> Tensor:
        if isinstance(other, (list, tuple)):  # PyTorch's: a tensor or a number (NumPy would read an array)
            short = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div"}[fn]
            raise TypeError(f"{short}_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        if isinstance(other, host_numpy.generic):  # a NumPy number is weak, as a Python one (x.mul_(np.float64(.1)))
            other = other.item()
        # x += y on the tape: x = x + y for every holder of x (the test inline: optimizers step here)
        if _grad_state.enabled and (self._requires_grad or (isinstance(other, Tensor) and other._requires_grad)):
            self._check_rebase(fn + "_", other)
            refuse_partial_overlap(_INPLACE_NAMES.get(fn, fn) + "_", self, other)
            source = self._write_source(other) if fn in ("multiply", "divide") else self  # (they save it)
            return self._rebase(_ARITH[fn](source, other), fn + "_")
        self._check_write(fn + "_", other)  # (nothing here requires grad in grad mode)
        self._refuse_overlapping_write(fn + "_")
        refuse_partial_overlap(_INPLACE_NAMES.get(fn, fn) + "_", self, other)
        # (before the tangents: their twin would fail with expand's message; a tensor's array, whose shape
        # reads in 0.1 us where Tensor.shape builds a Size in 0.6: every optimizer step's x.add_(y) is here)
        self._refuse_wider_operand(other._data if isinstance(other, Tensor) else other)
        tangents = self._carry_tangents(fn, other)
        if isinstance(other, Tensor):
            if other._device is not self._device:
                other = self._on_my_device(other, fn + "_")
            other = other._data
        if _write_guard is not None:
            _write_guard(self)
        try:
            if self._data.dtype is HALF and fn in _SCALING and number_beside_half(other, self._data.ndim):
                _scale_half_in_float32(self._device.xp, self._data, fn, other)
            else:
                if other.__class__ not in _PY_NUMBERS and other.dtype is not self._data.dtype and not scaled:
                    other = _in_dtype_computed(other, self._data)  # (a number or this dtype: the common cases)
                getattr(self._device.xp, fn)(self._data, other, out=self._data, casting="same_kind")
        except OverflowError:  # a Python int out of an integer tensor's range: PyTorch wraps it (uint8 += 300 adds 44)
            if other.__class__ is not int:
                raise
            getattr(self._device.xp, fn)(self._data, wrapped_int(other, self._data.dtype), out=self._data)
        except TypeError as e:  # NumPy's UFuncTypeError: PyTorch's in-place rule decides, with its error
            result = getattr(self._device.xp, fn)(self._data, other).dtype
            if not castable_in_place(result, self._data.dtype):
                name = {"subtract": "sub", "multiply": "mul", "divide": "div"}.get(fn, fn)
                raise RuntimeError(f"{name}_: result type {result} can't be cast to the desired output type "
                                   f"{self.dtype}") from e
            getattr(self._device.xp, fn)(self._data, other, out=self._data, casting="unsafe")
        self._bump_version()
        if tangents is not None:
            self._take_tangents(tangents)
        return self

    def _sub_scaled_(self, g: Any, scale: float) -> Tensor:
        """``self -= scale * g``, unrecorded: an optimizer's step, ``g`` an array of this tensor's
        shape.  The same arithmetic as ``self.sub_(scale * g)``, bit for bit, but a large CPU tensor
        is updated a chunk at a time through one cache-sized scratch array.  Why: the temporary
        ``scale * g`` is the parameter's size, and glibc serves it from fresh pages once its heap
        has shrunk -- 1,024 page faults a step for a 4 MiB weight in the data-parallel benchmark's
        ranks, where the update took 4.4 ms instead of 1.5.  A small one is the floor's ``p -= lr * g``
        directly: ``sub_``'s general checks (an operand that is a tensor, a number, another dtype or
        shape) cannot apply to a fresh array of this dtype and shape."""
        data = self._data
        if (self._device.xp is not numpy_namespace or _forward.active
                or (_grad_state.enabled and self._requires_grad) or g.__class__ is not data.__class__
                or g.shape != data.shape or g.dtype != data.dtype or not (data.flags.c_contiguous
                                                                        and g.flags.c_contiguous)):
            return self.sub_(scale * g)
        self._check_write("sub_", g)  # (no _refuse_overlapping_write: a C-contiguous array repeats no element)
        if _write_guard is not None:
            _write_guard(self)
        if data.size < 2 * _SCRATCH_SIZE:  # (sub_'s path took 3.3 us more a parameter: the MLP step's biases)
            host_numpy.subtract(data, scale * g, out=data)
            self._bump_version()
            return self
        flat, g_flat = data.reshape(-1), g.reshape(-1)
        scratch = _scratch(data.dtype)
        for start in range(0, flat.size, scratch.size):
            part = flat[start:start + scratch.size]
            scaled = scratch[:part.size]
            host_numpy.multiply(g_flat[start:start + part.size], scale, out=scaled)
            host_numpy.subtract(part, scaled, out=part)
        self._bump_version()
        return self

    def _refuse_wider_operand(self, other: Any) -> None:
        """PyTorch's RuntimeError where ``other`` does not broadcast to this tensor's own shape (NumPy's
        ``out=`` raises a ValueError; a :class:`BroadcastMismatch` is both): ``x.add_(y)`` with more or
        larger dimensions in ``y``, or sizes that do not broadcast at all."""
        shape = tuple(getattr(other, "shape", ()))
        if not shape or shape == self._data.shape:  # (a number or a 0-d operand broadcasts to any shape: no
            return  # call of broadcast_shapes, about 3 us, on each optimizer step's x.mul_(beta))
        with broadcast_refusal(self._data, other):
            wide = host_numpy.broadcast_shapes(self._data.shape, shape)
        if wide != self._data.shape:
            raise BroadcastMismatch(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                                    f"{list(wide)}")

    def add_(self, other: Any = UNSET, *more: Any, alpha: Any = UNSET) -> Tensor:
        """``self += alpha * other`` (``x.add_(other, alpha=1)``; PyTorch's deprecated ``x.add_(alpha, other)`` too)."""
        if more or other is UNSET:  # (PyTorch's deprecated add_(alpha, other), or no other)
            other, alpha = other_and_alpha("add_", other, more, alpha)
        elif alpha is UNSET:
            alpha = 1
        if alpha.__class__ is not int:  # (an alpha of 1.0, 1+0j, True is checked too: PyTorch reads its type)
            alpha = self._refuse_alpha(other, alpha, "add_")
        if alpha != 1 or alpha is True:  # (alpha * other is already in the dtype PyTorch computes the sum in)
            return self._arith_inplace(self._scaled_operand(other, alpha), "add", scaled=True)
        return self._arith_inplace(other, "add")

    def _refuse_alpha(self, other: Any, alpha: Any, name: str) -> Any:
        """``add_``/``sub_``'s ``alpha`` read as PyTorch reads its Scalar (a tensor: its number, or, requiring
        grad or of 1+ dims, its TypeError) and checked against the dtype of the whole sum."""
        alpha = number(name, "alpha", alpha)
        if isinstance(other, host_numpy.generic):
            other = python_number(other)
        its = other.dtype if isinstance(other, Tensor) else _WEAK_KIND.get(type(other), self.dtype)
        refuse_alpha(alpha, self.dtype if _CATEGORY[self.dtype.kind] >= _CATEGORY[its.kind] else its)
        return alpha

    def _scaled_operand(self, other: Any, alpha: Any) -> Any:
        """``alpha * other`` for ``add_``/``sub_``, computed where PyTorch computes it: in the dtype of
        the whole sum, so a uint8 ``other`` of 200 times 2 is 400 beside a float tensor, not 144 (a NumPy
        number is weak: ``np.uint8(200)`` is the int 200)."""
        if isinstance(other, host_numpy.generic):
            other = python_number(other)
        if isinstance(other, Tensor) and other.dtype != self.dtype:
            if _takes_dtype_of(self, other):
                other = other.to(self.dtype)  # a lower category, or a 0-d tensor of the same: this dtype
            elif _CATEGORY[other.dtype.kind] == _CATEGORY[self.dtype.kind]:  # the wider of the two (cast back)
                other = other.to(host_numpy.promote_types(self.dtype, other.dtype))
        if not isinstance(alpha, Tensor):  # an alpha the dtype cannot hold is PyTorch's error, not a wrapped int or inf
            alpha = fill_scalar("add_", alpha, other.dtype if isinstance(other, Tensor) else self.dtype)
            if self._data.dtype is HALF and getattr(other, "dtype", HALF) is HALF:  # (by identity: see HALF)
                return self._half_scaled_operand(other, alpha)
        return other * alpha

    def _half_scaled_operand(self, other: Any, alpha: Any) -> Tensor:
        """``alpha * other`` for a float16 ``add_``/``sub_``, as ``mg.add`` computes it: ``alpha`` (and a number
        ``other``) rounded to float16, the product in float32, so that the in-place sum is taken in float32
        and rounded to float16 once, as PyTorch's half kernel."""
        half = host_numpy.float16
        if not isinstance(other, Tensor):
            other = Tensor._wrap(self._device.xp.asarray(half(other), dtype=host_numpy.float32), None, self._device)
        return other.float() * float(half(alpha))

    def sub_(self, other: Any = UNSET, *more: Any, alpha: Any = UNSET) -> Tensor:
        """``self -= alpha * other`` (``x.sub_(other, alpha=1)``; PyTorch's deprecated ``x.sub_(alpha, other)`` too)."""
        if more or other is UNSET:  # (PyTorch's deprecated sub_(alpha, other), or no other)
            other, alpha = other_and_alpha("sub_", other, more, alpha)
        elif alpha is UNSET:
            alpha = 1
        if self.dtype.kind == "b" or isinstance(other, bool) or (isinstance(other, Tensor) and other.dtype.kind == "b"):
            # mg.subtract's rule, in place: NumPy would subtract True as 1 from an integer tensor
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                               "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        if alpha.__class__ is not int:
            alpha = self._refuse_alpha(other, alpha, "sub_")
        if alpha != 1 or alpha is True:
            return self._arith_inplace(self._scaled_operand(other, alpha), "subtract", scaled=True)
        return self._arith_inplace(other, "subtract")

    def mul_(self, other: Any) -> Tensor:
        return self._arith_inplace(other, "multiply")

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        if rounding_mode is not None:  # PyTorch's floor/trunc division, written back (``divide_``)
            return self.divide_(other, rounding_mode=rounding_mode)
        return self._arith_inplace(other, "divide")

    # ``t += [1, 2]``: PyTorch's in-place operators take a tensor or a number, and hand anything else
    # back to Python (see foreign_operand), where NumPy would read a sequence as an array
    def __iadd__(self, other: Any) -> Tensor:
        return NotImplemented if foreign_operand(other) else self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return NotImplemented if foreign_operand(other) else self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return NotImplemented if foreign_operand(other) else self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return NotImplemented if foreign_operand(other) else self.div_(other)

    # ------------------------------------------------------------ conversion
    # ``to``, ``cpu``, ``cuda``, ``float``, ``double``, ... are differentiable
    # (they record a cast or a device move), so they come with the method table.
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        """Export the array through DLPack (``np.from_dlpack(t)``, ``torch.from_dlpack(t)``).

        On the CPU the export is marked read-only, as :meth:`numpy` is, so a
        consumer that honours DLPack's read-only flag (NumPy does) cannot
        change a value the tape saved behind its back.  What remains: a
        consumer that ignores the flag (PyTorch), a legacy consumer that asks
        for no DLPack version (the flag cannot be expressed), and GPU arrays
        get a writable alias; writing through it, like writing into ``.data``,
        bypasses the version check.  Ask for ``copy=True`` for a writable copy.
        """
        a = self._data
        version = kwargs.get("max_version")
        if self._device is cpu and version is not None and version[0] >= 1 and kwargs.get("copy") is not True:
            a = a.view()
            a.flags.writeable = False
        return a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self._data.__dlpack_device__()

    # ----------------------------------------------------------------- print
    # ------------------------------------------------------- pickle and copy
    def __reduce_ex__(self, protocol: Any) -> tuple[Any, tuple]:
        """Pickle as the values (a host copy), the dtype, the device's name, ``requires_grad``
        and the instance's own attributes -- as PyTorch, not the history, the gradient or the
        hooks: an unpickled tensor is a fresh leaf (a DataLoader worker sends batches this way)."""
        extra = {k: v for k, v in self.__dict__.items() if k not in _NOT_COPIED and k != "_grad"}
        if self._device.type == "meta":  # a shape and a dtype, no values
            return _rebuild_meta_tensor, (type(self), self.shape, self._data.dtype.str, self._requires_grad, extra)
        # the values in their layout (NumPy pickles any other than row- or column-major as row-major:
        # a channels-last tensor's copy would not be channels-last): row-major in the order of the strides
        axes = layout_axes(None, self._data)
        host = host_numpy.asarray(self._device.xp.to_host(self._data).transpose(axes), order="C")
        return _rebuild_tensor, (type(self), host, str(self._device), self._requires_grad, extra, axes)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """A new leaf with a copy of the values (in their layout: a transposed tensor's copy is
        transposed), ``requires_grad``, a deep copy of ``.grad`` and of the instance's attributes
        (not hooks).  Like PyTorch, only leaves can be deep-copied: a copy of an intermediate result
        would have to copy its whole history.  Tensors that do not require grad and share memory
        (views of one tensor, a state dict's tied weights) share the one copy of it that one
        ``deepcopy`` call makes, as PyTorch's copy each storage once (:func:`_deep_copied_memory`)."""
        if self._node is not None:
            raise RuntimeError("only leaf tensors (made by you, not by an op) can be deep-copied; deep-copy "
                               "t.detach() for the values")
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new._device, new._node, new._version_box, new._requires_grad = self._device, None, [0], self._requires_grad
        new._data = _deep_copied_memory(self, new, memo)
        if transform_births:  # new memory, made inside the innermost open mg.func transform
            new._born = transform_births[-1]
        for k, v in self.__dict__.items():
            if k not in _NOT_COPIED:
                setattr(new, k, copy.deepcopy(v, memo))
        return new

    def __repr__(self) -> str:
        if self._device.type == "meta":  # no values to print: PyTorch's tensor(..., device='meta', size=(3, 4))
            arr, body = self._data, f"..., device='meta', size={self.shape}"
        else:
            arr = self._device.xp.to_host(self._data)
            body = format_array(arr, prefix="tensor(")
        extras = []
        if arr.size == 0 and self._device.type != "meta":
            # ``[]`` shows neither the shape nor whether the elements would be integers: PyTorch names
            # the size (unless it is one dim) and every dtype but the default float one
            if arr.ndim != 1:
                extras.append(f"size={tuple(arr.shape)}")
            if arr.dtype != get_default_dtype():
                extras.append(f"dtype={arr.dtype.name}")
        elif arr.dtype not in _dtypes_printed_without_name():
            extras.append(f"dtype={arr.dtype.name}")
        if self._device is not cpu and self._device.type != "meta":
            extras.append(f"device='{self._device}'")
        if self._node is not None:
            extras.append(f"grad_fn={self._node.op.name}")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + body + ("" if not extras else ", " + ", ".join(extras)) + ")"


def _dtypes_printed_without_name() -> tuple:
    """The dtypes a tensor prints without ``dtype=``, as PyTorch's: the default float dtype, the complex
    dtype of its precision, int64 and bool (``set_default_dtype(float64)`` then names float32)."""
    default = get_default_dtype()
    complex_twin = host_numpy.result_type(default, host_numpy.complex64)
    return (default, complex_twin, host_numpy.dtype("int64"), host_numpy.dtype("bool"))


def _refuse_unrecorded_view_change(what: str) -> None:
    """An in-place view change (``t_``, ``transpose_``, ``squeeze_``, ...) of a tensor with history,
    under no_grad or inference_mode, where nothing records it: the history would hand backward a
    gradient in the old layout.  PyTorch lets it through: a gradient of the wrong shape is its error at
    backward, and a square ``t_()`` sends the untransposed gradient on, a wrong value.  Dropping the
    history instead (as the engine did) made the tensor a leaf and its gradient silently stopped there."""
    raise RuntimeError(
        f"{what}: an in-place view change of a tensor with history under no_grad (or inference_mode) is not "
        f"recorded, so its history would differentiate the old layout (PyTorch's backward then fails on the "
        f"shape, or sends a square transpose's gradient on untransposed); change the layout with grad mode "
        f"on, or of x.detach()")


# bound to this object's graph, not its value; or to its memory (a detached alias's group lists weak
# references to the views that share its history: a copy or an unpickled tensor has memory of its own)
_NOT_COPIED = ("_hooks", "_post_hooks", "_tangents", "_alias_group", "_accumulate_grad", "_accumulate_grad_metadata")


def _deep_copied_memory(t: Tensor, new: Tensor, memo: dict[Any, Any]) -> Any:
    """The array of ``new``, the deep copy of ``t``: a copy in ``t``'s layout, or -- for a host tensor
    that does not require grad -- a view of the one copy that this deepcopy call (its ``memo``) makes
    of the memory ``t`` views, at ``t``'s offset and strides; ``new`` then shares its version with
    the tensors that view that copy.  So ``copy.deepcopy({"x": x, "v": x[1:]})`` writes into
    ``d["x"]`` show in ``d["v"]``, as PyTorch's deepcopy copies a storage once.  (A parameter's copy
    keeps memory of its own: what views it is a history, not a deep copy.)"""
    arr = t._data
    if t._requires_grad or t._device is not cpu or type(arr) is not host_numpy.ndarray or not arr.size:
        return arr.copy(order="K")
    owner = _host_memory_owner(arr)
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return arr.copy(order="K")
    key = ("minigrad_ckpt.deepcopied_memory", id(owner))
    if key not in memo:  # (the owner is kept in the entry: its id names it for the whole call)
        memo[key] = owner, new, owner.copy(order="K")
    _, first, copied = memo[key]
    if first is not new:  # the same memory, but no view of the first copy (PyTorch's are no views:
        new._version_box = shared_version(first, new)  # _is_view() is False): its history stays its own,
        new._alias_group = AliasGroup(new)  # as a detached alias's (detach_() takes it, a write moves no other)
    if arr is owner:
        return copied
    memory = copied.reshape(-1, order="A").view(host_numpy.uint8)  # the copy's bytes, in address order
    offset = arr.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return host_numpy.ndarray(arr.shape, arr.dtype, buffer=memory, offset=offset, strides=arr.strides)


def _host_memory_owner(arr: Any) -> Any:
    """The NumPy array that owns the memory ``arr`` views: the last array of its ``base`` chain, which
    passes through the holder object ``as_strided`` puts between an expanded view and its base."""
    owner, link = arr, arr.base
    while link is not None:
        if isinstance(link, host_numpy.ndarray):
            owner = link
        link = getattr(link, "base", None)
    return owner


def _rebuild_tensor(cls: type, array: Any, device: str, requires_grad: bool, extra: dict[str, Any],
                    axes: tuple[int, ...] | None = None) -> Tensor:
    """Unpickle a tensor written by ``Tensor.__reduce_ex__``: a leaf on ``device``, laid out with
    ``axes`` outermost first (``array`` is row-major in that order; None: as it is, older pickles)."""
    dev = get_device(device)
    if axes is not None:
        array = array.transpose(sorted(range(len(axes)), key=list(axes).__getitem__))
    t = cls._wrap(dev.xp.asarray(canonical_array(array)), None, dev)  # (NumPy unpickles another dtype object)
    t._requires_grad = bool(requires_grad)
    t.__dict__.update(extra)
    return t


def _rebuild_meta_tensor(cls: type, shape: tuple[int, ...], dtype: str, requires_grad: bool,
                         extra: dict[str, Any]) -> Tensor:
    """Unpickle a meta tensor written by ``Tensor.__reduce_ex__`` (a shape and a dtype)."""
    dev = get_device("meta")
    t = cls._wrap(MetaArray(shape, host_numpy.dtype(dtype)), None, dev)
    t._requires_grad = bool(requires_grad)
    t.__dict__.update(extra)
    return t


def _holds_tensor(data: list | tuple) -> bool:
    """Whether nested lists hold a Tensor anywhere: one C-level type scan per level, so a long
    flat list of numbers costs little."""
    kinds = set(map(type, data))
    if any(issubclass(kind, Tensor) for kind in kinds):
        return True
    return bool(kinds & {list, tuple}) and any(isinstance(item, (list, tuple)) and _holds_tensor(item)
                                               for item in data)


def _tensors_as_numbers(data: Any) -> Any:
    """Nested lists with each Tensor in them replaced by its one value, a NumPy scalar of its dtype
    (PyTorch reads ``torch.tensor([r[0], r[1]])`` so); a bigger tensor there is PyTorch's error."""
    if isinstance(data, Tensor):
        if data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars "
                             f"(a tensor of shape {tuple(data.shape)} inside a list)")
        return to_host(data._data).reshape(())[()]
    if isinstance(data, (list, tuple)):
        return [_tensors_as_numbers(item) for item in data]
    return data


def _legacy_source(args: tuple, dtype: Any, device: Any) -> Any:
    """What PyTorch's legacy ``torch.Tensor(*args)`` makes, in ``dtype`` (None: the default float): an
    alias of a Tensor argument, or ``(data, dtype, device)`` for :meth:`Tensor._init_data`."""
    from .backend import _default_dtype

    typed = dtype is not None
    dtype = as_dtype(dtype) if typed else _default_dtype[0]
    sized = len(args) == 1 and isinstance(args[0], Size)  # Tensor(x.size()): a shape, as PyTorch's
    if sized or all(isinstance(a, (int, host_numpy.integer)) and not isinstance(a, (bool, host_numpy.bool_))
                    for a in args):
        dev = get_device(device)  # sizes (none: an empty tensor); PyTorch's memory is uninitialised, ours zeros
        shape = tuple(args[0]) if sized else tuple(int(a) for a in args) if args else (0,)
        return dev.xp.zeros(shape, dtype=dtype), None, dev
    if len(args) > 1:
        raise TypeError(f"Tensor(): sizes must be ints, got {tuple(type(a).__name__ for a in args)}")
    (data,) = args
    if isinstance(data, Tensor):
        if typed and data.dtype != dtype:  # torch.LongTensor(float_tensor) is refused, as here
            raise TypeError(f"expected a tensor of dtype {dtype}, got {data.dtype}")
        return data[...] if data._node is not None or data._requires_grad or data._tangents else data.detach()
    if isinstance(data, (int, float, complex, bool, host_numpy.generic)):
        raise TypeError(f"Tensor(): data must be a sequence (got {type(data).__name__})")
    return data, dtype, device


def _copy_of(t: Tensor, dtype: Any, device: Any) -> tuple[Any, Device]:
    """``Tensor(t)``: a copy of ``t``'s array, moved to ``device`` and cast to ``dtype`` if given, in
    ``t``'s layout as PyTorch's ``preserve_format`` copy keeps it (``mg.tensor(x)`` and ``Module.to``'s
    casts and moves of a channels-last or transposed tensor stay so; ``ndarray.copy()`` alone is
    row-major)."""
    dev = get_device(device) if device is not None else t._device
    arr = t._data
    if dev is not t._device:
        arr = dev.xp.asarray(to_host(arr))
    cast = arr if dtype is None else arr.astype(as_dtype(dtype), copy=False)
    if isinstance(cast, MetaArray):  # (no values to lay out: a meta tensor's strides are row-major)
        return cast.copy(), dev
    return laid_out(cast, None, like=t._data, copy=cast is arr), dev  # (astype made a new one: no copy)


# ---------------------------------------------------------------------------
# Indices as plain data
# ---------------------------------------------------------------------------
def without_leading_ones(shape: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """``shape`` without the leading 1s that take it past ``ndim`` dims: PyTorch's ``x[i] = v``
    drops a value's leading size-1 dims before broadcasting it to the indexed region, so a
    ``(1, 4)`` value fills a row of 4 (``h[t] = out`` for an ``out`` of one row) -- a bool mask
    or a recorded write too, where NumPy's assignment and ``broadcast_to`` would refuse."""
    k = 0
    while len(shape) - k > ndim and shape[k] == 1:
        k += 1
    return shape[k:]


def refuse_value_shape(x: Tensor, idx: tuple, value: Any, error: Exception) -> None:
    """PyTorch's RuntimeError for ``x[idx] = value`` where ``value`` does not broadcast to the region
    ``x[idx]`` (its leading 1s dropped), on the path where NumPy refused it in its own words and
    types (a ValueError, or a TypeError for a region of one element); returns if that was not why.
    PyTorch's words depend on the index: an index of ints and slices copies into a view, whose
    ``expand`` refuses; one holding an index tensor or mask is ``index_put_``'s shape mismatch."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return
    region = x._data[idx].shape
    if not value_fits_region(shape, region):
        if is_basic_index(idx):
            raise expand_mismatch(without_leading_ones(tuple(shape), len(region)), region) from error
        raise index_put_shape_mismatch(shape, region) from error


def value_fits_region(shape: tuple[int, ...], region: tuple[int, ...], leading_ones: bool = True) -> bool:
    """Whether a value of ``shape`` broadcasts to an indexed ``region``, its leading 1s dropped first
    (``x[i] = v``'s rule; ``leading_ones=False``: as it is, ``index_put_``'s)."""
    if leading_ones:
        shape = without_leading_ones(tuple(shape), len(region))
    try:
        return host_numpy.broadcast_shapes(tuple(shape), tuple(region)) == tuple(region)
    except ValueError:
        return False


def index_put_shape_mismatch(shape: tuple[int, ...], region: tuple[int, ...]) -> RuntimeError:
    """PyTorch's ``index_put_`` error for a value that does not broadcast to the indexed region."""
    return RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
                        f"result of shape {list(region)}")


def is_basic_index(idx: Any) -> bool:
    """Whether a plain-data index holds only ints (a 0-d integer array too: PyTorch reads a 0-d index
    tensor as its int), slices, ``None`` and ``...`` -- a view's index, for which PyTorch's refusal
    speaks of ``expand``.  (``backend._is_basic_index`` asks a narrower question on the scatter-add
    path -- whether NumPy's ``+=`` can lose a repeated position -- and reads only exact types, for speed.)"""
    return all(isinstance(i, (int, slice, host_numpy.integer)) or i is None or i is Ellipsis
               or (getattr(i, "ndim", None) == 0 and i.dtype.kind in "iu")
               for i in (idx if isinstance(idx, tuple) else (idx,)))


def refuse_index_put_cast(x: Tensor, idx: tuple, value: Tensor) -> None:
    """PyTorch's RuntimeError for ``x[idx] = value`` where ``index_put_`` would cast ``value``.

    The (normalized) index holding an index array is ``index_put_``, which refuses another dtype:
    an integer array would write a float value truncated, or a complex one without its imaginary
    part.  One bool mask (the only index array; ints, slices, None and ``...`` beside it are views
    PyTorch takes first: ``x[mask, 1] = v``, ``x[:, mask] = v``) with a one-element value is
    PyTorch's ``masked_fill``, which casts as basic indexing does -- but not a complex value
    with an imaginary part into a real tensor.  A 0-d integer array is an integer to PyTorch
    (a select), a 0-d bool an index array."""
    if value.dtype == x.dtype:
        return
    arrays = [it for it in idx if _index_kind(it) in "ao"]
    if not arrays:
        return
    if len(arrays) == 1 and arrays[0].dtype.kind == "b" and arrays[0].ndim and value.size == 1:
        if value.dtype.kind == "c" and x.dtype.kind in "fiu" and value._device.xp.scalar(value._data).imag != 0:
            raise RuntimeError(f"{overflow_words(x.dtype)} (masked_fill of a complex value into a real tensor, "
                               f"as PyTorch's)")
        return
    refuse_value_shape(x, idx, value, None)  # PyTorch checks the shape first: a value of both is its shape error
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got {x.dtype} for "
                       f"the destination and {value.dtype} for the source (PyTorch's rule; cast the "
                       f"value: value.to({x.dtype.name}))")


# ---------------------------------------------------------------------------
# A tensor where PyTorch types a number
# ---------------------------------------------------------------------------
def number(name: str, param: str, value: Any, kind: str = "Number", *, position: int | None = None) -> Any:
    """``value`` of a parameter that PyTorch types as a number (its ``Scalar``, ``float`` or ``int``:
    ``alpha``, ``eps``, ``negative_slope``, ``p``, a ``diagonal`` offset, ...), read as PyTorch's
    argument parser reads it.  A Python int or float passes through untouched (the common call pays
    a test or two).  A tensor is read as its number only where PyTorch reads it so -- one of zero
    dims that does not require grad (an ``int`` parameter: an integer one; a ``SymInt`` -- PyTorch's
    type of a size-like int: ``triu``'s ``diagonal``, ``kthvalue``'s ``k``, a ``groups`` -- an
    integer tensor of one element, of any dims) -- and is otherwise PyTorch's ``TypeError``:
    read as a number, a tensor that requires grad
    would lose its gradient silently (``F.leaky_relu(x, w)`` did), or be differentiated through
    where PyTorch refuses (``x.add(y, alpha=w)``).  A NumPy number is read as its Python number, as
    PyTorch's parser reads it (an op keeps no ``np.float64`` that would widen a float32 result); an
    ``int`` or ``SymInt`` parameter refuses a float or a bool, as PyTorch's (its number was truncated)."""
    cls = value.__class__
    if cls is int or (cls is float and kind not in _INTEGRAL_KINDS):  # the common call
        return value
    if isinstance(value, Tensor):
        return _tensor_number(name, param, value, kind, position)
    return _plain_number(name, param, value, kind, position)


#: The parameter kinds PyTorch's parser reads as an integer (refusing a float or a bool).
_INTEGRAL_KINDS = ("int", "SymInt")


def numbers(name: str, kind: str = "Number", **values: Any) -> Any:
    """:func:`number` of each keyword's value, in order (a tuple; one value alone if one is given):
    ``eps, momentum = numbers("batch_norm", "float", eps=eps, momentum=momentum)``."""
    read = tuple(number(name, param, v, kind) for param, v in values.items())
    return read[0] if len(read) == 1 else read


def _plain_number(name: str, param: str, value: Any, kind: str, position: int | None = None) -> Any:
    """:func:`number` of what is not a Python int or float nor a tensor: a NumPy number becomes its
    Python number; a float or bool where an ``int`` is typed is PyTorch's ``TypeError``; anything
    else (None, a bool or complex where it may be one) passes as it is, for the caller to judge."""
    if kind in _INTEGRAL_KINDS and isinstance(value, (float, bool, complex, host_numpy.floating, host_numpy.bool_,
                                                      host_numpy.complexfloating)):
        raise TypeError(f"{name}(): argument {_named(param, position)} must be int, not {type(value).__name__} "
                        f"({value!r})")
    if kind == "float" and isinstance(value, (complex, host_numpy.complexfloating)):
        # PyTorch's words (its parser takes NumPy's complex too, dropping the imaginary part with a
        # warning; refused here, as a Python complex is there).  Let through, a complex eps or p made a
        # complex result of a real input (rms_norm, poisson_nll_loss) or failed deep in an op.
        raise TypeError(f"{name}(): argument {_named(param, position)} must be float, not complex ({value!r})")
    if isinstance(value, (host_numpy.number, host_numpy.bool_)):  # (NumPy's bool is not one of its numbers)
        return python_number(value)
    return value


def real_numbers(name: str, **values: Any) -> Any:
    """:func:`numbers` of Scalar parameters that a kernel for real numbers only reads (an activation's
    ``alpha``, ``negative_slope``, ``lambd``): a complex one is PyTorch's conversion of its Scalar to
    the input's real type -- its real part where the imaginary part is 0, else its RuntimeError.
    (``F.elu(x, alpha=1+1j)`` made a complex result of a real input where PyTorch refuses.)"""
    read = tuple(_to_real(number(name, param, v)) for param, v in values.items())
    return read[0] if len(read) == 1 else read


def _to_real(value: Any) -> Any:
    if value.__class__ is not complex:
        return value
    if value.imag != 0:
        raise RuntimeError("value cannot be converted to type float without overflow")  # PyTorch's words
    return value.real


def _tensor_number(name: str, param: str, value: Tensor, kind: str, position: int | None = None) -> Any:
    """:func:`number`'s tensor branch: PyTorch's number (``.item()``: a Python number of the tensor's
    kind, the one explicit transfer from a device), or its refusal."""
    check_tensor_number(name, param, value, kind, position=position)
    read = value.item()
    if kind != "float":
        return read
    if isinstance(read, complex):  # PyTorch's conversion of a complex tensor to its double
        if read.imag != 0:
            raise RuntimeError(f"value cannot be converted to type double without overflow ({name}: "
                               f"argument '{param}' is a float; the tensor's value {read} is complex)")
        read = read.real
    return float(read)


def check_tensor_number(name: str, param: str, value: Tensor, kind: str = "Number", *,
                        position: int | None = None) -> None:
    """PyTorch's refusal of ``value``, a tensor, for a parameter typed as a number (``kind``: ``Number``,
    ``float``, ``int`` or ``SymInt``), as its argument parser refuses it: a ``TypeError`` unless it has
    zero dims and does not require grad (an ``int``: unless it is a 0-d integer tensor; a ``SymInt``:
    unless it is an integer tensor of one element -- the parser reads ``numel() == 1`` there)."""
    if kind in _INTEGRAL_KINDS:
        data = value._data
        if data.dtype.kind not in "iu" or data.size != 1 or (kind == "int" and data.ndim):
            which = "a 0-d integer tensor" if kind == "int" else "an integer tensor of one element"
            raise TypeError(f"{name}(): argument {_named(param, position)} must be int, not Tensor (a tensor of dtype "
                            f"{data.dtype} and shape {tuple(value.shape)}: only {which} reads as an int)")
        return
    if value._data.ndim != 0:
        raise TypeError(f"{name}(): argument {_named(param, position)} must be {kind}, not Tensor (a tensor of shape "
                        f"{tuple(value.shape)}; only a 0-d tensor reads as a number)")
    if value.requires_grad:
        raise TypeError(f"{name}(): argument {_named(param, position)} must be {kind}, not Tensor (a tensor that "
                        f"requires grad: read as a number, its gradient would be lost; pass .detach() for its value)")


def normalize_index(index: Any, x: Tensor, check_arrays: bool = False) -> tuple:
    """An index into ``x`` as plain data: ints, slices, None, Ellipsis and device arrays.

    Tensors and host arrays used as indices become arrays on ``x``'s device.
    Arrays and lists are copied, so that changing them later cannot change a
    recorded op; a Tensor's array is used as is, and ops that keep it watch
    its version (:func:`minigrad_ckpt.tape.watch_versions`).
    A wrong dtype, a second ellipsis, too many indices and out-of-range
    integers are an ``IndexError`` here, in PyTorch's words.  So are index
    arrays out of range on a device whose indexing wraps them silently (CuPy;
    one explicit read for all of them), or everywhere with ``check_arrays``:
    NumPy refuses them itself, at no cost, and :func:`explain_index_error`
    words its refusal as PyTorch's.
    """
    if type(index) is list and _list_reads_as_tuple(index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated (in PyTorch too); "
                      "use x[tuple(seq)] instead of x[seq]", UserWarning, stacklevel=stacklevel_outside_the_engine())
        index = tuple(index)
    items = index if type(index) is tuple else (index,)
    xp = x._device.xp
    out = []
    for it in items:
        if it is None or it is Ellipsis or type(it) is slice:
            out.append(it)
        elif isinstance(it, bool):
            out.append(xp.asarray(it))
        elif isinstance(it, (int, host_numpy.integer)):
            out.append(int(it))
        elif isinstance(it, Tensor):
            if it._data.ndim == 0 and it.dtype.kind in "iu" and it.dtype != host_numpy.uint8:
                out.append(int(it._device.xp.scalar(it._data)))  # an integer to PyTorch: a select, a view of x
                continue
            if it.dtype not in _INDEX_TENSOR_DTYPES:
                raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, got {it.dtype} "
                                 f"(PyTorch's rule; cast the index: index.long())")
            data = it._data if it.dtype != host_numpy.uint8 else _uint8_mask(it._data)
            out.append(data if it._device is x._device else _index_from_the_host(it, data, x))
        elif isinstance(it, xp.array_type) and xp.name != "numpy":
            if it.dtype.kind not in "iub":  # an index array already on the device
                raise IndexError(f"arrays used as indices must be integer or bool, got {it.dtype}")
            out.append(it.copy())  # the caller's array may change before backward reads the index
        else:
            arr = host_numpy.array(it)  # a copy, for the same reason (a Tensor index is versioned instead)
            if arr.dtype.kind not in "iub" or isinstance(it, host_numpy.ndarray) and (
                    arr.ndim == 0 or arr.dtype == host_numpy.uint8):
                arr = _unusual_host_index(arr)
                if type(arr) is int:
                    out.append(arr)
                    continue
            out.append(xp.asarray(arr))
    out = _check_index_bounds(out, x, check_arrays)
    return _ints_apart_from_arrays(out, x)


#: The dtypes PyTorch takes in an index tensor (int8 and int16 ones are refused, unlike NumPy arrays of them)
_INDEX_TENSOR_DTYPES = frozenset(host_numpy.dtype(name) for name in ("int64", "int32", "uint8", "bool"))


def _unusual_host_index(arr: Any) -> Any:
    """A host index array (a copy) that is not a plain integer or bool one of some dims, as PyTorch reads
    it once it made it a tensor: an empty float one (``x[[]]``) selects nothing, a 0-d integer one is an
    integer (a select, a view of x), a uint8 one is a mask; another dtype is an IndexError."""
    if arr.dtype.kind not in "iub":
        if arr.size:
            raise IndexError(f"arrays used as indices must be integer or bool, got {arr.dtype}")
        return arr.astype(host_numpy.int64)
    if arr.dtype == host_numpy.uint8:
        return _uint8_mask(arr)
    return int(arr) if arr.ndim == 0 and arr.dtype.kind != "b" else arr


def _index_from_the_host(index: Tensor, data: Any, x: Tensor) -> Any:
    """PyTorch's rule for an index tensor on another device than ``x``: a CPU one is copied to
    ``x``'s device, as a NumPy array index is (``gpu_x[torch.arange(3)]``, ``for i in
    torch.arange(n): gpu_x[i]``); one on a GPU cannot index another device's tensor."""
    if index._device.type != "cpu":
        raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed tensor "
                           f"({x.device}), got indices on {index.device}")
    return x._device.xp.asarray(data)


def explain_index_error(index: Any, x: Tensor) -> None:
    """Called where NumPy refused ``x[index]`` with an ``IndexError``: raise PyTorch's error for an
    index array out of range (which dim, which value) if that was the reason; return if not, for
    the caller to re-raise NumPy's own."""
    try:
        normalize_index(index, x, check_arrays=True)
    except IndexError as error:
        raise error from None


def _uint8_mask(data: Any) -> Any:
    """A uint8 tensor index is a mask in PyTorch (a deprecated spelling of a bool one), not integers."""
    warnings.warn("indexing with dtype uint8 is now deprecated (in PyTorch too), please use a dtype bool "
                  "instead: PyTorch reads it as a mask", UserWarning, stacklevel=stacklevel_outside_the_engine())
    return data != 0


def _repeats_elements(a: Any) -> bool:
    """Whether two elements of array ``a`` are one place in memory (a dim of stride 0: an expanded view)."""
    return (0 in a.strides and a.size > 1  # (NumPy gives an empty array zero strides)
            and any(not s and n > 1 for s, n in zip(a.strides, a.shape)))


def _index_kind(it: Any) -> str:
    """"a" an index array (a bool one of any rank but 0), "i" an integer (a 0-d integer array
    too, as PyTorch reads a 0-d tensor), "s" a slice, "n" None, "e" ``...``, "o" a 0-d bool."""
    if type(it) is slice:
        return "s"
    if type(it) is int:
        return "i"
    if it is None or it is Ellipsis:
        return "n" if it is None else "e"
    if it.ndim > 0:
        return "a"
    return "i" if it.dtype.kind != "b" else "o"


def _ints_apart_from_arrays(items: list[Any], x: Tensor) -> tuple:
    """``items`` rewritten so that NumPy places the result's dims where PyTorch does.

    PyTorch takes an integer (or a 0-d integer tensor) as a plain select before the
    index arrays, and ``None``/``...`` as dims kept whole; NumPy counts integers among the
    arrays.  The two differ when an integer stands apart from the arrays across a slice:
    ``x[1, :, [0, 2]]`` of a (4, 5, 3) ``x`` is (5, 2) in PyTorch, where NumPy puts the
    array's dim first, (2, 5).  Then the slices (and ``None``s) from the first to the last
    integer-or-array become arange arrays (and size-1 dims), each along a dim of its own
    in PyTorch's order around the arrays' broadcast dims: one run of arrays, which NumPy
    leaves in place.  A ``...`` between arrays is spelled out as its slices first: standing
    for no dim, NumPy still reads it as a gap (``x[1:2, [2, 0], ..., [1, 0]]`` of a (2, 3, 2)
    ``x`` is (1, 2) in PyTorch, (2, 1) in NumPy).
    """
    if len(items) < 3:  # an integer apart from the arrays takes a slice between them
        return tuple(items)
    kinds = "".join(_index_kind(it) for it in items)
    if "e" in kinds and ("a" in kinds or "o" in kinds):  # ... as the slices it stands for (NumPy: apart even when none)
        at = kinds.index("e")
        items = items[:at] + [slice(None)] * (x.ndim - _dims_of(items)) + items[at + 1:]
        kinds = "".join(_index_kind(it) for it in items)
    if "a" not in kinds and "o" not in kinds or "i" not in kinds:
        return tuple(items)
    marks = kinds.replace("o", "a") if "o" in kinds else kinds  # a 0-d bool is an index array to both
    first, last = marks.index("a"), marks.rindex("a")
    lo, hi = min(first, marks.index("i")), max(last, marks.rindex("i"))
    if marks[first:last + 1].strip("ai") or not marks[lo:hi + 1].strip("ai"):
        return tuple(items)  # PyTorch's order is NumPy's
    xp = x._device.xp
    arrays = [a for it in items[first:last + 1] if _index_kind(it) == "a"
              for a in (xp.nonzero(it) if it.dtype.kind == "b" else (it,))]
    try:  # (a 0-d bool broadcasts as the 1 or 0 places it selects along a dim it adds: PyTorch reads it)
        shape = xp.broadcast_shapes(*(a.shape for a in arrays), *((int(xp.scalar(it)),) for it, kind in
                                                                  zip(items, kinds) if kind == "o"))
    except ValueError:
        return tuple(items)  # arrays that do not broadcast: the indexing itself refuses them
    before = len(marks[lo:first].replace("i", ""))  # the slices' and Nones' dims on either side
    after = len(marks[last:hi + 1].replace("i", "").replace("a", ""))
    width, dim = before + len(shape) + after, _dims_of(items[:lo])
    out, seen, carried = list(items[:lo]), 0, bool(arrays)
    for it, kind in zip(items[lo:hi + 1], kinds[lo:hi + 1]):
        if kind in "sn":  # a dim of its own: among those before the arrays' dims, or after
            place = seen if seen < before else seen + len(shape)
            if kind == "s":
                steps = xp.arange(*it.indices(x.shape[dim]), dtype="int64")
                out.append(steps.reshape((1,) * place + (-1,) + (1,) * (width - place - 1)))
            seen += 1
        elif kind == "a":
            out.extend(xp.broadcast_to(a, shape).reshape((1,) * before + shape + (1,) * after)
                       for a in (xp.nonzero(it) if it.dtype.kind == "b" else (it,)))
        elif kind == "i" and not carried:  # no index array carries the 0-d bools' dims: this integer does
            out.append(xp.zeros((1,) * before + shape + (1,) * after, dtype="int64") + it)
            carried = True
        elif kind == "i":
            out.append(it)
        dim += _dims_of([it])
    return tuple(out + list(items[hi + 1:]))


def _dims_of(items: list[Any]) -> int:
    """How many dims the indices ``items`` take from the tensor (``...`` none)."""
    return builtins.sum(it.ndim if hasattr(it, "dtype") and it.dtype.kind == "b" else 1
                        for it in items if it is not None and it is not Ellipsis)


def _list_reads_as_tuple(index: list) -> bool:
    """PyTorch's (and old NumPy's) reading of a short list holding a sequence, a tensor, a
    slice, ``None`` or ``...``: a tuple of indices, one per dim (``x[[[0, 2], [1, 1]]]`` is
    ``x[[0, 2], [1, 1]]``, two elements; NumPy 1.23+ reads one integer array instead)."""
    if len(index) >= 32:
        return False
    return builtins.any(it is None or it is Ellipsis or isinstance(it, (list, tuple, slice, Tensor))
                        or hasattr(it, "__len__") for it in index)


def _check_index_bounds(items: list[Any], x: Tensor, check_arrays: bool) -> list[Any]:
    """Raise PyTorch's IndexError for an index that does not fit ``x``: its ints always (on the
    host), its integer arrays where the device would wrap them silently or ``check_arrays``.
    Returns ``items``, with several ``...`` spelled out as PyTorch reads them."""
    n_ell = builtins.sum(1 for it in items if it is Ellipsis)
    consumed = builtins.sum(
        (it.ndim if hasattr(it, "dtype") and it.dtype.kind == "b" else 1)
        for it in items if it is not None and it is not Ellipsis
    )
    if n_ell > 1:
        items = _several_ellipses(items, x.ndim - consumed, x.ndim)
        return _check_index_bounds(items, x, check_arrays)
    if consumed > x.ndim:
        raise _too_many_indices(items, x.ndim)
    dim = 0
    tensors = 0  # PyTorch names an index tensor's dim by its place among the index tensors
    arrays = []  # (integer array, size of its dim, the dim PyTorch's message names)
    masks = []  # bool ones: they select nothing if they hold no True, and then nothing is out of range
    for it in items:
        if it is Ellipsis:
            dim += x.ndim - consumed
            continue
        if it is None:
            continue
        if hasattr(it, "dtype") and it.dtype.kind == "b":
            if tuple(it.shape) != x.shape[dim:dim + it.ndim]:
                raise _mask_mismatch(tuple(it.shape), x.shape, dim)
            dim += it.ndim
            tensors += it.ndim
            masks.append(it)
            continue
        n = x.shape[dim]
        if type(it) is int:
            if not -n <= it < n:
                raise IndexError(f"index {it} is out of bounds for dimension {dim} with size {n}")
        elif hasattr(it, "dtype"):  # a 0-d one is a plain select in PyTorch, named by its own dim
            arrays.append((it, n, tensors if it.ndim else dim))
            tensors += it.ndim > 0
        dim += 1
    if arrays and (check_arrays or x._device.xp.wraps_bad_indices):
        _check_array_bounds(x._device.xp, arrays, masks)
    return items


def _too_many_indices(items: list[Any], ndim: int) -> IndexError:
    """PyTorch's words for more indices than dims; a lone int or slice of a 0-d tensor has its own."""
    lone = [it for it in items if it is not None and it is not Ellipsis]
    if ndim == 0 and len(lone) == 1 and type(lone[0]) is int:
        return IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                          "C++ to convert a 0-dim tensor to a number")
    if ndim == 0 and len(lone) == 1 and type(lone[0]) is slice:
        return IndexError("slice() cannot be applied to a 0-dim tensor.")
    return IndexError(f"too many indices for tensor of dimension {ndim}")


def _mask_mismatch(mask: tuple[int, ...], shape: tuple[int, ...], dim: int) -> IndexError:
    """PyTorch's words for a bool mask that does not fit the dims it indexes from ``dim`` on: the
    first place where they differ, counted in the mask and in the tensor."""
    k = next((i for i, n in enumerate(mask) if dim + i >= len(shape) or shape[dim + i] != n), len(mask) - 1)
    return IndexError(f"The shape of the mask {list(mask)} at index {k} does not match the shape of the indexed "
                      f"tensor {list(shape)} at index {dim + k}")


def _several_ellipses(items: list[Any], free: int, ndim: int) -> list[Any]:
    """``items`` holding more than one ``...``, as PyTorch reads them (NumPy refuses them): each
    stands for the ``free`` dims no other index takes, so the dims run past the tensor's; that
    is no matter where nothing but whole slices falls past its end (``x[..., 0, ...]`` is
    ``x[..., 0]``), and an IndexError where something does."""
    if free < 0:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = [part for it in items for part in ([slice(None)] * free if it is Ellipsis else [it])]
    excess = (builtins.sum(1 for it in items if it is Ellipsis) - 1) * free
    while excess and out and type(out[-1]) is slice and out[-1] == slice(None):
        out.pop()
        excess -= 1
    if excess:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (each '...' of several stands "
                         f"for the {free} dims no other index takes, as PyTorch reads them)")
    return out


def _check_array_bounds(xp: Any, arrays: list[tuple[Any, int, int]], masks: list[Any]) -> None:
    """PyTorch's IndexError for the first element out of range of the first array holding one;
    nothing if the arrays select nothing (PyTorch and NumPy index an empty broadcast freely)."""
    try:
        if not math.prod(host_numpy.broadcast_shapes(*(a.shape for a, _, _ in arrays))):
            return
    except ValueError:
        return  # arrays that do not broadcast: the indexing itself refuses them
    for (a, n, dim), (lo, hi) in zip(arrays, xp.extrema([a for a, _, _ in arrays])):
        if lo < -n or hi >= n:  # (the error's path reads again, for the first bad value in order)
            if any(not xp.scalar(xp.count_nonzero(m)) for m in masks):
                return  # a mask of no True: the broadcast is empty (or does not fit: the indexing refuses it)
            flat = xp.to_host(a).reshape(-1)
            bad = flat[(flat < -n) | (flat >= n)][0]
            if n == 0:  # PyTorch's words for an index array into an empty dim name neither
                raise IndexError(f"index is out of bounds for dimension with size 0 (index {bad}, dimension {dim})")
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}")


def _named(param: str, position: int | None) -> str:
    """A parameter as PyTorch's parser names it in its errors: ``'p'``, or ``'p' (position 2)``."""
    return f"'{param}'" if position is None else f"'{param}' (position {position})"

