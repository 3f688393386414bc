"""Record what ``torch.utils.data.WeightedRandomSampler(weights, n, replacement=False)`` yields when
``n`` exceeds the number of positive weights, over many seeds (the order among positive weights is
random, so the structure is recorded: the set drawn first and the zero-weight tail):
``python tests/data/make_torch_weighted_sampler_zeros.py`` writes
``tests/data/torch_weighted_sampler_zeros.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from weighted_sampler_zeros_cases import CASES, structure  # noqa: E402


def main() -> None:
    out = {"torch": torch.__version__, "cases": {}}
    for name, (weights, n) in CASES.items():
        seen = {json.dumps(structure(torch, weights, n, seed)) for seed in range(50)}
        out["cases"][name] = {"weights": weights, "n": n, "structures": sorted(json.loads(s) for s in seen)}
    (HERE / "torch_weighted_sampler_zeros.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
