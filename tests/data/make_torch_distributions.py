"""Record torch.distributions' answers to the programs of distribution_cases.py in float64 and float32:
``python tests/data/make_torch_distributions.py`` (offline; needs torch) writes torch_distributions.npz,
one array per (case, dtype, output), which tests/test_distributions_torch_programs.py compares with."""

import sys
from pathlib import Path

import numpy as np
import torch
import torch.distributions as D
import torch.func as func

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from distribution_cases import CASES, MIXTURE_CASES  # noqa: E402


def record(cases, path):
    """Each case's outputs in float64 and float32, one array per (case, dtype, output), into ``path``."""
    arrays = {"torch_version": np.array(torch.__version__)}
    for dtype in (torch.float64, torch.float32):
        def T(values, dtype=dtype):
            return torch.tensor(values, dtype=dtype)
        for case in cases:
            for i, out in enumerate(case(D, T, func)):
                arrays[f"{case.__name__}|{str(dtype)[6:]}|{i}"] = out.detach().numpy()
    np.savez_compressed(path, **arrays)


if __name__ == "__main__":
    record(CASES + MIXTURE_CASES, HERE / "torch_distributions.npz")
