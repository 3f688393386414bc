"""Regenerate ``tests/data/ported_neural_ode_reference.npz``: PyTorch's runs of
``examples/ported/neural_ode.py`` (torchdiffeq's ode_demo with a hand-written RK4 and FFJORD's
divergence estimators), read from its ported source with the rename undone, as
``make_ported_reference.py`` runs its programs (the same keys: ``<run>|init|...``,
``<run>|draw|<i>``, ``<run>|history``, ``<run>|final|...``).

    python tests/data/make_ported_neural_ode.py        # needs torch; the tests do not

The program draws nothing from torch's generator (NumPy's makes its batches, the flow's points and
its Rademacher vector). The ``--checkpoint`` run is not recorded: its numbers are the plain run's,
to the bit.
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_neural_ode.py replays these
    "ode_f64": ("neural_ode", ["--double"]),
    "ode_f32": ("neural_ode", []),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_neural_ode_reference.npz")
