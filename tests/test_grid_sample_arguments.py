"""``F.grid_sample`` and ``F.affine_grid`` check their arguments as PyTorch does: its exception
types and messages, in its order, and its two warnings (``align_corners=None``, the default since
1.3.0; a unit-size grid with ``align_corners=True``).  Before, the engine raised ValueError where
PyTorch raises RuntimeError (batch or grid size mismatch, bicubic on 5-D input), warned nothing,
took integer ``theta`` and integer input, and sampled a float32 input at a float64 grid (PyTorch:
``expected scalar type Float but found Double``).  Reproducer:
``F.grid_sample(mg.ones(2, 1, 4, 4), mg.zeros(1, 2, 2, 2), align_corners=False)`` raised ValueError,
torch 2.13 RuntimeError.  Expected: ``tests/data/make_torch_grid_sample_arguments.py``.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent / "data"))
from grid_sample_argument_cases import cases  # noqa: E402

TORCH = json.loads((Path(__file__).parent / "data" / "torch_grid_sample_arguments.json").read_text())
CASES = cases(mg, F)


def _as_tuples(message):
    return re.sub(r"Size\(\[([^\]]*)\]\)", r"(\1)", message)  # torch.Size([1, 3, 3]) is (1, 3, 3) here


@pytest.mark.parametrize("name", sorted(TORCH))
def test_each_call_raises_and_warns_as_pytorch(name):
    want = TORCH[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if want["raised"] is None:
            CASES[name]()
        else:
            with pytest.raises(Exception) as info:
                CASES[name]()
            assert type(info.value).__name__ == want["raised"]
            assert str(info.value) == _as_tuples(want["message"])
    assert [str(w.message) for w in caught] == want["warnings"]
    assert all(w.filename.endswith("grid_sample_argument_cases.py") for w in caught)  # the caller's line


def test_the_default_is_align_corners_false():
    theta = mg.tensor([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.0]]])
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        grid = F.affine_grid(theta, (1, 1, 3, 4))
    assert (grid.numpy() == F.affine_grid(theta, (1, 1, 3, 4), align_corners=False).numpy()).all()
    x = mg.arange(12.0).reshape(1, 1, 3, 4)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        out = F.grid_sample(x, grid)
    assert (out.numpy() == F.grid_sample(x, grid, align_corners=False).numpy()).all()
