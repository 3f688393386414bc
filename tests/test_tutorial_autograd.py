"""PyTorch's three autograd tutorials (the 60 Minute Blitz's, Learn the Basics' and the Introduction to
PyTorch series'), section by section, on the engine: the code is ``tests/data/make_torch_autograd_tutorials.py``'s
``SECTIONS``, written once for either library, and torch 2.13's answers are
``tests/data/torch_autograd_tutorials.json``.  Gradients whose arithmetic is the same agree bit for bit
(the Blitz's 4.5s, the doubling loop, the Jacobian products' accumulation); ``sin``, ``exp`` and the
loss's ``log1p`` come from two math libraries and agree to round-off.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_torch_autograd_tutorials import SECTIONS  # noqa: E402

TORCH = json.loads((Path(__file__).parent / "data" / "torch_autograd_tutorials.json").read_text())
EXACT = {"flags", "doublings", "calls", "out", "grad", "y", "x_grad"}  # the same arithmetic: bit for bit


def _compare(ours, theirs, rtol, key=""):
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for k in theirs:
            _compare(ours[k], theirs[k], rtol, k)
    elif key in EXACT:
        assert ours == theirs, key
    else:
        np.testing.assert_allclose(np.array(ours, dtype=float), np.array(theirs, dtype=float), rtol=rtol,
                                   atol=rtol, err_msg=key)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SECTIONS))
def test_the_tutorial_section_gives_torchs_answers(name, dtype):
    ours = SECTIONS[name](mg, getattr(mg, dtype))
    _compare(json.loads(json.dumps(ours)), TORCH[f"{dtype}/{name}"], 1e-6 if dtype == "float32" else 1e-13)
