"""The ``nn.functional`` option cases of the PyTorch fixture, written once for both engines.

Each case takes the functional namespace ``F`` (``torch.nn.functional`` when
``make_torch_nn_options.py`` records the fixture, ``minigrad_ckpt.nn.functional`` when
``tests/test_nn_options_vs_torch.py`` replays it) and the input ``x``, and returns one
tensor or a tuple; the first output is differentiated.  ``INPUTS`` builds each case's
input from a seeded NumPy generator.
"""

from __future__ import annotations

import numpy as np


def _minus_inf_corners(rng):
    """A window in the padding whose input taps are all -inf: PyTorch's maximum there is -inf,
    at the first input element (never a padding place)."""
    x = rng.standard_normal((1, 2, 5, 6))
    x[0, 0, :2, :2] = -np.inf
    x[0, 1, 3:, 4:] = -np.inf
    return x


INPUTS = {
    "minus_inf_corners": _minus_inf_corners,
    "short_rows": lambda rng: 0.1 * rng.standard_normal((2, 3, 4)),  # norms below eps=0.5
    "rows": lambda rng: rng.standard_normal((4, 5)),
}

CASES = {  # name: (input, function of (F, x))
    "max_pool2d_pad_minus_inf": ("minus_inf_corners", lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True)),
    "max_pool2d_pad_minus_inf_ceil": ("minus_inf_corners",
                                      lambda F, x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)),
    "max_pool2d_pad_minus_inf_dilated": ("minus_inf_corners",
                                         lambda F, x: F.max_pool2d(x, 2, 2, 1, 2, return_indices=True)),
    "max_pool1d_pad_minus_inf": ("minus_inf_corners", lambda F, x: F.max_pool1d(x[0], 3, 1, 1, return_indices=True)),
    "cosine_similarity_clamped_norms": ("short_rows", lambda F, x: F.cosine_similarity(x[0], x[1], dim=1, eps=0.5)),
    "cosine_similarity_one_clamped": ("short_rows",
                                      lambda F, x: F.cosine_similarity(x[0], 10 * x[1], dim=-1, eps=0.5)),
    "linear_vector_weight": ("rows", lambda F, x: F.linear(x[1:], x[0])),
    "linear_vector_weight_vector_input": ("rows", lambda F, x: F.linear(x[1], x[0])),
}

# PyTorch's forward mode differs from its reverse mode here: cosine_similarity clamps the norms in
# place under no_grad, which stops no tangent (forward mode ignores no_grad) but every gradient.
# minigrad_ckpt follows the reverse mode in both (one derivative), so its jvp is not PyTorch's.
JVP_NOT_TORCH = {"cosine_similarity_clamped_norms", "cosine_similarity_one_clamped"}
