"""Regenerate ``tests/data/ported_ppo_reference.npz``: PyTorch's run of ``examples/ported/ppo.py``
(CleanRL's ``ppo.py``), read from its ported source with the rename undone, as
``make_ported_reference.py`` runs its programs (the keys ``<run>|init|...``, ``<run>|draw|<i>``,
``<run>|history``, ``<run>|final|...``): the agent's starting weights are torch's (``orthogonal_``'s),
and ``Categorical.sample``'s ``multinomial`` draws are recorded for the test to replay.

    python tests/data/make_ported_ppo.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {"ppo": ("ppo", ["--learning-rate", "0.02"])}  # tests/test_ported_ppo.py replays these; at
# 2.5e-4 (the default) every ratio stays inside the clip range, so max and clamp would go untested

if __name__ == "__main__":
    record_runs(RUNS, "ported_ppo_reference.npz")
