"""``F.multi_head_attention_forward``: PyTorch's functional multi-head attention, which
``nn.MultiheadAttention`` calls with its parameters.  Before, the function did not exist (an
AttributeError for code that calls it, as custom attention modules do).

Expected values are PyTorch 2.13's: the inputs are drawn as ``_draw`` draws them (the same
``default_rng`` calls, as float64 torch tensors with requires_grad), then
``o, w = torch.nn.functional.multi_head_attention_forward(<the call each test makes>)``,
``(o.sum() + (w ** 2).sum()).backward()``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F


def _draw(rng: np.random.Generator, *shape: int) -> mg.Tensor:
    return mg.tensor(rng.uniform(-1, 1, shape).round(2), requires_grad=True)


def test_separate_weights_bias_kv_zero_attn_and_both_masks_match_pytorch():
    rng = np.random.default_rng(0)
    E, H, L, S, N = 4, 2, 2, 3, 2
    q, k, v = _draw(rng, L, N, E), _draw(rng, S, N, E), _draw(rng, S, N, E)
    in_b, bias_k, bias_v, out_w, out_b = (_draw(rng, *s) for s in [(3 * E,), (1, 1, E), (1, 1, E), (E, E), (E,)])
    q_w, k_w, v_w = (_draw(rng, E, E) for _ in range(3))
    kpm = mg.tensor([[False, False, True], [False, False, False]])
    am = mg.tensor([[0.0, -1.0, 0.5], [0.0, 0.0, -np.inf]])
    o, w = F.multi_head_attention_forward(q, k, v, E, H, None, in_b, bias_k, bias_v, True, 0.0, out_w, out_b,
                                          key_padding_mask=kpm, attn_mask=am, use_separate_proj_weight=True,
                                          q_proj_weight=q_w, k_proj_weight=k_w, v_proj_weight=v_w)
    np.testing.assert_allclose(o.numpy(), [
        [[-0.38324781, -1.28954407, -0.11091643, 0.50493517], [0.38534643, 0.23443296, 1.53181521, 1.62430938]],
        [[-0.51500334, -1.47748379, -0.39714307, 0.17939767], [-0.04751108, -0.74963164, 0.4563472, 0.88941918]],
    ], atol=1e-8)
    np.testing.assert_allclose(w.numpy(), [  # 3 keys + bias_k + the zero key, heads averaged
        [[0.56334947, 0.04688142, 0.0, 0.19955522, 0.19021389], [0.41025217, 0.08743644, 0.0, 0.33365642, 0.16865497]],
        [[0.13745437, 0.10694093, 0.39013296, 0.14457274, 0.220899],
         [0.16925072, 0.48754873, 0.0, 0.16329929, 0.17990125]],
    ], atol=1e-8)
    (o.sum() + (w ** 2).sum()).backward()
    np.testing.assert_allclose(q.grad.numpy(), [
        [[1.12036938, -0.47528784, -0.52196996, 1.4434264], [0.42172278, -0.54322758, -0.04984288, 0.94358142]],
        [[0.38943171, -0.17192756, -0.45040022, 1.29865083], [0.25898403, -0.79075041, -0.16633561, 1.75785503]],
    ], atol=1e-8)
    np.testing.assert_allclose(k_w.grad.numpy(), [
        [-0.75198892, -0.02589004, -0.37933313, -0.10712783], [0.63532977, -0.08530938, -0.03930757, 0.2650235],
        [-0.03353061, -0.59690732, -0.87563862, -0.01599959], [-5.61495047, -3.73237237, 0.61127056, 2.40611098],
    ], atol=1e-8)
    np.testing.assert_allclose(bias_k.grad.numpy(), [[[1.89737452, -0.94498721, -0.16408131, 1.45072023]]], atol=1e-8)


def test_unbatched_self_attention_with_static_keys_and_values_matches_pytorch():
    rng = np.random.default_rng(1)
    E, H, L, S = 4, 2, 2, 3
    q, in_w = _draw(rng, L, E), _draw(rng, 3 * E, E)
    static_k, static_v, out_w = _draw(rng, H, S, E // H), _draw(rng, H, S, E // H), _draw(rng, E, E)
    o, w = F.multi_head_attention_forward(q, q, q, E, H, in_w, None, None, None, False, 0.0, out_w, None,
                                          static_k=static_k, static_v=static_v, average_attn_weights=False)
    np.testing.assert_allclose(o.numpy(), [[0.10115845, 0.15737075, -0.14421189, -0.56707152],
                                           [-0.01340665, -0.02411102, -0.15716028, -0.51353052]], atol=1e-8)
    np.testing.assert_allclose(w.numpy(), [[[0.36667791, 0.23989569, 0.39342639], [0.33035945, 0.37314418, 0.29649637]],
                                           [[0.36214936, 0.25163371, 0.38621693], [0.3073762, 0.37459942, 0.31802439]]],
                               atol=1e-8)
    (o.sum() + (w ** 2).sum()).backward()
    np.testing.assert_allclose(static_k.grad.numpy(), [
        [[0.31656279, -0.22462074], [0.02888085, -0.01083748], [-0.34544364, 0.23545822]],
        [[-0.10432897, 0.11382355], [0.05666282, -0.04871375], [0.04766615, -0.0651098]]], atol=1e-8)


@pytest.mark.parametrize("batch_first", [False, True])
def test_the_module_is_the_function_with_its_parameters(batch_first):
    mg.manual_seed(0)
    mha = mg.nn.MultiheadAttention(6, 3, kdim=5, vdim=4, add_bias_kv=True, batch_first=batch_first)
    swap = (lambda t: t.transpose(0, 1)) if batch_first else (lambda t: t)
    q, k, v = swap(mg.randn(3, 2, 6)), swap(mg.randn(4, 2, 5)), swap(mg.randn(4, 2, 4))  # (L, N, E) or (N, L, E)
    out, w = mha(q, k, v)
    f_out, f_w = F.multi_head_attention_forward(
        swap(q), swap(k), swap(v), 6, 3, None, mha.in_proj_bias, mha.bias_k, mha.bias_v, False, 0.0,
        mha.out_proj.weight, mha.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=mha.q_proj_weight,
        k_proj_weight=mha.k_proj_weight, v_proj_weight=mha.v_proj_weight)
    np.testing.assert_array_equal(out.numpy(), swap(f_out).numpy())
    np.testing.assert_array_equal(w.numpy(), f_w.numpy())


def test_missing_parameters_are_named_as_pytorch_names_them():
    q, w, out_w = mg.randn(3, 2, 4), mg.randn(12, 4), mg.randn(4, 4)
    with pytest.raises(ValueError, match="use_separate_proj_weight is True but q_proj_weight is None"):
        F.multi_head_attention_forward(q, q, q, 4, 2, None, None, None, None, False, 0.0, out_w, None,
                                       use_separate_proj_weight=True)
    with pytest.raises(ValueError, match="use_separate_proj_weight is False but in_proj_weight is None"):
        F.multi_head_attention_forward(q, q, q, 4, 2, None, None, None, None, False, 0.0, out_w, None)
    with pytest.raises(ValueError, match="got only bias_k"):  # was silently ignored
        F.multi_head_attention_forward(q, q, q, 4, 2, w, None, mg.randn(1, 1, 4), None, False, 0.0, out_w, None)
