"""Regenerate ``tests/data/ported_maml_reference.npz``: PyTorch's runs of ``examples/ported/maml.py``
(MAML on sinusoids, by fast weights (MAML-Pytorch) and by torch.func (functorch's example)), read
from its ported source with the rename undone, as ``make_ported_reference.py`` runs its programs
(the same keys: ``<run>|init|...``, ``<run>|draw|<i>``, ``<run>|history``, ``<run>|final|...``).

    python tests/data/make_ported_maml.py        # needs torch; the tests do not

The program draws nothing from torch's generator (NumPy's makes the tasks).
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_maml.py replays these
    "maml_f64": ("maml", ["--double"]),
    "maml_functional_f64": ("maml", ["--double", "--functional"]),
    "maml_f32": ("maml", []),
    "maml_functional_f32": ("maml", ["--functional"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_maml_reference.npz")
