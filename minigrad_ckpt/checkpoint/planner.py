"""Planning where to checkpoint a chain of layers, from measurements.

The planner is five modules, one idea each; this one gathers their public
names, so ``minigrad_ckpt.checkpoint.planner`` keeps working as an import path:

* :mod:`.plans` -- the plan types (:class:`Block`, :class:`Plan`) and plans
  that need no measurements (equal chunks, given starts, merging);
* :mod:`.model` -- the memory model (:class:`LayerProfile`,
  :class:`ChainProfile`, :func:`simulate_peak`) and the dynamic programs that
  plan with it (:func:`pareto_plans`, :func:`plan_for_budget`,
  :func:`min_peak_bytes`, and the oracle :func:`brute_force_plans`);
* :mod:`.profiling` -- :func:`profile_chain`: one measured forward pass;
* :mod:`.nested` -- nested (multi-level) plans: the dynamic program that
  chooses among them, and :func:`plan_for_budget` / :func:`min_peak_bytes`,
  which weigh nested and one-level plans;
* :mod:`.revolve` -- Revolve's count of extra forwards for uniform chains.
"""

from __future__ import annotations

from .model import (
    ChainProfile,
    LayerProfile,
    brute_force_nested_plans,
    brute_force_plans,
    flat_min_peak_bytes,
    flat_plan_for_budget,
    pareto_plans,
    plan_cost,
    recomputed_layers,
    simulate_peak,
)
from .nested import min_peak_bytes, plan_for_budget
from .plans import Block, InfeasibleBudgetError, Plan, coarsen, plan_from_starts, uniform_plan
from .profiling import profile_chain
from .revolve import revolve_closed_form, revolve_extra_forwards

__all__ = [
    "Block", "Plan", "LayerProfile", "ChainProfile", "profile_chain", "simulate_peak", "pareto_plans",
    "plan_for_budget", "min_peak_bytes", "brute_force_plans", "uniform_plan", "revolve_extra_forwards",
    "revolve_closed_form", "InfeasibleBudgetError", "plan_cost", "plan_from_starts", "coarsen",
    "brute_force_nested_plans", "flat_plan_for_budget", "flat_min_peak_bytes", "recomputed_layers",
]
