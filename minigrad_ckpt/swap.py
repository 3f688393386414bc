"""``mg.utils.swap_tensors``: PyTorch's ``torch.utils.swap_tensors`` -- two tensor objects trade their
contents (values, dtype, device, ``requires_grad``, gradient, history, class and attributes) and keep
their identities, so whatever holds a reference to one (an optimizer, a module) sees the other's
contents through it::

    t1, t2 = mg.arange(2), mg.arange(3)
    mg.utils.swap_tensors(t1, t2)        # t1 is now tensor([0, 1, 2]), t2 tensor([0, 1])

Refused, as PyTorch's: a tensor something holds a weak reference to (a weakref would silently follow
the other contents), two objects whose classes lay out different ``__slots__``, and a tensor an
autograd graph still holds (PyTorch refuses one saved for backward, and poisons a leaf's gradient
accumulator so that a later backward through the old graph raises; here both are refused at the
swap, since the graph would otherwise send one tensor's gradient into the other's contents).  Run
the backward first, or swap before the forward.  The engine's own weak references -- the lists of
tensors that share memory, the finalizer that clears a leaf's post-accumulate-grad hooks when it
dies -- are no obstacle: they are re-pointed to follow the contents.  (A plain
``weakref.ref(t)`` of yours is the same object as the engine's and cannot be told apart from it.)

It lives below ``nn`` because ``Module``'s conversions and ``load_state_dict`` swap with it when
``mg.__future__.set_swap_module_params_on_conversion(True)`` asks them to.
"""

from __future__ import annotations

import copyreg
import gc
import weakref

from .tape import FREED, Node
from .tensor import Tensor

__all__ = ["swap_tensors"]


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Swap the contents of ``t1`` and ``t2`` in place: each object keeps its ``id`` and takes the
    other's class (``Parameter`` or ``Tensor``), ``__dict__`` (gradient, hooks, your attributes) and
    tensor state (data, device, history, version counter)."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors: expected {name} to be a Tensor, got {type(t).__name__}")
        if set(map(id, weakref.getweakrefs(t))) - set(map(id, _engine_weakrefs(t))):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
        if _held_by_a_graph(t):
            raise RuntimeError(f"Cannot swap {name}: an autograd graph recorded it and has not run backward yet "
                               "(its gradient would reach the other tensor's contents); run the backward first, "
                               "or swap before the forward")
    slots = set(copyreg._slotnames(type(t1)))
    if slots != set(copyreg._slotnames(type(t2))):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    engine_refs = {id(t): _engine_weakref_lists(t) for t in (t1, t2)}
    finalizers = {id(t): _hook_finalizers(t) for t in (t1, t2)}
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for slot in slots - {"__dict__", "__weakref__"}:
        missing = object()
        a, b = getattr(t1, slot, missing), getattr(t2, slot, missing)
        for t, value in ((t1, b), (t2, a)):
            if value is missing:
                delattr(t, slot)
            else:
                setattr(t, slot, value)
    # The lists of memory sharers held weak references to the objects: they now follow the contents
    for old, new in ((t1, t2), (t2, t1)):
        for refs in engine_refs[id(old)]:
            refs[:] = [weakref.ref(new) if r() is old else r for r in refs]
        # The post-accumulate-grad hooks went with the contents: so does the finalizer that clears them
        # when their holder dies (left on the old object, its death would clear the other's hooks)
        for f in finalizers[id(old)]:
            _, clear, _, _ = f.detach()
            weakref.finalize(new, clear)


def _engine_weakref_lists(t: Tensor) -> list[list]:
    """The engine's lists that hold weak references to ``t``: its memory's sharers (the version box's
    second entry) and its detached alias group's members."""
    lists = []
    box = t._version_box
    if len(box) > 1 and box[1].__class__ is list:
        lists.append(box[1])
    members = getattr(t._alias_group, "members", None)
    if members is not None:
        lists.append(members)
    return lists


def _hook_finalizers(t: Tensor) -> list[weakref.finalize]:
    """The engine's finalizers of ``t`` (its post-accumulate-grad hooks' ``clear``, which keeps the
    count of live hooked tensors the backward loop reads): each holds a weak reference to ``t``."""
    found = []
    for r in weakref.getweakrefs(t):
        f = getattr(r, "__callback__", None)
        if isinstance(f, weakref.finalize) and (info := f.peek()) is not None and \
                getattr(info[1], "__self__", None) is t._post_hooks is not None:
            found.append(f)
    return found


def _engine_weakrefs(t: Tensor) -> list:
    refs = [r for refs in _engine_weakref_lists(t) for r in refs if r() is t]
    return refs + [r for r in weakref.getweakrefs(t) if getattr(r, "__callback__", None) in _hook_finalizers(t)]


def _held_by_a_graph(t: Tensor) -> bool:
    """Whether a recorded node whose backward has not run (and freed it) has ``t`` among its inputs
    (a rare question: a scan of referrers)."""
    if t._node is None and not t._requires_grad:
        return False
    for holder in gc.get_referrers(t):
        if holder.__class__ is tuple and any(
                isinstance(n, Node) and n.inputs is holder and n.saved is not FREED for n in gc.get_referrers(holder)):
            return True
    return False
