"""nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer against PyTorch's: the same
parameter names, and with the same weights the same outputs (eval mode), post-norm and pre-norm,
with a causal target mask and padding masks.

Each model is built once over a namespace ``T`` (``mg`` here), its parameters set by name from one
seeded NumPy generator, so the same code ran offline with ``T = torch`` (torch 2.13, float64) to
make ``EXPECTED``: ``[out.sum(), (out.ravel() * cos(arange(out.size))).sum()]``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def _fill(T, model):  # noqa: N803  (T: the namespace, mg or torch)
    rng = np.random.default_rng(7)
    with T.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)) * 0.3))
    return model.eval()


def _inputs(T, batch_first=False):  # noqa: N803
    rng = np.random.default_rng(1)
    src, tgt = rng.standard_normal((5, 2, 8)), rng.standard_normal((4, 2, 8))
    if batch_first:
        src, tgt = src.transpose(1, 0, 2), tgt.transpose(1, 0, 2)
    return T.tensor(src), T.tensor(tgt)


CASES = {
    "transformer": lambda T: (lambda m, s, t: m(s, t, tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(4)))(
        _fill(T, T.nn.Transformer(8, 2, 1, 2, 16, 0.0).double()), *_inputs(T)),
    "transformer_norm_first_gelu_batch_first": lambda T: (lambda m, s, t: m(
        s, t, src_key_padding_mask=T.tensor(np.array([[False] * 4 + [True], [False] * 5])),
        memory_key_padding_mask=T.tensor(np.array([[False] * 4 + [True], [False] * 5]))))(
        _fill(T, T.nn.Transformer(8, 2, 2, 1, 12, 0.0, "gelu", batch_first=True, norm_first=True).double()),
        *_inputs(T, batch_first=True)),
    "decoder_layer": lambda T: (lambda m, s, t: m(t, s))(
        _fill(T, T.nn.TransformerDecoderLayer(8, 4, 16, 0.0).double()), *_inputs(T)),
    "decoder_with_norm": lambda T: (lambda m, s, t: m(
        t, s, tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(4)))(
        _fill(T, T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2,
                                         T.nn.LayerNorm(8)).double()), *_inputs(T)),
}


def _summary(out):
    flat = np.asarray(out, dtype=np.float64).ravel()
    return [flat.sum(), (flat * np.cos(np.arange(flat.size))).sum()]


# made offline: _summary(CASES[name](torch).detach().numpy())
EXPECTED = {
    "decoder_layer": [-0.3585203412097808, -0.35514510710728525],
    "decoder_with_norm": [20.701256728100418, 0.7915946819661872],
    "transformer": [20.86818178505428, 0.7360978260028331],
    "transformer_norm_first_gelu_batch_first": [-18.15356844739697, 1.942754010490273],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_are_pytorchs(name):
    np.testing.assert_allclose(_summary(CASES[name](mg).numpy()), EXPECTED[name], rtol=1e-12, atol=1e-12)


# list(dict(torch.nn.Transformer(8, 2, 1, 1, 16).named_parameters())), made offline: the names and their order
TORCH_NAMES = [
    "encoder.layers.0.self_attn.in_proj_weight", "encoder.layers.0.self_attn.in_proj_bias",
    "encoder.layers.0.self_attn.out_proj.weight", "encoder.layers.0.self_attn.out_proj.bias",
    "encoder.layers.0.linear1.weight", "encoder.layers.0.linear1.bias", "encoder.layers.0.linear2.weight",
    "encoder.layers.0.linear2.bias", "encoder.layers.0.norm1.weight", "encoder.layers.0.norm1.bias",
    "encoder.layers.0.norm2.weight", "encoder.layers.0.norm2.bias", "encoder.norm.weight", "encoder.norm.bias",
    "decoder.layers.0.self_attn.in_proj_weight", "decoder.layers.0.self_attn.in_proj_bias",
    "decoder.layers.0.self_attn.out_proj.weight", "decoder.layers.0.self_attn.out_proj.bias",
    "decoder.layers.0.multihead_attn.in_proj_weight", "decoder.layers.0.multihead_attn.in_proj_bias",
    "decoder.layers.0.multihead_attn.out_proj.weight", "decoder.layers.0.multihead_attn.out_proj.bias",
    "decoder.layers.0.linear1.weight", "decoder.layers.0.linear1.bias", "decoder.layers.0.linear2.weight",
    "decoder.layers.0.linear2.bias", "decoder.layers.0.norm1.weight", "decoder.layers.0.norm1.bias",
    "decoder.layers.0.norm2.weight", "decoder.layers.0.norm2.bias", "decoder.layers.0.norm3.weight",
    "decoder.layers.0.norm3.bias", "decoder.norm.weight", "decoder.norm.bias"
]


def test_parameter_names_are_pytorchs():
    assert [n for n, _ in mg.nn.Transformer(8, 2, 1, 1, 16).named_parameters()] == TORCH_NAMES
    mask = mg.nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.tolist() == [[0.0, -np.inf, -np.inf], [0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize("layer", ["TransformerEncoderLayer", "TransformerDecoderLayer"])
def test_a_module_activation_is_the_last_child_as_pytorchs(layer):
    """A module given as the activation (``nn.PReLU()``, with a weight) is PyTorch's last submodule, so
    ``parameters()`` lists its weight last and a state dict's keys come in PyTorch's order; the
    decoder layer used to list it first (its other submodules put in PyTorch's order after it)."""
    module = getattr(mg.nn, layer)(8, 2, 16, activation=mg.nn.PReLU())
    assert list(module._modules)[-1] == "activation"
    assert [n for n, _ in module.named_parameters()][-1] == "activation.weight"
    assert list(module.state_dict())[-1] == "activation.weight"


def test_a_transformer_trains():
    mg.manual_seed(0)
    model = mg.nn.Transformer(8, 2, 1, 1, 16, dropout=0.1)
    src, tgt = mg.randn(5, 2, 8), mg.randn(4, 2, 8)
    out = model(src, tgt, tgt_mask=mg.nn.Transformer.generate_square_subsequent_mask(4))
    out.pow(2).mean().backward()
    assert all(p.grad is not None for p in model.parameters())


class _FixedSizeLayer(mg.nn.TransformerEncoderLayer):
    """A subclass with its own ``__init__`` (the encoder used to re-run the base class's)."""

    def __init__(self, width: int) -> None:
        super().__init__(width, 2, 16, 0.0)


def test_encoder_and_decoder_stack_deep_copies_of_the_layer_as_pytorch():
    """PyTorch's TransformerEncoder/Decoder deep-copy the layer.  They used to rebuild it from its
    constructor's arguments and load its weights: a frozen layer's copies trained (requires_grad
    came back True, silently), a replaced submodule came back as the original (a load_state_dict
    RuntimeError) and a subclass with its own __init__ was a TypeError."""
    frozen = mg.nn.TransformerEncoderLayer(8, 2, 16, 0.0)
    frozen.requires_grad_(False)
    encoder = mg.nn.TransformerEncoder(frozen, 2)
    assert not any(p.requires_grad for p in encoder.parameters())
    first, second = encoder.layers
    assert first.linear1.weight is not second.linear1.weight
    np.testing.assert_array_equal(first.linear1.weight.numpy(), second.linear1.weight.numpy())

    changed = mg.nn.TransformerDecoderLayer(8, 2, 16, 0.0)
    changed.linear1 = mg.nn.Linear(8, 16, bias=False)
    decoder = mg.nn.TransformerDecoder(changed, 2)
    assert all(layer.linear1.bias is None for layer in decoder.layers)
    assert decoder(mg.randn(3, 2, 8), mg.randn(4, 2, 8)).shape == (3, 2, 8)

    assert all(type(layer) is _FixedSizeLayer for layer in mg.nn.TransformerEncoder(_FixedSizeLayer(8), 2).layers)


def test_encoder_inference_on_a_padded_batch_zeroes_the_padding_as_pytorchs_nested_path():
    """PyTorch 2.13 runs a batch_first encoder in eval mode without gradients on the kept positions
    only (a nested tensor) and pads the result with 0 before the final norm; with gradients, or in
    training, the padded positions hold whatever the layers made of them.  mg used to give the
    latter always.  (Compared with torch on 1536 configurations: batch_first, norm_first, odd
    heads, activation, bool/float masks, grad mode, train/eval, final norm, mask, alignment.)"""
    mg.manual_seed(0)
    layer = mg.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True)
    encoder = mg.nn.TransformerEncoder(layer, 2, norm=mg.nn.LayerNorm(4))
    mg.nn.init.normal_(encoder.norm.bias)
    encoder.eval()
    x = mg.randn(2, 4, 4)
    kpm = mg.tensor([[False, False, False, False], [False, False, True, True]])
    with_grad = encoder(x, src_key_padding_mask=kpm).detach().numpy()
    with mg.no_grad():
        inference = encoder(x, src_key_padding_mask=kpm).numpy()
        unaligned = encoder(x, src_key_padding_mask=mg.tensor([[False, True, False, False]] * 2)).numpy()
    bias = encoder.norm.bias.detach().numpy()
    np.testing.assert_array_equal(inference[1, 2:], [bias, bias])    # LayerNorm of a zero row: its bias
    assert not np.allclose(with_grad[1, 2:], bias)
    np.testing.assert_allclose(inference[0], with_grad[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(inference[1, :2], with_grad[1, :2], rtol=1e-6, atol=1e-6)
    assert not np.allclose(unaligned[:, 1], bias)  # kept positions not leading: PyTorch does not nest


def test_encoder_says_why_it_would_not_nest_as_pytorch():
    layer = mg.nn.TransformerEncoderLayer(4, 2, 8, 0.0)  # torch 2.13 warns with these words
    with pytest.warns(UserWarning, match=r"use_nested_tensor is False because encoder_layer\.self_attn\.batch_first "
                                         r"was not True\(use batch_first"):
        encoder = mg.nn.TransformerEncoder(layer, 1)
    assert not encoder.use_nested_tensor and encoder.enable_nested_tensor and encoder.mask_check


def test_encoder_nested_path_leaves_out_the_keys_a_float_mask_pads():
    """On PyTorch's nested path a float ``src_key_padding_mask`` pads where it is not 0, and the
    layers run on the kept positions only: a 0/1 float mask gives the bool mask's numbers (torch
    2.13: equal).  mg zeroed the padded outputs but let the layers *add* the mask's 1.0 to the
    scores of the padded keys, so the kept positions attended to them too (off by up to ~2 in a
    probe against torch).  With gradients (no nested path) the float mask is added, as there."""
    mg.manual_seed(1)
    encoder = mg.nn.TransformerEncoder(mg.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True), 2)
    encoder.eval()
    x = mg.randn(3, 5, 8)
    padded = np.array([[False] * 5, [False] * 3 + [True] * 2, [False] + [True] * 4])
    with mg.no_grad():
        as_bool = encoder(x, src_key_padding_mask=mg.tensor(padded)).numpy()
        as_ones = encoder(x, src_key_padding_mask=mg.tensor(padded.astype(np.float32))).numpy()
    np.testing.assert_allclose(as_ones, as_bool, rtol=1e-6, atol=1e-6)
    added = encoder(x, src_key_padding_mask=mg.tensor(padded.astype(np.float32))).detach().numpy()
    assert not np.allclose(added[1, :3], as_bool[1, :3], atol=1e-3)  # PyTorch's slow path adds the 1.0
