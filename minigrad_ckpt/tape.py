"""The tape: Node records, and recording an op (playing it back is :mod:`.backward`).

Every differentiable call with an input that requires grad records a
:class:`Node`:

``op``        the op instance (its class is the recipe, its attributes the
              static arguments: an axis, a stride, a dropout key)
``inputs``    one *edge* per input: the producing Node for an intermediate
              tensor, the Tensor itself for a leaf that requires grad, or
              ``None`` for a constant
``saved``     ``(out, *inputs)`` -- the arrays backward may read, ``None``
              where the op did not declare it needs them
``versions``  the version boxes of the saved tensors (and of index tensors
              the op reads, see :func:`watch_versions`): a stamp newer than
              ``seq`` means an in-place change before backward -- an error,
              not a wrong answer
``seq``       a global sequence number: recording order.  Every node's inputs
              were recorded before it, so decreasing ``seq`` is a valid order
              for backward -- no recursive topological sort needed.

Nodes reference their inputs' *producers*, not the input tensors, so an
intermediate array that no backward needs is freed as soon as user code lets
go of it; the tape keeps exactly what ``saved`` lists.

The backward pass (:mod:`minigrad_ckpt.backward`) reads nodes and nothing
else: recording and playing back meet only in this record.

Activation checkpointing (:mod:`minigrad_ckpt.checkpoint`) reuses all of
this: a node inside a checkpointed segment keeps ``saved = DROPPED`` and its
segment replays the recorded ops to fill it in just before backward needs it.
"""

from __future__ import annotations

import operator
import threading
import warnings
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

from .backend import refuse_unbroadcastable
from .grad_mode import grad_off as _grad_off  # apply skips a thread-local read: per_op 8,368,616 -> 8,272,445
from .grad_mode import recorders as _recorders
from .grad_mode import state as _grad_state
from .memory import ledger as _ledger
from .memory import saved_arrays
from .tensor import CountedHooks, HookList, Tensor, _HookHandle, _HookHandles, _seq, shared_version, transform_births
from .user_frame import stacklevel_outside_the_engine

__all__ = ["Node", "NodePreHook", "AccumulateGradPreHook", "apply", "apply_move", "on_one_device", "device_mismatch",
           "FREED", "DROPPED",
           "walk", "watch_versions", "PackedSaved", "SavedTensor", "saved_hooks", "push_saved_hooks",
           "pop_saved_hooks", "this_threads_saved_hooks"]


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: The Python numbers an elementwise op takes as constants: never differentiated (a complex
#: number's partial is taken and dropped, unless the op ``drops_beside_constant``).
_NUMBER = (int, float)

#: ``node.saved`` after backward released it.
FREED = _Marker("FREED")
#: ``node.saved`` of a checkpointed node: recomputed by replay when needed.
DROPPED = _Marker("DROPPED")
#: What a ``grad_fn.register_prehook`` hook that returned ``(None,)`` makes of the gradient: none at all,
#: so the node's backward sends none (PyTorch's undefined gradient); the hooks after it see None.
UNDEFINED = _Marker("UNDEFINED")

#: PyTorch's saved-tensor hooks (``mg.autograd.graph.saved_tensors_hooks``), per thread as PyTorch's: the
#: active ``(thread, pack_hook, unpack_hook)`` of every thread, innermost last; only a thread's innermost
#: pair applies, to the ops that thread records (:func:`this_threads_saved_hooks`).  One tuple for all
#: threads, replaced whole (under a lock) as blocks open and close: recording reads one global, empty
#: where no thread has hooks -- a thread-local read per op would cost every op.
saved_hooks: tuple = ()
_saved_hooks_lock = threading.Lock()
_this_thread = threading.local()


def _thread_key() -> Any:
    """An object of this thread's own, alive as long as something holds it (an id could be reused)."""
    key = getattr(_this_thread, "key", None)
    if key is None:
        key = _this_thread.key = object()
    return key


def push_saved_hooks(pack_hook: Any, unpack_hook: Any) -> None:
    """Make ``(pack_hook, unpack_hook)`` this thread's innermost saved-tensor hooks."""
    global saved_hooks
    with _saved_hooks_lock:
        saved_hooks = (*saved_hooks, (_thread_key(), pack_hook, unpack_hook))


def pop_saved_hooks() -> None:
    """Take this thread's innermost saved-tensor hooks off (the block that pushed them closes)."""
    global saved_hooks
    key = _thread_key()
    with _saved_hooks_lock:
        i = max(i for i, entry in enumerate(saved_hooks) if entry[0] is key)
        saved_hooks = saved_hooks[:i] + saved_hooks[i + 1:]


def this_threads_saved_hooks() -> tuple[Any, Any] | None:
    """``(pack_hook, unpack_hook)``, this thread's innermost saved-tensor hooks, or None."""
    key = getattr(_this_thread, "key", None)
    for entry in reversed(saved_hooks):
        if entry[0] is key:
            return entry[1], entry[2]
    return None


def _packed(pack_hook: Any, t: Tensor) -> Any:
    """What ``pack_hook`` makes of the saved value ``t`` (a Tensor on the saved memory), which it must not
    write in place: the tensor the op computed with, and every view of it, would change under the
    graph where the engine cannot see it (PyTorch's refusal, in its words)."""
    before = t._version_box[0]
    packed = pack_hook(t)
    if t._version_box[0] != before:
        raise RuntimeError("A saved tensor pack hook is modifying its input in place. Tensors provided as input "
                           "to pack hook cannot be modified by in-place operations as this can lead to unexpected "
                           "side-effects. Please open an issue if you need to perform in-place operations on the "
                           "input to a pack hook.")
    return packed


class PackedSaved:
    """``node.saved`` of a node whose saved values went through pack hooks: recorded while
    saved-tensor hooks were active (every saved array), or given hooks one slot at a time
    (``grad_fn._raw_saved_self.register_hooks``).  Each slot is ``(unpack_hook, what the pack hook
    returned)`` for a packed value (the pack hook saw a Tensor sharing its memory), ``(None, value)`` for
    one kept as it is (numbers, empty slots, slots given no hooks); :meth:`unpack` rebuilds the saved
    tuple through the unpack hooks, at each backward that reads it."""

    __slots__ = ("slots",)

    def __init__(self, slots: tuple) -> None:
        self.slots = slots

    @classmethod
    def packing(cls, saved: tuple, pack_hook: Any, unpack_hook: Any, device: Any) -> PackedSaved:
        """Every saved array of ``saved`` packed by ``pack_hook``."""
        kind = device.xp.array_type
        return cls(tuple((unpack_hook, _packed(pack_hook, Tensor._wrap(v, None, device))) if v.__class__ is kind
                         else (None, v) for v in saved))

    def __len__(self) -> int:  # read as its slots, so the backward pass's release test frees it as a tuple
        return len(self.slots)

    def __getitem__(self, i: Any) -> Any:
        return self.slots[i]

    def unpack(self) -> tuple:
        return tuple(map(self.value, range(len(self.slots))))

    def value(self, i: int) -> Any:
        """Slot ``i``'s saved value, through its unpack hook if it was packed."""
        unpack_hook, v = self.slots[i]
        if unpack_hook is None:
            return v
        v = unpack_hook(v)
        if not isinstance(v, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                            f"type {type(v).__name__}")
        return v._data


#: PyTorch's words (torch 2.13) for reading a node's saved values after a backward freed them
FREED_SAVED_MSG = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
                    "have already been freed). Saved intermediate values of the graph are freed when you call "
                    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                    "graph a second time or if you need to access saved tensors after calling backward.")
#: a look at a checkpointed node's saved values replays its segment (``_saved_or_replayed``); hooks on them cannot
_DROPPED_SAVED_MSG = "the saved tensors of a node inside a checkpoint segment are recomputed in backward, not kept"


#: Which slot of ``node.saved`` (``(out, *inputs)``) each of PyTorch's ``grad_fn._saved_*`` names reads.
_SAVED_SLOT = {"_saved_result": 0, "_saved_self": 1, "_saved_other": 2}


class SavedTensor:
    """PyTorch's ``grad_fn._raw_saved_self`` (``_raw_saved_other``, ``_raw_saved_result``): one value a
    node saved, to give pack and unpack hooks of its own (``register_hooks``)."""

    __slots__ = ("node", "slot")

    def __init__(self, node: Node, slot: int) -> None:
        self.node = node
        self.slot = slot

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        """PyTorch's ``SavedTensor.register_hooks``: ``pack_hook`` takes the saved value now (a Tensor on
        its memory) and the node keeps only what it returns; backward gets the value back from
        ``unpack_hook(packed)`` each time it reads it.  One pair per value, as PyTorch's."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks expects its pack_hook and unpack_hook to be callable")
        node, saved = self.node, self.node.saved
        if saved is FREED:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
                               "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or if you "
                               "need to access saved variables after calling backward.")
        if saved is DROPPED or node.segment is not None:
            raise RuntimeError(_DROPPED_SAVED_MSG)
        slots = saved.slots if type(saved) is PackedSaved else tuple((None, v) for v in saved)
        if slots[self.slot][0] is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        value = slots[self.slot][1]
        packed = _packed(pack_hook, Tensor._wrap(value, None))
        if _ledger.enabled and type(saved) is tuple:  # the tape lets the value go: what the hook keeps is the user's
            kept = saved_arrays(node)
            _ledger.release(kept, node)
            gone = next((i for i, a in enumerate(kept) if a is value), None)
            _ledger.hold([a for i, a in enumerate(kept) if i != gone], "saved", node)
        node.saved = PackedSaved(slots[:self.slot] + ((unpack_hook, packed),) + slots[self.slot + 1:])


#: The namespace ``backward`` runs on when a gradient of a gradient is wanted
#: (``create_graph=True``): the same names as an array namespace, but
#: differentiable functions on Tensors.  It is built from the ops and the public
#: math, which sit above this layer, so it is bound late, once, by
#: :mod:`minigrad_ckpt.functional.public_names` (the package's one binding point).
differentiable_namespace: Any = None


class Node:
    """One recorded op application (see the module docstring).

    The fields every node needs are slots (fast to create: this runs once per
    op); the rarely used ones -- ``hooks``, ``segment``, ``replay`` -- live in
    the instance ``__dict__`` only when set, and read as ``None`` otherwise.
    ``_record`` fills the slots directly rather than calling ``Node(...)``:
    it runs once per op and the ``__init__`` call is a measurable part of it.
    """

    __slots__ = ("op", "inputs", "saved", "versions", "seq", "xp", "shape", "dtype",
                 "__dict__", "__weakref__")  # weakly referenced: the memory ledger follows its death

    hooks: HookList | None = None   # gradient hooks of the output tensor
    tangents: dict | None = None    # forward-mode tangents of the output (mg.func)
    input_tangents: tuple | None = None  # ... and of its constant inputs, by position
    segment: Any = None             # the checkpoint segment that owns this node
    replay: Any = None              # where replay takes each input from
    saved_slots: Any = None         # ... and which of (output, *inputs) the tape saved (see Segment.record)
    saved_hooks: Any = None         # ... and (pack, unpack, device) for its replayed values (_defer_packing)
    source: Any = None              # the user's line that called the op (noted in anomaly mode)
    backward_hooks: _NodeHooks | None = None  # grad_fn.register_hook's: called with what the op's backward returned
    owners: tuple = ()              # the mg.func transforms whose own backward pass recorded this node

    def __init__(self, op: Any, inputs: tuple, saved: Any, versions: tuple,
                 xp: Any, shape: tuple, dtype: Any) -> None:
        self.op = op
        self.inputs = inputs
        self.saved = saved
        self.versions = versions
        self.seq = next(_seq)
        self.xp = xp
        self.shape = shape
        self.dtype = dtype

    def name(self) -> str:
        """PyTorch's ``grad_fn.name()``: the op's name and ``Backward0`` (``MulBackward0``); a custom
        ``autograd.Function``'s is its class name and ``Backward`` (``ExpBackward``), as PyTorch's."""
        own = getattr(self.op, "grad_fn_name", None)
        return own if own is not None else f"{type(self.op).__name__}Backward0"

    def register_prehook(self, fn: Any) -> _HookHandle:
        """PyTorch's ``grad_fn.register_prehook(fn)``: ``fn(grad_outputs)`` -- a tuple holding the
        gradient of the node's output -- before the op's backward runs, after the output tensor's
        hooks (``register_hook``, ``retain_grad``); it may return a tuple to use instead.  A custom
        Function's node hands one gradient per output of its ``forward`` (its op's ``output_gradients``)."""
        if self.hooks is None:
            self.hooks = HookList()
        hook = NodePreHook(fn, self.op if hasattr(self.op, "output_gradients") else None)
        # last: the tensor's hooks registered later go before it (hook_rank)
        return _HookHandle(self.hooks, self.hooks.add(hook, len(self.hooks)))

    def register_hook(self, fn: Any) -> _HookHandle:
        """PyTorch's ``grad_fn.register_hook(fn)``: ``fn(grad_inputs, grad_outputs)`` once the op's
        backward has run -- ``grad_inputs`` one gradient per input (``None`` for a constant, or one no
        gradient is wanted for), ``grad_outputs`` the node's gradient, as tuples; it may return a
        tuple of ``grad_inputs`` to send on instead."""
        if self.backward_hooks is None:
            self.backward_hooks = _NodeHooks()
        return _HookHandle(self.backward_hooks, self.backward_hooks.add(fn))

    @property
    def metadata(self) -> dict:
        """PyTorch's ``grad_fn.metadata``: a dict of the user's, kept with the node."""
        meta = self.__dict__.get("metadata")
        if meta is None:
            meta = self.__dict__["metadata"] = {}
        return meta

    @property
    def saved_tensors(self) -> tuple:
        """PyTorch's ``grad_fn.saved_tensors`` of a custom Function's node (its ``grad_fn`` is its ctx): what
        ``save_for_backward`` saved, a RuntimeError once backward freed it; the engine's own nodes have
        none (an AttributeError, as PyTorch's ``MulBackward0``)."""
        read = getattr(self.op, "saved_tensors_of", None)
        if read is None:
            raise AttributeError(f"{self.name()!r} object has no attribute 'saved_tensors'")
        saved = self._saved_or_replayed()
        values = saved.unpack() if type(saved) is PackedSaved else saved
        return read(self, values[0], tuple(values[1:]))

    @property
    def saved_variables(self) -> tuple:
        """PyTorch's deprecated name of :attr:`saved_tensors` (with its DeprecationWarning)."""
        if getattr(self.op, "saved_tensors_of", None) is None:  # (an AttributeError, as saved_tensors')
            raise AttributeError(f"{self.name()!r} object has no attribute 'saved_variables'")
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return self.saved_tensors

    @property
    def _saved_result(self) -> Tensor:
        """PyTorch's ``grad_fn._saved_result``: the output the node saved for backward."""
        return self._saved_value(0, "_saved_result")

    @property
    def _saved_self(self) -> Tensor:
        """PyTorch's ``grad_fn._saved_self``: the first input the node saved (the leaf itself for a leaf; an
        intermediate value comes back without its history, where PyTorch's keeps it)."""
        return self._saved_value(1, "_saved_self")

    @property
    def _saved_other(self) -> Tensor:
        """PyTorch's ``grad_fn._saved_other``: the second input the node saved."""
        return self._saved_value(2, "_saved_other")

    def _saved_or_replayed(self) -> Any:
        """``saved`` for a look at it: a checkpointed node's values replayed by its segment (and let go
        at once), as PyTorch's checkpoint recomputes them; a RuntimeError once backward freed them."""
        saved = self.saved
        if saved is DROPPED and self.segment is not None:
            saved = self.segment.replayed_for_a_look(self)
        if saved is FREED or saved is DROPPED:
            raise RuntimeError(FREED_SAVED_MSG if saved is FREED else _DROPPED_SAVED_MSG)
        return saved

    def _saved_value(self, slot: int, attribute: str) -> Tensor:
        """Slot ``slot`` of what the node saved (through its unpack hook if pack hooks took it),
        as a Tensor on its memory; an AttributeError where the engine's op saved no tensor there."""
        saved = self._saved_slots(attribute)
        hooked = type(saved) is PackedSaved and saved.slots[slot][0] is not None
        value = saved.value(slot) if type(saved) is PackedSaved else saved[slot]
        edge = self.inputs[slot - 1] if slot else None
        if not hooked and isinstance(edge, Tensor) and edge._data is value:
            return edge  # a leaf saved as it is: the leaf, as PyTorch's (an unpacked one is a new Tensor there too)
        return Tensor._wrap(value, None)

    def _saved_slots(self, attribute: str) -> Any:
        """``saved``, checked: still held, and holding a tensor in ``attribute``'s slot."""
        saved = self._saved_or_replayed()
        slot = _SAVED_SLOT[attribute]
        value = saved[slot] if slot < len(saved) else None
        if type(saved) is PackedSaved and value is not None:
            if value[0] is not None:
                return saved  # packed: a tensor went to the pack hook
            value = value[1]
        if value is None or not hasattr(value, "shape"):  # not saved, or a Python number
            raise AttributeError(f"{self.name()!r} object has no attribute {attribute!r}")
        return saved

    @property
    def _raw_saved_result(self) -> SavedTensor:
        """PyTorch's ``grad_fn._raw_saved_result``: the saved output, to give hooks of its own."""
        return self._raw_saved("_saved_result")

    @property
    def _raw_saved_self(self) -> SavedTensor:
        """PyTorch's ``grad_fn._raw_saved_self``: the saved first input, to give hooks of its own."""
        return self._raw_saved("_saved_self")

    @property
    def _raw_saved_other(self) -> SavedTensor:
        """PyTorch's ``grad_fn._raw_saved_other``: the saved second input, to give hooks of its own."""
        return self._raw_saved("_saved_other")

    def _raw_saved(self, attribute: str) -> SavedTensor:
        if self.saved is not FREED:  # (after backward PyTorch's still hands it out; register_hooks refuses)
            self._saved_slots(attribute)
        return SavedTensor(self, _SAVED_SLOT[attribute])

    @property
    def next_functions(self) -> tuple:
        """PyTorch's ``grad_fn.next_functions``: for each input, ``(its node, 0)`` -- an
        :class:`AccumulateGrad` holding a leaf that requires grad, ``None`` for a constant; ``(node, k)``
        for output k of a custom Function's ``node`` (see ``output_of``)."""
        return tuple(output_of(e) or (AccumulateGrad(e) if isinstance(e, Tensor) else e, 0) for e in self.inputs)

    def __repr__(self) -> str:
        ins = ", ".join(_edge_name(e) for e in self.inputs)
        shape = "x".join(map(str, self.shape)) or "scalar"
        state = ""
        if self.saved is FREED:
            state = " freed"
        elif self.saved is DROPPED:
            state = " dropped"
        return f"#{self.seq} {self.op!r}({ins}) -> {self.dtype} {shape}{state}"


#: How many nodes have ``grad_fn.register_hook`` hooks now: while 0, the backward loop never reads
#: ``node.backward_hooks`` (a class attribute read through the instance, unspecialized on every node:
#: +0.8% on the per-op chain's instructions).
node_hook_count = [0]


class _NodeHooks(CountedHooks):
    """A node's ``grad_fn.register_hook`` hooks (keeps :data:`node_hook_count` current)."""

    count = node_hook_count

    def place(self, fn: Any) -> int:
        return len(self)  # in registration order (no ranks among them)


class NodePreHook:
    """A ``grad_fn.register_prehook`` hook among the gradient hooks of the node's output: it runs
    after the tensor's own (``hook_rank``), handed the gradient as PyTorch hands it, in a tuple."""

    hook_rank = 2

    def __init__(self, fn: Any, op: Any = None) -> None:
        self.fn = fn
        self.op = op  # a custom Function's: the packed gradient as one per output, and back
        self.__qualname__ = getattr(fn, "__qualname__", repr(fn))  # named as the user's in errors

    def __call__(self, g: Tensor | None) -> Any:
        outs = (g,) if self.op is None or g is None else self.op.output_gradients(g)
        r = self.fn(outs)
        if r is None:
            return None
        r = checked_hook_result(self.__qualname__, r, outs)
        if g is None or (self.op is None and r[0] is None):  # (None,): no gradient from here on, as PyTorch's
            return UNDEFINED
        return r[0] if self.op is None else self.op.packed_gradient(r, g)


def checked_hook_result(name: str, result: Any, originals: tuple) -> tuple:
    """What a node's hook returned in place of ``originals`` (a pre-hook's gradients of the outputs, a
    hook's of the inputs), checked as PyTorch checks it: a tuple of as many, each None (no gradient) or a
    Tensor, and no gradient where there was none.  Shapes and dtypes are the caller's to check."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(originals)})")
    for was, now in zip(originals, result):
        if now is None:
            continue
        if was is None:
            raise RuntimeError(f"can't replace a None gradient with a non-None value (hook '{name}')")
        if not isinstance(now, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(now).__name__}' (hook '{name}')")
    return result


class AccumulateGradPreHook(NodePreHook):
    """An ``AccumulateGrad.register_prehook`` hook: a pre-hook on the leaf's tensor hooks that runs only in a
    pass that accumulates into ``.grad`` (``backward()``, not ``mg.grad``: PyTorch runs no AccumulateGrad there)."""


class AccumulatedHook:
    """An ``AccumulateGrad.register_hook`` hook, in two parts on the leaf: its last tensor hook notes
    the gradient about to be accumulated, and ``after``, its last post-accumulate hook, hands it on."""

    hook_rank = 3  # after the leaf's tensor hooks and AccumulateGrad's pre-hooks

    def __init__(self, fn: Any) -> None:
        self.fn, self.grad = fn, None
        self.after = _AfterAccumulation(self)

    def __call__(self, g: Tensor) -> None:
        self.grad = g


class _AfterAccumulation:
    hook_rank = 1  # after the leaf's post-accumulate hooks

    def __init__(self, hook: AccumulatedHook) -> None:
        self.hook = hook

    def __call__(self, leaf: Tensor) -> None:
        g, self.hook.grad = self.hook.grad, None
        if g is not None:
            self.hook.fn((), (g,))


class AccumulateGrad:
    """What PyTorch's ``next_functions`` shows for a leaf that requires grad: the leaf
    (``variable``), whose ``.grad`` backward accumulates into.  One object per leaf while anything
    holds it, as PyTorch's (``a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]``
    where both read the leaf): the leaf keeps it weakly, since it holds the leaf."""

    next_functions: tuple = ()

    def __new__(cls, variable: Tensor) -> AccumulateGrad:
        held = variable.__dict__.get("_accumulate_grad")
        node = held() if held is not None else None
        if node is None or node.variable is not variable:  # (swap_tensors moves the attributes)
            node = object.__new__(cls)
            node.variable = variable
            variable.__dict__["_accumulate_grad"] = weakref.ref(node)
        return node

    def name(self) -> str:
        """PyTorch's: the C++ class's qualified name (its Python type is ``AccumulateGrad``)."""
        return "torch::autograd::AccumulateGrad"

    @property
    def metadata(self) -> dict:
        """PyTorch's ``node.metadata``: a dict of the user's, kept with the leaf (PyTorch keeps it
        with the node, which lives while the graph does; here the graph holds the leaf, not this node)."""
        meta = self.variable.__dict__.get("_accumulate_grad_metadata")
        if meta is None:
            meta = self.variable.__dict__["_accumulate_grad_metadata"] = {}
        return meta

    def register_prehook(self, fn: Any) -> _HookHandle:
        """PyTorch's: ``fn(grad_outputs)`` -- a tuple holding the leaf's gradient -- before it is
        accumulated (by ``backward()``, not ``mg.grad``), after the leaf's tensor hooks; it may return a
        tuple to use instead."""
        return self.variable.register_hook(AccumulateGradPreHook(fn))

    def register_hook(self, fn: Any) -> _HookHandles:
        """PyTorch's: ``fn((), (grad,))`` once ``grad`` is accumulated into the leaf's ``.grad`` (by
        ``backward()``, not ``mg.grad``), after its post-accumulate hooks (the old DDP's hook)."""
        hook = AccumulatedHook(fn)
        return _HookHandles((self.variable.register_hook(hook),
                             self.variable.register_post_accumulate_grad_hook(hook.after)))

    def __repr__(self) -> str:
        return f"<AccumulateGrad of a leaf {tuple(self.variable.shape)}>"


def output_of(edge: Any) -> tuple | None:
    """``(node, k)`` where ``edge`` is a node that hands out output k of a custom Function's ``node`` (a
    piece of its packed output, or that node itself), which ``grad_fn`` and ``next_functions`` show there:
    PyTorch's one node per call.  Kept in the node's ``__dict__`` (key ``output_of``, ``(None, k)`` for the
    node itself), not as a class attribute: one more on ``Node`` moved the per-op count by ~4.7k."""
    if type(edge) is not Node:
        return None
    found = edge.__dict__.get("output_of")
    return None if found is None else (found[0] or edge, found[1])


def _edge_name(e: Any) -> str:
    if e is None:
        return "const"
    if type(e) is Node:
        return f"#{e.seq}"
    return "leaf"


# ---------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------
_new_tensor = _new_node = object.__new__  # Tensor.__new__ is object.__new__; skip the attribute lookup


def apply(op: Any, *args: Any) -> Any:
    """Run ``op`` on ``args`` (Tensors or Python scalars) and return a Tensor; a unary op's one
    argument may be anything ``mg.tensor`` accepts (``mg.exp([1.0, 2.0])``).

    The one place where ops are executed and recorded, once per op, so written for speed: one
    and two arguments inline (a loop over two cost ~80 instructions per op: per_op 8,330,301 ->
    8,253,044), the forward, and a node only when some input requires grad in grad mode."""
    n = len(args)
    if n == 1:
        x = args[0]
        if not isinstance(x, Tensor):  # a unary function called on a list, an array, a number
            x = Tensor._from_data(x)
            args = (x,)
        device, needs_grad, arrays = x._device, x._requires_grad, (x._data,)
    elif n == 2:
        x, y = args
        if isinstance(x, Tensor):
            device = x._device
            if isinstance(y, Tensor):
                if y._device is not device:
                    return apply(op, *on_one_device(op.name, args))
                needs_grad, arrays = x._requires_grad or y._requires_grad, (x._data, y._data)
            else:
                needs_grad, arrays = x._requires_grad, (x._data, y)
        else:  # (no Tensor at all: _gather's TypeError)
            device, needs_grad, arrays = (y._device, y._requires_grad, (x, y._data)) if isinstance(y, Tensor) \
                else _gather(op, args)
    else:
        device, needs_grad, arrays = _gather(op, args)
        if device is None:  # tensors on two devices: a CPU scalar tensor moves to the others'
            return apply(op, *on_one_device(op.name, args))
    xp = device.xp
    try:  # one to three arrays called directly, not a star-call, which CPython does not specialize (~1.5k
        # instructions per op: per_op 8,818,544 -> 8,613,627); three is linear(x, w, b), every Linear layer
        out = (op.forward(xp, arrays[0]) if n == 1 else op.forward(xp, arrays[0], arrays[1]) if n == 2
               else op.forward(xp, arrays[0], arrays[1], arrays[2]) if n == 3 else op.forward(xp, *arrays))
    except (AttributeError, ValueError) as exc:  # a clearer error where one is known (free until raised)
        _explain_forward(op, exc, xp, arrays)
        raise
    if out.__class__ is not xp.array_type:  # the test inline: once per op, a call costs ~3% of per_op
        out = xp.as_array(out)  # NumPy returns scalars for some 0-d results
    t = _new_tensor(Tensor)
    t._data = out
    t._device = device
    t._version_box = _view_version(args[0], t) if op.is_view else [0]
    if needs_grad and (_grad_off.active == 0 or _grad_state.enabled) and op.differentiable:
        t._node = _record(op, args, arrays, out, t, xp)
        t._requires_grad = True
    else:
        t._node = None
        t._requires_grad = False
        if transform_births:  # inside an mg.func transform: a constant the function made (func.captures)
            t._born = transform_births[-1]
        if op.is_view and (needs_grad or args[0]._no_grad_view):  # a view made in no_grad: PyTorch
            t._no_grad_view = True  # refuses its in-place changes in grad mode (Tensor._check_write)
    if _anomaly is not None:  # mg.detect_anomaly() is on: check the output (and push tangents)
        _anomaly.forward(op, args, t)
    elif _forward_push is not None:  # inside mg.func.jvp: push tangents beside the values
        _forward_push(op, args, t)
    return t



def _view_version(source: Tensor, view: Tensor) -> list:
    """``shared_version`` for a view an op made; a view of a custom Function's view output keeps that
    output's refusal of in-place changes (``Tensor._custom_function_view``), as PyTorch's creation meta."""
    if source._custom_function_view is not None:
        view._custom_function_view = source._custom_function_view
    return shared_version(source, view)


def _gather(op: Any, args: tuple) -> tuple:
    """``apply``'s device, whether a node is needed, and the arrays, for three or more arguments
    (the device ``None`` when tensors of two devices meet)."""
    device, needs_grad, arrays = None, False, []
    for a in args:
        if isinstance(a, Tensor):
            if device is None:
                device = a._device
            elif a._device is not device:
                return None, False, []  # (apply asks on_one_device)
            arrays.append(a._data)
            needs_grad = needs_grad or a._requires_grad
        else:
            arrays.append(a)
    if device is None:
        raise TypeError(f"{op.name}: needs at least one Tensor argument")
    return device, needs_grad, arrays


def on_one_device(name: str, args: Any) -> list:
    """``args`` (tensors of two devices among them) with each zero-dimensional CPU tensor moved to
    the device of the others, as PyTorch treats a CPU scalar tensor beside GPU tensors (a Python
    number); tensors of two devices otherwise are an error naming ``name``.  The move is recorded
    (``Tensor.to``): gradients go back.  Functions that compute on arrays themselves, not through
    :func:`apply`, call it too (``mg.isclose``, ``&``)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    others = list(dict.fromkeys(a._device for a in tensors if not a._is_cpu_scalar()))
    if len(others) != 1:
        devices = list(dict.fromkeys(a._device for a in tensors))
        raise device_mismatch(name, devices[0], devices[1])
    return [a.to(others[0]) if isinstance(a, Tensor) and a._device is not others[0] else a for a in args]

def device_mismatch(name: str, first: Any, second: Any) -> RuntimeError:
    """PyTorch's error for tensors of two devices meeting in ``name`` (``first`` and ``second``: the
    devices, or the devices with what lives there, ``"cuda:0 (weight)"``)."""
    return RuntimeError(f"{name}: expected all tensors on the same device, found {first} and {second}")


def apply_move(op: Any, x: Any, device: Any) -> Any:
    """:func:`apply` for the one kind of op whose output lives on another
    device than its input (:class:`~minigrad_ckpt.ops.device.ToDevice`).

    ``apply`` takes the output's device from the inputs -- the one check per
    op it can skip for every other op -- so a move goes through here instead:
    the same forward call and the same :func:`_record` (recorders, checkpoint
    segments and the memory ledger see it like any node), with the node on
    the destination device, where its gradient arrives.
    """
    out = op.forward(x._device.xp, x._data)
    t = Tensor._wrap(out, None, device)
    if x._requires_grad and _grad_state.enabled:
        t._node = _record(op, (x,), (x._data,), out, t, device.xp)
        t._requires_grad = True
    if _anomaly is not None:
        _anomaly.forward(op, (x,), t)
    elif _forward_push is not None:
        _forward_push(op, (x,), t)
    return t


#: Forward mode's per-op hook, ``push(op, args, out)``: ``None`` except while an
#: ``mg.func.jvp`` level is open (:mod:`minigrad_ckpt.func.forward` sets it).  A
#: module global, because ``apply`` reads it once per op and a global is the
#: cheapest read there is (an attribute of a state object costs ~1% per op).
_forward_push: Any = None


def set_forward_push(push: Any) -> None:
    """Install (or, with ``None``, remove) forward mode's per-op hook."""
    global _forward_push
    _forward_push = push


#: Checkpointing's hook, ``hook(node)``, for each node recorded outside any segment after a
#: segment's forward pass ended, while the memory ledger tracks: its statistics see what the tape
#: saves after it (see ``checkpoint.segment._count_again_if_the_tape_holds``).  ``None`` once a
#: backward pass begins.  Read only when the ledger is on: nothing is added to the untracked path.
_after_segment: Any = None


def set_after_segment(hook: Any) -> None:
    """Install (or, with ``None``, remove) checkpointing's hook for nodes recorded after a segment."""
    global _after_segment
    _after_segment = hook


#: Anomaly mode's checks (:mod:`minigrad_ckpt.anomaly`): ``None`` except while
#: ``mg.detect_anomaly()`` is on -- the one read per op the mode costs when off.
#: While on, it also pushes forward mode's tangents, so it knows whose they are.
_anomaly: Any = None


def set_anomaly(checks: Any) -> None:
    """Install (or, with ``None``, remove) anomaly mode's checks."""
    global _anomaly
    _anomaly = checks


def _explain_forward(op: Any, exc: Exception, xp: Any, arrays: Sequence[Any]) -> None:
    """Raise the clearer error for ``exc`` from ``op``'s forward, if there is one (else return)."""
    if isinstance(exc, AttributeError):
        _explain(op, exc, "forward", xp)
    else:
        refuse_unbroadcastable(arrays, exc)


def _explain(op: Any, exc: BaseException, method: str, xp: Any, saved: Any = None) -> None:
    """Raise the op's clearer error for ``exc`` if it breaks the op contract (see
    ``Op.explain_error``); otherwise return, and the caller re-raises ``exc``."""
    better = op.explain_error(exc, method, xp, saved)
    if better is not None:
        raise better from exc


def _record(op: Any, args: tuple, arrays: Sequence[Any], out: Any, t: Any, xp: Any) -> Node:
    """Build the node for one op application: its edges, what to save, their versions.

    An edge is the input's producing node, the input itself for a leaf that requires grad, or
    ``None`` for a constant; the version boxes of saved tensors let backward detect a later
    in-place change.  This is the one place the save rule -- what backward may read -- is
    applied (``save_inputs``, ``save_output``, and beside a Python number
    ``reads_beside_number``: ``x * 2`` keeps no ``x``, as in PyTorch -- nor ``x * mask``, a Tensor
    without a gradient taken as a number, for an op that ``drops_beside_constant``); the rest is ``None``.
    Checkpoint replay re-fills the slots recorded here, so it never saves differently.
    ``t`` is the output's tensor (its version box; a checkpoint segment notes it, see Segment.record).
    """
    dtype = out.dtype
    if dtype.kind not in "fc":
        raise TypeError(f"{op.name}: a differentiable op produced {dtype}")
    which, out_saved = op.save_inputs, (out if op.save_output else None)
    n = len(args)
    if n == 1:  # unary: the input requires grad (or there would be no node)
        x = args[0]
        edges = (x._node or x,)
        if which is True or (which is not False and 0 in which):
            saved, versions = (out_saved, arrays[0]), (x._version_box,)
        else:
            saved, versions = (out_saved, None), ()
    elif n == 2 and not isinstance(y := args[1], Tensor):  # ``x * 2``: the commonest binary op, inline
        x = args[0]  # (the only Tensor: it requires grad)
        edges = (x._node or x, None)
        keep_x = which is True or (which is not False and 0 in which)
        if (beside := op.reads_beside_number) is not None and (op.drops_beside_constant or isinstance(y, _NUMBER)):
            keep_out, keep_x = beside[1][0], keep_x and beside[1][1]
            out_saved = out_saved if keep_out else None
            saved = (out_saved, arrays[0] if keep_x else None, y)
        else:
            saved = (out_saved, None, None) if which is False else _saved_by_rule(which, out_saved, arrays)
        versions = (x._version_box,) if keep_x else ()
    else:
        edges, saved, versions, out_saved = _slots(op, args, arrays, which, out_saved)
    if out_saved is not None:
        versions += (t._version_box,)
    node = _new_node(Node)
    node.op, node.inputs, node.saved = op, edges, saved  # (three at a time: no tuple is built)
    node.versions, node.seq, node.xp = versions, next(_seq), xp
    node.shape, node.dtype = out.shape, dtype
    recorder = _grad_state.recorder if _recorders.active else None
    if recorder is not None:
        recorder.record(node, args, arrays, out, t)  # an active checkpoint segment or profiler (t: the output)
        if saved_hooks and node.saved is DROPPED and (hooks := this_threads_saved_hooks()):
            _defer_packing(node, hooks, args)
    elif saved_hooks and (hooks := this_threads_saved_hooks()):
        device = next(a._device for a in args if isinstance(a, Tensor))
        node.saved = PackedSaved.packing(saved, *hooks, device)
        if versions:
            node.versions = _versions_packed_values_still_read(versions, saved, node.saved, args, t, xp)
        if _ledger.enabled:  # what the hooks packed is theirs; the tape holds what they left as it is
            _hold_on_the_ledger(node, saved_arrays(node))
    elif _ledger.enabled:
        _hold_on_the_ledger(node, saved_arrays(node))
    return node


def _versions_packed_values_still_read(versions: tuple, saved: tuple, packed: PackedSaved, args: tuple,
                                      t: Any, xp: Any) -> tuple:
    """The version boxes backward must still check once pack hooks took the saved values.  PyTorch checks
    none: what a hook returned is what backward reads, so a copy (a clone, an array, a copy on another
    device) makes a later in-place write of the tensor harmless -- torch 2.13 differentiates with the
    values saved.  A hook that kept the memory itself (an identity, a view, ``save_on_cpu`` of a CPU tensor)
    would let the write reach backward: PyTorch's answer then silently uses the new values; here it stays
    the version error, as without hooks."""
    still_read, copied = [], False
    for v, (unpack_hook, kept) in zip(saved, packed.slots):
        if unpack_hook is not None:
            if _holds_memory_of(kept, v, xp):
                still_read.append(v)
            else:
                copied = True
    if not copied:  # every packed value kept in its own memory (an identity hook): every box, as without hooks
        return versions
    if not still_read:  # every saved value copied (a clone, a host copy): nothing left to check
        return ()
    owners = [a for a in (*args, t) if isinstance(a, Tensor)]
    return tuple(box for box in versions if any(a._version_box is box and _reads(a._data, still_read, xp)
                                                for a in owners))


def _reads(data: Any, still_read: list, xp: Any) -> bool:
    """Whether ``data`` is, or shares memory with, one of ``still_read`` (the identity first: an
    identity pack hook keeps the very arrays, and the exact overlap test costs a call per pair)."""
    return any(data is v for v in still_read) or any(_shares(data, v, xp) for v in still_read)


def _holds_memory_of(kept: Any, array: Any, xp: Any) -> bool:
    """Whether what a pack hook returned (a Tensor, an array, or a tuple, list or dict of them) shares
    ``array``'s memory."""
    if isinstance(kept, Tensor):
        return kept._data is array or _shares(kept._data, array, xp)
    if isinstance(kept, (tuple, list)):
        return any(_holds_memory_of(k, array, xp) for k in kept)
    if isinstance(kept, dict):
        return any(_holds_memory_of(k, array, xp) for k in kept.values())
    return hasattr(kept, "shape") and _shares(kept, array, xp)


def _shares(a: Any, b: Any, xp: Any) -> bool:
    try:
        return bool(xp.shares_memory(a, b))
    except (TypeError, ValueError):  # arrays of two libraries (a host copy of a device array): apart
        return False


def _defer_packing(node: Node, hooks: tuple[Any, Any], args: tuple) -> None:
    """Note on a checkpointed ``node`` the saved-tensor hooks active as it is recorded (entered inside
    the checkpointed function or around the call): it saves nothing now, and its segment's replay puts
    the values it recomputes through the same pair (``Segment._fill_saved``), so backward reads what a
    run without checkpointing reads -- a hook that changes values changes them in both."""
    device = next(a._device for a in args if isinstance(a, Tensor))
    node.saved_hooks = (*hooks, device)


def _hold_on_the_ledger(node: Node, arrays: list) -> None:
    _ledger.hold(arrays, "saved", node)
    if _after_segment is not None:  # (installed only while the ledger tracks)
        _after_segment(node)


def _saved_by_rule(which: Any, out_saved: Any, arrays: Sequence[Any]) -> tuple:
    """The saved slots by ``save_inputs`` alone: every input, none, or those at the indices named."""
    if which is True:  # the common case: backward reads every input
        return (out_saved, *arrays)
    if which is False:
        return (out_saved,) + (None,) * len(arrays)
    return (out_saved, *[v if i in which else None for i, v in enumerate(arrays)])


def _slots(op: Any, args: tuple, arrays: Sequence[Any], which: Any, out_saved: Any) -> tuple:
    """``_record``'s edges, saved slots, version boxes and kept output for an op of two or more
    arguments (not ``x op number``, which ``_record`` does inline)."""
    edges, versions, constant_at = [], [], -1
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            edges.append((a._node or a) if a._requires_grad else None)
            if which is True or (which is not False and i in which):
                versions.append(a._version_box)
        else:
            edges.append(None)
            constant_at = i
    if constant_at < 0 and op.drops_beside_constant and (edges[0] is None or edges[1] is None):
        constant_at = 0 if edges[0] is None else 1  # ``x * mask``: the mask as a number
    if (constant_at >= 0 and (beside := op.reads_beside_number) is not None
            and (op.drops_beside_constant or isinstance(args[constant_at], _NUMBER))):
        keep_out, keep_other = beside[constant_at]
        out_saved = out_saved if keep_out else None
        saved = ((out_saved, arrays[0] if keep_other else None, arrays[1]) if constant_at
                 else (out_saved, arrays[0], arrays[1] if keep_other else None))
        if not keep_other:  # only the constant's version, if it is a Tensor (then both have one)
            versions = [versions[constant_at]] if len(versions) == 2 else []
    else:
        saved = _saved_by_rule(which, out_saved, arrays)
        if op.grad_reads is not None:  # what no needed gradient reads may change (Linear's bias)
            if None in edges:
                versions = _read_by_a_needed_gradient(op.grad_reads, args, edges)
            else:
                read = op.read_by_some_gradient
                read = frozenset().union(*op.grad_reads) if read is None else read
                if len(read) < len(versions):
                    versions = [a._version_box for i, a in enumerate(args) if i in read and isinstance(a, Tensor)]
    return tuple(edges), saved, tuple(versions), out_saved


def _read_by_a_needed_gradient(grad_reads: tuple, args: tuple, edges: list) -> list:
    """The version boxes of the inputs some gradient that is needed reads (``Op.grad_reads``)."""
    read = {i for reads, edge in zip(grad_reads, edges) if edge is not None for i in reads}  # (conv2d: b optional)
    return [a._version_box for i, a in enumerate(args) if i in read and isinstance(a, Tensor)]


def watch_versions(out: Any, tensors: Iterable[Any]) -> Any:
    """Make the backward of ``out``'s node fail if any of ``tensors`` changes in place first.

    For tensors an op reads through its static attributes rather than as
    inputs -- an integer or boolean index (``x[idx]``, ``take``, an embedding
    lookup): the attribute holds the index tensor's array, so a later
    ``idx.copy_(...)`` would silently move the gradient to other rows.  Their
    version boxes join the node's, and backward's usual version check (with or
    without checkpointing) refuses.  Returns ``out``.
    """
    node = out._node
    if node is not None:
        boxes = tuple(t._version_box for t in tensors)
        if boxes:
            node.versions = node.versions + boxes
    return out


def walk(*tensors: Any) -> list[Node]:
    """Every node reachable from ``tensors``, in recording order (the tape)."""
    seen: set[Node] = set()
    nodes: list[Node] = []
    stack = [t._node for t in tensors if t._node is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        nodes.append(n)
        for e in n.inputs:
            if type(e) is Node and e not in seen:
                stack.append(e)
    nodes.sort(key=_seq_of)
    return nodes


_seq_of = operator.attrgetter("seq")


#: The first words of the error for a saved value changed in place (PyTorch's, a plain ``RuntimeError``).
SAVED_VALUE_MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _version_error(node: Node) -> RuntimeError:
    """The error for a saved array changed in place after ``node`` saved it (the
    backward pass and checkpoint replay both check the version stamps)."""
    return RuntimeError(  # PyTorch's words first (a ported test matches them), then which node
        f"{SAVED_VALUE_MODIFIED} (an array was modified by an in-place operation after {node.op.name} "
        f"(node #{node.seq}) saved it for backward). Compute on a copy, or make the in-place change after backward."
    )
