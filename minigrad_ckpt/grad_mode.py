"""Grad mode: whether new ops are recorded on the tape.

Recording is on by default.  ``no_grad()`` turns it off for a block (or a
function, as a decorator), ``enable_grad()`` turns it back on inside such a
block.  The switch is per thread, like PyTorch's.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "is_recomputing", "inference_mode",
           "is_inference_mode_enabled"]

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


class _ThreadCount:
    """How many threads are in some non-default state right now (a lock guards changes).

    Reading a thread-local attribute costs several hundred instructions, and
    ``tape.apply`` runs once per op; while a count is 0 -- always, in a plain
    training step -- the tape skips the thread-local read.  The count lives in
    the instance (``__init__``), where CPython specializes the read.
    """

    def __init__(self) -> None:
        self.active = 0
        self.lock = threading.Lock()

    def change(self, by: int) -> None:
        if by:
            with self.lock:
                self.active += by


#: Threads with recording switched off (``no_grad``, a backward pass): while 0,
#: ``tape.apply`` knows recording is on without reading ``state.enabled``.
grad_off = _ThreadCount()
#: Threads with a recorder installed (a checkpoint segment or a profiler): while
#: 0, ``tape._record`` skips reading ``state.recorder``.
recorders = _ThreadCount()


class _State(threading.local):
    # The innermost active checkpoint segment (or profiler): it receives every
    # node recorded in this thread (see minigrad_ckpt.checkpoint).
    recorder = None
    recomputing = 0
    _enabled = True
    # Inside ``inference_mode``: forward mode pushes no tangents either (PyTorch's inference
    # tensors carry no forward gradient), where ``no_grad`` leaves forward mode running.
    inference = False
    # How many ``mg.func`` transforms are running their function in this thread (``backward()``
    # refuses to run inside one, as PyTorch's; see minigrad_ckpt.func.captures).
    transforms = 0

    # The grad mode last set, which ``is_grad_enabled()`` reports: inside ``inference_mode`` an
    # ``enable_grad`` sets it, as PyTorch's, but nothing is recorded there (``enabled`` stays False).
    requested = True
    # How many times this thread has switched recording off (``mg.func.linearize`` asks whether
    # its function did: forward mode differentiates through what the tape then did not record).
    switched_off = 0

    @property
    def enabled(self) -> bool:
        """Whether this thread records ops (``grad_off`` counts the threads where not)."""
        return self._enabled

    @enabled.setter
    def enabled(self, mode: bool) -> None:
        self.requested = mode = bool(mode)
        mode = mode and not self.inference  # PyTorch's inference mode records nothing, whatever grad mode says
        was = self._enabled  # (read once: each read of a thread-local attribute costs a few hundred instructions)
        if was is not mode:  # (the mode it has: no count to change, nothing to write)
            grad_off.change(was - mode)  # on -> off: +1, off -> on: -1
            if was:
                self.switched_off += 1
            self._enabled = mode


state = _State()


class _ForwardMode:
    """Which forward-mode levels are open (see :mod:`minigrad_ckpt.func.forward`).

    ``levels`` holds the numbers of the open ``mg.func.jvp`` calls in any
    thread and ``active`` how many there are.  The per-op hook that pushes
    tangents is ``tape._forward_push``, installed only while a level is open,
    so outside forward mode ``tape.apply`` pays one global read per op.
    """

    active = 0
    levels: set = set()
    # ``written(target, kind, operand, index)``: the tangents a tensor has after
    # an in-place write (``func/inplace.py``); the in-place methods of Tensor
    # call it while a level is open.
    written: Any = None


forward_mode = _ForwardMode()


def set_recorder(recorder: Any) -> Any:
    """Install ``recorder`` for this thread and return the previous one.

    Every node recorded in this thread goes to ``recorder.record(...)`` until
    the previous recorder is put back with ``set_recorder(previous)``.
    """
    previous = state.recorder
    recorders.change((recorder is not None) - (previous is not None))
    state.recorder = recorder
    return previous


def is_grad_enabled() -> bool:
    """True if grad mode is on: ops are recorded for backward (unless in ``inference_mode``, where
    PyTorch's grad mode may read True inside ``enable_grad`` while nothing is recorded)."""
    return state.requested


def is_recomputing() -> bool:
    """True while checkpointed values are being re-materialized (replayed).

    Replay re-runs recorded array math only, never user code; this flag exists
    for the rare user hook that runs during backward and must know.
    """
    return state.recomputing > 0


class _GradModeContext:
    """A context manager that is also a decorator."""

    _mode: bool

    def __enter__(self) -> None:
        self._prev = state.requested
        state.enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        state.enabled = self._prev

    def __repr__(self) -> str:
        arg = repr(self._mode) if type(self).__name__ == "set_grad_enabled" else ""
        return f"{type(self).__name__}({arg}) (recording {'on' if self._mode else 'off'} inside)"

    def _switch(self) -> Any:
        """Put this mode on for one call of a decorated function (or one resumption of a decorated
        generator) and return what :meth:`_restore` puts back.  What to put back lives in the call,
        not in ``self``: one decorator serves recursive calls and several threads at once (PyTorch's
        enters a fresh clone of the context per call)."""
        prev = state.requested
        state.enabled = self._mode
        return prev

    def _restore(self, prev: Any) -> None:
        state.enabled = prev

    def __call__(self, fn: _Fn) -> _Fn:
        if inspect.isgeneratorfunction(fn):
            return _in_mode_at_each_resumption(self, fn)  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = self._switch()
            try:
                return fn(*args, **kwargs)
            finally:
                self._restore(prev)

        return wrapper  # type: ignore[return-value]


def _in_mode_at_each_resumption(context: _GradModeContext, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A generator function whose body runs in ``context``'s mode, as PyTorch's ``_wrap_generator``.

    Calling a generator function runs none of its body: the body runs a piece at a
    time, each time the caller resumes it (``next``, ``send``, ``throw``, ``close``).
    So the mode is set around each resumption, and the caller's own mode is back
    while the generator waits at a ``yield`` -- a decorated ``for`` loop body sees
    the mode it was in, not the generator's.
    """

    @functools.wraps(fn)
    def generator(*args: Any, **kwargs: Any) -> Any:
        gen = fn(*args, **kwargs)
        resume: Callable[[Any], Any] = gen.send
        arg: Any = None
        while True:
            prev = context._switch()
            try:
                response = resume(arg)
            except StopIteration as stop:
                return stop.value
            finally:
                context._restore(prev)
            try:
                resume, arg = gen.send, (yield response)
            except GeneratorExit:  # the caller closes us: the generator's cleanup runs in its mode too
                prev = context._switch()
                try:
                    gen.close()
                finally:
                    context._restore(prev)
                raise
            except BaseException as exc:  # thrown in by the caller: raised inside the generator
                resume, arg = gen.throw, exc

    return generator


class _DecoratorOrContext(_GradModeContext):
    """Also usable as a bare decorator: ``@mg.no_grad`` as well as ``@mg.no_grad()``."""

    def __new__(cls, fn: Any = None) -> Any:
        self = super().__new__(cls)
        if callable(fn):
            return self(fn)
        return self

    def __init__(self, fn: Any = None) -> None:
        pass


class no_grad(_DecoratorOrContext):
    """Do not record ops: results have no history and do not require grad.

    Use it for evaluation and for parameter updates::

        with mg.no_grad():
            y = model(x)          # y.requires_grad is False

        @mg.no_grad()
        def evaluate(model, x): ...
    """

    _mode = False


class enable_grad(_DecoratorOrContext):
    """Record ops again inside a ``no_grad`` block (or decorated function)."""

    _mode = True


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (and not inside an ``inference_mode(False)`` nested in it),
    as ``torch.is_inference_mode_enabled``."""
    return bool(state.inference)


@contextlib.contextmanager
def inference_mode_lifted() -> Iterator[None]:
    """Inference mode off for the block, when it was on; grad mode as last requested there.

    An ``mg.func`` transform runs its own function (and its own backward passes) in this:
    called inside ``inference_mode``, it still differentiates, as ``torch.func``'s do (its
    grad and jvp report ``is_inference_mode_enabled()`` False inside).  Grad mode stays what
    the caller asked for (off, in inference mode): ``grad`` switches it on itself, ``jvp``
    needs no tape.  The function may enter inference mode again for values it wants constant.
    """
    if not state.inference:
        yield
        return
    state.inference = False
    state.enabled = state.requested
    try:
        yield
    finally:
        state.inference = True
        state.enabled = state.requested


class inference_mode(_GradModeContext):
    """PyTorch's ``torch.inference_mode``: no recording inside, as :class:`no_grad`; a context manager or
    a decorator, bare or called.  ``mode=False`` turns recording *on*, as PyTorch's does (its guard sets
    grad mode to ``not mode``).  Forward mode pushes no tangents inside either (``mg.func.jvp`` of a
    function that runs in inference mode gives a zero tangent, as PyTorch's).  PyTorch's inference
    tensors are also barred from later autograd; here the results are plain constants."""

    def __new__(cls, mode: Any = True) -> Any:
        self = super().__new__(cls)
        self._inference = True if callable(mode) else bool(mode)
        return self(mode) if callable(mode) else self

    def __init__(self, mode: Any = True) -> None:
        pass

    @property
    def _mode(self) -> bool:
        return not self._inference

    def __enter__(self) -> None:
        self._prev_inference = getattr(self, "_prev_inference", []) + [state.inference]
        state.inference = self._inference  # first: grad mode's switch reads it (inference_mode(False) records)
        super().__enter__()

    def __exit__(self, *exc: object) -> None:
        state.inference = self._prev_inference.pop()
        super().__exit__(*exc)

    def _switch(self) -> Any:
        prev = state.inference
        state.inference = self._inference  # first, as in __enter__
        return prev, super()._switch()

    def _restore(self, prev: Any) -> None:
        state.inference, requested = prev
        super()._restore(requested)


class set_grad_enabled(_GradModeContext):
    """Set recording on or off.

    As a context manager (``with mg.set_grad_enabled(training): ...``) the
    previous mode comes back at the end of the block; called on its own
    (``mg.set_grad_enabled(False)``) it switches the mode right away, as in
    PyTorch.
    """

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._before_call = state.requested
        state.enabled = self._mode

    def __enter__(self) -> None:
        self._prev = self._before_call
        state.enabled = self._mode

    def __call__(self, fn: _Fn) -> _Fn:
        state.enabled = self._before_call  # used as a decorator: do not leak the switch
        return super().__call__(fn)
