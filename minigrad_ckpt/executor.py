"""The executor: the training state a snapshot captures, under stable names.

An :class:`Executor` gathers

* named tensors you add yourself (``add_tensor``),
* a model's parameters and buffers (``model.<dotted name>``),
* an optimizer's state -- moments, step counts (``optimizer.state.<param>.<key>``)
  and hyper-parameters -- and optionally a learning-rate scheduler's,
* the engine's RNG state, the iteration counter,
* any object with ``state_dict()``/``load_state_dict()`` whose state is plain
  data (``register_state``: a DataLoader's position mid-epoch, a counter), and
* the tape of the last forward pass (``record(loss)``), for snapshots that
  include it.

It is the unit :mod:`minigrad_ckpt.snapshot` saves and restores.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Mapping
from typing import Any

from .backend import host_numpy, is_array, to_host
from .nn.uninitialized import is_lazy
from .optim.optimizer import Optimizer, watch_gradients
from .tensor import Tensor

__all__ = ["Executor"]

_OPT_PREFIX = "optimizer.state."  # optimizer moments are named optimizer.state.<param name>.<key>


class Executor:
    """Named tensors + model + optimizer + RNG + iteration + tape (see the module docstring)."""

    def __init__(self, model: Any = None, optimizer: Any = None, scheduler: Any = None) -> None:
        self._tensors: OrderedDict[str, Tensor] = OrderedDict()
        self.model = model
        self.optimizer = optimizer
        if isinstance(optimizer, Optimizer):  # (so a snapshot can tell gradients no step has used yet)
            watch_gradients(optimizer)
        self.scheduler = scheduler
        self.iteration = 0
        self.tape: Any = None          # the output tensor whose tape is recorded
        self.restored_optimizer_state: dict[str, Any] | None = None
        self.restored_scheduler_state: dict[str, Any] | None = None
        self.restored_rng_state: dict[str, int] | None = None
        self.restored_object_states: dict[str, Any] | None = None
        self.restored_model_extra_states: dict[str, Any] | None = None  # modules' get_extra_state(), by key
        self._objects: OrderedDict[str, Any] = OrderedDict()
        # The snapshot file this state was restored from, ``(resolved path, checksum, iteration)``,
        # until a SnapshotManager of its directory next saves it: a resume from an earlier snapshot
        # abandons the later ones there (snapshot/manager.py, "rollback").
        self.resumed_from: tuple[str, str, int] | None = None
        if optimizer is not None and model is not None:
            self._param_names()  # fail early if the optimizer holds foreign tensors

    # ---------------------------------------------------------------- tensors
    def add_tensor(self, name: str, value: Any) -> Tensor:
        """Register ``value`` (an array or a Tensor) under ``name``; returns the Tensor."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"tensor names must be non-empty strings, got {name!r}")
        if name.startswith(("model.", "optimizer.", "__tape__")):
            raise ValueError(f"{name!r}: names starting with 'model.', 'optimizer.' or '__tape__' are reserved")
        t = value if isinstance(value, Tensor) else Tensor._from_data(value)
        self._tensors[name] = t
        return t

    def get_tensor(self, name: str) -> Tensor:
        """The tensor called ``name`` (user tensors and the model/optimizer names alike)."""
        all_tensors = self.tensors
        if name not in all_tensors:
            raise KeyError(f"no tensor named {name!r}; the executor has {len(all_tensors)} tensors")
        return all_tensors[name]

    def remove_tensor(self, name: str) -> None:
        if name not in self._tensors:
            raise KeyError(f"no user tensor named {name!r}")
        del self._tensors[name]

    @property
    def tensors(self) -> Mapping[str, Tensor]:
        """Every named tensor: user tensors, ``model.*`` and ``optimizer.state.*`` (read-only view)."""
        out: OrderedDict[str, Tensor] = OrderedDict(self._tensors)
        if self.model is not None:
            for k, v in self.model.state_dict().items():
                if isinstance(v, Tensor):  # not a module's get_extra_state() (plain Python data)
                    out[f"model.{k}"] = v
        if self.optimizer is not None:
            for name, st in self._parameter_states():
                for k, v in _state_tensors(st):
                    out[f"{_OPT_PREFIX}{name}.{k}"] = v
        return _ReadOnly(out)

    def live_tensors(self) -> dict[str, Tensor]:
        """Like :attr:`tensors`, but the model's actual Parameter objects (what tapes refer to)."""
        out = dict(self.tensors)
        if self.model is not None:
            for k, t in self.model._live_tensors():
                out[f"model.{k}"] = t
        return out

    # ------------------------------------------------------- stateful objects
    def register_state(self, name: str, obj: Any) -> Any:
        """Capture ``obj.state_dict()`` in snapshots under ``name`` and give it back to
        ``obj.load_state_dict`` on restore (e.g. a DataLoader, to resume mid-epoch).

        The state is stored in the snapshot's header: plain data as it is, anything
        else (tensors, int keys, tuples: a second optimizer's or model's state) as a
        tree with its arrays inline, given back exactly (``docs/snapshot-format.md``).
        Returns ``obj``.
        """
        if not isinstance(name, str) or not name:
            raise ValueError(f"state names must be non-empty strings, got {name!r}")
        if not (callable(getattr(obj, "state_dict", None)) and callable(getattr(obj, "load_state_dict", None))):
            raise TypeError(f"register_state({name!r}): {type(obj).__name__} has no state_dict() and "
                            f"load_state_dict()")
        self._objects[name] = obj
        return obj

    @property
    def objects(self) -> Mapping[str, Any]:
        """The objects registered with :meth:`register_state`, by name (read-only view)."""
        return _ReadOnly(self._objects)

    def object_states(self) -> dict[str, Any] | None:
        """``{name: {"type": class name, "state": plain data}}`` of the registered objects."""
        if not self._objects:
            return None
        return {n: {"type": type(o).__name__, "state": _plain(o.state_dict())} for n, o in self._objects.items()}

    # -------------------------------------------------------------- iteration
    def step(self, n: int = 1) -> int:
        """Advance the iteration counter (returns the new value)."""
        self.iteration += int(n)
        return self.iteration

    def record(self, output: Tensor) -> None:
        """Remember the tape that produced ``output`` (saved by snapshots with ``include_tape``)."""
        if not isinstance(output, Tensor) or output.grad_fn is None:
            raise ValueError("record() needs a tensor with a tape (computed in grad mode from tensors "
                             "that require grad)")
        self.tape = output

    # ------------------------------------------------------------ structured
    def _param_names(self) -> dict[int, str]:
        """Stable names for the optimizer's parameters: the model's names, else positions."""
        names: dict[int, str] = {}
        if self.model is not None:
            for n, p in self.model.named_parameters():
                names[id(p)] = n
        if self.optimizer is not None:
            i = 0
            for g in self.optimizer.param_groups:
                for p in g["params"]:
                    if id(p) not in names:
                        if self.model is not None:
                            raise ValueError("the optimizer holds a parameter that is not in the model")
                        names[id(p)] = f"param{i}"
                    i += 1
        return names

    def _parameter_states(self) -> list[tuple[str, dict[str, Any]]]:
        """``(name, state)`` of each parameter the optimizer keeps state for, in the state's order.
        State left behind by a tensor no group holds any more (a layer taken out of the groups,
        a replaced parameter) is left out, as ``Optimizer.state_dict()`` leaves it out: no step
        reads it, and a snapshot holding it could not be restored into the optimizer."""
        names = self._param_names()
        held = {id(p) for g in self.optimizer.param_groups for p in g["params"]}
        return [(names[id(p)], st) for p, st in self.optimizer.state.items() if isinstance(p, Tensor) and id(p) in held]

    # The optimizer's state under parameter *names* (the file format) and back to
    # the optimizer's own positional form (``Optimizer.load_state_dict``).  Both
    # directions live here, next to ``_param_names``, so the codec is one place.
    def optimizer_state(self) -> dict[str, Any] | None:
        """The optimizer's non-tensor state as plain data (type, groups, step counts).

        Its tensors (moments) are in :attr:`tensors` as ``optimizer.state.<param>.<key>``.
        """
        if self.optimizer is None:
            return None
        names = self._param_names()
        groups = []
        for g in self.optimizer.param_groups:
            entry = {k: _plain(v) for k, v in g.items() if k != "params"}
            entry["params"] = [names[id(p)] for p in g["params"]]
            groups.append(entry)
        # optimizer.state["global_step"]: kept under its key, as PyTorch's
        other = {str(k): _plain(st) for k, st in self.optimizer.state.items() if not isinstance(k, Tensor)}
        scalars, order, zero_d = {}, {}, {}
        known = getattr(self.optimizer, "scalar_state_keys", ("step",))
        restored_dtype = _restored_scalar_dtype()  # (once: it makes a tensor to read the dtype off)
        for name, st in self._parameter_states():
            # a 0-d state tensor (the step count, as PyTorch keeps it) is a number of the header
            scalars[name] = {k: _plain_state(v) for k, v in st.items() if not _is_state_tensor(v)}
            if list(st) != _restored_order(st):
                order[name] = list(st)
            # ... and one the optimizer does not declare a scalar of its state (LBFGS's H_diag, a hand-written
            # optimizer's) is named with its dtype, so that the restore gives a tensor back, not a number; so is a
            # declared one of another dtype than the restore would make (load_state_dict cast NAdam's mu_product
            # to float64 parameters' dtype, and the rule multiplies it in float64 from then on)
            kept = {k: v.dtype.name for k, v in st.items() if isinstance(v, Tensor) and v.ndim == 0
                    and (k not in known or v.dtype != restored_dtype)}
            if kept:
                zero_d[name] = kept
        out = {"type": type(self.optimizer).__name__, "param_groups": groups, "scalars": scalars}
        if zero_d:  # only then: the header of the built-in optimizers but LBFGS is as it was
            out["tensor_scalars"] = zero_d
        if other:  # only then: the header of an optimizer without such entries is as it was
            out["other"] = other
            places = self._state_places()
            if places != [["param", n] for n in scalars] + [["other", k] for k in other]:
                out["state_order"] = places  # an entry under another key before a parameter's
        if order:  # likewise: a state whose keys a restore would put in another order than the run's
            out["order"] = order
        return out

    def _state_places(self) -> list[list[str]]:
        """The optimizer state's entries in its order: ``["param", name]`` or ``["other", key]``."""
        names = {id(st): name for name, st in self._parameter_states()}
        return [["other", str(k)] if not isinstance(k, Tensor) else ["param", names[id(st)]]
                for k, st in self.optimizer.state.items() if not isinstance(k, Tensor) or id(st) in names]

    def optimizer_state_dict_from(self, saved: Any, tensors: Mapping[str, Any],
                                  exact_groups: Any = None, exact_other: Any = None) -> dict[str, Any]:
        """The inverse of :meth:`optimizer_state`: ``saved`` (its plain data) and ``tensors``
        (name -> host array, the ``optimizer.state.*`` entries are used) as a state dict for
        this executor's ``optimizer.load_state_dict``.

        Everything is validated here -- types, the optimizer's class, groups and their
        parameters, hyper-parameter kinds, each moment's shape -- so that loading the
        result cannot fail half-way.  Raises ``ValueError`` naming the first problem.
        ``exact_groups``: each group's entries other than tensors where the snapshot kept them
        exactly (int keys, arrays), checked as the plain ones and loaded in their place;
        ``exact_other``: the state's entries under keys that are not parameters, likewise (their tensors).
        """
        opt = self.optimizer
        if opt is None:
            raise ValueError("the executor has no optimizer")
        if not isinstance(saved, dict):
            raise ValueError("the optimizer state is missing or not a map")
        if saved.get("type") != type(opt).__name__:
            raise ValueError(f"the state is for {saved.get('type')!r}, the executor has {type(opt).__name__}")
        groups, scalars = saved.get("param_groups"), saved.get("scalars")
        if scalars is None:
            scalars = {}
        if not isinstance(groups, list) or not isinstance(scalars, dict):
            raise ValueError("the optimizer state's param_groups or scalars are malformed")
        if len(groups) != len(opt.param_groups):
            raise ValueError(f"the state has {len(groups)} parameter groups, the optimizer {len(opt.param_groups)}")
        if exact_groups is not None and not (isinstance(exact_groups, list) and len(exact_groups) == len(groups)
                                             and all(isinstance(g, dict) for g in exact_groups)):
            raise ValueError("the exact parameter groups are not a map for each group")
        params: dict[str, Any] = {}  # name -> the live parameter, in the optimizer's order
        out_groups = [self._group_from(gi, g_saved, g_own, params, None if exact_groups is None else exact_groups[gi])
                      for gi, (g_saved, g_own) in enumerate(zip(groups, opt.param_groups))]
        same_shape = getattr(opt, "state_follows_parameter_shape", True)
        lists = getattr(opt, "state_holds_lists", False)
        other = saved.get("other", {})
        if not (isinstance(other, dict) and all(isinstance(k, str) and not k.isdigit() for k in other)):
            raise ValueError("the optimizer state's entries not of a parameter are malformed")
        if exact_other is not None:
            if not (isinstance(exact_other, dict) and set(exact_other) == set(other)):
                raise ValueError("the optimizer state's exact entries not of a parameter are not its entries")
            other = {k: exact_other[k] for k in other}
        moments = _moments_from(scalars, tensors, params, same_shape, lists)
        moments = _with_tensor_scalars(moments, saved.get("tensor_scalars", {}), list(params))
        state: dict[Any, Any] = dict(_in_saved_order(moments, saved.get("order", {}), list(params)))
        state.update(other)
        if "state_order" in saved:
            state = _in_state_order(state, saved["state_order"], list(params))
        return {"state": state, "param_groups": out_groups}

    def _group_from(self, gi: int, g_saved: Any, g_own: dict[str, Any], params: dict[str, Any],
                    exact: dict[str, Any] | None = None) -> dict[str, Any]:
        """Saved parameter group ``gi`` as ``load_state_dict`` takes it: the same parameters as
        the optimizer's own group (their names are added to ``params``), hyper-parameters of
        the same names and kinds (``exact``'s values where it has them)."""
        if not isinstance(g_saved, dict):
            raise ValueError(f"parameter group {gi} is not a map")
        names = self._param_names()
        own_names = [names[id(p)] for p in g_own["params"]]
        if g_saved.get("params") != own_names:
            raise ValueError(f"parameter group {gi}: the optimizer's parameters differ from the state's")
        # PyTorch's param_names (an optimizer built from named_parameters()) are names, not a hyper-parameter:
        # the saved ones if the state has them (loaded as PyTorch loads them), else the optimizer keeps its own
        hyper = {k: v for k, v in g_saved.items() if k not in ("params", "param_names")}
        own_hyper = {k: v for k, v in g_own.items() if k not in ("params", "param_names")}
        saved_names = g_saved.get("param_names")
        if saved_names is not None and not (isinstance(saved_names, list) and len(saved_names) == len(own_names)
                                            and all(isinstance(n, str) for n in saved_names)):
            raise ValueError(f"parameter group {gi}: param_names must be a name for each of its {len(own_names)} "
                             f"parameters")
        # a snapshot written before the groups kept PyTorch's flags: those take the optimizer's values
        hyper.update({k: own_hyper[k] for k in _LATER_FLAGS if k in own_hyper and k not in hyper})
        if set(hyper) != set(own_hyper):
            # (an LR scheduler adds initial_lr to the groups: the state's optimizer had one, this one not, or back)
            why = "" if "initial_lr" not in set(hyper) ^ set(own_hyper) else (
                " -- 'initial_lr' is what an LR scheduler adds to the groups: the state was saved "
                + ("with a scheduler and this optimizer has none" if "initial_lr" in hyper else
                   "without a scheduler and this optimizer has one"))
            raise ValueError(f"parameter group {gi} has hyper-parameters {sorted(hyper)}, the optimizer "
                             f"{sorted(own_hyper)}{why}")
        if exact is not None and not set(exact) <= set(hyper):
            raise ValueError(f"parameter group {gi}: the exact entries {sorted(map(str, exact))} are not the group's")
        entry = {}
        for k, v in hyper.items():
            exactly = exact is not None and k in exact
            v = exact[k] if exactly else v
            if not (_same_kind(v, own_hyper[k]) or k in _LATER_FLAGS and (v is None or isinstance(v, bool))):
                raise ValueError(f"parameter group {gi}: hyper-parameter {k!r} = {v!r:.100} is not of the kind "
                                 f"the optimizer uses ({own_hyper[k]!r:.100})")
            entry[k] = v if exactly else _like(v, own_hyper[k])
        if saved_names is not None:
            entry["param_names"] = list(saved_names)
        entry["params"] = [len(params) + j for j in range(len(own_names))]
        params.update(zip(own_names, g_own["params"]))
        return entry

    def scheduler_state(self) -> dict[str, Any] | None:
        if self.scheduler is None:
            return None
        return {"type": type(self.scheduler).__name__,
                "state": {k: _plain(v) for k, v in self.scheduler.state_dict().items()}}

    def scheduler_state_from(self, saved: Any, exact: Any = None) -> dict[str, Any]:
        """The inverse of :meth:`scheduler_state`: the dict for ``scheduler.load_state_dict``.

        A scheduler's ``load_state_dict`` sets attributes by name, so only the fields the
        scheduler has now, each of the same kind, are accepted (``ValueError`` otherwise).
        ``exact``: the state dict itself where the snapshot kept it (a state that is more than
        plain data), checked field by field as the plain one and loaded in its place.
        """
        if self.scheduler is None:
            raise ValueError("the executor has no scheduler")
        if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
            raise ValueError("the scheduler state is malformed")
        if saved.get("type") != type(self.scheduler).__name__:
            raise ValueError(f"the state is for {saved.get('type')!r}, the executor has "
                             f"{type(self.scheduler).__name__}")
        own, state = self.scheduler_state()["state"], saved["state"]
        # a snapshot written before a scheduler kept a later field: the scheduler's own value (a no-op load)
        state = {**{k: own[k] for k in _LATER_SCHEDULER_FIELDS if k in own and k not in state}, **state}
        if set(state) != set(own):
            raise ValueError(f"the state has fields {sorted(map(str, state))}, the scheduler {sorted(own)}")
        raw = self.scheduler.state_dict()  # (tensors kept as tensors: base_lrs of a tensor lr)
        state = {k: _counter_of_elements(v, raw[k]) for k, v in state.items()}
        for k, v in state.items():
            if not _scheduler_field_fits(k, _plain(v), own[k]):
                raise ValueError(f"field {k!r} = {v!r} is not of the kind the scheduler uses ({own[k]!r})")
        plain = {k: _like(v, raw.get(k)) for k, v in state.items()}
        return plain if exact is None else _exact_scheduler_state(exact, own, plain, raw)

    def __repr__(self) -> str:
        return (f"Executor(iteration={self.iteration}, tensors={len(self.tensors)}, "
                f"model={type(self.model).__name__ if self.model is not None else None}, "
                f"optimizer={type(self.optimizer).__name__ if self.optimizer is not None else None})")


class _ReadOnly(Mapping):
    def __init__(self, d: Mapping[str, Tensor]) -> None:
        self._d = d

    def __getitem__(self, k: str) -> Tensor:
        return self._d[k]

    def __iter__(self) -> Any:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __repr__(self) -> str:
        return f"{{{', '.join(self._d)}}}"


def _plain(v: Any) -> Any:
    """Plain msgpack-able data (tuples become lists; NumPy scalars Python numbers)."""
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, host_numpy.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, Tensor) or is_array(v):
        return to_host(v._data if isinstance(v, Tensor) else v).tolist()
    raise TypeError(f"cannot store {type(v).__name__} in a snapshot header")


# PyTorch's keyword flags the optimizers' groups keep (``foreach`` and ``fused`` are True, False or None)
_LATER_FLAGS = ("maximize", "foreach", "fused", "capturable", "differentiable", "decoupled_weight_decay")


# fields a scheduler's state_dict() gained after snapshots were written (CyclicLR's, PyTorch's layout)
_LATER_SCHEDULER_FIELDS = ("_scale_fn_custom",)


# a scheduler's fields that hold its callable objects' attributes (PyTorch's fn.__dict__, None for a
# function): the user's data, of any shape -- a history that grows, a table that gains keys
_CALLABLE_FIELDS = ("lr_lambdas", "_scale_fn_custom")


def _counter_of_elements(saved: Any, own: Any) -> Any:
    """A ``Counter`` field (MultiStepLR's milestones) that a snapshot of before kept as the sorted
    list of its elements (a milestone as often as it counts): that Counter, at any depth (a
    SequentialLR's MultiStepLR); any other field as saved."""
    if isinstance(own, Counter) and isinstance(saved, list) and all(
            isinstance(m, (int, float)) and not isinstance(m, bool) for m in saved):
        return Counter(saved)
    if isinstance(own, dict) and isinstance(saved, dict) and not isinstance(own, Counter):
        return {k: _counter_of_elements(v, own.get(k)) for k, v in saved.items()}
    if isinstance(own, (list, tuple)) and isinstance(saved, list) and len(saved) == len(own):
        return [_counter_of_elements(v, o) for v, o in zip(saved, own)]
    return saved


def _scheduler_field_fits(key: Any, saved: Any, own: Any) -> bool:
    """Whether a saved scheduler field (plain data) can be loaded in place of the scheduler's own:
    of the same kind (:func:`_same_kind`), but a callable object's attributes only need to be a
    str-keyed map where the scheduler has an object (``load_state_dict`` updates its ``__dict__``),
    at any depth (a SequentialLR's LambdaLR)."""
    if key == "lr_lambdas" and isinstance(own, list):
        return isinstance(saved, list) and len(saved) == len(own) and all(map(_attributes_fit, saved, own))
    if key == "_scale_fn_custom":
        return _attributes_fit(saved, own)
    if isinstance(own, dict) and isinstance(saved, dict) and set(saved) == set(own):
        return all(_scheduler_field_fits(k, saved[k], own[k]) for k in own)
    if isinstance(own, (list, tuple)) and isinstance(saved, (list, tuple)) and len(saved) == len(own):
        return all(_scheduler_field_fits(None, s, o) for s, o in zip(saved, own))
    if key in _PER_GROUP_FIELDS and _numbers(own) and _numbers(saved):
        # a number per parameter group of another length: groups added with add_param_group after the
        # scheduler was made -- the run's scheduler lists them, the fresh one (made before the group was
        # added again) does not; PyTorch's load_state_dict takes them as saved.  Other lists keep their length.
        return True
    return _same_kind(saved, own)


#: The schedulers' fields that hold one number per parameter group
_PER_GROUP_FIELDS = frozenset({"base_lrs", "_last_lr", "min_lrs", "max_lrs"})


def _numbers(v: Any) -> bool:
    """Whether ``v`` is a list or tuple of numbers (not bools)."""
    return isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)


def _attributes_fit(saved: Any, own: Any) -> bool:
    """A callable object's saved attributes for the scheduler's own: None for a function, else a map."""
    if own is None:
        return saved is None
    return isinstance(saved, dict) and all(isinstance(k, str) for k in saved)


def _exact_scheduler_state(exact: Any, own: dict[str, Any], plain: dict[str, Any],
                           raw: dict[str, Any]) -> dict[str, Any]:
    """A snapshot's exact scheduler state (int keys, arrays, tuples as saved), checked as the plain
    state is: the fields the scheduler has, each of its kind; each of the scheduler's tensors (at any
    depth: :func:`_with_plain_tensors`) is the plain state's, placed as the scheduler's own (dtype, device)."""
    if not isinstance(exact, dict) or set(exact) != set(plain):
        raise ValueError("the exact state's fields differ from the scheduler's")
    out = {}
    for k, v in exact.items():
        try:
            fits = _scheduler_field_fits(k, _plain(v), own[k])
        except TypeError:  # (a kind no header holds: a set, bytes)
            fits = False
        if not fits:
            raise ValueError(f"field {k!r} of the exact state is not of the kind the scheduler uses")
        out[k] = _with_plain_tensors(v, plain[k], raw.get(k))
    return out


def _with_plain_tensors(exact: Any, plain: Any, raw: Any) -> Any:
    """``exact`` with each of the scheduler's tensors (where ``raw`` holds one) taken from ``plain``,
    which places it as the scheduler's own; all else as ``exact`` kept it.  Item by item, not field by
    field: a SequentialLR's or ChainedScheduler's ``_schedulers`` holds a tensor lr's ``base_lrs`` beside
    a MultiStepLR's Counter of int milestones, which the plain data gives back with str keys (the
    milestone then never equals an epoch: the schedule silently stops decaying)."""
    if isinstance(raw, Tensor):
        return plain
    if not holds_tensor(raw):
        return exact
    if isinstance(raw, dict) and isinstance(exact, dict) and isinstance(plain, dict):
        return type(exact)({k: _with_plain_tensors(v, plain.get(k, plain.get(str(k))), raw.get(k))
                            for k, v in exact.items()})
    if isinstance(raw, (list, tuple)) and isinstance(exact, (list, tuple)) and isinstance(plain, (list, tuple)) \
            and len(exact) == len(plain):
        return type(exact)(_with_plain_tensors(e, q, raw[i] if i < len(raw) else None)
                           for i, (e, q) in enumerate(zip(exact, plain)))
    return plain


def holds_tensor(v: Any) -> bool:
    """Whether ``v`` is a tensor or a list, tuple or dict holding one: a state field the plain
    header data gives back exactly (``_like`` makes its tensors on the owner's device)."""
    if isinstance(v, (list, tuple)):
        return any(holds_tensor(x) for x in v)
    if isinstance(v, dict):
        return any(holds_tensor(x) for x in v.values())
    return isinstance(v, Tensor)


def _same_kind(saved: Any, own: Any) -> bool:
    """Whether a saved hyper-parameter can stand in for the optimizer's own value."""
    if isinstance(own, Tensor):  # (PyTorch's lr=torch.tensor(0.01)): its numbers, of its shape
        return _numbers_of_shape(saved, own.shape)
    if isinstance(own, bool) or own is None or isinstance(own, str):
        return type(saved) is type(own)
    if isinstance(own, host_numpy.ndarray):  # (a group's own entry, given back exactly: exact_groups)
        return isinstance(saved, host_numpy.ndarray) and saved.shape == own.shape and saved.dtype == own.dtype
    if isinstance(own, (int, float)):
        return isinstance(saved, (int, float)) and not isinstance(saved, bool)
    if isinstance(own, (tuple, list)):
        return isinstance(saved, (list, tuple)) and len(saved) == len(own) and all(map(_same_kind, saved, own))
    if isinstance(own, dict):
        return isinstance(saved, dict) and set(saved) == set(own) and all(_same_kind(saved[k], own[k]) for k in own)
    return False


def _numbers_of_shape(saved: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``saved`` is a number (``shape == ()``) or nested lists of numbers of ``shape``."""
    if not shape:
        return isinstance(saved, (int, float)) and not isinstance(saved, bool)
    return isinstance(saved, list) and len(saved) == shape[0] and all(_numbers_of_shape(x, shape[1:]) for x in saved)


def _like(saved: Any, own: Any) -> Any:
    """A checked saved value (``_same_kind``) in the form of the optimizer's or scheduler's own:
    a tensor hyper-parameter's numbers as a tensor of its dtype and device (the header holds them
    as numbers, exactly: a float32 widened to a float64 and back), a list as a tuple where the
    own value is one."""
    if isinstance(own, Tensor):
        return Tensor._from_data(host_numpy.asarray(saved, dtype=own.dtype), dtype=own.dtype, device=own.device)
    if isinstance(own, (tuple, list)) and isinstance(saved, (tuple, list)):  # (every saved item: a callable
        # object's history may be longer than the fresh object's, _scheduler_field_fits)
        return type(own)(_like(s, own[i] if i < len(own) else None) for i, s in enumerate(saved))
    if isinstance(own, dict) and isinstance(saved, dict):
        return {k: _like(v, own.get(k)) for k, v in saved.items()}
    return tuple(saved) if isinstance(saved, list) and isinstance(own, tuple) else saved


_TENSOR_REF = "$tensor"  # in a list of state values, {"$tensor": i}: the list's i-th tensor, stored apart


def _state_tensors(st: dict[str, Any]) -> list[tuple[str, Tensor]]:
    """A parameter's state tensors by name: ``key`` for a tensor, ``key.i`` for the i-th
    element of a list (LBFGS keeps lists of vectors)."""
    out = []
    for k, v in st.items():
        if _is_state_tensor(v):
            out.append((k, v))
        elif isinstance(v, list):
            out += [(f"{k}.{i}", x) for i, x in enumerate(v) if isinstance(x, Tensor)]
    return out


def _is_state_tensor(v: Any) -> bool:
    """Whether a state value is stored as a named tensor: a tensor of at least one dimension (a 0-d
    one, PyTorch's scalar state such as the step count, is a number of the header)."""
    return isinstance(v, Tensor) and v.ndim > 0


def _plain_state(v: Any) -> Any:
    """A non-tensor state value as header data; a list's tensors become references."""
    if isinstance(v, list):
        return [{_TENSOR_REF: i} if isinstance(x, Tensor) else _plain(x) for i, x in enumerate(v)]
    return _plain(v)


def _is_number(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float))


def _is_state_value(v: Any, lists: bool) -> bool:
    if isinstance(v, list) and lists:
        return all(_is_number(x) or (isinstance(x, dict) and set(x) == {_TENSOR_REF}
                                     and isinstance(x[_TENSOR_REF], int)) for x in v)
    return _is_number(v)


def _moments_from(scalars: dict[str, Any], tensors: Mapping[str, Any], params: dict[str, Any],
                  same_shape: bool = True, lists: bool = False) -> dict[int, dict]:
    """The per-parameter state of an optimizer state dict, by parameter position: the saved
    ``scalars`` (numbers, and lists of numbers and tensor references) and the
    ``optimizer.state.<param>.<key>[.<i>]`` tensors, each checked (a moment has its
    parameter's shape unless the optimizer keeps other vectors: ``same_shape``; lists only for an
    optimizer whose state holds them: ``lists``)."""
    index = {name: i for i, name in enumerate(params)}
    state: dict[int, dict[str, Any]] = {}
    for pname, vals in scalars.items():
        if pname not in index:
            raise ValueError(f"scalar state for unknown parameter {pname!r}")
        if not isinstance(vals, dict) or not all(isinstance(k, str) and _is_state_value(v, lists)
                                                 for k, v in vals.items()):
            raise ValueError(f"the scalar state of parameter {pname!r} is malformed")
        state.setdefault(index[pname], {}).update({k: list(v) if isinstance(v, list) else v for k, v in vals.items()})
    # a lazy layer's weight not yet materialized takes the shape the snapshot gives it (restore materializes it)
    shapes = {n: tuple(tensors[f"model.{n}"].shape) if is_lazy(p) and f"model.{n}" in tensors else None
              for n, p in params.items()}
    for name, arr in tensors.items():
        if name.startswith(_OPT_PREFIX):
            _place_state_tensor(name, arr, state, index, params, same_shape, shapes)
    for vals in state.values():
        for k, v in vals.items():
            if isinstance(v, list) and any(isinstance(x, dict) for x in v):
                raise ValueError(f"optimizer state {k!r} refers to a tensor the snapshot does not hold")
    return state


def _with_tensor_scalars(state: dict[int, dict], kinds: Any, names: list[str]) -> dict[int, dict]:
    """``state`` (by parameter position) with the numbers the snapshot's ``tensor_scalars`` names
    (``{param: {key: dtype}}``: 0-d tensors of the run's state) as 0-d tensors of their dtype again;
    each must name a number of a parameter's state and a dtype a tensor can have."""
    if not isinstance(kinds, dict):
        raise ValueError("the optimizer state's tensor scalars are malformed")
    index = {name: i for i, name in enumerate(names)}
    for pname, keys in kinds.items():
        own = state.get(index.get(pname, -1))
        if own is None or not isinstance(keys, dict):
            raise ValueError(f"the tensor scalars {keys!r:.100} of parameter {pname!r:.100} do not fit its state")
        for key, dtype in keys.items():
            value = own.get(key)
            if not (isinstance(value, (bool, int, float)) and dtype in _SCALAR_DTYPES):
                raise ValueError(f"the tensor scalar {key!r:.100} of parameter {pname!r:.100} is not a number of a "
                                 f"tensor's dtype ({dtype!r:.100})")
            own[key] = Tensor.constant(host_numpy.asarray(value, dtype=dtype))
    return state


def _restored_scalar_dtype() -> Any:
    """The dtype the restore gives a declared scalar of the state that the snapshot holds as a number
    (``scalar_tensor``'s: float64 under a float64 default dtype, float32 otherwise)."""
    from .optim._common import scalar_tensor  # the optimizers import the engine: not at import time

    return scalar_tensor(0).dtype


# the dtypes a 0-d state tensor of a snapshot's header may name
_SCALAR_DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                            "float16", "float32", "float64"})


def _restored_order(st: dict[str, Any]) -> list[str]:
    """The keys of a parameter's state in the order :func:`_moments_from` rebuilds them: the
    header's numbers and lists as the state holds them, then the tensor entries by name."""
    return [k for k, v in st.items() if not _is_state_tensor(v)] + sorted(k for k, v in st.items()
                                                                          if _is_state_tensor(v))


def _in_saved_order(state: dict[int, dict], order: Any, names: list[str]) -> dict[int, dict]:
    """``state`` (by parameter position) with each parameter's keys in the order the snapshot's
    ``order`` field recorded (the run's: Adadelta's ``step, square_avg, acc_delta``, as PyTorch's
    load keeps it); a parameter it does not name keeps the rebuilt order (a file without the field)."""
    if not isinstance(order, dict):
        raise ValueError("the optimizer state's key order is malformed")
    index = {name: i for i, name in enumerate(names)}
    out = dict(state)
    for pname, keys in order.items():
        own = state.get(index.get(pname, -1))
        fits = isinstance(keys, list) and all(isinstance(k, str) for k in keys)
        if own is None or not fits or sorted(keys) != sorted(own):
            raise ValueError(f"the key order {keys!r:.100} of parameter {pname!r:.100} does not fit its state")
        out[index[pname]] = {k: own[k] for k in keys}
    return out


def _in_state_order(state: dict[Any, Any], places: Any, names: list[str]) -> dict[Any, Any]:
    """``state`` (parameter positions and other keys) in the order of the snapshot's ``state_order``
    (``["param", name]`` or ``["other", key]`` each), which must list every entry once."""
    index = {name: i for i, name in enumerate(names)}
    keys = []
    for place in places if isinstance(places, list) else [None]:
        if not (isinstance(place, list) and len(place) == 2 and place[0] in ("param", "other")
                and isinstance(place[1], str)):
            raise ValueError(f"the optimizer state's order holds {place!r:.100}, not a [kind, name] pair")
        keys.append(index.get(place[1], -1) if place[0] == "param" else place[1])
    if len(keys) != len(state) or set(keys) != set(state):
        raise ValueError("the optimizer state's order does not list each of its entries once")
    return {k: state[k] for k in keys}


def _place_state_tensor(name: str, arr: Any, state: dict[int, dict], index: dict[str, int],
                        params: dict[str, Any], same_shape: bool, shapes: dict[str, Any]) -> None:
    rest = name[len(_OPT_PREFIX):]
    pname, _, key = rest.rpartition(".")
    slot = None
    if pname not in index:  # ``<param>.<key>.<i>``: an element of a list
        pname, _, key = pname.rpartition(".")
        slot = rest.rpartition(".")[2]
        if pname not in index or not slot.isdigit():
            raise ValueError(f"{name}: no such parameter in the optimizer")
    if not key:
        raise ValueError(f"{name}: no such parameter in the optimizer")
    p = params[pname]
    # a moment is real, or complex for a complex parameter (PyTorch keeps its state complex); an
    # older snapshot's moment of a complex parameter has the real view's shape (..., 2)
    shape = shapes.get(pname) or tuple(p.shape)
    kind, fits = host_numpy.dtype(arr.dtype).kind, [shape]
    if p.dtype.kind == "c":
        fits.append((*shape, 2))
    wrong_shape = same_shape and slot is None and tuple(arr.shape) not in fits
    if kind not in ("fc" if p.dtype.kind == "c" else "f") or wrong_shape:
        raise ValueError(f"{name}: a {arr.dtype} moment of shape {tuple(arr.shape)} for a parameter of "
                         f"shape {shape}")
    entry = state.setdefault(index[pname], {})
    if slot is None:
        if key in entry:
            raise ValueError(f"{name}: stored both as a tensor and as a scalar")
        entry[key] = Tensor._from_data(arr, dtype=arr.dtype)
        return
    seq = entry.get(key)
    i = int(slot)
    if not isinstance(seq, list) or i >= len(seq) or seq[i] != {_TENSOR_REF: i}:
        raise ValueError(f"{name}: the state has no tensor reference at {key}[{i}]")
    seq[i] = Tensor._from_data(arr, dtype=arr.dtype)
