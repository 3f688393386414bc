"""``F.normalize(input, p, dim, eps, out)`` takes PyTorch's ``out=`` (the only function of
``torch.nn.functional`` that does): residual flows' power iteration in VincentStimper/normalizing-flows
(nets/lipschitz.py ``normalize_u``: ``F.normalize(u, p=2, dim=0, out=out)``) stopped at a TypeError.
The constants are PyTorch 2.13's answers."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


def test_normalize_in_place_through_out_returns_out():
    u = mg.tensor([3., 4., 0.], dtype=mg.float64)
    assert F.normalize(u, dim=0, out=u) is u
    assert u.tolist() == [0.6, 0.8, 0.0]


def test_normalize_into_another_tensor_leaves_the_input_and_takes_positional_out():
    x, o = mg.tensor([[1., 2.], [3., 4.]]), mg.empty(2, 2)
    assert F.normalize(x, p=1, dim=1, out=o) is o
    np.testing.assert_allclose(o.numpy(), [[1 / 3, 2 / 3], [3 / 7, 4 / 7]], rtol=1e-6)
    assert x.tolist() == [[1., 2.], [3., 4.]]
    o2 = mg.empty(2, 2)
    F.normalize(mg.tensor([[1., 2.], [3., 4.]]), 2, 0, 1e-12, o2)
    np.testing.assert_allclose(o2.numpy(), [[0.3162277638912201, 0.4472135901451111],
                                            [0.9486832618713379, 0.8944271802902222]], rtol=1e-6)
    assert F.normalize(mg.zeros(2), dim=0, out=mg.empty(2)).tolist() == [0.0, 0.0]


def test_normalize_out_refuses_an_input_that_requires_grad_as_pytorch():
    with pytest.raises(RuntimeError, match=r"div\(\): functions with out=\.\.\. arguments don't support automatic "
                                           "differentiation, but one of the arguments requires grad."):
        F.normalize(mg.ones(2, requires_grad=True), dim=0, out=mg.empty(2))
