"""A backward pass you can step through: ``for step in mg.backward_steps(loss): print(step)``.

``loss.backward()`` runs a :class:`~minigrad_ckpt.backward.BackwardPass` to the
end in one call.  :func:`backward_steps` runs the *same* pass -- the same
object, the same :meth:`~minigrad_ckpt.backward.BackwardPass.step` per node --
but hands control back after each node with a :class:`BackwardStep` telling
what that node did: the gradient that arrived, what it sent to each input,
what the leaves received, what the memory ledger released, and which
checkpointed segment was replayed to get the node's saved values.

Exhausting the generator leaves exactly what ``loss.backward()`` leaves, bit
for bit: the leaves' ``.grad`` are written when the last step is taken, so a
loop that stops early changes no ``.grad`` (a leaf with a post-accumulate hook
is the exception: as in ``backward()``, it gets its gradient, and its hook
runs, at the step where the gradient became final).  Between steps the code
around the loop runs in its own grad mode (a switch it makes there holds): the
pass's own setting (recording only with ``create_graph``) holds only while a
step runs.  Inside the ``mg.func`` transforms it is refused, as ``backward()`` is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .backend import host_numpy
from .backward import _BACKWARD_IN_TRANSFORM, BackwardCall, BackwardPass, _running, backward_pass, hand_out
from .grad_mode import state as _grad_state
from .memory import ledger as _ledger
from .tape import DROPPED, Node
from .tensor import Tensor

__all__ = ["BackwardStep", "backward_steps"]


@dataclass(frozen=True)
class BackwardStep:
    """What one node of a backward pass did (see :func:`backward_steps`).

    ``grad_output`` is the gradient that arrived at the node, after the output
    tensor's hooks (what the op's backward received; ``None``: it was reached, but
    nothing was sent to it); ``grad_inputs`` has one gradient per
    input of the op, ``None`` where none is sent (a constant, an integer input,
    or no gradient arriving); ``accumulated`` lists the leaves this node sends a
    gradient to, each with what it receives (summed down to the leaf's shape).
    ``released_bytes`` is what the memory ledger released during the step
    (``None`` when the ledger is off: run inside ``mg.memory.track()``);
    ``replay`` is the checkpoint segment replayed to recompute the node's saved
    values, or ``None``.  The gradients are views of the pass's own arrays,
    read-only where the backend can mark them (NumPy's; CuPy has no read-only
    arrays, and a write there changes what the pass sends on): copy before
    changing them.
    """

    index: int
    op: str
    node: Node
    grad_output: Any
    grad_inputs: tuple
    accumulated: tuple
    released_bytes: int | None
    replay: Any

    def __repr__(self) -> str:
        sent = ", ".join("None" if g is None else f"{tuple(g.shape)}" for g in self.grad_inputs)
        leaves = f", {len(self.accumulated)} leaf gradient(s)" if self.accumulated else ""
        replay = f", replayed segment {self.replay.index}" if self.replay is not None else ""
        return f"BackwardStep({self.index}: {self.op} #{self.node.seq} sends [{sent}]{leaves}{replay})"


class _SteppedPass(BackwardPass):
    """A :class:`BackwardPass` that remembers what its last step sent and gave to leaves."""

    __slots__ = ("sent", "shares", "arrived")
    keeps_what_it_sends = True  # its steps show the gradients: a .grad handed over early is a copy

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: tuple = ()
        self.shares: list[tuple[Any, Any]] = []
        self.arrived: Any = None

    def receive(self, node: Node, g: Any) -> Any:
        self.arrived = g = super().receive(node, g)  # None where a pre-hook took it away: the op gets nothing
        return g

    def call_backward(self, node: Node, g: Any) -> tuple:
        self.arrived = g  # after the node's tensor hooks: what the op is differentiated with
        self.sent = grads = super().call_backward(node, g)
        return grads

    def leaf_share(self, edge: Any, gi: Any) -> Any:
        gi = super().leaf_share(edge, gi)
        self.shares.append((edge, gi))
        return gi


def backward_steps(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
                   create_graph: bool = False) -> Iterator[BackwardStep]:
    """Run ``backward(tensors, grad_tensors, retain_graph, create_graph)`` one node at a
    time, yielding a :class:`BackwardStep` after each (module docstring).

    The nodes come newest first: reverse recording order, which is what makes each
    node's gradient complete before it is used (``docs/tape.md``).
    """
    if _grad_state.transforms:  # backward() there is refused, as PyTorch's: so is the same pass in steps
        raise RuntimeError(_BACKWARD_IN_TRANSFORM)
    bp = backward_pass(tensors, grad_tensors, retain_graph, create_graph, _SteppedPass)
    call = BackwardCall(bp.create_graph)
    bp.begin()
    _grad_state.enabled = bp._grad_mode_before
    ended = False
    try:
        if not bp.heap:  # only leaves were differentiated: nothing to step through
            ended = _finish(bp, call)
        index = 0
        while bp.heap:
            step, ended = _take_step(bp, call, index)
            index += 1
            yield step
    finally:
        if not ended:  # stopped early (or an error): the pass leaves the grad mode and ledger as they were
            _in_pass_mode(bp, bp.end)


def _in_pass_mode(bp: _SteppedPass, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in the pass's grad mode (on only with ``create_graph``), then the grad mode the
    caller has now -- not the one it had when the pass began: code between steps may have switched
    it, and a generator left unfinished is closed whenever it is collected, under whatever mode then."""
    caller_mode, _grad_state.enabled = _grad_state.enabled, bp.create_graph
    try:
        return fn(*args)
    finally:
        _grad_state.enabled = caller_mode


def _take_step(bp: _SteppedPass, call: BackwardCall, index: int) -> tuple[BackwardStep, bool]:
    """One node of the pass (and, after the last one, the end of ``backward()``)."""
    node = bp.heap[0][1]
    bp.arrived = bp.pending[node]  # replaced by what the hooks made of it, when the op is called
    replay = node.segment if node.saved is DROPPED else None
    released_before = _ledger.released_bytes
    bp.shares = []
    bp.sent = (None,) * len(node.inputs)  # what a node no gradient reached sends
    _running.append(call)
    try:
        _in_pass_mode(bp, bp.step)
    finally:
        _running.pop()
    last = not bp.heap and _finish(bp, call)
    released = _ledger.released_bytes - released_before if bp.ledger_on else None
    step = BackwardStep(
        index=index, op=node.op.name, node=node, grad_output=_as_tensor(bp.arrived, node),
        grad_inputs=tuple(None if e is None else _as_tensor(g, node) for e, g in zip(node.inputs, bp.sent)),
        accumulated=tuple((leaf, _as_tensor(g, node)) for leaf, g in bp.shares),
        released_bytes=released, replay=replay,
    )
    return step, last


def _finish(bp: _SteppedPass, call: BackwardCall) -> bool:
    """After the last node: end the pass and write ``.grad`` exactly as ``backward()`` does."""
    _running.append(call)
    try:
        _in_pass_mode(bp, _end_and_hand_out, bp, call)
    finally:
        _running.pop()
    return True


def _end_and_hand_out(bp: _SteppedPass, call: BackwardCall) -> None:
    bp.close_segments()
    bp.end()
    hand_out(bp, bp.results(), call)


def _as_tensor(g: Any, node: Node) -> Any:
    """A gradient as the user sees it: a Tensor (with ``create_graph`` it is one already) on a
    read-only view of the pass's array, where the backend can mark one (NumPy's): an in-place
    write (``step.grad_output.mul_(0)``) changed what the pass went on to send and left in ``.grad``."""
    if g is None or isinstance(g, Tensor):
        return g
    g = node.xp.asarray(g)
    if isinstance(g, host_numpy.ndarray):
        g = g.view()
        g.flags.writeable = False
    return Tensor._wrap(g, None)
