"""PyTorch programs ported by replacing ``torch`` with ``mg`` meet PyTorch's meanings.

Each expected value below was made with torch 2.13 (CPU) by the expression in its comment;
torch is not imported here.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

# --- dtype inference for lists holding NumPy scalars and arrays ---------------------------------
# torch.tensor(data).dtype for each data below (torch gives each NumPy leaf its own dtype and
# promotes by category: a float of any width beats any integer).
NUMPY_LEAF_CASES = [
    ([np.float64(0.1), 1.0], "float64"),
    ([np.float32(0.1), 1.0], "float32"),
    ([np.int32(1), 2], "int64"),
    ([np.int32(1), np.int32(2)], "int32"),
    ([np.bool_(True), False], "bool"),
    ([np.int32(1), 2.0], "float32"),
    ([np.float16(1), 2.0], "float32"),
    ([np.float16(1), 2], "float16"),
    ([[np.float64(1)], [2.0]], "float64"),
    ([np.uint8(1), 2], "int64"),
    ([np.int8(1), np.int16(2)], "int16"),
    ([np.uint8(1), np.int8(1)], "int16"),
    ([np.int64(1), np.float32(1)], "float32"),
    ([np.array([1.0, 2.0]), np.array([1.0, 2.0])], "float64"),
    ([np.array([1.0, 2.0], dtype=np.float32), [1.0, 2.0]], "float32"),
    ([np.complex128(1), 1.0], "complex128"),
    ([np.float32(1), 1j], "complex64"),
    (np.float64(0.1), "float64"),
    (np.float32(0.1), "float32"),
    (np.int32(3), "int32"),
    ([0.1, 1.0], "float32"),
    ([1, 2], "int64"),
]


@pytest.mark.parametrize(("data", "dtype"), NUMPY_LEAF_CASES)
def test_tensor_infers_pytorch_dtype_from_numpy_scalars_in_lists(data, dtype):
    assert str(mg.tensor(data).dtype) == dtype


def test_numpy_float64_in_list_keeps_its_precision():
    t = mg.tensor([np.float64(0.1), 1.0])
    assert t.numpy()[0] == np.float64(0.1)  # not float32(0.1)


# --- weighted losses hold their weights as buffers -------------------------------------------------
WEIGHTED_LOSSES = ["CrossEntropyLoss", "NLLLoss", "BCELoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
                   "BCEWithLogitsLoss"]


@pytest.mark.parametrize("name", WEIGHTED_LOSSES)
def test_weighted_loss_weight_is_a_buffer_in_the_state_dict(name):
    # torch: list(nn.<name>(weight=w).state_dict()) == ['weight']; nn.<name>().state_dict() is empty
    loss = getattr(mg.nn, name)(weight=mg.tensor([1.0, 2.0, 3.0]))
    assert list(loss.state_dict()) == ["weight"]
    assert [n for n, _ in loss.named_buffers()] == ["weight"]
    assert list(getattr(mg.nn, name)().state_dict()) == []
    assert getattr(mg.nn, name)().weight is None


def test_bce_with_logits_pos_weight_is_a_buffer():
    # torch: list(nn.BCEWithLogitsLoss(weight=w, pos_weight=p).state_dict()) == ['weight', 'pos_weight']
    both = mg.nn.BCEWithLogitsLoss(weight=mg.ones(2), pos_weight=mg.ones(2))
    assert list(both.state_dict()) == ["weight", "pos_weight"]
    assert list(mg.nn.BCEWithLogitsLoss(pos_weight=mg.ones(2)).state_dict()) == ["pos_weight"]


def test_strict_load_of_a_model_holding_a_weighted_loss():
    # a torch state dict of Sequential(Linear(2, 3), CrossEntropyLoss(weight=w)) has '1.weight'
    model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.CrossEntropyLoss(weight=mg.ones(3)))
    state = {"0.weight": mg.zeros(3, 2), "0.bias": mg.zeros(3), "1.weight": mg.tensor([1.0, 2.0, 3.0])}
    result = model.load_state_dict(state, strict=True)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert model[1].weight.tolist() == [1.0, 2.0, 3.0]


def test_weighted_loss_casts_its_weight_and_still_weights():
    loss = mg.nn.CrossEntropyLoss(weight=mg.tensor([1.0, 2.0, 3.0])).double()
    assert loss.weight.dtype == mg.float64
    logits = mg.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], dtype=mg.float64)
    # torch.nn.CrossEntropyLoss(weight=torch.tensor([1., 2., 3.]))(logits, torch.tensor([0, 2])).item()
    assert abs(loss(logits, mg.tensor([0, 2])).item() - 0.4482932984828949) < 1e-6


# --- channel dropout reads its input's dims as PyTorch does ------------------------------------------
# For each (function, ndim): the axes the mask is drawn along (constant along the others), or the error
# class; from torch 2.13: y = F.<fn>(torch.ones(shape), 0.5, True) and checking along which axes y's zero
# pattern varies, and the warnings recorded (dropout2d: a 3-D input is (N, C, L), a UserWarning).
CHANNEL_DROPOUT_AXES = [
    ("dropout1d", 2, [0], None), ("dropout1d", 3, [0, 1], None),
    ("dropout2d", 2, [0, 1], "Received a 2-D input to dropout2d"),
    ("dropout2d", 3, [0, 1], "Received a 3D input to dropout2d and assuming that channel-wise 1D dropout"),
    ("dropout2d", 4, [0, 1], None), ("dropout2d", 5, [0, 1], "Received a 5-D input to dropout2d"),
    ("dropout3d", 1, [0], "Received a 1-D input to dropout3d"), ("dropout3d", 3, [0], "Received a 3-D input"),
    ("dropout3d", 4, [0], None), ("dropout3d", 5, [0, 1], None), ("dropout3d", 6, [0], "Received a 6-D input"),
]


@pytest.mark.parametrize(("name", "ndim", "axes", "warning"), CHANNEL_DROPOUT_AXES)
def test_channel_dropout_mask_axes_and_warnings_match_pytorch(name, ndim, axes, warning):
    mg.manual_seed(0)
    shape = (9, 8, 3, 3, 3, 3)[:ndim]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = getattr(mg.nn.functional, name)(mg.ones(*shape, dtype=mg.float64), 0.5, True).numpy()
    kept = y != 0
    for ax in range(ndim):
        constant = bool((kept == kept.take([0], axis=ax)).all())
        assert constant == (ax not in axes), (ax, axes)
    assert set(np.unique(y)) <= {0.0, 2.0}
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert (warning is None and messages == []) or (len(messages) == 1 and warning in messages[0])


def test_dropout2d_module_on_3d_input_zeroes_whole_rows_with_pytorchs_warning():
    mg.manual_seed(1)
    with pytest.warns(UserWarning, match=r"input is interpreted as shape \(N, C, L\)"):
        y = mg.nn.Dropout2d(0.5)(mg.ones(16, 5, 7)).numpy()
    assert ((y == 0).all(axis=2) | (y != 0).all(axis=2)).all()
    assert 0 < (y == 0).all(axis=2).sum() < 80


@pytest.mark.parametrize(("name", "ndim", "error"), [("dropout1d", 1, RuntimeError), ("dropout1d", 4, RuntimeError),
                                                     ("dropout2d", 1, RuntimeError)])
def test_channel_dropout_refusals_are_pytorchs(name, ndim, error):
    # torch: F.dropout1d(torch.ones(4), 0.5) -> RuntimeError "dropout1d: Expected 2D or 3D input, ...";
    # F.dropout2d(torch.ones(4), 0.5) -> a warning, then RuntimeError "Feature dropout requires at least 2 ..."
    with pytest.warns() if name == "dropout2d" else contextlib.nullcontext(), pytest.raises(error):
        getattr(mg.nn.functional, name)(mg.ones(*(4,) * ndim), 0.5, True)


# PyTorch checks a feature dropout's ">= 2 dims" only where it draws a channel mask: in training, at
# 0 < p < 1, for a non-empty input (dropout3d's unbatched input counts with the batch axis it adds).
# Elsewhere the input passes (or p = 1 zeroes it). From torch 2.13, e.g. F.feature_alpha_dropout(
# torch.ones(5), 0.5, training=False) -> the input; F.dropout2d(torch.ones(5), 1.0) -> zeros;
# F.dropout2d(torch.ones(0), 0.5) -> the empty input; F.dropout3d(torch.tensor(1.0), 0.5) -> RuntimeError.
FEATURE_DROPOUT_NO_MASK = [
    ("feature_alpha_dropout", (5,), 0.5, False, 1.0), ("feature_alpha_dropout", (), 0.5, False, 1.0),
    ("feature_alpha_dropout", (5,), 0.0, True, 1.0), ("feature_alpha_dropout", (5,), 1.0, True, 0.0),
    ("feature_alpha_dropout", (0,), 0.5, True, None), ("dropout2d", (5,), 1.0, True, 0.0),
    ("dropout2d", (), 1.0, True, 0.0), ("dropout2d", (0,), 0.5, True, None),
]


@pytest.mark.parametrize(("name", "shape", "p", "training", "value"), FEATURE_DROPOUT_NO_MASK)
@pytest.mark.parametrize("inplace", [False, True])
def test_a_feature_dropout_that_draws_no_mask_takes_any_input(name, shape, p, training, value, inplace):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout2d's deprecation warning for other than 3-D/4-D input
        y = getattr(mg.nn.functional, name)(mg.ones(*shape), p, training, inplace)
    assert y.shape == shape
    assert value is None or (y.numpy() == value).all()


@pytest.mark.parametrize(("name", "shape"), [("feature_alpha_dropout", (5,)), ("feature_alpha_dropout", ()),
                                             ("dropout2d", (5,)), ("dropout3d", ())])
def test_a_feature_dropout_that_draws_a_mask_refuses_fewer_than_two_dims_as_pytorch(name, shape):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
            getattr(mg.nn.functional, name)(mg.ones(*shape), 0.5, True)


def test_feature_alpha_dropout_layer_in_eval_mode_passes_a_1d_input():
    # torch: nn.FeatureAlphaDropout(0.5).eval()(torch.ones(5)) -> the input
    x = mg.arange(5.0)
    assert mg.nn.FeatureAlphaDropout(0.5).eval()(x).numpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]



# --- regression losses of differing shapes: PyTorch's warning, then broadcasting ----------------------
# torch 2.13, float64: x = [[0.5], [-1.0], [2.0]] (3, 1), y = [0.2, 1.5, -0.3] (3,), both requiring grad;
# l = F.<name>(x, y); torch.autograd.grad(l, (x, y)) -> (value, grad x flattened, grad y)
BROADCAST_LOSSES = {
    "mse_loss": (2.0766666666666667, [0.022222222222222227, -0.9777777777777777, 1.0222222222222221],
                 [-0.19999999999999996, 0.6666666666666667, -0.5333333333333333]),
    "l1_loss": (1.2333333333333334, [0.1111111111111111, -0.3333333333333333, 0.3333333333333333],
                [-0.1111111111111111, 0.1111111111111111, -0.1111111111111111]),
    "smooth_l1_loss": (0.7816666666666667, [0.011111111111111113, -0.3, 0.2777777777777778],
                       [-0.033333333333333326, 0.16666666666666666, -0.12222222222222223]),
    "huber_loss": (0.7816666666666667, [0.011111111111111113, -0.3, 0.2777777777777778],
                   [-0.033333333333333326, 0.16666666666666666, -0.12222222222222223]),
}


@pytest.mark.parametrize("name", sorted(BROADCAST_LOSSES))
def test_regression_loss_of_differing_shapes_warns_and_broadcasts_as_pytorch(name):
    value, grad_x, grad_y = BROADCAST_LOSSES[name]
    x = mg.tensor([[0.5], [-1.0], [2.0]], dtype=mg.float64, requires_grad=True)
    y = mg.tensor([0.2, 1.5, -0.3], dtype=mg.float64, requires_grad=True)
    with pytest.warns(UserWarning, match=r"Using a target size \(3,\) that is different to the input size "
                                         r"\(3, 1\)\. This will likely lead to incorrect results due to "
                                         r"broadcasting\. Please ensure they have the same size\."):
        loss = getattr(mg.nn.functional, name)(x, y)
    gx, gy = mg.autograd.grad(loss, (x, y))
    np.testing.assert_allclose(loss.item(), value, rtol=1e-12)
    np.testing.assert_allclose(gx.numpy().ravel(), grad_x, rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), grad_y, rtol=1e-12)


def test_mse_loss_module_broadcasts_to_pytorchs_shape():
    # torch: nn.MSELoss(reduction='none')(torch.ones(3, 1), torch.zeros(3)).shape == (3, 3), with the warning
    with pytest.warns(UserWarning, match="different to the input size"):
        assert mg.nn.MSELoss(reduction="none")(mg.ones(3, 1), mg.zeros(3)).shape == (3, 3)


def test_kl_div_broadcasts_silently_and_bce_refuses_with_pytorchs_messages():
    a, b = mg.ones(3, 1) * 0.5, mg.zeros(3) + 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's kl_div broadcasts without a shape warning
        # torch: F.kl_div(torch.ones(3, 1) * 0.5, torch.zeros(3) + 0.2, reduction='sum').item()
        assert abs(mg.nn.functional.kl_div(a, b, reduction="sum").item() - -3.796988) < 1e-5
    with pytest.raises(ValueError, match=r"Using a target size \(3,\) that is different to the input size "
                                         r"\(3, 1\) is deprecated"):
        mg.nn.functional.binary_cross_entropy(a, b)
    with pytest.raises(ValueError, match=r"Target size \(3,\) must be the same as input size \(3, 1\)"):
        mg.nn.functional.binary_cross_entropy_with_logits(a, b)


# --- embedding's scale_grad_by_freq -----------------------------------------------------------------
# torch 2.13: w = torch.arange(12., dtype=torch.float64).reshape(4, 3); ids = [[0, 2, 0], [3, 2, 0]];
# F.embedding(ids, w, padding_idx=..., scale_grad_by_freq=True).backward(torch.arange(18.).reshape(2, 3, 3))
SCALED_GRADS = {
    3: [[7.0, 8.0, 9.0], [0.0, 0.0, 0.0], [7.5, 8.5, 9.5], [0.0, 0.0, 0.0]],
    None: [[7.0, 8.0, 9.0], [0.0, 0.0, 0.0], [7.5, 8.5, 9.5], [9.0, 10.0, 11.0]],
}
EMB_IDS = [[0, 2, 0], [3, 2, 0]]


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("padding_idx", [3, None])
def test_embedding_scale_grad_by_freq_divides_each_rows_gradient_by_its_count(padding_idx, dtype):
    w = mg.arange(12.0, dtype=dtype).reshape(4, 3).requires_grad_()
    out = mg.nn.functional.embedding(mg.tensor(EMB_IDS), w, padding_idx=padding_idx, scale_grad_by_freq=True)
    np.testing.assert_array_equal(out.detach().numpy(), w.detach().numpy()[EMB_IDS])
    out.backward(mg.arange(18.0, dtype=dtype).reshape(2, 3, 3))
    np.testing.assert_allclose(w.grad.numpy(), SCALED_GRADS[padding_idx], rtol=1e-6)


def test_embedding_module_scale_grad_by_freq_with_padding_and_repeats():
    # torch: e = nn.Embedding(4, 3, padding_idx=0, scale_grad_by_freq=True), weight arange(12).reshape(4, 3);
    # e(tensor([1, 1, 0, 2, 1])).backward(ones(5, 3) * tensor([[1.], [2.], [3.], [4.], [5.]])); e.weight.grad
    e = mg.nn.Embedding(4, 3, padding_idx=0, scale_grad_by_freq=True)
    assert repr(e) == "Embedding(4, 3, padding_idx=0, scale_grad_by_freq=True)"  # torch's repr
    with mg.no_grad():
        e.weight.copy_(mg.arange(12.0).reshape(4, 3))
    e(mg.tensor([1, 1, 0, 2, 1])).backward(mg.ones(5, 3) * mg.tensor([[1.0], [2.0], [3.0], [4.0], [5.0]]))
    np.testing.assert_allclose(e.weight.grad.numpy(), [[0.0] * 3, [2.6666667461395264] * 3, [4.0] * 3, [0.0] * 3],
                               rtol=1e-6)


def test_embedding_scale_grad_by_freq_through_checkpoint_grad_and_jvp():
    ids = mg.tensor(EMB_IDS)
    w = mg.arange(12.0, dtype=mg.float64).reshape(4, 3).requires_grad_()
    g = mg.arange(18.0, dtype=mg.float64).reshape(2, 3, 3)

    def lookup(weight):
        return mg.nn.functional.embedding(ids, weight, scale_grad_by_freq=True)

    (gw,) = mg.autograd.grad((mg.checkpoint.checkpoint(lookup, w, use_reentrant=False) * g).sum(), (w,))
    np.testing.assert_allclose(gw.numpy(), SCALED_GRADS[None])
    # forward mode is the lookup's own derivative, unscaled (torch.func.jvp of the same lookup gives t[ids])
    t = mg.ones(4, 3, dtype=mg.float64) * mg.tensor([[1.0], [2.0], [3.0], [4.0]], dtype=mg.float64)
    _, tangent = mg.func.jvp(lookup, (w.detach(),), (t,))
    np.testing.assert_array_equal(tangent.numpy(), t.numpy()[EMB_IDS])
    # create_graph: the gradient is g's rows scaled and summed, so its derivative in g is the same scaling
    # (torch 2.13's double backward gives ones here: it differentiates an unscaled lookup; ours is the derivative
    # of the gradient actually computed -- a documented difference)
    g2 = g.detach().requires_grad_()
    (gw2,) = mg.autograd.grad((lookup(w) * g2).sum(), (w,), create_graph=True)
    (gg,) = mg.autograd.grad(gw2.sum(), (g2,))
    np.testing.assert_allclose(gg.numpy()[..., 0], [[1 / 3, 1 / 2, 1 / 3], [1.0, 1 / 2, 1 / 3]])


# --- mg.Tensor is PyTorch's legacy constructor; the typed ones too ------------------------------------
def test_tensor_constructor_is_pytorchs_legacy_one():
    # torch: torch.Tensor([1, 2]).dtype == float32; torch.Tensor([1, 0, 1]).mean() == 0.6667
    assert mg.Tensor([1, 2]).dtype == mg.float32
    assert abs(mg.Tensor([1, 0, 1]).mean().item() - 2 / 3) < 1e-7
    assert mg.Tensor(np.array([1, 2])).dtype == mg.float32  # torch.Tensor(np.array([1, 2])): float32
    # torch.Tensor(3, 2): an uninitialised 3 x 2 float32; torch.Tensor() and torch.Tensor(0): shape (0,)
    t = mg.Tensor(3, 2)
    assert t.shape == (3, 2) and t.dtype == mg.float32 and not t.requires_grad
    assert mg.Tensor().shape == (0,) and mg.Tensor(0).shape == (0,) and mg.Tensor(np.int64(2)).shape == (2,)
    assert mg.Tensor((2, 3)).tolist() == [2.0, 3.0]  # torch.Tensor((2, 3)): data, not sizes
    assert mg.Tensor([1, 2], device="cpu").dtype == mg.float32
    with pytest.raises(TypeError, match="data must be a sequence"):  # torch.Tensor(3.5): TypeError
        mg.Tensor(3.5)
    with pytest.raises(TypeError):  # torch.Tensor([1, 2], dtype=torch.float64): TypeError
        mg.Tensor([1, 2], dtype=mg.float64)
    with pytest.raises(TypeError):  # torch.Tensor([1, 2], requires_grad=True): TypeError
        mg.Tensor([1, 2], requires_grad=True)


def test_tensor_of_a_tensor_aliases_it():
    # torch.Tensor(t) is t (any dtype; requires_grad kept); here an alias that shares memory and history
    x = mg.ones(2, requires_grad=True)
    a = mg.Tensor(x)
    assert a.requires_grad
    (a * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    ints = mg.tensor([1, 2])
    assert mg.Tensor(ints).dtype == mg.int64


LEGACY_TYPES = [("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
                ("LongTensor", "int64"), ("IntTensor", "int32"), ("ShortTensor", "int16"), ("CharTensor", "int8"),
                ("ByteTensor", "uint8"), ("BoolTensor", "bool")]


@pytest.mark.parametrize(("name", "dtype"), LEGACY_TYPES)
def test_legacy_typed_constructors(name, dtype):
    # torch.<name>([1, 0]).dtype, torch.<name>(2, 3).dtype, isinstance(torch.zeros(2, dtype=...), torch.<name>)
    legacy = getattr(mg, name)
    assert str(legacy([1, 0]).dtype) == dtype
    made = legacy(2, 3)
    assert made.shape == (2, 3) and str(made.dtype) == dtype and type(made) is mg.Tensor
    assert isinstance(mg.zeros(2, dtype=dtype), legacy)
    others = [other for other, d in LEGACY_TYPES if d != dtype]
    assert not any(isinstance(mg.zeros(2, dtype=dtype), getattr(mg, other)) for other in others)
    assert str(mg.tensor([1.5, 0.0]).type(legacy).dtype) == dtype


def test_legacy_typed_constructor_values_and_refusals():
    assert mg.LongTensor([1.7, 2]).tolist() == [1, 2]  # torch.LongTensor([1.7, 2]): tensor([1, 2])
    assert mg.BoolTensor([1, 0]).tolist() == [True, False]
    assert isinstance(mg.nn.Parameter(mg.ones(2)), mg.FloatTensor)  # torch: True
    assert mg.FloatTensor([1]).type() == "minigrad_ckpt.FloatTensor"
    with pytest.raises(TypeError):  # torch.FloatTensor(torch.tensor([1, 2])): TypeError
        mg.FloatTensor(mg.tensor([1, 2]))


def test_internal_constructor_keeps_inference():
    # the engine's own constructor (what mg.tensor calls) is unchanged: ints stay int64
    assert mg.Tensor._from_data([1, 2]).dtype == mg.int64
    assert mg.exp([1.0, 2.0]).dtype == mg.float32  # a unary function on a list (tape's wrap)
    assert mg.nn.Parameter([1.0, 2.0]).dtype == mg.float32


def test_pytorchs_constants():
    # torchvision's complete_box_iou uses torch.pi; they were AttributeErrors here
    import math

    assert mg.pi == math.pi and mg.e == math.e and mg.inf == math.inf and math.isnan(mg.nan)
    assert isinstance(mg.pi, float) and mg.newaxis is None
    assert mg.arange(3.0)[:, mg.newaxis].shape == (3, 1)
    assert not hasattr(mg, "math")  # the module it reads them from is not exported


def test_pytorchs_type_names_and_dtype_aliases():
    # torchvision's transforms annotate ``dtype: torch.dtype`` (evaluated at definition) and name
    # torch.uint16/32/64 in _max_value; each was an AttributeError here
    assert isinstance(mg.float32, mg.dtype) and isinstance(mg.ones(2).dtype, mg.dtype)
    assert isinstance(mg.ones(2, 3).shape, mg.Size) and mg.Size([2, 3]) == (2, 3)
    assert mg.cfloat == mg.complex64 and mg.cdouble == mg.complex128
    for name, top in [("uint16", 2 ** 16 - 1), ("uint32", 2 ** 32 - 1), ("uint64", 2 ** 64 - 1)]:
        dt = getattr(mg, name)
        assert mg.zeros(2, dtype=dt).dtype == dt and mg.iinfo(dt).max == top
    assert mg.default_generator is mg.random.default_generator


def test_is_inference_mode_enabled():
    assert mg.is_inference_mode_enabled() is False
    with mg.inference_mode():
        assert mg.is_inference_mode_enabled() is True
        with mg.inference_mode(False):
            assert mg.is_inference_mode_enabled() is False
    with mg.no_grad():
        assert mg.is_inference_mode_enabled() is False


def test_the_device_kinds_and_layouts_no_tensor_has_read_false():
    # dcgan's Discriminator: `if (input.is_cuda or input.is_xpu) and self.ngpu > 1` raised AttributeError
    for t in (mg.zeros(2), mg.zeros(2, requires_grad=True) * 2, mg.nn.Parameter(mg.ones(1))):
        for kind in ("is_xpu", "is_mps", "is_meta", "is_ipu", "is_hpu", "is_mtia", "is_maia", "is_xla",
                     "is_vulkan", "is_mkldnn", "is_quantized", "is_sparse", "is_sparse_csr", "is_nested"):
            assert getattr(t, kind) is False, kind
        assert t.is_pinned() is False and t.is_cpu and not t.is_cuda


def test_pin_memory_is_pytorchs_a_marked_copy_where_there_is_a_gpu(monkeypatch):
    # nanoGPT's get_batch: x.pin_memory().to(device, non_blocking=True) on a GPU machine
    from minigrad_ckpt.functional import tensor_methods

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    if not mg.cuda.is_available():
        with pytest.raises(RuntimeError, match="Cannot access accelerator"):   # torch 2.13 without a GPU
            x.pin_memory()
        monkeypatch.setattr(tensor_methods, "cuda_device_count", lambda: 1)
    pinned = x.pin_memory()
    assert pinned is not x and pinned.is_pinned() and not x.is_pinned() and pinned.pin_memory() is pinned
    assert pinned.tolist() == [1.0, 2.0] and pinned.requires_grad      # a differentiable copy, as PyTorch's
    (pinned * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    import minigrad_ckpt.testing.strict  # noqa: F401
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        mg.zeros(2, device="strict").pin_memory()
