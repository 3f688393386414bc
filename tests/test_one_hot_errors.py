"""``F.one_hot``'s refusals raise PyTorch's ``RuntimeError`` (``torch.nn.functional.one_hot`` on a
negative class, a class past ``num_classes``, or an empty tensor without ``num_classes``), and still
the ``IndexError`` / ``ValueError`` the engine raised before."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F


@pytest.mark.parametrize("classes, num_classes, also", [
    ([-1, 2], -1, IndexError),   # torch: "Class values must be non-negative."
    ([5, 2], 3, IndexError),     # torch: "Class values must be smaller than num_classes."
    ([], -1, ValueError),        # torch: "Can not infer total number of classes from empty tensor."
])
def test_refusals_are_runtime_errors(classes, num_classes, also):
    t = mg.tensor(np.asarray(classes, dtype=np.int64))
    with pytest.raises(RuntimeError) as info:
        F.one_hot(t, num_classes)
    assert isinstance(info.value, also)
