"""PyTorch's ``Join`` (``torch.distributed.algorithms.join``): train on uneven inputs.

A PyTorch script writes ``with Join([ddp]): for x, y in loader: ...``; here that block is
``ddp.join()`` (``nn/parallel.py``), which does the shadowing: a rank whose loop ended joins the
others' collectives until every rank has.  The one ``Joinable`` the engine has is
``DistributedDataParallel`` (PyTorch's other, ``ZeroRedundancyOptimizer``, is not offered), so a
``Join`` holds exactly one.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from typing import Any

__all__ = ["Join", "Joinable"]


# DDP.join's extensions: the state every replica takes from the rank that ran to the end
_SYNCED_STATE = ("optimizer", "executor", "scaler")


class Joinable(ABC):
    """What ``Join`` takes: ``DistributedDataParallel`` (registered as one in ``nn/parallel.py``).
    Where PyTorch's asks a joinable for hooks, the engine's asks it for its ``join()`` block."""

    @abstractmethod
    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False, **synced_state: Any) -> Any:
        """A context manager: inside it, a rank whose inputs ran out shadows the others' collectives."""


class Join:
    """``Join(joinables, enable=True, throw_on_early_termination=False, **kwargs)``: PyTorch's
    arguments; ``divide_by_initial_world_size`` among ``kwargs`` goes to DDP, as PyTorch's DDP join
    hook reads it (True by default), and so do DDP's extensions ``optimizer``, ``executor`` and
    ``scaler`` (the state the replicas take from one rank at the end of the block: see
    ``DistributedDataParallel.join``; PyTorch's Join ignores them, so a script passing them runs
    there too).  The other keyword arguments are for hooks the engine does not have, so they are
    ignored as PyTorch's DDP ignores them."""

    def __init__(self, joinables: list[Any], enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs: Any) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        for joinable in joinables:
            if not isinstance(joinable, Joinable):  # PyTorch's error: it asks every joinable for its hook
                raise AttributeError(f"{type(joinable).__name__!r} object has no attribute 'join_hook' (Join takes "
                                     f"Joinables; the engine's one is DistributedDataParallel)")
        if len(joinables) > 1:
            raise NotImplementedError("Join of more than one joinable is not offered: the engine's one Joinable is "
                                      "DistributedDataParallel, and a Join holds one wrapper")
        self._joinable = joinables[0]
        self._options = {"divide_by_initial_world_size": bool(kwargs.get("divide_by_initial_world_size", True)),
                         "enable": enable, "throw_on_early_termination": throw_on_early_termination,
                         **{k: kwargs[k] for k in _SYNCED_STATE if kwargs.get(k) is not None}}
        self._stack: contextlib.ExitStack | None = None

    def __enter__(self) -> None:
        stack = contextlib.ExitStack()
        stack.enter_context(self._joinable.join(**self._options))
        self._stack = stack

    def __exit__(self, *exc: Any) -> bool | None:
        stack, self._stack = self._stack, None
        return None if stack is None else stack.__exit__(*exc)
