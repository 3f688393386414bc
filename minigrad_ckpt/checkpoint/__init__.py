"""Segment checkpointing: drop activations in the forward pass, replay them in backward.

``checkpoint(fn, *args)`` runs ``fn`` as one checkpointed segment: its
intermediate values are not kept for backward; backward replays the ops the
tape recorded (never ``fn`` itself) from the segment's kept inputs, once, and
frees what it replayed before moving on.  See ``docs/checkpointing.md``.

    y = checkpoint(block, x)                          # one segment
    y = checkpoint_sequential(layers, 4, x)            # 4 chunks, like PyTorch
    model.enable_checkpointing(CheckpointingConfig(Optimal(budget_bytes)))

Everything else works as without checkpointing: ``mg.grad`` with a subset of
inputs, ``create_graph``, nested checkpoints, inputs that do not require grad,
keyword arguments, dropout (bitwise identical: random ops replay their key).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from ..grad_mode import is_grad_enabled, is_recomputing
from ..grad_mode import state as _grad_state
from .planner import (
    Block,
    ChainProfile,
    InfeasibleBudgetError,
    LayerProfile,
    Plan,
    brute_force_nested_plans,
    brute_force_plans,
    flat_min_peak_bytes,
    flat_plan_for_budget,
    min_peak_bytes,
    pareto_plans,
    plan_for_budget,
    profile_chain,
    recomputed_layers,
    revolve_closed_form,
    revolve_extra_forwards,
    simulate_peak,
    uniform_plan,
)
from .plans import check_covers
from .policy import (
    DEFAULT_STATISTICS,
    Automatic,
    CheckpointCostWarning,
    CheckpointingConfig,
    CheckpointPolicy,
    CheckpointStatistics,
    Custom,
    EveryNLayers,
    NoCheckpointing,
    Optimal,
    SpecificLayers,
    Sqrt,
)
from .remat import (
    MATMUL_OPS,
    GraphPlan,
    name,
    offload_to_host,
    plan_graph,
    remat,
    save_everything,
    save_matmuls,
    save_names,
    save_nothing,
)
from .segment import CheckpointError, Segment, determinism_check_named

__all__ = [
    "checkpoint", "checkpoint_sequential", "noop_context_fn", "enable_checkpointing", "plan_chain", "statistics",
    "reset_statistics", "is_recomputing", "CheckpointPolicy", "EveryNLayers", "SpecificLayers", "Automatic",
    "Optimal", "Custom", "Sqrt", "NoCheckpointing", "CheckpointingConfig", "CheckpointStatistics",
    "CheckpointError", "CheckpointCostWarning",
    "InfeasibleBudgetError", "Plan", "Block", "ChainProfile", "LayerProfile",
    "profile_chain", "simulate_peak", "pareto_plans", "plan_for_budget", "min_peak_bytes", "brute_force_plans",
    "uniform_plan", "revolve_extra_forwards", "revolve_closed_form", "Segment", "last_plan", "run_plan",
    "brute_force_nested_plans", "recomputed_layers", "flat_min_peak_bytes", "flat_plan_for_budget",
    "remat", "save_nothing", "save_everything", "save_matmuls", "save_names", "name", "offload_to_host",
    "plan_graph", "GraphPlan", "MATMUL_OPS",
]

_default_stats = DEFAULT_STATISTICS


def statistics() -> CheckpointStatistics:
    """Counters over every segment since the last :func:`reset_statistics` (always collected)."""
    return _default_stats


def reset_statistics() -> None:
    """Zero the process-wide checkpointing statistics (recomputations, bytes saved)."""
    _default_stats.reset()


class _Tee:
    """Forward statistics events to the global counters and a config's own."""

    def __init__(self, *targets: CheckpointStatistics) -> None:
        self.targets = targets

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any) -> None:
            for t in self.targets:
                getattr(t, name)(*args)
        return call


def noop_context_fn() -> tuple[contextlib.AbstractContextManager, contextlib.AbstractContextManager]:
    """PyTorch's default ``context_fn``: a context for the forward pass and one for the
    recomputation, both doing nothing."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn, determinism_check: str = "shape",
               debug: bool = False, early_stop: bool = True, preserve_rng_state: bool = True,
               **kwargs: Any) -> Any:
    """Run ``function(*args, **kwargs)`` as one checkpointed segment and return its result.

    Under ``no_grad`` this is exactly ``function(*args, **kwargs)``: nothing is
    recorded.  The keywords are PyTorch's (``torch.utils.checkpoint.checkpoint``):

    * ``determinism_check``: ``"shape"`` (PyTorch's ``"default"``: every replayed value
      has its forward shape and dtype), ``"value"`` (its bytes too) or ``"none"``;
    * ``context_fn()`` returns two context managers: the first is entered around
      ``function``'s forward pass, the second around each replay of the segment;
    * ``preserve_rng_state``, ``early_stop`` and ``debug`` change nothing: randomness
      is always replayed exactly (keys live on the tape), a replay always runs only the
      ops backward needs, and a diverging replay's error names the node and op.
    * ``use_reentrant`` selects nothing -- there is one, non-re-entrant mechanism --
      but ``use_reentrant=True`` refuses what PyTorch's re-entrant variant refuses
      (keyword arguments for ``function``, ``context_fn``, ``debug``), so code that
      runs here runs there.
    """
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    determinism_check = determinism_check_named(determinism_check)  # (checked under no_grad too, as PyTorch)
    label = getattr(function, "__qualname__", None) or type(function).__name__
    contexts = None if context_fn is noop_context_fn else context_fn()
    return _run_segment(function, args, kwargs, _default_stats, determinism_check, label=label,
                        contexts=contexts)


def _run_segment(function: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], stats: Any,
                 determinism_check: str, label: str = "", keep_result: bool = False,
                 contexts: tuple[Any, Any] | None = None) -> Any:
    if not is_grad_enabled():
        return function(*args, **kwargs)
    forward_context, replay_context = contexts if contexts is not None else (None, None)
    with Segment(stats=stats, determinism_check=determinism_check, label=label,
                 replay_context=replay_context) as seg:
        if forward_context is None:
            out = function(*args, **kwargs)
        else:
            with forward_context:
                out = function(*args, **kwargs)
    seg.returned(out)
    if keep_result:  # a chain block: its result is kept where its op saves it (see Segment.keep_result)
        seg.keep_result(out)
    return out


def plan_chain(layers: Sequence[Callable[[Any], Any]], x: Any, policy: CheckpointPolicy | CheckpointingConfig,
               profile: ChainProfile | None = None) -> Plan:
    """The plan ``policy`` makes for ``layers`` on input ``x`` (profiling once if it needs to)."""
    config = policy if isinstance(policy, CheckpointingConfig) else CheckpointingConfig(policy)
    if profile is None and config.policy.needs_profile:
        profile = profile_chain(layers, x)
    return config.make_plan(len(layers), profile)


def checkpoint_sequential(functions: Sequence[Callable[[Any], Any]] | Any, segments: Any, input: Any,
                          preserve_rng_state: bool = True, use_reentrant: bool | None = None,
                          config: CheckpointingConfig | None = None) -> Any:
    """Run a chain of callables (or a ``Sequential``) with checkpointed segments.

    ``segments`` is an int (PyTorch's behaviour: that many chunks of
    ``len // segments`` layers, the last chunk taking the remainder and run
    without checkpointing), a :class:`Plan`, or a :class:`CheckpointPolicy`.
    """
    layers = list(functions)
    if not layers:
        raise ValueError("checkpoint_sequential needs at least one function")
    if isinstance(segments, bool) or not isinstance(segments, (int, Plan, CheckpointPolicy)):
        raise TypeError(f"segments must be an int, a Plan or a CheckpointPolicy, got {type(segments).__name__}")
    if isinstance(segments, int):
        if segments < 1:
            raise ValueError(f"segments must be >= 1, got {segments}")
        size = max(1, len(layers) // segments)
        starts = [i * size for i in range(min(segments, len(layers)))]
        blocks = []
        for i, s in enumerate(starts):
            e = starts[i + 1] if i + 1 < len(starts) else len(layers)
            blocks.append(Block(s, e, i + 1 < len(starts)))
        plan = Plan(tuple(blocks), policy=f"{segments} segments")
    elif isinstance(segments, CheckpointPolicy):
        plan = plan_chain(layers, input, config or CheckpointingConfig(segments))
    else:
        plan = segments
    return run_plan(layers, plan, input, config)  # (which checks that the plan covers every layer)


def run_plan(layers: Sequence[Callable[[Any], Any]], plan: Plan, x: Any,
             config: CheckpointingConfig | None = None) -> Any:
    """Run ``layers`` on ``x`` block by block as ``plan`` says (covering every layer; a sequence
    of :class:`Block` is taken as ``simulate_peak`` takes it)."""
    if not isinstance(plan, Plan):
        plan = Plan(plan)  # (a TypeError unless it is a sequence of Block)
    check_covers(plan.blocks, len(layers))
    stats: Any = _default_stats
    check = "shape"
    if config is not None:
        check = config.determinism_check
        if config.statistics is not None:
            stats = _Tee(_default_stats, config.statistics)
    if not is_grad_enabled():
        return _chain(layers, x)
    return _run_blocks(layers, plan.blocks, x, stats, check)


def _run_blocks(layers: Sequence[Callable[[Any], Any]], blocks: Sequence[Block], x: Any, stats: Any,
                check: str) -> Any:
    """Run ``blocks`` in order; a checkpointed one as a segment, its inner blocks inside it
    (an inner checkpointed block is a segment nested in the outer one)."""
    for b in blocks:
        if not b.checkpointed:
            x = _chain(layers[b.start:b.stop], x)
        elif b.blocks:
            x = _run_segment(_run_blocks, (layers, b.blocks, x, stats, check), {}, stats, check,
                             label=f"layers {b.start}-{b.stop - 1}", keep_result=True)
        else:
            x = _run_segment(_chain, (layers[b.start:b.stop], x), {}, stats, check,
                             label=f"layers {b.start}-{b.stop - 1}", keep_result=True)
    return x


def _chain(layers: Sequence[Callable[[Any], Any]], x: Any) -> Any:
    for f in layers:
        before, x = x, f(x)
        if getattr(x, "_node", True) is None and not x.requires_grad:
            _cut_inside_a_segment(x, before)
        before = None  # (what the layer read goes as it would have)
    return x


def _cut_inside_a_segment(x: Any, before: Any) -> None:
    """A layer cut the chain's history (``.detach()``, ``no_grad``) inside a checkpointed block: the
    layers after it read ``x`` as a value the segment keeps, not as a replay of the nodes that made
    its memory (``Segment.cut_off``) -- no backward reaches those (unless the layer kept its input
    ``before`` somewhere), and they go when the block's function returns, as the planner's model
    says (``ChainProfile.live``)."""
    recorder = _grad_state.recorder
    if isinstance(recorder, Segment):
        recorder.cut_off(x._data, before)


def enable_checkpointing(model: Any, config: CheckpointingConfig | CheckpointPolicy | None) -> Any:
    """Make ``model`` (a ``Sequential``) run its layers under ``config`` from now on.

    Plans are made on the first call for each input shape and set of layers -- and training mode,
    set of parameters needing gradients, and whether the input needs one (profiling once for
    budget policies) and cached in the config.  ``None`` switches it off.

    Checkpointing *wraps* the model: its ``forward`` is replaced, on this
    instance, by a :class:`CheckpointedForward` that runs the same layers
    under the plan, so the model's own class knows nothing of checkpointing.
    """
    if config is not None and not isinstance(config, CheckpointingConfig):
        config = CheckpointingConfig(config)
    if not hasattr(model, "__len__") or not hasattr(model, "__getitem__"):
        raise TypeError(f"enable_checkpointing needs a Sequential-like chain of layers, got {type(model).__name__}")
    if config is None:
        model.__dict__.pop("forward", None)  # the class's own forward again
        model.__dict__.pop("_checkpointing", None)
    else:
        object.__setattr__(model, "forward", CheckpointedForward(model, config))
        object.__setattr__(model, "_checkpointing", config)
    return model


class CheckpointedForward:
    """The ``forward`` of a model with checkpointing enabled: its layers, run under a plan."""

    def __init__(self, model: Any, config: CheckpointingConfig) -> None:
        self.model = model
        self.config = config
        self.plan: Plan | None = None  # the plan of its latest forward pass (see last_plan)

    def __call__(self, x: Any) -> Any:
        layers = [self.model[i] for i in range(len(self.model))]
        return forward_with_config(layers, self.config, x, self)


def forward_with_config(layers: Sequence[Callable[[Any], Any]], config: CheckpointingConfig, x: Any,
                        forward: CheckpointedForward | None = None) -> Any:
    """Run ``layers`` on ``x`` under ``config`` (the plan for ``x``'s shape and these layers, made
    once; ``forward.plan`` is set to it)."""
    if not is_grad_enabled():
        return _chain(layers, x)
    # (the layers too: a model appended to, or a layer replaced, since the plan was made needs a new one;
    # and what decides what the step saves: a plan made in eval mode, or with frozen parameters or an
    # input that needs no gradient, measured another step)
    key = (tuple(getattr(x, "shape", ())), str(getattr(x, "dtype", "")), str(getattr(x, "device", "")),
           getattr(x, "requires_grad", None), tuple(map(id, layers)), tuple(map(_what_it_saves, layers)))
    plan = config._plans.get(key)
    if plan is None:
        plan = plan_chain(layers, x, config)
        config._plans[key] = plan
    if forward is not None:
        forward.plan = plan
    return run_plan(layers, plan, x, config)


def _what_it_saves(layer: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """What of ``layer`` decides the arrays a step saves besides the input: its modules' training
    modes (dropout, batch norm) and which of its parameters need gradients."""
    modules = getattr(layer, "modules", None)
    if modules is None:  # a function
        return (), ()
    return (tuple(m.training for m in modules()), tuple(p.requires_grad for p in layer.parameters()))


def last_plan(model: Any) -> Plan | None:
    """The plan of a model with checkpointing enabled: the one its latest forward pass ran under,
    or -- before its first -- the latest its configuration made (for another model sharing it)."""
    config = getattr(model, "_checkpointing", None)
    if config is None:
        return None
    forward = model.__dict__.get("forward")
    if getattr(forward, "config", None) is config and forward.plan is not None:
        return forward.plan
    return list(config._plans.values())[-1] if config._plans else None
