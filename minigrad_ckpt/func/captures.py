"""What a transformed function may write in place: its own tensors, not the ones it closes over.

``c = mg.zeros(3); grad(lambda x: (c.add_(x), x.sum())[1])(x)`` writes a value
that carries the transform's history (or, under ``jvp``, its tangent) into
``c``, a tensor the function *closes over*.  After the transform returns,
``c`` would hold a history that leads into the transform's own nodes -- its
argument handles, whose gradients no one collects -- and an outer backward
through ``c`` would find it.  ``torch.func`` refuses the write ("During a
grad (vjp, jvp, grad, etc) transform, the function provided attempted to call
in-place operation ... that would mutate a captured Tensor"); so do we.

Which tensors are the function's own?  ``torch.func`` wraps every tensor made
at the transform's level; here each transform opens a :class:`CaptureScope`
that stamps the tensors made while it is open (``Tensor._born``, from
:data:`minigrad_ckpt.tensor.transform_births`), and a tensor's birth is its
node's stamp or that one (:func:`~minigrad_ckpt.tensor.birth_of`).  A write
target is *captured* when it -- or a live tensor sharing its memory (a view
made inside of a captured tensor writes into the captured memory) -- was made
before the innermost transform opened, unless the memory is one the caller
passed in: every tensor argument and keyword argument (differentiated or not)
may be written, as ``torch.func`` allows.

What is refused: a *recorded* write (the value or the target requires grad)
and a write that carries a forward-mode tangent, into a captured tensor --
every in-place form, since they all pass :meth:`Tensor._check_rebase` or
:func:`~.inplace.tangents_after_write`.  What is allowed, where ``torch.func``
refuses: a plain write with no history and no tangent (``c.fill_(0)``, a
``BatchNorm``'s running statistics in training mode, a write under
``mg.no_grad()`` of a value without tangent): nothing of the transform leaks,
and the function's side effects happen as in one call (``docs/from-pytorch.md``).

A non-differentiated argument written with a value that carries the
transform's history (``grad(f)(x, buf)`` with ``buf.add_(x * x)`` inside)
takes the values and, as in ``torch.func``, no history that stays inside the
transform: :meth:`CaptureScope.close` cuts it off.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from ..grad_mode import inference_mode_lifted
from ..grad_mode import state as _grad_state
from ..tensor import Tensor, _seq, birth_of, set_capture_guard, transform_births
from .pytree import flatten

__all__ = ["CaptureScope", "ScopeStack", "refuse_if_captured", "writable_arguments", "memory_made_before",
           "innermost_transform", "open_transforms", "count_as_plain_autograd", "reaches_before",
           "CAPTURED_WRITE_REFUSED"]

#: PyTorch's words (torch 2.13), with the op's name in the parentheses
CAPTURED_WRITE_REFUSED = ("During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call "
                          "in-place operation ({what}) that would mutate a captured Tensor. This is not supported; "
                          "please rewrite the function being transformed to explicitly accept the mutated Tensor(s) "
                          "as inputs.")



class ScopeStack:
    """The open scopes of one kind (a transform's, vmap's), innermost last, per thread; each stamps
    the tensors made while it is open (``transform_births``), and ``install(guard)`` holds while one
    is open in any thread.  (The births list is shared by the threads: a tensor another thread makes
    meanwhile counts as made inside -- a refusal missed, never one made in error.)"""

    def __init__(self, install: Any, guard: Any) -> None:
        self._local = threading.local()
        self._count = 0
        self._install, self._guard = install, guard

    @property
    def scopes(self) -> list:
        if not hasattr(self._local, "scopes"):
            self._local.scopes = []
        return self._local.scopes

    def push(self, scope: Any) -> None:
        self.scopes.append(scope)
        transform_births.append(scope.start)
        self._count += 1
        self._install(self._guard)

    def pop(self, scope: Any) -> None:
        self.scopes.pop()
        transform_births.remove(scope.start)  # (its own entry: another thread's may be later)
        self._count -= 1
        if not self._count:
            self._install(None)


class _Open(threading.local):
    """This thread's arguments whose handles may be written (:func:`writable_arguments`)."""

    def __init__(self) -> None:
        self.writable: frozenset[int] = frozenset()  # ids of the arguments whose handles may be written


@contextlib.contextmanager
def writable_arguments(tensors: Any) -> Iterator[None]:
    """Let the transforms run inside write into their handles on ``tensors`` (those that require grad).

    ``torch.autograd.functional`` with ``create_graph=True`` hands the function an input that
    requires grad as a view of itself (``inp.view_as(inp)``), not a leaf: a write into it is allowed
    there, and the derivative is taken with respect to the written value -- unlike ``torch.func``,
    whose arguments are leaves (:meth:`CaptureScope.differentiate`)."""
    previous = _open.writable
    _open.writable = frozenset(id(t) for t in flatten(tensors)[0] if isinstance(t, Tensor) and t.requires_grad)
    try:
        yield
    finally:
        _open.writable = previous


_open = _Open()


class CaptureScope:
    """One transform's call of its function: ``with CaptureScope(passed):`` around the call.

    ``passed`` holds whatever the caller handed the function (arguments,
    keyword arguments, pytrees of them): the memory of their tensors is the
    function's to write.
    """

    def __init__(self, passed: Any) -> None:
        self.start = next(_seq)
        self.passed = [t for t in flatten(passed)[0] if isinstance(t, Tensor)]
        self.own_memory = {id(t._version_box) for t in self.passed}
        self.differentiated: list[Tensor] = []  # see differentiate
        self.reverse: Any = None  # a reverse-mode transform's Scope (func.reverse); None in forward mode
        self.plain = False  # opened by mg.autograd.functional: PyTorch's is plain autograd, with no levels

    def __enter__(self) -> CaptureScope:
        self.lifted = inference_mode_lifted()  # (a transform differentiates inside inference_mode too)
        self.lifted.__enter__()
        _transforms.push(self)
        _grad_state.transforms += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        _transforms.pop(self)
        _grad_state.transforms -= 1
        self.lifted.__exit__(*exc)
        self.close()

    def differentiate(self, handles: list[Tensor], primals: list[Tensor]) -> None:
        """Note the handles a reverse-mode transform differentiates with respect to.  ``torch.func``
        makes each a leaf, whose recorded in-place writes are refused; here a handle on a tensor
        with history is a recorded alias of it (an outer backward reaches the tensor through it),
        which the tape would let a write rebase -- and the gradient would then be taken with
        respect to the written value, not the argument.  So those writes are refused here."""
        self.differentiated = [h for h, p in zip(handles, primals)  # (a leaf's are refused anyway)
                               if h._node is not None and id(p) not in _open.writable]

    def refuse_write_into_handle(self, t: Tensor, what: str) -> None:
        """PyTorch's refusal of a recorded write into a differentiated argument or a view of one."""
        for h in self.differentiated:
            if t._version_box is h._version_box and t._alias_group is h._alias_group:
                which = "a leaf Variable" if t is h else "a view of a leaf Variable"
                raise RuntimeError(f"{what}: {which} that requires grad is being used in an in-place operation "
                                   f"(PyTorch's refusal: the argument a transform differentiates with respect "
                                   f"to is a leaf); write into a copy (x = x.clone())")

    def captured(self, t: Tensor) -> bool:
        """Whether ``t``'s memory is one the function closes over (the module docstring)."""
        return id(t._version_box) not in self.own_memory and memory_made_before(t, self.start)

    def close(self) -> None:
        """A passed tensor the function wrote with the transform's history keeps the values and
        loses that history (``torch.func`` hands such an argument back without it)."""
        for t in self.passed:
            node = t._node
            if node is not None and node.seq >= self.start and not _reaches_before(node, self.start):
                t._node, t._requires_grad = None, False


def innermost_transform() -> CaptureScope | None:
    """The innermost open ``torch.func`` transform's scope in this thread (``vmap`` and the transforms
    ``mg.autograd.functional`` runs on aside), or None."""
    return next((s for s in reversed(_transforms.scopes) if not s.plain), None)


def open_transforms() -> int:
    """How many transforms are open in this thread (``vmap`` aside)."""
    return len(_transforms.scopes)


def count_as_plain_autograd(since: int) -> None:
    """The transforms opened after the first ``since`` are ``mg.autograd.functional``'s, which PyTorch
    runs as plain autograd: a custom Function sees no transform level there (``needs_input_grad``)."""
    for s in _transforms.scopes[since:]:
        s.plain = True


def reaches_before(edge: Any, start: int) -> bool:
    """Whether a node's input edge (a node, a leaf, or None) leads to history older than ``start``."""
    if edge is None:
        return False
    if isinstance(edge, Tensor):
        return edge._requires_grad and birth_of(edge) < start
    return _reaches_before(edge, start)


def memory_made_before(t: Tensor, start: int) -> bool:
    """Whether ``t``'s memory was made before ``start`` (the engine clock): ``t`` itself was, or a
    live tensor that shares its memory was (``t`` a view made later of an older tensor)."""
    if birth_of(t) < start:
        return True
    box = t._version_box
    if len(box) > 1 and box[1].__class__ is list:
        return any((o := r()) is not None and birth_of(o) < start for r in box[1])
    return False


def _reaches_before(node: Any, start: int) -> bool:
    """Whether the history from ``node`` reaches a node or a leaf that requires grad made before ``start``."""
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.seq < start:
            return True
        if n in seen:
            continue
        seen.add(n)
        for e in n.inputs:
            if e is None:
                continue
            if e.__class__ is Tensor or isinstance(e, Tensor):
                if birth_of(e) < start and e._requires_grad:
                    return True
            else:
                stack.append(e)
    return False


def refuse_if_captured(target: Tensor, what: str) -> None:
    """Refuse an in-place write into ``target`` if the innermost open transform's function closes
    over it (called for recorded writes and for writes that carry a tangent)."""
    scopes = _transforms.scopes
    if scopes:
        scopes[-1].refuse_write_into_handle(target, what)
        if scopes[-1].captured(target):
            raise RuntimeError(CAPTURED_WRITE_REFUSED.format(what=what))


_transforms = ScopeStack(set_capture_guard, refuse_if_captured)  # the transforms' CaptureScopes
