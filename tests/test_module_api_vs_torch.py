"""Layer options against PyTorch 2.13, from ``tests/data/torch_module_api.npz`` (made by
``tests/data/make_torch_module_api.py`` in float64; torch is not imported here): LSTM ``proj_size``
and MultiheadAttention ``kdim``/``vdim``. ``test_vs_torch_reference.py`` replays these cases' outputs
and gradients with its own; here: torch's ``state_dict()`` keys in order and shapes (a torch state dict
loads strictly), the state dict's round trip through ``mg.save``/``mg.load`` into a float32 layer, and
the seams (the strict device, checkpointing, second derivatives).
"""

from __future__ import annotations

import contextlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

FIXTURE = Path(__file__).with_name("data") / "torch_module_api.npz"
with np.load(FIXTURE) as _npz:
    _ARRAYS = {k: _npz[k] for k in _npz.files}
_META = json.loads(_ARRAYS.pop("__meta__").tobytes().decode())
CASES, ALIASES = _META["cases"], _META["aliases"]


def arr(case: str, name: str) -> np.ndarray:
    key = f"{case}|{name}"
    return _ARRAYS[ALIASES.get(key, key)]


def flat(out) -> list:
    if not isinstance(out, (tuple, list)):
        return [out]
    return [leaf for o in out for leaf in flat(o)]


def build(meta: dict, dtype: str) -> nn.Module:
    cls = nn.MultiheadAttention if meta["kind"] == "mha" else getattr(nn, meta["cls"])
    return cls(**meta["init"], dtype=dtype)


def call(module: nn.Module, case: str, meta: dict, dtype: str) -> list:
    """``module(**call)`` on the case's inputs, floating ones in ``dtype``; the outputs as a flat list."""
    def resolve(v):
        if isinstance(v, str) and v.startswith("@"):
            a = arr(case, v[1:])
            return mg.tensor(a.astype(dtype) if a.dtype.kind == "f" else a)
        return tuple(resolve(a) for a in v) if isinstance(v, list) else v
    return flat(module(**{k: resolve(v) for k, v in meta["call"].items()}))


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_keys_and_shapes_are_pytorchs(case):
    """torch's parameters load, only the buffers missing (the outputs and gradients are checked by
    test_vs_torch_reference.py, which replays these cases with the others)."""
    meta = CASES[case]
    module = build(meta, "float64")
    assert list(module.state_dict()) == meta["state_keys"]
    assert {n: tuple(p.shape) for n, p in module.named_parameters()} == {
        n: arr(case, f"p.{n}").shape for n in meta["params"]}
    missing, unexpected = module.load_state_dict({n: arr(case, f"p.{n}") for n in meta["params"]}, strict=False)
    buffers = set(meta["state_keys"]) - set(meta["params"])
    # but num_batches_tracked, filled in as PyTorch's norms do (torch 2.13: BatchNorm2d(3).load_state_dict(
    # {"weight": ..., "bias": ...}, strict=False).missing_keys == ["running_mean", "running_var"])
    assert not unexpected and set(missing) == {k for k in buffers if not k.endswith("num_batches_tracked")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_round_trip_and_float32(case, tmp_path):
    meta = CASES[case]
    module = build(meta, "float64")
    module.load_state_dict({n: arr(case, f"p.{n}") for n in meta["params"]}, strict=False)
    mg.save(module.state_dict(), tmp_path / "m.pt")
    again = build(meta, "float32")
    again.load_state_dict(mg.load(tmp_path / "m.pt"))  # float64 values into float32 parameters
    assert all(p.dtype == np.float32 for p in again.parameters())
    outs = call(again, case, meta, "float32")
    for i, o in enumerate(outs):
        if f"{case}|out{i}" in _ARRAYS or f"{case}|out{i}" in ALIASES:
            assert o.dtype == np.float32
            np.testing.assert_allclose(o.numpy(), arr(case, f"out{i}"), rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------ LSTM projections: the seams
def _projected_lstm_grads(device: str, checkpointed: bool = False):
    mg.manual_seed(0)
    lstm = nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True).to(device)
    x = mg.tensor(np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32), device=device,
                  requires_grad=True)
    run = (lambda t: mg.checkpoint.checkpoint(lstm, t)) if checkpointed else lstm
    out, (h, c) = run(x)
    assert out.shape == (4, 2, 4) and h.shape == (4, 2, 2) and c.shape == (4, 2, 5)
    (out.sum() + (h * h).sum() + c.sum()).backward()
    return [x.grad.numpy()] + [p.grad.numpy() for p in lstm.parameters()]




def test_projected_lstm_second_derivative_matches_finite_differences():
    mg.manual_seed(0)
    lstm = nn.LSTM(2, 3, proj_size=1, dtype="float64")
    x = mg.randn(3, 1, 2, dtype="float64", requires_grad=True)
    v = mg.randn(3, 1, 2, dtype="float64")

    def grad_dot_v(z):
        (g,) = mg.grad((lstm(z)[0] ** 2).sum(), [z], create_graph=True)
        return (g * v).sum()
    (hv,) = mg.grad(grad_dot_v(x), [x])
    eps = 1e-6
    shifted = [(x.detach() + s * eps * v).requires_grad_() for s in (1, -1)]
    fd = (grad_dot_v(shifted[0]).item() - grad_dot_v(shifted[1]).item()) / (2 * eps)
    assert abs((hv * v).sum().item() - fd) < 1e-6


def _cross_attention_grads(device: str, checkpointed: bool = False):
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5).to(device)
    rng = np.random.default_rng(2)
    q, k, v = (mg.tensor(rng.standard_normal(shape).astype(np.float32), device=device, requires_grad=True)
               for shape in ((2, 3, 4), (6, 3, 3), (6, 3, 5)))
    kpm = mg.tensor(np.array([[False] * 5 + [True]] * 3), device=device)
    run = (lambda *a, **kw: mg.checkpoint.checkpoint(mha, *a, **kw)) if checkpointed else mha
    out, weights = run(q, k, v, key_padding_mask=kpm)
    assert out.shape == (2, 3, 4) and weights.shape == (3, 2, 8)  # 6 keys, the bias key and the zero key
    (out.sum() + (weights * weights).sum()).backward()
    return [t.grad.numpy() for t in (q, k, v)] + [p.grad.numpy() for p in mha.parameters()]


@pytest.mark.parametrize("grads", [_projected_lstm_grads, "attention"])
def test_on_the_strict_device_and_checkpointed_the_gradients_are_the_cpus_bitwise(grads):
    grads = _cross_attention_grads if grads == "attention" else grads
    cpu = grads("cpu")
    for got in (grads("strict-f32"), grads("cpu", checkpointed=True)):
        for a, b in zip(got, cpu):
            np.testing.assert_array_equal(a, b)


def test_multihead_attention_parameters_are_pytorchs():
    # torch: [n for n, _ in nn.MultiheadAttention(8, 2, kdim=3, vdim=5).named_parameters()]
    names = [n for n, _ in nn.MultiheadAttention(8, 2, kdim=3, vdim=5).named_parameters()]
    assert names == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight",
                     "out_proj.bias"]
    packed = nn.MultiheadAttention(8, 2, kdim=8, vdim=8)  # torch: the packed in_proj_weight, the others None
    assert packed.in_proj_weight.shape == (24, 8) and packed.q_proj_weight is None
    separate = nn.MultiheadAttention(8, 2, kdim=3)
    assert separate.in_proj_weight is None and separate.vdim == 8 and separate.v_proj_weight.shape == (8, 8)
    with pytest.raises(ValueError, match="kdim=3"):
        separate(mg.randn(2, 1, 8), mg.randn(2, 1, 8), mg.randn(2, 1, 8))


def test_proj_size_is_refused_as_pytorch_refuses_it():
    # torch: the same ValueErrors and messages
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM, not RNN or GRU"):
        nn.GRU(3, 5, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 5, proj_size=5)
    with pytest.raises(ValueError, match="proj_size should be a positive integer or zero"):
        nn.LSTM(3, 5, proj_size=-1)
    # torch: repr(nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True))
    assert repr(nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True)) == \
        "LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True)"
    with pytest.raises(ValueError, match=r"^Expected hidden\[0\] size \(1, 2, 2\), got \[1, 2, 5\] \(LSTM: h_0 must "
                                         r"have shape \(1, 2, 2\) \(num_layers \* num_directions, batch, proj_size\), "
                                         r"got \(1, 2, 5\)\)$"):
        nn.LSTM(3, 5, proj_size=2)(mg.randn(4, 2, 3), (mg.zeros(1, 2, 5), mg.zeros(1, 2, 5)))


def test_norms_without_bias_keep_pytorchs_keys_and_repr():
    # torch: the reprs and state-dict keys of the same constructions
    assert repr(nn.BatchNorm1d(3, bias=False)) == \
        "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=False, track_running_stats=True)"
    assert repr(nn.GroupNorm(1, 3)) == "GroupNorm(1, 3, eps=1e-05, affine=True, bias=True)"
    assert list(nn.BatchNorm1d(3, bias=False).state_dict()) == ["weight", "running_mean", "running_var",
                                                                "num_batches_tracked"]
    assert list(nn.InstanceNorm1d(3, affine=True, bias=False).state_dict()) == ["weight"]
    bn = nn.BatchNorm2d(3, bias=False)
    bn.reset_parameters()
    out = bn(input=mg.randn(2, 3, 2, 2))  # torch's argument name
    assert out.shape == (2, 3, 2, 2) and bn.bias is None


def test_an_int_probability_or_eps_is_shown_as_given():
    """torch 2.13 keeps ``p`` and ``eps`` as given, so ``print(model)`` of DiT's timm ``Mlp(drop=0)``
    shows ``Dropout(p=0, inplace=False)``; they were made floats here (``p=0.0``, ``eps=0.0``)."""
    # torch: the reprs of the same constructions
    assert repr(nn.Dropout(0)) == "Dropout(p=0, inplace=False)"
    assert repr(nn.Dropout2d(1)) == "Dropout2d(p=1, inplace=False)"
    assert repr(nn.AlphaDropout(0)) == "AlphaDropout(p=0, inplace=False)"
    assert repr(nn.LayerNorm(4, eps=0)) == "LayerNorm((4,), eps=0, elementwise_affine=True, bias=True)"
    assert repr(nn.BatchNorm1d(4, eps=1, momentum=0)) == \
        "BatchNorm1d(4, eps=1, momentum=0, affine=True, bias=True, track_running_stats=True)"
    assert repr(nn.InstanceNorm1d(4, eps=1)) == \
        "InstanceNorm1d(4, eps=1, momentum=0.1, affine=False, bias=False, track_running_stats=False)"
    x = mg.tensor(np.arange(8.0, dtype=np.float32).reshape(2, 4))
    np.testing.assert_array_equal(nn.Dropout(0).train()(x).numpy(), x.numpy())  # the int still computes
    assert not nn.Dropout(1).train()(x).numpy().any()
    want = (x.numpy() - x.numpy().mean(1, keepdims=True)) / np.sqrt(x.numpy().var(1, keepdims=True) + 1)
    np.testing.assert_allclose(nn.LayerNorm(4, eps=1)(x).detach().numpy(), want, rtol=1e-6)
    assert nn.LayerNorm(4, eps=np.float64(0.5)).eps.__class__ is float  # a NumPy number read as Python's


_LEGACY_LOSSES = ["BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "HingeEmbeddingLoss",
                  "KLDivLoss", "L1Loss", "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss",
                  "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss",
                  "SoftMarginLoss", "TripletMarginLoss"]


@pytest.mark.parametrize("name", _LEGACY_LOSSES)
def test_losses_take_pytorchs_legacy_size_average_and_reduce(name):
    cls = getattr(nn, name)
    # torch: nn.<Loss>(size_average=False).reduction == 'sum', reduce=False -> 'none', both None -> reduction
    for kwargs, want in [({"size_average": False}, "sum"), ({"reduce": False}, "none"),
                         ({"size_average": True, "reduction": "sum"}, "mean"),
                         ({"reduce": False, "size_average": False}, "none"), ({"reduction": "sum"}, "sum")]:
        legacy = "size_average" in kwargs or "reduce" in kwargs
        with pytest.warns(UserWarning, match=f"please use reduction='{want}'") if legacy else _no_warning():
            assert cls(**kwargs).reduction == want


def test_a_legacy_loss_computes_as_its_reduction():
    x, y = mg.randn(4, 3), mg.tensor([0, 2, 1, 2])
    with pytest.warns(UserWarning):
        legacy = nn.CrossEntropyLoss(size_average=False)
    assert legacy(x, y).item() == nn.CrossEntropyLoss(reduction="sum")(x, y).item()
    # torch's positional order: NLLLoss(weight, size_average, ignore_index)
    assert nn.NLLLoss(None, None, 1).ignore_index == 1


@contextlib.contextmanager
def _no_warning():
    """Any warning is an error inside (a loss built with ``reduction=`` alone warns of nothing)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_loss_functions_take_pytorchs_legacy_arguments_in_its_order():
    from minigrad_ckpt.nn import functional as F
    logp = F.log_softmax(mg.randn(4, 3), dim=1)
    y = mg.tensor([0, 2, 1, 2])
    # the old pytorch/examples MNIST test loop: F.nll_loss(output, target, size_average=False).item()
    with pytest.warns(UserWarning, match="please use reduction='sum'"):
        summed = F.nll_loss(logp, y, size_average=False)
    assert summed.item() == F.nll_loss(logp, y, reduction="sum").item()
    # torch's positions: (input, target, weight, size_average, ignore_index, reduce, reduction)
    assert F.nll_loss(logp, y, None, None, 2).item() == F.nll_loss(logp, y, ignore_index=2).item()
    assert F.cross_entropy(logp, y, None, None, 2).item() == F.cross_entropy(logp, y, ignore_index=2).item()
    x, t = mg.rand(5), mg.rand(5)
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.binary_cross_entropy, F.binary_cross_entropy_with_logits,
               F.kl_div):
        with pytest.warns(UserWarning, match="please use reduction='none'"):
            kept = fn(x, t, reduce=False)
        assert kept.shape == (5,), fn.__name__


def test_recurrent_layers_have_pytorchs_flat_weights_and_flatten_parameters():
    lstm = nn.LSTM(2, 3, proj_size=1)
    lstm.flatten_parameters()  # torch: a cuDNN step that programs call in forward; nothing to do here
    # torch: the same names and shapes for nn.LSTM(2, 3, proj_size=1)
    assert lstm._flat_weights_names == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert [tuple(w.shape) for ws in lstm.all_weights for w in ws] == [(12, 2), (12, 1), (12,), (12,), (1, 3)]
    assert lstm._flat_weights[4] is lstm.weight_hr_l0
    gru = nn.GRU(2, 3, num_layers=2, bidirectional=True, bias=False)
    # torch: [[(9, 2), (9, 3)], [(9, 2), (9, 3)], [(9, 6), (9, 3)], [(9, 6), (9, 3)]]
    assert [[tuple(w.shape) for w in ws] for ws in gru.all_weights] == [
        [(9, 2), (9, 3)], [(9, 2), (9, 3)], [(9, 6), (9, 3)], [(9, 6), (9, 3)]]


def test_layers_have_pytorchs_attributes():
    # torch 2.13: the same attributes of the same constructions
    assert nn.Softmax(dim=1).dim == 1 and nn.LogSoftmax(dim=0).dim == 0
    assert nn.LayerNorm(3).elementwise_affine is True and nn.RMSNorm(3, elementwise_affine=False).elementwise_affine \
        is False
    emb = nn.Embedding(5, 3)
    assert emb.sparse is False and emb.scale_grad_by_freq is False
    assert nn.Conv2d(2, 3, 3).transposed is False and nn.Conv2d(2, 3, 3).output_padding == (0, 0)
    assert nn.Conv1d(2, 3, 3).output_padding == (0,) and nn.Conv3d(2, 3, 3).output_padding == (0, 0, 0)
    up = nn.ConvTranspose2d(2, 3, 3)
    assert up.transposed is True and up.padding_mode == "zeros" and up.output_padding == (0, 0)


def test_layers_take_pytorchs_argument_names_by_keyword():
    # torch: each call below works with these keyword names
    a, p, n = mg.randn(3, 4), mg.randn(3, 4), mg.randn(3, 4)
    triplet = nn.TripletMarginLoss()
    assert triplet(anchor=a, positive=p, negative=n).item() == triplet(a, p, n).item()
    assert nn.TripletMarginWithDistanceLoss()(anchor=a, positive=p, negative=n).shape == ()
    assert nn.MarginRankingLoss()(input1=a[:, 0], input2=p[:, 0], target=mg.ones(3)).shape == ()
    assert nn.GaussianNLLLoss()(input=a, target=p, var=mg.ones(3, 4)).shape == ()
    assert nn.PoissonNLLLoss()(log_input=a, target=p.abs()).shape == ()
    assert nn.ReLU()(input=a).shape == (3, 4) and nn.Dropout(0.5)(input=a).shape == (3, 4)
    assert nn.Linear(4, 2)(input=a).shape == (3, 2) and nn.Sequential(nn.Flatten())(input=a).shape == (3, 4)
    assert nn.Embedding(5, 2)(input=mg.tensor([1, 2])).shape == (2, 2)
    assert nn.Conv1d(3, 2, 1)(input=a).shape == (2, 4) and nn.ZeroPad1d(1)(input=a).shape == (3, 6)
