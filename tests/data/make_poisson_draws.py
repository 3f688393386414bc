"""Regenerate ``tests/data/poisson_draws.npz``: the engine's own Poisson draws under fixed seeds
(``Poisson(rate).sample(shape)``, ``NegativeBinomial(...).sample(shape)``), for rates below 10
(inversion), from 10 up (PTRS) and both at once, in float32 and float64.

The committed file was written by the engine *before* the draw routine moved from
``distributions/discrete.py`` down to ``functional/poisson.py`` (where ``mg.poisson`` uses it);
``tests/test_poisson.py`` checks that the distributions' draws stay bitwise the same.  No torch.

    python tests/data/make_poisson_draws.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("poisson_draws.npz")
RATES = [0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1000.0]
CASES = {  # name -> (seed, rates as rows, sample shape, dtype)
    "small32": (1, [[0.5, 3.0, 9.99]], (4,), "float32"),
    "large32": (2, [[10.0, 25.0, 1000.0]], (4,), "float32"),
    "mixed32": (3, [RATES, RATES[::-1]], (3,), "float32"),
    "mixed64": (4, [RATES, RATES[::-1]], (3,), "float64"),
    "scalar64": (5, 7.5, (5, 2), "float64"),
}


def draws() -> dict[str, np.ndarray]:
    import minigrad_ckpt as mg

    out = {}
    for name, (seed, rates, shape, dtype) in CASES.items():
        mg.manual_seed(seed)
        rate = mg.tensor(rates, dtype=dtype)
        out["poisson/" + name] = mg.distributions.Poisson(rate).sample(shape).numpy()
        out["negative_binomial/" + name] = mg.distributions.NegativeBinomial(
            mg.tensor(3.0, dtype=dtype), probs=rate / (rate + 1)).sample(shape).numpy()
    return out


def main() -> None:
    np.savez(OUT, **draws())


if __name__ == "__main__":
    main()
