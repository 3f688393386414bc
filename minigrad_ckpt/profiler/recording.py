"""How the profiler times the engine: wrappers swapped onto the classes while a profiler records.

The hot path rule says an engine without a profiler must not pay for one, not even one read
per op.  So nothing in ``tape.apply`` or the backward loop knows about profiling: while at
least one profiler is active (in any thread), :func:`install` replaces the methods that do
the work with timing wrappers --

* ``forward`` of every op class (an event ``aten::mul``, named as PyTorch names its operator),
* ``backward`` of every op class (``autograd::engine::evaluate_function: MulBackward0`` around
  ``MulBackward0``, the name ``grad_fn.name()`` gives),
* the backward pass's ``accumulate_leaf`` (``torch::autograd::AccumulateGrad``, as PyTorch's; one
  per gradient a leaf receives, where PyTorch sums them first and accumulates once),
* ``step`` and ``zero_grad`` of every optimizer (``Optimizer.step#SGD.step``),
* a checkpoint segment's ``rematerialize`` (``checkpoint::recompute``: the replayed forwards
  inside it are the recomputation),
* the process group's collectives, named as PyTorch names its backends' (``gloo:all_reduce``):
  ``mpi:all_reduce``, ``mpi:broadcast``, ... -- ``nccl:`` on the GPU backend -- with the time a rank
  spends waiting for one as ``mpi:wait`` inside it; a ``DistributedDataParallel`` bucket summed in
  shared memory is ``shared_memory:all_reduce``; ``DistributedDataParallel.forward`` as PyTorch's,

and :func:`uninstall` puts back exactly what was there (a class that inherited the method
inherits it again) when the last profiler stops, an escaping exception included.

A wrapper on a class whose subclass has its own wrapper lets the call through (a ``super()``
call is one event, not two).  Recording is per thread, as PyTorch's: a profiler records the
thread that started it, and ops other threads run meanwhile pass through untimed.

Times come from :data:`clock` (``time.perf_counter_ns``); tests replace it with a fake one.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .events import BACKWARD_FUNCTION, FUNCTION, USER_SCOPE

__all__ = ["clock", "Collector", "Range", "begin", "end", "install", "uninstall", "forward_name", "record_function"]

#: The profiler's clock, in nanoseconds (replaced by tests with a fake one).
clock: Callable[[], int] = time.perf_counter_ns


class _Thread(threading.local):
    def __init__(self) -> None:
        self.collectors: tuple[Collector, ...] = ()  # the profilers recording in this thread
        self.open: list[Range] = []                    # the ranges open in this thread, innermost last


_local = _Thread()


class Range:
    """One open or finished range, as recorded (the profiler turns it into a ``FunctionEvent``)."""

    __slots__ = ("name", "trace_name", "start", "end", "parent", "shapes", "own_bytes", "stack", "scope",
                 "collectors", "thread", "user", "memory")

    def __init__(self, name: str, scope: int, user: bool = False, trace_name: str | None = None) -> None:
        self.name, self.scope, self.user, self.trace_name = name, scope, user, trace_name
        self.shapes: list | None = None
        self.own_bytes = 0  # bytes of the arrays this range made itself (its children count theirs)
        self.stack: list[str] | None = None
        self.end: int | None = None


class Collector:
    """One profiler's recording in one thread: the finished ranges, and what to note of each."""

    def __init__(self, record_shapes: bool = False, profile_memory: bool = False, with_stack: bool = False) -> None:
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.ranges: list[Range] = []
        self.thread = threading.get_native_id()
        self.recording = False

    def start(self) -> None:
        """Record this thread's ranges from now on."""
        if self.recording:
            return
        install()
        self.recording = True
        _local.collectors = (*_local.collectors, self)

    def stop(self) -> None:
        """Stop recording (ranges still open are not kept); safe to call twice."""
        if not self.recording:
            return
        self.recording = False
        _local.collectors = tuple(c for c in _local.collectors if c is not self)
        uninstall()


def begin(name: str, scope: int = FUNCTION, inputs: Any = None, user: bool = False,
          trace_name: str | None = None) -> Range:
    """Open a range in this thread (``inputs``: what to take shapes of, where asked)."""
    r = Range(name, scope, user, trace_name)
    collectors = r.collectors = _local.collectors
    r.memory = any(c.profile_memory for c in collectors)
    if inputs is not None and any(c.record_shapes for c in collectors):
        r.shapes = [list(a.shape) if hasattr(a, "shape") else [] for a in inputs]
    if any(c.with_stack for c in collectors):
        r.stack = _user_stack()
    stack = _local.open
    r.parent = stack[-1] if stack else None
    r.thread = threading.get_native_id()
    stack.append(r)
    r.start = clock()
    return r


def end(r: Range) -> None:
    """Close ``r`` (and any range opened inside it and left open: an exception skipped its end)."""
    now = clock()
    stack = _local.open
    if r.end is not None or r not in stack:  # (closed already, with an outer range an exception skipped)
        return
    while stack:
        top = stack.pop()
        top.end = now
        for c in top.collectors:
            if c.recording:
                c.ranges.append(top)
        if top is r:
            break


def _user_stack() -> list[str]:
    """The Python stack outside the engine, innermost first, as PyTorch writes it: ``file(line): function``."""
    frames = traceback.extract_stack()[:-3]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames) if _PACKAGE not in f.filename]


_PACKAGE = str(Path(__file__).resolve().parents[1])


def _nbytes(value: Any) -> int:
    """Bytes of an array (or a Tensor, or a tuple of them); 0 for anything else."""
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    n = getattr(value, "nbytes", 0)
    return n if isinstance(n, int) else 0


def _made_bytes(out: Any, inputs: tuple) -> int:
    """Bytes of the array a forward made: none for a view of one of its inputs (a reshape, a
    slice), whose memory the input already holds -- PyTorch's count for a view is 0 too."""
    base = getattr(out, "base", None)
    if base is not None:
        owners = {id(a) for a in inputs} | {id(b) for a in inputs if (b := getattr(a, "base", None)) is not None}
        while base is not None:
            if id(base) in owners:
                return 0
            base = getattr(base, "base", None)
    return _nbytes(out)


def _new_bytes(grads: Any, g: Any) -> int:
    """Bytes of the gradients a backward made: each array once, ``g`` passed on as it is not at all."""
    seen = {id(g)}
    total = 0
    for gi in grads if isinstance(grads, tuple) else (grads,):
        if id(gi) not in seen:
            seen.add(id(gi))
            total += _nbytes(gi)
    return total


# ---------------------------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------------------------
#: Op classes whose PyTorch operator is not their class name in snake case.
_ATEN_NAMES = {
    "MatMul": "matmul", "Concatenate": "cat", "Clip": "clamp", "AsType": "to", "ToDevice": "to",
    "BroadcastTo": "expand", "SumTo": "sum_to_size", "GetItem": "index", "GetItemCopy": "index",
    "Transpose": "permute", "Mod": "remainder", "Equal": "eq", "NotEqual": "ne", "Greater": "gt",
    "GreaterEqual": "ge", "Less": "lt", "LessEqual": "le", "Gammaln": "lgamma", "Gammainc": "igamma",
    "Gammaincc": "igammac", "TakeAlongAxis": "gather", "TakeAlongAxisOnGraph": "gather",
    "ScatterAlongAxis": "scatter", "SoftmaxCrossEntropy": "cross_entropy_loss", "MSELoss": "mse_loss",
    "L1Loss": "l1_loss", "LogSumExp": "logsumexp", "LogAddExp": "logaddexp", "LogAddExp2": "logaddexp2",
    "CumSum": "cumsum", "CumProd": "cumprod", "ArgMax": "argmax", "ArgMin": "argmin", "ArgSort": "argsort",
    "HardTanh": "hardtanh", "PRelu": "prelu", "Conv2d": "conv2d", "MaxPool2d": "max_pool2d",
    "MulInFloat32": "mul", "DivInFloat32": "div", "LerpByTensor": "lerp", "VectorNorm": "linalg_vector_norm",
    "Det": "linalg_det", "SlogDet": "linalg_slogdet", "Inv": "linalg_inv", "Pinv": "linalg_pinv",
    "Cholesky": "linalg_cholesky", "Solve": "linalg_solve", "Svd": "linalg_svd", "Qr": "linalg_qr",
    "Eig": "linalg_eig", "Eigh": "linalg_eigh", "MatrixExp": "linalg_matrix_exp", "FFT": "fft_fft",
    "RFFT": "fft_rfft", "IRFFT": "fft_irfft", "ViewAsReal": "view_as_real", "ViewAsComplex": "view_as_complex",
    "IsNan": "isnan", "IsFinite": "isfinite", "GRUCell": "gru_cell", "LSTMCellStep": "lstm_cell",
    "CTCNegLogLikelihood": "ctc_loss", "ComplexAbs": "abs", "RealAngle": "angle", "I0e": "special_i0e",
    "I1": "special_i1", "I1e": "special_i1e", "Erfcx": "special_erfcx", "Entr": "special_entr",
    "Xlog1py": "special_xlog1py", "Zeta": "special_zeta", "FloorDivide": "floor_divide",
}


def forward_name(op_class: type) -> str:
    """The name of ``op_class``'s forward event: PyTorch's operator (``aten::mul``, ``aten::matmul``,
    ``aten::acos``), or for an op of this engine alone its name in snake case with ``aten::``."""
    name = op_class.__dict__.get("name", op_class.__name__)
    if not isinstance(name, str):
        name = op_class.__name__
    aten = _ATEN_NAMES.get(name)
    if aten is None:
        aten = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", re.sub(r"^Arc", "A", name)).lower()
    return "aten::" + aten


def backward_name(op: Any) -> str:
    """The name ``grad_fn.name()`` gives a node of ``op`` (``MulBackward0``; a custom Function's
    ``ExpBackward``)."""
    own = getattr(op, "grad_fn_name", None)
    return own if own is not None else f"{type(op).__name__}Backward0"


# ---------------------------------------------------------------------------------------------
# Swapping the wrappers in and out
# ---------------------------------------------------------------------------------------------
_MISSING = object()
_lock = threading.Lock()
_users = 0
#: (class, attribute, what its ``__dict__`` held: the original or _MISSING) for each wrapper installed.
_swapped: list[tuple[type, str, Any]] = []
#: class -> the nearest class in its MRO wrapped for an attribute (the wrapper that records).
_owners: dict[tuple[type, str], type | None] = {}


def _subclasses(root: type) -> list[type]:
    seen, todo = [], [root]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return seen


def _owner(cls: type, attribute: str) -> type | None:
    key = (cls, attribute)
    owner = _owners.get(key, _MISSING)
    if owner is _MISSING:
        owner = _owners[key] = next((k for k in cls.__mro__ if getattr(k.__dict__.get(attribute), "_profiled", False)),
                                    None)
    return owner


def _swap(classes: list[type], attribute: str, make: Callable[[type, Callable], Callable]) -> None:
    originals = [(cls, cls.__dict__.get(attribute, _MISSING), getattr(cls, attribute, None)) for cls in classes]
    for cls, own, resolved in originals:
        if resolved is None or not callable(resolved):
            continue
        wrapper = make(cls, resolved)
        wrapper._profiled = True
        wrapper.__wrapped__ = resolved
        wrapper.__name__ = getattr(resolved, "__name__", attribute)
        wrapper.__doc__ = getattr(resolved, "__doc__", None)
        setattr(cls, attribute, wrapper)
        _swapped.append((cls, attribute, own))


def install() -> None:
    """Put the timing wrappers on (once, however many profilers are active)."""
    global _users
    with _lock:
        _users += 1
        if _users > 1:
            return
        from ..autograd.function import FunctionNode
        from ..backward import BackwardPass
        from ..checkpoint.segment import Segment
        from ..ops.base import Op
        from ..optim.optimizer import Optimizer
        try:
            ops = _subclasses(Op)
            _swap(ops, "forward", lambda cls, f: _timed_forward(cls, f, FunctionNode))
            _swap(ops, "backward", _timed_backward)
            _swap(_subclasses(BackwardPass), "accumulate_leaf", _timed_accumulate)
            optimizers = _subclasses(Optimizer)
            _swap(optimizers, "step", lambda cls, f: _timed_method(cls, f, "step"))
            _swap(optimizers, "zero_grad", lambda cls, f: _timed_method(cls, f, "zero_grad"))
            _swap(_subclasses(Segment), "rematerialize", _timed_replay)
            _install_collectives()
        except BaseException:
            _restore()
            _users -= 1
            raise


#: The process group's methods that talk to other ranks, with the collective each is (the event
#: ``<backend>:<collective>``); ``iall_reduce`` starts a sum that a later ``wait`` finishes.
_COLLECTIVES = {"all_reduce": "all_reduce", "iall_reduce": "all_reduce", "broadcast": "broadcast",
                "all_gather": "all_gather", "all_to_all": "all_to_all", "barrier": "barrier", "isend": "send",
                "irecv": "recv", "allgather_object": "all_gather", "bcast_object": "broadcast", "wait_for": "wait"}


def _install_collectives() -> None:
    from ..distributed._group import ProcessGroup
    from ..distributed._node_sum import NodeSum
    from ..nn.parallel import DistributedDataParallel
    for method, collective in _COLLECTIVES.items():
        _swap([ProcessGroup], method, lambda cls, f, c=collective: _timed_collective(f, lambda g: f"{g.backend}:{c}"))
    _swap([NodeSum], "start", lambda cls, f: _timed_collective(f, lambda _: "shared_memory:all_reduce"))
    _swap([DistributedDataParallel], "forward",
          lambda cls, f: _timed_collective(f, lambda _: "DistributedDataParallel.forward", USER_SCOPE))


def _timed_collective(method: Callable, name: Callable[[Any], str], scope: int = FUNCTION) -> Callable:
    """``method`` as one event named ``name(self)`` (the classes wrapped here have no subclasses)."""
    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _local.collectors:
            return method(self, *args, **kwargs)
        r = begin(name(self), scope, user=scope == USER_SCOPE)
        try:
            return method(self, *args, **kwargs)
        finally:
            end(r)
    return timed


def uninstall() -> None:
    """Take the wrappers off once the last profiler is done: each class as it was."""
    global _users
    with _lock:
        _users -= 1
        if _users == 0:
            _restore()


def _forget_the_parents_profilers() -> None:
    """In a child made by ``fork`` (a DataLoader's worker): the profilers recording in the parent are
    the parent's -- their events could never reach it -- so the child records nothing and its classes
    are as they were.  (Forked while a profiler ran, each worker recorded every op it ran, for its
    whole life, into a list nobody read, through wrappers nobody took off.)"""
    global _users, _lock
    _lock = threading.Lock()  # (another thread of the parent may have held it at the fork)
    for c in _local.collectors:
        c.recording, c.ranges = False, []
    _local.collectors, _local.open = (), []
    _users = 0
    _restore()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_the_parents_profilers)


def _restore() -> None:
    while _swapped:
        cls, attribute, own = _swapped.pop()
        if own is _MISSING:
            delattr(cls, attribute)
        else:
            setattr(cls, attribute, own)
    _owners.clear()


def _basic_index_name(op: Any) -> str:
    """``x[0]`` is PyTorch's ``aten::select``, ``x[1:3]`` its ``aten::slice``, an index array ``aten::index``."""
    index = op.index
    if any(hasattr(i, "shape") for i in index):
        return "aten::index"
    return "aten::select" if any(type(i) is int for i in index) else "aten::slice"


def _timed_forward(cls: type, forward: Callable, function_node: type) -> Callable:
    fixed = None if issubclass(cls, function_node) or cls.__name__ == "GetItem" else forward_name(cls)
    namer = _basic_index_name if cls.__name__ == "GetItem" else lambda op: op.function.__name__

    def timed_forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _local.collectors or _owner(type(self), "forward") is not cls:
            return forward(self, *args, **kwargs)
        name = fixed if fixed is not None else namer(self)  # a custom Function: its class's name
        r = begin(name, FUNCTION, args[1:])
        try:
            out = forward(self, *args, **kwargs)
            if r.memory:
                r.own_bytes = _made_bytes(out, args[1:])
            return out
        finally:
            end(r)
    return timed_forward


def _timed_backward(cls: type, backward: Callable) -> Callable:
    def timed_backward(self: Any, xp: Any, g: Any, *args: Any, **kwargs: Any) -> Any:
        if not _local.collectors or _owner(type(self), "backward") is not cls:
            return backward(self, xp, g, *args, **kwargs)
        name = backward_name(self)
        outer = begin("autograd::engine::evaluate_function: " + name, FUNCTION)
        try:
            inner = begin(name, BACKWARD_FUNCTION, (g,))
            try:
                grads = backward(self, xp, g, *args, **kwargs)
                if inner.memory:
                    inner.own_bytes = _new_bytes(grads, g)
                return grads
            finally:
                end(inner)
        finally:
            end(outer)
    return timed_backward


def _timed_accumulate(cls: type, accumulate: Callable) -> Callable:
    name = "torch::autograd::AccumulateGrad"

    def timed_accumulate(self: Any, edge: Any, gi: Any, *args: Any, **kwargs: Any) -> Any:
        if (gi is None or not _local.collectors or self.target_nodes is not None  # (mg.grad accumulates no .grad)
                or _owner(type(self), "accumulate_leaf") is not cls):
            return accumulate(self, edge, gi, *args, **kwargs)
        outer = begin("autograd::engine::evaluate_function: " + name, FUNCTION)
        try:
            inner = begin(name, BACKWARD_FUNCTION, (gi,))
            try:
                return accumulate(self, edge, gi, *args, **kwargs)
            finally:
                end(inner)
        finally:
            end(outer)
    return timed_accumulate


def _timed_method(cls: type, method: Callable, what: str) -> Callable:
    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _local.collectors or _owner(type(self), what) is not cls:
            return method(self, *args, **kwargs)
        r = begin(f"Optimizer.{what}#{type(self).__name__}.{what}", USER_SCOPE, user=True)
        try:
            return method(self, *args, **kwargs)
        finally:
            end(r)
    return timed


def _timed_replay(cls: type, rematerialize: Callable) -> Callable:
    def timed_replay(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _local.collectors or _owner(type(self), "rematerialize") is not cls:
            return rematerialize(self, *args, **kwargs)
        r = begin("checkpoint::recompute", FUNCTION)
        try:
            return rematerialize(self, *args, **kwargs)
        finally:
            end(r)
    return timed_replay


# ---------------------------------------------------------------------------------------------
# record_function
# ---------------------------------------------------------------------------------------------
class record_function:
    """PyTorch's ``record_function(name)``: a block (``with``) or a function (a decorator) that
    shows as one event named ``name`` in a profile, with the ops it runs as its children.
    Outside a profiler it costs two attribute reads."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._range: Range | None = None

    def __enter__(self) -> record_function:
        if _local.collectors:
            self._range = begin(self.name, USER_SCOPE, user=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._range is not None:
            r, self._range = self._range, None
            if r.end is None:
                end(r)

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return recorded
