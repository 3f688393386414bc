"""The memory ledger: the bytes of every array the tape and the backward
engine hold, measured, with a timeline by phase.

What is counted (each array once, by the memory buffer it views):

``saved``    arrays tape nodes keep for backward, and the values checkpointed
             segments keep to replay from (their inputs) -- *activation memory*
``grad``     gradients in flight inside backward (not yet handed to ``.grad``)
``host``     values a checkpoint policy offloaded to host memory
             (``offload_to_host``): counted apart, outside ``"total"``

A buffer that holders of several categories keep counts once, under the first of
``saved``, ``host``, ``grad`` that holds it now: a gradient in flight that a node
recorded by a ``create_graph=True`` pass saves is ``saved`` from then on.

An array is counted while a holder holds it: a tape node holds its saved arrays
until its backward releases them -- or until the node itself is garbage-collected,
when a graph is dropped without a backward pass (``loss = model(x).sum(); del
loss``): the ledger lets go when the memory does (``hold(..., owner=node)``).

Parameters (leaf tensors that require grad) are not counted: they exist
whatever the tape does.  Arrays that only user code holds are not counted
either: the ledger is about what the *engine* keeps alive, which is exactly
what checkpointing changes and what the planner predicts.  ``tracemalloc``
(CPU) and CuPy's memory pool (GPU) see all allocations and serve as the
cross-check.

Use::

    with mg.memory.track() as ledger:
        loss = model(x).sum()
        loss.backward()
    ledger.peak("saved"), ledger.timeline
"""

from __future__ import annotations

import contextlib
import warnings
import weakref
from collections.abc import Iterator
from typing import Any

from .user_frame import stacklevel_outside_the_engine

__all__ = ["Ledger", "ledger", "track", "live", "peak", "reset_peak"]


class Ledger:
    """Reference-counted byte accounting of engine-held arrays (see the module docstring)."""

    def __init__(self) -> None:
        self.enabled = False
        self.reset()

    def reset(self) -> None:
        """Forget everything held and start a new timeline."""
        # which tracking this is: a holder from an earlier one (a checkpoint segment the garbage
        # collector finds now) must not release what this one counts
        self.session = object()
        # id(buffer) -> [nbytes, the category it counts under, then its holders of each category by _SLOT]
        self._buffers: dict[int, list] = {}
        self.live_bytes = {"saved": 0, "grad": 0, "host": 0}
        self.peak_bytes = {"saved": 0, "grad": 0, "host": 0, "total": 0}
        self.released_bytes = 0  # all bytes ever released: a step's share is a difference
        self.phase = "forward"
        self.timeline: list[tuple[int, str, int, int]] = []
        self.dtypes: set[str] = set()   # every dtype held (float32 models should see no float64)
        self._events = 0
        # weak reference to an owner (a tape node) -> the buffers it holds (id, category's slot), released when it dies
        self._owners: dict[weakref.ref, list[tuple[int, int]]] = {}

    def __repr__(self) -> str:
        def kib(n: int) -> str:
            return f"{n / 1024:.1f} KiB"

        state = "tracking" if self.enabled else "off (use mg.memory.track())"
        return (f"Ledger({state}: holds saved {kib(self.live_bytes['saved'])}, grad {kib(self.live_bytes['grad'])}; "
                f"peak saved {kib(self.peak_bytes['saved'])}, total {kib(self.peak_bytes['total'])}; "
                f"{len(self.timeline)} timeline events, phase {self.phase!r})")

    # ------------------------------------------------------------- queries
    def live(self, category: str = "saved") -> int:
        """Bytes held now (``"saved"``, ``"grad"``, ``"total"`` -- both -- or ``"host"``)."""
        if category == "total":
            return self.live_bytes["saved"] + self.live_bytes["grad"]
        try:
            return self.live_bytes[category]
        except (KeyError, TypeError):
            raise ValueError(_unknown_category(category)) from None

    def holds_for(self, owner: Any) -> bool:
        """Whether ``owner`` (a tape node) holds arrays here: it saved them while this tracking counted."""
        return weakref.ref(owner) in self._owners

    def peak(self, category: str = "saved") -> int:
        """The most bytes held at once since the last reset."""
        try:
            return self.peak_bytes[category]
        except (KeyError, TypeError):
            raise ValueError(_unknown_category(category)) from None

    def reset_peak(self) -> None:
        for k in self.peak_bytes:
            self.peak_bytes[k] = self.live(k)

    def set_phase(self, phase: str) -> None:
        """Label what happens next in the timeline (``forward``, ``replay:3``, ``backward:3``...)."""
        self.phase = phase
        self._mark()

    # ----------------------------------------------------------- accounting
    def hold(self, arrays: Any, category: str = "saved", owner: Any = None) -> None:
        """One more holder of each array in ``arrays`` (arrays of any backend), of ``category``.

        With an ``owner`` (a tape node) the arrays are released when ``owner`` is
        garbage-collected, unless :meth:`release` with the same owner came first:
        a graph dropped without a backward pass leaves the ledger as its memory does.
        """
        slot = _SLOT[category]
        changed = False
        keys = []
        for a in arrays:
            base = _base(a)
            key = id(base)
            keys.append(key)
            entry = self._buffers.get(key)
            if entry is None:
                self.dtypes.add(a.dtype.name)
                entry = self._buffers[key] = [base.nbytes, category, 0, 0, 0]
                entry[slot] += 1
                self.live_bytes[category] += base.nbytes
                changed = True
            else:
                entry[slot] += 1
                if category != entry[1]:
                    changed = self._settle(entry) or changed
        if owner is not None and keys:
            # The owner's death runs the callback before its attributes are cleared, so the
            # buffers are still alive then and their ids still name them.
            self._owners.setdefault(weakref.ref(owner, self._owner_gone), []).extend((k, slot) for k in keys)
        if changed:
            self._mark()

    def release(self, arrays: Any, owner: Any = None, category: str = "saved") -> None:
        """One holder of ``category`` fewer of each array; its bytes leave the ledger with the last holder.

        ``owner``: the one :meth:`hold` named -- it lets go now, not when it dies."""
        if owner is not None and self._owners:
            self._owners.pop(weakref.ref(owner), None)
        slot = _SLOT[category]
        self._release_keys([(id(_base(a)), slot) for a in arrays])

    def _owner_gone(self, ref: weakref.ref) -> None:
        keys = self._owners.pop(ref, None)
        if keys:
            self._release_keys(keys)

    def _release_keys(self, keys: list[tuple[int, int]]) -> None:
        changed = False
        for key, slot in keys:
            entry = self._buffers.get(key)
            if entry is None:
                continue
            if entry[slot] == 0:  # no holder of that category: a bookkeeping slip somewhere, said aloud
                _warn_of_a_mismatched_release(entry, slot)
                slot = _SLOT[entry[1]]  # (let go of what the buffer counts as: the total stays right)
            entry[slot] -= 1
            if entry[2] + entry[3] + entry[4] == 0:
                del self._buffers[key]
                self.live_bytes[entry[1]] -= entry[0]
                self.released_bytes += entry[0]
                changed = True
            elif entry[slot] == 0:
                changed = self._settle(entry) or changed
        if changed:
            self._mark()

    def _settle(self, entry: list) -> bool:
        """Count a buffer held by several kinds of holder under the first of them in ``_SLOT``'s
        order -- once, and under ``"saved"`` while the tape saves it: a gradient in flight that a
        node recorded by a ``create_graph`` pass saves stays on the tape after it lands.  Returns
        whether the buffer moved."""
        category = next(c for c, i in _SLOT.items() if entry[i])
        if category == entry[1]:
            return False
        self.live_bytes[entry[1]] -= entry[0]
        self.live_bytes[category] += entry[0]
        entry[1] = category
        return True

    def _mark(self) -> None:
        s, g = self.live_bytes["saved"], self.live_bytes["grad"]
        p = self.peak_bytes
        if s > p["saved"]:
            p["saved"] = s
        if g > p["grad"]:
            p["grad"] = g
        if s + g > p["total"]:
            p["total"] = s + g
        if self.live_bytes["host"] > p["host"]:
            p["host"] = self.live_bytes["host"]
        self._events += 1
        self.timeline.append((self._events, self.phase, s, g))


#: Where a buffer's holders of each category are counted in its ledger entry -- in the order that
#: says which category a buffer several kinds of holder keep counts under (see ``Ledger._settle``).
_SLOT = {"saved": 2, "host": 3, "grad": 4}


_mismatch_warned = [False]


def _warn_of_a_mismatched_release(entry: list, slot: int) -> None:
    """Warn (once a process) that a holder of a category let go of a buffer no holder of that
    category held.  The engine's holds and releases pair up by category (a full run of the test
    suite never takes this branch), so one that does not is a slip: the release is taken from the
    category the buffer counts under, which keeps the live total right, but a count per category
    may be off from here on -- rather than that passing silently."""
    if _mismatch_warned[0]:
        return
    _mismatch_warned[0] = True
    released = next(c for c, i in _SLOT.items() if i == slot)
    warnings.warn(f"memory ledger: a '{released}' holder released a {entry[0]}-byte buffer that no '{released}' "
                  f"holder held (it counts as '{entry[1]}'); the live total stays right, but the per-category "
                  f"counts may be off from here (an engine bookkeeping slip: please report it)", RuntimeWarning,
                  stacklevel=stacklevel_outside_the_engine())


def _unknown_category(category: Any) -> str:
    return f"the memory ledger counts no category {category!r}: ask for 'saved', 'grad', 'total' or 'host'"


def _base(a: Any) -> Any:
    """The array that owns the memory ``a`` views (NumPy and CuPy both have ``.base``).

    A strided view (``as_strided``) has a plain holder object as its base, whose
    own ``base`` is the array: followed too, so a window view counts the bytes it
    really views, not its (larger) apparent size.
    """
    while True:
        b = getattr(a, "base", None)
        if b is not None and not hasattr(b, "nbytes"):
            b = getattr(b, "base", None)  # as_strided's holder
        if b is None or not hasattr(b, "nbytes"):
            return a
        a = b


def saved_arrays(node: Any) -> list[Any]:
    """The arrays of ``node.saved`` the ledger counts: everything but parameters -- and, where saved-tensor
    hooks packed the values (``tape.PackedSaved``, whose slots are ``(unpack_hook, value)``), only those
    the hooks left as they are (what a pack hook made is the user's)."""
    out = []
    saved = node.saved
    slots = getattr(saved, "slots", None)
    if slots is not None:
        saved = [None if unpack_hook is not None else v for unpack_hook, v in slots]
    if saved[0] is not None and hasattr(saved[0], "nbytes"):
        out.append(saved[0])
    for edge, v in zip(node.inputs, saved[1:]):
        if v is None or not hasattr(v, "nbytes") or is_parameter_edge(edge):
            continue
        out.append(v)
    return out


def is_parameter_edge(edge: Any) -> bool:
    """True if ``edge`` is a parameter (a leaf that requires grad) or a view of one.

    Following view ops matters: ``x @ w.T`` saves ``w.T``, whose memory is ``w``'s.
    """
    while edge is not None and hasattr(edge, "op") and edge.op.is_view:
        edge = edge.inputs[0]
    return edge is not None and not hasattr(edge, "op")


ledger = Ledger()


@contextlib.contextmanager
def track() -> Iterator[Ledger]:
    """Count engine-held bytes inside the block (the ledger starts from zero)."""
    prev = ledger.enabled
    ledger.reset()
    ledger.enabled = True
    try:
        yield ledger
    finally:
        ledger.enabled = prev


def live(category: str = "saved") -> int:
    """Bytes the ledger counts as held now (``"saved"``, ``"grad"`` or ``"total"``)."""
    return ledger.live(category)


def peak(category: str = "saved") -> int:
    """The most bytes held at once since tracking started or :func:`reset_peak`."""
    return ledger.peak(category)


def reset_peak() -> None:
    """Start measuring the peak again from what is held now."""
    ledger.reset_peak()
