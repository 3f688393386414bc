"""The tape: Node records, recording an op, and the backward loop.

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

Activation checkpointing (:mod:`minigrad_ckpt.checkpoint`) reuses all of
this: a node inside a checkpointed segment keeps ``saved = DROPPED`` and its
segment replays the recorded ops to fill it in just before backward needs it.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterable, Sequence
from heapq import heapify, heappop, heappush
from typing import Any

from .grad_mode import recorders as _recorders
from .grad_mode import state as _grad_state
from .memory import ledger as _ledger
from .memory import saved_arrays
from .tensor import Tensor, _seq, post_hook_count

__all__ = ["Node", "apply", "apply_move", "backward", "grad", "FREED", "DROPPED", "walk", "watch_versions",
           "queue_callback", "current_backward"]


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: ``node.saved`` after backward released it.
FREED = _Marker("FREED")
#: ``node.saved`` of a checkpointed node: recomputed by replay when needed.
DROPPED = _Marker("DROPPED")

#: The namespace ``backward`` runs on when a gradient of a gradient is wanted
#: (``create_graph=True``): the same names as an array namespace, but
#: differentiable functions on Tensors.  It is built from the ops and the public
#: math, which sit above this layer, so it is bound late, once, by
#: :mod:`minigrad_ckpt.functional.tensor_methods` (the package's one binding point).
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
                 "__dict__")

    hooks: list | None = None       # gradient hooks of the output tensor
    tangents: dict | None = None    # forward-mode tangents of the output (mg.func)
    input_tangents: tuple | None = None  # ... and of its constant inputs, by position
    segment: Any = None             # the checkpoint segment that owns this node
    replay: Any = None              # where replay takes each input from

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

    def __repr__(self) -> str:
        ins = ", ".join(_edge_name(e) for e in self.inputs)
        shape = "x".join(map(str, self.shape)) or "scalar"
        state = ""
        if self.saved is FREED:
            state = " freed"
        elif self.saved is DROPPED:
            state = " dropped"
        return f"#{self.seq} {self.op!r}({ins}) -> {self.dtype} {shape}{state}"


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
    """Run ``op`` on ``args`` (Tensors or Python scalars) and return a Tensor.

    The single argument of a unary op may also be anything ``mg.tensor``
    accepts (so ``mg.exp([1.0, 2.0])`` needs no conversion step of its own).

    This is the one place where ops are executed and recorded, and it runs
    once per op, so it is written for speed: one pass over the arguments (a
    shortcut for the common one-tensor case), the forward, and a node only
    when some input requires grad in grad mode.
    """
    if len(args) == 1:
        x = args[0]
        if not isinstance(x, Tensor):  # a unary function called on a list, an array, a number
            x = Tensor(x)
            args = (x,)
        device = x._device
        needs_grad = x._requires_grad
        xp = device.xp
        arrays = (x._data,)
        try:
            out = op.forward(xp, x._data)
        except AttributeError as exc:
            _explain(op, exc, "forward", xp)
            raise
    else:
        device = None
        needs_grad = False
        arrays = []
        for a in args:
            if isinstance(a, Tensor):
                if device is None:
                    device = a._device
                elif a._device is not device:
                    raise RuntimeError(
                        f"{op.name}: expected all tensors on the same device, found {device} and {a._device}"
                    )
                arrays.append(a._data)
                if a._requires_grad:
                    needs_grad = True
            else:
                arrays.append(a)
        if device is None:
            raise TypeError(f"{op.name}: needs at least one Tensor argument")
        xp = device.xp
        try:
            out = op.forward(xp, *arrays)
        except AttributeError as exc:
            _explain(op, exc, "forward", xp)
            raise
    if out.__class__ is not xp.array_type:
        out = xp.asarray(out)  # NumPy returns scalars for 0-d results
    t = _new_tensor(Tensor)
    t._data = out
    t._device = device
    t._version = args[0]._version if op.is_view else [0]
    if needs_grad and _grad_state.enabled and op.differentiable:
        t._node = _record(op, args, arrays, out, t._version, xp)
        t._requires_grad = True
    else:
        t._node = None
        t._requires_grad = False
    if _forward_push is not None:  # inside mg.func.jvp: push tangents beside the values
        _forward_push(op, args, t)
    return t


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
        t._node = _record(op, (x,), (x._data,), out, t._version, device.xp)
        t._requires_grad = True
    if _forward_push is not None:
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


#: The op whose backward just ran for the first few times (set by the op class's
#: validating wrapper, see ``ops.base._validating``): its result is checked.
_contract_pending: Any = None


def _check_contract(op: Any, grads: tuple, node: Node) -> None:
    global _contract_pending
    pending, _contract_pending = _contract_pending, None
    if pending is op:
        op.check_backward_result(grads, [None if e is None else e.shape for e in node.inputs], node.shape)


def _explain(op: Any, exc: BaseException, method: str, xp: Any, saved: Any = None) -> None:
    """Raise the op's clearer error for ``exc`` if it breaks the op contract (see
    ``Op.explain_error``); otherwise return, and the caller re-raises ``exc``."""
    better = op.explain_error(exc, method, xp, saved)
    if better is not None:
        raise better from exc


def _record(op: Any, args: tuple, arrays: Sequence[Any], out: Any, out_version: list, xp: Any) -> Node:
    """Build the node for one op application: its edges, what to save, their versions.

    An edge is the input's producing node, the input itself for a leaf that
    requires grad, or ``None`` for a constant.  The version boxes of saved
    tensors are kept so backward can detect a later in-place change.

    This is the one place the save rule -- what backward may read -- is
    applied: ``save_output`` keeps the output, ``save_inputs`` every input
    (``True``), none (``False``) or the listed positions; the rest is ``None``.
    A checkpointed segment re-fills a replayed node with the slots recorded
    here (``Segment.record``), so replay can never save differently.
    """
    dtype = out.dtype
    if dtype.kind not in "fc":
        raise TypeError(f"{op.name}: a differentiable op produced {dtype}")
    which = op.save_inputs
    out_saved = out if op.save_output else None
    if len(args) == 1:  # unary: the input requires grad (or there would be no node)
        x = args[0]
        edges = [x._node or x]
        if which is True or (which is not False and 0 in which):
            saved, versions = (out_saved, arrays[0]), [x._version]
        else:
            saved, versions = (out_saved, None), []
    elif which is True:  # the common case: backward reads every input
        edges = []
        versions = []
        for a in args:
            if isinstance(a, Tensor):
                edges.append((a._node or a) if a._requires_grad else None)
                versions.append(a._version)
            else:
                edges.append(None)
        saved = (out_saved, *arrays)
    else:
        edges = []
        versions = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                edges.append((a._node or a) if a._requires_grad else None)
                if which is not False and i in which:
                    versions.append(a._version)
            else:
                edges.append(None)
        if which is False:
            saved = (out_saved,) + (None,) * len(arrays)
        else:
            saved = (out_saved, *[v if i in which else None for i, v in enumerate(arrays)])
    if out_saved is not None:
        versions.append(out_version)
    node = _new_node(Node)
    node.op = op
    node.inputs = tuple(edges)
    node.saved = saved
    node.versions = tuple(versions)
    node.seq = next(_seq)
    node.xp = xp
    node.shape = out.shape
    node.dtype = dtype
    recorder = _grad_state.recorder if _recorders.active else None
    if recorder is not None:
        recorder.record(node, args, arrays, out)  # an active checkpoint segment or profiler
    elif _ledger.enabled:
        _ledger.hold(saved_arrays(node))
    return node


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
        boxes = tuple(t._version for t in tensors)
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


# ---------------------------------------------------------------------------
# The backward loop
# ---------------------------------------------------------------------------
_FREED_MSG = (
    "Trying to backward through the graph a second time (or to read saved values "
    "after they were freed). Saved values are freed by backward() and mg.grad(); "
    "pass retain_graph=True to the first call if you need to backward twice."
)


def _version_error(node: Node) -> RuntimeError:
    return RuntimeError(
        f"one of the arrays needed for gradient computation has been modified by an "
        f"in-place operation after {node.op.name} (node #{node.seq}) saved it for backward. "
        f"Compute on a copy, or make the in-place change after backward."
    )


def _graph_args(node: Node, saved: tuple) -> tuple:
    """Rebuild Tensors for ``saved`` that are connected to the graph (create_graph)."""
    out = _graph_tensor(saved[0], node) if saved[0] is not None else None
    args = [out]
    constant_tangents = node.input_tangents or ()
    for i, (edge, v) in enumerate(zip(node.inputs, saved[1:])):
        if v is None or not hasattr(v, "shape"):
            args.append(v)  # not saved, or a Python scalar constant
        elif edge is None:
            c = Tensor._wrap(v, None)
            if i < len(constant_tangents):  # a constant that moves in forward mode
                c._tangents = constant_tangents[i]
            args.append(c)
        elif type(edge) is Node:
            args.append(_graph_tensor(v, edge))
        else:
            args.append(edge)  # the leaf itself
    return tuple(args)


def _hook_name(h: Any) -> str:
    return getattr(h, "__qualname__", None) or repr(h)


def _graph_tensor(v: Any, node: Node) -> Any:
    # A saved value carries the tangents its tensor had, so a forward-mode
    # pass over this backward (forward-over-reverse, mg.func.hessian) sees how
    # the saved values move too, not only the gradient flowing through them.
    t = Tensor._wrap(v, node)
    if node.tangents is not None:
        t._tangents = node.tangents
    return t


def _call_hooks(hooks: list, g: Any, create_graph: bool) -> Any:
    # The hooks get a gradient that nothing else shares: a backward may hand
    # one array to several inputs (Add gives ``g`` to both), so a hook that
    # changed its argument in place would change another tensor's gradient.
    gt = g.clone() if create_graph else Tensor._wrap(g.copy(), None)
    for h in list(hooks):
        r = h(gt)
        if r is not None:
            if not isinstance(r, Tensor) or r.shape != gt.shape:
                got = f"shape {r.shape}" if isinstance(r, Tensor) else type(r).__name__
                raise RuntimeError(
                    f"a gradient hook must return None or a Tensor of shape {gt.shape}; "
                    f"hook {_hook_name(h)} returned {got}"
                )
            if r.dtype != gt.dtype:  # as PyTorch: a gradient keeps its tensor's dtype
                raise RuntimeError(
                    f"hook {_hook_name(h)} changed the type of value (was {gt.dtype}, got {r.dtype}); "
                    f"return a gradient of dtype {gt.dtype} (e.g. g.astype('{gt.dtype}'))"
                )
            gt = r
    return gt if create_graph else gt._data


# --- Post-accumulate-grad hooks and end-of-backward callbacks ---------------
# ``tensor.post_hook_count``: tensors with post-accumulate hooks; a backward
# pays for counting leaf edges only while some exist.


class BackwardCall:
    """One running ``backward()``: its ``create_graph`` flag and the callbacks
    queued (by hooks) to run once when it finishes, before it returns."""

    __slots__ = ("create_graph", "callbacks")

    def __init__(self, create_graph: bool) -> None:
        self.create_graph = create_graph
        self.callbacks: list = []


_running: list[BackwardCall] = []


def current_backward() -> BackwardCall | None:
    """The innermost ``backward()`` running in this process, or ``None``."""
    return _running[-1] if _running else None


def queue_callback(fn: Any) -> None:
    """Run ``fn()`` once when the running ``backward()`` has accumulated every
    gradient, before it returns (for hooks that start work that must finish
    with the backward, as data-parallel all-reduces do)."""
    if not _running:
        raise RuntimeError("queue_callback() can only be called while backward() runs (from a hook)")
    _running[-1].callbacks.append(fn)


def _leaf_edge_counts(roots: Sequence[Any]) -> dict[int, int]:
    """How many edges of the graph reach each leaf that has post-accumulate hooks:
    when the backward loop has passed them all, that leaf's gradient is final."""
    counts: dict[int, int] = {}
    seen: set[Node] = set()
    stack = [r._node for r in roots if r._node is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for e in n.inputs:
            if e is None:
                continue
            if type(e) is Node:
                if e not in seen:
                    stack.append(e)
            elif e._post_hooks:
                counts[id(e)] = counts.get(id(e), 0) + 1
    return counts


def _accumulate(t: Any, g: Any, create_graph: bool) -> None:
    """Add one backward's gradient ``g`` of leaf ``t`` into ``t.grad``."""
    if t._grad is None:
        t._grad = g if create_graph else Tensor._wrap(g, None, t._device)
    elif create_graph:
        t._grad = t._grad + g
    else:
        t._grad = Tensor._wrap(t._device.xp.asarray(t._grad._data + g), None, t._device)


def _fire_post_hooks(t: Any) -> None:
    for h in list(t._post_hooks):
        h(t)


def _grad_arrays(grads: Iterable[Any], create_graph: bool) -> list[Any]:
    return [g._data if create_graph else g for g in grads if g is not None and hasattr(g, "shape")]


def _engine(roots: Sequence[Any], root_grads: Sequence[Any], *, retain_graph: bool,
            create_graph: bool, targets: Sequence[Any] | None,
            found_leaves: dict[int, Any] | None = None, handed: set[int] | None = None) -> dict[int, Any]:
    """Propagate ``root_grads`` from ``roots`` back to the leaves.

    Returns ``{id(tensor): grad}`` for the leaves reached (``targets`` is None)
    or for the requested ``targets``.  Leaves with post-accumulate hooks are
    the exception: their gradient goes into ``.grad`` inside the loop, and the
    ids of those arrays are added to ``handed``.
    """
    _F = differentiable_namespace  # create_graph: gradients are Tensors, backward runs on this
    if found_leaves is None:
        found_leaves = {}
    pending: dict[Node, Any] = {}
    leaf_grads: dict[int, Any] = {}
    leaves: dict[int, Any] = {}
    for r, g in zip(roots, root_grads):
        if r._node is not None:
            pending[r._node] = pending[r._node] + g if r._node in pending else g
        else:
            k = id(r)
            leaves[k] = r
            leaf_grads[k] = leaf_grads[k] + g if k in leaf_grads else g

    target_nodes: dict[Node, int] | None = None
    contributing: set[Node] | None = None
    found: dict[int, Any] = {}
    if targets is not None:
        target_nodes = {t._node: id(t) for t in targets if t._node is not None}
        target_leaves = {id(t) for t in targets if t._node is None}
        contributing = set()
        for n in walk(*roots):  # recording order: inputs before consumers
            for e in n.inputs:
                if e is None:
                    continue
                if type(e) is Node:
                    if e in contributing or e in target_nodes:
                        contributing.add(n)
                        break
                elif id(e) in target_leaves:
                    contributing.add(n)
                    break

    # Leaves with post-accumulate hooks get their gradient into ``.grad`` (and
    # their hooks called) as soon as the loop has passed every edge into them.
    remaining = _leaf_edge_counts(roots) if post_hook_count[0] and targets is None else None
    if handed is None:
        handed = set()  # arrays handed out early: the final unaliasing must know them
    summed: set[int] = set()  # leaves whose gradient is a sum we made (not an op's array)

    led = _ledger.enabled
    if led:
        _ledger.set_phase("backward")
        _ledger.hold(_grad_arrays(pending.values(), create_graph), "grad")
    segments: dict[Any, None] = {}  # checkpoint segments met in this backward, in order
    # The frontier: nodes with a pending gradient (or None: reached, but no
    # gradient arrived), keyed by -seq.  Popping the most recently recorded
    # one first means every consumer of a node has run before the node itself
    # -- a consumer has a larger seq, and is pushed before anything it feeds.
    # No separate topological sort, and the heap stays as wide as the graph.
    heap = [(-n.seq, n) for n in pending]
    heapify(heap)
    pop = pending.pop
    prev_enabled = _grad_state.enabled
    _grad_state.enabled = create_graph
    try:
        while heap:
            node = heappop(heap)[1]
            g = pop(node)
            seg = node.segment
            if g is not None:
                if led:
                    _ledger.release(_grad_arrays((g,), create_graph))
                    if seg is not None:
                        _ledger.set_phase(f"backward:{seg.index}")
                xp = _F if create_graph else node.xp
                if not create_graph and g.__class__ is not xp.array_type:
                    g = xp.asarray(g)  # NumPy returns scalars for 0-d results
                if node.hooks:
                    g = _call_hooks(node.hooks, g, create_graph)
                if target_nodes is not None:  # mg.grad: collect, and skip what no target needs
                    if node in target_nodes:
                        k = target_nodes[node]
                        found[k] = found[k] + g if k in found else g
                    if node not in contributing:
                        g = None
            if g is None:  # reached, but no gradient: its inputs are still visited (and freed)
                grads = (None,) * len(node.inputs)
            else:
                saved = node.saved
                if saved is FREED:
                    raise RuntimeError(_FREED_MSG)
                if saved is DROPPED:  # checkpointed: replay the segment to get the values back
                    saved = seg.rematerialize(node)
                for box in node.versions:
                    if box[0] > node.seq:
                        raise _version_error(node)
                op = node.op
                args = _graph_args(node, saved) if create_graph else saved
                try:
                    if op.uses_needs_input_grad:
                        needs = tuple(e is not None and (contributing is None or type(e) is not Node
                                                         or e in contributing or e in target_nodes)
                                      for e in node.inputs)
                        grads = op.backward(xp, g, *args, needs_input_grad=needs)
                    else:
                        grads = op.backward(xp, g, *args)
                except (TypeError, AttributeError) as exc:  # a broken op contract, explained
                    _explain(op, exc, "backward", xp, saved)
                    raise
                if type(grads) is not tuple:
                    grads = (grads,)
                if _contract_pending is not None:  # one of the first backward calls of its op class
                    _check_contract(op, grads, node)
            for edge, gi in zip(node.inputs, grads):
                if edge is None:
                    continue
                if type(edge) is Node:
                    if gi is not None:
                        if gi.shape != edge.shape:  # undo broadcasting
                            gi = xp.sum_to(gi, edge.shape)
                        if gi.dtype != edge.dtype:  # a float32 input gets a float32 gradient
                            gi = _cast_grad(xp, gi, edge.dtype)
                    if edge in pending:
                        if gi is None:
                            continue
                        prev = pending[edge]
                        pending[edge] = gi if prev is None else prev + gi
                    else:  # first time reached: onto the frontier
                        pending[edge] = gi
                        heappush(heap, (-edge.seq, edge))
                        prev = None
                    if led and gi is not None:
                        _ledger.hold(_grad_arrays((pending[edge],), create_graph), "grad")
                        _ledger.release(_grad_arrays((prev,), create_graph))
                else:  # a leaf
                    if gi is not None:
                        leaf = edge._data
                        if gi.shape != leaf.shape:
                            gi = xp.sum_to(gi, leaf.shape)
                        if gi.dtype != leaf.dtype:
                            gi = _cast_grad(xp, gi, leaf.dtype)
                        k = id(edge)
                        leaves[k] = edge
                        prev = leaf_grads.get(k)
                        leaf_grads[k] = acc = gi if prev is None else prev + gi
                        if led:
                            _ledger.hold(_grad_arrays((acc,), create_graph), "grad")
                            _ledger.release(_grad_arrays((prev,), create_graph))
                    if remaining is not None and id(edge) in remaining:
                        k = id(edge)
                        if gi is not None and prev is not None:
                            summed.add(k)
                        remaining[k] -= 1
                        if remaining[k] == 0 and k in leaf_grads:  # final: hand it over now
                            del remaining[k]
                            _hand_over_early(edge, leaf_grads.pop(k), k in summed, create_graph,
                                             root_grads, handed)
            # Release what this node saved: its backward ran, or never will.
            if seg is None:
                if not retain_graph and type(node.saved) is tuple:
                    if led:
                        _ledger.release(saved_arrays(node))
                    node.saved = FREED
            else:
                seg.release(node, retain_graph)
                segments[seg] = None
                # Passing a segment's first node ends its backward: its replay
                # inputs can go now rather than at the end of the whole pass.
                while seg is not None and node is seg.first:
                    seg.backward_done(retain_graph)
                    seg = seg.parent
        for seg in segments:
            seg.finish(retain_graph)
    finally:
        _grad_state.enabled = prev_enabled
        if led:
            _ledger.release(_grad_arrays(pending.values(), create_graph))
            _ledger.set_phase("idle")

    # Leaf hooks see the total gradient of this backward call, once.
    target_leaves = {id(t) for t in targets if t._node is None} if targets is not None else None
    for k, g in leaf_grads.items():
        if target_leaves is not None and k not in target_leaves:
            continue
        t = leaves[k]
        if not create_graph and g.__class__ is not t._device.xp.array_type:
            g = t._device.xp.asarray(g)  # NumPy returns scalars for 0-d results
        if t._hooks:
            g = _call_hooks(t._hooks, g, create_graph)
        found[k] = g
        found_leaves[k] = t
    return found


def _cast_grad(xp: Any, g: Any, dtype: Any) -> Any:
    """The gradient ``g`` in its input's ``dtype``.

    A complex gradient reaching a real input keeps its real part: the
    gradient of a real variable ``x`` is dL/dx, and with the convention
    ``grad = dL/dRe + i dL/dIm`` (docs/complex.md) the imaginary part belongs to
    a direction ``x`` cannot move in.  An op that promotes a real input to
    complex (``x * 1j``, ``fft(x)``) needs no rule of its own for this.
    """
    if g.dtype.kind == "c" and dtype.kind != "c":
        g = xp.real(g)
    return g.astype(dtype)


def _hand_over_early(t: Any, g: Any, summed: bool, create_graph: bool, root_grads: Sequence[Any],
                     handed: set[int]) -> None:
    """A leaf's gradient is final in the middle of the loop: run its tensor hooks,
    accumulate it into ``.grad`` and call its post-accumulate hooks now."""
    if not create_graph and g.__class__ is not t._device.xp.array_type:
        g = t._device.xp.asarray(g)
    if t._hooks:
        g = _call_hooks(t._hooks, g, create_graph)
    elif not summed and t._grad is None:
        # An op's array may also be another input's gradient, still in flight
        # (Add hands one array to both inputs): ``.grad`` gets its own copy.
        g = g.clone() if create_graph else g.copy()
    if t._grad is None:
        (g,) = (pair[1] for pair in _unalias([(t, g)], root_grads, create_graph, handed))
    _accumulate(t, g, create_graph)
    handed.add(id(t._grad._data))
    _fire_post_hooks(t)


def _sole_views(found: dict[int, Any]) -> set[int]:
    """Ids of the gradients in ``found`` that are views only ``found`` holds, of buffers
    nothing else references.  Handing such a view out aliases nothing, so it need not be
    copied: ``W.T``'s gradient arrives as a view of a product no one else holds.

    Counted references, which is why this reads ``found`` itself: to the buffer, the
    view's ``base``, the local ``base`` and getrefcount's argument (any other array on
    the buffer holds one more); to the view, ``found``, the local ``arr`` and the
    argument (a user who kept it, say through a hook, holds one more).
    """
    out = set()
    for k in found:
        arr = found[k]
        base = getattr(arr, "base", None)
        if base is None or getattr(base, "base", True) is not None:
            continue  # not a view, or a view of something other than an array that owns memory
        if sys.getrefcount(base) == 3 and sys.getrefcount(arr) == 3:
            out.add(id(arr))
        del arr, base
    return out


def _unalias(grads: Iterable[tuple[Any, Any]], root_grads: Sequence[Any],
             create_graph: bool, seen: set[int] | None = None,
             exclusive: frozenset[int] | set[int] = frozenset()) -> list[tuple[Any, Any]]:
    """Copy gradients that would alias each other, a root gradient, or a view
    (unless ``exclusive`` says nothing else can reach the view: see :func:`_sole_views`).

    Gradients handed out to different tensors must never share memory: a user
    who modifies ``x.grad`` in place must not change ``y.grad``.  ``seen``
    (updated) holds the ids of arrays already handed out.
    """
    seen = set() if seen is None else seen
    seen.update(id(g._data if create_graph else g) for g in root_grads)
    out = []
    for t, g in grads:
        arr = g._data if create_graph else g
        xp = t._device.xp
        if id(arr) in seen or not (xp.owns_memory(arr) or id(arr) in exclusive):
            g = g.clone() if create_graph else arr.copy()
            arr = g._data if create_graph else g
        seen.add(id(arr))
        out.append((t, g))
    return out


def _root_grads(outputs: Sequence[Any], grad_outputs: Sequence[Any] | None,
                create_graph: bool) -> list[Any]:
    grads = []
    for i, out in enumerate(outputs):
        g = None if grad_outputs is None else grad_outputs[i]
        if g is None:
            if out._data.dtype.kind == "c":
                raise RuntimeError(
                    f"grad can be implicitly created only for real outputs; output {i} is "
                    f"{out._data.dtype}: pass gradient= (or grad_outputs=), or differentiate a real "
                    f"function of it (mg.abs(z) ** 2, z.real) -- docs/complex.md"
                )
            if out._data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for outputs with one element; "
                    f"output {i} has shape {out.shape}: pass gradient= (or grad_outputs=)"
                )
            g = out._device.xp.ones(out._data.shape, dtype=out._data.dtype)
        else:
            if isinstance(g, Tensor):
                if g._device is not out._device:
                    raise RuntimeError(
                        f"gradient is on {g._device} but the output is on {out._device}"
                    )
                g = g if create_graph else g._data
            else:
                g = out._device.xp.asarray(g)
            if tuple(g.shape) != out.shape:
                raise RuntimeError(
                    f"gradient has shape {tuple(g.shape)} but output {i} has shape {out.shape}"
                )
            if g.dtype != out._data.dtype:
                xp = differentiable_namespace if isinstance(g, Tensor) else out._device.xp
                g = _cast_grad(xp, g, out._data.dtype)
        if create_graph and not isinstance(g, Tensor):
            g = Tensor._wrap(g, None)
        grads.append(g)
    return grads


def _check_outputs(outputs: Sequence[Any]) -> None:
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"output {i} is a {type(out).__name__}, not a Tensor")
        if not out._requires_grad:
            raise RuntimeError(
                f"output {i} does not require grad and has no history: nothing to "
                f"differentiate (was it computed under no_grad, or from inputs that "
                f"do not require grad?)"
            )


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False) -> None:
    """Accumulate d(tensors)/d(leaf) into every reachable leaf's ``.grad``.

    This is what ``Tensor.backward`` calls.  Gradients *accumulate*: two
    backward calls add up, as in PyTorch; zero them between steps.
    """
    outputs = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if grad_tensors is not None and (isinstance(grad_tensors, Tensor) or hasattr(grad_tensors, "shape")):
        grad_tensors = [grad_tensors]
    _check_outputs(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    root_grads = _root_grads(outputs, grad_tensors, create_graph)
    leaves: dict[int, Any] = {}
    handed: set[int] = set()  # arrays already handed to leaves during the loop
    call = BackwardCall(create_graph)
    _running.append(call)
    try:
        found = _engine(outputs, root_grads, retain_graph=retain_graph, create_graph=create_graph,
                        targets=None, found_leaves=leaves, handed=handed)
        exclusive = set() if create_graph else _sole_views(found)
        pairs = _unalias(((leaves[k], g) for k, g in found.items()), root_grads, create_graph, handed,
                         exclusive)
        for t, g in pairs:
            _accumulate(t, g, create_graph)
            if t._post_hooks:  # a leaf the loop did not finish (a root itself)
                _fire_post_hooks(t)
        for fn in call.callbacks:
            fn()
    finally:
        _running.pop()


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple:
    """Compute and return d(outputs)/d(inputs) without touching any ``.grad``.

    ``outputs`` and ``inputs`` are Tensors or sequences of Tensors; inputs may
    be intermediate tensors, not only leaves.  ``grad_outputs`` plays the role
    of ``gradient=`` in ``backward``.  With ``create_graph=True`` the returned
    gradients are themselves differentiable (higher-order derivatives).
    """
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if grad_outputs is not None and (isinstance(grad_outputs, Tensor) or hasattr(grad_outputs, "shape")):
        grad_outputs = [grad_outputs]
    if grad_outputs is not None and len(grad_outputs) != len(outs):
        raise ValueError(f"got {len(grad_outputs)} grad_outputs for {len(outs)} outputs")
    _check_outputs(outs)
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor):
            raise TypeError(f"input {i} is a {type(t).__name__}, not a Tensor")
        if not t._requires_grad:
            raise RuntimeError(f"input {i} does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    root_grads = _root_grads(outs, grad_outputs, create_graph)
    found = _engine(outs, root_grads, retain_graph=retain_graph,
                    create_graph=create_graph, targets=ins)
    results = []
    for i, t in enumerate(ins):
        g = found.get(id(t))
        if g is None and not allow_unused:
            raise RuntimeError(
                f"input {i} was not used to compute the outputs (or is not connected "
                f"to them by differentiable ops); pass allow_unused=True to get None"
            )
        results.append((t, g))
    present = [(t, g) for t, g in results if g is not None]
    unaliased = iter(_unalias(present, root_grads, create_graph))
    final = []
    for t, g in results:
        if g is None:
            final.append(None)
            continue
        g = next(unaliased)[1]
        if g.shape != t.shape:
            g = (differentiable_namespace if create_graph else t._device.xp).sum_to(g, t.shape)
        final.append(g if create_graph else Tensor._wrap(g, None, t._device))
    return tuple(final)

