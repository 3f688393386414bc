"""``TransformerEncoder`` and ``TransformerDecoder`` called with ``is_causal=None`` (``tgt_is_causal``)
tell their layers ``is_causal=True`` when the mask *is* the causal mask of the sequence's length,
as PyTorch's ``_detect_is_causal_mask``: -inf (float) or True (bool) above the diagonal, 0 / False on
and below it.  The engine passed ``False``: a layer of one's own (or a hook) that reads the hint saw
another value than under PyTorch (its test_train_with_is_causal checks the call).  Found running
PyTorch's test/test_transformers.py against the engine."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

L, E = 3, 4


class _Recording(mg.nn.TransformerEncoderLayer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.hints = []

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        self.hints.append(is_causal)
        return super().forward(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=is_causal)


class _RecordingDecoder(mg.nn.TransformerDecoderLayer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.hints = []

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        self.hints.append(tgt_is_causal)
        return super().forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                               tgt_is_causal, memory_is_causal)


def _causal_float(n):
    return mg.nn.Transformer.generate_square_subsequent_mask(n)


def _causal_bool(n):
    return mg.tensor(np.triu(np.ones((n, n), bool), 1))


MASKS = {  # name: (mask of length L, the hint PyTorch's stack gives its layers)
    "float_causal": (lambda: _causal_float(L), True),
    "bool_causal": (lambda: _causal_bool(L), True),
    "bool_not_causal": (lambda: mg.zeros(L, L, dtype=mg.bool), False),
    "float_large_negative": (lambda: mg.tensor(np.triu(np.full((L, L), -1e9, np.float32), 1)), False),
    "three_d_causal": (lambda: mg.tensor(np.broadcast_to(np.triu(np.ones((L, L), bool), 1), (2, L, L)).copy()),
                       False),
    "causal_of_another_length": (lambda: _causal_float(L + 1), False),
}


@pytest.mark.parametrize("name", sorted(MASKS))
def test_encoder_tells_its_layers_the_mask_is_causal(name):
    make, hint = MASKS[name]
    layer = _Recording(E, 1, 8, dropout=0.0, batch_first=True)
    encoder = mg.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    x = mg.randn(2, L, E)  # batch 2, length 3: the length is read from the batch_first axis
    mask = make()
    try:
        encoder(x, mask=mask)
    except RuntimeError:  # a mask that does not fit the scores is refused by the first layer, told the hint first
        assert not hint
    assert encoder.layers[0].hints == [hint]


@pytest.mark.parametrize("given", [True, False])
def test_an_explicit_hint_is_passed_as_given(given):
    encoder = mg.nn.TransformerEncoder(_Recording(E, 1, 8, dropout=0.0), 1, enable_nested_tensor=False)
    encoder(mg.randn(L, 2, E), mask=_causal_float(L), is_causal=given)
    assert encoder.layers[0].hints == [given]


def test_decoder_tells_its_layers_the_target_mask_is_causal():
    decoder = mg.nn.TransformerDecoder(_RecordingDecoder(E, 1, 8, dropout=0.0), 2)
    tgt, memory = mg.randn(L, 2, E), mg.randn(5, 2, E)
    decoder(tgt, memory, tgt_mask=_causal_bool(L))
    decoder(tgt, memory, tgt_mask=mg.zeros(L, L))
    decoder(tgt, memory)
    assert [m.hints for m in decoder.layers] == [[True, False, False]] * 2


def test_unbatched_length_is_the_first_axis():
    encoder = mg.nn.TransformerEncoder(_Recording(E, 1, 8, dropout=0.0, batch_first=True), 1,
                                       enable_nested_tensor=False)
    encoder(mg.randn(L, E), mask=_causal_float(L))
    assert encoder.layers[0].hints == [True]


def test_the_hint_changes_no_number():
    """Told the mask is causal the layer attends causally instead of reading it: the same numbers."""
    mg.manual_seed(0)
    encoder = mg.nn.TransformerEncoder(mg.nn.TransformerEncoderLayer(E, 2, 8, dropout=0.0, batch_first=True), 2,
                                       enable_nested_tensor=False)
    x = mg.randn(2, L, E, dtype=mg.float64).float()
    mask = _causal_float(L)
    np.testing.assert_allclose(encoder(x, mask=mask).detach().numpy(),
                               encoder(x, mask=mask, is_causal=False).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_under_vmap_each_sequence_is_unbatched_and_the_hint_holds():
    """vmap hands the stack one (L, E) sequence at a time: the length is its first axis."""
    encoder = mg.nn.TransformerEncoder(_Recording(E, 1, 8, dropout=0.0, batch_first=True), 1,
                                       enable_nested_tensor=False)
    xs, mask = mg.randn(2, L, E), _causal_float(L)
    out = mg.func.vmap(lambda t: encoder(t, mask=mask))(xs)
    hints = list(encoder.layers[0].hints)
    assert hints and all(hints)  # (vmap may call the function more than once)
    np.testing.assert_allclose(out.numpy(), encoder(xs, mask=mask).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_checkpointed_stack_replays_bitwise():
    """The hint is decided from the mask again in the replay: outputs and gradients bit for bit."""
    mg.manual_seed(1)
    encoder = mg.nn.TransformerEncoder(mg.nn.TransformerEncoderLayer(E, 2, 8, dropout=0.0, batch_first=True), 2,
                                       enable_nested_tensor=False)
    x, mask = mg.randn(2, L, E, requires_grad=True), _causal_bool(L)
    plain = encoder(x, mask=mask)
    plain.sum().backward()
    grad, x.grad = x.grad.numpy().copy(), None
    replayed = mg.checkpoint.checkpoint(lambda t: encoder(t, mask=mask), x, use_reentrant=False)
    replayed.sum().backward()
    assert np.array_equal(plain.detach().numpy(), replayed.detach().numpy())
    assert np.array_equal(grad, x.grad.numpy())
