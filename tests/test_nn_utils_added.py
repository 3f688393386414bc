"""``mg.nn.utils`` names a ported PyTorch program reached for and found missing:
``get_total_norm`` / ``clip_grads_with_norm_`` (PyTorch 2.6's two halves of ``clip_grad_norm_``),
the hook-based ``weight_norm`` / ``remove_weight_norm`` and ``spectral_norm`` /
``remove_spectral_norm``.

Expected values: torch 2.13 on the same float64 inputs, printed with ``.tolist()``; each
comment names the torch expression."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils import clip_grads_with_norm_, get_total_norm

G1 = [[3.0, -4.0], [1.0, 2.0]]
G2 = [0.5, -12.0, 1.5]


def _t(values, dtype=mg.float64, grad=False):
    return mg.tensor(values, dtype=dtype, requires_grad=grad)


# torch: get_total_norm([tensor(G1), tensor(G2)], norm_type).item(), float64
TOTAL_NORMS = {2.0: 13.285330255586423, 1.0: 24.0, math.inf: 12.0, 3.0: 12.234953064733451,
               0.5: 133.22278799506026, 0.0: 2.0, -math.inf: 0.5}


@pytest.mark.parametrize("norm_type", list(TOTAL_NORMS))
def test_get_total_norm_of_every_order_matches_torch(norm_type):
    total = get_total_norm([_t(G1), _t(G2)], norm_type)
    assert total.shape == () and total.dtype == mg.float64
    np.testing.assert_allclose(total.item(), TOTAL_NORMS[norm_type], rtol=1e-13)


def test_get_total_norm_edges():
    # torch: get_total_norm(tensor(G1)).item() == 5.477225575051661; get_total_norm([]) is tensor(0.) float32
    np.testing.assert_allclose(get_total_norm(_t(G1)).item(), 5.477225575051661, rtol=1e-13)
    empty = get_total_norm([])
    assert empty.item() == 0.0 and empty.dtype == mg.float32
    with pytest.raises(RuntimeError, match="non-finite"):
        get_total_norm([_t([math.inf, 1.0])], error_if_nonfinite=True)
    assert math.isinf(get_total_norm([_t([math.inf, 1.0])]).item())
    # outside the tape, as torch's (@_no_grad): the norm of a leaf that wants grad wants none
    assert not get_total_norm([_t([3.0, 4.0], grad=True)]).requires_grad
    f32 = get_total_norm([_t(G1, mg.float32), _t(G2, mg.float32)])
    assert f32.dtype == mg.float32 and abs(f32.item() - 13.285330255586423) < 1e-5


def _params_with_grads(dtype=mg.float64):
    a, b = mg.nn.Parameter(mg.zeros(2, 2, dtype=dtype)), mg.nn.Parameter(mg.zeros(3, dtype=dtype))
    a.grad, b.grad = _t(G1, dtype), _t(G2, dtype)
    return a, b


def test_clip_grads_with_norm_scales_as_torch():
    a, b = _params_with_grads()
    assert clip_grads_with_norm_([a, b], 5.0, get_total_norm([a.grad, b.grad])) is None
    # torch: clip_grads_with_norm_([a, b], 5.0, get_total_norm([a.grad, b.grad])); a.grad, b.grad
    np.testing.assert_allclose(a.grad.numpy(), [[1.1290648092566429, -1.5054197456755238],
                                                [0.37635493641888096, 0.7527098728377619]], rtol=1e-13)
    np.testing.assert_allclose(b.grad.numpy(), [0.18817746820944048, -4.5162592370265715, 0.5645324046283214],
                               rtol=1e-13)
    # the two halves are clip_grad_norm_ (same numbers, same returned norm)
    c, d = _params_with_grads()
    norm = mg.nn.utils.clip_grad_norm_([c, d], 5.0)
    np.testing.assert_allclose(norm.item(), 13.285330255586423, rtol=1e-13)
    np.testing.assert_allclose(c.grad.numpy(), a.grad.numpy(), rtol=1e-13)


def test_clip_grads_with_norm_under_the_limit_and_refusals():
    a, _ = _params_with_grads(mg.float32)
    clip_grads_with_norm_(a, 100.0, _t(2.0))  # coefficient clamped to 1: unchanged (torch: [[3,-4],[1,2]])
    assert a.grad.tolist() == G1 and a.grad.dtype == mg.float32
    with pytest.raises(TypeError):  # torch: torch.clamp of a float raises TypeError
        clip_grads_with_norm_(a, 1.0, 5.0)
    clip_grads_with_norm_([mg.nn.Parameter(mg.zeros(2))], 1.0, _t(3.0))  # no grads: nothing to do
