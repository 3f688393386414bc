"""What a reverse-mode transform made, and what it reads from outside: :class:`Scope`.

``vjp``, ``grad``, ``jacrev`` and ``linearize`` record their function on the
ordinary tape and run an ordinary backward.  Two questions decide whether
that backward must itself be recorded (``create_graph``) and whether its
results may keep their history:

* **Does the graph reach outside?**  A function may *close over* a tensor: a
  parameter, the argument of an outer transform (``x * grad(lambda y: x *
  y)(two)``).  Its result then depends on that tensor, and an outer ``grad``,
  ``mg.grad`` or ``.backward()`` must see the dependence -- so the backward is
  recorded and the results keep the history that leads outside.
* **Does anything carry a tangent?**  Forward mode over this backward
  (``hessian = jacfwd(jacrev(f))``, or ``jvp`` of a function that calls
  ``grad``) needs the backward to run on Tensors, so the tangents of every
  value it reads -- arguments, closed-over tensors, saved constants -- are
  pushed through it.

A scope answers both by walking the tape from the values at hand.  Inside
are the nodes and leaves made while the function ran, and those of the scope's
own later work (the backward passes it records, the seeds ``linearize``
makes); everything else is outside -- older than the scope, or made *after*
the function returned by someone else: ``grad(lambda u: vjp_fn(u).sum())``
hands the pullback an argument handle of the outer ``grad``, made later than
the ``vjp``'s recording, and the pass must be recorded for it.  A result whose
history stays inside is handed out cut off the tape (an outer backward has
nothing to find there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..backward import grad as _tape_grad
from ..grad_mode import enable_grad, inference_mode_lifted
from ..grad_mode import forward_mode as _forward
from ..grad_mode import state as _grad_state
from ..tape import Node
from ..tensor import AliasGroup, Tensor, _seq, shared_version
from .forward import _alias

__all__ = ["Scope"]


def _moving(tangents: Any) -> bool:
    """True if a tangent dict has a tangent at an open level."""
    return bool(tangents) and not _forward.levels.isdisjoint(tangents)


class Scope:
    """One reverse-mode transform's part of the tape (see the module docstring)."""

    def __init__(self) -> None:
        self.start = next(_seq)                 # nodes recorded from now on are inside ...
        self.end = math.inf                     # ... until the function returns (forget_arguments)
        # marks the scope's own later work (the nodes its passes record, the leaves it makes): a token, not
        # the scope, so that a node outliving the scope keeps nothing of it alive
        self.token = object()
        self.recording = _grad_state.enabled    # whether the caller wants results with history
        # the inside nodes' and handles' gradient hooks (hide_hooks): each holder with all its hooks and
        # the engine's own among them, which every pass keeps
        self.hooks: list[tuple[Any, list, list | None]] = []
        # [n]: n > 0 while this scope's own backward pass runs (a box: a custom Function's node keeps it,
        # not the scope, which would hold the nodes below)
        self.passing = [0]
        self.argument_nodes: set[Node] = set()  # the differentiated arguments' handles (see arguments)
        self.argument_ids: set[int] = set()
        self._reaches: dict[Node, bool] = {}

    # ------------------------------------------------------------- inputs
    def input(self, p: Tensor) -> Tensor:
        """A fresh handle on ``p`` that requires grad: gradients are taken with respect to it.

        Fresh, so that only this argument's uses count, not other references to
        the same tensor the function closes over.  If ``p`` is on the tape, the
        handle is an identity op (an outer backward reaches ``p`` through it);
        otherwise a leaf the scope made.  Either way it carries ``p``'s tangents.
        """
        if p._requires_grad and _grad_state.enabled:
            return _alias(p)
        x = Tensor._wrap(p._data, None, p._device)
        x._version_box = shared_version(p, x)
        x._alias_group = object()  # a leaf of its own: a write through its views never reaches p's history
        x._requires_grad = True
        if p._tangents:
            x._tangents = dict(p._tangents)
        return self.mark(x)

    def arguments(self, handles: Sequence[Tensor]) -> None:
        """Note the handles this transform differentiates with respect to (:meth:`reaches_arguments`)."""
        self.argument_ids = {id(h) for h in handles}
        self.argument_nodes = {h._node for h in handles if h._node is not None}

    def forget_arguments(self) -> None:
        """The function has run: no custom Function asks :meth:`reaches_arguments` any more, and what
        is recorded from now on is outside, unless the scope makes it (:meth:`mark`, :meth:`backward`)."""
        self.argument_ids, self.argument_nodes, self._reaches = set(), set(), {}
        self.end = next(_seq)

    def inside(self, n: Node) -> bool:
        """Whether node ``n`` is this scope's (see the module docstring)."""
        return self.start <= n.seq < self.end or self.token in n.owners

    def _claim(self, results: Sequence[Tensor | None], first: int) -> None:
        """Mark the nodes a recorded pass made (stamped from ``first`` on) as this scope's own.

        A mark on each node rather than a range of stamps in the scope: the scope of a ``vjp_fn``
        kept for a training loop would otherwise gain a range per call, each read at every node a
        walk meets.  The nodes are those the pass's results and their tangents reach: a later walk
        meets a node only through a tensor that reaches it, and a chain from a result down to a
        node of the pass holds only nodes of the pass (an op's inputs are older than the op)."""
        token, seen = self.token, set()
        stack = [t for t in results if t is not None]
        while stack:
            t = stack.pop()
            n = t if type(t) is Node else t._node
            if type(t) is not Node and t._tangents:
                stack.extend(t._tangents.values())
            if n is None or n.seq < first or n in seen:
                continue
            seen.add(n)
            n.owners = n.owners + (token,)
            stack.extend(e for e in n.inputs if type(e) is Node)
            if n.tangents:
                stack.extend(n.tangents.values())
            if n.input_tangents:
                stack.extend(v for kept in n.input_tangents if kept for v in kept.values())

    def reaches_arguments(self, t: Tensor) -> bool:
        """Whether ``t``'s history reaches an argument this transform differentiates: whether ``t``
        requires grad at the transform's level, as ``torch.func`` says it (a tensor the function closes
        over, or one computed from those alone, does not).  Each node inside is walked once per scope."""
        if not t._requires_grad:
            return False
        if id(t) in self.argument_ids:
            return True
        root = t._node
        if root is None or not self.inside(root):
            return False
        memo = self._reaches
        path = [(root, iter(root.inputs))]
        while path:
            node, edges = path[-1]
            found, descend = memo.get(node, False), None
            if node not in memo:
                for e in edges:  # (an edge: a node, a leaf, or None; a node before the scope is outside)
                    if type(e) is not Node:
                        found = e is not None and id(e) in self.argument_ids
                    elif e in self.argument_nodes or memo.get(e):
                        found = True
                    elif self.inside(e) and e not in memo:
                        descend = e
                    if found or descend is not None:
                        break
            if found:
                for n, _ in path:
                    memo[n] = True
                return True
            if descend is not None:
                path.append((descend, iter(descend.inputs)))
            else:
                memo[node] = False
                path.pop()
        return False

    def mark(self, leaf: Tensor) -> Tensor:
        """Count ``leaf`` (made by this transform) as inside."""
        leaf._made_at = seq = next(_seq)
        if seq > self.end:
            leaf._made_by = self.token
        return leaf

    def made(self, leaf: Tensor) -> bool:
        d = leaf.__dict__
        return self.start <= d.get("_made_at", -1) < self.end or d.get("_made_by") is self.token

    # ------------------------------------------------------------- the walk
    def survey(self, tensors: Sequence[Tensor], outside_only: bool = False) -> tuple[bool, bool]:
        """``(outside, moving)``: does the history of ``tensors`` reach outside the
        scope, and does any value in it carry a tangent at an open level?
        (With ``outside_only``, stop as soon as the first answer is yes.)"""
        outside = moving = False
        stack: list[Node] = []
        for t in tensors:
            moving = moving or _moving(t._tangents)
            if t._node is not None:
                stack.append(t._node)
            elif t._requires_grad and not self.made(t):
                outside = True
        seen: set[Node] = set()
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            moving = moving or _moving(n.tangents) or _constants_move(n)
            if not self.inside(n):
                outside = True
                continue
            for e in n.inputs:
                if type(e) is Node:
                    if e not in seen:
                        stack.append(e)
                elif e is not None:
                    moving = moving or _moving(e._tangents)
                    outside = outside or not self.made(e)
            if outside and (moving or outside_only):
                break
        return outside, moving

    def reaches_outside(self, t: Tensor) -> bool:
        return self.recording and t._requires_grad and self.survey([t], outside_only=True)[0]

    # ------------------------------------------------------------- results
    def hand_out(self, t: Tensor) -> Tensor:
        """``t`` as the transform returns it: its history kept where it leads outside,
        cut off where it stays inside; the same for each of its tangents."""
        if t._tangents:
            open_tangents = {k: v for k, v in t._tangents.items() if k in _forward.levels}
        else:
            open_tangents = None
        kept = self.reaches_outside(t)
        if kept and not open_tangents:
            return t
        if not kept and not t._requires_grad and not t._tangents:
            return t
        if kept:
            d = _alias(t)
        else:
            d = Tensor._wrap(t._data, None, t._device)
            d._version_box = shared_version(t, d)
            d._alias_group = AliasGroup(d)  # a detached alias of t, as detach() makes
        d._tangents = {k: self.hand_out(v) for k, v in open_tangents.items()} if open_tangents else None
        if d._node is not None:
            d._node.tangents = d._tangents
        return d

    def hide_hooks(self, outputs: Sequence[Tensor]) -> None:
        """Keep the gradient hooks the function registered inside for this scope's own passes.

        ``h.register_hook(fn)`` in the function changes the gradient *this*
        transform computes; a backward of an outer transform that goes through
        the same nodes (``jacrev(grad(f))``) differentiates that gradient as a
        function, and must not apply ``fn`` a second time (as in ``torch.func``).
        A hook on an argument handle that is a leaf (the argument does not require
        grad) is the transform's too: an outer ``.backward()`` through the result
        must not call it (``x.register_hook(fn)`` in ``grad(f)(c)``: torch calls
        ``fn`` once).  A hook of the engine's own bookkeeping (its class says
        ``every_pass``: a custom Function noting which of its outputs a pass
        reached) is no change to the gradient and stays for every pass.
        """
        seen: set[Node] = set()
        stack = [t._node for t in outputs if t._node is not None]
        leaves = [t for t in outputs if t._node is None]
        while stack:
            n = stack.pop()
            if n in seen or not self.inside(n):
                continue
            seen.add(n)
            if n.hooks:
                kept = n.hooks.subset(lambda h: getattr(h, "every_pass", False))
                self.hooks.append((n, n.hooks, kept))
                n.hooks = kept
            stack.extend(e for e in n.inputs if type(e) is Node)
            leaves.extend(e for e in n.inputs if e is not None and type(e) is not Node)
        for t in leaves:
            if t._hooks and self.made(t):
                self.hooks.append((t, t._hooks, None))
                t._hooks = None

    def backward(self, outputs: Sequence[Tensor], inputs: Sequence[Tensor],
                 cotangents: Sequence[Tensor], *, graph: bool = False, last: bool = False) -> list[Tensor | None]:
        """``J^T cotangents`` for ``inputs`` (``None`` where unused), one backward pass.

        Recorded (``create_graph``) when asked (``graph``), when the results
        will keep history that leads outside, or when a tangent has to be
        pushed through it.  The tape is kept for the next call -- unless this is
        the ``last`` one and the pass is not recorded: then nothing handed out
        keeps a history through the tape, and the pass frees each node's saved
        values as it goes, as ``.backward()`` does (``grad(f)(x)`` then holds what
        the same step's backward holds, the checkpoint planner's prediction).
        """
        if not outputs:
            return [None] * len(inputs)
        outside, moving = self.survey(list(outputs) + list(cotangents))
        graph = graph or moving or (outside and self.recording and _grad_state.enabled)
        for holder, hooks, _ in self.hooks:
            _set_hooks(holder, hooks)
        self.passing[0] += 1
        first = next(_seq)
        gs: Sequence[Tensor | None] = ()
        try:
            with inference_mode_lifted(), enable_grad():
                gs = _tape_grad(list(outputs), list(inputs), grad_outputs=list(cotangents),
                                retain_graph=graph or not last, create_graph=graph, allow_unused=True)
        finally:
            if graph:
                self._claim(gs, first)
            self.passing[0] -= 1
            for holder, _, kept in self.hooks:
                _set_hooks(holder, kept)
        return list(gs)


def _set_hooks(holder: Any, hooks: list | None) -> None:
    """Give a node (its gradient hooks) or a leaf (its tensor hooks) ``hooks``."""
    if type(holder) is Node:
        holder.hooks = hooks
    else:
        holder._hooks = hooks


def _constants_move(n: Node) -> bool:
    kept = n.input_tangents
    return bool(kept) and any(_moving(t) for t in kept if t)
