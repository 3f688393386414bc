"""``nn.utils.rnn``'s packed sequences and the recurrent layers that take them.

Before, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pack_sequence``,
``unpack_sequence``, ``invert_permutation`` and ``PackedSequence`` did not exist (an
ImportError for a PyTorch program that packs its batch), and ``RNN``/``LSTM``/``GRU`` refused a
packed input.  The expected values are PyTorch 2.13's (the torch expression is beside each).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils.rnn import (
    PackedSequence,
    invert_permutation,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
)

# a batch_first (3, 4, 1) batch whose sequences have lengths 2, 4, 1: row b is 10 b + t
PADDED = np.array([[[0.0], [1], [-1], [-1]], [[10], [11], [12], [13]], [[20], [-1], [-1], [-1]]])


def test_pack_padded_sequence_sorts_and_packs_as_pytorch():
    # torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(PADDED), [2, 4, 1], batch_first=True,
    #                                         enforce_sorted=False)
    p = pack_padded_sequence(mg.tensor(PADDED), [2, 4, 1], batch_first=True, enforce_sorted=False)
    assert isinstance(p, PackedSequence) and isinstance(p, tuple)
    np.testing.assert_array_equal(p.data.numpy()[:, 0], [10, 0, 20, 11, 1, 12, 13])
    for got, want in ((p.batch_sizes, [3, 2, 1, 1]), (p.sorted_indices, [1, 0, 2]), (p.unsorted_indices, [1, 0, 2])):
        assert got.dtype == mg.int64
        np.testing.assert_array_equal(got.numpy(), want)
    sorted_batch = pack_padded_sequence(mg.tensor(PADDED[[1, 0, 2]]), mg.tensor([4, 2, 1]), batch_first=True)
    assert sorted_batch.sorted_indices is None and sorted_batch.unsorted_indices is None
    np.testing.assert_array_equal(sorted_batch.data.numpy(), p.data.numpy())
    np.testing.assert_array_equal(invert_permutation(mg.tensor([2, 0, 1])).numpy(), [1, 2, 0])


@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_packed_sequence_gives_the_callers_order_back(batch_first):
    x = mg.tensor(PADDED, requires_grad=True)
    p = pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False)
    padded, lengths = pad_packed_sequence(p, batch_first=batch_first, padding_value=-7.0, total_length=5)
    np.testing.assert_array_equal(lengths.numpy(), [2, 4, 1])
    want = np.where(PADDED == -1, -7.0, PADDED)
    want = np.concatenate([want, np.full((3, 1, 1), -7.0)], axis=1)
    np.testing.assert_array_equal(padded.numpy(), want if batch_first else want.transpose(1, 0, 2))
    padded.sum().backward()  # each real step once, the padding not at all
    np.testing.assert_array_equal(x.grad.numpy(), (PADDED != -1).astype(float))


def test_pack_sequence_and_unpack_sequence_round_trip():
    seqs = [mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([[5.0, 6.0], [7.0, 8.0], [9.0, 0.0]])]
    p = pack_sequence(seqs, enforce_sorted=False)
    np.testing.assert_array_equal(p.batch_sizes.numpy(), [2, 2, 1])
    np.testing.assert_array_equal(p.data.numpy(), [[5, 6], [1, 2], [7, 8], [3, 4], [9, 0]])
    for got, want in zip(unpack_sequence(p), seqs):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order when `enforce_sorted` is True"):
        pack_sequence(seqs)


def test_packing_refuses_what_pytorch_refuses():
    x = mg.zeros(3, 2, 1)
    with pytest.raises(RuntimeError, match="has to be greater than 0"):
        pack_padded_sequence(x, [3, 0])
    with pytest.raises(RuntimeError, match=r"Expected `len\(lengths\)` to be equal to batch_size, but got 1"):
        pack_padded_sequence(x, [3])
    with pytest.raises(ValueError, match="total_length=2 and max sequence length being 3"):
        pad_packed_sequence(pack_padded_sequence(x, [3, 2]), total_length=2)


def test_pad_sequence_takes_a_tensor_as_its_rows():
    # torch.nn.utils.rnn.pad_sequence(torch.ones(3, 2)).shape == (2, 3): three sequences of length 2
    assert pad_sequence(mg.ones(3, 2)).shape == (2, 3)


def _seeded(module: nn.Module) -> nn.Module:
    """Every parameter U(-0.5, 0.5) from default_rng(0), in state_dict order (the torch twin
    got the same arrays with p.copy_)."""
    module.double()
    rng = np.random.default_rng(0)
    module.load_state_dict({k: mg.tensor(rng.uniform(-0.5, 0.5, v.shape)) for k, v in module.state_dict().items()})
    return module


# made by: m = torch.nn.LSTM(2, 2, bidirectional=True, batch_first=True).double() (or GRU(2, 2, num_layers=2,
# batch_first=True)), seeded as _seeded; x = torch.tensor(default_rng(1).uniform(-1, 1, (3, 4, 2)));
# out, h = m(pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False));
# pad, _ = pad_packed_sequence(out, batch_first=True); (pad.sum() + h_n.sum()).backward()
TORCH_PACKED = {
    "LSTM": dict(
        h_n=[[[0.05212344, 0.05103405], [-0.06207618, 0.23626153], [-0.04807204, 0.15779315]],
             [[-0.12874623, 0.136356], [-0.34015273, 0.47572553], [-0.18982216, 0.2673707]]],
        row0=[[0.04355465, 0.05520721, -0.12874623, 0.136356], [0.05212344, 0.05103405, -0.09940512, 0.12737718],
              [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
        x_grad=[[[-0.11582515, -0.19886265], [0.00885042, -0.28413914], [0.0, 0.0], [0.0, 0.0]],
                [[-0.14984692, 0.14320721], [-0.18020394, -0.03145304], [-0.15090931, -0.10218275],
                 [0.01217712, -0.26103635]],
                [[0.06936276, -0.16161421], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]),
    "GRU": dict(
        h_n=[[[0.31695445, -0.23258536], [0.13346697, 0.02348523], [0.04535552, -0.03179513]],
             [[-0.20338362, 0.22992491], [-0.10237958, 0.29398052], [-0.1044161, 0.21218707]]],
        row0=[[-0.12958661, 0.18893747], [-0.20338362, 0.22992491], [0.0, 0.0], [0.0, 0.0]],
        x_grad=[[[0.14505328, -0.16517363], [0.1307916, -0.06798412], [0.0, 0.0], [0.0, 0.0]],
                [[0.1158412, -0.35502739], [0.15998693, -0.27221538], [0.1681124, -0.18557208],
                 [0.21475948, -0.14456681]],
                [[0.20883267, -0.12356587], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]),
}


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_packed_input_matches_pytorch(kind):
    m = _seeded(nn.LSTM(2, 2, bidirectional=True, batch_first=True) if kind == "LSTM"
                else nn.GRU(2, 2, num_layers=2, batch_first=True))
    x = mg.tensor(np.random.default_rng(1).uniform(-1, 1, (3, 4, 2)), requires_grad=True)
    out, h = m(pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False))
    assert isinstance(out, PackedSequence)
    h_n = h[0] if kind == "LSTM" else h
    pad, _ = pad_packed_sequence(out, batch_first=True)
    want = TORCH_PACKED[kind]
    np.testing.assert_allclose(h_n.numpy(), want["h_n"], atol=1e-8)
    np.testing.assert_allclose(pad.numpy()[0], want["row0"], atol=1e-8)
    (pad.sum() + h_n.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), want["x_grad"], atol=1e-8)


def _module(kind: str) -> nn.Module:
    kw = dict(num_layers=2, bidirectional=True)
    return {"RNN": lambda: nn.RNN(3, 4, nonlinearity="relu", **kw), "GRU": lambda: nn.GRU(3, 4, **kw),
            "LSTM": lambda: nn.LSTM(3, 4, proj_size=2, **kw)}[kind]()


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_packed_batch_is_each_sequence_run_alone(kind, dtype):
    """Each packed sequence gets what it gets alone (unbatched, its own h_0): outputs, h_n, c_n and
    the gradients of the input, h_0 and the weights -- both directions, two layers."""
    mg.manual_seed(0)
    m = _module(kind).to(getattr(mg, dtype))
    rng = np.random.default_rng(2)
    lengths = [3, 5, 1, 5]
    seqs = [rng.standard_normal((n, 3)).astype(dtype) for n in lengths]
    h0 = mg.tensor(rng.standard_normal((4, 4, 2 if kind == "LSTM" else 4)).astype(dtype), requires_grad=True)
    c0 = mg.tensor(rng.standard_normal((4, 4, 4)).astype(dtype), requires_grad=True)
    xs = [mg.tensor(s, requires_grad=True) for s in seqs]
    out, h = m(pack_sequence(xs, enforce_sorted=False), (h0, c0) if kind == "LSTM" else h0)
    assert out.data.dtype == getattr(mg, dtype)
    outs = unpack_sequence(out)
    states = h if kind == "LSTM" else (h,)
    loss = sum(((o * o).sum() for o in outs), mg.tensor(0.0, dtype=dtype)) + sum(s.sum() for s in states)
    grads = mg.autograd.grad(loss, xs + [h0, c0] + list(m.parameters()), allow_unused=True)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    alone_loss = mg.tensor(0.0, dtype=dtype)
    for b, x in enumerate(xs):
        state = (h0[:, b], c0[:, b]) if kind == "LSTM" else h0[:, b]
        o, hb = m(x, state)
        np.testing.assert_allclose(outs[b].numpy(), o.numpy(), **tol)
        for packed_state, alone_state in zip(states, hb if kind == "LSTM" else (hb,)):
            np.testing.assert_allclose(packed_state.numpy()[:, b], alone_state.numpy(), **tol)
        alone_loss = alone_loss + (o * o).sum() + sum(s.sum() for s in (hb if kind == "LSTM" else (hb,)))
    alone = mg.autograd.grad(alone_loss, xs + [h0, c0] + list(m.parameters()), allow_unused=True)
    for g, a in zip(grads, alone):
        if g is None or a is None:
            assert g is None and a is None
        else:
            np.testing.assert_allclose(g.numpy(), a.numpy(), **tol)


def _packed_step(device: str, checkpointed: bool) -> list[np.ndarray]:
    mg.manual_seed(0)
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, dropout=0.3).to(device)
    x = mg.tensor(np.random.default_rng(3).standard_normal((3, 5, 3)).astype(np.float32), device=device,
                  requires_grad=True)

    def loss_of(x):
        out, (h, c) = m(pack_padded_sequence(x, [2, 5, 3], batch_first=True, enforce_sorted=False))
        padded, _ = pad_packed_sequence(out, batch_first=True)
        return (padded ** 2).sum() + h.sum() + c.sum()

    loss = mg.checkpoint.checkpoint(loss_of, x) if checkpointed else loss_of(x)
    loss.backward()
    return [a.cpu().numpy() for a in [loss.detach(), x.grad] + [p.grad for p in m.parameters()]]


def test_packed_lstm_checkpointed_and_on_strict_devices_is_bitwise_the_same():
    plain = _packed_step("cpu", False)
    for device, checkpointed in (("cpu", True), ("strict", False), ("strict-f32", True)):
        for a, b in zip(plain, _packed_step(device, checkpointed)):
            np.testing.assert_array_equal(a, b)


def test_packed_sequence_casts_and_moves_as_pytorchs():
    # torch: p.double().data.dtype == float64, p.long() int64; .to(device) moves the indices with the
    # data and keeps batch_sizes on the CPU; a no-op .to returns the same PackedSequence
    p = pack_sequence([mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0, 5.0])], enforce_sorted=False)
    assert p.double().data.dtype == mg.float64 and p.long().data.dtype == mg.int64
    assert p.int().data.dtype == mg.int32 and p.half().data.dtype == mg.float16
    assert p.float() is p and p.to(mg.float32) is p
    moved = p.to("strict")
    assert str(moved.data.device) == str(moved.sorted_indices.device) == str(moved.unsorted_indices.device)
    assert str(moved.data.device) != "cpu" and str(moved.batch_sizes.device) == "cpu"
    back = moved.cpu()
    assert str(back.data.device) == str(back.sorted_indices.device) == "cpu"
    np.testing.assert_array_equal(back.data.numpy(), p.data.numpy())
