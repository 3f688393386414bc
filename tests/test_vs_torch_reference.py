"""minigrad_ckpt against PyTorch's answers, stored in ``tests/data/torch_reference.npz``.

The fixture was made by ``tests/data/make_torch_reference.py`` (torch, float64; the cases of
``torch_module_api.npz``, by ``make_torch_module_api.py``, are replayed here too);
this file replays every case -- functional calls, MultiheadAttention, a
TransformerBlock, BatchNorm modules over several steps, 10-step trainings of
an MLP with each optimizer and gradient clipping, LR schedules -- with
minigrad_ckpt alone and compares outputs and gradients to float64 round-off.
No torch import here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.nn import functional as F

FIXTURE = Path(__file__).with_name("data") / "torch_reference.npz"
# layer options made by make_torch_module_api.py, in the same layout; its cases' names are their own
MODULE_API_FIXTURE = Path(__file__).with_name("data") / "torch_module_api.npz"
_ARRAYS: dict[str, np.ndarray] = {}
CASES: dict[str, dict] = {}
ALIASES: dict[str, str] = {}
for _path in (FIXTURE, MODULE_API_FIXTURE):
    with np.load(_path) as _npz:
        _arrays = {k: _npz[k] for k in _npz.files}
    _META = json.loads(_arrays.pop("__meta__").tobytes().decode())
    assert not set(_META["cases"]) & set(CASES), f"{_path.name} repeats case names"
    _ARRAYS.update(_arrays)
    CASES.update(_META["cases"])
    ALIASES.update(_META["aliases"])

# float64 round-off: relative to the largest value of the array compared
RTOL = 1e-12


def arr(case: str, name: str) -> np.ndarray:
    key = f"{case}|{name}"
    return _ARRAYS[ALIASES.get(key, key)]


def has(case: str, name: str) -> bool:
    key = f"{case}|{name}"
    return key in _ARRAYS or key in ALIASES


def close(got, want: np.ndarray, what: str, rtol: float = RTOL) -> None:
    got = got.numpy() if isinstance(got, mg.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    assert got.dtype == np.float64, f"{what}: dtype {got.dtype}"
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= rtol * scale, f"{what}: max |minigrad - torch| = {err:.3g} (scale {scale:.3g})"


def refs(v, out: set) -> set:
    if isinstance(v, str) and v.startswith("@"):
        out.add(v[1:])
    elif isinstance(v, list):
        for a in v:
            refs(a, out)
    elif isinstance(v, dict):
        for a in v.values():
            refs(a, out)
    return out


def resolve(v, env: dict):
    if isinstance(v, str) and v.startswith("@"):
        return env[v[1:]]
    if isinstance(v, list):
        return tuple(resolve(a, env) for a in v)
    return v


def outputs(out) -> list:
    """The outputs as a flat list (an LSTM returns ``(output, (h_n, c_n))``)."""
    if not isinstance(out, (tuple, list)):
        return [out]
    flat = []
    for o in out:
        flat += outputs(o) if isinstance(o, (tuple, list)) else [o]
    return flat


def check_outputs_and_grads(case: str, outs: list, env: dict, grad: list[str]) -> None:
    """Compare the outputs, backprop ``sum(out_i * cot_i)`` and compare gradients."""
    total = None
    for i, o in enumerate(outs):
        if not has(case, f"out{i}"):
            assert o is None, f"{case}: output {i} should be None"
            continue
        close(o, arr(case, f"out{i}"), f"{case}: output {i}")
        if has(case, f"cot{i}"):
            term = (o * mg.tensor(arr(case, f"cot{i}"))).sum()
            total = term if total is None else total + term
    if grad:
        total.backward()
        for name in grad:
            g = env[name].grad
            assert g is not None, f"{case}: no gradient for {name}"
            close(g, arr(case, f"grad_{name}"), f"{case}: gradient of {name}")


def tensors(case: str, names, grad) -> dict:
    return {n: mg.tensor(arr(case, n), requires_grad=n in grad) for n in names}


# ----------------------------------------------------------------- the kinds
def run_functional(case: str, meta: dict) -> None:
    names = refs(meta["args"], set()) | refs(meta["kwargs"], set())
    env = tensors(case, names, meta["grad"])
    fn = getattr(F, meta["fn"])
    out = fn(*resolve(meta["args"], env), **{k: resolve(v, env) for k, v in meta["kwargs"].items()})
    check_outputs_and_grads(case, outputs(out), env, meta["grad"])
    for name in meta["after"]:
        close(env[name], arr(case, f"after_{name}"), f"{case}: {name} after the call")


def load_params(module: nn.Module, case: str, names: list[str], env: dict) -> None:
    missing, unexpected = module.load_state_dict({n: arr(case, f"p.{n}") for n in names}, strict=False)
    assert not unexpected and all(n in dict(module.named_buffers()) for n in missing), (missing, unexpected)
    params = dict(module.named_parameters())
    assert sorted(params) == sorted(names), f"{case}: parameters {sorted(params)} vs PyTorch {sorted(names)}"
    for n, p in params.items():
        assert p.dtype == np.float64
        env[f"p.{n}"] = p


def run_module(case: str, meta: dict, module: nn.Module) -> None:
    env = tensors(case, refs(meta["call"], set()), meta["grad"])
    load_params(module, case, meta["params"], env)
    out = module(**{k: resolve(v, env) for k, v in meta["call"].items()})
    check_outputs_and_grads(case, outputs(out), env, meta["grad"] + [f"p.{n}" for n in meta["params"]])


def run_mha(case: str, meta: dict) -> None:
    run_module(case, meta, nn.MultiheadAttention(**meta["init"], dtype="float64"))


def run_block(case: str, meta: dict) -> None:
    run_module(case, meta, nn.TransformerBlock(**meta["init"], dtype="float64"))


def run_any_module(case: str, meta: dict) -> None:
    """Recurrent layers, cells, TransformerEncoderLayer: ``nn.<cls>(**init)`` in float64."""
    run_module(case, meta, getattr(nn, meta["cls"])(**meta["init"], dtype="float64"))


def run_encoder(case: str, meta: dict) -> None:
    layer = nn.TransformerEncoderLayer(**meta["init"], dtype="float64")
    norm = nn.LayerNorm(meta["init"]["d_model"], dtype="float64") if meta["norm"] else None
    run_module(case, meta, nn.TransformerEncoder(layer, meta["num_layers"], norm=norm))


def run_batchnorm(case: str, meta: dict) -> None:
    m = getattr(nn, meta["cls"])(**meta["init"], dtype="float64")
    env = {}
    load_params(m, case, ["weight", "bias"], env)
    outs = []
    for i in range(meta["steps"]):
        env[f"x{i}"] = x = mg.tensor(arr(case, f"x{i}"), requires_grad=True)
        m.train(i < meta["train_steps"])
        outs.append(m(x))
    check_outputs_and_grads(case, outs, env, [f"x{i}" for i in range(meta["steps"])] + ["p.weight", "p.bias"])
    for buf in ("running_mean", "running_var", "num_batches_tracked"):
        close(getattr(m, buf), arr(case, f"after_{buf}"), f"{case}: {buf}")
    assert m.num_batches_tracked.dtype == np.int64


def mlp() -> nn.Module:
    d = "float64"
    return nn.Sequential(nn.Linear(5, 16, dtype=d), nn.Tanh(), nn.Linear(16, 16, dtype=d), nn.GELU(),
                         nn.Linear(16, 3, dtype=d))


SCHEDULERS = {name: getattr(optim.lr_scheduler, name) for name in (
    "StepLR", "CosineAnnealingLR", "LinearLR", "MultiStepLR", "ExponentialLR", "LambdaLR", "SequentialLR",
    "CosineAnnealingWarmRestarts", "OneCycleLR", "ReduceLROnPlateau")}
# the same table as in make_torch_reference.py
LAMBDAS = {"exp095": lambda e: 0.95**e, "inv": lambda e: 1.0 / (1.0 + e), "warmup3": lambda e: min(1.0, (e + 1) / 3)}


def make_sched(opt, spec):
    name, kw = spec
    kw = dict(kw)
    if name == "LambdaLR":
        kw["lr_lambda"] = LAMBDAS[kw["lr_lambda"]]
    if name == "SequentialLR":
        kw["schedulers"] = [make_sched(opt, sub) for sub in kw["schedulers"]]
    return SCHEDULERS[name](opt, **kw)


def sched_step(sched, metric: float) -> None:
    if isinstance(sched, optim.lr_scheduler.ReduceLROnPlateau):
        sched.step(metric)
    else:
        sched.step()


def momentum_of(group) -> float:
    return group["betas"][0] if "betas" in group else group.get("momentum", 0.0)


def run_train(case: str, meta: dict) -> None:
    # the fixture's torch ran under set_default_dtype(float64): NAdam's mu_product (a 0-d tensor of the
    # scalar dtype there) is float64 then, and float32 under the engine's float32 default
    before = mg.get_default_dtype()
    mg.set_default_dtype("float64")
    try:
        _run_train(case, meta)
    finally:
        mg.set_default_dtype(before)


def _run_train(case: str, meta: dict) -> None:
    model = mlp()
    model.load_state_dict({n: arr("mlp", f"init.{n}") for n in meta["params"]})
    params = dict(model.named_parameters())
    if meta["groups"]:
        groups = [{**g, "params": [params[n] for n in g["params"]]} for g in meta["groups"]]
    else:
        groups = list(params.values())
    opt = getattr(optim, meta["opt"])(groups, **meta["opt_kwargs"])
    sched = make_sched(opt, meta["sched"]) if meta["sched"] else None
    xs, ys = arr("mlp", "x"), arr("mlp", "y")
    losses, norms, lrs, moms = [], [], [], []
    for step in range(xs.shape[0]):
        opt.zero_grad()
        loss = F.cross_entropy(model(mg.tensor(xs[step])), mg.tensor(ys[step]))
        loss.backward()
        if meta["clip"] is not None:
            norms.append(nn.utils.clip_grad_norm_(model.parameters(), meta["clip"]).item())
        opt.step()
        if sched is not None:
            sched_step(sched, loss.item())
        losses.append(loss.item())
        lrs.append([g["lr"] for g in opt.param_groups])
        moms.append([momentum_of(g) for g in opt.param_groups])
    close(np.array(losses), arr(case, "losses"), f"{case}: losses")
    close(np.array(lrs), arr(case, "lrs"), f"{case}: learning rates")
    close(np.array(moms, dtype=np.float64), arr(case, "moms"), f"{case}: momentum / beta1")
    if meta["clip"] is not None:
        close(np.array(norms), arr(case, "norms"), f"{case}: clip_grad_norm_ totals")
    for n, p in params.items():
        close(p, arr(case, f"final.{n}"), f"{case}: parameter {n} after {xs.shape[0]} steps")


def run_sched(case: str, meta: dict) -> None:
    ps = [mg.zeros(1, dtype="float64", requires_grad=True) for _ in meta["base_lrs"]]
    opt = optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(ps, meta["base_lrs"])])
    sched = make_sched(opt, [meta["name"], meta["kwargs"]])
    lrs, moms = [sched.get_last_lr()], [[momentum_of(g) for g in opt.param_groups]]
    for e in range(meta["epochs"]):
        opt.step()
        sched_step(sched, meta["metrics"][e])
        lrs.append(sched.get_last_lr())
        moms.append([momentum_of(g) for g in opt.param_groups])
    close(np.array(lrs), arr(case, "lrs"), f"{case}: learning rates")
    close(np.array(moms, dtype=np.float64), arr(case, "moms"), f"{case}: momentum")


RUNNERS = {"functional": run_functional, "mha": run_mha, "block": run_block, "batchnorm": run_batchnorm,
           "train": run_train, "sched": run_sched, "module": run_any_module, "encoder": run_encoder}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case: str) -> None:
    meta = CASES[case]
    RUNNERS[meta["kind"]](case, meta)


def test_fixture_covers_the_api() -> None:
    """Every function of the issue's list, and every kind of case, is in the fixture."""
    fns = {m["fn"] for m in CASES.values() if m["kind"] == "functional"}
    wanted = {"relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax",
              "cross_entropy", "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear",
              "conv2d", "max_pool2d", "avg_pool2d", "layer_norm", "batch_norm", "dropout", "embedding",
              "scaled_dot_product_attention",
              # activations, 1-D layers, adaptive pooling, transposed convolution, norms, losses
              "softplus", "logsigmoid", "mish", "elu", "hardtanh", "prelu", "dropout2d", "conv1d", "max_pool1d",
              "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "conv_transpose2d", "group_norm",
              "rms_norm", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div",
              "cosine_embedding_loss"}
    assert wanted <= fns, wanted - fns
    modules = {m["cls"] for m in CASES.values() if m["kind"] == "module"}
    assert {"RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "TransformerEncoderLayer"} <= modules
    assert {m["init"].get("bidirectional", False) for m in CASES.values() if m.get("cls") == "LSTM"} == {
        True, False}
    assert set(RUNNERS) == {m["kind"] for m in CASES.values()}
    assert {m["opt"] for m in CASES.values() if m["kind"] == "train"} == {
        "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam"}
    trained = {(m["opt"], k) for m in CASES.values() if m["kind"] == "train" for k, v in m["opt_kwargs"].items()
               if v is True}
    assert {("SGD", "nesterov"), ("Adam", "amsgrad")} <= trained
    scheds = {m["name"] for m in CASES.values() if m["kind"] == "sched"}
    scheds |= {m["sched"][0] for m in CASES.values() if m["kind"] == "train" and m["sched"]}
    assert scheds == set(SCHEDULERS)
    assert FIXTURE.stat().st_size < 1_500_000  # 0.8 MB before the recurrent gradients
