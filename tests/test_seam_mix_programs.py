"""Random whole programs that mix the seams: views, in-place writes (recorded and under no_grad),
detach, no_grad, tensor hooks, retain_grad, checkpoint and the transforms grad, jvp, vmap and
vmap(grad), each closing over the pool (``tests/data/seam_mix_programs.py``).

* Every seed's observations (on the CPU and the strict devices, float64 and float32) -- the pool's
  values, which tensors require grad, the leaves' and the retained gradients, what the hooks saw --
  equal torch 2.13's (``tests/data/make_torch_seams.py``
  writes ``torch_seam_mix.json``), or both refuse at the same step.  Three documented differences
  are accepted: torch's "modified by an inplace operation" where the engine kept the saved values
  intact and answers (docs/from-pytorch.md), the engine's ``CheckpointError`` where a value a
  checkpoint replays from was written after the forward pass (torch's re-run reads the new values:
  docs/checkpointing.md's guard), and the order in which hooks of different tensors run (the
  engine's leaf hooks run at the end of the pass; torch's as soon as the leaf's gradient is
  complete): their calls are compared as a multiset.
* Hypothesis draws programs of the steps that keep the loss a function of the two leaves; their
  gradients must equal central differences of the loss (a program refused for a write into a value
  saved for backward is not counted).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from seam_fixtures import DATA, DEVICES, programs

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

MIX = programs("seam_mix_programs")
TORCH = json.loads((DATA / "torch_seam_mix.json").read_text())
KEYS = ("pool", "requires_grad", "leaf_grads", "retained")


def _flat(v):
    if isinstance(v, list):
        return [x for u in v for x in _flat(u)]
    return [v]


def _same(got, want, tol: float = 1e-9) -> bool:
    g, w = _flat(got), _flat(want)
    if len(g) != len(w) or any((x is None) != (y is None) for x, y in zip(g, w)):
        return False
    pairs = [(x, y) for x, y in zip(g, w) if x is not None]
    return not pairs or bool(np.allclose(*np.array(pairs, dtype=float).T, rtol=tol, atol=tol / 10, equal_nan=True))


def _documented(got: dict, want: dict) -> bool:
    if "error" in want and "error" not in got:
        return "modified by an inplace operation" in want["message"]
    if "error" in got and "error" not in want:
        return "modified in place after the forward pass" in got["message"]
    return False


def _differences(got: dict, want: dict, tol: float) -> list:
    if "error" in got or "error" in want:
        if _documented(got, want):
            return []
        same = "error" in got and "error" in want and (got["error"], got["step"]) == (want["error"], want["step"])
        return [] if same else [f"engine {got.get('error', 'answered')}, torch {want.get('error', 'answered')}: "
                                f"{got.get('message') or want.get('message')}"]
    wrong = [k for k in KEYS if not _same(got[k], want[k], tol)]
    if len(got["hooked"]) != len(want["hooked"]) or not _same(sorted(got["hooked"]), sorted(want["hooked"]), tol):
        wrong.append("hooked")
    return wrong


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_the_programs_give_torchs_observations(device, dtype):
    failures = {}
    tol = 1e-9 if dtype == mg.float64 else 2e-4  # (torch's answers are float64's)
    for seed in MIX.SEEDS:
        wrong = _differences(MIX.run(mg, seed, dtype, device), TORCH[str(seed)], tol)
        if wrong:
            failures[seed] = (MIX.random_steps(seed), wrong)
    assert not failures, failures


def test_the_fixture_exercises_every_step_kind():
    kinds = {step[0] for seed in MIX.SEEDS for step in MIX.random_steps(seed)}
    answered = sum("error" not in TORCH[str(seed)] for seed in MIX.SEEDS)
    assert kinds >= {"unary", "binary", "detach", "nograd", "write", "hook", "retain", "checkpoint", "grad", "jvp",
                     "vmap", "vmap_grad"}
    assert answered >= 0.75 * len(MIX.SEEDS)


@st.composite
def pure_programs(draw) -> list:
    steps, n = [], 3
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(MIX.PURE_KINDS))
        src, other, k = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)), draw(st.integers(0, 4))
        if kind == "write":  # recorded, into a tensor that is not a leaf that requires grad
            src = draw(st.integers(2, n - 1))
            k = (draw(st.integers(0, len(MIX.VIEWS) - 1)), draw(st.integers(0, 3)), False)
        steps.append((kind, src, other, k))
        n += kind != "write"
    return steps


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pure_programs())
def test_pure_programs_match_central_differences(steps):
    a0, b0 = np.array(MIX.start_values(1)), np.array(MIX.start_values(4))
    try:
        _, (ga, gb) = MIX.run_pure(mg, steps, (a0.tolist(), b0.tolist()))
    except RuntimeError as e:  # a write into a value saved for backward (or kept by a checkpoint): refused
        assume("modified by an in-place operation" not in str(e) and "modified in place after" not in str(e))
        raise
    eps = 1e-6
    for which, grad in ((0, ga), (1, gb)):
        numeric = np.zeros((2, 3))
        for i in np.ndindex(2, 3):
            leaves = [a0.copy(), b0.copy()]
            leaves[which][i] += eps
            up = MIX.run_pure(mg, steps, [v.tolist() for v in leaves])[0]
            leaves[which][i] -= 2 * eps
            down = MIX.run_pure(mg, steps, [v.tolist() for v in leaves])[0]
            numeric[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, rtol=2e-5, atol=2e-6, err_msg=str(steps))
