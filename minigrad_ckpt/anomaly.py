"""Anomaly mode: the first NaN or infinity names the op that made it, and the line that called it.

A NaN loss tells you that something went wrong, not where.  Inside
``with mg.detect_anomaly():`` (or after ``mg.set_detect_anomaly(True)``) every
op's result is checked as it is produced, and the first NaN or ±inf raises
:class:`AnomalyError` with

* the op (``err.op``) and the phase that produced the value (``err.phase``):
  ``"forward"``, ``"backward"`` (a gradient an op's backward returned),
  ``"replay"`` (a checkpointed segment recomputing its values in backward, a
  custom Function's forward run again included) or
  ``"jvp"`` (a forward-mode tangent);
* the line of *your* code that called the op in the forward pass
  (``err.source``): the first stack frame outside this package, noted on the
  op's node when it is recorded -- so a gradient that turns NaN in backward
  still points at the forward line that set it up;
* a summary of every input (``err.inputs``: shape, dtype, min, max, how many
  NaN and inf) and of the bad values (``err.produced``).

How it hooks into the engine, and why it is free when off: ``tape.apply``
reads one module global, ``tape._anomaly``, per op; it is ``None`` unless
anomaly mode is on, and then it is :data:`_checks`, whose methods the engine
calls at the three places values are made -- ``tape.apply`` (each op's
forward, and forward mode's tangents, which this module pushes itself so it
knows the op they belong to), ``BackwardPass.call_backward`` (each node's
gradients) and ``Segment._forward`` (each replayed op).  Nothing else in the
engine knows about this mode.

The switch is process-wide, as PyTorch's is: one global is the cheapest read
there is (a thread-local attribute costs hundreds of instructions per op), and
a debugging switch that threads see alike is what one expects from it.  Turn
it on and off from one thread.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import tape as _tape
from .backend import cpu, host_numpy, to_host
from .backward import BackwardPass
from .tensor import Tensor
from .user_frame import stacklevel_outside_the_engine

__all__ = ["AnomalyError", "ArraySummary", "Source", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "is_anomaly_check_inf_enabled"]

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NUMPY_BOOL = host_numpy.bool_


@dataclass(frozen=True)
class Source:
    """Where an op was called: a file, a line number and the function it is in -- and, for an
    op recorded by a backward pass (``create_graph=True``: the ops of a first derivative, which a
    second one differentiates), ``backward_of``: ``(op name, node number, Source)`` of the node
    whose backward recorded it, whose source is the forward line that set it all up (PyTorch's
    "forward call that induced the previous calculation").  A description, not the node: a
    derivative must not keep the graph it came from alive."""

    filename: str
    lineno: int
    function: str
    backward_of: tuple[str, int, Source | None] | None = field(default=None, compare=False, repr=False)

    @property
    def line(self) -> str:
        """The text of that line (empty when the file cannot be read)."""
        return linecache.getline(self.filename, self.lineno).strip()

    def __str__(self) -> str:
        text = self.line
        return f"{self.filename}:{self.lineno}, in {self.function}" + (f"\n      {text}" if text else "")


@dataclass(frozen=True)
class ArraySummary:
    """What an anomaly report says about one value: its shape and dtype, its smallest and
    largest value leaving NaN out (of ``|z|`` for complex numbers; ``None`` when there is
    none), and how many of its elements are NaN and how many infinite."""

    shape: tuple
    dtype: str
    min: float | None
    max: float | None
    nan: int
    inf: int

    @classmethod
    def of(cls, value: Any) -> ArraySummary | None:
        """The summary of an array, a Tensor or a Python number (``None`` for ``None``)."""
        if value is None:
            return None
        if isinstance(value, Tensor):
            value = value._data
        a = host_numpy.asarray(to_host(value) if hasattr(value, "dtype") else value)
        dtype = str(a.dtype) if hasattr(value, "dtype") else type(value).__name__
        if a.dtype.kind not in "fcbiu":
            return cls(tuple(a.shape), dtype, None, None, 0, 0)
        if a.dtype.kind == "c":
            a = abs(a)
        nan = host_numpy.isnan(a) if a.dtype.kind in "fc" else host_numpy.zeros(a.shape, bool)
        rest = a[~nan]
        low, high = (None, None) if rest.size == 0 else (rest.min().item(), rest.max().item())
        inf = int(host_numpy.isinf(rest).sum()) if a.dtype.kind == "f" else 0
        return cls(tuple(a.shape), dtype, low, high, int(nan.sum()), inf)

    @property
    def bad(self) -> bool:
        """True if some element is NaN or infinite."""
        return self.nan > 0 or self.inf > 0

    def __str__(self) -> str:
        span = "no numbers" if self.min is None else f"min {self.min:.6g}, max {self.max:.6g}"
        return f"{self.dtype} {self.shape}: {span}, {self.nan} NaN, {self.inf} inf"


class AnomalyError(RuntimeError):
    """The first NaN or infinity anomaly mode saw (a ``RuntimeError``, as in PyTorch).

    ``op`` is the op's name, ``phase`` one of ``"forward"``, ``"backward"``,
    ``"replay"``, ``"jvp"``; ``source`` the :class:`Source` of the forward call
    (``None`` if the op was recorded while anomaly mode was off, or restored
    from a snapshot); ``inputs``
    the op's inputs as :class:`ArraySummary` (``None`` where backward does not
    keep one); ``produced`` the bad values (the output, or each gradient or
    tangent the op returned, ``None`` where it returned none); ``node`` the
    tape node (``None`` for an op that recorded none); ``segment`` the
    checkpointed segment of the node, if any.
    """

    def __init__(self, message: str, *, op: str, phase: str, source: Source | None,
                 inputs: tuple, produced: tuple, node: Any = None, segment: Any = None) -> None:
        super().__init__(message)
        self.op, self.phase, self.source = op, phase, source
        self.inputs, self.produced = inputs, produced
        self.node, self.segment = node, segment


# ---------------------------------------------------------------------------
# The switch
# ---------------------------------------------------------------------------
class _Mode:
    """Process-wide: whether the checks run, and which values they refuse."""

    enabled = False
    check_nan = True
    check_inf = True


_mode = _Mode()


def _set(enabled: bool, check_nan: bool, check_inf: bool) -> None:
    _mode.enabled, _mode.check_nan, _mode.check_inf = bool(enabled), bool(check_nan), bool(check_inf)
    _tape.set_anomaly(_checks if _mode.enabled else None)


def is_anomaly_enabled() -> bool:
    """True while anomaly mode is on."""
    return _mode.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """The ``check_nan`` flag last set (True at start), whether anomaly mode is on or not, as
    PyTorch's: ``set_detect_anomaly(False)`` leaves it True, ``set_detect_anomaly(False,
    check_nan=False)`` False.  The mode refuses NaN while it is on and this is True."""
    return _mode.check_nan


def is_anomaly_check_inf_enabled() -> bool:
    """True while anomaly mode is on and refuses infinities."""
    return _mode.enabled and _mode.check_inf


class _AnomalyContext:
    """Set the mode inside a ``with`` block (or a decorated function), then put back what was before."""

    _setting: tuple[bool, bool, bool]
    _prevs: list  # one per block entered and not yet left: one object may be entered again inside itself

    def __enter__(self) -> None:
        self._prevs.append((_mode.enabled, _mode.check_nan, _mode.check_inf))
        _set(*self._setting)

    def __exit__(self, *exc: object) -> None:
        _set(*self._prevs.pop())

    def __call__(self, fn: _Fn) -> _Fn:
        """Used as a decorator: ``fn`` runs with this mode, and the previous one comes back after."""
        setting = self._setting

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = (_mode.enabled, _mode.check_nan, _mode.check_inf)
            _set(*setting)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(*prev)

        return wrapper  # type: ignore[return-value]


class detect_anomaly(_AnomalyContext):
    """Turn anomaly mode on inside a ``with`` block (or a decorated function)::

        with mg.detect_anomaly():
            loss = model(x).sum()   # an op making NaN or inf raises AnomalyError here...
            loss.backward()         # ...and so does an op's backward returning one

    ``check_nan=False`` lets NaN through, ``check_inf=False`` infinities (an
    attention mask of ``-inf``, say); with both False the mode only notes where
    each op was called.  The previous mode comes back at the end of the block,
    also when it ends with an exception.
    """

    def __init__(self, check_nan: bool = True, check_inf: bool = True) -> None:
        self._setting, self._prevs = (True, check_nan, check_inf), []
        # PyTorch's, in its words (set_detect_anomaly warns not)
        warnings.warn(_ENABLED_WARNING, stacklevel=stacklevel_outside_the_engine())

    def __repr__(self) -> str:
        return f"detect_anomaly(check_nan={self._setting[1]}, check_inf={self._setting[2]})"


#: What PyTorch's ``detect_anomaly()`` warns when it is made (torch 2.13's words)
_ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                    "enabled for debugging.")


class set_detect_anomaly(_AnomalyContext):
    """Turn anomaly mode on (``True``) or off (``False``).

    Called on its own it switches right away and stays (``mg.set_detect_anomaly(True)``);
    as a context manager (``with mg.set_detect_anomaly(False): ...``) the
    previous mode comes back at the end of the block, as in PyTorch.
    """

    def __init__(self, mode: bool, check_nan: bool = True, check_inf: bool = True) -> None:
        self._before_call = (_mode.enabled, _mode.check_nan, _mode.check_inf)
        self._setting, self._prevs = (bool(mode), check_nan, check_inf), []
        _set(*self._setting)

    def __enter__(self) -> None:
        self._prevs.append(self._before_call)
        _set(*self._setting)

    def __call__(self, fn: _Fn) -> _Fn:
        """Used as a decorator: ``fn`` runs with this mode, and the mode outside it stays as it was."""
        _set(*self._before_call)  # used as a decorator: do not leak the switch
        return super().__call__(fn)

    def __repr__(self) -> str:
        return f"set_detect_anomaly({self._setting[0]})"


# ---------------------------------------------------------------------------
# The checks (called by the engine while the mode is on)
# ---------------------------------------------------------------------------
def _is_bad(a: Any, xp: Any) -> bool:
    """True if array ``a`` (on ``xp``'s device) holds a value the mode refuses.

    Runs for every output and gradient while the mode is on, so it is one
    elementwise test and one reduction, read back without a detour where the
    array is NumPy's (a device array is read with ``xp.scalar``)."""
    if a.dtype.kind not in "fc":
        return False
    if _mode.check_nan and _mode.check_inf:
        found, bad_if = xp.isfinite(a).all(), False  # bad if not all finite
    elif _mode.check_nan:
        found, bad_if = xp.isnan(a).any(), True
    elif _mode.check_inf:
        found, bad_if = xp.isinf(a).any(), True
    else:
        return False
    return bool(found if found.__class__ is _NUMPY_BOOL else xp.scalar(found)) is bad_if


def _value(v: Any, xp: Any) -> tuple[Any, Any]:
    """An op's result as (array, its namespace): a Tensor's array, or an array of ``xp`` (or the host)."""
    if isinstance(v, Tensor):
        return v._data, v._device.xp
    if v.__class__ is xp.array_type or xp.holds(v):
        return v, xp
    return host_numpy.asarray(to_host(v)), cpu.xp


def caller() -> Source:
    """The first stack frame outside this package: the user's line that called the op.

    Where every frame is the package's own (its demo, say), the innermost frame
    that is not the engine's recording machinery."""
    frame = sys._getframe(1)
    fallback = backward_of = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            return Source(filename, frame.f_lineno, frame.f_code.co_name, backward_of)
        if fallback is None and filename not in _ENGINE_FILES:
            fallback = frame
        if backward_of is None and frame.f_code is _CALL_BACKWARD:  # recorded by a node's backward
            node = frame.f_locals.get("node")
            backward_of = None if node is None else (node.op.name, node.seq, node.source)
        frame = frame.f_back
    if fallback is None:
        return Source("<unknown>", 0, "<unknown>", backward_of)
    return Source(fallback.f_code.co_filename, fallback.f_lineno, fallback.f_code.co_name, backward_of)


class _Context(threading.local):
    # the ops whose forward-mode tangents are being computed, innermost last
    jvp: list

    def __init__(self) -> None:
        self.jvp = []


_context = _Context()


def _circumstances(frame: Any) -> str:
    """Where the engine was when an op ran (looking up the stack from ``frame``): inside
    some node's backward (its rule computing on Tensors, ``create_graph=True``), or
    computing an op's forward-mode tangent.

    The backward pass does not tell the mode which node it is in (reading the
    hook once per node is all it pays), so the node is read from the stack:
    the frame of ``BackwardPass.call_backward`` holds it -- and only when an
    error is being written."""
    lines = []
    if _context.jvp:
        lines.append(f"  while computing the forward-mode tangent (jvp) of {_context.jvp[-1]}")
    while frame is not None:
        if frame.f_code is _CALL_BACKWARD:
            node = frame.f_locals.get("node")
            if node is not None:
                lines.append(f"  while running the backward of {_describe_node(node)}")
            break
        frame = frame.f_back
    return "".join(line + "\n" for line in lines)


_CALL_BACKWARD = BackwardPass.call_backward.__code__
_REPLAY = BackwardPass.replay.__code__


def _replayed_segment(frame: Any) -> Any:
    """The checkpointed segment whose replay is running, looking up the stack from ``frame``
    (``None`` outside a replay): the ops that run there through ``tape.apply`` are a custom
    Function's forward, run again to rebuild what its node saved.  Read only when an error is
    being written, as :func:`_circumstances`."""
    while frame is not None:
        if frame.f_code is _REPLAY:
            node = frame.f_locals.get("node")
            return None if node is None else node.segment
        if frame.f_code is _CALL_BACKWARD:  # inside a backward rule, not a replay
            return None
        frame = frame.f_back
    return None
#: The files of the recording machinery, which :func:`caller` never names.
_ENGINE_FILES = {caller.__code__.co_filename, _tape.apply.__code__.co_filename}


def _describe_node(node: Any) -> str:
    return _describe(node.op.name, node.seq, node.source)


def _describe(op: str, seq: int, source: Source | None) -> str:
    where = f", called at {source}" if source is not None else \
        " (where it was called is not known: recorded while anomaly mode was off, or restored from a snapshot)"
    if source is not None and source.backward_of is not None:  # a derivative's op: the forward op it differentiates
        where += f"\n    recorded (create_graph=True) by the backward of {_describe(*source.backward_of)}"
    return f"{op} (node #{seq}){where}"


def _list(title: str, summaries: tuple, missing: str = "none") -> str:
    """One line per value: ``input 0: float64 (3,): min ..., max ..., 1 NaN, 0 inf``."""
    lines = [f"  {title}:"]
    for i, s in enumerate(summaries):
        lines.append(f"    input {i}: {missing if s is None else s}")
    return "\n".join(lines) + "\n"


def _what(summaries: tuple) -> str:
    nan = sum(s.nan for s in summaries if s is not None)
    inf = sum(s.inf for s in summaries if s is not None)
    return " and ".join(w for w, n in (("NaN", nan), ("inf", inf)) if n)


def _already(summaries: tuple) -> str:
    if any(s is not None and s.bad for s in summaries):
        return ("  (an input already held NaN/inf that no checked op made: data, a tensor built from "
                "numbers, an in-place write, or an op run while anomaly mode was off)\n")
    return ""


class _Checks:
    """The methods the engine calls while anomaly mode is on (``tape._anomaly``)."""

    def forward(self, op: Any, args: tuple, t: Any) -> None:
        """After ``op`` ran on ``args`` into ``t`` (``tape.apply``): note the caller on the
        node, check the output, push forward-mode tangents and check them."""
        source = caller()
        node = t._node
        if node is not None:
            node.source = source
        if _is_bad(t._data, t._device.xp):
            inputs = tuple(ArraySummary.of(a) for a in args)
            produced = (ArraySummary.of(t._data),)
            replayed = _replayed_segment(sys._getframe(1))
            when = "in the forward pass" if replayed is None else (
                f"in the replay of checkpointed segment {_segment_name(replayed)} (recomputing dropped "
                f"values during backward: a custom Function's forward runs again)")
            raise AnomalyError(
                f"{op.name} produced {_what(produced)} {when}\n"
                f"  called at {source}\n{_circumstances(sys._getframe(1))}"
                f"{_list('inputs', inputs)}  output: {produced[0]}\n{_already(inputs)}",
                op=op.name, phase="forward" if replayed is None else "replay", source=source, inputs=inputs,
                produced=produced, node=node, segment=replayed if node is None else node.segment)
        push = _tape._forward_push
        if push is not None:
            _context.jvp.append(op.name)
            try:
                push(op, args, t)
            finally:
                _context.jvp.pop()
            if t._tangents:
                self._check_tangents(op, args, t, source)

    def _check_tangents(self, op: Any, args: tuple, t: Any, source: Source) -> None:
        for level, tangent in t._tangents.items():
            if not _is_bad(tangent._data, tangent._device.xp):
                continue
            inputs = tuple(ArraySummary.of(a) for a in args)
            tangents = tuple(ArraySummary.of(a._tangents.get(level)) if isinstance(a, Tensor) and a._tangents
                             else None for a in args)
            produced = (ArraySummary.of(tangent),)
            raise AnomalyError(
                f"the forward-mode tangent (jvp) of {op.name} is {_what(produced)} (its value is finite)\n"
                f"  called at {source}\n{_circumstances(sys._getframe(1))}"
                f"{_list('inputs', inputs)}{_list('input tangents', tangents)}"
                f"  output tangent: {produced[0]}\n{_already(tangents)}",
                op=op.name, phase="jvp", source=source, inputs=inputs, produced=produced, node=t._node,
                segment=None if t._node is None else t._node.segment)

    def backward(self, node: Any, g: Any, grads: tuple) -> None:
        """After ``node``'s op returned ``grads`` for gradient ``g`` (``BackwardPass.call_backward``)."""
        bad = [gi is not None and _is_bad(*_value(gi, node.xp)) for gi in grads]
        if not any(bad):
            return
        saved = node.saved if type(node.saved) is tuple else (None,) * (len(node.inputs) + 1)
        inputs = tuple(ArraySummary.of(a) for a in saved[1:])
        produced = tuple(ArraySummary.of(gi) for gi in grads)
        arriving = ArraySummary.of(g)
        which = ", ".join(f"input {i}" for i, b in enumerate(bad) if b)
        notes = ""
        if saved[0] is not None:
            notes += f"  output (as saved): {ArraySummary.of(saved[0])}\n"
        notes += f"  gradient arriving: {arriving}\n"
        notes += _list("gradients returned", produced)
        if arriving.bad:  # made upstream, or by a hook: hooks run outside any op's check
            hooked = ": a gradient hook on this op's output (register_hook) may have returned it" if node.hooks else ""
            notes += f"  (the gradient arriving already held NaN/inf{hooked})\n"
        if node.segment is not None:
            notes += (f"  (its saved values were recomputed by replaying checkpointed segment "
                      f"{_segment_name(node.segment)})\n")
        # PyTorch's sentence first where it has one (it checks NaN only), which a ported test matches
        nan_at = next((i for i, p in enumerate(produced) if p is not None and p.nan), None)
        pytorch = "" if nan_at is None else f"Function '{node.name()}' returned nan values in its {nan_at}th output.\n"
        raise AnomalyError(
            f"{pytorch}the backward of {node.op.name} returned {_what(tuple(p for p, b in zip(produced, bad) if b))} "
            f"in the gradient of {which}\n  the op: {_describe_node(node)}\n"
            f"{_circumstances(sys._getframe(2))}{_list('inputs (as saved)', inputs, 'not saved')}{notes}",
            op=node.op.name, phase="backward", source=node.source, inputs=inputs, produced=produced,
            node=node, segment=node.segment)

    def failed(self, exc: BaseException) -> None:
        """A backward pass raised ``exc`` (``BackwardPass.run``); where a node's backward did (the
        innermost ``call_backward`` in its traceback), PyTorch's warning, "Error
        detected in SinBackward0. Traceback of forward call that caused the error", naming the
        forward line that recorded the node -- the error alone names the rule, not the line of
        yours that set it up (an in-place write into a value it saved, a broken custom rule).  The
        exception itself is left as it is, as PyTorch leaves it.  An :class:`AnomalyError` names its
        node itself; an error of a node deeper in the pass (a backward run inside this one's) was
        reported there."""
        if isinstance(exc, AnomalyError) or getattr(exc, "_anomaly_reported", False):
            return
        node, tb = None, exc.__traceback__
        while tb is not None:  # the innermost node whose backward was running
            if tb.tb_frame.f_code is _CALL_BACKWARD:
                node = tb.tb_frame.f_locals.get("node", node)
            tb = tb.tb_next
        if node is None:  # raised outside any node's backward (a leaf's hook, say)
            return
        where = (f"  File \"{node.source.filename}\", line {node.source.lineno}, in {node.source.function}"
                 + (f"\n    {node.source.line}" if node.source.line else "")) if node.source is not None else \
            "  (not known: recorded while anomaly mode was off, or restored from a snapshot)"
        message = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{where}"
        # the warning points at the user's line that ran backward
        warnings.warn(message, UserWarning, stacklevel=stacklevel_outside_the_engine())
        try:
            exc._anomaly_reported = True  # type: ignore[attr-defined]
        except AttributeError:  # an exception class with __slots__: it is reported again, no harm
            pass

    def replay(self, segment: Any, node: Any, ins: list, out: Any) -> None:
        """After a checkpointed segment's replay re-ran ``node``'s op on ``ins`` (``Segment._forward``)."""
        if not _is_bad(out, node.xp):
            return
        inputs = tuple(ArraySummary.of(a) for a in ins)
        produced = (ArraySummary.of(out),)
        checked = ("the forward pass made finite values here (anomaly mode checked them)" if node.source
                   is not None else "the forward pass was not checked (anomaly mode was off then)")
        raise AnomalyError(
            f"{node.op.name} produced {_what(produced)} in the replay of checkpointed segment "
            f"{_segment_name(segment)} (recomputing dropped values during backward)\n"
            f"  the op: {_describe_node(node)}\n  {checked}: a value only the replay makes points at an op "
            f"that is not deterministic, or at an input changed between forward and backward\n"
            f"{_circumstances(sys._getframe(1))}{_list('inputs (replayed)', inputs)}"
            f"  output: {produced[0]}\n{_already(inputs)}",
            op=node.op.name, phase="replay", source=node.source, inputs=inputs, produced=produced,
            node=node, segment=segment)


def _segment_name(segment: Any) -> str:
    label = getattr(segment, "label", "")
    return f"{segment.index}" + (f" ({label})" if label else "")


#: What ``tape._anomaly`` is while the mode is on.
_checks = _Checks()
