"""PyTorch's top-level nn functions of ATen's signatures: the losses (``torch.kl_div(input,
target, reduction=1)``: an int reduction, no legacy arguments), ``torch.max_pool3d``,
``torch.max_pool1d_with_indices``, ``torch.channel_shuffle`` and the one-step recurrent cells
(``torch.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)``).  Numbers and messages are torch 2.13's,
float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = (np.arange(12.0).reshape(3, 4) - 5) / 4
Y = np.linspace(0.1, 0.9, 12).reshape(3, 4)
T = np.array([1.0, -1.0, 1.0])

#: name -> (the call, torch 2.13's (mean, sum)); reduction 1 is the mean, 2 the sum
LOSSES = {
    "binary_cross_entropy_with_logits": (lambda x, y, r: mg.binary_cross_entropy_with_logits(
        x, y, None, mg.full((4,), 2.0, dtype=mg.float64), r), (0.8247054884989425, 9.896465861987311)),
    "cosine_embedding_loss": (lambda x, y, r: mg.cosine_embedding_loss(x, y, mg.tensor(T), 0.1, r),
                              (0.7456472327563762, 2.2369416982691286)),
    "hinge_embedding_loss": (lambda x, y, r: mg.hinge_embedding_loss(x, mg.sign(x + 0.1), 0.5, r),
                             (0.9583333333333334, 11.5)),
    "kl_div": (lambda x, y, r: mg.kl_div(mg.log(y), y.flip(0), r), (0.2738806738679173, 3.2865680864150075)),
    "margin_ranking_loss": (lambda x, y, r: mg.margin_ranking_loss(x[:, 0], y[:, 0], mg.tensor(T), 0.2, r),
                            (0.5606060606060607, 1.6818181818181819)),
    "poisson_nll_loss": (lambda x, y, r: mg.poisson_nll_loss(x, y * 3, True, True, 1e-8, r),
                         (1.193966160284169, 14.327593923410028)),
    "triplet_margin_loss": (lambda x, y, r: mg.triplet_margin_loss(x, y, x.flip(0), 1.0, 2.0, 1e-6, True, r),
                            (1.0594026926927629, 3.1782080780782884)),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_aten_losses_read_an_int_reduction_in_atens_positions(name):
    call, (mean, total) = LOSSES[name]
    x, y = mg.tensor(X), mg.tensor(Y)
    assert call(x, y, 1).item() == pytest.approx(mean, rel=1e-13)
    assert call(x, y, 2).item() == pytest.approx(total, rel=1e-13)
    assert call(x, y, 0).sum().item() == pytest.approx(total, rel=1e-13)  # 0: no reduction
    assert call(x, y, 3).shape == call(x, y, 0).shape                       # any other int too, as ATen's


def test_the_aten_losses_refuse_a_named_reduction_and_kl_div_does_not_warn(recwarn):
    with pytest.raises(TypeError, match=r"kl_div\(\): argument 'reduction' \(position 3\) must be int, not str"):
        mg.kl_div(mg.zeros(2), mg.zeros(2), "mean")
    with pytest.raises(TypeError, match="must be int, not float"):
        mg.margin_ranking_loss(mg.zeros(2), mg.zeros(2), mg.ones(2), 0.0, 1.0)
    mg.kl_div(mg.zeros(2), mg.ones(2))
    assert not recwarn.list  # (F.kl_div's "mean" warns about "batchmean"; ATen's has no batchmean)


def test_ctc_loss_of_lengths_as_lists_or_tensors():
    lp = mg.log_softmax(mg.sin(mg.arange(48.0, dtype=mg.float64).reshape(6, 2, 4)), -1)
    targets = mg.tensor([[1, 2, 1], [3, 1, 0]])
    assert mg.ctc_loss(lp, targets, [6, 5], [3, 2], 0, 0, False).tolist() == pytest.approx(
        [3.379485168799073, 3.8858170744883282], rel=1e-13)                             # torch 2.13
    # left out, the reduction is none in torch 2.13 (its binding reads the default Mean as 0)
    assert mg.ctc_loss(lp, targets, mg.tensor([6, 5]), mg.tensor([3, 2])).tolist() == pytest.approx(
        [3.379485168799073, 3.8858170744883282], rel=1e-13)
    assert mg.ctc_loss(lp, targets, mg.tensor([6, 5]), mg.tensor([3, 2]), 0, 1).item() == pytest.approx(
        1.534701796755261, rel=1e-13)
    assert mg.ctc_loss(lp, targets, [6, 5], [3, 2], 0, 2).item() == pytest.approx(7.265302243287401, rel=1e-13)


def test_top_level_pools_and_channel_shuffle():
    got = mg.max_pool3d(mg.cos(mg.arange(64.0, dtype=mg.float64).reshape(1, 1, 4, 4, 4)), 2).flatten()
    assert got.tolist() == pytest.approx([1.0, 0.9887046181866692, 0.9912028118634736, 0.9147423578045313,
                                          0.8342233605065102, 0.9649660284921133, 0.9998433086476912,
                                          0.9858965815825497], rel=1e-15)
    values, indices = mg.max_pool1d_with_indices(mg.sin(mg.arange(7.0, dtype=mg.float64).reshape(1, 1, 7)), 3, 2, 1)
    assert values.flatten().tolist() == pytest.approx([0.8414709848078965, 0.9092974268256817, 0.1411200080598672,
                                                       -0.27941549819892586], rel=1e-15)
    assert indices.tolist() == [[[1, 2, 3, 6]]]
    x = mg.arange(6.0).reshape(1, 6, 1)
    assert mg.channel_shuffle(x, 2).flatten().tolist() == [0, 3, 1, 4, 2, 5]
    assert mg.native_channel_shuffle(x, 3).flatten().tolist() == [0, 2, 4, 1, 3, 5]
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 5 channels and 2"):
        mg.channel_shuffle(mg.zeros(2, 5, 3), 2)
    with pytest.raises(RuntimeError, match=r"channel_shuffle expects input with > 2 dims, but got input with sizes"):
        mg.channel_shuffle(mg.zeros(2, 4), 2)


I, H = 2, 3
W_IH = np.cos(np.arange(4.0 * H * I).reshape(4 * H, I)) / 2
W_HH = np.sin(np.arange(4.0 * H * H).reshape(4 * H, H)) / 2
B_IH = np.linspace(-1, 1, 4 * H)
B_HH = B_IH[::-1] / 3
X0 = np.array([[0.5, -1.0], [2.0, 0.25]])
H0 = np.array([[0.1, -0.2, 0.3], [0.0, 0.4, -0.5]])


def _weights(gates: int, bias: bool = True) -> list:
    ws = [mg.tensor(W_IH[:gates * H]), mg.tensor(W_HH[:gates * H])]
    return ws + ([mg.tensor(B_IH[:gates * H].copy()), mg.tensor(B_HH[:gates * H].copy())] if bias else [])


def test_lstm_cell_values_and_gradients_are_pytorchs():
    x, h = mg.tensor(X0, requires_grad=True), mg.tensor(H0, requires_grad=True)
    h1, c1 = mg.lstm_cell(x, (h, mg.tensor(H0[:, ::-1].copy())), *_weights(4))
    assert h1.tolist() == pytest.approx(np.array([[0.039461581169869434, 0.06884850212138872, 0.087293926270798],
                                                  [0.03212163080222584, 0.1626272823586782, -0.07716785069729674]]),
                                        rel=1e-13)
    assert c1.tolist() == pytest.approx(np.array([[0.07845143340597147, 0.09458302451901651, 0.13526256956314667],
                                                  [0.03984325916580678, 0.25130464921711615, -0.17187970186734453]]),
                                        rel=1e-13)
    (h1.sum() + 2 * c1.sum()).backward()
    assert np.allclose(x.grad.numpy(), [[-0.055436031054074617, -0.10933376404484105],
                                        [0.4508549917098525, -0.10131678211028167]], rtol=1e-13, atol=0)
    assert np.allclose(h.grad.numpy(), [[-0.1947831708248856, -0.16215069304624352, 0.019562384122880947],
                                        [-0.3262889325409465, 0.1620890026730124, 0.5014430563411378]],
                       rtol=1e-13, atol=0)


def test_gru_and_elman_cells_are_pytorchs():
    x, h = mg.tensor(X0), mg.tensor(H0)
    assert np.allclose(mg.gru_cell(x, h, *_weights(3)).numpy(),
                       [[-0.04542669991311728, 0.11314230708972689, 0.310441783956436],
                        [0.2101811073872324, 0.3568660815779991, -0.5369581077936385]], rtol=1e-13, atol=0)
    assert np.allclose(mg.rnn_tanh_cell(x, h, *_weights(1)).numpy(),
                       [[-0.5611911973998737, -0.2123178767054433, -0.5788623981371113],
                        [0.32911993712572757, -0.7603228604716119, -0.8205081314185447]], rtol=1e-13, atol=0)
    assert np.allclose(mg.rnn_relu_cell(x, h, *_weights(1, bias=False)).numpy(),
                       [[0.03209636260899271, 0.32985714789775256, 0.0], [1.0085076284886765, 0.0, 0.0]],
                       rtol=1e-13, atol=1e-300)


def test_the_cells_refuse_what_aten_refuses():
    x, h = mg.zeros(3, 4), mg.zeros(3, 5)
    with pytest.raises(TypeError, match=r"lstm_cell\(\): argument 'hx' \(position 2\) must be tuple of Tensors"):
        mg.lstm_cell(x, h, mg.zeros(20, 4), mg.zeros(20, 5))
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states"):
        mg.lstm_cell(x, (h,), mg.zeros(20, 4), mg.zeros(20, 5))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 3 expected 4"):
        mg.gru_cell(mg.zeros(3, 3), h, mg.zeros(15, 4), mg.zeros(15, 5))
    with pytest.raises(IndexError, match="Dimension out of range"):
        mg.gru_cell(mg.zeros(4), mg.zeros(5), mg.zeros(15, 4), mg.zeros(15, 5))


def test_feature_dropout_zeroes_whole_channels_as_aten_does():
    mg.manual_seed(0)
    y = mg.feature_dropout(mg.ones(64, 3, 2), 0.5, True)
    assert bool((y[:, :, 0] == y[:, :, 1]).all()) and set(y.flatten().tolist()) <= {0.0, 2.0}
    assert 0.3 < (y == 0).float().mean().item() < 0.7
    assert mg.feature_dropout(mg.ones(2, 3), 0.5, False).tolist() == [[1.0] * 3] * 2          # torch 2.13
    assert mg.feature_dropout(mg.ones(2, 3), 1.0, True).tolist() == [[0.0] * 3] * 2
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        mg.feature_dropout(mg.ones(3), 0.5, True)


def test_in_place_dropouts_write_into_their_input():
    for fn in (mg.dropout_, mg.alpha_dropout_, mg.feature_dropout_, mg.feature_alpha_dropout_):
        z = mg.ones(200, 3, 2)
        assert fn(z, 0.5, True) is z and not bool((z == 1).all()), fn.__name__
        assert fn(z, 0.5, False) is z
    w = mg.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        mg.dropout_(w, 0.5, True)
    h = w * 2
    mg.feature_dropout_(h, 0.5, True)
    h.sum().backward()
    assert set(w.grad.flatten().tolist()) <= {0.0, 4.0}


def test_the_aten_losses_left_without_a_reduction_reduce_nothing_as_torch_2_13s():
    # torch 2.13's bindings read the schemas' default (at::Reduction::Mean) as 0: torch.kl_div(x, y)
    # is elementwise, torch.kl_div(x, y, 1) the mean (shapes and sums from torch 2.13)
    x, y = mg.tensor(X), mg.tensor(Y)
    assert mg.kl_div(mg.log(y), y.flip(0)).shape == (3, 4)
    assert mg.kl_div(mg.log(y), y.flip(0)).sum().item() == pytest.approx(3.2865680864150075, rel=1e-13)
    assert mg.hinge_embedding_loss(x, mg.sign(x + 0.1), 0.5).shape == (3, 4)
    assert mg.margin_ranking_loss(x[:, 0], y[:, 0], mg.tensor(T), 0.2).shape == (3,)
    assert mg.cosine_embedding_loss(x, y, mg.tensor(T), 0.1).shape == (3,)
    assert mg.triplet_margin_loss(x, y, x.flip(0)).shape == (3,)
    assert mg.binary_cross_entropy_with_logits(x, y).shape == (3, 4)
