"""Record torch.distributions' answers to the programs of distribution_family_cases.py in float64 and float32:
``python tests/data/make_torch_distribution_families.py`` (offline; needs torch) writes
torch_distribution_families.npz, which tests/test_distributions_transformed_families.py compares with (the
recording is make_torch_distributions.py's)."""

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from distribution_family_cases import CASES  # noqa: E402
from make_torch_distributions import record  # noqa: E402

record(CASES, HERE / "torch_distribution_families.npz")
