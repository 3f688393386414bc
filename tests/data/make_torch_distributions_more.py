"""Record torch.distributions' answers to the programs of distribution_more_cases.py in float64 and float32:
``python tests/data/make_torch_distributions_more.py`` (offline; needs torch) writes
torch_distributions_more.npz, one array per (case, dtype, output), which tests/test_distributions_more.py
compares with (the recording is make_torch_distributions.py's)."""

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from distribution_more_cases import CASES  # noqa: E402
from make_torch_distributions import record  # noqa: E402

record(CASES, HERE / "torch_distributions_more.npz")
