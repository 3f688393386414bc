"""Regenerate ``tests/data/ported_mixture_density_network_reference.npz``: PyTorch's runs of
``examples/ported/mixture_density_network.py`` (a mixture density network on Bishop's toy inverse
problem), read from its ported source with the rename undone, as ``make_ported_reference.py`` runs
its programs (the same keys: ``<run>|init|...``, ``<run>|draw|<i>``, ``<run>|history``,
``<run>|final|...``).

    python tests/data/make_ported_mixture_density_network.py        # needs torch; the tests do not

The draws of ``torch.multinomial`` and ``torch.normal`` are recorded; the test replays them.
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_mixture_density_network.py replays these
    "mdn_f64": ("mixture_density_network", ["--double"]),
    "mdn_dist_f64": ("mixture_density_network", ["--double", "--use-distributions"]),
    "mdn_f32": ("mixture_density_network", []),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_mixture_density_network_reference.npz")
