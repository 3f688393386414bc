"""A checkpointed segment: a range of the tape whose saved values are dropped
in the forward pass and rebuilt by replaying the recorded ops in backward.

While a segment is active (``with Segment(...)``), every node recorded in this
thread passes through :meth:`Segment.record`, which

* marks the node ``saved = DROPPED`` instead of keeping its arrays, and
* writes down where replay will take each input from: the producing node if
  that node is inside the segment (or inside an enclosing one), otherwise the
  value itself (a segment input, a constant) -- those values are the
  segment's *kept* arrays, the only memory it holds between forward and
  backward.

In backward, the first dropped node the engine meets calls
:meth:`Segment.rematerialize`: the segment runs ``op.forward`` of every
node it recorded, in recording order, from the kept values, fills in each
node's ``saved``, and backward continues as if nothing had been dropped.  Each
node's values are released right after its backward (:meth:`release`); the
kept values go when the engine passes the segment's first node -- unless a tensor the
function returned is alive and has not had its backward yet (``a, b = checkpoint(f, x)``,
then a backward through ``a`` alone): they stay for that one (:meth:`returned`).

No user code runs during replay -- only recorded array math -- so side
effects (BatchNorm statistics, hooks, counters) happen once, and a dropout
mask, being a function of the key stored on its node, comes out bit for bit
the same without touching the random generator.  (The one exception: the node of a
custom ``mg.autograd.Function`` is user code, and its ``forward`` runs again
where the replay needs its output or what it saved.)

Nesting: a segment opened inside another records its nodes as its own; the
outer segment's replay computes through the inner nodes (it needs their
outputs) without filling their saved values, and hands the inner segment the
inputs it will replay from.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading
import time
import types
import weakref
import zlib
from bisect import insort
from collections.abc import Mapping
from typing import Any

from .. import tape as _tape
from ..autograd.graph import mutation_on_saved_tensors_allowed
from ..backend import to_host
from ..func.forward import ceiling as forward_mode_ceiling
from ..grad_mode import set_recorder
from ..grad_mode import state as _grad_state
from ..memory import _base, is_parameter_edge, saved_arrays
from ..memory import ledger as _ledger
from ..tape import DROPPED, FREED, Node, PackedSaved, _version_error
from ..tensor import Tensor, add_write_guard, remove_write_guard
from . import stale_writes

__all__ = ["Segment", "CheckpointError"]


class CheckpointError(RuntimeError):
    """A replay did not reproduce the forward pass, or a kept value changed."""


def determinism_check_named(name: str) -> str:
    """The check a replay makes, by its name: ``"shape"`` (PyTorch's ``"default"``: shapes,
    dtypes and devices), ``"value"`` (the bytes too) or ``"none"``; anything else is an error."""
    if name == "default":
        return "shape"
    if name not in ("shape", "value", "none"):
        raise ValueError(f"determinism_check must be 'shape' (PyTorch's 'default'), 'value' or 'none', got {name!r}")
    return name


class _Kept:
    """A value a segment replays from: an array (or scalar), its version box and, for a
    tensor's array, its device's namespace; ``written`` once a write the version box does not
    see (through ``.data``) changed it after the forward pass (see :mod:`.stale_writes`)."""

    __slots__ = ("value", "box", "param", "xp", "written")

    def __init__(self, value: Any, box: list | None, param: bool, xp: Any = None) -> None:
        self.value, self.box, self.param, self.xp = value, box, param, xp
        self.written = False


_ref = weakref.ref


class _ByNode(dict):
    """A dict keyed by nodes, held weakly: what a segment tree notes about its nodes once its
    forward pass is over (see :meth:`Segment._hold_nodes_weakly`).  The nodes hold their segment;
    were the segment to hold them too, a graph dropped without its backward would be a reference
    cycle, freed only when the garbage collector runs.  Looked up by live nodes (the keys are their
    weak references, equal and hashed as the node while it lives); ``items``, ``keys`` and iteration
    give the live ones, ``values`` all -- an entry of a node that died stays, with its value, until
    the segment lets it go, as before (see :meth:`dead_items`)."""

    __slots__ = ()

    @classmethod
    def of(cls, entries: Any) -> _ByNode:
        """The entries of ``entries`` (a mapping, or pairs), keyed by node."""
        return cls((_ref(n), v) for n, v in (entries.items() if isinstance(entries, Mapping) else entries))

    def __contains__(self, node: Any) -> bool:
        return dict.__contains__(self, _ref(node))

    def __getitem__(self, node: Any) -> Any:
        return dict.__getitem__(self, _ref(node))

    def __setitem__(self, node: Any, value: Any) -> None:
        dict.__setitem__(self, _ref(node), value)

    def get(self, node: Any, default: Any = None) -> Any:
        return dict.get(self, _ref(node), default)

    def pop(self, node: Any, *default: Any) -> Any:
        return dict.pop(self, _ref(node), *default)

    def setdefault(self, node: Any, default: Any = None) -> Any:
        return dict.setdefault(self, _ref(node), default)

    def items(self) -> list[tuple[Node, Any]]:  # type: ignore[override]
        return [(n, v) for r, v in dict.items(self) if (n := r()) is not None]

    def keys(self) -> list[Node]:  # type: ignore[override]
        return [n for r in dict.keys(self) if (n := r()) is not None]

    def __iter__(self) -> Any:
        return iter(self.keys())

    def dead_items(self) -> list[tuple[weakref.ref, Any]]:
        """The entries of the nodes that died: (their weak reference, the value)."""
        return [(r, v) for r, v in dict.items(self) if r() is None]


class _NodeSet(set):
    """A set of nodes, held weakly (see :class:`_ByNode`); iteration gives the live ones."""

    __slots__ = ()

    @classmethod
    def of(cls, nodes: Any) -> _NodeSet:
        return cls(_ref(n) for n in nodes)

    def __contains__(self, node: Any) -> bool:
        return set.__contains__(self, _ref(node))

    def add(self, node: Any) -> None:
        set.add(self, _ref(node))

    def discard(self, node: Any) -> None:
        set.discard(self, _ref(node))

    def __iter__(self) -> Any:
        return iter([n for r in set.__iter__(self) if (n := r()) is not None])


class _WeakList:
    """A list of nodes (or segments), held weakly, in order; iteration gives the live ones."""

    __slots__ = ("_refs",)

    def __init__(self, items: Any = ()) -> None:
        self._refs = [_ref(x) for x in items]

    def _live(self) -> list[Any]:
        return [x for r in self._refs if (x := r()) is not None]

    def __iter__(self) -> Any:
        return iter(self._live())

    def __reversed__(self) -> Any:
        return reversed(self._live())

    def __len__(self) -> int:
        return len(self._live())

    def __bool__(self) -> bool:
        return any(r() is not None for r in self._refs)

    def __getitem__(self, i: Any) -> Any:
        return self._live()[i]

    def append(self, x: Any) -> None:
        self._refs.append(_ref(x))


class _WeakNode:
    """A segment's attribute naming one node, held weakly (its nodes hold their segment: a strong
    reference back made every graph a reference cycle); None once the node is gone."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_ref"

    def __get__(self, seg: Any, owner: type | None = None) -> Any:
        if seg is None:
            return self
        ref = seg.__dict__.get(self.slot)
        return None if ref is None else ref()

    def __set__(self, seg: Any, node: Any) -> None:
        seg.__dict__[self.slot] = None if node is None else _ref(node)


_counter = [0]


class _Itself:
    """``Segment._root_segment`` of a root segment whose forward pass is over: the segment itself,
    without an attribute that refers to it (a reference cycle).  Not a data descriptor, so a
    segment's own attribute -- a nested segment's root, or the root's while it records, which
    ``record`` reads once per op -- is found first, as fast as any attribute."""

    def __get__(self, seg: Any, owner: Any = None) -> Any:
        return self if seg is None else seg


class Segment:
    """One checkpointed range of the tape (see the module docstring)."""

    _root_segment = _Itself()

    def __init__(self, stats: Any = None, determinism_check: str = "shape", label: str = "",
                 keep: Any = None, replay_context: Any = None, arguments: Any = None) -> None:
        determinism_check = determinism_check_named(determinism_check)
        # entered around each replay (PyTorch's ``context_fn``'s second context manager)
        self.replay_context = replay_context if replay_context is not None else contextlib.nullcontext()
        _counter[0] += 1
        self.index = _counter[0]
        self.label = label
        self.stats = stats
        self.check = determinism_check
        self.parent: Segment | None = None
        self._root_segment = self  # the outermost segment around this one (set on entering)
        self.children: list[Segment] = []
        self.nodes: list[Node] = []          # nodes this segment owns
        self.kept: list[_Kept] = []          # values replay starts from
        self.boundary: dict[Node, Any] = {}  # values an enclosing segment's replay handed over
        self.first = None                    # the earliest node of the whole subtree (weakly: see first)
        # ... and its place on the tape, which outlives it: a returned tensor made at or after it
        # may still need the tree when that node died with a tensor the caller dropped
        self._first_seq: int | None = None
        self.subtree: list[Node] = []
        self.external: set[Node] = set()     # nodes outside the subtree that it reads
        self.checksums: dict[Node, int] = {}
        self.saved_checksums: dict[Node, list[int]] = {}  # a custom Function's saved intermediates'
        # Nodes a replay ran for their own saved values alone that it could not replay (a value
        # they read was written since): the error, raised if a backward reaches one
        self._refused: dict[Node, Exception] = {}
        self.replays = 0
        self.freed = False
        # reported to the statistics (as recorded, so as active until freed): a forward pass that
        # raised never was, and freeing it must not count an active segment less
        self._reported = False
        self._raised: str | None = None  # the exception the function raised, by name
        self.recording = False  # between __enter__ and __exit__: the forward pass is still running
        self.forward_time = 0.0
        self._outer_recorder: Any = None
        self._t0 = 0.0
        # the ledger's tracking its kept values were counted in (None: none was on)
        self._ledger_session: Any = None
        self._init_policy_state(keep, arguments)
        self._init_block_results()
        self._init_byte_counts()
        self._init_liveness()
        self._init_write_watch()

    def _init_policy_state(self, keep: Any, arguments: Any) -> None:
        """What a policy segment (``remat``'s) keeps, and the arguments it names nodes by."""
        # ``keep(node) -> bool``: nodes whose outputs are kept from the forward pass, so replay
        # takes them as they are instead of recomputing them (``remat``'s policies)
        self.keep = keep
        self._kept_outputs: _ByNode = _ByNode()
        # the kept outputs that are views of a parameter, which the ledger does not count: told
        # when the outputs are held, so the entry of one whose node died is told apart too
        self._parameter_views: set[weakref.ref] = set()
        # the ledger holds the kept outputs: this segment's forward pass ended (a nested one's, while
        # the function around it goes on, which may still drop them -- see drop_unreachable)
        self._outputs_held = False
        self._kept_result_bytes: dict[Node, int] = {}  # (the bytes _count_kept_results took back)
        # The tensors the function was called with (``remat``'s), while it records: a node whose
        # inputs that require grad all come from them is marked ``from_arguments`` -- recorded only
        # where the arguments require grad (``mg.func.grad`` makes them) -- and a policy segment
        # names each node by class and place (``remat_key``, see _remat_key)
        self._arguments: list[Tensor] | None = None if arguments is None else _tensors_in(arguments)
        self._argument_nodes: set[Node] = set()
        self._key_counts = [0, 0]
        self._ceiling = float("inf")  # forward mode's when the function started (see _remat_key)

    def _init_block_results(self) -> None:
        """Nodes of this segment whose outputs are the results of checkpointed chain blocks
        (``keep_result``): kept from when they are computed until their own backward."""
        self._result_nodes: set[Node] = set()
        # Those of them an enclosing segment's replay made (not kept from the forward pass): they
        # belong to that backward pass and go after their node's backward even when it retains
        # the graph -- the next pass's replay makes them again (PyTorch: recomputed tensors are
        # cleared as they are used, retain_graph=True or not).
        self._replayed_results: set[Node] = set()
        self._block_result = None  # the node whose output is this segment's kept result (weakly)

    def _init_byte_counts(self) -> None:
        """What the statistics report: the bytes the forward pass dropped and kept, each buffer once."""
        self.dropped_bytes = 0
        self.kept_bytes = 0
        self.replay_extra_bytes = 0
        # buffers already counted in dropped_bytes / kept_bytes (each once, as the ledger counts)
        self._counted: tuple[dict, dict] | None = ({}, {})
        # Kept values the tape holds anyway, by buffer: the saved output of the node before the
        # segment (a tanh's). Keeping them costs nothing over a run without checkpointing, and
        # not saving them saves nothing.
        self._held_anyway: set[int] = set()
        self._out_bytes: dict[Node, int] = {}  # bytes counted for each node's saved output
        # The results of this segment and the ones nested in it that none of them reads: not
        # counted as dropped -- unless a segment around them reads (and so replays) them.
        self._result_bytes: dict[Node, int] = {}
        # (On the root, while the ledger tracks) per node of the tree: the memory its output lives
        # in, weakly, and the buffers it saves (output, inputs), to tell, when the function has
        # returned, what a run without checkpointing still holds (see _note_saves)
        self._saves: dict[Node, tuple[Any, tuple, tuple]] = {}

    def _init_liveness(self) -> None:
        """(On the root) what tells whether a node's output, or a returned tensor, is still alive."""
        # (On the root) tensors that tell whether their node's output is alive, weakly, where its
        # memory cannot: a kept output's (the kept array holds the memory), as ops read them or
        # ``name`` tags them; a tensor given another array (``t.data = v``, ``set_``), whose node's
        # memory died with the old one (see _alive_outputs)
        self._tensors_of: dict[Node, list[weakref.ref]] = {}
        # (On the root) tensors that took a node's history after the op that made it (see adopted)
        self._adopted: dict[Node, list[weakref.ref]] = {}
        # The arrays nodes of this segment (as the root, of its whole tree) produced in the
        # forward pass, by id, so a detached copy of one is recognised; cleared on exit.
        self._outputs: dict[int, tuple[weakref.ref, Node]] = {}
        # (On the root) the nodes of the tensors the tree's functions returned, weakly: while one
        # of them is alive -- the tensor, or anything made from it, reaches it -- and its backward
        # has not run, the tree keeps what replay needs (see _awaits_backward); ``_in_backward``:
        # a backward pass is inside the tree right now; ``_waiting``: a backward pass left it
        # waiting for the backward of one of them.
        self._returned: list[tuple[int, weakref.ref]] = []  # (seq, node)
        # (On the root) the nodes that saved nothing whose backward ran: they stay runnable (see
        # release) and count as passed, as a freed node does, for _awaits_backward
        self._passed_empty: set[Node] = set()
        self._in_backward = self._waiting = False

    def _init_write_watch(self) -> None:
        """(On the root) the memory of kept values and outputs watched for writes in place."""
        # Kept values that a write in place could still change while the forward pass runs (the
        # root segment's, for its whole tree): those kept since the last write, and the earlier
        # ones by the memory they view, indexed when a write comes (see _copy_before_write).
        self._unindexed: list[tuple[Segment, _Kept]] = []
        self._writable: dict[int, list[tuple[Segment, _Kept]]] = {}
        # The same for the memory of the tree's nodes' outputs (weakly), and the nodes whose
        # output memory was written in place meanwhile: ops recorded after that read the written
        # values as kept values, since replaying the node gives the values from before.
        self._unindexed_outputs: list[tuple[Any, Node]] = []
        self._output_memory: dict[int, list[tuple[Any, Node]]] = {}
        self._written: set[Node] = set()
        self._guard_thread: int | None = None
        # The version box of each node's output, as the ops reading it here saw it: a kept
        # output written in place since (through ``.detach()``) is recomputed, not taken.
        self._out_boxes: dict[Node, list] = {}
        # After the forward pass: the memory of kept values watched for writes the version boxes
        # miss; and the nodes whose output memory was written in place -- in the forward pass
        # (any alias), or after it through one the version box misses (see stale_writes) --
        # whose kept outputs are recomputed, not taken
        self._watched_memory: set[int] = set()
        self._written_outputs: set[Node] = set()
        # Recorded inside allow_mutation_on_saved_tensors(): a kept value about to be written after
        # the forward pass is copied first (PyTorch copies a saved tensor on its first write there)
        self._copy_on_write = mutation_on_saved_tensors_allowed()

    #: The earliest node of the whole subtree, where a backward pass ends it
    first = _WeakNode()
    #: The node whose output is this segment's kept result
    _block_result = _WeakNode()

    def _hold_nodes_weakly(self) -> None:
        """(The root, its forward pass over) Hold the tree's nodes -- and the segments nested in
        it -- weakly from now on: its nodes hold their segment, so a segment that held them too
        made every graph a reference cycle.  Dropped without its backward (a forward pass under
        grad mode whose result is thrown away, a backward that raised, a graph retained and then
        dropped), the graph's nodes die with the last tensor that reaches them, as without
        checkpointing, and each segment with its last node: its ``__del__`` lets its kept values
        go there and then, not when the garbage collector finds the cycle.  (Recording, the tree
        holds its nodes strongly: nothing on the tape's hot path pays for this.)"""
        if self.__dict__.get("_root_segment") is self:
            del self._root_segment  # (see _Itself)
        for seg in [self, *self._descendants()]:
            seg.nodes = _WeakList(seg.nodes)
            seg.subtree = _WeakList(seg.subtree)
            seg.children = _WeakList(seg.children)
            for name in ("_out_boxes", "checksums", "saved_checksums", "_refused", "_result_bytes",
                         "_kept_result_bytes"):
                entries = getattr(seg, name)
                setattr(seg, name, _ByNode.of(entries) if entries else _ByNode())
            for name in ("_result_nodes", "_replayed_results", "_written_outputs", "_passed_empty"):
                nodes = getattr(seg, name)
                setattr(seg, name, _NodeSet.of(nodes) if nodes else _NodeSet())

    # ---------------------------------------------------------------- forward
    def __enter__(self) -> Segment:
        outer = _grad_state.recorder
        self._outer_recorder = outer
        if isinstance(outer, Segment):
            self.parent = outer
            self._root_segment = outer._root_segment
            if self._arguments is None:  # a checkpoint inside a remat region: its arguments are the region's
                self._arguments, self._argument_nodes = outer._arguments, outer._argument_nodes
            self._counted = outer._counted  # a buffer counts once in the whole tree, as in the ledger
            outer.children.append(self)
        elif outer is not None:
            raise CheckpointError("checkpoint() cannot be used while the planner is profiling a model")
        else:  # the root: values written in place while its tree records are copied first
            self._guard_thread = threading.get_ident()
            add_write_guard(self._copy_before_write)
        if self._arguments is not None and not self._argument_nodes:
            self._argument_nodes = {t._node for t in self._arguments if t._node is not None}
        self._ceiling = forward_mode_ceiling()
        set_recorder(self)
        self.recording = True
        self._ledger_session = _ledger.session if _ledger.enabled else None
        self._t0 = time.perf_counter()
        return self

    def _counted_in_ledger(self) -> bool:
        """Whether the ledger tracking now is the one that counted this segment's kept values:
        a segment recorded while none was (``plan_graph``'s profile, a forward pass before
        ``mg.memory.track()``) and freed -- by its backward, or the garbage collector -- inside
        one must not release what that one counts (an input both hold: the count would drop)."""
        return _ledger.enabled and self._ledger_session is _ledger.session

    def __exit__(self, *exc: object) -> None:
        set_recorder(self._outer_recorder)
        self.recording = False
        self._arguments, self._argument_nodes = None, set()  # (the nodes are marked: let the tensors go)
        outputs = None
        if self._guard_thread is not None:  # the root's forward pass is over: writes now are stale
            remove_write_guard(self._copy_before_write)
            self._guard_thread = None
            self._writable, self._unindexed = {}, []
            outputs = self._unindexed_outputs + [e for entries in self._output_memory.values() for e in entries]
            self._unindexed_outputs, self._output_memory, self._written = [], {}, set()
        self.forward_time = time.perf_counter() - self._t0
        if self.parent is None:
            self._outputs = {}  # let the forward pass's arrays go
        if outputs is not None and exc[0] is None:  # (the function returned: what it dropped is dead)
            self.drop_unreachable(self._alive_outputs(outputs))
        self._tensors_of, self._adopted = {}, {}
        consumed = self._settle()
        for n, nbytes in self._out_bytes.items():
            if n not in consumed:  # the segment's result: not memory the segment saved
                self.dropped_bytes -= nbytes
                self._result_bytes[n] = nbytes
        self._out_bytes = {}
        self._count_nested_results(consumed)
        if self._kept_outputs:
            self._hold_wanted_outputs()
        if self.parent is None and self.stats is not None and exc[0] is None and _ledger.enabled:
            _count_again_if_the_tape_holds(self)  # (a look at every op after it: while the ledger tracks)
        if self.parent is None:  # (counted: let the nodes drop_unreachable let go die, and what they read)
            self._result_bytes = {n: b for n, b in self._result_bytes.items() if n.replay is not None}
        self._saves = {}
        self._counted = None
        self.replay_extra_bytes = self._kept_unsaved_bytes()
        if self.stats is not None and exc[0] is None:
            self.stats._segment_recorded(self)
            self._reported = True
        if self.parent is None and exc[0] is None:
            self._watch_kept_memory()
        elif self.parent is None:
            self._abandon(exc[0])
        if self.parent is None:
            self._hold_nodes_weakly()

    def _abandon(self, exc_type: Any) -> None:
        """(The root) the function raised: it returned nothing, so no backward is to come, and
        what the tree keeps goes now -- not when the garbage collector finds the reference cycle
        of its nodes and segments.  A backward through a value the function stashed before it
        raised is refused (PyTorch's replay would run the function again, and raise again)."""
        self._free_tree()
        for seg in [self, *self._descendants()]:
            seg._raised = getattr(exc_type, "__name__", str(exc_type))
            for n in seg.nodes:
                n.saved = DROPPED  # a backward reaching it asks rematerialize, which says why

    def _settle(self) -> set[Node]:
        """The tree's nodes in tape order, the first, the nodes outside it that it reads; returns
        the nodes of the tree some node of it reads."""
        self.subtree = sorted(self._all_nodes(), key=lambda n: n.seq)
        self.first = self.subtree[0] if self.subtree else None
        self._first_seq = self.subtree[0].seq if self.subtree else None
        inside = set(self.subtree)
        consumed: set[Node] = set()
        self.external = set()
        for n in self.subtree:
            for src in n.replay:
                if type(src) is Node:
                    if src not in inside:
                        self.external.add(src)
                    else:
                        consumed.add(src)
        return consumed

    def note_tensor_of(self, node: Node, t: Tensor) -> None:
        """(The root) ``t`` is ``node``'s output tensor, whose life tells whether the output is
        alive where the memory's cannot (see :meth:`_alive_outputs`)."""
        if self._root_segment.recording:
            self._root_segment._tensors_of.setdefault(node, []).append(weakref.ref(t))

    def rebound(self, node: Node, t: Tensor) -> None:
        """``t``, ``node``'s output tensor, holds another array now (``t.data = v``, ``set_``), its
        history kept.  While the tree records, ops after this read ``t``'s new values as kept
        values (a replay of ``node`` would give the old ones), and ``t`` tells whether the output
        is alive (see :meth:`_alive_outputs`)."""
        root = self._root_segment
        if root.recording:
            root._written.add(node)
            self._written_outputs.add(node)
            self.note_tensor_of(node, t)

    def adopted(self, node: Node, t: Tensor) -> None:
        """``t`` took ``node``'s history after the op that made it (an in-place write, ``x.t_()``, the
        legacy alias ``Tensor(x)``): while ``t`` lives, so does the node (see :meth:`_alive_outputs`)
        -- even where the op's own output tensor died (``u.mul_(2)``'s result is a temporary; ``u``
        holds the history)."""
        root = self._root_segment
        if root.recording:
            root._adopted.setdefault(node, []).append(weakref.ref(t))

    def _alive_outputs(self, outputs: list[tuple[Any, Node]]) -> set[Node]:
        """The nodes whose output is alive when the function has returned (``outputs``: a weak
        reference to the memory of each node's output) -- or, where tensors of it were noted, whose
        tensor is: a kept output's (the segment holds its array, so its memory tells nothing), a
        tensor given another array (``t.data = v``), one that took the node's history later (an
        in-place write, ``x.t_()``: see :meth:`adopted`)."""
        alive = {node for ref, node in outputs if ref() is not None}
        for node, refs in self._tensors_of.items():
            if any(r() is not None for r in refs):
                alive.add(node)
            else:
                alive.discard(node)
        alive.update(n for n, refs in self._adopted.items() if any(r() is not None for r in refs))
        return alive

    def drop_unreachable(self, alive: set[Node]) -> None:
        """(The root, when the function has returned) Let go of the nodes no tensor can reach.

        ``alive``: nodes whose output is alive (a tensor the function returned, or kept).  A node
        that neither is nor feeds one -- a value computed and dropped, a branch nothing returned
        depends on -- died with its tensor in a run without checkpointing; here its backward can
        never come either, so a replay must not make it again (that held its values on top of
        the others': a peak above the run without checkpointing) nor a policy keep its output."""
        tree = [self, *self._descendants()]
        nodes = sorted((n for seg in tree for n in seg.nodes), key=lambda n: n.seq)
        live = _reached_from(alive, nodes)
        if all(n in live for n in nodes):  # (live holds nodes before the tree too: what they read)
            return
        used = {id(src) for n in nodes if n in live for src in n.replay if type(src) is _Kept}
        let_go: list[tuple[Segment, Node, Any]] = []  # the kept outputs let go
        for seg in tree:
            for n in seg.nodes:
                if n not in live:  # (forgotten everywhere: it dies now, and what it read before the tree too)
                    if n in seg._kept_outputs:
                        let_go.append((seg, n, seg._kept_outputs.pop(n)))
                    seg.checksums.pop(n, None)
                    seg.saved_checksums.pop(n, None)
                    n.saved_slots = None
                    seg._out_boxes.pop(n, None)
                    seg._result_nodes.discard(n)
                    if seg._block_result is n:
                        seg._block_result = None
                    if _replayed(n) and _ledger.enabled:  # (a backward inside the function)
                        _ledger.release(saved_arrays(n), n)
                    n.saved, n.replay = FREED, None
            seg.nodes = [n for n in seg.nodes if n in live]
            gone = [k for k in seg.kept if id(k) not in used]
            seg.kept = [k for k in seg.kept if id(k) in used]
            self._let_go_kept(seg, gone)
        self._let_go_held_outputs([e for e in let_go if e[0]._outputs_held])
        self._returned = [e for e in self._returned if e[1]() in live]  # (a nested block's result nothing reads)
        for c in self._descendants():
            c._settle()

    def _let_go_kept(self, seg: Segment, gone: list[_Kept]) -> None:
        """(The root) ``seg``'s kept values ``gone`` are no longer kept: the ledger and the
        statistics' counts let go of the buffers no other kept value of the tree holds."""
        gone = [k for k in gone if not k.param and hasattr(k.value, "nbytes")]
        if not gone:
            return
        if self._counted_in_ledger():
            _ledger.release([k.value for k in gone])
        still = {id(_base(k.value)) for c in [self, *self._descendants()] for k in c.kept}
        for k in gone:
            if id(_base(k.value)) not in still and self._counted is not None:
                seg.kept_bytes -= _uncount(self._counted[1], k.value)

    def _watch_kept_memory(self) -> None:
        """(The root, at the end of the forward pass) watch the memory of the tree's kept values
        for writes through aliases with a version counter of their own (``.data``)."""
        for seg in [self, *self._descendants()]:
            for k in seg.kept:
                if k.xp is not None and k.box is not None:  # (box None: a copy of the segment's own)
                    stale_writes.watch(seg, k.xp.memory_owner(k.value), k)
            if not getattr(seg.keep, "to_host", False):  # (a host copy is the segment's own)
                for n, v in seg._kept_outputs.items():
                    stale_writes.watch(seg, n.xp.memory_owner(v), n)

    def _descendants(self) -> list[Segment]:
        out = []
        for c in self.children:
            out += [c, *c._descendants()]
        return out

    def _written_after_forward(self, item: Any) -> None:
        """A kept value (or the kept output of node ``item``) is about to be written in place."""
        if isinstance(item, _Kept):
            if self._copy_on_write and item.box is not None and mutation_on_saved_tensors_allowed():
                self._keep_a_copy(item)
            else:
                item.written = True
        else:
            self._written_outputs.add(item)

    def _keep_a_copy(self, item: _Kept) -> None:
        """Inside ``allow_mutation_on_saved_tensors()``: the kept value ``item`` is about to be
        written in place, so the replay keeps a copy of it as the forward pass read it instead, and
        starts from the values the loss was computed from (the ledger and the statistics count
        the copy where they counted the value)."""
        old, box = item.value, item.box
        item.value, item.box = old.copy(), None  # (a copy of the memory, on its device)
        for n in self.nodes:  # the nodes replayed from it no longer check the written tensor's version
            if n is not None and any(src is item for src in n.replay):
                n.versions = tuple(b for b in n.versions if b is not box)
        if item.param:
            return
        root = self._root_segment
        if root._counted_in_ledger():
            _ledger.release([old])
            _ledger.hold([item.value])
        if root._counted is not None and _uncount(root._counted[1], old):
            _new_bytes(root._counted[1], [item.value])

    def _count_nested_results(self, consumed: set[Node]) -> None:
        """The results of nested segments that nodes of this one read are dropped after all:
        this segment's replay makes them (counted here; a node that saves one too found it
        counted in the tree's shared count); the others pass on outwards."""
        for c in self.children:
            for n, nbytes in c._result_bytes.items():
                if n in consumed:
                    self.dropped_bytes += nbytes
                else:
                    self._result_bytes[n] = nbytes
            c._result_bytes = {}

    def _kept_unsaved_bytes(self) -> int:
        """Bytes of kept values -- inputs, and outputs a ``remat`` policy keeps on the device --
        that no node of this segment saves: during the replay they are held on top of what a
        run without checkpointing holds at that moment."""
        saved = {id(_base(k.value)) for n in self.nodes for k, slot in zip(n.replay, n.saved_slots[1:])
                 if slot and type(k) is _Kept and hasattr(k.value, "nbytes")}
        # a kept output its node saves, or a node saves as its input, is what the replay fills anyway
        saved_outputs = {n for n in self.nodes if n.saved_slots[0]}
        saved_outputs.update(src for n in self.nodes for src, slot in zip(n.replay, n.saved_slots[1:])
                             if slot and type(src) is Node)
        unsaved = [k.value for k in self.kept if not k.param and id(_base(k.value)) not in saved
                   and id(_base(k.value)) not in self._held_anyway]
        unsaved += [v for n, v in self._device_kept_outputs() if n not in saved_outputs]
        return _new_bytes({}, unsaved)

    def _device_kept_outputs(self) -> list[tuple[Node, Any]]:
        """The kept outputs the ledger counts as ``"saved"``: not offloaded to the host, and not a
        view of a parameter (which exists whatever the tape does)."""
        if getattr(self.keep, "to_host", False):
            return []
        return [(n, v) for n, v in self._kept_outputs.items() if not is_parameter_edge(n)]

    def _all_nodes(self) -> list[Node]:
        out = list(self.nodes)
        for c in self.children:
            out.extend(c._all_nodes())
        return out

    def record(self, node: Node, args: tuple, arrays: list, out: Any, tensor: Tensor | None = None) -> None:
        """Called by the tape for every node recorded while this segment is active (once
        per op of the forward pass: what it does is what checkpointing costs there);
        ``tensor`` is the output's."""
        node.segment = self
        saved = node.saved
        # Which of (out, *inputs) the tape saved: replay re-fills exactly those, so the save rule
        # (tape._record) is applied in one place only.  (On the node: its segment holds it weakly.)
        node.saved_slots = slots = tuple([v is not None for v in saved])
        dropped = saved_arrays(node) if any(slots) else None
        node.saved = DROPPED
        root = self._root_segment
        if _ledger.enabled:
            root._note_saves(node, out, dropped if slots[0] else [None, *(dropped or ())])
        sources = []
        kept_now = []
        for a, v in zip(args, arrays):
            is_tensor = isinstance(a, Tensor)
            producer = a._node if is_tensor else None
            if producer is None:  # a detached value (``x.detach()``) may still be one made here
                producer = root._made_here(v)
            if (producer is not None and producer.segment is not None and producer.segment._root_segment is root
                    and producer not in root._written):
                sources.append(producer)  # recomputed by replay
                if is_tensor:
                    producer.segment._out_boxes.setdefault(producer, a._version_box)
                    if producer in producer.segment._kept_outputs:
                        root.note_tensor_of(producer, a)
                continue
            is_param = is_tensor and (a._requires_grad if a._node is None else is_parameter_edge(a._node))
            if is_tensor:
                k = _Kept(v, a._version_box, is_param, a._device.xp)
                root._unindexed.append((self, k))
            else:
                k = _Kept(v, None, False)
            sources.append(k)
            if hasattr(v, "nbytes"):
                self.kept.append(k)
                if not is_param:
                    kept_now.append(v)
                    if producer is not None and _tape_holds(producer, v):
                        self._held_anyway.add(id(_base(v)))
        node.replay = tuple(sources)
        self.nodes.append(node)
        if self._arguments is not None and self._from_arguments(node):
            node.from_arguments = True
        if self.keep is not None:
            node.remat_position = len(self.nodes) - 1
            node.remat_key = self._remat_key(node)
            if self.keeps(node):
                self._keep_output(node, out)
                if tensor is not None:  # its memory, which the segment now holds, cannot tell of its life
                    root.note_tensor_of(node, tensor)
        try:  # weakly: the forward pass must be free to let its arrays go
            root._outputs[id(out)] = (weakref.ref(out), node)
        except TypeError:
            pass
        owner = node.xp.memory_owner(out)
        root._unindexed_outputs.append((_weak(owner), node))
        if tensor is not None and owner is not out and node not in root._tensors_of:
            # a view's memory is what it views -- an input the caller holds, a value an op saved --
            # which outlives the view: its tensor tells whether the node's output is alive
            root.note_tensor_of(node, tensor)
        if self.check == "value":
            self.checksums[node] = _checksum(out)
            if getattr(node.op, "saves_intermediates", False):
                self.saved_checksums[node] = [_checksum(a) for a in node.op.saved_intermediates()]
        if kept_now:
            if _ledger.enabled:
                _ledger.hold(kept_now)
            self.kept_bytes += _new_bytes(self._counted[1], [v for v in kept_now
                                                             if id(_base(v)) not in self._held_anyway])
        if dropped:
            counted = self._counted[0]
            if slots[0]:  # saved_arrays lists the output first
                # A node's own output counts as dropped only if it stays inside the segment;
                # an output that leaves it (the segment's result) lives on regardless.
                self._out_bytes[node] = out_bytes = _new_bytes(counted, dropped[:1])
                self.dropped_bytes += out_bytes
                dropped = dropped[1:]
            held = self._held_anyway  # not dropping what the tape holds anyway saves nothing
            self.dropped_bytes += _new_bytes(counted, [d for d in dropped if id(_base(d)) not in held] if held
                                             else dropped)

    def _from_arguments(self, node: Node) -> bool:
        """Whether every input of ``node`` that requires grad comes from the function's arguments
        (they, or nodes so marked): without their requiring grad it would not be on the tape."""
        edges = [e for e in node.inputs if e is not None]
        return bool(edges) and all(
            getattr(e, "from_arguments", False) or e in self._argument_nodes if type(e) is Node
            else any(e is a for a in self._arguments or ()) for e in edges)

    def _remat_key(self, node: Node) -> tuple[bool, int] | None:
        """How a ``GraphPlan`` names ``node`` whatever transform runs the function: ``(from
        arguments, its place among the nodes so classed)``.  A ``GraphPlan`` made where the arguments
        did not require grad has no nodes from them, and the others keep their places under
        ``mg.func.grad``, which makes them require grad.  ``None`` for an op forward mode runs to
        compute a tangent (``jvp``, ``jacfwd``, ``hessian``): its own work, not the function's."""
        if forward_mode_ceiling() < self._ceiling:
            return None
        cls = int(bool(getattr(node, "from_arguments", False)))
        self._key_counts[cls] += 1
        return bool(cls), self._key_counts[cls] - 1

    def _note_saves(self, node: Node, out: Any, saved: list) -> None:
        """(The root) what ``node`` saves (``saved``: its output or None, then its inputs'), each
        buffer as (weak reference, id, bytes) -- the reference the statistics' counts hold too,
        so a buffer is told from a later one given the same id -- and the memory its output
        lives in (see _live_nodes)."""
        entries = []
        for a in saved:
            b = None if a is None else _base(a)
            ref = None if b is None else _weak_or_none(b)
            entries.append(None if ref is None else (ref, id(b), int(b.nbytes)))
        self._saves[node] = (_weak_or_none(node.xp.memory_owner(out)), tuple(entries[:1]), tuple(entries[1:]))

    def _copy_before_write(self, t: Tensor) -> None:
        """A write guard: ``t`` is about to be written in place while this segment tree records.

        An op here read ``t`` and did not save it (``x + c`` keeps nothing of ``c``), so
        without checkpointing the write changes nothing the backward reads; but the replay
        reads ``t`` again.  So the value the op read is copied now, and the replay takes the
        copy -- where a write *after* the forward pass (the value is stale then) is refused.
        Writes are matched by memory, not version: a view, or ``t.data``, writes it too.
        """
        if threading.get_ident() != self._guard_thread:
            return  # another thread's write (a loader filling a buffer) is not this forward pass's
        for seg, k in self._unindexed:  # indexed here, so that recording pays almost nothing
            self._writable.setdefault(id(k.xp.memory_owner(k.value)), []).append((seg, k))
        self._unindexed = []
        memory = t._device.xp.memory_owner(t._data)
        self._mark_written(memory)
        watched = self._writable.pop(id(memory), None)
        copies: dict[int, Any] = {}  # one copy of an array several ops read
        released, held = [], []
        for seg, k in watched or ():
            old = k.value
            k.value = copies.get(id(old))
            counted_in = seg if seg.recording else self  # (a nested segment done with: the root counts it)
            if k.value is None:
                k.value = copies[id(old)] = old.copy()
                # the copy is new memory the tree keeps; the written array is the caller's from
                # here on, counted again only if an op reads it again (a parameter's never was)
                counted_in.kept_bytes += _new_bytes(self._counted[1], [k.value]) - _uncount(self._counted[1], old)
            k.box = None  # the copy is the segment's own: nothing writes into it
            held.append(k.value)
            if not k.param:
                released.append(old)
            k.param = False  # a parameter's array is not the tape's memory; its copy is
        if held and self._counted_in_ledger():
            # the copy takes the place of what the tape held: never both at once in the ledger
            # (as ``plan_graph`` predicts: the array written is the caller's from here on)
            _ledger.release(released)
            _ledger.hold(held)

    def now_shows(self, node: Node | None, array: Any) -> None:
        """``node``'s value now also lives in ``array``'s memory: a recorded write into shared
        memory (``functional.shared_memory``) put it there, and the written tensor (or a view of it)
        took ``node`` as its history.  A later write into that memory off the tape (``no_grad``,
        ``.data``, a detached alias) must then mark ``node`` as written, as it marks the nodes
        whose outputs were made there -- else the replay recomputes ``node`` and hands the ops that
        read the tensor after that write the value from before it."""
        root = self._root_segment
        if (root._guard_thread is not None and node is not None and node.segment is not None
                and node.segment._root_segment is root):
            root._unindexed_outputs.append((_weak(node.xp.memory_owner(array)), node))

    def _mark_written(self, memory: Any) -> None:
        """(On the root) the nodes whose output lives in ``memory``, about to be written in place:
        from now on ops read their values as kept values (the write is not on the tape)."""
        for ref, node in self._unindexed_outputs:
            owner = ref()
            if owner is not None:
                self._output_memory.setdefault(id(owner), []).append((ref, node))
        self._unindexed_outputs = []
        for ref, node in self._output_memory.get(id(memory), ()):
            if ref() is memory:
                self._written.add(node)
                # the ops recorded so far read the value from before the write: a replay that
                # took a kept output (``save_matmuls``...) would hand them the new one
                node.segment._written_outputs.add(node)

    def _takes_kept(self, node: Node) -> bool:
        """Whether the replay takes ``node``'s kept output as it is (see :meth:`runs_anyway`)."""
        return bool(self._kept_outputs) and node in self._kept_outputs and not self.runs_anyway(node)

    def runs_anyway(self, node: Node) -> bool:
        """Whether a replay that wants ``node``'s output runs it whatever a policy keeps: its
        output was written in place since the ops here read it (they read what the node gives),
        or it is a custom function's node whose backward reads intermediates only its
        ``forward`` rebuilds.  (``plan_graph`` never keeps these.)"""
        if node in self._written_outputs or getattr(node.op, "saves_intermediates", False):
            return True
        box = self._out_boxes.get(node)
        return box is not None and box[0] > node.seq

    def version_box_reads(self, box: list) -> int:
        """How many times this segment and those inside it hold ``box`` as the version of an
        output of theirs an op there read (see :meth:`runs_anyway`).  Such a hold reads the stamp
        only and saves no value: forward mode's in-place writes (``func/inplace.py``) do not count
        it as a value saved for backward."""
        return sum(v is box for v in self._out_boxes.values()) + sum(c.version_box_reads(box) for c in self.children)

    def _made_here(self, value: Any) -> Node | None:
        """The node of this (root) segment whose output ``value`` is, if any.

        An op handed ``x.detach()`` (``max_pool2d`` passes its input twice, once
        cut off from the tape) gets the very array a node here produced: replay
        recomputes it like any other value instead of keeping the array -- keeping
        it would hold on to an activation the segment exists to drop.
        """
        hit = self._outputs.get(id(value))
        return hit[1] if hit is not None and hit[0]() is value else None

    def cut_off(self, value: Any, source: Any) -> None:
        """``value``, an array a node here made, was cut off from the tape between a chain's layers
        (``h.detach()`` as a layer's result; ``source``: that layer's input): ops recorded after this
        keep it rather than replay the nodes before the cut (see :meth:`_made_here`), which no
        backward reaches -- unless a tensor of that node lives on (``source``, stashed by the layer),
        so the segment lets them go when its function returns, with what they read.  (Its memory
        lives on in what the segment keeps: it tells nothing of the node, its tensor does.)"""
        root = self._root_segment
        node = root._made_here(value)
        if node is None:
            return
        del root._outputs[id(value)]
        refs = root._tensors_of.setdefault(node, [])
        if isinstance(source, Tensor) and source._node is node:
            refs.append(weakref.ref(source))

    def keeps(self, node: Node) -> bool:
        """The policy's answer for ``node``, as a bool (an answer with no truth value -- an
        array of several -- is a ``TypeError`` naming the policy and the node)."""
        answer = self.keep(node)
        try:
            return bool(answer)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"the checkpoint policy {self.keep!r} returned {type(answer).__name__} for node #{node.seq} "
                f"({node.op.name}); a policy returns True (keep the output) or False (recompute it)") from e

    def _keep_output(self, node: Node, out: Any) -> None:
        """Keep ``node``'s output for the replay: on the device, or -- a policy wrapped in
        ``offload_to_host`` -- as a host copy, which the ledger counts as ``"host"``."""
        if getattr(self.keep, "to_host", False):
            value = to_host(out)
            value = value.copy() if value is out or getattr(value, "base", None) is not None else value
        else:
            value = out
        self._kept_outputs[node] = value

    def _hold_wanted_outputs(self) -> None:
        """At the end of the forward pass: keep the kept outputs some backward or replay will
        read, and let the others go (a policy may select values no backward needs: keeping
        them would only cost memory).  The ledger counts what stays from here on."""
        wanted = self._demand(self._feeds())[2]  # (the values checkpoints nested in it replay from, too)
        self._kept_outputs = _ByNode.of([(n, v) for n, v in self._kept_outputs.items()
                                         if n in wanted and self._takes_kept(n)])
        self._parameter_views = {_ref(n) for n in self._kept_outputs if is_parameter_edge(n)}
        # what the segment keeps instead of what it dropped: the statistics count it as the ledger does
        kept = self._device_kept_outputs()
        held = self._held_anyway  # (a view of what the tape holds anyway, an input's ``v.t()``, costs nothing)
        self.kept_bytes += _new_bytes(self._counted[1], [v for n, v in kept if n not in self._result_bytes
                                                         and id(_base(v)) not in held])
        self._count_kept_results([(n, v) for n, v in kept if n in self._result_bytes])
        if _ledger.enabled:
            to_host = getattr(self.keep, "to_host", False)
            for n, v in self._kept_outputs.items():
                if to_host or not is_parameter_edge(n):  # a parameter's view is not the tape's memory
                    _ledger.hold([v], "host" if to_host else "saved")
        self._outputs_held = True

    def _let_go_held_outputs(self, let_go: list[tuple[Segment, Node, Any]]) -> None:
        """(The root) kept outputs that segments of its tree held since their forward pass ended --
        nested ones, done before the function around them returned (:meth:`_hold_wanted_outputs`)
        -- are let go (see :meth:`drop_unreachable`): the ledger lets go of them as :meth:`_free_kept`
        would, and the statistics take back what they counted as kept (reported already, with
        that segment's forward pass), for the buffers nothing the tree still keeps holds."""
        tree = [self, *self._descendants()]
        still = {id(_base(v)) for seg in tree for v in seg._kept_outputs.values()}
        still.update(id(_base(k.value)) for seg in tree for k in seg.kept)
        for seg, n, v in let_go:
            to_host = getattr(seg.keep, "to_host", False)
            if seg._counted_in_ledger() and (to_host or not is_parameter_edge(n)):
                _ledger.release([v], category="host" if to_host else "saved")
            if to_host or is_parameter_edge(n) or self._counted is None or id(_base(v)) in still:
                continue
            counted = _uncount(self._counted[1], v)
            if n in seg._kept_result_bytes:  # a result again, which its rule counts (see _dead_branch_bytes)
                self._result_bytes[n] = nbytes = seg._kept_result_bytes.pop(n)
                counted -= nbytes
            seg.kept_bytes -= counted
            if seg.stats is not None and seg._reported:
                seg.stats._held_by_the_tape(counted)

    def _count_kept_results(self, results: list[tuple[Node, Any]]) -> None:
        """A result whose op saves it, kept by the policy: the caller holds it, and a run without
        checkpointing holds it as that op's saved output -- so keeping it costs nothing, as not
        dropping it saves nothing.  It counts neither way: not as kept (the segment's own counts
        leave a result out of what it dropped, for its costs warning), nor as a result the plain
        run's tape holds (see _count_again_if_the_tape_holds).  Its buffer is noted as kept, so
        an op after the segment that saves it too changes nothing."""
        for n, v in results:
            self._kept_result_bytes[n] = nbytes = self._result_bytes.pop(n)
            self.kept_bytes += _new_bytes(self._counted[1], [v]) - nbytes

    def keep_result(self, result: Any) -> None:
        """Keep this segment's result for its own replay, where the op that made it saves it.

        A chain block ending in a tanh (whose backward reads its output) would otherwise
        recompute the block's last layer in its replay only to make that output again,
        while the layer after the block held it a moment before.  So the result is kept
        from the forward pass (this segment is outermost) or from the moment an enclosing
        segment's replay computes it, until its node's backward ran; the replay takes it
        as it is and runs none of the ops that only lead to it.  The planner's model
        (``LayerProfile.keeps_output``) counts it as part of what the block keeps.
        """
        node = getattr(result, "_node", None)
        if node is None or node.op.is_view or node.segment is None:
            return
        owner = node.segment
        seg: Segment | None = owner
        while seg is not None and seg is not self:
            seg = seg.parent
        if seg is None or not (node.saved_slots or (False,))[0]:
            return  # made outside this segment, or its op does not save it
        owner._result_nodes.add(node)
        self._block_result = node
        if self.parent is None:
            owner._keep_result(node, result._data)
            if node in owner._kept_outputs:  # the caller holds it: watched as the tree's other kept values
                stale_writes.watch(owner, node.xp.memory_owner(result._data), node)
                _taken_back(result._data)  # kept: the ledger holds it as the plain run's tape does

    def _keep_result(self, node: Node, value: Any) -> None:
        if node in self._kept_outputs or self.freed:
            return
        self._kept_outputs[node] = value
        if _ledger.enabled:
            _ledger.hold([value])

    def _kept_output(self, node: Node) -> Any:
        """A kept output, on the node's device (brought back from the host if offloaded)."""
        value = self._kept_outputs[node]
        if getattr(self.keep, "to_host", False):
            return node.xp.asarray(value) if node.xp.name != "numpy" else value.copy()
        return value

    def returned(self, out: Any) -> Any:
        """Note the tensors in ``out`` (a tensor, or tuples, lists, dicts, dataclasses and other
        objects holding them), what the function run in this segment returned, and give ``out``
        back (front ends call it).

        A segment whose function returns several tensors may see a backward through one of them
        first and through another later, as a run without checkpointing may: what replay needs
        is kept until each returned tensor's node still alive has had its backward (or has died).
        The node, not the tensor: a tensor made from it (``a2 = a * 2; del a``) still reaches it,
        and a backward through that one is still to come; the tree holds its nodes weakly (see
        :meth:`_hold_nodes_weakly`), so a node alive is one something outside the tree reaches.
        Without this call the first backward through the segment frees it.
        """
        root = self._root_segment
        died = _returned_node_died(root)
        for t in _tensors_in(out):
            n = t._node
            if n is not None and n.segment is not None and n.segment._root_segment is root:
                # (weakly: the tree must not hold its nodes, nor itself through the callback)
                insort(root._returned, (n.seq, weakref.ref(n, died)), key=_seq_of_entry)
        return out

    # --------------------------------------------------------------- backward
    def rematerialize(self, node: Node | None = None) -> Any:
        """Replay this segment's recorded ops and fill in its nodes' saved values."""
        if self._raised is not None:
            raise CheckpointError(
                f"checkpointed segment {self.index} ({self.label or 'a function'}) raised {self._raised} in "
                f"its forward pass: there is nothing to replay a backward through its values from")
        if self.freed:
            raise RuntimeError(
                "Trying to backward through a checkpointed segment a second time after its saved "
                "inputs were freed; pass retain_graph=True to the first backward."
            )
        if node is not None and self._refused and node in self._refused:
            raise _afresh(self._refused[node])
        if node is not None and node.saved is not DROPPED:
            return node.saved
        if self._root_segment.recording:
            self._replay_while_recording()
            return self._saved_of(node)
        if self.external - self.boundary.keys():
            if self.parent is None:
                raise CheckpointError("internal error: a segment reads nodes outside its replay range")
            self.parent.rematerialize()  # hands this segment the inputs it replays from
        t0 = time.perf_counter()
        if _ledger.enabled:
            _ledger.set_phase(f"replay:{self.index}")
        feeds = self._feeds()
        _grad_state.recomputing += 1
        try:
            with self.replay_context:
                self._replay(feeds, *self._demand(feeds))
        finally:
            _grad_state.recomputing -= 1
        self.replays += 1
        if _ledger.enabled:
            _ledger.set_phase(f"backward:{self.index}")
        if self.stats is not None:
            self.stats._replayed(time.perf_counter() - t0)
        return self._saved_of(node)

    def replayed_for_a_look(self, node: Node) -> Any:
        """``node``'s saved values, replayed for a look outside backward: PyTorch's ``grad_fn._saved_result``
        (``_saved_self``, a custom Function's ``saved_tensors``) of a checkpointed node recomputes it
        there too.  What the replay made is let go at once, as a backward with ``retain_graph=True``
        lets it go, so the look holds no memory and the backward to come replays as before.  (Inside
        a backward pass the pass lets go of it as it goes.)"""
        root = self._root_segment
        if root._in_backward:
            return self.rematerialize(node)
        phase = getattr(_ledger, "phase", None)
        try:
            return self.rematerialize(node)
        finally:
            for seg in (root, *root._descendants()):
                seg.finish(retain_graph=True)
            if _ledger.enabled and phase is not None:
                _ledger.set_phase(phase)

    def _saved_of(self, node: Node | None) -> Any:
        """``node``'s replayed saved values -- or the error of a node this replay refused (a value
        it holds was written after the forward pass), now that a backward reached it."""
        if node is not None and self._refused and node in self._refused:
            raise _afresh(self._refused[node])
        return None if node is None else node.saved

    def _replay_while_recording(self) -> None:
        """Fill this segment's dropped nodes during the forward pass of its outermost segment.

        A backward pass can run *inside* a checkpointed function: ``mg.func.grad``,
        ``mg.grad`` or ``.backward()`` called there, on values computed there.  The
        segment tree is still being recorded, so its replay range is not known yet;
        what it recorded so far is, and every value it needs is among the outermost
        segment's kept values.  So the replay runs over the whole tree recorded so
        far, as far as this segment's saved values need it.  Nothing is freed while
        the forward pass runs (see :meth:`finish`): its own backward comes later.
        """
        t0 = time.perf_counter()
        whole_range, self.subtree = self.subtree, sorted(self._root_segment._all_nodes(), key=lambda n: n.seq)
        _grad_state.recomputing += 1
        try:
            with self.replay_context:
                self._replay({}, *self._demand({}))
        finally:
            _grad_state.recomputing -= 1
            self.subtree = whole_range
        self.replays += 1
        if self.stats is not None:
            self.stats._replayed(time.perf_counter() - t0)

    def _feeds(self) -> dict[Node, list[Segment]]:
        """Which nested segments read each node: the replay hands them its value."""
        feeds: dict[Node, list[Segment]] = {}
        for c in self.children:
            if c.freed:  # its backward is over: it needs nothing any more
                continue
            for n in c.external:
                if n in self.boundary:  # from further out: pass it down as is
                    c._take_boundary(n, self.boundary[n])
                else:
                    feeds.setdefault(n, []).append(c)
        return feeds

    def _demand(self, feeds: dict[Node, list[Segment]]) -> tuple[set[Node], set[Node], set[Node], set[Node]]:
        """The nodes whose forward the replay must run (found back to front), those it cannot,
        those whose output is wanted (run, or kept from the forward pass), and the nodes of this
        segment it runs for their own saved values alone.

        A node runs if its output is wanted: its own saved output (a node of
        this segment whose backward is still to come), an input a running node
        reads, an input a node of this segment saves, a value a nested segment
        replays from, or a checksum to compare.  Everything else is skipped --
        the last layer of a segment whose backward reads only its input, and
        the nodes of a nested segment whose output nothing here reads (that
        segment replays them itself, so computing them here would be waste) --
        and every node whose output a ``remat`` policy kept: it is taken as is.
        """
        # A nested segment whose backward is over (freed), and what depends on it: those
        # nodes all come later on the tape, so no backward still to run needs them.
        subtree = list(self.subtree)  # (held while the replay runs)
        dead: set[Node] = set()
        for n in subtree:
            if n.replay is None or any(type(s) is Node and s in dead for s in n.replay):
                dead.add(n)
        run: set[Node] = set()
        wanted: set[Node] = set(feeds)
        wanted.update(self.checksums)
        # the results the blocks nested right inside keep: computed here (unless kept already) and
        # handed over (deeper ones get theirs when the block around them replays)
        wanted.update(r for r in self._child_results() if r not in dead)
        own_only: set[Node] = set()
        for n in reversed(subtree):
            if n in dead:
                continue
            mine = n.segment is self and n.saved is DROPPED
            if mine and n not in wanted:  # (its readers all came before, back to front)
                own_only.add(n)
            if mine and n.saved_slots[0]:
                wanted.add(n)
            if n in wanted and not n.segment._takes_kept(n):
                run.add(n)
            slots = n.saved_slots[1:] if mine else ()
            for j, src in enumerate(n.replay):
                if type(src) is Node and (n in run or (j < len(slots) and slots[j])):
                    wanted.add(src)
        return run, dead, wanted, own_only

    def _child_results(self) -> set[Node]:
        return {c._block_result for c in self.children if not c.freed and c._block_result is not None}

    def _replay(self, feeds: dict[Node, list[Segment]], run: set[Node], dead: set[Node],
                wanted: set[Node], own_only: set[Node]) -> None:
        """Run the demanded nodes in recording order; fill this segment's nodes' saved values."""
        values: dict[Node, Any] = {}
        child_results = self._child_results()
        subtree = list(self.subtree)  # (held while the replay runs)
        last_use: dict[Node, int] = {}  # a replayed value is let go after its last reader
        for pos, n in enumerate(subtree):
            for src in n.replay or ():
                if type(src) is Node:
                    last_use[src] = pos
        for pos, n in enumerate(subtree):
            mine = n.segment is self and n.saved is DROPPED and n not in dead
            if mine and n in own_only and self._refused_until_reached(n, n in run):
                mine = False  # not filled: the error comes if a backward reaches it (rematerialize)
            elif n in run or mine or n in wanted:
                ins = self._inputs(n, values, n in run) if n in run or mine else []
                if n in run:
                    out = self._forward(n, ins)
                    if n in child_results and n not in n.segment._kept_outputs:
                        n.segment._keep_result(n, out)
                        n.segment._replayed_results.add(n)
                else:  # kept by a remat policy if wanted, else not needed
                    out = n.segment._kept_output(n) if n in wanted and n not in dead else None
                if mine:
                    self._fill_saved(n, out, ins)
                if n in last_use and out is not None:
                    values[n] = out
                for c in feeds.get(n, ()):
                    c._take_boundary(n, out)
            for src in n.replay or ():
                if type(src) is Node and last_use[src] == pos:
                    values.pop(src, None)

    def _inputs(self, n: Node, values: dict[Node, Any], runs: bool) -> list:
        """The inputs of ``n`` its replay reads: all of them if it runs, else those it saves (the
        others may have been written since: its backward never reads them)."""
        if runs:
            return [self._input(n, src, values) for src in n.replay]
        return [self._input(n, src, values) if saved else None
                for src, saved in zip(n.replay, n.saved_slots[1:])]

    def _input(self, n: Node, src: Any, values: dict[Node, Any]) -> Any:
        """The value input ``src`` of node ``n`` replays from (None where it was not needed)."""
        if type(src) is Node:
            if src in values:
                return values[src]
            return self.boundary.get(src)
        error = _stale_kept_value(n, src)
        if error is not None:
            try:
                raise error
            finally:  # (its traceback holds this frame: a reference cycle, with the graph in it)
                del error
        return src.value

    def _refused_until_reached(self, n: Node, runs: bool) -> bool:
        """Whether replaying ``n`` -- a node of this segment that nothing else here reads, replayed
        only for its own saved values -- would be refused: a value it reads or holds was written in
        place after the forward pass.  Then the error waits for a backward that reaches ``n``, as a
        run without checkpointing raises it only there: a branch whose result was dropped (``p =
        x.softmax(-1); p[0].mul_(2)``, and ``p`` not in what the function returns) is never reached."""
        error = None
        if runs:
            error = next((_version_error(n) for box in n.versions if box[0] > n.seq), None)
        for src, saved in zip(n.replay, n.saved_slots[1:]):
            if error is None and type(src) is not Node and (runs or saved):  # (a value it neither
                error = _stale_kept_value(n, src)  # reads again nor holds: a view's input, say)
        if error is not None:
            self._refused[n] = error
        return error is not None

    def _forward(self, n: Node, ins: list) -> Any:
        """``n``'s op run again on ``ins``, checked against what the forward pass produced."""
        for box in n.versions:  # e.g. an index tensor the op holds, changed in place since
            if box[0] > n.seq:
                raise _version_error(n)
        out = n.op.forward(n.xp, *ins)
        if self.stats is not None:
            self.stats._op_replayed()
        out = n.xp.as_array(out)
        self._check_saved_intermediates(n)
        if tuple(out.shape) != n.shape or out.dtype != n.dtype:
            raise CheckpointError(
                f"replay of checkpointed segment {self.index} diverged at node #{n.seq} "
                f"({n.op!r}): the forward pass produced {n.dtype} {n.shape}, the replay "
                f"{out.dtype} {tuple(out.shape)}"
            )
        if _tape._anomaly is not None:  # mg.detect_anomaly(): a NaN/inf only the replay makes
            _tape._anomaly.replay(self, n, ins, out)
        if n in self.checksums and _checksum(out) != self.checksums[n]:
            raise CheckpointError(
                f"replay of checkpointed segment {self.index} diverged at node #{n.seq} "
                f"({n.op.name}): same shape, different values (determinism_check='value')"
            )
        return out

    def _check_saved_intermediates(self, n: Node) -> None:
        """A custom Function's ``forward``, run again, must save what it saved in the forward pass: as
        many tensors, those it made of the same shapes and dtypes (and, with ``"value"``, bytes).
        ``"none"`` takes what the replay saved, as PyTorch's does."""
        divergence = getattr(n.op, "replay_divergence", None) if self.check != "none" else None
        if divergence is None and n in self.saved_checksums:
            if [_checksum(a) for a in n.op.saved_intermediates()] != self.saved_checksums[n]:
                divergence = "a tensor save_for_backward saved has other values (determinism_check='value')"
        if divergence is not None:
            raise CheckpointError(f"replay of checkpointed segment {self.index} diverged at node #{n.seq} "
                                  f"({n.op!r}): {divergence}")

    def _take_boundary(self, n: Node, value: Any) -> None:
        """An enclosing segment's replay hands over ``n``'s value, which this segment
        replays from: held (and counted by the ledger) until this segment's backward ends --
        but a parameter's view (``w.t()``), whose memory exists whatever the tape does."""
        if n in self.boundary:
            return
        self.boundary[n] = value
        if _ledger.enabled and hasattr(value, "nbytes") and not is_parameter_edge(n):
            _ledger.hold([value])

    def _drop_boundary(self) -> None:
        if _ledger.enabled:
            _ledger.release([v for n, v in self.boundary.items() if hasattr(v, "nbytes") and not is_parameter_edge(n)])
        self.boundary.clear()

    def _fill_saved(self, n: Node, out: Any, ins: list) -> None:
        """``n.saved`` from replayed values: the slots the tape saved when it recorded ``n`` -- through
        the saved-tensor hooks active then, if any (pack now, unpack as backward reads them), so a
        hook that changes values gives the gradients of a run without checkpointing."""
        saved = tuple(v if kept else None for v, kept in zip((out, *ins), n.saved_slots))
        hooks = n.saved_hooks
        n.saved = saved if hooks is None else PackedSaved.packing(saved, *hooks)
        if hooks is not None and hasattr(n.op, "pack_intermediates"):  # a custom Function's, rebuilt by the replay
            n.op.pack_intermediates(*hooks)
        if _ledger.enabled:
            _ledger.hold(saved_arrays(n), "saved", n)

    def release(self, node: Node, retain_graph: bool, ran: bool = True) -> None:
        """Drop the replayed values of ``node`` once its backward has run (and its kept
        result: no replay needs it any more).  Without ``retain_graph`` the node is
        ``FREED`` even if it never replayed (reached with no gradient): a second
        backward through it is an error, as without checkpointing.  ``ran``: False where
        the end of a pass releases the nodes it did not reach."""
        self._root_segment._in_backward = True
        if self._saves_nothing(node):  # as without checkpointing: releasing it frees nothing, so it keeps
            # its empty slots and a second backward through it runs (two outputs of the function that share
            # it, each backwarded on its own); no replay ever needs to fill it
            if _replayed(node) and _ledger.enabled:
                _ledger.release(saved_arrays(node), node)
            node.saved = (None,) * len(node.saved_slots)
            if ran and not retain_graph:  # its backward is over: no wait for it (see _awaits_backward)
                self._root_segment._passed_empty.add(node)
        elif _replayed(node):
            if _ledger.enabled:
                _ledger.release(saved_arrays(node), node)
            node.saved = DROPPED if retain_graph else FREED
        elif node.saved is DROPPED and not retain_graph:
            node.saved = FREED
        if self._result_nodes and node in self._result_nodes and (not retain_graph or node in self._replayed_results):
            self._replayed_results.discard(node)
            value = self._kept_outputs.pop(node, None)
            if value is not None and _ledger.enabled:
                _ledger.release([value])

    def _saves_nothing(self, node: Node) -> bool:
        """Whether ``node`` saved no value and watches no version (``x + 1``, a reshape, a sum)."""
        slots = node.saved_slots
        return slots is not None and not any(slots) and not node.versions

    def backward_done(self, retain_graph: bool) -> None:
        """The engine passed this segment's first node: nothing here is needed any more by
        this pass (a later one may still need it: see :meth:`_end_of_backward`)."""
        self._end_of_backward(retain_graph)
        if self.stats is not None:
            self.stats._backward_done(self)

    def finish(self, retain_graph: bool) -> None:
        """End of a backward pass: release anything a pruned backward left behind.

        A backward pass inside the forward pass (:meth:`_replay_while_recording`)
        releases what it did not reach as if it retained the graph: the
        checkpointed function goes on, and the backward of its result needs it all.
        """
        self._end_of_backward(retain_graph)
        self._root_segment._in_backward = False

    def _end_of_backward(self, retain_graph: bool) -> None:
        """Release the replayed values of this segment's nodes; without ``retain_graph`` also
        what replay starts from -- unless a tensor the tree returned, still alive, has its
        backward to come (then the nodes this pass did not reach are ``DROPPED`` again)."""
        retain_graph = retain_graph or self._root_segment.recording
        awaited = not retain_graph and self._awaits_backward()
        for n in self.nodes:
            self.release(n, retain_graph or awaited, ran=False)
        self._drop_boundary()
        if awaited:
            self._root_segment._waiting = True
        elif not retain_graph:
            self._free_tree()

    def _awaits_backward(self) -> bool:
        """Whether a tensor the tree returned is alive with its backward to come, and may reach
        this segment: made at or after its first node (an earlier one cannot read its nodes).
        In one pass through them all, each is freed before the pass gets to this segment's
        first node, so the segment is freed there, as without several outputs."""
        root, first_seq = self._root_segment, self._first_seq
        # (The list is in recording order, so the latest tensor still waiting decides: made at or
        # after the first node, it may read this segment; made before, so were all the others.
        # Those done with for good come off the top: a chain of many blocks nested in one asks
        # once per block, in constant time -- a scan of the list made it quadratic.)
        waiting = root._returned  # in recording order: the latest on top
        while waiting and ((n := waiting[-1][1]()) is None or n.saved is FREED or n in root._passed_empty):
            waiting.pop()  # backwarded, or dead: for good
        return first_seq is not None and bool(waiting) and waiting[-1][0] >= first_seq

    def _free_tree(self) -> None:
        """Free this segment and the ones nested in it (those a later pass only would have reached)."""
        self._free_kept()
        for c in self._descendants():
            if not c.freed:
                c._drop_boundary()
                c._free_kept()

    def _returned_node_died(self, ref: weakref.ref) -> None:
        """(On the root) a returned tensor's node died: if the tree waited for its backward alone,
        what replay needs goes now rather than when the garbage collector finds the tree."""
        if self._waiting and not self.freed and not self._in_backward and not self._awaits_backward():
            self._free_tree()

    def __del__(self) -> None:
        # A graph dropped without its backward (a forward under grad mode whose result is thrown
        # away): the segment holds nothing any more, and statistics().active_checkpoints and the
        # ledger say so -- its backward would have freed it.
        if not getattr(self, "freed", True) and not getattr(self, "recording", False):
            try:
                self._drop_boundary()
                self._free_kept()
            except Exception:  # noqa: S110 -- at interpreter exit the modules it reaches may be gone
                pass

    def _free_kept(self) -> None:
        if self.freed:
            return
        self.freed = True
        if self._watched_memory:
            stale_writes.unwatch(self)
        if self.parent is None and _counted_buffers:
            _stop_counting(self.index)
        if self._counted_in_ledger():
            _ledger.release([k.value for k in self.kept if not k.param])
            to_host = getattr(self.keep, "to_host", False)
            outputs = [v for n, v in self._kept_outputs.items() if not is_parameter_edge(n) or to_host]
            # (and those of nodes that died before the segment: a graph dropped without its backward)
            outputs += [v for r, v in self._kept_outputs.dead_items() if r not in self._parameter_views or to_host]
            _ledger.release(outputs, category="host" if to_host else "saved")
        self.kept = []
        self._kept_outputs.clear()
        self._refused.clear()
        for n in self.nodes:
            if _replayed(n) and _ledger.enabled:  # replayed, and its backward never came
                _ledger.release(saved_arrays(n), n)
            # (a node that saved nothing stays runnable, as without checkpointing: see release)
            n.saved = (None,) * len(n.saved_slots) if self._saves_nothing(n) else FREED
            n.replay = None
        if self.stats is not None and self._reported:
            self.stats._freed(self)

    def __repr__(self) -> str:
        return (f"Segment({self.index}{', ' + self.label if self.label else ''}: {len(self.nodes)} nodes, "
                f"{len(self.kept)} kept values, {self.replays} replays)")


# Buffers a segment tree counted as kept (+ their bytes) or dropped (-) in its statistics, by id:
# (weak buffer, bytes, statistics, the root segment's index). A node recorded later outside any segment that saves one
# makes the ledger hold it in both runs: the statistics take it back (see _count_again_if_the_tape_holds).
_counted_buffers: dict[int, tuple[Any, int, Any, int]] = {}


def _count_again_if_the_tape_holds(root: Segment) -> None:
    """(At the root's exit, while the ledger tracks) Watch the buffers the tree's statistics
    counted, until backward begins.

    The statistics say what the ledger holds less at the end of the forward pass, but a
    segment's exit is not the end: an op after it may save a kept buffer (``y @ w`` where ``y``
    is a view of the segment's input, the result of a segment of views) -- kept then costs
    nothing -- or a dropped one (the input, read again; the tree's result) -- dropping it then
    saves nothing.  The tree's results whose ops save them count as dropped here (a plain run's
    tape holds them; the segments' own counts leave them out, for their costs warning: the
    caller holds a result whatever the tape does) until an op after it saves them too.

    The tape then calls a hook for every op it records outside segments (~0.4 us an op, a
    quarter of a small op's cost): paid only while ``mg.memory.track()`` is on -- it already
    pays as much for each op -- and otherwise the statistics are the segments' own counts.
    """
    if _tape._after_segment is None:  # a backward pass ended the previous forward pass
        _counted_buffers.clear()
        _tape.set_after_segment(_taken_back_if_saved)
    dropped, kept = root._counted
    live = _live_nodes(root)
    root.stats._held_by_the_tape(sum(nbytes for n, nbytes in root._result_bytes.items() if n in live)
                                 - _dead_branch_bytes(root, live, dropped))
    signed: dict[int, list] = {}
    for sign, counted in ((-1, dropped), (1, kept)):
        for key, ref in counted.items():
            b = ref()
            if b is not None:
                signed.setdefault(key, [ref, 0])[1] += sign * int(b.nbytes)
    for key, (ref, nbytes) in signed.items():
        if not nbytes:
            continue
        hit = _counted_buffers.get(key)
        if hit is not None and hit[3] != root.index and hit[0]() is ref() and (hit[1] > 0) == (nbytes > 0):
            # another tree, still alive, counted this buffer the same way (kept by both: a segment
            # of views, then one reading its result): the ledger holds it once, so it counts once
            root.stats._held_by_the_tape(nbytes)
            continue
        _counted_buffers[key] = (ref, nbytes, root.stats, root.index)


def _live_nodes(root: Segment) -> set[Node]:
    """The nodes of the tree a run without checkpointing still holds once the function returned:
    those whose output memory is alive (a tensor it returned, one it kept somewhere), and the
    nodes they read.  The others -- a value computed and dropped, a branch nothing returned
    depends on -- died with their tensors there, and what they saved with them."""
    live: set[Node] = set()
    saves = root._saves
    for n in reversed(root.subtree):
        if n in live or n not in saves or _alive(saves[n][0]):  # (not noted: the ledger came later)
            live.add(n)
            live.update(src for src in n.replay or () if type(src) is Node)
            live.update(e for e in n.inputs if type(e) is Node)
    return live


def _dead_branch_bytes(root: Segment, live: set[Node], dropped: dict) -> int:
    """The bytes the tree counted as dropped that only nodes a run without checkpointing no longer
    holds saved (see _live_nodes): not saving them saved nothing.  Taken out of ``dropped``.
    (A result's output is the results' own rule: counted only if its node lives.)"""
    held = set()  # (a buffer's weak reference is one object for every node that saves it)
    for n, (_, out, ins) in root._saves.items():
        if n in live or n in root._result_bytes:  # (a result's output: left to the results' rule)
            held.update(id(e[0]) for e in (out + ins if n in live else out) if e is not None)
    dead: dict[int, int] = {}
    for n, (_, out, ins) in root._saves.items():
        if n not in live:
            for e in out + ins:
                if e is not None and id(e[0]) not in held and dropped.get(e[1]) is e[0]:
                    dead[e[1]] = e[2]  # (counted as dropped: this buffer, not a later one of its id)
    for key in dead:
        del dropped[key]
    return sum(dead.values())


def _stop_counting(root_index: int) -> None:
    """A tree let its kept values go (its backward, or its graph dropped): its buffers are done
    with, and with the last of them the tape stops calling the hook (one call per op saved)."""
    for key in [k for k, hit in _counted_buffers.items() if hit[3] == root_index]:
        del _counted_buffers[key]
    if not _counted_buffers:
        _tape.set_after_segment(None)


def _taken_back_if_saved(node: Node) -> None:
    """The tape's hook for a node recorded outside any segment (see _count_again_if_the_tape_holds)."""
    if _counted_buffers:  # (once per op until backward: the common miss costs a look-up per slot)
        for a in node.saved:
            base = getattr(a, "base", None)
            if id(a if base is None else _base(base)) in _counted_buffers:
                _taken_back(a)


def _taken_back(value: Any) -> None:
    """The tape holds ``value`` in both runs now: its buffer counts neither way any more."""
    b = _base(value)
    hit = _counted_buffers.pop(id(b), None)
    if hit is not None and hit[0]() is b:
        hit[2]._held_by_the_tape(hit[1])


def _tape_holds(node: Node, value: Any) -> bool:
    """Whether the tape holds ``value`` anyway: as the output ``node`` (recorded outside the
    segment tree) saved, or kept as a chain block's result."""
    saved = node.saved
    if type(saved) is tuple:
        return bool(saved) and saved[0] is not None and _base(saved[0]) is _base(value)
    seg = node.segment
    # (a policy's kept output, while its segment records, may still be let go at its end: not yet)
    settled = seg is not None and (node in seg._result_nodes or not seg.recording)
    kept = seg._kept_outputs.get(node) if settled and not getattr(seg.keep, "to_host", False) else None
    return kept is not None and _base(kept) is _base(value)


def _reached_from(alive: set[Node], nodes: list[Node]) -> set[Node]:
    """``alive`` and the nodes they replay from or backward to, among ``nodes`` (in tape order)."""
    live: set[Node] = set()
    for n in reversed(nodes):
        if n in live or n in alive:  # (what it replays from, and what its backward reaches)
            live.add(n)
            live.update(src for src in n.replay if type(src) is Node)
            live.update(e for e in n.inputs if type(e) is Node)
    return live


def _weak_or_none(a: Any) -> weakref.ref | None:
    """A weak reference to ``a``, or None where ``a`` takes none (see :func:`_alive`)."""
    try:
        return weakref.ref(a)
    except TypeError:
        return None


def _alive(ref: weakref.ref | None) -> bool:
    """Whether what ``ref`` refers to is alive (None, no reference to tell: taken as alive)."""
    return ref is None or ref() is not None


def _weak(a: Any) -> Any:
    """A weak reference to ``a`` (one that holds it, where ``a`` takes none)."""
    try:
        return weakref.ref(a)
    except TypeError:
        return lambda: a


def _new_bytes(counted: dict, arrays: list) -> int:
    """Bytes of the buffers of ``arrays`` not in ``counted`` yet (``id -> weak reference``,
    so a new array that reuses a dead one's id is still counted)."""
    n = 0
    for a in arrays:
        b = _base(a)
        seen = counted.get(id(b))
        if seen is not None and seen() is b:
            continue
        try:
            counted[id(b)] = weakref.ref(b)
        except TypeError:  # not weakly referenceable (a NumPy scalar): count it each time
            pass
        n += int(b.nbytes)
    return n


def _uncount(counted: dict, value: Any) -> int:
    """Take ``value``'s buffer out of ``counted`` (see :func:`_new_bytes`): its bytes, or 0 if it
    was not in it."""
    b = _base(value)
    seen = counted.get(id(b))
    if seen is None or seen() is not b:
        return 0
    del counted[id(b)]
    return int(b.nbytes)


def _seq_of_entry(entry: tuple[int, Any]) -> int:
    return entry[0]


def _returned_node_died(root: Segment) -> Any:
    """The callback for the death of the node of a tensor ``root``'s tree returned: it holds
    ``root`` weakly."""
    root_ref = _ref(root)

    def died(ref: weakref.ref) -> None:
        seg = root_ref()
        if seg is not None:
            seg._returned_node_died(ref)
    return died


def _tensors_in(out: Any) -> list[Tensor]:
    """The tensors in ``out``, as far as its containers reach: tuples, lists, sets, mappings'
    values, and the fields of dataclasses and other plain objects -- a function may return its
    results in any of them, and a later backward through each must find the segment waiting, as
    PyTorch's checkpoint does.  Callables (a module's tensors are its parameters, never results),
    classes and Python modules are not entered; each object is visited once (cycles)."""
    found: list[Tensor] = []
    stack, seen = [out], set()
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            found.append(x)
        elif isinstance(x, _SCALARS) or id(x) in seen:
            continue
        elif isinstance(x, (tuple, list, set, frozenset, collections.deque)):
            seen.add(id(x))
            stack.extend(x)
        elif isinstance(x, Mapping):
            seen.add(id(x))
            stack.extend(x.values())
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            seen.add(id(x))
            stack.extend(getattr(x, f.name, None) for f in dataclasses.fields(x))
        elif hasattr(x, "__dict__") and not callable(x) and not isinstance(x, types.ModuleType):
            seen.add(id(x))
            stack.extend(vars(x).values())
    return found


_SCALARS = (str, bytes, int, float, complex, type(None))


def _replayed(node: Node) -> bool:
    """Whether ``node`` holds values a replay filled in (as they are, or packed by saved-tensor hooks)."""
    kind = type(node.saved)
    return kind is tuple or kind is PackedSaved


def _checksum(a: Any) -> int:
    return zlib.crc32(to_host(a).tobytes())


def _afresh(error: Exception) -> Exception:
    """A new exception like ``error``, which the segment keeps to raise when a backward reaches its
    node: raising the kept one would give it a traceback, whose frames hold the segment that holds
    it -- a reference cycle keeping the graph until the garbage collector runs."""
    return type(error)(*error.args)


def _stale_kept_value(n: Node, src: _Kept) -> CheckpointError | None:
    """The error replaying node ``n`` from kept value ``src`` meets if ``src`` was written in
    place after the forward pass (None if it was not)."""
    if src.box is not None and src.box[0] > n.seq:
        return CheckpointError(
            f"a value that checkpointed node #{n.seq} ({n.op.name}) replays from was "
            f"modified in place after the forward pass; replaying would give different results"
        )
    if src.written:
        return CheckpointError(
            f"a value that checkpointed node #{n.seq} ({n.op.name}) replays from was written "
            f"after the forward pass through an alias its version counter does not see (.data, "
            f"or a tensor sharing its memory); replaying would recompute the forward pass from the "
            f"new values. Compute on a copy, or make the change after backward"
        )
    return None
