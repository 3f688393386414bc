"""Checkpoint policies, the checkpointing config, and measured statistics.

The policies are ``EveryNLayers``, ``SpecificLayers``, ``Automatic``,
``Custom`` and ``None`` (no checkpointing), plus ``Sqrt`` and ``Optimal``.
A policy turns a chain of ``n`` layers into a
:class:`~minigrad_ckpt.checkpoint.planner.Plan`: blocks that are either run
normally or checkpointed.  The last block is never checkpointed -- it would be
replayed immediately at the start of backward, costing time and saving
nothing.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..user_frame import stacklevel_outside_the_engine
from .model import ChainProfile, simulate_peak
from .nested import min_peak_bytes, plan_for_budget
from .plans import Plan, budget_in_bytes, coarsen, layer_index, plan_from_starts, uniform_plan

__all__ = [
    "CheckpointPolicy", "EveryNLayers", "SpecificLayers", "Automatic", "Optimal", "Custom", "Sqrt",
    "NoCheckpointing", "CheckpointingConfig", "CheckpointStatistics", "CheckpointCostWarning",
]


class CheckpointCostWarning(UserWarning):
    """A checkpointed segment keeps more bytes to replay from than it drops."""


class CheckpointPolicy:
    """Base class.  ``plan(n_layers, profile)`` returns the blocks to run."""

    needs_profile = False

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{v!r}" for v in vars(self).values())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(type(self))


class EveryNLayers(CheckpointPolicy):
    """A checkpoint (a kept block input) every ``n`` layers."""

    def __init__(self, n: int) -> None:
        if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:  # (NumPy's integers too)
            raise ValueError(f"EveryNLayers needs a positive integer n, got {n!r}")
        self.n = int(n)

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        return plan_from_starts(n_layers, range(0, n_layers, self.n), policy=repr(self))


class SpecificLayers(CheckpointPolicy):
    """Checkpoints at the inputs of the listed layers (layer 0's input is always kept)."""

    def __init__(self, layers: Any) -> None:
        if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
            raise TypeError(f"SpecificLayers needs a sequence of layer indices, got {type(layers).__name__}")
        layers = sorted({layer_index(i, "SpecificLayers: each layer") for i in layers})
        if any(i < 0 for i in layers):
            raise ValueError(f"SpecificLayers: layer indices must be >= 0, got {layers}")
        self.layers = layers

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        bad = [i for i in self.layers if i >= n_layers]
        if bad:
            raise ValueError(f"SpecificLayers: layers {bad} do not exist in a chain of {n_layers} layers")
        return plan_from_starts(n_layers, self.layers, policy=repr(self))


class Custom(CheckpointPolicy):
    """``predicate(layer_index, n_layers) -> bool``: True puts a checkpoint at that layer's input."""

    def __init__(self, predicate: Callable[[int, int], bool]) -> None:
        if not callable(predicate):
            raise TypeError("Custom needs a callable predicate(layer_index, n_layers)")
        self.predicate = predicate

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        starts = [i for i in range(n_layers) if bool(self.predicate(i, n_layers))]
        return plan_from_starts(n_layers, starts, policy="Custom")


class Sqrt(CheckpointPolicy):
    """About ``sqrt(n)`` equal segments (Chen et al. 2016): memory ~ O(sqrt(n)) for one extra forward."""

    def __init__(self) -> None:
        pass

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        k = max(1, round(math.sqrt(n_layers)))
        return uniform_plan(n_layers, k, policy="Sqrt()")


class Optimal(CheckpointPolicy):
    """The least recomputation whose measured-model peak fits ``budget_bytes``
    (``None``: the smallest peak any plan reaches).

    Needs a profile (one measured forward pass, taken automatically by
    ``checkpoint_sequential`` and ``enable_checkpointing``).  An infeasible
    budget raises :class:`~minigrad_ckpt.checkpoint.planner.InfeasibleBudgetError`
    with the smallest feasible budget.
    """

    needs_profile = True

    def __init__(self, budget_bytes: int | None = None) -> None:
        budget = None if budget_bytes is None else budget_in_bytes(budget_bytes, type(self).__name__)
        if budget is not None and budget < 0:
            raise ValueError(f"{type(self).__name__} needs a non-negative byte budget, got {budget_bytes!r}")
        self.budget_bytes = budget

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        if profile is None:
            raise ValueError(f"{type(self).__name__} needs a measured profile of the model (see profile_chain)")
        if len(profile) != n_layers:
            raise ValueError(f"profile has {len(profile)} layers, the model {n_layers}")
        budget = self.budget_bytes
        if budget is None:  # no budget: the smallest peak there is
            budget = min_peak_bytes(profile)
        return plan_for_budget(profile, budget, policy=type(self).__name__)


class Automatic(Optimal):
    """Budget-driven planning under its other name: ``Automatic(memory_budget_bytes)``.

    The budget is required; the plan comes from measured sizes and the optimal
    planner, exactly like :class:`Optimal`.
    """

    def __init__(self, memory_budget_bytes: int) -> None:
        super().__init__(memory_budget_bytes)


class NoCheckpointing(CheckpointPolicy):
    """Keep everything (the policy ``None``)."""

    def __init__(self) -> None:
        pass

    def plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        return uniform_plan(n_layers, 1, policy="None")


# ``None`` is a keyword, so the policy ``CheckpointPolicy.None`` is reachable as
# ``getattr(CheckpointPolicy, "None")`` or, more readably, ``CheckpointPolicy.None_``.
for _cls in (EveryNLayers, SpecificLayers, Automatic, Optimal, Custom, Sqrt):
    setattr(CheckpointPolicy, _cls.__name__, _cls)
setattr(CheckpointPolicy, "None", NoCheckpointing)
CheckpointPolicy.None_ = NoCheckpointing  # type: ignore[attr-defined]
del _cls


@dataclass
class CheckpointingConfig:
    """How a model checkpoints: the policy and the switches around it, every field honoured.

    ``policy``                where to checkpoint (default ``Sqrt()``)
    ``recompute_on_backward`` False keeps every activation (the policy is
                              ignored): a switch to compare with and without
    ``save_rng_state``        accepted for compatibility: replay never draws
                              from the generator (random ops replay the key
                              stored on their node), so RNG state is always
                              preserved, bit for bit
    ``enable_statistics``     collect :class:`CheckpointStatistics` in
                              ``config.statistics``
    ``max_checkpoints``       at most this many checkpointed blocks; extra ones
                              are merged (more memory, never lost data)
    ``determinism_check``     ``"shape"`` (default: every replayed value must
                              have its forward shape and dtype), ``"value"``
                              (also a CRC of its bytes) or ``"none"``
    """

    policy: CheckpointPolicy = field(default_factory=Sqrt)
    recompute_on_backward: bool = True
    save_rng_state: bool = True
    enable_statistics: bool = False
    max_checkpoints: int | None = None
    determinism_check: str = "shape"
    statistics: CheckpointStatistics | None = field(default=None, repr=False)
    _plans: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.policy is None:
            self.policy = NoCheckpointing()
        if not isinstance(self.policy, CheckpointPolicy):
            raise TypeError(f"policy must be a CheckpointPolicy, got {type(self.policy).__name__}")
        if self.max_checkpoints is not None and self.max_checkpoints < 1:
            raise ValueError(f"max_checkpoints must be None or >= 1, got {self.max_checkpoints}")
        if self.enable_statistics and self.statistics is None:
            self.statistics = CheckpointStatistics()

    def make_plan(self, n_layers: int, profile: ChainProfile | None = None) -> Plan:
        if not self.recompute_on_backward:
            return NoCheckpointing().plan(n_layers)
        plan = self.policy.plan(n_layers, profile)
        if self.max_checkpoints is not None and len(plan.segments) > self.max_checkpoints:
            plan = coarsen(plan, self.max_checkpoints)
        if profile is not None and plan.predicted_peak_bytes is None:
            plan.predicted_peak_bytes = simulate_peak(profile, plan)
        return plan


class CheckpointStatistics:
    """Measured counters of checkpointed segments.

    ``forward_passes``       segments recorded in a forward pass
    ``backward_passes``      segments whose backward completed
    ``recompute_count``      replays run
    ``recomputed_ops``       op forwards those replays ran (a layer of one op
                             counts one: Revolve's measure)
    ``memory_saved_bytes``   what the ledger holds less at the end of the
                             forward pass than without checkpointing: bytes of
                             saved arrays the segments' nodes did not keep,
                             minus the bytes the segments kept instead (counted
                             from the actual arrays, each once).  Negative when
                             checkpointing costs memory.
    ``replay_extra_bytes``   what the replays hold *above* a run without
                             checkpointing at that moment: kept values that no
                             replayed node saves (a segment input only its
                             first op reads, a constant).  The peak goes down
                             by at most ``memory_saved_bytes`` and up by at
                             most this.
    ``costly_segments``      labels of the segments that kept more than they
                             dropped (each also raised a
                             :class:`CheckpointCostWarning` naming it)
    ``additional_compute_time_us``  wall time spent replaying
    ``forward_time_us``      wall time of the checkpointed forward passes
    ``active_checkpoints``   segments currently holding kept inputs
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.forward_passes = 0
        self.backward_passes = 0
        self.recompute_count = 0
        self.recomputed_ops = 0
        self.memory_saved_bytes = 0
        self.replay_extra_bytes = 0
        self.costly_segments: list[str] = []
        self.additional_compute_time_us = 0.0
        self.forward_time_us = 0.0
        self.active_checkpoints = 0

    def avg_recomputations(self) -> float:
        """Replays per recorded segment (1.0 when every segment is replayed once)."""
        return self.recompute_count / self.forward_passes if self.forward_passes else 0.0

    def memory_saved_mb(self) -> float:
        return self.memory_saved_bytes / (1024 * 1024)

    def compute_overhead_percent(self) -> float:
        """Replay time as a percentage of the checkpointed segments' forward time."""
        if not self.forward_time_us:
            return 0.0
        return 100.0 * self.additional_compute_time_us / self.forward_time_us

    # ---- called by segments ----
    def _segment_recorded(self, seg: Any) -> None:
        self.forward_passes += 1
        self.active_checkpoints += 1
        self.memory_saved_bytes += seg.dropped_bytes - seg.kept_bytes
        self.replay_extra_bytes += seg.replay_extra_bytes
        if seg.kept_bytes > seg.dropped_bytes:
            name = seg.label or f"segment {seg.index}"
            self.costly_segments.append(name)
            warnings.warn(CheckpointCostWarning(
                f"checkpointed {name} costs memory: it keeps {seg.kept_bytes:,} bytes to replay from but "
                f"drops only {seg.dropped_bytes:,}; run it without checkpoint(), or checkpoint a longer "
                f"stretch of the model"), stacklevel=stacklevel_outside_the_engine())
        self.forward_time_us += seg.forward_time * 1e6

    def _held_by_the_tape(self, nbytes: int) -> None:
        """A buffer counted as kept (``nbytes > 0``) or dropped (``< 0``) is saved by an op after
        the segment: the ledger holds it with or without checkpointing."""
        self.memory_saved_bytes += nbytes

    def _replayed(self, seconds: float) -> None:
        self.recompute_count += 1
        self.additional_compute_time_us += seconds * 1e6

    def _op_replayed(self) -> None:
        self.recomputed_ops += 1

    def _backward_done(self, seg: Any) -> None:
        self.backward_passes += 1

    def _freed(self, seg: Any) -> None:
        self.active_checkpoints = max(0, self.active_checkpoints - 1)

    def as_dict(self) -> dict[str, Any]:
        return {
            "forward_passes": self.forward_passes, "backward_passes": self.backward_passes,
            "recompute_count": self.recompute_count, "recomputed_ops": self.recomputed_ops,
            "memory_saved_bytes": self.memory_saved_bytes,
            "replay_extra_bytes": self.replay_extra_bytes, "costly_segments": list(self.costly_segments),
            "additional_compute_time_us": self.additional_compute_time_us,
            "forward_time_us": self.forward_time_us, "active_checkpoints": self.active_checkpoints,
            "avg_recomputations": self.avg_recomputations(), "memory_saved_mb": self.memory_saved_mb(),
            "compute_overhead_percent": self.compute_overhead_percent(),
        }

    def __repr__(self) -> str:
        return (f"CheckpointStatistics(forward_passes={self.forward_passes}, backward_passes="
                f"{self.backward_passes}, recompute_count={self.recompute_count}, memory_saved_bytes="
                f"{self.memory_saved_bytes}, additional_compute_time_us={self.additional_compute_time_us:.0f}, "
                f"active_checkpoints={self.active_checkpoints})")


#: The process-wide statistics every segment reports to (``checkpoint.statistics()``).
DEFAULT_STATISTICS = CheckpointStatistics()
