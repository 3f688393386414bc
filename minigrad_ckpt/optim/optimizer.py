"""The optimizer base: parameter groups, the step, per-parameter state, state dicts.

Every optimizer takes the same step (:meth:`Optimizer.step`): for each
parameter group, for each parameter that has a gradient, create its state on
first use (:meth:`~Optimizer.init_state`), count the step, apply weight decay,
then the optimizer's own rule for that one parameter
(:meth:`~Optimizer.update_one`).  An optimizer is therefore its defaults, its
initial state and one per-parameter rule (DeZero's ``update`` / ``update_one``).

Updates are written in place on the parameters' arrays (under ``no_grad``)
and bump each parameter's version, so a graph that saved an old value cannot
be backpropagated silently after the step.

A complex parameter is updated as PyTorch does: as its real view
(``view_as_real``: the real and imaginary parts as a trailing axis of two
floats), so each update equals the update of two real parameters; its state
(moments, accumulators) is kept as PyTorch keeps it, complex in the
parameter's shape, and the rule sees its real view too.  With the gradient
convention ``grad = dL/dRe + i dL/dIm`` (docs/complex.md) this is plain
gradient descent on the real and imaginary parts -- the rules need no complex
arithmetic of their own.
"""

from __future__ import annotations

import copy
import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from ..backend import host_numpy, laid_out, to_host
from ..grad_mode import enable_grad, no_grad
from ..nn.module import _HookHandle, zero_gradient_in_place
from ..tensor import Tensor, large_enough_for_chunks, update_in_chunks
from ..user_frame import stacklevel_outside_the_engine
from ._common import as_one_value, complex_of_real, plain_number, real_view, scalar_tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook", "required"]


class _RequiredParameter:
    """The type of :data:`required`."""

    def __repr__(self) -> str:
        return "<required parameter>"


#: PyTorch's sentinel for a hyper-parameter with no default: a subclass writes
#: ``def __init__(self, params, lr=required)``, and a group that does not give ``lr`` is a
#: ``ValueError`` when it is added rather than a ``required`` object reaching the update.
required = _RequiredParameter()


class Optimizer:
    """Base class: ``Optimizer(params, defaults)`` where ``params`` is an iterable of
    tensors or of dicts (parameter groups with their own hyper-parameters)."""

    # Whether each state tensor has its parameter's shape (checked on load); LBFGS keeps flat vectors.
    state_follows_parameter_shape: bool = True
    # Whether its state holds lists (of tensors and numbers); a snapshot's lists are refused otherwise.
    state_holds_lists: bool = False
    # The state entries PyTorch keeps as 0-d tensors (``scalar_tensor``); the rules read them as numbers.
    scalar_state_keys: tuple[str, ...] = ("step",)
    # Those of them the rule multiplies in place in the state tensor's own dtype (NAdam's ``mu_product *= mu``:
    # float64 once ``load_state_dict`` cast it to a float64 parameter's dtype); read as NumPy scalars of it.
    scalar_products: tuple[str, ...] = ()
    # Whether update_one applies weight_decay itself (Adafactor reads the parameter's
    # norm before decaying it), so the shared step leaves it to the rule.
    decays_in_rule: bool = False
    _pieces_follow_the_rule: bool = False  # (set for each subclass: see __init_subclass__)
    # PyTorch's order of the defaults (so of each group's keys, what state_dict()["param_groups"], a
    # saved checkpoint and ``for k, v in group.items()`` show), where it is not the order given
    group_keys: tuple[str, ...] = ()

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):  # iterating it would give its rows, none of them a leaf
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__name__}")
        first = [k for k in self.group_keys if k in defaults]
        self.defaults = {k: defaults[k] for k in first + [k for k in defaults if k not in first]}
        # per-parameter state, keyed by the parameter; a parameter without state reads as {} (PyTorch's)
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for g in groups:
            self.add_param_group(g)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """An optimizer that writes its own ``step`` (LBFGS, one written by hand) still runs the
        step hooks and notes that it stepped, as every step does (``_opt_called``: a scheduler's
        first step checks it)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("step")
        if callable(own) and not getattr(own, "_runs_step_hooks", False):
            cls.step = _with_step_hooks(own)
        # A subclass that overrides update_one alone (a clipped gradient: the documented extension
        # point) inherits a piecewise_rule that knows nothing of the override: it steps whole arrays.
        cls._pieces_follow_the_rule = _owner(cls, "piecewise_rule") is _owner(cls, "update_one")

    # ------------------------------------------------------------ hooks (PyTorch's)
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> _HookHandle:
        """``hook(optimizer, args, kwargs)`` before each step (``args`` starts with the optimizer, as
        PyTorch's); it may return ``(new_args, new_kwargs)`` for the step.  ``handle.remove()`` undoes."""
        return _register(self, "_optimizer_step_pre_hooks", hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> _HookHandle:
        """``hook(optimizer, args, kwargs)`` after each step."""
        return _register(self, "_optimizer_step_post_hooks", hook)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> _HookHandle:
        """``hook(optimizer)`` before :meth:`state_dict` builds the dict."""
        return _register(self, "_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable[..., Any], prepend: bool = False) -> _HookHandle:
        """``hook(optimizer, state_dict)`` after :meth:`state_dict`; a dict it returns replaces the result."""
        return _register(self, "_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> _HookHandle:
        """``hook(optimizer, state_dict)`` before :meth:`load_state_dict`; a dict it returns is loaded instead."""
        return _register(self, "_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any], prepend: bool = False) -> _HookHandle:
        """``hook(optimizer)`` after :meth:`load_state_dict`."""
        return _register(self, "_optimizer_load_state_dict_post_hooks", hook, prepend)

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a group (a dict: ``"params"`` and hyper-parameters; the optimizer's defaults fill
        the rest).  As in PyTorch the dict itself becomes the group, ``params`` may hold
        ``(name, tensor)`` pairs (``named_parameters()``; the names are kept as ``"param_names"``),
        and a tensor that does not require grad is accepted -- a frozen layer's weight simply never
        has a gradient to step with."""
        if not isinstance(group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(group)}")
        ps = group["params"]
        if isinstance(ps, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        ps = [ps] if isinstance(ps, Tensor) else list(ps)
        names = [p[0] for p in ps if isinstance(p, tuple)]
        group["params"] = ps = [p[1] if isinstance(p, tuple) else p for p in ps]
        if names:
            if len(names) != len(ps):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            group["param_names"] = names
        for p in ps:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            if v is required and k not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {k}")
            group.setdefault(k, v)
        if len({id(p) for p in ps}) != len(ps):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=stacklevel_outside_the_engine())
        self._check_new_group(group)
        self.param_groups.append(group)

    def _check_new_group(self, group: dict[str, Any]) -> None:
        """PyTorch's rules across groups: a parameter in one group only; names in all or none."""
        seen = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
            if ("param_names" in group) != ("param_names" in g):
                which = "with names" if "param_names" in group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add param "
                                 f"group {which} to the optimizer")
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

    def zero_grad(self, set_to_none: bool = True) -> None:
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        zero_gradient_in_place(p.grad)

    # ------------------------------------------------------------------ the step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss, or None.

        ``closure`` (as in PyTorch) re-evaluates the model and returns the loss; it is
        called once, with gradients enabled, before the update.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        # a diverged gradient (+-inf) gives PyTorch's NaN or inf parameters without a word: NumPy would
        # warn of inf / inf and inf * 0 (CuPy never warns); one errstate for the whole step
        with no_grad(), host_numpy.errstate(invalid="ignore", divide="ignore", over="ignore"):
            for group in self.param_groups:
                hyper = _with_python_numbers(group)
                for p in group["params"]:
                    if p.grad is not None:
                        self._step_parameter(p, hyper)
        return loss

    def _step_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        """The part of a step every optimizer shares, then its own rule for ``p``."""
        key = p
        if p._data.dtype.kind == "c":  # PyTorch's rule: update the real view (see the module docstring)
            self.check_complex_parameter(p, group)
            p = self.as_real(p)
        st = self.state.get(key)
        if not st:
            st = self._initial_state(key, group)
            if st:  # an optimizer without per-parameter state keeps none (SGD without momentum)
                self.state[key] = st
        if "step" in st:  # PyTorch's step_t += 1, in place
            st["step"] = _counted(st["step"])
        # a real parameter without state (plain SGD) has nothing to translate for its rule: 6% of
        # a tiny-tensor step's instructions (benchmarks/instructions.py regression) went to it
        stateless = not st and key is p
        work = st if stateless else self._as_the_rule_reads(st, key)
        given = None if stateless else dict(work)
        g = p._grad._data  # (step() asked p.grad, with its warning for a non-leaf: set, here)
        # only an optimizer with a weight_decay hyper-parameter applies it: a stray group key is ignored
        # by PyTorch's Rprop, so it is here
        wd = group.get("weight_decay", 0) if "weight_decay" in self.defaults and not self.decays_in_rule else 0
        if stateless or not self._step_in_pieces(p, g, wd, work, group):
            if group.get("maximize"):  # PyTorch's order: negate first, then weight decay
                g = -g
            if wd:
                if self.decouples_weight_decay(group):
                    p.mul_(as_one_value(1 - group["lr"] * wd))  # AdamW's rule: decay the parameter, not the gradient
                else:
                    g = g + wd * p._data
            self.update_one(p, g, work, group)
        if not stateless:
            self._file_rule_changes(st, given, work, key)
        if key is not p:  # a complex parameter was updated through its real view
            key.increment_version()

    def _initial_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        """:meth:`init_state` for ``p`` as it is kept, as PyTorch keeps it: in ``p``'s own shape
        and dtype (a complex parameter's moments are complex; the rule sees their real view), and
        the :attr:`scalar_state_keys` as 0-d tensors."""
        st = self.init_state(p if p._data.dtype.kind != "c" else self.as_real(p), group)
        if not st:  # plain SGD asks for this every step: nothing to make (as_real's test inline: with the trims of
            # this step, Tensor._sub_scaled_ and _check_write, a 16-16-10 MLP's opt.step() 248k -> 205k instructions)
            return st
        st = _state_in_shape_of(st, p)
        fused = bool(group.get("fused"))  # PyTorch's fused kernels count their steps in float32
        return {k: scalar_tensor(v, single=fused and k == "step") if k in self.scalar_state_keys and v is not None
                else v for k, v in st.items()}

    def _as_the_rule_reads(self, state: dict[str, Any], p: Tensor) -> dict[str, Any]:
        """``state`` as :meth:`update_one` reads it: a complex parameter's tensors as their real
        views (sharing memory, so in-place updates land in the state), the scalar tensors as their
        numbers (PyTorch's rules read ``step_t.item()``)."""
        work = _state_as_real(state) if p.dtype.kind == "c" else dict(state)
        for k in self.scalar_state_keys:
            if isinstance(work.get(k), Tensor):
                number = work[k].item()
                work[k] = host_numpy.dtype(work[k].dtype).type(number) if k in self.scalar_products else number
        return work

    def _file_rule_changes(self, state: dict[str, Any], given: dict[str, Any], work: dict[str, Any],
                           p: Tensor) -> None:
        """What the rule replaced or added in ``work`` (the ``given`` view of ``state``) goes into
        ``state``: a scalar into its 0-d tensor, in place (PyTorch's ``mu_product *= mu``); a new
        tensor (SGD's first momentum buffer) in ``p``'s shape.  What it updated in place is there."""
        changed = {k: v for k, v in work.items() if v is not given.get(k)}
        for k, v in changed.items():
            if k in self.scalar_state_keys and isinstance(state.get(k), Tensor) and not isinstance(v, Tensor):
                state[k].fill_(v)
            else:
                state[k] = _state_in_shape_of({k: v}, p)[k]

    @staticmethod
    def as_real(p: Tensor) -> Tensor:
        """What the update rules see of ``p``: ``p`` itself if it is real; a complex ``p`` as
        a float tensor of shape ``p.shape + (2,)`` (real, imaginary) sharing its memory -- an
        update of the view is an update of ``p``, whose version the step restamps -- with its
        gradient viewed alike.  Its state is filed under ``p``."""
        if p.dtype.kind != "c":
            return p
        view = Tensor.constant(real_view(p._data), p.device)
        if p.grad is not None:
            view.grad = Tensor.constant(real_view(p.grad._data), p.device)  # (any strides; a 0-d one stays 0-d)
        return view

    def check_complex_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        """Refuse the complex parameter ``p`` if this optimizer cannot step it in ``group`` (PyTorch's
        fused kernels); by default every optimizer steps it through its real view."""

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        """The state of ``p`` before its first update (a ``"step"`` entry is counted by
        :meth:`step`); default: none."""
        return {}

    def decouples_weight_decay(self, group: dict[str, Any]) -> bool:
        """Whether weight decay shrinks the parameter (AdamW) instead of adding to the gradient."""
        return bool(group.get("decoupled_weight_decay", False))

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """Update ``p`` in place from ``g`` (its gradient's array, weight decay applied),
        its ``state`` and its ``group``'s hyper-parameters."""
        raise NotImplementedError(f"{type(self).__name__} defines neither update_one nor step")

    def piecewise_rule(self, state: dict[str, Any], group: dict[str, Any]) -> tuple[Callable[..., None],
                                                                                   dict[str, Tensor]] | None:
        """:meth:`update_one`'s arithmetic on plain arrays, for a large CPU parameter stepped a piece at a
        time (:func:`minigrad_ckpt.tensor.update_in_chunks`): ``(rule, tensors)``, where ``tensors`` are the
        state tensors it writes by name and ``rule(g, p, arrays)`` updates the piece ``p`` and the pieces
        ``arrays[name]`` in place from ``g`` (the gradient, weight decay applied) -- the same operations in
        the same order and dtypes as :meth:`update_one`, so the same values (a NaN's sign aside: NumPy's
        loops may pick either of two NaNs meeting in a sum).  None: no such rule for this state and group
        (the default; tensor hyper-parameters, a state still to be made), and :meth:`update_one` steps the
        whole arrays.  Define the two together: a subclass overriding ``update_one`` alone steps whole
        arrays."""
        return None

    def _step_in_pieces(self, p: Tensor, g: Any, wd: Any, work: dict[str, Any], group: dict[str, Any]) -> bool:
        """Step ``p`` with :meth:`piecewise_rule`'s rule a piece at a time, the shared negation and weight
        decay of :meth:`_step_parameter` inside each piece; False, having done nothing, where there is no
        such rule or the arrays do not allow pieces."""
        if not (large_enough_for_chunks(p) and plain_number(wd) and self._pieces_follow_the_rule):
            return False  # (a small parameter, the common case, builds no rule)
        made = self.piecewise_rule(work, group)
        if made is None:
            return False
        rule, tensors = made
        names = tuple(tensors)
        maximize, decoupled = group.get("maximize"), wd and self.decouples_weight_decay(group)
        decay = 1 - group["lr"] * wd if decoupled else None
        if decoupled and not plain_number(decay):
            return False  # (a tensor lr: p.mul_'s conversions of a 0-d tensor, on the whole array)

        def piece(p_piece: Any, *arrays: Any) -> None:
            *state, g_piece = arrays
            if maximize:
                g_piece = -g_piece
            if decoupled:
                p_piece *= decay
            elif wd:
                g_piece = g_piece + wd * p_piece
            rule(g_piece, p_piece, dict(zip(names, state)))

        return update_in_chunks(piece, (p, *tensors.values()), (g,))

    # ------------------------------------------------------------ state dicts
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``.

        Parameters are referred to by their position across groups, as in
        PyTorch; state tensors are copies, safe to keep across steps.
        """
        for hook in list(_hooks(self, "_optimizer_state_dict_pre_hooks")):
            hook(self)
        out = self._packed_state()
        for hook in list(_hooks(self, "_optimizer_state_dict_post_hooks")):
            changed = hook(self, out)
            out = out if changed is None else changed
        return out

    def _packed_state(self) -> dict[str, Any]:
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            entry = {k: copy.deepcopy(v) for k, v in g.items() if k != "params"}
            entry["params"] = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                entry["params"].append(index[id(p)])
            groups.append(entry)
        # in the order the parameters got their state, as PyTorch's (load_state_dict keeps it); an entry
        # filed under another key (a subclass's state["global_step"]) travels as it is, in its place
        state: dict[Any, Any] = {}
        for p, st in self.state.items():
            if not isinstance(p, Tensor):
                state[p] = copy.deepcopy(st)
            elif id(p) in index:  # (a parameter no group holds any more: its state is left behind)
                state[index[id(p)]] = {k: _copy_state(v) for k, v in st.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore hyper-parameters and state; checks group sizes and shapes first."""
        state_dict = dict(state_dict)
        for hook in list(_hooks(self, "_optimizer_load_state_dict_pre_hooks")):
            changed = hook(self, state_dict)
            state_dict = state_dict if changed is None else changed
        self._unpack_state(state_dict)
        for hook in list(_hooks(self, "_optimizer_load_state_dict_post_hooks")):
            hook(self)

    def _unpack_state(self, state_dict: dict[str, Any]) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):  # PyTorch's messages, word for word
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(saved["params"]) != len(own["params"]) for saved, own in zip(groups, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        by_index, single_step = {}, set()
        for saved, own in zip(groups, self.param_groups):
            for idx, p in zip(saved["params"], own["params"]):
                by_index[idx] = p
                if saved.get("fused") or saved.get("capturable"):  # PyTorch loads their step as float32
                    single_step.add(idx)
        new_state: dict[Any, Any] = {}
        for idx, st in state_dict["state"].items():
            # a parameter is named by whatever its saved group lists -- an index, or a name where the
            # state dict was re-keyed by parameter names -- as PyTorch's id_map pairs them; a digit
            # string is the index it spells (a state dict that went through JSON)
            if idx not in by_index and isinstance(idx, str) and idx.isdigit():
                idx = int(idx)
            if idx not in by_index:
                if isinstance(idx, int):
                    raise ValueError(f"loaded state refers to parameter {idx}, which does not exist")
                new_state[idx] = copy.deepcopy(st)  # not a parameter's: kept under its key
                continue
            p = by_index[idx]
            new_state[p] = {k: self._loaded_value(p, idx, k, v) for k, v in st.items()}
            if idx in single_step and isinstance(new_state[p].get("step"), Tensor):
                new_state[p]["step"] = scalar_tensor(new_state[p]["step"], single=True)
        for saved, own in zip(groups, self.param_groups):
            _take_saved_group(own, saved)
            # an option the save predates takes its default, as PyTorch's __setstate__ setdefaults them
            for k, v in self.defaults.items():
                if v is not required:
                    own.setdefault(k, v)
        self.state = defaultdict(dict, new_state)

    def _loaded_value(self, p: Tensor, idx: int, key: str, v: Any) -> Any:
        """A loaded state value as PyTorch files it: a tensor on ``p``'s device, cast to ``p``'s
        dtype when ``p`` is floating (state saved from float64 parameters steps float32 ones in
        float32; ``"step"`` keeps its type), in lists too; any other value copied."""
        if isinstance(v, list):
            return [self._loaded_value(p, idx, key, x) if isinstance(x, Tensor) else x for x in v]
        if key in self.scalar_state_keys and v is not None:
            return _loaded_scalar(key, v, p)
        if not (isinstance(v, Tensor) or hasattr(v, "shape") and not isinstance(v, host_numpy.generic)):
            return copy.deepcopy(v)
        t = v if isinstance(v, Tensor) else Tensor._from_data(v)
        former = p.dtype.kind == "c" and t.shape == (*p.shape, 2) and t.dtype.kind == "f"
        if former and self.state_follows_parameter_shape:
            # a complex parameter's state as snapshots before complex state kept it: its real view
            t = _state_in_shape_of({key: Tensor._from_data(t)}, p)[key]
        if t.ndim and t.shape != p.shape and self.state_follows_parameter_shape:
            raise ValueError(f"state {key!r} of parameter {idx} has shape {t.shape}, the "
                             f"parameter's state has {p.shape}")
        dtype = p.dtype if key != "step" and p.dtype.kind == "f" else t.dtype
        loaded = Tensor._from_data(t, dtype=dtype, device=p.device)
        if loaded.ndim > 1 and loaded.shape == t.shape:
            # PyTorch's ``value.to(dtype, device)`` keeps the saved strides: a channels_last parameter's
            # moment resumes channels_last, as the unbroken run's (a row-major one would take each later
            # in-place update in another memory order than the run that never stopped)
            loaded = Tensor.constant(laid_out(loaded._data, like=t._data, copy=False), loaded.device)
        return loaded

    def __getstate__(self) -> dict[str, Any]:
        """What pickling (and ``copy.deepcopy``) keeps: PyTorch's ``__getstate__`` leaves the hooks
        behind (a lambda hook must not make the optimizer unpicklable; the copy has none)."""
        return {k: v for k, v in self.__dict__.items() if k not in _NOT_PICKLED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        # PyTorch's text: each group opens with a newline, so the groups after the first follow a blank line
        text = f"{type(self).__name__} ("
        for i, g in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {k}: {g[k]}\n" for k in sorted(k for k in g if k != "params"))
        return text + ")"


def _with_python_numbers(group: dict[str, Any]) -> dict[str, Any]:
    """``group``, or where it holds NumPy numbers (``lr=np.float64(...)`` from a config, a LambdaLR's
    ``np.cos`` schedule) a copy with them as Python numbers, which the rules read: PyTorch takes a NumPy
    float for a Python scalar, which keeps a float32 parameter's arithmetic in float32, where NumPy's
    ``np.float64(lr) * g`` made the update float64 (other roundings; a float64 array on a float32-only
    device).  The group itself keeps what the user put there."""
    if _NUMPY_SCALARS.isdisjoint(map(type, group.values())):  # (the common case, each step: no Python loop)
        return group
    return {k: v.item() if isinstance(v, host_numpy.generic) else v for k, v in group.items()}


_NUMPY_SCALARS = frozenset(t for t in host_numpy.sctypeDict.values() if issubclass(t, host_numpy.generic))


# the optimizer's own hooks and its in-step flag: not part of a pickled (or deep-copied) optimizer
_NOT_PICKLED = frozenset({"_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                          "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                          "_optimizer_load_state_dict_post_hooks", "_in_hooked_step",
                          "_gradients_used"})  # (weak references to the last step's gradients)

# PyTorch's torch.optim.optimizer.register_optimizer_step_pre_hook / _post_hook: hooks of every optimizer
_global_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_hook_ids = itertools.count()


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> _HookHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's step (before its own pre-hooks)."""
    key = next(_hook_ids)
    _global_step_pre_hooks[key] = hook
    return _HookHandle(_global_step_pre_hooks, key)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> _HookHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's step (after its own post-hooks)."""
    key = next(_hook_ids)
    _global_step_post_hooks[key] = hook
    return _HookHandle(_global_step_post_hooks, key)


def _hooks(opt: Optimizer, name: str) -> Any:
    """The optimizer's hooks called ``name``, in order (an optimizer built without them has none)."""
    return opt.__dict__.get(name, {}).values()


def _register(opt: Optimizer, name: str, hook: Callable[..., Any], prepend: bool = False) -> _HookHandle:
    hooks = opt.__dict__.setdefault(name, OrderedDict())
    key = next(_hook_ids)
    hooks[key] = hook
    if prepend:
        hooks.move_to_end(key, last=False)
    return _HookHandle(hooks, key)


def _with_step_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` with PyTorch's step protocol around it: the global then the optimizer's pre-hooks
    (which may replace the arguments), the step, the optimizer's then the global post-hooks; and
    the note that the optimizer stepped.  A step calling its base class's step runs them once."""
    @functools.wraps(step)
    def hooked(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        self._opt_called = True
        if self.__dict__.get("_in_hooked_step"):
            return step(self, *args, **kwargs)
        args = (self, *args)
        for hook in [*_global_step_pre_hooks.values(), *_hooks(self, "_optimizer_step_pre_hooks")]:
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        self._in_hooked_step = True
        try:
            out = step(*args, **kwargs)
        finally:
            self._in_hooked_step = False
        if "_gradients_used" in self.__dict__:  # (an Executor's optimizer: see watch_gradients)
            note_gradients_used(self)
        for hook in [*_hooks(self, "_optimizer_step_post_hooks"), *_global_step_post_hooks.values()]:
            hook(self, args, kwargs)
        return out
    hooked._runs_step_hooks = True  # type: ignore[attr-defined]
    return hooked


Optimizer.step = _with_step_hooks(Optimizer.step)  # type: ignore[method-assign]


# A snapshot saves no gradients, so it asks which gradients have changed since the optimizer's last
# step used them (the micro-batches of an accumulating step): a resume would lose them.  Each step of
# an optimizer an Executor holds (snapshots are taken of Executors; others pay nothing) notes, per
# parameter, its gradient (weakly: one set to None goes as before; a weak reference without a callback
# is the tensor's one cached reference, so a step makes none) and the gradient's version.


def watch_gradients(opt: Any) -> None:
    """From now on ``opt``'s steps note the gradients they use; the ones it holds now count as used
    (an Executor made after some training does not take them for a step still to come)."""
    note_gradients_used(opt)


def note_gradients_used(opt: Any) -> None:
    """Remember ``opt``'s parameters' gradients as used: after each step of a watched optimizer, and
    after a step a GradScaler skipped (it discards them as a step would have consumed them)."""
    used = {}
    for group in opt.param_groups:
        for p in group["params"]:
            g = p.grad
            if g is not None:
                used[id(p)] = (weakref.ref(g), g._version)
    opt.__dict__["_gradients_used"] = used


def _used(opt: Any, p: Tensor, g: Tensor) -> bool:
    entry = opt.__dict__.get("_gradients_used", {}).get(id(p))
    return entry is not None and entry[0]() is g and entry[1] == g._version


def gradients_since_step(opt: Any) -> list[Tensor]:
    """``opt``'s parameters whose gradient is not zero and has changed since the optimizer's last
    step used it (or no step has): what backward passes accumulated for a step still to come.
    A gradient ``zero_grad(set_to_none=False)`` zeroed has changed, but holds nothing."""
    out = []
    with no_grad():
        for group in opt.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is not None and not _used(opt, p, g) and bool((g != 0).any()):
                    out.append(p)
    return out


def _state_in_shape_of(state: dict[str, Any], p: Tensor) -> dict[str, Any]:
    """``state`` made for the real view of ``p`` with each tensor of that view's shape taken back
    to complex numbers of ``p``'s shape (sharing memory); a real ``p``'s state as it is."""
    if p.dtype.kind != "c":
        return state
    real_shape = (*p.shape, 2)
    xp = p.device.xp
    return {k: Tensor.constant(complex_of_real(xp.ascontiguousarray(v._data), p.shape), p.device)
            if isinstance(v, Tensor) and v.shape == real_shape and v.dtype.kind == "f" else v
            for k, v in state.items()}


def _state_as_real(state: dict[str, Any]) -> dict[str, Any]:
    """A complex parameter's state as its rule reads it: each complex tensor as its real view
    (sharing memory, so the rule's in-place updates land in the state)."""
    return {k: Tensor.constant(real_view(v._data), v.device) if isinstance(v, Tensor) and v.dtype.kind == "c"
            else v for k, v in state.items()}


def _take_saved_group(own: dict[str, Any], saved: dict[str, Any]) -> None:
    """``own`` becomes the saved group with its own parameters, as PyTorch's ``update_group``: a key
    ``own`` has and ``saved`` lacks is dropped (the saved group is the whole group), names kept if the
    save has none.  Filled in place, so whoever holds the group dict (a scheduler) sees the load."""
    params, names = own["params"], own.get("param_names")
    own.clear()
    own.update({k: copy.deepcopy(v) for k, v in saved.items() if k != "params"})
    own["params"] = params
    if names is not None and "param_names" not in own:
        own["param_names"] = names


def _loaded_scalar(key: str, v: Any, p: Tensor) -> Tensor:
    """A loaded scalar of the state as PyTorch files it: a 0-d tensor on the host; ``step`` keeps
    its dtype, the others take a floating ``p``'s; a number (mg's state dicts before these were
    tensors) becomes :func:`scalar_tensor`."""
    if not (isinstance(v, Tensor) or hasattr(v, "shape")):
        return scalar_tensor(v)
    t = v if isinstance(v, Tensor) else Tensor._from_data(v)
    if t.ndim:
        raise ValueError(f"state {key!r} is a scalar, but the loaded value has shape {t.shape}")
    dtype = p.dtype if key != "step" and p.dtype.kind == "f" else t.dtype
    return Tensor.constant(host_numpy.array(to_host(t._data), dtype=dtype))  # a copy: the dict stays as it was


def _owner(cls: type, name: str) -> type:
    """The class of ``cls``'s MRO that defines ``name``."""
    return next(k for k in cls.__mro__ if name in k.__dict__)


def _counted(step: Any) -> Tensor:
    """A step count one higher: a 0-d tensor incremented in place, as PyTorch's; a number (a state
    dict written before the count was a tensor) as a new one."""
    if isinstance(step, Tensor):
        return step.add_(1)
    return scalar_tensor(step + 1)


def _copy_state(v: Any) -> Any:
    """A state value safe to keep across steps: tensors cloned (in lists too), the rest deep-copied."""
    if isinstance(v, Tensor):
        return v.clone().detach()
    if isinstance(v, list):
        return [_copy_state(x) for x in v]
    return copy.deepcopy(v)
