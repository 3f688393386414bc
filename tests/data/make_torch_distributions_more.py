"""Record torch.distributions' answers to the programs of distribution_more_cases.py in float64 and float32:
``python tests/data/make_torch_distributions_more.py`` (offline; needs torch) writes
torch_distributions_more.npz, one array per (case, dtype, output), which tests/test_distributions_more.py
compares with."""

import sys
from pathlib import Path

import numpy as np
import torch
import torch.distributions as D
import torch.func as func

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from distribution_more_cases import CASES  # noqa: E402

arrays = {"torch_version": np.array(torch.__version__)}
for dtype in (torch.float64, torch.float32):
    def T(values, dtype=dtype):
        return torch.tensor(values, dtype=dtype)
    for case in CASES:
        for i, out in enumerate(case(D, T, func)):
            arrays[f"{case.__name__}|{str(dtype)[6:]}|{i}"] = out.detach().numpy()
np.savez_compressed(HERE / "torch_distributions_more.npz", **arrays)
