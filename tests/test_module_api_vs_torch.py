"""Layer options against PyTorch 2.13, from ``tests/data/torch_module_api.npz`` (made by
``tests/data/make_torch_module_api.py`` in float64; torch is not imported here): LSTM ``proj_size``
and MultiheadAttention ``kdim``/``vdim``. ``test_vs_torch_reference.py`` replays these cases' outputs
and gradients with its own; here: torch's ``state_dict()`` keys in order and shapes (a torch state dict
loads strictly), the state dict's round trip through ``mg.save``/``mg.load`` into a float32 layer, and
the seams (the strict device, checkpointing, second derivatives).
"""

from __future__ import annotations

import json
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
    """torch's state dict loads strictly (the outputs and gradients are checked by
    test_vs_torch_reference.py, which replays these cases with the others)."""
    meta = CASES[case]
    module = build(meta, "float64")
    assert list(module.state_dict()) == meta["state_keys"]
    assert {n: tuple(p.shape) for n, p in module.named_parameters()} == {
        n: arr(case, f"p.{n}").shape for n in meta["params"]}
    module.load_state_dict({n: arr(case, f"p.{n}") for n in meta["params"]}, strict=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_round_trip_and_float32(case, tmp_path):
    meta = CASES[case]
    module = build(meta, "float64")
    module.load_state_dict({n: arr(case, f"p.{n}") for n in meta["params"]})
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


def test_projected_lstm_on_the_strict_device_and_checkpointed_matches_the_cpu_bitwise():
    cpu = _projected_lstm_grads("cpu")
    for got in (_projected_lstm_grads("strict-f32"), _projected_lstm_grads("cpu", checkpointed=True)):
        for a, b in zip(got, cpu):
            np.testing.assert_array_equal(a, b)


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
    with pytest.raises(ValueError, match=r"h_0 must have shape \(1, 2, 2\).*proj_size"):
        nn.LSTM(3, 5, proj_size=2)(mg.randn(4, 2, 3), (mg.zeros(1, 2, 5), mg.zeros(1, 2, 5)))
