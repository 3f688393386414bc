"""Initial weights both sides of a ported-program comparison load: uniform in
``±1/sqrt(fan_in)`` from a fixed NumPy seed, so the MNIST net's 1.2 M weights need not be
stored in the fixture (``make_ported_reference.py`` and ``test_ported_examples.py`` share it)."""

from __future__ import annotations

import numpy as np


def reference_weights(shapes: dict[str, tuple[int, ...]], seed: int, dtype: str = "float32") -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in shapes.items():
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        bound = 1.0 / np.sqrt(max(fan_in, 1))
        out[name] = rng.uniform(-bound, bound, shape).astype(dtype)
    return out
