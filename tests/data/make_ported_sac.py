"""Regenerate ``tests/data/ported_sac_reference.npz``: PyTorch's run of ``examples/ported/sac.py``
(minimalRL's soft actor-critic), read from its ported source with the rename undone, as
``make_ported_reference.py`` runs its programs (the keys ``<run>|init|...``, ``<run>|draw|<i>``,
``<run>|history``, ``<run>|final|...``).

    python tests/data/make_ported_sac.py        # needs torch; the tests do not

``Normal.rsample``'s standard normals are drawn by ``torch.randn`` here so that they are recorded
(torch draws them with ``Tensor.normal_``, which is not; the engine's ``Normal`` calls its ``randn``);
the test replays them.
"""

import torch
from make_ported_reference import record_runs
from torch.distributions import normal

RUNS = {"sac": ("sac", [])}  # tests/test_ported_sac.py replays these


def _recorded_standard_normal(shape, dtype, device):
    return torch.randn(shape, dtype=dtype, device=device)


if __name__ == "__main__":
    normal._standard_normal = _recorded_standard_normal
    record_runs(RUNS, "ported_sac_reference.npz")
