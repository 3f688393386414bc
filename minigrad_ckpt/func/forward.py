"""Forward mode: tangents pushed beside the values as the ops run (dual numbers).

A *dual number* ``a + b ε`` with ``ε² = 0`` carries a value ``a`` and a
tangent ``b``; arithmetic on dual numbers computes ``f(a) + f'(a) b ε``, the
value and its directional derivative, in one pass.  Here every Tensor can be
the value part: ``tensor._tangents`` maps a *level* -- one per open
:func:`~minigrad_ckpt.func.jvp` call -- to that tensor's tangent (a Tensor of
the same shape and dtype).  Each op application pushes tangents from its
inputs to its output through the op's ``jvp`` rule; no tape is recorded for
forward mode.

How it hooks into the engine: ``tape.apply`` calls the hook
``tape._forward_push``, which is :func:`push` while some level is open and
``None`` otherwise.  Outside forward mode the cost per op is that one read.

Levels keep nested calls apart (``jacfwd(jacfwd(f))``, ``jvp`` inside a
function that is itself ``jvp``'d).  Level ``L``'s tangents are computed with
the levels ``>= L`` hidden (the *ceiling*), so the tangent computation of the
inner call is itself differentiated by the outer one, but never by itself.
Levels are processed outer first, so by the time an inner level's rule runs
on the output, the output already carries the outer tangent.

*Sibling* levels (:func:`enter_levels`) are opened together and never see one
another: ``jacfwd`` opens one per input element, so a single call of the
function pushes every column of the Jacobian (and runs its side effects --
a BatchNorm's running statistics, a counter, the random generator -- once).
The ceiling of a sibling is the first level of its group.

A backward pass that forward mode runs over (``hessian``) rebuilds the values
the tape saved; a saved *constant* (an input that did not require grad) has
no producing node to take its tangents from, so :func:`push` keeps them on the
consumer's node (``node.input_tangents``), where the backward finds them.

A rule runs on plain arrays (``xp`` = the array namespace) when nothing about
its inputs needs recording; when an input or a tangent requires grad, or
carries an outer level's tangent, the rule runs on Tensors with the
differentiable namespace, so reverse mode and outer levels see it -- the
same switch backward makes with ``create_graph=True``.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from .. import tape as _tape
from ..backend import default_device_set_to
from ..functional import arguments as _arguments
from ..grad_mode import forward_mode as _forward
from ..grad_mode import state as _grad_state
from ..ops.shape import Reshape
from ..tape import apply, set_forward_push
from ..tensor import Tensor, shared_version

__all__ = ["enter_level", "enter_levels", "exit_level", "exit_levels", "make_dual", "tangent_of", "without_level",
           "carries_tangent", "strip_level", "strip_levels", "push", "hide_levels", "unhide_levels", "ceiling"]

_level_ids = itertools.count(1)
_lock = threading.Lock()


class _Thread(threading.local):
    # Levels at or above the ceiling are invisible to push: it is lowered
    # while a level's own tangent is computed (see the module docstring).
    ceiling = float("inf")
    # Levels below the floor are invisible too: it is raised above the open levels while they are
    # hidden (hide_levels), so that a level opened meanwhile -- a jvp inside a custom Function's
    # forward -- is seen.
    floor = 0


_tls = _Thread()


#: level -> the first level of its sibling group (itself for a lone level)
_group_start: dict[int, int] = {}


def enter_level() -> int:
    """Open a new forward-mode level and return its number."""
    return enter_levels(1)[0]


def enter_levels(n: int) -> list[int]:
    """Open ``n`` sibling levels (consecutive numbers that never see one another)."""
    with _lock:
        levels = [next(_level_ids) for _ in range(n)]
        for level in levels:
            _group_start[level] = levels[0]
        _forward.levels.update(levels)
        _forward.active = len(_forward.levels)
        set_forward_push(push)
    return levels


def exit_level(level: int) -> None:
    """Close ``level``: tangents at that level are ignored from now on."""
    exit_levels([level])


def exit_levels(levels: list[int]) -> None:
    """Close every level in ``levels``."""
    with _lock:
        for level in levels:
            _forward.levels.discard(level)
            _group_start.pop(level, None)
        _forward.active = len(_forward.levels)
        if not _forward.levels:
            set_forward_push(None)


def hide_levels() -> int:
    """Hide every open level from :func:`push` in this thread (until :func:`unhide_levels` with
    the value returned): ops run meanwhile carry no tangents at those levels.  A custom
    ``autograd.Function``'s ``forward`` runs so -- its ``jvp`` gives the output's tangent --
    without touching forward mode in other threads.  A level opened meanwhile is seen (its number
    is higher): ``mg.func.jvp`` inside that ``forward`` works, as PyTorch's does."""
    previous = _tls.floor
    _tls.floor = max(_forward.levels, default=0) + 1
    return previous


def unhide_levels(previous: int) -> None:
    """Undo :func:`hide_levels`."""
    _tls.floor = previous


def ceiling() -> float:
    """The level from which open levels are hidden in this thread (``inf``: none is).  It is lower
    while a level's tangent is computed, or levels are hidden (then 0): the ops run then are
    forward mode's own work, not the function's (a checkpoint's ``GraphPlan`` does not name them)."""
    return 0 if _tls.floor else _tls.ceiling


def make_dual(primal: Tensor, tangent: Tensor | dict[int, Tensor], level: int | None = None) -> Tensor:
    """A new handle on ``primal``'s values that carries ``tangent`` at ``level``
    (or, with a dict ``{level: tangent}`` and no ``level``, every one of them).

    A fresh handle, so that only uses of this argument -- not other references
    to the same tensor a function closes over -- are perturbed.  If ``primal``
    takes part in reverse mode, the handle is an identity op on the tape
    (gradients reach ``primal``); otherwise it shares ``primal``'s memory and
    version counter, and an in-place write into it changes ``primal``'s values
    but not its tangents, as PyTorch's dual views of their base.
    """
    if primal._requires_grad and _grad_state.enabled:
        dual = _alias(primal)
    else:
        dual = Tensor._wrap(primal._data, None, primal._device)
        dual._version_box = shared_version(primal, dual)
        if primal._tangents:
            dual._tangents = dict(primal._tangents)
    new = tangent if level is None else {level: tangent}
    # at the new levels the dual's tangent chain starts here: a write into it (or its views) takes
    # the primal's values along, not its tangent there, nor those of the primal's other views (.inplace)
    dual._dual_lineage = (frozenset(new), primal._dual_lineage)
    tangents = dict(dual._tangents) if dual._tangents else {}
    tangents.update(new)
    dual._tangents = tangents
    if dual._node is not None:
        dual._node.tangents = tangents
    return dual


def _alias(primal: Tensor) -> Tensor:
    # A Reshape to the same shape: a recorded view, so it shares memory and the
    # version counter, and its jvp carries the outer levels' tangents over.
    return apply(Reshape(shape=primal.shape, in_shape=primal.shape), primal)


def without_level(t: Tensor, level: int) -> Tensor:
    """A view of ``t`` without its tangent at ``level`` (the other open levels' kept), still on the
    tape if ``t`` is: ``forward_ad.unpack_dual``'s primal."""
    hidden = hide_levels()  # the view carries no tangent of its own making
    try:
        if t._requires_grad and _grad_state.enabled:
            primal = _alias(t)
        else:
            primal = Tensor._wrap(t._data, None, t._device)
            primal._version_box = shared_version(t, primal)
    finally:
        unhide_levels(hidden)
    primal._dual_lineage = (frozenset((level,)), t._dual_lineage)  # PyTorch's: a write into it leaves t's tangent
    others = {k: v for k, v in (t._tangents or {}).items() if k != level and k in _forward.levels}
    primal._tangents = others or None
    if primal._node is not None:
        primal._node.tangents = primal._tangents
    return primal


def carries_tangent(t: Tensor) -> bool:
    """Whether ``t`` has a tangent at an open level (a dual, or a tensor an ``mg.func.jvp`` moves)."""
    tangents = t._tangents
    return bool(tangents) and not _forward.levels.isdisjoint(tangents)


def tangent_of(t: Tensor, level: int) -> Tensor | None:
    """``t``'s tangent at ``level`` (``None`` if the level does not move it)."""
    tangents = t._tangents
    return None if not tangents else tangents.get(level)


def strip_level(t: Tensor, level: int) -> None:
    """Remove ``level``'s tangent from ``t`` (its level is about to close)."""
    tangents = t._tangents
    if tangents and level in tangents:
        rest = {k: v for k, v in tangents.items() if k != level}
        t._tangents = rest or None
        if t._node is not None:
            t._node.tangents = t._tangents


def strip_levels(t: Tensor, levels: Any) -> None:
    """Remove the tangents of every level in ``levels`` from ``t``."""
    tangents = t._tangents
    if tangents and not levels.isdisjoint(tangents):
        rest = {k: v for k, v in tangents.items() if k not in levels}
        t._tangents = rest or None
        if t._node is not None:
            t._node.tangents = t._tangents


def push(op: Any, args: tuple, out: Tensor) -> None:
    """Give ``out`` the tangents of ``op`` applied to ``args`` (called by ``tape.apply``)."""
    if not op.differentiable or out._data.dtype.kind not in "fc" or _grad_state.inference:
        return  # comparisons, argmax, casts to int: piecewise constant, tangent 0 (and inference mode)
    ceiling, floor = _tls.ceiling, _tls.floor
    open_levels = _forward.levels
    levels: set[int] = set()
    for a in args:
        if isinstance(a, Tensor) and a._tangents:
            for level in a._tangents:
                if floor <= level < ceiling and level in open_levels:
                    levels.add(level)
    if not levels:
        return
    result: dict[int, Tensor] = {}
    for level in sorted(levels):  # outer levels first (see the module docstring)
        tangents = tuple(a._tangents.get(level) if isinstance(a, Tensor) and a._tangents else None
                         for a in args)
        t = _tangent(op, args, tangents, out, level)
        if t is not None:
            result[level] = t
            out._tangents = result  # the next (inner) level's rule sees this one
    if result:
        out._tangents = result
        node = out._node
        if node is not None:
            node.tangents = result  # for backward's rebuilt saved values
            _keep_constant_tangents(node, args)


def _keep_constant_tangents(node: Any, args: tuple) -> None:
    """Keep the tangents of ``node``'s constant inputs (no edge to take them from) on the node."""
    kept = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a._tangents and node.inputs[i] is None:
            if kept is None:
                kept = [None] * len(args)
            kept[i] = a._tangents
    if kept is not None:
        node.input_tangents = tuple(kept)


def _needs_graph(values: tuple, level: int) -> bool:
    """True if the rule must run on Tensors: something to record or an outer level to carry."""
    recording = _grad_state.enabled
    ceiling = _group_start.get(level, level)
    for v in values:
        if isinstance(v, Tensor):
            if recording and v._requires_grad:
                return True
            if v._tangents:
                for k in v._tangents:
                    if _tls.floor <= k < ceiling and k in _forward.levels:
                        return True
    return False


def _tangent(op: Any, args: tuple, tangents: tuple, out: Tensor, level: int) -> Tensor | None:
    if all(t is None for t in tangents):
        return None
    if all(t is None or t._data.size == 0 for t in tangents):
        # J has no columns, so J v is exactly 0 -- even where a rule would give
        # 0/0 (the mean of an empty batch is NaN, but nothing moves it).  A zero
        # tangent, not None: the output is still a dual at this level, as
        # PyTorch's (``unpack_dual(empty.sum()).tangent`` is ``tensor(0.)``).
        return Tensor._wrap(out._device.xp.zeros(out._data.shape, out._data.dtype), None, out._device)
    if not _needs_graph(args + tangents, level):
        # the rule runs on the inputs' device, as forward does (ToDevice's output is elsewhere)
        xp = next(a._device for a in args if isinstance(a, Tensor)).xp
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        ts = tuple(None if t is None else t._data for t in tangents)
        r = op.jvp(xp, ts, out._data, *arrays)
        if r is None:
            return None
        xp = out._device.xp
        r = xp.as_array(r)
        if r.shape != out._data.shape:
            r = xp.broadcast_to(r, out._data.shape)
        if r.dtype != out._data.dtype:
            r = r.astype(out._data.dtype)
        if _passed_through(xp, r, ts, out, args):
            r = r.copy()
        return Tensor._wrap(r, None, out._device)
    previous = _tls.ceiling
    # this level's own tangent computation is not pushed at this level, nor at its siblings
    _tls.ceiling = _group_start.get(level, level)
    try:
        _F = _tape.differentiable_namespace  # what backward runs on with create_graph=True
        with default_device_set_to(out._device):  # the rule's own constants (xp.eye(n)) go there
            r = op.jvp(_F, tangents, out, *args)
        if r is None:
            return None
        if not isinstance(r, Tensor):
            r = _arguments.as_tensor(r, out)
        if r.shape != out.shape:
            r = _F.broadcast_to(r, out.shape)
        if r.dtype != out.dtype:
            r = _F.astype(r, out.dtype)
        if _passed_through(out._device.xp, r._data, [None if t is None else t._data for t in tangents], out, args):
            r = _F.clone(r)
    finally:
        _tls.ceiling = previous
    return r


def _passed_through(xp: Any, r: Any, tangents: Any, out: Tensor, args: tuple) -> bool:
    """Whether the tangent array ``r`` is the memory of an input's tangent while ``out`` is not
    that input's memory.  A rule may pass a tangent through (``clone``, ``x + 1``, ``+x``); the
    output then needs a copy, as PyTorch's has one: a custom Function's ``jvp`` may write into the
    tangent it gets (for an input marked dirty, PyTorch's documented pattern), and must not write
    into the caller's.  A view (or the input itself, handed back) keeps its base's tangent."""
    owner, kind = xp.memory_owner(r), r.__class__
    for a, t in zip(args, tangents):
        # (an operand's tangent on another device -- a CPU scalar beside a device tensor -- is other memory)
        if t is not None and t.__class__ is kind and xp.memory_owner(t) is owner:
            return not (isinstance(a, Tensor) and a._data.__class__ is kind
                        and xp.memory_owner(a._data) is xp.memory_owner(out._data))
    return False
