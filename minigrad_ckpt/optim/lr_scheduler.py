"""Learning-rate schedules with PyTorch's names, arguments and formulas.

StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts,
LinearLR, LambdaLR, MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR, OneCycleLR,
SequentialLR, ChainedScheduler and ReduceLROnPlateau.  Each
``step()`` advances one epoch (ReduceLROnPlateau: ``step(metric)``) and writes
the new ``lr`` into every parameter group, with PyTorch's recursive formulas
(so values match its schedulers to round-off).  ``state_dict()`` is plain data
(numbers, strings, lists; MultiStepLR's ``Counter`` of milestones, as PyTorch's), so an Executor's
snapshot captures it exactly.
"""

from __future__ import annotations

import functools
import math
import numbers
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "CosineAnnealingWarmRestarts", "LinearLR", "LambdaLR", "OneCycleLR", "SequentialLR",
           "ReduceLROnPlateau", "MultiplicativeLR", "ConstantLR", "PolynomialLR", "CyclicLR", "ChainedScheduler"]


# PyTorch's words, so that a filter written for its warning catches this one
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available. Please open an issue "
    "if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)


class LRScheduler:
    """Base class of the learning-rate schedules: ``step()`` once per epoch (or step) advances
    ``last_epoch`` and sets every group's ``lr`` to ``get_lr()``.

    Construction takes the first step (epoch 0), as in PyTorch; ``base_lrs``
    are the groups' ``initial_lr``.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for g in optimizer.param_groups:  # a tensor lr is copied: the schedule writes the lr in place
                g.setdefault("initial_lr", g["lr"].clone() if isinstance(g["lr"], Tensor) else g["lr"])
        else:  # resuming: the base lrs must come from the loaded optimizer, not from its decayed lrs
            for i, g in enumerate(optimizer.param_groups):
                if "initial_lr" not in g:
                    raise KeyError(_RESUME_WITHOUT_INITIAL_LR.format(i))
        # copies, as PyTorch's: a tensor initial_lr written in place later (a schedule rebased) does not
        # move the base of a scheduler already built
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    # True only during the step a scheduler takes when built (PyTorch's ``_is_initial``); an attribute of
    # the instance only then, so it is never part of the state
    _in_initial_step = False

    def _initial_step(self) -> None:
        self._step_count = 0
        self._in_initial_step = True
        try:
            self.step()
        finally:
            del self._in_initial_step

    # True while a step computes the new lrs: PyTorch's schedulers warn when get_lr() is called by
    # hand (it computes the next lr, which is not the last one); an instance attribute only then
    _in_lr_update = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("get_lr")
        if own is not None and cls.__module__.startswith("minigrad_ckpt."):  # PyTorch's own, not a user's
            cls.get_lr = _warning_outside_step(own)

    def _new_lrs(self, compute: Callable[[], list[Any]]) -> list[Any]:
        self._in_lr_update = True
        try:
            return compute()
        finally:
            del self._in_lr_update

    def get_lr(self) -> list[float]:
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """One epoch on. PyTorch's deprecated ``step(epoch)`` still works, with its warning: it sets
        ``last_epoch = epoch`` and takes the closed form of the schedule where there is one
        (``_get_closed_form_lr``), else ``get_lr()`` at that epoch.  The first call after
        construction warns, in PyTorch's words, if the optimizer has not stepped yet (the schedule's
        first value would be skipped)."""
        if self._step_count == 1:
            _warn_if_optimizer_not_stepped(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=stacklevel_outside_the_engine())
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """One epoch on (``epoch=None``), or jump to ``epoch`` by the closed form where the
        schedule has one (``SequentialLR`` restarts a scheduler with ``_update_lr(0)``)."""
        if epoch is None:
            self.last_epoch += 1
            lrs = self._new_lrs(self.get_lr)
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            lrs = closed() if closed is not None else self._new_lrs(self.get_lr)
        self._set_lrs(lrs)

    def _set_lrs(self, lrs: list[Any]) -> None:
        """Each group's lr from ``lrs``, one per group or none set: PyTorch zips them strictly (a
        closed form of the base lrs after ``add_param_group``, a ``get_lr`` of the wrong length)."""
        groups = self.optimizer.param_groups
        if len(lrs) != len(groups):
            self._base_lrs()  # a group added since the scheduler was built: its words say so
            raise ValueError(f"{type(self).__name__}: {len(lrs)} learning rates for the optimizer's {len(groups)} "
                             f"parameter groups (get_lr() must give one per group)")
        for g, lr in zip(groups, lrs):
            _set_group_value(g, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def _base_lrs(self, error: type[Exception] = ValueError) -> list[float]:
        """``base_lrs``, checked against the optimizer's groups now.

        A formula of the base lrs has none for a group added later
        (``optimizer.add_param_group``): PyTorch stops there with a zip error;
        so does this, with the fix.  The chainable schedules (StepLR,
        MultiStepLR, ExponentialLR, LinearLR) scale each group's current lr and
        take new groups along."""
        n = len(self.optimizer.param_groups)
        if n != len(self.base_lrs):
            raise error(f"{type(self).__name__}: the optimizer has {n} parameter groups, {len(self.base_lrs)} "
                             f"when the scheduler was built (a group was added with add_param_group); its lr "
                             f"formula needs each group's base lr: build the scheduler after adding the group")
        return self.base_lrs

    def get_last_lr(self) -> list[float]:
        return list(self._last_lr)

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()
                             if not k.startswith("_") and k not in ("optimizer", "base_lrs", "last_epoch"))
        lrs = ", ".join(f"{lr:.4g}" for lr in self._last_lr)
        return (f"{type(self).__name__}({settings + ', ' if settings else ''}last_epoch={self.last_epoch}, "
                f"lr=[{lrs}])")

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


# PyTorch's older name of the base class, which user-written schedulers still subclass
_LRScheduler = LRScheduler

def _warning_outside_step(get_lr: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    @functools.wraps(get_lr)
    def checked(self: LRScheduler) -> list[Any]:
        if not self._in_lr_update:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=stacklevel_outside_the_engine())
        return get_lr(self)
    return checked


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """PyTorch's rule for a scheduler's write: a tensor (a tensor lr) is filled in place -- whoever
    holds it sees the schedule, and the value is rounded to its dtype -- a number is replaced."""
    if isinstance(group[key], Tensor):
        group[key].fill_(value.item() if isinstance(value, Tensor) else value)
    else:
        group[key] = value


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """Each group's ``key``, tensors copied (``get_last_lr()`` never aliases a live tensor lr, nor
    ``base_lrs`` a group's ``initial_lr``)."""
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key] for g in optimizer.param_groups]


# PyTorch's words for a cycling schedule (OneCycleLR, CyclicLR) on an optimizer without momentum or betas
_NO_MOMENTUM = "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"

_RESUME_WITHOUT_INITIAL_LR = (
    "param 'initial_lr' is not specified in param_groups[{}] when resuming scheduler with last_epoch >= 0.\n"
    "This typically happens when:\n"
    "1. You're trying to resume training from a checkpoint but haven't properly loaded the optimizer state\n"
    "2. You're using last_epoch >= 0 for a fresh training run (not recommended)")


def _track_optimizer_steps(optimizer: Optimizer) -> None:
    """Start noting whether ``optimizer`` steps (its ``_opt_called``, set by ``Optimizer``'s step):
    from the first scheduler built on it, as PyTorch's wrapper of ``optimizer.step`` does."""
    if not optimizer.__dict__.get("_steps_tracked_by_lr_sched", False):
        optimizer._steps_tracked_by_lr_sched = True
        optimizer._opt_called = False


def _warn_if_optimizer_not_stepped(optimizer: Optimizer) -> None:
    if "step" in optimizer.__dict__:  # replaced on the instance: its calls cannot be seen
        warnings.warn(
            "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
            "initialization. Please, make sure to call `optimizer.step()` before "
            "`lr_scheduler.step()`. See more details at "
            "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning,
            stacklevel=stacklevel_outside_the_engine())
    elif not getattr(optimizer, "_opt_called", False):
        warnings.warn(
            "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
            "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
            "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
            "will result in PyTorch skipping the first value of the learning rate schedule. "
            "See more details at "
            "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning,
            stacklevel=stacklevel_outside_the_engine())


def _given(value: Any) -> Any:
    """A scheduler's argument as PyTorch keeps it -- as given: no rounding of a float epoch count, no
    reading of a string as a number (PyTorch's arithmetic refuses it: a TypeError); a 0-d tensor as
    its number, so the state stays plain data."""
    return value.item() if isinstance(value, Tensor) else value


def _check_epoch_args(**values: Any) -> None:
    """Each a positive int (no bool), refused in PyTorch's words."""
    for k, v in values.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"Expected integer {k} >= 1, but got {v}" if k == "T_mult" else
                             f"Expected positive integer {k}, but got {v}")


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        if step_size < 1:
            raise ValueError(f"StepLR: step_size must be >= 1, got {step_size}")
        # as given, as PyTorch keeps them (a step_size of 2.5 decays at epoch 5, a gamma of '0.5' is a TypeError)
        self.step_size, self.gamma = _given(step_size), _given(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        lrs = [g["lr"] for g in self.optimizer.param_groups]
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine decay from the base lr to ``eta_min`` over ``T_max`` epochs."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if T_max < 1:
            raise ValueError(f"CosineAnnealingLR: T_max must be >= 1, got {T_max}")
        self.T_max, self.eta_min = _given(T_max), _given(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if self._in_initial_step:  # built (or resumed with last_epoch): keep the lr the optimizer has
            return [g["lr"] for g in groups]
        if self._step_count == 1 and e > 0:
            return [lo + (b - lo) * (1 + math.cos(e * math.pi / t)) / 2 for b in self._base_lrs()]
        if (e - 1 - t) % (2 * t) == 0:
            return [g["lr"] + (b - lo) * (1 - math.cos(math.pi / t)) / 2
                    for g, b in zip(groups, self._base_lrs())]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (g["lr"] - lo) + lo
                for g in groups]

    def _get_closed_form_lr(self) -> list[float]:
        lo = self.eta_min
        return [lo + (b - lo) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2 for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if not (0 < start_factor <= 1 and 0 <= end_factor <= 1):
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
                             if not 0 < start_factor <= 1 else
                             "Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = _given(start_factor), _given(end_factor)
        self.total_iters = _given(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        e, s, f, n = self.last_epoch, self.start_factor, self.end_factor, self.total_iters
        if e == 0:
            return [g["lr"] * s for g in groups]
        if self._in_initial_step or e > n:  # resumed with last_epoch: the loaded lr is already epoch e's
            return [g["lr"] for g in groups]
        return [g["lr"] * (1.0 + (f - s) / (n * s + (e - 1) * (f - s))) for g in groups]

    def _get_closed_form_lr(self) -> list[float]:
        s, f, n = self.start_factor, self.end_factor, self.total_iters
        return [b * (s + (f - s) * min(n, self.last_epoch) / n) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each epoch in ``milestones``, kept as PyTorch
    keeps them: a ``collections.Counter`` of milestone: times (a milestone listed twice multiplies
    twice), in ``state_dict()`` too."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        ms = list(milestones)
        if any(not isinstance(m, numbers.Real) or isinstance(m, bool) for m in ms):
            raise ValueError(f"MultiStepLR: milestones must be numbers, got {milestones!r}")
        # NumPy's ints (np.arange) as ints, equal keys to PyTorch's; a float milestone is kept, as
        # PyTorch keeps it (it never equals an epoch)
        self.milestones = Counter(int(m) if isinstance(m, numbers.Integral) else m for m in ms)
        self.gamma = _given(gamma)
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """As the base's; ``milestones`` loads as a ``Counter`` from a map (milestone: times) or
        from a list (a milestone as often as it counts: this engine's state dicts of before)."""
        state = dict(state)
        if isinstance(state.get("milestones"), Mapping):
            state["milestones"] = Counter({m: int(times) for m, times in state["milestones"].items()})
        elif isinstance(state.get("milestones"), (list, tuple)):
            state["milestones"] = Counter(state["milestones"])
        super().load_state_dict(state)

    def get_lr(self) -> list[float]:
        lrs = [g["lr"] for g in self.optimizer.param_groups]
        if self.last_epoch not in self.milestones:
            return lrs
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [b * self.gamma**passed for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = _given(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        lrs = [g["lr"] for g in self.optimizer.param_groups]
        if self._in_initial_step:  # built (or resumed with last_epoch): keep the lr the optimizer has
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


def _lr_lambdas(optimizer: Any, lr_lambda: Any) -> list[Callable[[int], float]]:
    """One function per parameter group: ``lr_lambda`` for each, or the list given (one per group)."""
    n = len(optimizer.param_groups) if isinstance(optimizer, Optimizer) else 0
    fns = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
    if len(fns) != n:
        raise ValueError(f"Expected {n} lr_lambdas, but got {len(fns)}")
    for f in fns:
        if not callable(f):
            raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
    return fns


class _LambdaState:
    """PyTorch's state of the lr functions: a plain function is code (``None`` in the state:
    build the scheduler with the same functions before loading); a callable object's attributes
    (a warm-up object counting its own steps) are state, saved as a copy of its ``__dict__`` and
    restored into the object the new scheduler was built with."""

    lr_lambdas: list[Callable[[int], float]]

    def state_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in LRScheduler.state_dict(self).items() if k != "lr_lambdas"}  # type: ignore[arg-type]
        out["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(f.__dict__)
                             for f in self.lr_lambdas]
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        state = dict(state)
        saved = state.pop("lr_lambdas", None) or []  # states written before the functions' were saved: none
        LRScheduler.load_state_dict(self, state)  # type: ignore[arg-type]
        for f, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                f.__dict__.update(attributes)


class LambdaLR(_LambdaState, LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)``; one function, or one per parameter group.

    A plain function is code, not state: build the scheduler with the same functions before
    loading a state; a callable object's attributes are saved and restored (as PyTorch's).
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [b * f(self.last_epoch) for f, b in zip(self.lr_lambdas, self._base_lrs())]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Multiply each group's lr by ``lr_lambda(epoch)`` every epoch (not at construction);
    one function, or one per parameter group, saved as LambdaLR's."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self._in_initial_step:  # the step taken at construction keeps the lr
            return [g["lr"] for g in groups]
        self._base_lrs()  # one function per group at construction: a group added since has none (PyTorch's zip)
        return [g["lr"] * f(self.last_epoch) for f, g in zip(self.lr_lambdas, groups)]


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` until epoch ``total_iters``, then restore it."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = _given(factor), _given(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        lrs = [g["lr"] for g in self.optimizer.param_groups]
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        f = self.factor
        return [b * (f + (self.last_epoch >= self.total_iters) * (1 - f)) for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr to 0 over ``total_iters`` epochs as ``(1 - epoch / total_iters) ** power``."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters, self.power = _given(total_iters), _given(power)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        lrs = [g["lr"] for g in self.optimizer.param_groups]
        e, n = self.last_epoch, self.total_iters
        if self._in_initial_step or e > n:
            return lrs
        decay = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * decay for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        n = self.total_iters
        return [b * (1.0 - min(n, self.last_epoch) / n) ** self.power for b in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine decay from the base lr to ``eta_min`` over ``T_0`` epochs, then restart; each
    period is ``T_mult`` times the previous one (SGDR)."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        _check_epoch_args(T_0=T_0, T_mult=T_mult)
        if not isinstance(eta_min, (float, int)):  # PyTorch's check
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for b in self._base_lrs()]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or jump to ``epoch`` (fractional epochs allowed, as in PyTorch)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        # (PyTorch's step here neither counts _step_count nor warns: its state_dict keeps the 0 of construction)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self._new_lrs(self.get_lr))


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of ``total_steps``, then anneal to ``initial_lr / final_div_factor``;
    momentum (or Adam's beta1) cycles the other way between ``max_momentum`` and
    ``base_momentum``. Step it once per batch."""

    def __init__(self, optimizer: Optimizer, max_lr: float | Sequence[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.85, max_momentum: float | Sequence[float] = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if total_steps is not None:
            _check_epoch_args(total_steps=total_steps)
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            _check_epoch_args(epochs=epochs, steps_per_epoch=steps_per_epoch)
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        # PyTorch's attribute, so a state dict carries the strategy under PyTorch's key
        self._anneal_func_type = anneal_strategy
        self._schedule_phases = _one_cycle_phases(self.total_steps, pct_start, three_phase)
        groups = optimizer.param_groups
        max_lrs = _per_group("max_lr", groups, max_lr)
        if last_epoch == -1:
            for lr, g in zip(max_lrs, groups):
                g["initial_lr"] = lr / div_factor
                g["max_lr"] = lr
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = bool(cycle_momentum)
        self.use_beta1 = False
        if self.cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(_NO_MOMENTUM)
            self.use_beta1 = "betas" in optimizer.defaults
            maxm = _per_group("max_momentum", groups, max_momentum)
            basem = _per_group("base_momentum", groups, base_momentum)
            if last_epoch == -1:
                for hi, lo, g in zip(maxm, basem, groups):
                    if self.use_beta1:
                        g["betas"] = (hi, *g["betas"][1:])
                    else:
                        g["momentum"] = hi
                    g["max_momentum"], g["base_momentum"] = hi, lo
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(older_key_renamed(state, "anneal_strategy", "_anneal_func_type"))

    def get_lr(self) -> list[float]:
        step = self.last_epoch
        self._base_lrs(KeyError)  # a group added later has no max_lr/initial_lr (PyTorch: KeyError 'max_lr')
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for g in self.optimizer.param_groups:
            start = 0.0
            phases = self._schedule_phases
            for i, ph in enumerate(phases):
                end = ph["end_step"]
                if step <= end or i == len(phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(g[ph["start_lr"]], g[ph["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(g[ph["start_momentum"]], g[ph["end_momentum"]], pct)
                    break
                start = ph["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    g["betas"] = (mom, *g["betas"][1:])
                else:
                    g["momentum"] = mom
        return lrs


def older_key_renamed(state: dict[str, Any], older: str, key: str) -> dict[str, Any]:
    """``state`` with its entry ``older`` under ``key``: the strategy of OneCycleLR and SWALR, saved
    as ``anneal_strategy`` before it took PyTorch's key."""
    state = dict(state)
    if older in state:
        state[key] = state.pop(older)
    return state


def _per_group(name: str, groups: list[dict[str, Any]], value: Any) -> list[float]:
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                             f"values, param_groups has {len(groups)}.")
        return [_given(v) for v in value]
    return [_given(value)] * len(groups)


def _one_cycle_phases(n: int, pct_start: float, three_phase: bool) -> list[dict[str, Any]]:
    """PyTorch's phases of the 1cycle schedule over ``n`` steps: where each ends, and which
    group keys hold the learning rate and momentum at its start and end."""

    def phase(end: float, lr0: str, lr1: str, m0: str, m1: str) -> dict[str, Any]:
        return {"end_step": end, "start_lr": lr0, "end_lr": lr1, "start_momentum": m0, "end_momentum": m1}

    warm_up = phase(float(pct_start * n) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum")
    if not three_phase:
        return [warm_up, phase(n - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
    return [warm_up, phase(float(2 * pct_start * n) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
            phase(n - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]


class SequentialLR(LRScheduler):
    """Run ``schedulers`` one after another, switching at the epochs in ``milestones``
    (one fewer than the schedulers); each restarts from its own epoch 0 when its turn comes."""

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:
        schedulers = list(schedulers)
        if not schedulers:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = [int(m) for m in milestones]
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            _set_group_value(g, "lr", g["initial_lr"])
        for s in schedulers:  # undo the step each took at construction
            _undo(s)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s._update_lr(0)  # the next scheduler starts at its own epoch 0 (closed form: its base lr)
        else:
            s.step()
        self._last_lr = s.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        state = dict(state)
        subs = state.pop("_schedulers")
        if len(subs) != len(self._schedulers):
            raise ValueError(f"{type(self).__name__}: the state holds {len(subs)} schedulers, this one has "
                             f"{len(self._schedulers)}")
        self.__dict__.update(state)
        for s, sub in zip(self._schedulers, subs):
            s.load_state_dict(sub)


class CyclicLR(LRScheduler):
    """Cycle the lr between ``base_lr`` and ``max_lr`` (up over ``step_size_up`` steps, down over
    ``step_size_down``), with momentum (or Adam's beta1) cycling the other way; ``mode``
    ``"triangular"``, ``"triangular2"`` (the height halves each cycle) or ``"exp_range"`` (scaled by
    ``gamma ** step``), or a ``scale_fn`` of the cycle (``scale_mode="cycle"``) or of the step.  Step it
    once per batch.  ``scale_fn`` is code, not state: build the scheduler with it before loading."""

    def __init__(self, optimizer: Optimizer, base_lr: float | Sequence[float], max_lr: float | Sequence[float],
                 step_size_up: int = 2000, step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float | Sequence[float] = 0.8,
                 max_momentum: float | Sequence[float] = 0.9, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        groups = optimizer.param_groups
        base_lrs = _per_group("base_lr", groups, base_lr)
        if last_epoch == -1:
            for lr, g in zip(base_lrs, groups):
                _set_group_value(g, "lr", lr)
        self.max_lrs = _per_group("max_lr", groups, max_lr)
        up = float(step_size_up)
        self.total_size = up + (float(step_size_down) if step_size_down is not None else up)
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma, self._scale_fn_custom = mode, _given(gamma), scale_fn
        # PyTorch's rule: a built-in mode fixes its scale mode; a custom scale_fn keeps the one given
        self.scale_mode = scale_mode if scale_fn is not None else ("iterations" if mode == "exp_range" else "cycle")
        self.cycle_momentum = bool(cycle_momentum)
        if self.cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(_NO_MOMENTUM)
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", groups, base_momentum)
            self.max_momentums = _per_group("max_momentum", groups, max_momentum)
            if last_epoch == -1:
                for hi, lo, g in zip(self.max_momentums, self.base_momentums, groups):
                    _set_momentum(g, hi, self.use_beta1)
                    g["max_momentum"], g["base_momentum"] = hi, lo
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs  # after the first step, as PyTorch (which takes that one from initial_lr)

    def scale_fn(self, x: float) -> float:
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x if self.mode == "exp_range" else 1.0

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [b + (hi - b) * scale_factor * scale for b, hi in zip(self._base_lrs(), self.max_lrs)]
        if self.cycle_momentum:
            for g, lo, hi in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(g, hi - (hi - lo) * scale_factor * scale, self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's: a custom ``scale_fn`` is code, saved as ``None`` -- or, a callable object, as a
        copy of its attributes (its state)."""
        out = super().state_dict()
        fn = out.pop("_scale_fn_custom")
        out["_scale_fn_custom"] = None if fn is None or isinstance(fn, types.FunctionType) else dict(fn.__dict__)
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """The saved attributes of a callable-object ``scale_fn`` go into this scheduler's own
        ``scale_fn``; the function itself is never replaced (a PyTorch dict's ``None`` loaded
        as the attribute dropped the custom scale, and the built-in mode's was used instead)."""
        state = dict(state)
        attributes = state.pop("_scale_fn_custom", None)
        super().load_state_dict(state)
        if attributes is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(attributes)


def _set_momentum(group: dict[str, Any], value: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class ChainedScheduler(LRScheduler):
    """Step every scheduler of ``schedulers`` at each ``step()``, in order: their changes compose
    (a warm-up ``ConstantLR`` over an ``ExponentialLR``).  Unlike the others it takes no step
    when built -- each of its schedulers took its own."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        schedulers = list(schedulers)
        if not schedulers:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_values(self.optimizer, "lr")

    def __repr__(self) -> str:
        return f"ChainedScheduler([{', '.join(type(s).__name__ for s in self._schedulers)}])"

    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict


def _check_schedulers(name: str, optimizer: Optimizer, schedulers: list[Any]) -> None:
    """PyTorch's checks of the schedulers a SequentialLR or ChainedScheduler (``name``) runs, in its order
    and words: each has an optimizer, needs no metric (not a ReduceLROnPlateau) and steps ``optimizer``."""
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             f"kwargs to be specified when calling `step`, but got one at index {i} in the given "
                             "schedulers sequence.")
        if s.optimizer is not optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


def _undo(s: LRScheduler) -> None:
    """Take back the step ``s`` took when built (PyTorch's ``recursive_undo``): a scheduler of schedulers
    (a SequentialLR, a ChainedScheduler) undoes its schedulers' steps and keeps its own epoch -- the
    sequence's own count took no step of the schedule."""
    subs = getattr(s, "_schedulers", None)
    if subs is not None:
        for sub in subs:
            _undo(sub)
    elif hasattr(s, "last_epoch"):
        s.last_epoch -= 1


class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rate by ``factor`` once ``metric`` (``step(metric)``) has not
    improved for more than ``patience`` epochs; then wait ``cooldown`` epochs.  An
    ``LRScheduler`` as in PyTorch (``isinstance`` holds), though it takes no step when built.

    ``mode="min"`` (a loss) or ``"max"`` (an accuracy); an improvement must beat
    the best value by ``threshold`` (relative or absolute, ``threshold_mode``);
    the lr never goes below ``min_lr`` and changes smaller than ``eps`` are skipped.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | Sequence[float] = 0, eps: float = 1e-8) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.optimizer = optimizer
        self.factor = _given(factor)
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.min_lrs = [_given(v) for v in min_lr]
            self.default_min_lr: float | None = None
        else:
            self.min_lrs = [_given(min_lr)] * n
            self.default_min_lr = _given(min_lr)  # also the floor of groups added later
        self.patience, self.cooldown, self.eps = _given(patience), _given(cooldown), _given(eps)
        self.mode, self.threshold, self.threshold_mode = mode, _given(threshold), threshold_mode
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self.mode_worse = math.inf if mode == "min" else -math.inf  # PyTorch's name: the worst metric there is
        self._reset()

    def _reset(self) -> None:
        """Forget the best metric and the counters (PyTorch's ``_reset``, which code calls to restart patience)."""
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record this epoch's metric (a number or a one-element tensor) and maybe reduce the lr;
        PyTorch's deprecated ``epoch`` (with its warning) sets ``last_epoch``."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=stacklevel_outside_the_engine())
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._fit_min_lrs()
            for g, lo in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(g["lr"])
                new = max(old * self.factor, lo)
                if old - new > self.eps:
                    _set_group_value(g, "lr", new)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _fit_min_lrs(self) -> None:
        """One ``min_lr`` per group, groups added since construction included (PyTorch's rule:
        a single ``min_lr`` extends to them; a list cannot guess theirs)."""
        n = len(self.optimizer.param_groups)
        if n == len(self.min_lrs):
            return
        if self.default_min_lr is None:
            raise RuntimeError(f"The number of param groups in the `optimizer` ({n}) differs from when "
                               f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param "
                               "group being added to the optimizer. Please modify the `min_lrs` field to match the "
                               "length of the `optimizer` param groups.")
        self.min_lrs = [self.default_min_lr] * n

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is waiting out its ``cooldown`` after a reduction (PyTorch's property)."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" else a > best + self.threshold

    def get_last_lr(self) -> list[float]:
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        # default_min_lr is how it was built, not state (snapshots written before it existed still load)
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "default_min_lr")}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
