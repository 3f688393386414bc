"""``mg.autograd.Function``: PyTorch's custom autograd functions, as one node on the tape.

A ported program defines a function with its own derivative exactly as in PyTorch::

    class Exp(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    y = Exp.apply(x)

How it sits on the engine: ``Exp.apply`` runs one op, :class:`FunctionNode`, through the
tape's ``apply`` -- so it is one node, recorded like any op, played back by the ordinary
backward pass, seen by hooks, ``mg.grad``, the ``mg.func`` transforms and anomaly mode.  The
op's ``forward`` calls the user's ``forward`` on Tensors around the input arrays with
recording off (its inner ops are not on the tape); its ``backward`` calls the user's
``backward`` with the node's gradient -- on arrays wrapped as constants, or, with
``create_graph=True``, on Tensors connected to the graph, so a backward written with
differentiable ops has a derivative itself (double backward); its ``jvp`` calls the user's
``jvp`` (forward mode, ``mg.func.jvp``).

What ``backward`` reads is declared as for every op: a saved *input* is one of the node's
saved inputs (its version is checked: an in-place change before backward is an error), a
saved *output* the node's saved output; any other saved tensor (an intermediate) is kept by
the context (outside the memory ledger's count).  Inside ``mg.checkpoint`` the node's saved
values are dropped like any other node's, and the replay runs the user's ``forward`` again to
rebuild them -- the one place a replay runs user code, as PyTorch's checkpoint re-runs the
forward; the ctx keeps what the first ``forward`` set on it.

The first ``forward`` gets the argument Tensors themselves, as in PyTorch (code keeps them on
``ctx`` and later asks for gradients with respect to them); a replay gets Tensors around the
replayed arrays.

Several outputs: the differentiable ones are packed into the node's one output (flattened
and concatenated in their promoted dtype, the engine's way for ``eigh``) and handed out as
views of it (cast back to each output's dtype); the gradients the user's ``backward``
receives are the pieces of the node's gradient, each in its output's dtype.
"""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref
from typing import Any

from .. import autocast_state
from .. import tape as _tape
from ..backward import current_pass
from ..func.captures import innermost_transform, reaches_before
from ..func.forward import hide_levels, unhide_levels
from ..grad_mode import no_grad
from ..grad_mode import state as _grad_state
from ..ops.base import MissingJvpError, Op
from ..random import default_generator
from ..tensor import HookList, Tensor, shared_version
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["Function", "FunctionCtx", "FunctionNode", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` a custom function's ``forward`` (or ``setup_context``), ``backward`` and
    ``jvp`` share: what to save, which outputs have no gradient, and any attribute the user
    sets on it (``ctx.constant = 3``)."""

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True
        self._reset()

    def _reset(self) -> None:
        self.to_save: tuple = ()
        self.to_save_forward: tuple = ()
        self.non_differentiable: tuple = ()
        self.dirty_tensors: tuple = ()
        self._unpacked: tuple | None = None

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep ``tensors`` (inputs, outputs or intermediates; None allowed) for ``backward``,
        which reads them as :attr:`saved_tensors`.  A saved input or output changed in place
        before backward makes backward raise, as in PyTorch."""
        _check_saveable(tensors, "save_for_backward")
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep ``tensors`` for ``jvp`` (forward mode), which reads them as :attr:`saved_tensors`."""
        if not all(t is None or isinstance(t, Tensor) for t in tensors):  # torch 2.13's type and words
            raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                 "non-tensors as attributes on ctx.")
        self.to_save_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        """What ``save_for_backward`` saved (in ``backward``) or ``save_for_forward`` (in ``jvp``)."""
        if self._unpacked is None:
            raise RuntimeError("ctx.saved_tensors can be read in backward (or jvp) only, after "
                               "save_for_backward (or save_for_forward) in forward")
        return self._unpacked

    @property
    def saved_variables(self) -> tuple:
        """PyTorch's deprecated name of :attr:`saved_tensors` (with its DeprecationWarning)."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return self.saved_tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """These outputs get no gradient: they do not require grad, and ``backward`` receives
        zeros for them (or None, after ``set_materialize_grads(False)``)."""
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):  # torch 2.13's type and words (where they are cut short)
                raise RuntimeError(f"mark_non_differentiable only accepts variable arguments, but got "
                                   f"{type(t).__name__} (argument {i})")
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """These inputs were changed in place by ``forward`` (which must return them): the
        input tensor itself is the output, its history now this node."""
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):  # torch 2.13's type and words (where they are cut short)
                raise RuntimeError(f"mark_dirty can only accept variables, but argument {i} is of type "
                                   f"{type(t).__name__}")
        self.dirty_tensors = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """False: ``backward`` receives None, not zeros, for an output no gradient reached."""
        if not isinstance(value, bool):  # torch 2.13 takes a bool only (1 or None is its TypeError)
            raise TypeError(f"set_materialize_grads received an invalid combination of arguments - got "
                            f"({type(value).__name__}), but expected (bool)")
        self.materialize_grads = value


def _saved_itself(ref: Any, array: Any) -> Any:
    """The tensor ``save_for_backward`` was given, where it still lives and holds the saved array
    (else None): PyTorch's saved inputs and intermediates unpack as the very tensor saved (``saved is
    x``, with its ``requires_grad``, its class and attributes), not as a new tensor over its values."""
    t = ref()
    return t if t is not None and t._data is array else None


def _check_saveable(tensors: tuple, what: str) -> None:
    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{what} can only save tensors, but argument {i} is of type {type(t).__name__}")


_NO_BACKWARD = ("You must implement either the backward or vjp method for your custom autograd.Function "
                "to use it with backward mode AD.")  # PyTorch's words


class Function:
    """Base class of a custom differentiable function (PyTorch's ``torch.autograd.Function``).

    A subclass defines the static methods ``forward(ctx, *args, **kwargs)`` and
    ``backward(ctx, *grad_outputs)`` -- or ``forward(*args)`` with a separate
    ``setup_context(ctx, inputs, output)`` -- and optionally ``jvp(ctx, *tangents)``, and is
    called as ``MyFunction.apply(*args)``.  ``backward`` returns one gradient per argument of
    ``forward`` (None for a non-tensor argument or one that needs none).
    """

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define the staticmethod forward")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError("setup_context is not overridden")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(_NO_BACKWARD)

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("jvp is not overridden")

    @staticmethod
    def vjp(ctx: Any, *grad_outputs: Any) -> Any:
        """PyTorch's other name for ``backward``: a subclass defines one of the two."""
        raise NotImplementedError(_NO_BACKWARD)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: MyFunction.apply(x), with forward and "
            "backward as @staticmethod)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run the function on ``args``, recording one node that ``backward`` differentiates."""
        args = _positional_arguments(cls, args, kwargs)
        op = FunctionNode(function=cls)
        if not any(isinstance(a, Tensor) for a in args):  # nothing to record or to move
            ctx = FunctionCtx()
            ctx.needs_input_grad = (False,) * len(args)
            return op.run_user_forward(args, ctx)
        op.prepare(args)
        packed = _tape.apply(op, *args)
        return op.hand_out(packed, args)


def _watch(node: Any, hook: _PieceReached) -> None:
    """Put ``hook`` last among ``node``'s gradient hooks."""
    if node.hooks is None:
        node.hooks = HookList()
    node.hooks.add(hook, len(node.hooks))


class _PieceReached:
    """The gradient hook on piece ``k`` of a packed output: notes, in the state of the pass that
    runs it, that this pass reached the piece (a pass that stops at the piece, ``mg.grad`` with
    respect to the output itself, never runs the node's backward: a note kept on the node would
    tell the next pass that a gradient reached the piece, and hand backward zeros for None).

    The engine's bookkeeping, not the user's change to the gradient: a reverse-mode transform,
    which hides the hooks of its function's nodes from the passes of outer transforms (they
    differentiate the gradient it made, ``fn`` applied once), keeps this one (``every_pass``) --
    without it an outer pass through the function handed ``backward`` None for every output."""

    every_pass = True

    def __init__(self, key: object, k: int) -> None:
        self.key, self.k = key, k  # key: the call's own (the ops of one class compare equal)

    def __call__(self, g: Any) -> None:
        bp = current_pass()  # (a node's hooks run inside a pass; _grad_outputs counts every piece outside one)
        if bp is not None:
            bp.hook_state.setdefault(self.key, set()).add(self.k)


def _positional_arguments(cls: type, args: tuple, kwargs: dict) -> tuple:
    """``apply``'s arguments as ``forward``'s positional ones, as torch 2.13 passes them: a tensor given
    by keyword is an input like the others (one gradient per position from ``backward``).

    With ``setup_context``, PyTorch binds them to ``forward``'s signature, defaults filled in; without
    it (``forward(ctx, ...)``) its C++ ``apply`` appends the keywords in their parameters' order, up to
    the first one not given (no defaults filled in).  A keyword-only or unknown parameter is a
    TypeError either way (PyTorch passes none by keyword).
    """
    if _overrides(cls, "setup_context"):
        bound = inspect.signature(cls.forward).bind(*args, **kwargs)
        bound.apply_defaults()
        if bound.kwargs:  # (a keyword-only parameter, given or defaulted)
            raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(bound.kwargs))}'")
        return bound.args
    if not kwargs:
        return args
    params = list(inspect.signature(cls.forward).parameters.values())[1:]  # (after ctx)
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for name in kwargs:
        if name not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
        if names.index(name) < len(args):
            raise TypeError(f"forward() got multiple values for argument '{name}'")
    out, left = list(args), dict(kwargs)
    for position in range(len(args), len(names)):
        if not left:
            break
        if names[position] not in left:
            raise TypeError(f"forward() missing required argument: '{names[position]}' (position {position})")
        out.append(left.pop(names[position]))
    return tuple(out)


def _show_ctx_on(node: Any, ctx: Any) -> None:
    """PyTorch's ``grad_fn`` of a custom Function *is* its ctx: what ``forward`` set on ``ctx``
    (``ctx.k = k``) and ``needs_input_grad`` are read on the node (``y.grad_fn.k``).  Copied into
    the node's own attributes once forward has run -- a ``__getattr__`` on ``Node`` would slow
    every attribute read of every node 4x -- never over a name the engine's ``Node`` uses."""
    node.__dict__.update({k: v for k, v in vars(ctx).items()
                          if not k.startswith("_") and not hasattr(_tape.Node, k) and k != "output_of"})


def _overrides(cls: type, name: str) -> bool:
    return inspect.getattr_static(cls, name) is not inspect.getattr_static(Function, name)


_DROPPED_CONSTANT = ("dropped",)


def _made_here(descriptor: tuple) -> tuple | None:
    """The shape and dtype of a saved tensor ``forward`` made (a ``"const"`` descriptor), else None."""
    if descriptor[0] != "const":
        return None
    data = descriptor[1]._data
    return tuple(data.shape), data.dtype


def _saved_divergence(first: tuple, again: tuple) -> str | None:
    """How a checkpoint replay's ``save_for_backward`` differs from the first ``forward``'s, or None.

    The replay runs the user's ``forward`` again to rebuild the tensors it saved: saving another
    number of them, or one of another shape or dtype, would hand ``backward`` values the forward
    pass never had -- a silently wrong gradient.  PyTorch's checkpoint refuses it (its
    ``determinism_check="default"``); so does the segment, with this description.  (Where the
    first ``forward`` saved an input or output, the node keeps reading that one.)"""
    if len(first) != len(again):
        return f"save_for_backward saved {len(first)} tensors in the forward pass, {len(again)} in the replay"
    for i, (meta, d) in enumerate(zip(first, again)):
        if meta is not None and _made_here(d) != meta:
            now = _made_here(d) or "an input or output"
            return f"saved tensor {i} was {meta[1]} {meta[0]} in the forward pass, {_describe(now)} in the replay"
    return None


def _describe(meta: Any) -> str:
    return meta if isinstance(meta, str) else f"{meta[1]} {meta[0]}"


class FunctionNode(Op):
    """The op one ``Function.apply`` call records (see the module docstring).

    One class for every custom function, kept out of the op registry: its attribute is the
    user's class, code the snapshot decoder must never build from a file.  The
    state of one call -- the ``ctx``, which arguments are Tensors, the outputs' layout and the
    saved-tensor descriptors -- lives on the instance, set by ``forward`` (and set again by a
    checkpoint replay, which calls ``forward`` anew).
    """

    abstract = True  # not registered (see above); apply needs no registration
    holomorphic = False  # the user's backward gets the gradient as PyTorch passes it
    runs_without_gradient = True  # PyTorch calls the user's backward when no gradient reached it too
    nothing_reached = False  # (set by the pass around that call: every output's gradient is None)
    function: Any

    @property
    def name(self) -> str:  # type: ignore[override]
        """As PyTorch names the node: ``LegendrePolynomial3Backward``."""
        return f"{self.function.__name__}Backward"

    @property
    def grad_fn_name(self) -> str:
        """What ``grad_fn.name()`` says of the node (PyTorch's ``ExpBackward``)."""
        return self.name

    @property
    def attrs(self) -> dict[str, Any]:
        """None to show in the pictures of the tape: ``forward``'s arguments are the node's inputs
        (``apply`` passes keywords by position, as PyTorch), the function itself is the node's
        name, the rest is per-call state, not attributes."""
        return {}

    def __repr__(self) -> str:
        return f"{self.name}()"

    def explain_error(self, exc: BaseException, method: str, xp: Any, saved: tuple | None = None) -> None:
        """None: an error inside the user's forward or backward is theirs, shown as raised (the
        engine's hints about an op's declared saved values do not apply to user code)."""
        return None

    def check_backward_result(self, grads: tuple, in_shapes: Any, out_shape: tuple) -> None:
        """Nothing more to check: :meth:`_input_grads` checked the user's gradients as PyTorch
        does, on every call.  PyTorch takes a gradient that the input's shape expands to (a
        ``(2, 3)`` gradient for a ``(3,)`` input) and sums it down, as the backward pass does;
        the engine's contract for its own ops refuses one wider than the output, which only on
        the first calls of the class made the same program an error first and an answer after."""

    # ------------------------------------------------------------------ forward
    def prepare(self, args: tuple) -> None:
        """Before the tape runs ``forward``: what the arguments are (forward sees arrays only)."""
        self.ctx = FunctionCtx()
        self.device = next(a._device for a in args if isinstance(a, Tensor))
        self.is_tensor = tuple(isinstance(a, Tensor) for a in args)
        self.in_shapes = tuple(a._data.shape if isinstance(a, Tensor) else None for a in args)
        self.in_complex = tuple(isinstance(a, Tensor) and a._data.dtype.kind == "c" for a in args)
        self.requires = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        self.needs_inside = self._needs_at_the_transforms_level(args)
        self.ctx.needs_input_grad = self.needs_inside  # (PyTorch: whether each requires grad, in no_grad too)
        # The first forward gets the argument objects themselves, as PyTorch's: code keeps them on
        # ctx and asks for gradients with respect to them (a hand-written checkpoint does).
        self._arguments: tuple | None = args

    def _needs_at_the_transforms_level(self, args: tuple) -> tuple:
        """``ctx.needs_input_grad`` as ``torch.func`` gives it inside a transform, at the level of the
        innermost one (``vmap`` aside, which changes none): under ``grad``, ``vjp``, ``jacrev``, an input
        that requires grad *there* -- computed from the arguments it differentiates, not from a tensor
        the function closes over (a weight that requires grad outside: False); under ``jvp``,
        ``jacfwd``, none (forward mode has no gradients to need).  Outside a transform, ``requires_grad``.
        The node's backward sees this in the transform's own pass only (see :meth:`_needs_in_this_pass`)."""
        self.scope = None  # the passing box of the reverse-mode transform that recorded the node, if any
        transform = innermost_transform()
        if transform is None:
            return self.requires
        if transform.reverse is None:
            return (False,) * len(args)
        self.scope, self.scope_start, self.needs_outside = transform.reverse.passing, transform.start, None
        return tuple(r and transform.reverse.reaches_arguments(a) for a, r in zip(args, self.requires))

    def _needs_in_this_pass(self) -> tuple:
        """``needs_input_grad`` for the backward pass now running: the transform's level in the pass of
        the transform that recorded the node; in any other pass -- an outer ``backward()`` through what a
        ``vjp`` handed out, an outer transform's -- the level outside it, as PyTorch's outer node has it:
        an input that requires grad and whose history leads outside (``torch.func``'s two nodes, the
        engine's one)."""
        scope = self.scope
        if scope is None:
            return self.requires
        if scope[0]:
            return self.needs_inside
        if self.needs_outside is None:
            self.needs_outside = tuple(r and reaches_before(e, self.scope_start)
                                       for e, r in zip(self.edges, self.requires))
        return self.needs_outside

    def run_user_forward(self, args: tuple, ctx: FunctionCtx | None) -> Any:
        """The user's ``forward`` (and ``setup_context``) on ``args``, recording nothing and
        pushing no forward-mode tangents (the function's own ``jvp`` gives the output's)."""
        fn = self.function
        ctx = FunctionCtx() if ctx is None else ctx
        # an in-place change in forward (mark_dirty) must not touch the arguments' tangents: the
        # function's jvp receives them, as PyTorch's forward runs with forward mode off
        tangents = [(a, a._tangents) for a in args if isinstance(a, Tensor) and a._tangents]
        hidden = hide_levels()  # in this thread only: another one's mg.func.jvp goes on
        try:
            with no_grad():
                if _overrides(fn, "setup_context"):
                    result = fn.forward(*args)
                    fn.setup_context(ctx, args, result)
                else:
                    result = fn.forward(ctx, *args)
        finally:
            unhide_levels(hidden)
            for a, t in tangents:
                a._tangents = t
        return result

    def forward(self, xp, *values):
        args, self._arguments = self._arguments, None
        replay = args is None  # a checkpoint replay: Tensors around the replayed arrays
        if replay:
            args = tuple(_input_tensor(v, self.device, self.requires[i]) if self.is_tensor[i] else v
                         for i, v in enumerate(values))
        # A replay rebuilds the saved tensors only: the ctx keeps what the first forward set on
        # it (attributes, marks), as PyTorch's checkpoint recomputes saved tensors, not the ctx.
        ctx = self.ctx if not replay else self._scratch_ctx()
        if replay:
            result = self._replay_user_forward(args, ctx)
        else:
            self.rng_state = default_generator.get_state()
            self.autocast_state = autocast_state.capture()
            result = self.run_user_forward(args, ctx)
        self._layout(xp, result, ctx, args, replay)
        saved = self._descriptors(ctx.to_save, args, ctx.dirty_tensors)
        ctx.to_save = ()  # the descriptors hold what backward reads, as long as it may: not the ctx (PyTorch clears it)
        if replay:
            self.replay_divergence = _saved_divergence(self.saved_meta, saved)
        else:
            self.saved_meta = tuple(_made_here(d) for d in saved)
        if replay and len(saved) == len(self.saved):
            # where an input or output is found stays the first forward's, which the node's saved
            # slots follow: one argument given twice is one Tensor there, two wrappers here
            saved = tuple(new if old[0] in ("const", _DROPPED_CONSTANT[0]) else old
                          for old, new in zip(self.saved, saved))
        self.saved = saved
        if not replay:
            self.saved_forward = self._descriptors(ctx.to_save_forward, args, ctx.dirty_tensors)
        # what the node's saved slots keep: the saved inputs, and the output when backward reads
        # it -- or reads an intermediate, which only running ``forward`` again rebuilds
        self.save_inputs = tuple(sorted({d[1] for d in self.saved if d[0] == "in"}))
        self.user_saved_output = any(d[0] == "out" for d in self.saved)
        self.save_output = self.user_saved_output or any(d[0] == "const" for d in self.saved)
        packed = self._pack(xp)
        if replay:  # the node must not hold the user's outputs beyond what it saves
            self.outputs = None
        return packed

    def saved_intermediates(self) -> list:
        """The arrays of the tensors ``save_for_backward`` kept that ``forward`` made (neither an
        input nor an output): what a checkpoint's ``determinism_check="value"`` compares."""
        return [d[1]._data for d in self.saved if d[0] == "const"]

    @property
    def saves_intermediates(self) -> bool:
        """Whether ``backward`` reads a tensor ``forward`` made that is neither an input nor an
        output: inside a checkpoint only running ``forward`` again rebuilds it, so a replay cannot
        take the node's output as kept (by a ``remat`` policy) and skip the node."""
        return any(d[0] in ("const", _DROPPED_CONSTANT[0]) for d in self.saved)

    def _replay_user_forward(self, args: tuple, ctx: FunctionCtx) -> Any:
        """The user's ``forward`` run again by a checkpoint replay, from the engine generator's
        state the first run started from, which is then put back as it was.

        A ``forward`` may draw random numbers (``mg.rand_like`` for a noise it saves): run from
        the generator's current state it would draw others -- a gradient for noise the forward
        pass never used -- and move the generator, so the step after it would differ from the
        same step without checkpointing.  PyTorch's checkpoint (``preserve_rng_state=True``)
        stashes and restores the RNG state around its recomputation for the same reason.

        It runs under the autocast state of the first run too (a backward outside the ``autocast``
        block the forward ran in: ``mg.is_autocast_enabled()`` still answers as it did), as
        PyTorch's checkpoint recomputes under the forward pass's autocast state.
        """
        now = default_generator.get_state()
        default_generator.set_state(self.rng_state)
        try:
            with autocast_state.restored(self.autocast_state):
                return self.run_user_forward(args, ctx)
        finally:
            default_generator.set_state(now)

    def _scratch_ctx(self) -> FunctionCtx:
        ctx = FunctionCtx()
        ctx.needs_input_grad, ctx.materialize_grads = self.ctx.needs_input_grad, self.ctx.materialize_grads
        return ctx

    def _layout(self, xp: Any, result: Any, ctx: FunctionCtx, args: tuple, replay: bool) -> None:
        """Which outputs are differentiable, and where each lies in the packed output."""
        self.single = not isinstance(result, tuple)
        outs = (result,) if self.single else result
        no_grad_ids = {id(t) for t in ctx.non_differentiable}
        if not replay:  # (a replay keeps the first forward's layout, which the node was recorded with)
            self.repeated = _repeated_outputs(outs, args)
        self.outputs, self.parts, start = outs, [], 0
        self.out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in outs]
        for j, o in enumerate(outs):
            if j in self.repeated:
                continue
            if isinstance(o, Tensor) and id(o) not in no_grad_ids and o._data.dtype.kind in "fc":
                if o._device is not self.device:
                    raise RuntimeError(f"{self.function.__name__}.forward returned output {j} on {o.device}, "
                                       f"its inputs are on {self.device}")
                size = int(o._data.size)
                self.parts.append((j, tuple(o._data.shape), start, start + size))
                start += size
        self.differentiable = bool(self.parts)  # no node for a function with nothing to differentiate
        kinds = {outs[j]._data.dtype.kind for j, *_ in self.parts}
        if len(kinds) > 1:  # (a real piece cast from a complex pack would lose its gradient's imaginary part)
            raise NotImplementedError(
                f"{self.function.__name__}.forward returned real and complex differentiable outputs; the engine "
                f"packs them into one array: return them as one kind (view_as_real, or a complex cast)")

    def _pack(self, xp: Any) -> Any:
        if not self.parts:  # nothing is recorded: a placeholder (bool, so no float64 appears on a float32 device)
            return xp.zeros((), dtype=bool)
        if len(self.parts) == 1:
            return self.outputs[self.parts[0][0]]._data
        # outputs of several dtypes are packed in their promoted dtype, each piece cast back (_piece)
        return xp.concatenate([self.outputs[j]._data.reshape(-1) for j, *_ in self.parts])

    def _descriptors(self, tensors: tuple, args: tuple, dirty: tuple = ()) -> tuple:
        """Where each saved tensor is found at backward: ``("in", i)`` the node's saved input i,
        ``("out", k)`` piece k of its output, ``("const", tensor, box)`` kept here.  An input
        marked dirty and returned is the output (its value is the new one, its history this
        node's), as in PyTorch: a double backward differentiates through it."""
        out = []
        parts = {j: k for k, (j, *_) in enumerate(self.parts)}
        for t in tensors:
            if t is None:
                out.append(("none",))
            elif _index(args, t) is not None and _index(dirty, t) is None:
                out.append(("in", _index(args, t), weakref.ref(t)))
            elif any(t is o for o in self.outputs) and _last_index(self.outputs, t) in parts:
                out.append(("out", parts[_last_index(self.outputs, t)]))
            else:
                out.append(("const", Tensor._wrap(t._data, None, t._device), t._version_box, weakref.ref(t)))
        return tuple(out)

    # ------------------------------------------------------------------ handing out
    def hand_out(self, packed: Tensor, args: tuple) -> Any:
        """The user-visible outputs of ``apply``: pieces of the node's output (one output is the
        output itself), the non-differentiable ones as ``forward`` made them."""
        outs = list(self.outputs)
        if self.differentiable:
            if len(self.parts) == 1:
                outs[self.parts[0][0]] = packed
            else:
                plain = innermost_transform() is None  # (outside the mg.func transforms: PyTorch's refusal)
                for k, (j, *_) in enumerate(self.parts):
                    outs[j] = self._piece(packed, k)
                    if outs[j]._requires_grad and plain and _views_an_argument(self.outputs[j], args):
                        outs[j]._custom_function_view = _view_refusal(j, self.function.__name__, True)
                    if outs[j]._node is not None:  # its grad_fn: this call's one node, as PyTorch's
                        outs[j]._node.__dict__["output_of"] = (packed._node, j)  # (tape.output_of)
                    # a version stamp of its own, as PyTorch's outputs are tensors of their own: a write
                    # into one output is no change of another that backward reads (_settle_versions)
                    outs[j]._version_box = [outs[j]._version_box[0]]
                if not self.ctx.materialize_grads:
                    self._watch_pieces(outs)
            self._hand_out_forwards_own_tensors(outs, args)
        for j, last in self.repeated.items():  # one tensor returned twice is one output, as PyTorch's
            outs[j] = outs[last]
        for o in outs:  # a non-differentiable output made by forward (an argument stays as it is)
            if isinstance(o, Tensor) and o._node is None and o is not packed and _index(args, o) is None:
                o._requires_grad = False
        node = packed._node if self.differentiable else None
        if node is not None and len(self.parts) == 1 and self.parts[0][0]:  # (output k: (node, k) after it)
            node.__dict__["output_of"] = (None, self.parts[0][0])
        if node is not None:
            self.edges = node.inputs  # (for _needs_in_this_pass; the node's own inputs, no cycle)
            self._settle_versions(node, packed, outs)
            _show_ctx_on(node, self.ctx)
        if self.differentiable and len(self.parts) == 1 and not self.ctx.dirty_tensors:
            if (_share_version_with_viewed_argument(packed, args, node) and packed._requires_grad
                    and innermost_transform() is None  # (torch.func's transforms take the write)
                    and _views_an_argument(self.outputs[self.parts[0][0]], args)):
                packed._custom_function_view = _view_refusal(self.parts[0][0], self.function.__name__, False)
        if self.ctx.dirty_tensors:
            outs = self._rebind_dirty(outs, args, packed, node)
        self.outputs = None
        return outs[0] if self.single else tuple(outs)

    def _hand_out_forwards_own_tensors(self, outs: list, args: tuple) -> None:
        """Each differentiable output *is* the tensor ``forward`` made and returned, as in PyTorch,
        which gives that very object the node's history: code that keeps it on ``ctx`` as an attribute
        (``ctx.result = result``, the forward-AD tutorial's ``jvp``) reads the output, with its history,
        so a gradient built from it with ``create_graph=True`` differentiates through the function again.
        A tensor that shares memory (a view of an argument, of another output) or came in as an argument
        is not taken: the handed-out tensor stays (that memory has other holders to keep apart)."""
        made = [self.outputs[j] for j, *_ in self.parts]
        for k, (j, *_) in enumerate(self.parts):
            if sum(m is made[k] for m in made) == 1 and _adopt_history(made[k], outs[j], args):
                outs[j] = made[k]  # (one tensor at two positions the mg.func transforms keep apart: not taken)

    def _watch_pieces(self, outs: list) -> None:
        """``set_materialize_grads(False)`` with several outputs: the node's gradient is one packed
        array, where a piece no gradient reached is zeros -- so each piece's node notes that a
        gradient reached it (a gradient hook), and ``backward`` passes None for the others."""
        self.reached_key = object()
        for k, (j, *_) in enumerate(self.parts):
            node = outs[j]._node
            if node is not None:
                _watch(node, _PieceReached(self.reached_key, k))

    def _settle_versions(self, node: Any, packed: Tensor, outs: list) -> None:
        """The version stamps the node checks at backward: its saved inputs', the constants', and
        the outputs' that backward reads -- of several outputs, each piece's own stamp (a write into
        one piece changes no other), not the packed output's."""
        boxes = tuple(d[2] for d in self.saved if d[0] == "const")
        if self.save_output and (not self.user_saved_output or len(self.parts) > 1):  # (not read, or by piece)
            node.versions = tuple(b for b in node.versions if b is not packed._version_box)
        if self.user_saved_output and len(self.parts) > 1:
            read = sorted({d[1] for d in self.saved if d[0] == "out"})
            boxes = boxes + tuple(outs[self.parts[k][0]]._version_box for k in read)
        node.versions = node.versions + boxes
        if node.saved is _tape.DROPPED:  # checkpointed: the replay rebuilds the intermediates
            self.saved = tuple(_DROPPED_CONSTANT if d[0] == "const" else d for d in self.saved)
        elif type(node.saved) is _tape.PackedSaved and (hooks := _tape.this_threads_saved_hooks()):
            self.pack_intermediates(*hooks, self.device)  # (the tape packed the inputs and output it keeps)

    def pack_intermediates(self, pack_hook: Any, unpack_hook: Any, device: Any) -> None:
        """Put the intermediates ``save_for_backward`` kept here through the saved-tensor hooks, as
        the tape puts the node's saved inputs and output: PyTorch packs every tensor saved, and a hook
        that changes values (``pack t * 2``) changes what ``backward`` reads of each.  Called as the
        node is recorded, and by a checkpoint segment's replay, which rebuilds them."""
        self.saved = tuple(("const", _tape.PackedSaved.packing((d[1]._data,), pack_hook, unpack_hook, device),
                            *d[2:]) if d[0] == "const" and isinstance(d[1], Tensor) else d
                           for d in self.saved)

    def _rebind_dirty(self, outs: list, args: tuple, packed: Tensor, node: Any) -> list:
        """``mark_dirty``: the input changed in place is itself the output, its history this node."""
        for t in self.ctx.dirty_tensors:
            i = _index(args, t)
            if i is None:
                raise RuntimeError("mark_dirty: only inputs of forward can be marked dirty")
            x = args[i]
            if not any(o is t for o in self.outputs):
                raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                                   "output. The inputs that are modified inplace must all be outputs of the Function.")
            if len(self.parts) != 1 or outs[self.parts[0][0]] is not packed or packed._data is not t._data:
                raise NotImplementedError(
                    f"{self.function.__name__}: mark_dirty needs the dirty input returned as the one "
                    f"differentiable output (several outputs are packed into one array, a copy)")
            if x._requires_grad and x._node is None and _grad_state.enabled:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            if node is not None and node.saved is _tape.DROPPED:
                raise RuntimeError(f"{self.function.__name__}: mark_dirty inside mg.checkpoint would "
                                   f"apply the in-place change again when the segment replays")
            if (node is not None or packed._tangents) and x._memory_is_shared():
                _follow_write_through_shared_memory(x, packed, node)
            if node is not None:
                node.versions = tuple(x._version_box if b is packed._version_box else b for b in node.versions)
                x._node, x._requires_grad = node, True
            x._tangents = packed._tangents
            outs[self.parts[0][0]] = x
        return outs

    # ------------------------------------------------------------------ backward
    def backward(self, xp, g, out, *inputs):
        graph = isinstance(g, Tensor)  # create_graph: Tensors on the graph, recording on
        ctx = self.ctx
        ctx.needs_input_grad = self._needs_in_this_pass()
        ctx._unpacked = self._unpack(self.saved, out, inputs, graph)
        fn = self.function
        user_backward = fn.vjp if _overrides(fn, "vjp") and not _overrides(fn, "backward") else fn.backward
        try:
            result = user_backward(ctx, *self._grad_outputs(g, graph))
        finally:
            ctx._unpacked = None
        grads = self._input_grads(result, graph)
        self._free_intermediates()
        return grads

    def _free_intermediates(self) -> None:
        """Let go of the intermediates ``save_for_backward`` kept here once a pass that frees the
        node's saved values has run its backward, as it lets go of the node's saved slots (PyTorch
        frees every saved tensor then): the node lives on with its output tensor, and kept them, an
        array the size of each, until that tensor died.  A checkpoint replay rebuilds them."""
        bp = current_pass()
        if bp is not None and not bp.retain_graph and any(d[0] == "const" for d in self.saved):
            self.saved = tuple(_DROPPED_CONSTANT if d[0] == "const" else d for d in self.saved)

    def saved_tensors_of(self, node: Any, out: Any, inputs: tuple) -> tuple:
        """``node.saved_tensors`` outside backward (its saved ``out`` and ``inputs``): what ``save_for_backward``
        saved, as ``ctx.saved_tensors`` reads it in backward -- a leaf input as the leaf itself, as PyTorch's."""
        return self._unpack(self.saved, out, inputs, graph=False)

    def _unpack(self, descriptors: tuple, out: Any, inputs: tuple, graph: bool) -> tuple:
        """The saved tensors, from the node's saved slots (Tensors on the graph with
        ``create_graph``) and the constants kept here."""
        found = []
        for d in descriptors:
            kind = d[0]
            if kind == "none":
                found.append(None)
            elif kind == "in":
                itself = None if graph else _saved_itself(d[2], inputs[d[1]])
                found.append(self._tensor(inputs[d[1]]) if itself is None else itself)
            elif kind == "out":
                found.append(self._saved_output(out, d[1], graph))
            elif kind == "const" and type(d[1]) is _tape.PackedSaved:  # through the unpack hook, at each read
                found.append(self._tensor(d[1].value(0)))
            elif kind == "const":
                itself = _saved_itself(d[3], d[1]._data)
                found.append(d[1] if itself is None else itself)
            else:
                raise RuntimeError(f"{self.name}: the saved intermediates were dropped by mg.checkpoint "
                                   f"and not rebuilt (internal error)")
        return tuple(found)

    def _saved_output(self, out: Any, k: int, graph: bool) -> Tensor:
        """Piece ``k`` of the node's output, saved by ``forward``.  On the graph (``create_graph``) it
        is one more way a later pass's gradient reaches the node, besides the pieces handed out: watched
        too (``_watch_pieces``), or that pass would hand ``backward`` None for it -- a wrong second
        derivative after ``set_materialize_grads(False)``."""
        piece = self._tensor(self._piece(out, k))
        key = getattr(self, "reached_key", None)
        if graph and key is not None and piece._node is not None:
            _watch(piece._node, _PieceReached(key, k))
        return piece

    def _tensor(self, v: Any) -> Tensor:
        return v if isinstance(v, Tensor) else Tensor._wrap(v, None, self.device)

    def _zeros(self, shape: tuple, dtype: Any) -> Tensor:
        return Tensor._wrap(self.device.xp.zeros(shape, dtype=dtype), None, self.device)

    def _piece(self, packed: Any, k: int) -> Any:
        """Piece ``k`` of the packed output (or gradient, or tangent): an array or a Tensor, in
        its output's dtype (the pack is in the outputs' promoted dtype; a Tensor's cast is recorded)."""
        if len(self.parts) == 1:
            return packed
        j, shape, start, stop = self.parts[k]
        piece = packed[start:stop].reshape(shape)
        dtype = self.out_meta[j][1]
        if piece.dtype == dtype:
            return piece
        return piece.to(dtype) if isinstance(piece, Tensor) else piece.astype(dtype)

    def output_gradients(self, g: Any) -> tuple:
        """The node's gradient ``g`` as PyTorch's node has it: one per output of forward (what its hooks
        get as ``grad_outputs``), the pieces of ``g`` -- zeros for an output no gradient reached, where
        PyTorch's is None, except after ``set_materialize_grads(False)``, whose pieces are watched."""
        grads: list = [None] * len(self.out_meta)
        # None: every piece counts as reached; else the pieces this pass reached (_PieceReached)
        key, bp = getattr(self, "reached_key", None), current_pass()
        reached = None if key is None or bp is None else bp.hook_state.get(key, ())
        if self.nothing_reached:
            reached = ()
        for k, (j, *_) in enumerate(self.parts):
            if reached is None or k in reached:
                grads[j] = self._piece(g, k)
        return tuple(grads)

    def packed_gradient(self, grads: tuple, like: Tensor) -> Tensor:
        """What a node hook returned, one gradient per output (None: zeros), as the node's gradient."""
        pieces = []
        for j, shape, *_ in self.parts:
            r = grads[j]
            if r is not None and (not isinstance(r, Tensor) or tuple(r.shape) != shape):
                got = list(r.shape) if isinstance(r, Tensor) else type(r).__name__
                raise RuntimeError(f"a hook of {self.name} returned an invalid gradient at index {j} - got {got} "
                                   f"but expected shape compatible with {list(shape)}")
            pieces.append(self._zeros(shape, like.dtype) if r is None else r.to(like.dtype))
        if len(pieces) == 1:
            return pieces[0]
        return _tape.differentiable_namespace.concatenate([p.reshape(-1) for p in pieces])

    def _grad_outputs(self, g: Any, graph: bool) -> list:
        """One gradient per output of forward: the pieces of ``g``; zeros (or None, after
        ``set_materialize_grads(False)``) for a non-differentiable Tensor output; None otherwise."""
        grads = [None if p is None else self._tensor(p) for p in self.output_gradients(g)]
        if self.ctx.materialize_grads:
            for j, meta in enumerate(self.out_meta):
                if grads[j] is None and meta is not None:
                    grads[j] = self._zeros(*meta)
        return grads

    def _input_grads(self, result: Any, graph: bool) -> tuple:
        """The user's gradients checked as PyTorch checks them, one per argument of ``apply``."""
        result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        n = len(self.is_tensor)
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError(f"function {self.name} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(result)})")
        grads = []
        for i, r in enumerate(result[:n]):
            if r is None:
                grads.append(None)
                continue
            if not self.is_tensor[i]:
                raise RuntimeError(f"function {self.name} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
            if not isinstance(r, Tensor):  # (PyTorch's RuntimeError: 'expected Variable or None (got float)')
                raise RuntimeError(f"function {self.name} returned a {type(r).__name__} as the gradient at "
                                f"index {i}; a gradient is a Tensor (or None)")
            if r.dtype.kind == "c" and not self.in_complex[i]:  # PyTorch's check (its part would be dropped)
                raise RuntimeError(f"function {self.name} returned a complex gradient at index {i} for a real "
                                   f"input: Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                                   f"grad_is_complex) to be true, but got false.")
            if not _expandable(self.in_shapes[i], tuple(r.shape)):
                raise RuntimeError(f"Function {self.name} returned an invalid gradient at index {i} - got "
                                   f"{list(r.shape)} but expected shape compatible with {list(self.in_shapes[i])}")
            grads.append(r if graph else r._data)
        return tuple(grads)

    # ------------------------------------------------------------------ forward mode
    def jvp(self, xp, tangents, out, *inputs):
        fn = self.function
        if not _overrides(fn, "jvp"):
            raise _missing_jvp(self.name, fn.__name__)
        graph = isinstance(out, Tensor)
        ts = self._input_tangents(tangents, inputs)
        ctx = self.ctx
        if graph and len(self.parts) == 1 and self.outputs is not None:  # (jvp reads ctx.result as the output)
            _adopt_history(self.outputs[self.parts[0][0]], out, inputs)
        ctx._unpacked = self._unpack(self.saved_forward, out, inputs, graph)
        # under an mg.func transform, none (torch.func's jvp level needs no gradient); under forward_ad's
        # dual numbers alone, whether each requires grad
        ctx.needs_input_grad = (False,) * len(ts) if innermost_transform() is not None else self.requires
        try:
            result = fn.jvp(ctx, *ts)
        finally:
            ctx._unpacked = None
            ctx.needs_input_grad = self.needs_inside
        result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(result) != len(self.out_meta):
            raise RuntimeError(f"{fn.__name__}.jvp returned {len(result)} tangents for "
                               f"{len(self.out_meta)} outputs of forward")
        self._check_output_tangents(result)
        pieces = []
        for j, *_ in self.parts:
            r = result[j]
            if r is None:
                r = self._zeros(*self.out_meta[j])
            if tuple(r.shape) != self.out_meta[j][0]:  # PyTorch refuses it (it was broadcast here)
                raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the "
                                   f"original Tensor, this is not supported. Tensor is of size "
                                   f"{list(self.out_meta[j][0])} while the given forward gradient is of size "
                                   f"{list(r.shape)}.")
            pieces.append(r if graph else r._data)
        if len(pieces) == 1:
            return pieces[0]
        return xp.concatenate([p.reshape(-1) for p in pieces])

    def _input_tangents(self, tangents: tuple, inputs: tuple) -> list:
        """The tangents handed to the user's ``jvp``: an input without one gets zeros, or None
        after ``set_materialize_grads(False)`` (as PyTorch's), a non-Tensor argument None."""
        materialize = self.ctx.materialize_grads
        return [None if not self.is_tensor[i] or (t is None and not materialize) else self._tensor(t)
                if t is not None else self._zeros(_array(inputs[i]).shape, _array(inputs[i]).dtype)
                for i, t in enumerate(tangents)]

    def _check_output_tangents(self, result: tuple) -> None:
        """PyTorch's refusals of what the user's ``jvp`` returns: a tangent that is not a Tensor
        (or None), and a tangent for an output that has none (marked non-differentiable, an
        integer tensor): dropping it would hide a mistake in ``jvp``."""
        differentiable = {j for j, *_ in self.parts}
        for j, r in enumerate(result):
            if r is not None and not isinstance(r, Tensor):  # (torch 2.13's words)
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__}) for grad output {j}.")
            if r is not None and j not in differentiable and j not in self.repeated:
                raise RuntimeError(f"Function's jvp returned a gradient at position {j}, but  the corresponding "
                                   f"forward output is not a differentiable Tensor.You should return None at "
                                   f"that position instead.")  # (torch 2.13's words)


def _adopt_history(made: Any, given: Tensor, args: tuple) -> bool:
    """Give ``made``, a tensor a Function's ``forward`` made and returned, the output ``given``'s
    array, node, version box and tangents, so the two are one output (see
    ``FunctionNode._hand_out_forwards_own_tensors``); False where ``made`` is not taken."""
    if given._node is None or made._node is not given._node:  # (not adopted already, by jvp)
        if (made.__class__ is not given.__class__ or made._node is not None or made._requires_grad
                or _index(args, made) is not None or made._memory_is_shared()):
            return False
    made._data, made._node, made._version_box = given._data, given._node, given._version_box
    made._requires_grad, made._tangents = given._requires_grad, given._tangents
    made._custom_function_view, made._dual_lineage = given._custom_function_view, given._dual_lineage
    made.__dict__.pop("_born", None)  # (a constant's mark, set at birth inside a transform)
    if "_born" in given.__dict__:
        made._born = given._born
    made._tell_segment_of_history()  # (a checkpoint segment follows this tensor's life, not given's)
    return True


def _view_refusal(k: int, function: str, several: bool) -> str:
    """PyTorch's words refusing an in-place change of output ``k``, an input's memory (one output of
    several: its MULTI_OUTPUT_NODE creation meta)."""
    if several:
        return (f"Output {k} of {function} is a view and is being modified inplace. This view is the output of a "
                f"function that returns multiple views. Such functions do not allow the output views to be "
                f"modified inplace. You should replace the inplace operation by an out-of-place one.")
    return (f"Output {k} of {function} is a view and is being modified inplace. This view was created inside a "
            f"custom Function (or because an input was returned as-is) and the autograd logic to handle "
            f"view+inplace would override the custom backward associated with the custom Function, leading to "
            f"incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
            f"custom Function.")


def _views_an_argument(out: Any, args: tuple) -> bool:
    """Whether ``forward``'s output ``out`` is an argument, or a view of one -- not a detached alias of its
    memory (``detach()``, ``.data``, ``from_numpy(x.numpy())``: a new alias group), which PyTorch lets be
    written, as it is no view there."""
    if not isinstance(out, Tensor):
        return False
    xp = out._device.xp
    memory = xp.memory_owner(out._data)
    return any(isinstance(a, Tensor) and xp.memory_owner(a._data) is memory and a._alias_group is out._alias_group
               for a in args)


def _share_version_with_viewed_argument(out: Tensor, args: tuple, node: Any) -> bool:
    """An output that is an argument's memory (``return x``, ``return x[:2]``) shares its version
    box, as a view does: an in-place change of either is then seen by every node that saved the
    other (PyTorch: the output is a view of the input).  True where it is one."""
    xp = out._device.xp
    memory = xp.memory_owner(out._data)
    for a in args:
        if isinstance(a, Tensor) and xp.memory_owner(a._data) is memory:
            if node is not None:
                node.versions = tuple(a._version_box if b is out._version_box else b for b in node.versions)
            out._version_box = shared_version(a, out)
            return True
    return False


def _follow_write_through_shared_memory(x: Tensor, packed: Tensor, node: Any) -> None:
    """``mark_dirty`` of a view (or a base, or an alias): the change the user's ``forward`` made
    in the memory is recorded as any in-place write there is -- the base and the other views that
    show the written elements take their part of this node's output as their history (PyTorch's
    ``CopySlices``), so gradients through them reach the function's ``backward`` and, in forward
    mode, their tangents are the function's ``jvp``'s there."""
    if node is not None:
        x._check_rebase("mark_dirty")  # PyTorch's refusals: a view of a leaf that requires grad, ...
    x._rebase(packed, "mark_dirty")  # into the memory (the same values), the sharers following
    if node is not None:  # the write's version stamp is newer than the node that saved the output,
        x._version_box[0] = node.seq  # which is this very change: only a later change makes backward refuse


def _missing_jvp(node: str, function: str) -> MissingJvpError:
    err = MissingJvpError(node)
    err.args = (f"{function} has no jvp, so forward mode (mg.func.jvp, jacfwd, hessian) cannot run it: "
                f"define a @staticmethod jvp(ctx, *tangents) on {function} returning the output tangents "
                f"(ctx.save_for_forward keeps what it reads), as in PyTorch",)
    return err


def _input_tensor(value: Any, device: Any, requires_grad: bool) -> Tensor:
    """The Tensor a replayed ``forward`` gets for an input array: its memory and, as the
    argument had, its ``requires_grad`` (recording is off inside)."""
    t = Tensor._wrap(value, None, device)
    t._requires_grad = requires_grad
    return t


def _array(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def _index(items: Any, t: Any) -> int | None:
    return next((i for i, o in enumerate(items) if o is t), None)


def _last_index(items: Any, t: Any) -> int | None:
    return next((i for i in range(len(items) - 1, -1, -1) if items[i] is t), None)


def _repeated_outputs(outs: tuple, args: tuple) -> dict[int, int]:
    """``{j: k}`` for each position ``j`` where ``forward`` returned the tensor it returns again, last, at
    ``k`` (``return y, y``): PyTorch hands that tensor out once, as the output at ``k`` -- the same object
    at every position, whose gradient ``backward`` receives at ``k``, zeros (or None) at ``j`` -- and the
    jvp's tangent at ``k`` is its tangent.  Not an argument returned twice (PyTorch's are two views of
    it), nor inside an ``mg.func`` transform (``vmap`` and ``mg.autograd.functional``'s aside, which
    PyTorch runs without levels), where ``torch.func`` keeps the positions apart (``jvp`` answers a
    tangent per position, ``vjp`` takes a cotangent per position)."""
    if len(outs) < 2 or innermost_transform() is not None:
        return {}
    repeated = {}
    for j, o in enumerate(outs):
        if isinstance(o, Tensor) and _index(args, o) is None:
            last = _last_index(outs, o)
            if last != j:
                repeated[j] = last
    return repeated


def _expandable(shape: tuple, grad_shape: tuple) -> bool:
    """``shape`` broadcasts to ``grad_shape`` (the engine sums such a gradient back down)."""
    if len(grad_shape) < len(shape):
        return False
    return all(s == gs or s == 1 for s, gs in zip(shape[::-1], grad_shape[::-1]))


# ---------------------------------------------------------------------------
# once_differentiable
# ---------------------------------------------------------------------------
class OnceDifferentiable(Op):
    """The identity on a gradient that a ``@once_differentiable`` backward returned: its own
    derivative is an error, as PyTorch's ``DelayedError`` node (inputs: the gradient, then the
    incoming gradients that required grad, which connect it to the graph)."""

    abstract = True  # an internal marker, not a math op: outside the registry and its battery
    name = "OnceDifferentiable"
    save_inputs = False

    def forward(self, xp, value, *connected):
        return value

    def backward(self, xp, g, out, value, *connected):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")

    def jvp(self, xp, tangents, out, value, *connected):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def once_differentiable(fn: Any) -> Any:
    """Decorate a custom function's ``backward`` that is not itself differentiable (written with
    ``.numpy()``, say): it runs with recording off, and differentiating its result -- a double
    backward through it -- is an error, not a silent zero (PyTorch's decorator)."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not _grad_state.enabled:
            return outputs
        connected = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
        if not connected:
            return outputs
        single = not isinstance(outputs, tuple)
        marked = tuple(_tape.apply(OnceDifferentiable(), o, *connected)
                       if isinstance(o, Tensor) and o._data.dtype.kind in "fc" else o
                       for o in ((outputs,) if single else outputs))
        return marked[0] if single else marked
    return wrapper
