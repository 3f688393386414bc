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
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


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


def _hinted_self_attention(dtype: str, bias_kv: bool, zero_attn: bool, mask: mg.Tensor | None = None,
                           device: str = "cpu"):
    """Causal self-attention told by ``is_causal=True`` (the weights not asked for, no padding mask):
    the inputs of the PyTorch fixture below, in ``dtype``."""
    rng = np.random.default_rng(7)
    E, H, L, N = 4, 2, 3, 1
    x, in_w, bias_k, bias_v, out_w = (mg.tensor(rng.uniform(-1, 1, s).round(2), dtype=dtype, device=device,
                                                requires_grad=True)
                                      for s in [(L, N, E), (3 * E, E), (1, 1, E), (1, 1, E), (E, E)])
    if mask is None:
        mask = mg.tensor(np.triu(np.full((L, L), -np.inf), 1), dtype=dtype, device=device)
    o, w = F.multi_head_attention_forward(x, x, x, E, H, in_w, None, bias_k if bias_kv else None,
                                          bias_v if bias_kv else None, zero_attn, 0.0, out_w, None,
                                          need_weights=False, attn_mask=mask, is_causal=True)
    assert w is None
    return o, x, bias_v


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_is_causal_hint_keeps_the_appended_keys_from_earlier_queries_as_pytorch(dtype, device):
    """PyTorch reads ``is_causal=True`` (no weights, no padding mask) as sdpa's causal attention over
    every key, the ``bias_k`` and zero keys appended at the end too: query ``i`` sees keys ``0..i``,
    so with as many queries as keys the appended ones are seen by none.  Before, the given mask was
    padded with zeros for them and every query attended to them (another output)."""
    o, x, bias_v = _hinted_self_attention(dtype, bias_kv=True, zero_attn=True, device=device)
    tol = 1e-6 if dtype == "float32" else 1e-8
    assert o.dtype == np.dtype(dtype)
    np.testing.assert_allclose(o.numpy()[:, 0], [[-0.455846, 0.492665, -0.087007, 0.034266],
                                                 [0.52932258, -0.24857079, 1.64773437, 0.92154756],
                                                 [0.25760798, 0.52625833, 0.90853984, 0.12511689]], atol=tol)
    plain, _, _ = _hinted_self_attention(dtype, bias_kv=False, zero_attn=False, device=device)
    np.testing.assert_allclose(o.numpy(), plain.numpy(), atol=tol)  # the appended keys change nothing
    o.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[:, 0], [[0.54477118, 4.17554485, -5.17162357, 0.7548274],
                                                      [-0.46823757, 1.86303827, -2.74825383, 0.1657857],
                                                      [-0.17989704, 0.83156973, -1.25453062, 0.11683341]],
                               atol=tol * 10)
    np.testing.assert_array_equal(bias_v.grad.numpy(), np.zeros((1, 1, 4)))


def test_is_causal_hint_is_trusted_over_the_mask_as_pytorch():
    """The hint stands for the mask (PyTorch does not read it): any mask gives the causal answer."""
    causal, _, _ = _hinted_self_attention("float64", bias_kv=False, zero_attn=True)
    other, _, _ = _hinted_self_attention("float64", bias_kv=False, zero_attn=True, mask=mg.zeros(3, 3, dtype="float64"))
    np.testing.assert_array_equal(other.numpy(), causal.numpy())


def test_is_causal_hint_in_the_module_and_in_forward_mode():
    """``nn.MultiheadAttention(add_zero_attn=True)`` passes the hint on; its tangent in forward mode
    is the reverse-mode product's, so the appended key is kept out of both."""
    mg.manual_seed(0)
    mha = mg.nn.MultiheadAttention(4, 2, add_zero_attn=True, batch_first=True).double()
    x, t = mg.randn(2, 3, 4, dtype="float64"), mg.randn(2, 3, 4, dtype="float64")
    mask = mg.nn.Transformer.generate_square_subsequent_mask(3, dtype=mg.float64)

    def hinted(inp):
        return mha(inp, inp, inp, attn_mask=mask, need_weights=False, is_causal=True)[0]

    plain = mg.nn.MultiheadAttention(4, 2, batch_first=True).double()
    plain.load_state_dict(mha.state_dict())
    np.testing.assert_allclose(hinted(x).numpy(), plain(x, x, x, attn_mask=mask, need_weights=False)[0].numpy(),
                               atol=1e-12)
    _, tangent = mg.func.jvp(hinted, (x,), (t,))
    xr = x.detach().requires_grad_()
    u = mg.randn(2, 3, 4, dtype="float64")
    (vjp,) = mg.autograd.grad(hinted(xr), [xr], grad_outputs=u)  # <u, J t> = <J^T u, t>
    np.testing.assert_allclose((tangent * u).sum().item(), (vjp * t).sum().item(), rtol=1e-10)
