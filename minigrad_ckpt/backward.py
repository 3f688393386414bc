"""The backward pass: from the gradients of some outputs to those of the leaves.

:mod:`.tape` records; this module plays the record back.  ``loss.backward()``
and ``mg.grad`` each build one :class:`BackwardPass` -- the whole state of one
pass in one object -- and run it.  The pass keeps a *frontier*: the nodes
with a gradient waiting for them, in a max-heap keyed by ``seq``.  Popping
the most recently recorded node first means every consumer of a node has run
before the node itself (a consumer is recorded later), so the node's gradient
is complete when it is popped: no separate topological sort, and the heap
stays as wide as the graph.

:meth:`BackwardPass.steps` goes one node at a time: send the node's gradient
through its op (:meth:`~BackwardPass.call_backward`), accumulate what each
input gets, release what the node saved, go on.  The named steps beside it
take the cases the loop hands on: :meth:`~BackwardPass.prune` (``mg.grad``:
skip what no requested input needs), :meth:`~BackwardPass.receive` (tensor
hooks, the memory ledger, ``mg.grad``'s targets), :meth:`~BackwardPass.replay`
(a checkpointed node's saved values, recomputed), :meth:`~BackwardPass.accumulate_leaf`
and :meth:`~BackwardPass.hand_over` (a leaf whose gradient is final in
mid-pass gets it at once, for post-accumulate hooks), :meth:`~BackwardPass.release`
(checkpoint segments, the ledger, ``retain_graph``).

A note on the name: ``mg.backward`` is the *function* (this module's
:func:`backward`); import from the module by its full name
(``from minigrad_ckpt.backward import BackwardPass``).
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from collections.abc import Iterable, Iterator, Sequence
from heapq import heapify, heappop, heappush, heappushpop
from typing import Any

from . import tape
from .backend import contiguous_format, default_device_set_to, has_layout, host_numpy, laid_out, layout_axes
from .grad_mode import no_grad
from .grad_mode import state as _grad_state
from .memory import ledger as _ledger
from .memory import saved_arrays
from .tape import (
    DROPPED,
    FREED,
    UNDEFINED,
    AccumulateGradPreHook,
    Node,
    NodePreHook,
    _explain,
    _version_error,
    checked_hook_result,
    walk,
)
from .tensor import Tensor, _seq, fresh_result, hook_rank, post_hook_count

__all__ = ["BackwardPass", "backward", "grad", "queue_callback", "current_backward", "BackwardCall", "current_pass"]

#: The dtypes of nearly every node: compared by identity before a complex output is looked for.
_FLOAT32, _FLOAT64 = host_numpy.dtype("float32"), host_numpy.dtype("float64")



#: PyTorch's words (torch 2.13) for ``backward()`` called by a function ``mg.func.grad`` (vjp, jvp, ...) runs
_BACKWARD_IN_TRANSFORM = (
    "backward() called inside a functorch transform. This is not supported, please use functorch.grad or "
    "functorch.vjp instead or call backward() outside of functorch transforms."
)


class BackwardPass:
    """The state of one backward pass, and its steps (see the module docstring).

    ``pending`` maps each node on the frontier to its gradient so far (``None``:
    reached, but no gradient arrived -- its inputs are still visited, and
    freed); ``heap`` orders the frontier.  Leaves collect their totals in
    ``leaf_grads`` (keyed by ``id``, the tensors in ``leaves``).  With
    ``create_graph`` every gradient is a Tensor and backward runs on the
    differentiable namespace, so the pass is itself recorded.

    :meth:`run` goes through the whole pass in one call; a caller may instead call
    :meth:`begin`, iterate :meth:`steps` (or call :meth:`step` while :attr:`heap`
    is not empty), then :meth:`close_segments`, and :meth:`end` (always:
    ``try``/``finally``), to watch the pass node by node.
    """

    keeps_what_it_sends = False  # mg.backward_steps' pass keeps every gradient it sent (see _in_flight)

    __slots__ = ("retain_graph", "create_graph", "root_grads", "pending", "heap", "leaf_grads", "leaves",
                 "target_nodes", "target_leaves", "contributing", "found", "remaining", "summed", "handed", "exposed",
                 "ledger_on", "watching", "segments", "_grad_mode_before", "roots", "_reached", "hook_state",
                 "into_grad", "sums_in_place", "_sent_owners")

    def __init__(self, roots: Sequence[Any], root_grads: Sequence[Any] | None = None, *,
                 retain_graph: bool = False, create_graph: bool = False,
                 targets: Sequence[Any] | None = None, handed: set[int] | None = None) -> None:
        if root_grads is None:  # ones, for one-element outputs
            root_grads = _root_grads(roots, None, create_graph)
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.root_grads = root_grads
        self.roots = roots
        self._reached: tuple[set, set] | None = None  # see sends_to
        self.hook_state: dict[Any, Any] = {}  # what hooks keep for the length of this pass (multi-grad hooks)
        self.into_grad = False  # the leaves' gradients go into .grad (backward()), not to mg.grad's caller
        self.pending: dict[Node, Any] = {}
        self.leaf_grads: dict[int, Any] = {}
        self.leaves: dict[int, Any] = {}
        for r, g in zip(roots, root_grads):
            if r._node is not None:
                n = r._node
                self.pending[n] = self.pending[n] + g if n in self.pending else g
            else:
                k = id(r)
                self.leaves[k] = r
                self.leaf_grads[k] = self.leaf_grads[k] + g if k in self.leaf_grads else g
        self.heap = [(-n.seq, n) for n in self.pending]
        heapify(self.heap)
        self.found: dict[int, Any] = {}  # the results: id(tensor) -> gradient
        self.target_nodes: dict[Node, int] | None = None
        self.target_leaves: set[int] | None = None
        self.contributing: set[Node] | None = None
        if targets is not None:
            self.prune(roots, targets)
        # Leaves with post-accumulate hooks get their gradient into ``.grad`` (and
        # their hooks called) as soon as the pass has sent it along every edge into them.
        self.remaining = _leaf_edge_counts(roots) if post_hook_count[0] and targets is None else None
        self.summed: set[int] = set()  # leaves whose gradient is a sum we made (not an op's array)
        self.handed = set() if handed is None else handed  # arrays already in some .grad
        self.exposed: set[int] = set()  # memory a tensor hook has seen (see _in_flight)
        self._sent_owners: tuple | None = None  # see _shares_with_sent
        self.ledger_on = _ledger.enabled
        self.watching = self.ledger_on or targets is not None  # see receive
        self.sums_in_place = not self.watching and not create_graph  # (_sum_into; a watched pass: new arrays)
        self.segments: dict[Any, None] = {}  # checkpoint segments met, in order

    # ------------------------------------------------------------------ driving
    def run(self) -> dict[int, Any]:
        """Go through every node; return ``{id(tensor): gradient}`` (see :meth:`results`)."""
        self.begin()
        try:
            self._advance(one=False)
            self.close_segments()
        except Exception as exc:
            if tape._anomaly is not None:  # mg.detect_anomaly(): the failing node's forward line, as PyTorch's
                tape._anomaly.failed(exc)
            raise
        finally:
            self.end()
        return self.results()

    def begin(self) -> None:
        """Enter the pass: grad mode on exactly when ``create_graph``, the ledger's phase."""
        _threads_passes.stack.append(self)
        self._grad_mode_before = _grad_state.enabled
        _grad_state.enabled = self.create_graph
        if self.ledger_on:
            if tape._after_segment is not None:  # the forward pass is over: checkpoint statistics are final
                tape.set_after_segment(None)
            _ledger.set_phase("backward")
            _ledger.hold(_grad_arrays(self.pending.values(), self.create_graph), "grad")

    def close_segments(self) -> None:
        """After the last node: the checkpoint segments met drop what they kept for replay."""
        for seg in self.segments:
            seg.finish(self.retain_graph)

    def end(self) -> None:
        """Leave the pass (after the last step, or an error): grad mode and the ledger as before."""
        passes = _threads_passes.stack
        if self in passes:
            passes.remove(self)
        _grad_state.enabled = self._grad_mode_before
        if self.ledger_on:  # what is left in flight: the leaves' totals go to .grad (or to mg.grad's caller)
            _ledger.release(_grad_arrays(self.pending.values(), self.create_graph), category="grad")
            _ledger.release(_grad_arrays(self.leaf_grads.values(), self.create_graph), category="grad")
            _ledger.set_phase("idle")

    def steps(self) -> Iterator[Node]:
        """Run the pass one node at a time, yielding each node when its step is done."""
        while self.heap:
            yield self._advance(one=True)

    def step(self) -> Node:
        """One step of :meth:`steps` (after :meth:`begin`): the next node, backpropagated."""
        return self._advance(one=True)

    def _advance(self, one: bool) -> Any:
        """The pass: send each node's gradient through its op, accumulate, release -- to the end, or one node."""
        heap, pending, watching, reached = self.heap, self.pending, self.watching, None
        plain_release = not watching and not self.retain_graph  # (common cases inline: a call per node costs %)
        inline = (not self.create_graph and tape._anomaly is None and not tape.node_hook_count[0]
                  and type(self).call_backward is BackwardPass.call_backward)
        while heap or reached is not None:  # reached: the node last reached first, off the heap (a chain: per_op -2%)
            node, reached = (heappop(heap)[1] if reached is None else reached if not heap  # (else the heap orders)
                             else heappushpop(heap, (-reached.seq, reached))[1]), None
            g = pending.pop(node)  # -- send the gradient through the op
            if g is not None and (watching or node.hooks):
                g = self.receive(node, g)  # hooks, the ledger, mg.grad's targets
                inline = inline and not tape.node_hook_count[0]  # (a hook may have hooked a node still to come)
            if g is None:  # reached, but no gradient: its inputs are still visited (and freed)
                grads = (self.call_without_gradient(node) if node.op.runs_without_gradient and (
                    self.contributing is None or node in self.contributing) else (None,) * len(node.inputs))
            elif (inline and type(saved := node.saved) is tuple and not (op := node.op).contract_checks_left
                  and op.backward_inline and ((dt := node.dtype) is _FLOAT64 or dt is _FLOAT32)
                  and g.__class__ is node.xp.array_type):  # call_backward's case of real values still saved
                for box in node.versions:
                    if box[0] > node.seq:
                        self.refuse_stale(node)
                try:  # (out, x) and (out, x, y) called directly: a star-call is slow (see tape.apply)
                    xp, n = node.xp, len(saved)
                    grads = (op.backward(xp, g, saved[0], saved[1]) if n == 2 else op.backward(xp, g, *saved)
                             if n != 3 else op.backward(xp, g, saved[0], saved[1], saved[2]))
                except (TypeError, AttributeError) as exc:  # a broken op contract, explained
                    _explain(op, exc, "backward", node.xp, node.saved)
                    raise
                grads = grads if type(grads) is tuple else (grads,)
            else:
                grads = self.call_backward(node, g)
                inline = inline and not tape.node_hook_count[0]  # (a replay's forward hooks may have added some)
            for edge, gi in zip(node.inputs, grads):  # -- accumulate what each input gets
                if type(edge) is not Node:
                    if edge is not None:  # a leaf (None: an input that wants no gradient)
                        self.accumulate_leaf(edge, gi, grads)
                    continue
                if gi is not None and (gi.shape != edge.shape or gi.dtype is not edge.dtype):
                    gi = self.node_share(edge, gi)
                if edge in pending:
                    if gi is None:
                        continue
                    pending[edge] = _sum_into(prev := pending[edge], gi, edge.xp, self.sums_in_place)
                else:  # first time reached: onto the frontier
                    pending[edge] = gi
                    if reached is not None:
                        heappush(heap, (-reached.seq, reached))
                    reached, prev = edge, None
                if watching and self.ledger_on and gi is not None:
                    self.hold_in_flight(pending[edge], prev)
            prev = gi = grads = None  # no stale references to pending gradients: _sum_into and _add_at count them
            if node.segment is None and plain_release:  # -- release what the node saved, go on
                if node.versions or ((s := node.saved) and s[-1] is not None) or not _holds_nothing(s):
                    node.saved = FREED  # the common case of release() (a saved last value: no call to ask)
            else:
                self.release(node)
            if one:  # a step: the node reached last goes back onto the frontier the steps look at
                return self._push_back(reached, node)

    # --------------------------------------------------------------- the steps
    def prune(self, roots: Sequence[Any], targets: Sequence[Any]) -> None:
        """``mg.grad``: collect the targets' gradients, and send none through a node
        that no target depends on (``contributing`` holds the nodes that some do)."""
        self.target_nodes = target_nodes = {t._node: id(t) for t in targets if t._node is not None}
        self.target_leaves = target_leaves = {id(t) for t in targets if t._node is None}
        self.contributing = contributing = set()
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

    def refuse_stale(self, node: Node) -> None:
        """PyTorch's error for a value ``node`` saved and an in-place write changed since -- unless
        no gradient the pass hands out goes through ``node``: its inputs lead only to the argument
        handles of a reverse-mode transform that has returned (``g = mg.func.grad(f)(c)``, then
        ``c.add_(1)``, then ``g.sum().backward()``: the handle on ``c`` is ``c``'s memory, and the
        nodes that differentiate with respect to it only are the transform's, as torch.func's inner
        level is; torch never records them in the outer graph).  Then the node's gradients, made
        from the changed values, reach no one: the pass goes on."""
        if self.target_nodes is not None or _feeds_a_gradient(node):
            raise _version_error(node)

    def call_backward(self, node: Node, g: Any) -> tuple:
        """The gradients ``node``'s op sends to its inputs, given the node's complete gradient
        ``g``: the saved values checked (or replayed), the op's backward called and checked."""
        if not self.create_graph and g.__class__ is not node.xp.array_type:
            g = node.xp.as_array(g)  # the test inline: once per node, a call costs ~3% of per_op
        saved = node.saved
        if type(saved) is not tuple:
            saved = self.replay(node)
        for box in node.versions:
            if box[0] > node.seq:
                self.refuse_stale(node)
        op = node.op
        if op.places_gradient_at_index and self.added_at(node, g):
            return (None,)  # added into the gradient its input already has (_add_at)
        xp = tape.differentiable_namespace if self.create_graph else node.xp
        if self.create_graph:
            args, start = _graph_args(node, saved), next(_seq)  # nodes made from here on are its backward's
        else:
            args = saved
        dt = node.dtype  # float32/float64 by identity first: the common case pays two comparisons
        conjugate = dt is not _FLOAT64 and dt is not _FLOAT32 and dt.kind == "c" and op.holomorphic
        if conjugate:  # g * f'(z) written for reals, applied as g * conj(f'(z)) (docs/complex.md)
            g = xp.conj(g)
        try:
            if self.create_graph:
                grads = self._recorded_backward(node, g, args)
            elif op.uses_needs_input_grad:
                grads = op.backward(xp, g, *args, needs_input_grad=self._needs_input_grad(node))
            else:
                grads = op.backward(xp, g, *args)
        except (TypeError, AttributeError) as exc:  # a broken op contract, explained
            _explain(op, exc, "backward", xp, saved)
            raise
        if type(grads) is not tuple:
            grads = (grads,)
        if conjugate:
            grads = tuple(None if gi is None else xp.conj(gi) for gi in grads)
        if self.create_graph and node.versions:
            _watch_saved_values(node, args, grads, start)
        if op.contract_checks_left:  # one of the first backward calls of its op class
            _check_contract(op, grads, node)
        if tape.node_hook_count[0] and node.backward_hooks:  # (grad_fn.register_hook)
            grads = self.call_node_hooks(node, g, grads)
        if tape._anomaly is not None:  # mg.detect_anomaly(): a NaN/inf gradient names its node (as PyTorch's,
            tape._anomaly.backward(node, g, grads)  # after the node's hooks: what it sends on is checked)
        return grads

    def call_without_gradient(self, node: Node) -> tuple:
        """A custom Function's node that no gradient reached: PyTorch calls its backward all the same,
        with zeros (or None, after ``set_materialize_grads(False)``), and sends on what it returns."""
        g = node.xp.zeros(node.shape, dtype=node.dtype)
        if self.create_graph:
            g = Tensor._wrap(g, None, node.op.device)
        node.op.nothing_reached = True
        try:
            return self.call_backward(node, g)
        finally:
            node.op.nothing_reached = False

    def _recorded_backward(self, node: Node, g: Tensor, args: tuple) -> Any:
        """``node``'s backward on Tensors (``create_graph``), run with ``g``'s device as the
        default: a constant it makes with no tensor to follow (``xp.eye(n)``) goes there too."""
        op, xp = node.op, tape.differentiable_namespace
        with default_device_set_to(g._device):
            if op.uses_needs_input_grad:
                return op.backward(xp, g, *args, needs_input_grad=self._needs_input_grad(node))
            return op.backward(xp, g, *args)

    def replay(self, node: Node) -> tuple:
        """``node``'s saved values when the tape does not hold them as they are: recomputed by its
        checkpoint segment's replay (``DROPPED``), given back by saved-tensor hooks' unpack hook
        (``PackedSaved``), or an error (``FREED``)."""
        if node.saved is DROPPED:
            saved = node.segment.rematerialize(node)  # (packed by the hooks active when it was recorded)
            return saved.unpack() if type(saved) is tape.PackedSaved else saved
        if type(node.saved) is tape.PackedSaved:
            return node.saved.unpack()
        if node.saved is FREED:
            raise RuntimeError(tape.FREED_SAVED_MSG)  # PyTorch's words, as the tape's
        raise AssertionError(f"node #{node.seq} has saved values of type {type(node.saved).__name__}")

    def hand_over(self, t: Any, g: Any, summed: bool, sent: tuple = ()) -> None:
        """Leaf ``t``'s gradient is final in the middle of the pass: run its tensor hooks,
        accumulate it into ``.grad`` and call its post-accumulate hooks now."""
        create_graph = self.create_graph
        if self.ledger_on:  # no longer in flight: it becomes .grad now
            _ledger.release(_grad_arrays((g,), create_graph), category="grad")
        if not create_graph:
            g = t._device.xp.as_array(g)
        if t._hooks:
            g = _call_hooks(t._hooks, g, create_graph)
            if g is None:  # an AccumulateGrad pre-hook took it away: .grad stays, its hooks run (PyTorch's)
                _fire_post_hooks(t)
                return
        elif not summed and t._grad is None and (create_graph or self._in_flight(g, sent, t._device.xp)):
            # An op's array may also be another input's gradient, still in flight
            # (Add hands one array to both inputs): ``.grad`` gets its own copy.
            g = g.clone() if create_graph else g.copy()
        if not t._requires_grad:  # detached after its use: hooks run, .grad stays (see _hand_out)
            _fire_post_hooks(t)
            return
        if t._grad is None:
            (g,) = (pair[1] for pair in _unalias([(t, g)], self.root_grads, create_graph, self.handed))
        _accumulate(t, g, create_graph)
        self.handed.add(id(t._grad._data))
        _fire_post_hooks(t)

    def _in_flight(self, g: Any, sent: tuple, xp: Any) -> bool:
        """May ``g``'s memory be seen elsewhere -- a gradient still on its way to another
        input (among ``sent``, the node's gradients; on the frontier; held for another
        leaf), an array a tensor hook kept or returned, or a pass that keeps what it sends
        (``mg.backward_steps``)?  Only then must a ``.grad`` handed over mid-pass be a copy
        (a post-accumulate hook may write to it: DDP's mean does); every other array is
        handed over as it is, as at the end of a pass (copying DDP's 7 MiB of gradients
        cost 2.3 ms a step).  Arrays of another class live on another device: never the same
        memory."""
        if self.keeps_what_it_sends:
            return True
        owner, kind = xp.memory_owner(g), g.__class__
        if id(owner) in self.exposed or self._shares_with_sent(g, owner, sent, xp):
            return True
        for v in itertools.chain(self.pending.values(), self.leaf_grads.values()):
            if v is not None and v.__class__ is kind and xp.memory_owner(v) is owner:
                return True
        return False

    def _shares_with_sent(self, g: Any, owner: Any, sent: tuple, xp: Any) -> bool:
        """Whether a gradient among ``sent`` (what one node sends its inputs), other than ``g`` itself if
        ``g`` came as it is, views ``g``'s memory (``owner``).  The leaves of a node with many inputs
        (``mg.stack`` of 10^4 parameters) are handed over one by one with the same ``sent``: its memory
        owners are counted once, kept for the next leaf -- a scan per leaf made the pass O(n^2) (10^4
        leaves with post-accumulate hooks: 25 s).  Holding ``sent`` only makes :func:`_sum_into` add into
        a new array where it could have written in place: the same sum."""
        kind = g.__class__
        if len(sent) <= 8:  # a scan costs less than a count
            here = sum(v.__class__ is kind and xp.memory_owner(v) is owner for v in sent if v is not None)
            return here > any(v is g for v in sent)
        counted = self._sent_owners
        if counted is None or counted[0] is not sent or counted[1] is not xp or counted[2] is not kind:
            owners: dict[int, int] = {}
            for v in sent:
                if v is not None and v.__class__ is kind:
                    key = id(xp.memory_owner(v))
                    owners[key] = owners.get(key, 0) + 1
            counted = self._sent_owners = (sent, xp, kind, owners, {id(v) for v in sent})
        return counted[3].get(id(owner), 0) > (id(g) in counted[4])

    def release(self, node: Node) -> None:
        """Free what ``node`` saved: its backward ran, or never will (``retain_graph`` keeps it)."""
        seg = node.segment
        passed_by = self.contributing is not None and node not in self.contributing
        # passed_by: mg.grad skipped it (no requested input is behind it), and a later pass may still run it:
        # PyTorch's engine frees only what it executes (grad(out, h), then grad(h, x, g))
        if seg is None:
            if passed_by:
                return
            if not self.retain_graph and type(node.saved) is tuple:
                if self.ledger_on:
                    _ledger.release(saved_arrays(node), node)
                if node.versions or not _holds_nothing(node.saved):
                    node.saved = FREED
            elif not self.retain_graph and type(node.saved) is tape.PackedSaved:  # what the pack hook made goes
                if self.ledger_on:  # (values given hooks after the ledger counted them: the rest leave it now)
                    _ledger.release(saved_arrays(node), node)
                node.saved = FREED
            return
        if not passed_by:
            seg.release(node, self.retain_graph)
        self.segments[seg] = None
        # Passing a segment's first node ends its backward: its replay
        # inputs can go now rather than at the end of the whole pass.
        while seg is not None and node is seg.first:
            seg.backward_done(self.retain_graph)
            seg = seg.parent

    def results(self) -> dict[int, Any]:
        """``{id(tensor): gradient}``: every leaf reached (or, for ``mg.grad``, every target),
        each leaf's total passed through its tensor hooks once.  Leaves handed over in
        mid-pass (:meth:`hand_over`) are not in it: their gradient is in ``.grad`` already."""
        found, wanted = self.found, self.target_leaves
        leaf_grads, self.leaf_grads = self.leaf_grads, {}  # the totals move into the results
        for k, g in leaf_grads.items():
            if wanted is not None and k not in wanted:
                continue
            t = self.leaves[k]
            if not self.create_graph:
                g = t._device.xp.as_array(g)
            hooks = t._hooks if self.into_grad or not t._hooks else _without_accumulate_grad_pre_hooks(t._hooks)
            if hooks:
                _threads_passes.stack.append(self)  # (after end(): a hook asking which pass runs it gets this one)
                try:
                    g = _call_hooks(hooks, g, self.create_graph)
                finally:
                    _threads_passes.stack.pop()
                if g is None:  # an AccumulateGrad pre-hook took it away: .grad stays as it is
                    continue
            found[k] = g
        return found

    # ------------------------------------------------------------------ helpers
    def receive(self, node: Node, g: Any) -> Any:
        """``node``'s complete gradient as its op's backward will get it (``None``: of no use),
        where a tensor hook, the memory ledger or ``mg.grad``'s targets watch it."""
        create_graph = self.create_graph
        if self.ledger_on:
            _ledger.release(_grad_arrays((g,), create_graph), category="grad")
            if node.segment is not None:
                _ledger.set_phase(f"backward:{node.segment.index}")
        target_nodes = self.target_nodes
        if target_nodes is not None and node not in self.contributing and node not in target_nodes:
            return None  # mg.grad: no requested input is behind it -- PyTorch runs neither it nor its hooks
        if not create_graph:
            g = node.xp.as_array(g)  # hooks get an array, not a NumPy scalar
        hooks = node.hooks or ()
        if target_nodes is not None and node in target_nodes:  # mg.grad: collect, and skip what no target needs
            # PyTorch captures a requested tensor's gradient before its node's pre-hooks (grad_fn.register_prehook),
            # which run only if the node itself runs -- and, in autograd.grad, before the tensor's own hooks too
            # where the node runs (its engine calls them with the node's), after them where it does not;
            # backward(inputs=) sums into .grad after them, as retain_grad does
            if node in self.contributing and not self.into_grad:
                cut = 0
            else:
                cut = next((i for i, h in enumerate(hooks) if hook_rank(h) >= NodePreHook.hook_rank), len(hooks))
            g = self._through_hooks(node, hooks[:cut], g)
            if g is not None:
                k = target_nodes[node]
                self.found[k] = self.found[k] + g if k in self.found else g
            if node not in self.contributing:
                return None
            hooks = hooks[cut:]
        return self._through_hooks(node, hooks, g)

    def _through_hooks(self, node: Node, hooks: Sequence[Any], g: Any) -> Any:
        """``g`` through ``hooks`` (some of ``node``'s output's: :meth:`receive`); None once a pre-hook took it away."""
        if not hooks or g is None:
            return g
        g = _call_hooks(hooks, g, self.create_graph)
        if g is not None and not self.create_graph:  # a hook may have kept it, or returned an array of its own
            self.exposed.add(id(node.xp.memory_owner(g)))
        return g

    def _namespace(self, xp: Any) -> Any:
        """What gradients are computed with: the arrays' ``xp``, or with ``create_graph`` the
        differentiable namespace (gradients are Tensors then)."""
        return tape.differentiable_namespace if self.create_graph else xp

    def _push_back(self, reached: Node | None, node: Node) -> Node:
        if reached is not None:
            heappush(self.heap, (-reached.seq, reached))
        return node

    def call_node_hooks(self, node: Node, g: Any, grads: tuple) -> tuple:
        """``node``'s ``grad_fn.register_hook`` hooks, ``hook(grad_inputs, grad_outputs)``, as PyTorch
        calls them: each input's gradient summed to its shape (None for a constant or an input the
        pass wants none for), copies the hooks may keep; a tuple a hook returns is sent on instead."""
        create_graph, xp = self.create_graph, node.xp

        def handed(a: Any) -> Any:
            return a.clone() if create_graph else Tensor._wrap(xp.as_array(a).copy(), None)

        wanted = self._needs_input_grad(node)
        ins = tuple(None if gi is None or not want else handed(  # (the base's shares: a subclass notes the later ones)
            BackwardPass.node_share(self, e, gi) if type(e) is Node else BackwardPass.leaf_share(self, e, gi))
            for e, gi, want in zip(node.inputs, grads, wanted))
        split = getattr(node.op, "output_gradients", None)  # a custom Function's: one per output of forward
        outs = (handed(g),) if split is None else split(handed(g))
        before, _grad_state.enabled = _grad_state.enabled, create_graph  # as a tensor hook runs (_call_hooks)
        try:
            for h in list(node.backward_hooks):
                r = h(ins, outs)
                if r is not None:
                    ins = _checked_grad_inputs(h, node, ins, r)
        finally:
            _grad_state.enabled = before
        return tuple(None if t is None else t if create_graph else t._data.copy() for t in ins)

    def sends_to(self, edge: Any) -> bool:
        """Whether this pass sends a gradient to ``edge`` -- a node, or a leaf that requires grad
        (PyTorch's ``_will_engine_execute_node`` of a ``grad_fn`` or an ``AccumulateGrad``): reachable
        from the roots, and under ``mg.grad`` (``backward(inputs=)``) behind a target, or one."""
        if self._reached is None:
            nodes = walk(*self.roots)
            leaves = {id(r) for r in self.roots if r._node is None}
            leaves.update(id(e) for n in nodes for e in n.inputs if e is not None and type(e) is not Node)
            self._reached = (set(nodes), leaves)
        nodes, leaves = self._reached
        if type(edge) is Node:
            return edge in nodes and (self.contributing is None or edge in self.contributing
                                      or edge in self.target_nodes)
        return id(edge) in leaves and (self.target_leaves is None or id(edge) in self.target_leaves)

    def node_share(self, node: Node, gi: Any) -> Any:
        """What ``node`` receives of the gradient ``gi`` sent to it: summed down to its
        shape (undoing broadcasting), cast to its dtype (a float32 input gets a float32 gradient)."""
        if gi.shape != node.shape:
            gi = self._namespace(node.xp).sum_to(gi, node.shape)
        if gi.dtype != node.dtype:
            gi = _cast_grad(self._namespace(node.xp), gi, node.dtype)
        return gi

    def hold_in_flight(self, gradient: Any, replaced: Any) -> None:
        """The ledger's count of gradients in flight: ``gradient`` now pending, ``replaced`` (the
        partial sum it replaces, or None) no longer."""
        _ledger.hold(_grad_arrays((gradient,), self.create_graph), "grad")
        _ledger.release(_grad_arrays((replaced,), self.create_graph), category="grad")

    def _needs_input_grad(self, node: Node) -> tuple[bool, ...]:
        """Which of ``node``'s inputs the pass wants a gradient for: every one that is recorded
        under ``backward``; under ``mg.grad`` only those a target is behind, or a target leaf
        (the others' gradients would be dropped -- and an op may have none to give, as
        ``zeta``'s ``x``, which PyTorch's ``autograd.grad`` of ``q`` alone does not ask for)."""
        contributing, target_nodes, target_leaves = self.contributing, self.target_nodes, self.target_leaves
        return tuple(e is not None and (contributing is None or (
            e in contributing or e in target_nodes if type(e) is Node else id(e) in target_leaves))
            for e in node.inputs)

    def added_at(self, node: Node, g: Any) -> bool:
        """Whether ``g``, the gradient of a ``GetItem`` node (``Op.places_gradient_at_index``), went into the
        gradient its input already has, pending or a leaf's partial sum (:func:`_add_at`)."""
        edge, op = node.inputs[0], node.op
        if (edge is None or not self.sums_in_place or tape._anomaly is not None or self.keeps_what_it_sends
                or (tape.node_hook_count[0] and node.backward_hooks)):  # (hooks and anomaly mode see what it sends,
            return False  # and mg.backward_steps shows it: its step's grad_inputs and the leaf's share it lists)
        prev = self.pending.get(edge) if type(edge) is Node else self.leaf_grads.get(id(edge))
        return prev is not None and _add_at(prev, op, g, node.xp)

    def leaf_share(self, edge: Any, gi: Any) -> Any:
        """What leaf ``edge`` receives of the gradient ``gi`` sent to it: summed down to its
        shape, cast to its dtype."""
        leaf = edge._data
        if gi.shape != leaf.shape:
            gi = self._namespace(edge._device.xp).sum_to(gi, leaf.shape)
        if gi.dtype != leaf.dtype:
            gi = _cast_grad(self._namespace(edge._device.xp), gi, leaf.dtype)
        return gi

    def accumulate_leaf(self, edge: Any, gi: Any, sent: tuple = ()) -> None:
        """Add ``gi`` into leaf ``edge``'s total (summed to its shape, cast to its dtype); a
        leaf with post-accumulate hooks is handed its gradient once its last edge is passed.
        ``sent`` is every gradient the node sends (one array may go to two inputs)."""
        prev = None
        k = id(edge)
        if gi is not None:
            gi = self.leaf_share(edge, gi)
            self.leaves[k] = edge
            prev = self.leaf_grads.get(k)
            self.leaf_grads[k] = acc = _sum_into(prev, gi, edge._device.xp, self.sums_in_place)
            if self.ledger_on:
                _ledger.hold(_grad_arrays((acc,), self.create_graph), "grad")
                _ledger.release(_grad_arrays((prev,), self.create_graph), category="grad")
        remaining = self.remaining
        if remaining is not None and k in remaining:
            if gi is not None and prev is not None:
                self.summed.add(k)
            remaining[k] -= 1
            if remaining[k] == 0 and k in self.leaf_grads:  # final: hand it over now
                del remaining[k]
                self.hand_over(edge, self.leaf_grads.pop(k), k in self.summed, sent)


def _feeds_a_gradient(node: Node) -> bool:
    """Whether the gradient through ``node`` reaches a leaf that requires grad (other than a
    transform's argument handle, :meth:`minigrad_ckpt.func.reverse.Scope.mark`) or a node with
    hooks (a tensor hook, ``retain_grad``: the user sees them run)."""
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        for e in n.inputs:
            if e is None:
                continue
            if type(e) is Node:
                if e.hooks:
                    return True
                if e not in seen:
                    seen.add(e)
                    stack.append(e)
            elif e._requires_grad and "_made_at" not in e.__dict__:
                return True
    return False


def _holds_nothing(saved: tuple) -> bool:
    """Whether a node saved nothing (``x + 1``, ``x.reshape(...)``, ``x[0]``, a sum; its caller also
    asks that it watch no version): releasing it frees nothing, so the node keeps its slots and a
    second backward through it runs, as PyTorch's does through a node that saved no tensor (its
    error is for saved values that were freed; a saved Python number, ``x * 2``'s, counts as one,
    as PyTorch saves ``2`` as a tensor)."""
    for v in saved:  # (a loop: all() of a generator costs more, and release() runs for many nodes)
        if v is not None:
            return False
    return True


def _check_contract(op: Any, grads: tuple, node: Node) -> None:
    """Validate one of the first backward calls of ``op``'s class (``Op.contract_checks_left``
    counts them down): the number of gradients and their shapes."""
    type(op).contract_checks_left -= 1
    op.check_backward_result(grads, [None if e is None else e.shape for e in node.inputs], node.shape)


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
            args.append(edge if v is edge._data else _unpacked_leaf(v, edge))
    return tuple(args)


def _unpacked_leaf(v: Any, leaf: Tensor) -> Tensor:
    """A leaf's saved value that an unpack hook gave back (``saved_tensors_hooks``; ``v`` is not the
    leaf's own array): backward computes with ``v``, as without ``create_graph``, and the gradient of
    what it computes reaches the leaf as through the leaf itself, as PyTorch hands the unpacked tensor
    the leaf's gradient accumulator.  A recorded clone of the leaf holding ``v``: its gradient is the
    identity's and its values are ``v``'s bit for bit (``leaf + (v - leaf)`` would round them)."""
    held = leaf.clone()
    held._data = v
    return held


def _watch_saved_values(node: Node, args: tuple, grads: tuple, start: int) -> None:
    """The nodes ``node``'s recorded backward made that read one of its saved values watch
    the version boxes ``node`` watches.

    :func:`_graph_args` wraps each saved array in a Tensor of its own, with a
    version box of its own; without this, a value changed in place after the
    first backward (``w.mul_(2)`` between ``mg.grad(..., create_graph=True)`` and
    the second backward, or before a ``linearize`` product) would go unnoticed
    by a second backward that never reaches ``node`` itself, and the second
    derivative would silently use the new values.
    """
    wrappers = {id(a._version_box) for a in args if isinstance(a, Tensor)}
    stack = [gi._node for gi in grads if isinstance(gi, Tensor) and gi._node is not None and gi._node.seq > start]
    seen: set[Node] = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if any(id(b) in wrappers for b in n.versions):
            n.versions = n.versions + node.versions
        stack.extend(e for e in n.inputs if type(e) is Node and e.seq > start)


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
    before, _grad_state.enabled = _grad_state.enabled, create_graph  # as PyTorch runs every hook: in the
    try:  # pass's grad mode (a leaf's hooks run after the pass here), so what a hook computes is not recorded
        return _hooked(hooks, g.clone() if create_graph else g.copy(), create_graph)
    finally:
        _grad_state.enabled = before


def _without_accumulate_grad_pre_hooks(hooks: list) -> list:
    """A leaf's tensor hooks but its ``AccumulateGrad``'s pre-hooks: ``mg.grad`` hands the gradient to its
    caller and accumulates nothing, so PyTorch never runs the leaf's ``AccumulateGrad`` node (nor its
    pre-hooks, which would otherwise change the gradient ``mg.grad`` returns)."""
    return [h for h in hooks if type(h) is not AccumulateGradPreHook]


def _checked_grad_inputs(hook: Any, node: Node, before: tuple, ins: Any) -> tuple:
    """What a ``grad_fn.register_hook`` hook returned in place of ``before``, checked as PyTorch checks it:
    a tuple of one gradient (or None) per input, each of its input's shape and dtype, none where there was none."""
    ins = checked_hook_result(_hook_name(hook), ins, before)
    for i, (e, t) in enumerate(zip(node.inputs, ins)):
        if t is None:
            continue
        shape = e.shape if type(e) is Node else tuple(e.shape)  # (a constant's is None: refused above)
        if tuple(t.shape) != tuple(shape):
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value: it returned an invalid "
                               f"gradient at index {i} - got {list(t.shape)} but expected shape compatible with "
                               f"{list(shape)}")
        if e is not None and t.dtype != e.dtype:  # as a tensor hook's (_hooked): a gradient keeps its input's dtype
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value at index {i} (was "
                               f"{e.dtype} got {t.dtype}); return a gradient of dtype {e.dtype}")
    return ins


def _hooked(hooks: list, gt: Any, create_graph: bool) -> Any:
    """``gt`` (a Tensor with ``create_graph``, else an array, wrapped here) through each of ``hooks`` in
    turn (a hook returns None, or the gradient to use)."""
    if not create_graph:
        gt = Tensor._wrap(gt, None)  # held by this frame alone: see the end
    for h in list(hooks):
        r = h(gt)
        if r is UNDEFINED:  # a node pre-hook's (None,): no gradient, and the hooks after it see None
            gt = None
        elif r is not None:
            if gt is None:
                raise RuntimeError(f"can't replace a None gradient with a non-None value (hook '{_hook_name(h)}')")
            if not isinstance(r, Tensor):  # PyTorch's TypeError, in its words
                raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}' (a gradient hook must "
                                f"return None or a Tensor; hook {_hook_name(h)})")
            if r.shape != gt.shape:
                raise RuntimeError(
                    f"hook '{_hook_name(h)}' has changed the size of value: a gradient hook must return None or "
                    f"a Tensor of shape {gt.shape}, and it returned shape {r.shape}"
                )
            if r.dtype != gt.dtype:  # as PyTorch: a gradient keeps its tensor's dtype
                raise RuntimeError(
                    f"hook '{_hook_name(h)}' has changed the type of value (was {gt.dtype}, got {r.dtype}); "
                    f"return a gradient of dtype {gt.dtype} (e.g. g.astype('{gt.dtype}'))"
                )
            gt = r
    if create_graph or gt is None:
        return gt
    arr, seen = gt._data, weakref.ref(gt)
    del gt, r
    # A hook that kept the tensor it saw (or returned) would watch .grad change under it, a later
    # backward accumulating in place: that tensor keeps this array, .grad gets a copy (PyTorch's
    # AccumulateGrad clones a gradient someone else holds)
    return arr if seen() is None else arr.copy()



class BackwardCall:
    """One running ``backward()``: its ``create_graph`` flag and the callbacks
    queued (by hooks) to run once when it finishes, before it returns."""

    __slots__ = ("create_graph", "callbacks")

    def __init__(self, create_graph: bool) -> None:
        self.create_graph = create_graph
        self.callbacks: list = []


_running: list[BackwardCall] = []


class _PassStack(threading.local):
    """The backward passes running in this thread (``backward()``, ``mg.grad``), innermost last: a hook
    that runs in one asks :func:`current_pass` which (PyTorch's graph task, which is the thread's own:
    a pass in another thread must not hide it)."""

    def __init__(self) -> None:
        self.stack: list[BackwardPass] = []


_threads_passes = _PassStack()


def current_pass() -> BackwardPass | None:
    """The innermost backward pass running now in this thread (PyTorch's current graph task), or ``None``."""
    passes = _threads_passes.stack
    return passes[-1] if passes else None


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
    for n in walk(*roots):
        for e in n.inputs:
            if e is not None and type(e) is not Node and e._post_hooks:
                counts[id(e)] = counts.get(id(e), 0) + 1
    return counts


#: Held while a gradient goes into a leaf's ``.grad``: two threads' backward passes through one
#: leaf (a shared parameter) accumulate both gradients, as PyTorch's ``AccumulateGrad`` (a mutex per
#: leaf) -- NumPy lets go of the GIL inside a large ``+=``, and two sums into one array lost updates.
_accumulating = threading.Lock()


def _accumulate(t: Any, g: Any, create_graph: bool) -> None:
    """Add one backward's gradient ``g`` of leaf ``t`` into ``t.grad``.

    As PyTorch's ``AccumulateGrad``: without ``create_graph`` the sum is written into the
    ``.grad`` tensor itself (its version bumped), so whoever holds it -- ``g = x.grad`` before a
    second backward, a gradient zeroed by ``zero_grad(set_to_none=False)`` -- sees the total; with
    ``create_graph`` the sum is a new tensor on the tape (the old one stays as it was)."""
    with _accumulating:
        if t._grad is None:
            if create_graph:
                t._grad = _recorded_in_layout_of(t, g)
            else:  # (the usual layout, the leaf's strides, tested inline: two calls less a leaf, ~1k instructions)
                t._grad = Tensor._wrap(g if getattr(g, "strides", None) == t._data.strides else
                                       _in_layout_of(t._data, g), None, t._device)
        elif create_graph:
            t._grad = t._grad + g
        else:
            with no_grad():
                t._grad.add_(Tensor._wrap(g, None, t._device))


def _in_layout_of(leaf: Any, g: Any) -> Any:
    """``g`` laid out as PyTorch's ``AccumulateGrad`` lays out a new ``.grad`` (its layout contract): with
    the leaf's strides where the leaf fills its memory densely (a channels-last weight's gradient is
    channels last, a transposed leaf's transposed, a row-major weight's row-major whatever layout the
    last op's backward gave), row-major otherwise.  ``g`` itself where that is its layout already -- the
    usual case, a comparison of strides; arrays without strides (no NumPy layout to ask) are kept."""
    axes = _grad_layout_axes(leaf, g)
    if axes is None:
        return g
    return laid_out(g, "contiguous_format") if axes == tuple(range(leaf.ndim)) else laid_out(g, like=leaf)


def _grad_layout_axes(leaf: Any, g: Any) -> tuple[int, ...] | None:
    """The axes, outermost first, of the layout the contract asks of the array ``g`` for ``leaf``'s new
    ``.grad``; ``None`` where ``g`` has it already."""
    strides = getattr(g, "strides", None)
    if strides is None or strides == leaf.strides or g.shape != leaf.shape or g.size <= 1:
        return None
    row_major, axes = tuple(range(leaf.ndim)), layout_axes("preserve_format", leaf)
    if not has_layout(leaf, axes):  # a strided or expanded leaf: PyTorch's row-major .grad
        axes = row_major
    return None if has_layout(g, axes) else axes


def _recorded_in_layout_of(leaf: Any, g: Any) -> Any:
    """The gradient tensor ``g`` of a ``create_graph`` backward laid out as :func:`_in_layout_of` lays out
    an array, by recorded ops so that it stays differentiable (PyTorch's ``clone_obey_contract`` copies
    it so there too): a channels-last weight's ``.grad`` was row-major under ``create_graph`` only."""
    axes = _grad_layout_axes(leaf._data, g._data)
    if axes is None:
        return g
    inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
    # (Tensor's methods, which the layers above bind: row-major in the axes' order, then viewed back)
    copy = g.permute(axes).clone(memory_format=contiguous_format)
    return fresh_result(copy.permute(inverse), g)


def _fire_post_hooks(t: Any) -> None:
    for h in list(t._post_hooks):
        if h(t) is not None:  # PyTorch's check: a post-accumulate hook reads and writes t.grad itself
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _grad_arrays(grads: Iterable[Any], create_graph: bool) -> list[Any]:
    return [g._data if create_graph else g for g in grads if g is not None and hasattr(g, "shape")]


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
    if g.dtype.itemsize <= dtype.itemsize:
        return g.astype(dtype)
    with xp.errstate(over="ignore"):  # beyond the narrower dtype's range is inf, as PyTorch's cast (no warning)
        return g.astype(dtype)


def _sum_into(prev: Any, gi: Any, xp: Any, in_place: bool) -> Any:
    """``prev + gi``, written into ``prev`` where nothing but the pass's map of pending gradients can see
    ``prev`` (an array that owns its memory, that no tensor, saved value, hook, view or other gradient
    references): a node that several ops read -- an LSTM step's record, a residual block's input -- sums
    its gradients without a new array each (and without the fresh pages each costs: in the LSTM program,
    a 237 KiB record gradient a step).  Bitwise the same sum.  Reference counts tell who can see ``prev``;
    :data:`_SOLE_PENDING_COUNT`, measured on this interpreter at import, is what they read for an array
    only the map holds (None where counting cannot tell: then every sum is a new array).  ``in_place``
    False (a pass the ledger watches, or one that records its gradients' graph): a new array.  ``gi`` itself
    where ``prev`` is None (nothing to add to)."""
    if prev is None:
        return gi
    # (both of the namespace's array class: not an array of another device's -- a custom function's CPU
    # gradient for a strict-device input -- whose memory that namespace's owns_memory cannot read)
    if (in_place and _SOLE_PENDING_COUNT is not None and prev.__class__ is gi.__class__ is xp.array_type
            and prev.dtype == gi.dtype and prev.shape == gi.shape and sys.getrefcount(prev) == _SOLE_PENDING_COUNT
            and xp.owns_memory(prev) and _writeable(prev) and _laid_out_as_a_new_sum(prev, gi)):
        prev += gi
        return prev
    return prev + gi


def _laid_out_as_a_new_sum(prev: Any, gi: Any) -> bool:
    """Whether ``prev + gi`` would be laid out as ``prev`` is: row-major where ``prev`` is (whatever ``gi``'s
    layout; ``gi`` None: the row-major zeros a slice's gradient is placed in), or as both where their
    strides agree.  Otherwise (a column-major ``prev``, ``exp``'s ``g * out`` of a transpose, and a
    row-major ``gi``) the new sum is row-major: the same numbers, but a reduction of them (the node's
    backward summing over a broadcast axis, ``.grad.sum()``) adds them in another order -- a sum in place
    would change their last bits.  Arrays without NumPy's flags: taken as agreeing."""
    flags = getattr(prev, "flags", None)
    return flags is None or flags.c_contiguous or (gi is not None and prev.strides == gi.strides)


def _add_at(prev: Any, op: Any, g: Any, xp: Any) -> bool:
    """Add ``g``, the gradient of ``x[op.index]`` (a view: ``GetItem``), into ``x``'s pending gradient
    ``prev`` where :func:`_sum_into` would write into it; False (nothing done) otherwise.  Without it each
    piece's gradient is a zero array of ``x``'s shape: ``x.unbind(1)`` into 100 steps, 100 of them and 99
    sums of ``x``'s size (117 ms for (64, 100, 128) float64, torch 5 ms; 15 ms now).  The sum at the
    piece's positions is ``prev + g`` as before; elsewhere ``prev`` stays as it is, where adding the zeros
    turned a ``-0.0`` into ``0.0`` (PyTorch, whose ``unbind`` backward stacks the pieces, keeps it too)."""
    if (_SOLE_PENDING_COUNT is None or prev.__class__ is not g.__class__ or g.__class__ is not xp.array_type
            or prev.dtype != g.dtype or prev.shape != op.in_shape or sys.getrefcount(prev) != _SOLE_PENDING_COUNT
            or not xp.owns_memory(prev) or not _writeable(prev) or not _laid_out_as_a_new_sum(prev, None)):
        return False
    part = op.forward(xp, prev)  # the piece as the forward took it: a view (one element too, 0-d)
    if part.__class__ is not prev.__class__ or part.shape != g.shape:
        return False
    part += g
    return True


def _pending_refcount(prev: Any) -> int:
    return sys.getrefcount(prev)


def _measure_sole_pending_count() -> int | None:
    """What :func:`_sum_into` reads for an array only a dict and its caller's local hold, or None
    unless one more reference changes it (then counting cannot be trusted here)."""
    from .backend import numpy_namespace

    pending = {0: numpy_namespace.zeros(3)}
    unheld = sys.getrefcount(pending[0])  # the map's and the argument's: no frame's local holds it yet
    prev = pending[0]
    sole = _pending_refcount(prev)
    kept = prev
    shared = _pending_refcount(prev)
    del kept
    # + 2, the caller's local and the argument: more where a trace or profile function that reads
    # frame.f_locals (a debugger's variables view, a watch) kept a snapshot of the locals -- a count met
    # later, once it is off, by an array something else sees: that array would be written in place
    if _pending_refcount(prev) != sole or shared <= sole or sole != unheld + 2:
        return None
    return sole  # (the map, its caller's local, the argument: as in _sum_into, called from BackwardPass._advance)


#: See :func:`_sum_into`.
_SOLE_PENDING_COUNT = _measure_sole_pending_count()


def _sole_views(found: dict[int, Any]) -> set[int]:
    """Ids of the gradients in ``found`` that are views only ``found`` holds, of buffers
    nothing else references.  Handing such a view out aliases nothing, so it need not be
    copied: ``W.T``'s gradient arrives as a view of a product no one else holds.

    Reference counts tell, but what CPython counts changes between versions (3.14
    borrows references on the stack; free-threaded builds count differently), so the
    counts of a sole view are not assumed: :data:`_SOLE_VIEW_COUNTS` was measured on
    this interpreter when the module was imported.  Where the measurement could not
    tell a sole view from a shared one it is None, and every view is copied.
    """
    if _SOLE_VIEW_COUNTS is None:
        return set()  # (the base read first: most gradients own their memory, and a call costs more)
    return {id(found[k]) for k in found
            if getattr(found[k], "base", None) is not None and _view_refcounts(found, k) == _SOLE_VIEW_COUNTS
            and _writeable(found[k])}


def _writeable(arr: Any) -> bool:
    """Whether ``arr`` may be written: a ``broadcast_to`` view (einsum's backward broadcasts a
    summed-over operand back) is NumPy's read-only view, which as ``.grad`` would refuse
    ``x.grad.mul_(c)`` and ``clip_grad_norm_``.  Arrays without NumPy's flags are writeable."""
    return getattr(getattr(arr, "flags", None), "writeable", True)


def _view_refcounts(found: dict[int, Any], k: int) -> tuple[int, int] | None:
    """The reference counts of the buffer ``found[k]`` views and of ``found[k]`` itself, as
    seen from here; None if it is not a view of an array that owns its memory."""
    arr = found[k]
    base = getattr(arr, "base", None)
    if base is None or getattr(base, "base", True) is not None:
        return None
    return sys.getrefcount(base), sys.getrefcount(arr)


def _measure_sole_view_counts() -> tuple[int, int] | None:
    """What :func:`_view_refcounts` reads for a view that only a dict holds, of a buffer
    only that view holds -- or None unless one more reference to either the view or the
    buffer changes what it reads (then counting cannot be trusted here)."""
    from .backend import numpy_namespace

    found = {0: numpy_namespace.zeros((2, 3)).T}
    unheld = (sys.getrefcount(found[0].base), sys.getrefcount(found[0]))  # no frame's local holds either
    sole = _view_refcounts(found, 0)
    kept_view = found[0]
    shared_view = _view_refcounts(found, 0)
    kept_buffer = kept_view.base
    del kept_view
    shared_buffer = _view_refcounts(found, 0)
    del kept_buffer
    if sole is None or _view_refcounts(found, 0) != sole or sole != (unheld[0] + 1, unheld[1] + 1):
        return None  # (+ 1, the local of each: more under a tracer's snapshot of f_locals, as for sums)
    if shared_view is None or shared_buffer is None or shared_view[1] <= sole[1] or shared_buffer[0] <= sole[0]:
        return None
    return sole


#: See :func:`_sole_views`.
_SOLE_VIEW_COUNTS = _measure_sole_view_counts()


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
                raise RuntimeError(  # PyTorch's words first (a ported test matches them), then ours
                    f"grad can be implicitly created only for real scalar outputs but got {out._data.dtype} "
                    f"(only for real outputs; output {i} is {out._data.dtype}: pass gradient= (or "
                    f"grad_outputs=), or differentiate a real function of it (mg.abs(z) ** 2, z.real) -- "
                    f"docs/complex.md)"
                )
            if out._data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (only for outputs with one "
                    f"element; output {i} has shape {out.shape}: pass gradient= (or grad_outputs=))"
                )
            g = out._device.xp.empty(out._data.shape, dtype=out._data.dtype)
            g.fill(1)  # (NumPy's ones() is empty() and a copy through Python: 0.68 -> 0.26 us)
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
                raise RuntimeError(  # PyTorch's words (its shapes printed as tuples, as ours)
                    f"Mismatch in shape: grad_output[{i}] has a shape of {tuple(g.shape)} and output[{i}] has a "
                    f"shape of {tuple(out.shape)}."
                )
            if g.dtype != out._data.dtype:
                if g.dtype.kind == "c" and out._data.dtype.kind != "c":  # its imaginary part has nowhere to go
                    raise RuntimeError(
                        f"For complex Tensors, both grad_output and output are required to have the same "
                        f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                        f"has a dtype of {out._data.dtype} (a complex gradient for a real output)"
                    )
                xp = tape.differentiable_namespace if isinstance(g, Tensor) else out._device.xp
                g = _cast_grad(xp, g, out._data.dtype)
        if create_graph and not isinstance(g, Tensor):
            g = Tensor._wrap(g, None)
        grads.append(g)
    return grads


def _gradients_for(outputs: Sequence[Any], grads: Any) -> list | None:
    """The gradients given for ``outputs`` (one Tensor or array alone is a list of one), as PyTorch
    takes them: fewer than the outputs is its RuntimeError, extra ones are not read."""
    if grads is None:
        return None
    grads = [grads] if isinstance(grads, Tensor) or hasattr(grads, "shape") else list(grads)
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads[:len(outputs)]


def _check_outputs(outputs: Sequence[Any]) -> None:
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"output {i} is a {type(out).__name__}, not a Tensor")
        if not out._requires_grad:
            raise RuntimeError(  # PyTorch's words first (a ported test matches them), then ours
                f"element {i} of tensors does not require grad and does not have a grad_fn: output {i} "
                f"does not require grad and has no history, nothing to differentiate (was it computed "
                f"under no_grad, or from inputs that do not require grad?)"
            )


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate d(tensors)/d(leaf) into every reachable leaf's ``.grad``.

    This is what ``Tensor.backward`` calls.  Gradients *accumulate*: two
    backward calls add up, as in PyTorch; zero them between steps.  PyTorch's
    ``inputs=`` (a tensor or a sequence) accumulates into those tensors' ``.grad``
    only, leaves or not, and leaves every other ``.grad`` as it was.
    """
    if _grad_state.transforms:  # the transform's own pass differentiates f: PyTorch refuses a second one inside
        raise RuntimeError(_BACKWARD_IN_TRANSFORM)
    if inputs is not None:
        _backward_into(tensors, grad_tensors, retain_graph, create_graph, inputs)
        return
    bp = backward_pass(tensors, grad_tensors, retain_graph, create_graph)
    call = BackwardCall(create_graph)
    _running.append(call)
    try:
        hand_out(bp, bp.run(), call)
    finally:
        _running.pop()


def _backward_into(tensors: Any, grad_tensors: Any, retain_graph: bool | None, create_graph: bool,
                   inputs: Any) -> None:
    listed = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not listed:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for i, t in enumerate(listed):  # PyTorch's words, from the retain_grad its backward(inputs=) calls first
        if isinstance(t, Tensor) and not t.requires_grad:
            raise RuntimeError(f"can't retain_grad on Tensor that has requires_grad=False (input {i} of `inputs` "
                               f"does not require grad)")
    if grad_tensors is not None and (isinstance(grad_tensors, Tensor) or hasattr(grad_tensors, "shape")):
        grad_tensors = [grad_tensors]
    outputs = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    grads = _grad(outputs, listed, grad_tensors, retain_graph, create_graph, allow_unused=True, into_grad=True)
    for t, g in zip(listed, grads):
        # an input the outputs do not reach keeps its .grad, as PyTorch's; one that retains its
        # gradient (retain_grad) has had it summed into .grad by its hook during the pass already
        if g is None or t.retains_grad:
            continue
        if t._node is None:  # a leaf: as backward() accumulates it, its post-accumulate hooks called
            _accumulate(t, g if create_graph else g._data, create_graph)
            if t._post_hooks:
                _fire_post_hooks(t)
        else:  # a non-leaf's .grad is a new sum each time, as PyTorch's
            t.grad = g if t._grad is None else t._grad + g


def backward_pass(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
                  create_graph: bool = False, pass_type: type[BackwardPass] = BackwardPass) -> BackwardPass:
    """The :class:`BackwardPass` (of ``pass_type``) that ``backward(tensors, grad_tensors, ...)``
    runs, its arguments checked."""
    outputs = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    grad_tensors = _gradients_for(outputs, grad_tensors)
    _check_outputs(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    root_grads = _root_grads(outputs, grad_tensors, create_graph)
    bp = pass_type(outputs, root_grads, retain_graph=retain_graph, create_graph=create_graph)
    bp.into_grad = True
    return bp


def hand_out(bp: BackwardPass, found: dict[int, Any], call: BackwardCall) -> None:
    """The end of ``backward()``: the pass's results ``found`` accumulated into the leaves'
    ``.grad`` (unaliased), post-accumulate hooks of leaves not handed over yet, then the
    callbacks queued during the pass -- in the pass's grad mode, as PyTorch's engine runs them."""
    # no code here that grad mode changes: not switched off and on (with grad_mode's setter, which skips
    # what a switch does not change: a 16-16-10 MLP step -17k of its 1.30M instructions)
    if not (bp.create_graph or call.callbacks or post_hook_count[0]):
        _hand_out(bp, found, call)
        return
    before, _grad_state.enabled = _grad_state.enabled, bp.create_graph
    try:
        _hand_out(bp, found, call)
    finally:
        _grad_state.enabled = before


def _hand_out(bp: BackwardPass, found: dict[int, Any], call: BackwardCall) -> None:
    create_graph = bp.create_graph
    exclusive = set() if create_graph else _sole_views(found)
    pairs = _unalias(((bp.leaves[k], g) for k, g in found.items()), bp.root_grads, create_graph, bp.handed,
                     exclusive)
    for t, g in pairs:
        if t._requires_grad:  # as PyTorch's AccumulateGrad: a leaf that stopped requiring grad after its
            _accumulate(t, g, create_graph)  # use (x.detach_(), x.requires_grad_(False)) takes no gradient
        if t._post_hooks:  # a leaf the pass did not hand over (a root itself)
            _fire_post_hooks(t)
    for fn in call.callbacks:
        fn()


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple:
    """Compute and return d(outputs)/d(inputs) without touching any ``.grad``.

    ``outputs`` and ``inputs`` are Tensors or sequences of Tensors; inputs may
    be intermediate tensors, not only leaves.  ``grad_outputs`` plays the role
    of ``gradient=`` in ``backward``.  With ``create_graph=True`` the returned
    gradients are themselves differentiable (higher-order derivatives).
    """
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, into_grad=False)


def _grad(outputs: Any, inputs: Any, grad_outputs: Any, retain_graph: bool | None, create_graph: bool,
          allow_unused: bool, into_grad: bool) -> tuple:
    """:func:`grad`; ``into_grad``: for ``backward(inputs=)``, which accumulates the gradients into ``.grad``."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    grad_outputs = _gradients_for(outs, grad_outputs)
    _check_outputs(outs)
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor):
            raise TypeError(f"input {i} is a {type(t).__name__}, not a Tensor")
        if not t._requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors does not require grad: input {i} does not "
                               f"require grad")  # (PyTorch's words, then which one)
    if retain_graph is None:
        retain_graph = create_graph
    root_grads = _root_grads(outs, grad_outputs, create_graph)
    bp = BackwardPass(outs, root_grads, retain_graph=retain_graph, create_graph=create_graph, targets=ins)
    bp.into_grad = into_grad
    if into_grad and bp.contributing is not None:  # backward(inputs=) runs the inputs' own nodes too, and their
        bp.contributing.update(bp.target_nodes)  # hooks, as PyTorch's (its notes: .backward() executes them)
    found = bp.run()
    return _grads_of(ins, found, root_grads, create_graph, allow_unused)


def _grads_of(ins: Sequence[Any], found: dict[int, Any], root_grads: Sequence[Any], create_graph: bool,
              allow_unused: bool) -> tuple:
    """``mg.grad``'s results: one gradient per input (None if unused), unaliased, of its shape."""
    results = []
    for i, t in enumerate(ins):
        g = found.get(id(t))
        if g is None and not allow_unused:
            raise RuntimeError(  # PyTorch's words, then ours
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                f"allow_unused=True if this is the desired behavior. (input {i} was not used to compute the "
                f"outputs, or is not connected to them by differentiable ops; allow_unused=True gives None)"
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
            g = (tape.differentiable_namespace if create_graph else t._device.xp).sum_to(g, t.shape)
        final.append(g if create_graph else Tensor._wrap(g, None, t._device))
    return tuple(final)
