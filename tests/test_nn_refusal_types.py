"""Refusals of ``nn.functional`` raise PyTorch's ``RuntimeError`` (``one_hot`` on a negative class, a
class past ``num_classes`` or an empty tensor without it; ``glu``, ``celu``, ``softshrink``, ``rrelu``,
``prelu``, ``gelu``, ``pdist`` and ``cdist`` on arguments they refuse), and still the ``IndexError`` /
``ValueError`` the engine raised before."""

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


REFUSED_AS_RUNTIME_ERROR = {  # each PyTorch's RuntimeError; the engine raised a bare ValueError before
    "gelu_approximate": lambda: F.gelu(mg.ones(3), approximate="x"),
    "prelu_weight": lambda: F.prelu(mg.ones(2, 3), mg.ones(2)),
    "celu_alpha_zero": lambda: F.celu(mg.ones(3), alpha=0.0),
    "glu_scalar": lambda: F.glu(mg.tensor(1.0)),
    "glu_odd": lambda: F.glu(mg.ones(3, 5)),
    "softshrink_negative": lambda: F.softshrink(mg.ones(3), -1.0),
    "rrelu_bounds": lambda: F.rrelu(mg.ones(3), 0.5, 0.1),
    "pdist_1d": lambda: F.pdist(mg.ones(3)),
    "pdist_negative_p": lambda: F.pdist(mg.ones(3, 2), p=-1),
    "cdist_columns": lambda: mg.cdist(mg.ones(3, 2), mg.ones(3, 4)),
    "cdist_negative_p": lambda: mg.cdist(mg.ones(3, 2), mg.ones(3, 2), p=-1),
}


@pytest.mark.parametrize("name", sorted(REFUSED_AS_RUNTIME_ERROR))
def test_activation_and_distance_refusals_are_runtime_errors(name):
    with pytest.raises(RuntimeError) as info:
        REFUSED_AS_RUNTIME_ERROR[name]()
    assert isinstance(info.value, ValueError)
