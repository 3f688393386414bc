"""A dual handle shares its primal's memory but not its tangent chain (torch 2.13's forward AD).

``make_dual(p, t)``, a transform's argument, ``detach()`` and ``unpack_dual``'s primal are new
handles on the same memory: an in-place write through one of them (or through a view of one)
changes the values every handle shows, but carries the tangent only to the views and bases of the
handle written.  The engine once gave the others the tangent too: the primal's views made before
``make_dual``, the base of a primal that was itself a view, a detached alias's source, a dual handle
whose primal was written -- and, under ``mg.func.jvp``, a view of the caller's tensor that the
function closes over, so ``jvp(f, (p,), (v,))`` counted the argument's tangent twice (perturbation
confusion through shared memory).

Expected answers: ``tests/data/make_torch_seams.py`` (torch 2.13 on the same programs).
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES, programs, torch_answers

import minigrad_ckpt as mg

LINEAGE = programs("dual_lineage_programs")
PROGRAMS, SEEDS, TRANSFORMED, run, run_random = (LINEAGE.PROGRAMS, LINEAGE.SEEDS, LINEAGE.TRANSFORMED, LINEAGE.run,
                                                  LINEAGE.run_random)
TORCH = torch_answers("dual_lineage")


def _assert_same(got, want, tol):
    if want is None or got is None:
        assert got is want, f"got {got}, torch 2.13 answers {want}"
    elif isinstance(want, list) and want and isinstance(want[0], (list, type(None))):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w, tol)
    else:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", sorted(PROGRAMS) + sorted(TRANSFORMED))
def test_writes_carry_tangents_within_a_lineage_only(name, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    _assert_same(run(mg, name, device, dtype), TORCH[name], 1e-5 if dtype == mg.float32 else 1e-12)


def test_a_write_into_an_inner_dual_reaches_the_outer_tangent_not_the_inner_one():
    """Nested dual levels (the engine's extension; torch 2.13 refuses a second level): writing the
    inner handle ``y = make_dual(x, ., L2)`` changes ``x``'s values and its L1 tangent (at L1 they
    are one tensor), but gives ``x`` no L2 tangent -- that would be perturbation confusion: a later
    ``y * x`` would count the inner direction twice."""
    fw = mg.autograd.forward_ad
    with fw.dual_level() as outer:
        x = fw.make_dual(mg.tensor(3.0, dtype=mg.float64), mg.tensor(1.0, dtype=mg.float64), level=outer)
        with fw.dual_level() as inner:
            y = fw.make_dual(x, mg.tensor(1.0, dtype=mg.float64), level=inner)
            y.mul_(2)
            assert x.item() == 6.0 and fw.unpack_dual(x, level=outer).tangent.item() == 2.0
            assert fw.unpack_dual(x, level=inner).tangent is None
            assert fw.unpack_dual(y * x, level=inner).tangent.item() == 12.0  # (y tangent 2) * x, x unmoved


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_of_views_duals_and_writes(seed, device, dtype):
    """Random pools of views, dual handles and detached aliases of one memory, written in place by
    one another (``random_steps``): every tensor's values and tangent are torch 2.13's."""
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    _assert_same(run_random(mg, seed, device, dtype), TORCH["random"][seed], 1e-5 if dtype == mg.float32 else 1e-10)
