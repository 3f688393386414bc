"""The executor: the training state a snapshot captures, under stable names.

An :class:`Executor` gathers

* named tensors you add yourself (``add_tensor``),
* a model's parameters and buffers (``model.<dotted name>``),
* an optimizer's state -- moments, step counts (``optimizer.state.<param>.<key>``)
  and hyper-parameters -- and optionally a learning-rate scheduler's,
* the engine's RNG state, the iteration counter, and
* the tape of the last forward pass (``record(loss)``), for snapshots that
  include it.

It is the unit :mod:`minigrad_ckpt.snapshot` saves and restores.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from . import random as _random
from .backend import host_numpy, is_array, to_host
from .tensor import Tensor

__all__ = ["Executor"]


class Executor:
    """Named tensors + model + optimizer + RNG + iteration + tape (see the module docstring)."""

    def __init__(self, model: Any = None, optimizer: Any = None, scheduler: Any = None) -> None:
        self._tensors: OrderedDict[str, Tensor] = OrderedDict()
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.iteration = 0
        self.tape: Any = None          # the output tensor whose tape is recorded
        self.restored_optimizer_state: dict[str, Any] | None = None
        self.restored_scheduler_state: dict[str, Any] | None = None
        self.restored_rng_state: dict[str, int] | None = None
        if optimizer is not None and model is not None:
            self._param_names()  # fail early if the optimizer holds foreign tensors

    # ---------------------------------------------------------------- tensors
    def add_tensor(self, name: str, value: Any) -> Tensor:
        """Register ``value`` (an array or a Tensor) under ``name``; returns the Tensor."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"tensor names must be non-empty strings, got {name!r}")
        if name.startswith(("model.", "optimizer.", "__tape__")):
            raise ValueError(f"{name!r}: names starting with 'model.', 'optimizer.' or '__tape__' are reserved")
        t = value if isinstance(value, Tensor) else Tensor(value)
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
                out[f"model.{k}"] = v
        if self.optimizer is not None:
            names = self._param_names()
            for p, st in self.optimizer.state.items():
                for k, v in st.items():
                    if isinstance(v, Tensor):
                        out[f"optimizer.state.{names[id(p)]}.{k}"] = v
        return _ReadOnly(out)

    def live_tensors(self) -> dict[str, Tensor]:
        """Like :attr:`tensors`, but the model's actual Parameter objects (what tapes refer to)."""
        out = dict(self.tensors)
        if self.model is not None:
            for k, t in self.model._live_tensors():
                out[f"model.{k}"] = t
        return out

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

    def optimizer_state(self) -> dict[str, Any] | None:
        """The optimizer's non-tensor state as plain data (type, groups, step counts)."""
        if self.optimizer is None:
            return None
        names = self._param_names()
        groups = []
        for g in self.optimizer.param_groups:
            entry = {k: _plain(v) for k, v in g.items() if k != "params"}
            entry["params"] = [names[id(p)] for p in g["params"]]
            groups.append(entry)
        scalars = {}
        for p, st in self.optimizer.state.items():
            scalars[names[id(p)]] = {k: _plain(v) for k, v in st.items() if not isinstance(v, Tensor)}
        return {"type": type(self.optimizer).__name__, "param_groups": groups, "scalars": scalars}

    def scheduler_state(self) -> dict[str, Any] | None:
        if self.scheduler is None:
            return None
        return {"type": type(self.scheduler).__name__,
                "state": {k: _plain(v) for k, v in self.scheduler.state_dict().items()}}

    def rng_state(self) -> dict[str, int]:
        return _random.get_rng_state()

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
        return to_host(v.data if isinstance(v, Tensor) else v).tolist()
    raise TypeError(f"cannot store {type(v).__name__} in a snapshot header")
