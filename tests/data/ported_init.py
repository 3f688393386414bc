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


def start_weights(model) -> dict[str, np.ndarray]:
    """The starting weights both engines load into ``model`` (a torch or an mg module) in the ported
    programs of ``ported_record.py``: ``reference_weights`` (seed 0) for the parameters that require
    grad, in their dtypes; the rest of the state (a mask held as a frozen parameter, buffers) as built."""
    state = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    trained = [k for k, p in model.named_parameters() if p.requires_grad]
    drawn = reference_weights({k: state[k].shape for k in trained}, seed=0, dtype="float64")
    return {k: drawn[k].astype(state[k].dtype) if k in drawn else state[k] for k in state}


def weight_digest(w: np.ndarray) -> np.ndarray:
    """A weight as three float64 sums, for fixtures too small to hold whole weights: plain,
    absolute, and against a fixed random pattern (any change of any element moves the last)."""
    w = np.asarray(w, dtype=np.float64)
    pattern = np.random.default_rng(0).standard_normal(w.shape)
    return np.array([w.sum(), np.abs(w).sum(), (w * pattern).sum()])
