"""Random whole training programs, built from one seed with ``lib`` = ``minigrad_ckpt`` (or, in a probe
script off the suite, torch: the names are PyTorch's): a model from a random stack of layers (Linear,
Conv1d/2d, BatchNorm, LayerNorm, GroupNorm, Dropout, Embedding, LSTM/GRU, activations, residual adds,
a layer applied twice, an output layer tied to the embedding, frozen parameters, a buffer), a loss,
an optimizer with random options and parameter groups, a scheduler or a chain of them, gradient
clipping, accumulation over micro-batches, GradScaler, ``add_param_group`` mid-run and PyTorch's
state-dict round trip (in place, or into freshly built objects) mid-run.

``draw(seed)`` gives the program as plain data; ``build``/``train_step``/``run`` run it.  The oracles
that need no reference (a checkpointed model trains bitwise as the plain one; a run resumed from a
snapshot is bitwise the run that never stopped) are ``checkpointed_and_plain`` and
``resumed_and_unbroken``; against torch the same programs were compared step by step offline.
"""
from __future__ import annotations

import copy
import io
import math
import random
import tempfile
from pathlib import Path

import numpy as np

ACTS = ["relu", "gelu", "tanh", "sigmoid", "silu", "elu", "leaky_relu", "softplus", "mish", "hardswish"]
LAMBDAS = {
    "pow": lambda e: 0.9 ** e,
    "inv": lambda e: 1.0 / (1 + e),
    "warm": lambda e: min(1.0, (e + 1) / 4),
    "cos": lambda e: 0.5 * (1 + math.cos(e * 0.3)),
}
MULT = {"c95": lambda e: 0.95, "alt": lambda e: 1.1 if e % 2 else 0.8}


# ------------------------------------------------------------------ drawing
def draw(seed: int, torch_safe: bool = True) -> dict:
    r = random.Random(seed)
    sp: dict = {"seed": seed}
    sp["dtype"] = r.choice(["float32", "float64"])
    inp = r.choice(["vec", "vec", "seq", "img", "tok"])
    sp["input"] = inp
    B = r.choice([3, 4, 5])
    sp["B"] = B
    plan, layers = [], []

    def add(kind, ctor=None, **kw):
        if ctor is not None:
            layers.append(ctor)
            plan.append((kind, len(layers) - 1, kw))
        else:
            plan.append((kind, None, kw))

    pdrop = 0.0 if torch_safe else r.choice([0.0, 0.3])
    if inp == "vec":
        F = r.choice([3, 4, 6])
        sp["in_shape"] = (B, F)
        state = ("vec", F)
    elif inp == "seq":
        F, T = r.choice([3, 4]), r.choice([2, 3, 5])
        sp["in_shape"] = (B, T, F)
        state = ("seq", F)
    elif inp == "img":
        C, H = r.choice([1, 2, 3]), r.choice([4, 5])
        sp["in_shape"] = (B, C, H, H)
        state = ("img", C)
    else:
        V, E, T = r.choice([5, 7]), r.choice([4, 6]), r.choice([2, 3])
        sp["in_shape"] = (B, T)
        sp["vocab"] = V
        add("mod", ("Embedding", V, E, r.choice([{}, {"padding_idx": 0}, {"max_norm": None}])))
        state = ("seq", E)
        sp["emb_idx"] = 0
    n = r.randint(1, 5)
    for _ in range(n):
        kind, F = state
        if F is None:
            break
        c = r.random()
        if kind == "vec":
            if c < 0.25:
                F2 = r.choice([3, 4, 6, 8])
                add("mod", ("Linear", F, F2, {"bias": r.random() < 0.8}))
                state = ("vec", F2)
            elif c < 0.35:
                add("mod", ("LayerNorm", F, {"elementwise_affine": r.random() < 0.8}))
            elif c < 0.45:
                add("mod", ("BatchNorm1d", F, {"momentum": r.choice([0.1, None, 0.5]),
                                               "affine": r.random() < 0.8}))
            elif c < 0.5 and F % 2 == 0:
                add("mod", ("GroupNorm", 2, F, {}))
            elif c < 0.6:
                add("res", ("Linear", F, F, {}))
            elif c < 0.7:
                add("shared", ("Linear", F, F, {}))
            elif c < 0.75:
                add("mod", ("Dropout", pdrop))
            elif c < 0.8:
                add("buf")
            else:
                add("act", name=r.choice(ACTS))
        elif kind == "seq":
            if c < 0.2:
                H = r.choice([3, 4])
                add("rnn", (r.choice(["LSTM", "GRU"]), F, H, {"batch_first": True, "num_layers": r.choice([1, 2]),
                                                            "bias": r.random() < 0.85,
                                                            "bidirectional": r.random() < 0.3}))
                state = ("seq", H * (2 if layers[-1][3]["bidirectional"] else 1))
            elif c < 0.35:
                F2 = r.choice([3, 4])
                add("T")
                add("mod", ("Conv1d", F, F2, r.choice([1, 2]), {"padding": "same"} if r.random() < 0.5 else
                            {"padding": 1}))
                add("T")
                state = ("seq", F2)
            elif c < 0.45:
                add("mod", ("LayerNorm", F, {}))
            elif c < 0.55:
                F2 = r.choice([3, 4, 5])
                add("mod", ("Linear", F, F2, {}))
                state = ("seq", F2)
            elif c < 0.7:
                add("meanT")
                state = ("vec", F)
            else:
                add("act", name=r.choice(ACTS))
        else:  # img
            if c < 0.35:
                C2 = r.choice([2, 3, 4])
                add("mod", ("Conv2d", F, C2, r.choice([1, 3]), {"padding": 1, "stride": r.choice([1, 1, 2]),
                                                                 "bias": r.random() < 0.8}))
                state = ("img", C2)
            elif c < 0.5:
                add("mod", ("BatchNorm2d", F, {"track_running_stats": r.random() < 0.85}))
            elif c < 0.6 and F % 2 == 0:
                add("mod", ("GroupNorm", 2, F, {}))
            elif c < 0.75:
                add("flat")
                state = ("vec", None)
            else:
                add("act", name=r.choice(ACTS))
    # to a vector
    if state[0] == "seq":
        add("meanT")
        state = ("vec", state[1])
    if state[0] == "img":
        add("flat")
        state = ("vec", None)
    sp["plan"], sp["layers"] = plan, layers
    sp["loss"] = r.choice(["mse", "l1", "smooth_l1", "huber", "ce", "ce_ls", "nll", "bce_logits", "kl", "ce_tied"]
                          if inp == "tok" else ["mse", "l1", "smooth_l1", "huber", "ce", "ce_ls", "nll",
                                                "bce_logits", "kl"])
    sp["out"] = r.choice([2, 3])
    sp["frozen"] = r.random() < 0.25
    sp["opt"] = draw_opt(r)
    sp["groups"] = r.choice([1, 1, 2])
    sp["group_opts"] = draw_group_opts(r, sp["opt"][0])
    sp["add_group_at"] = r.choice([None, None, None, 2, 3])
    sp["sched"] = draw_sched(r, sp["opt"])
    if sp["add_group_at"] is not None and sp["sched"] and r.random() < 0.6:
        sp["sched"] = None  # most schedulers refuse groups added later (both sides raise)
    sp["clip"] = r.choice([None, None, ("norm", r.choice([0.1, 1.0]), r.choice([2.0, 1.0, math.inf])),
                           ("value", r.choice([0.01, 0.5]))])
    sp["accum"] = r.choice([1, 1, 2, 3])
    sp["set_to_none"] = r.random() < 0.7
    sp["scaler"] = None if r.random() < 0.7 else {"init_scale": r.choice([2.0 ** 4, 2.0 ** 16, 2.0 ** 100]),
                                                   "growth_interval": r.choice([1, 2, 2000])}
    sp["reload_at"] = r.choice([None, None, 2, 3, 4])
    sp["reload_kind"] = r.choice(["inplace", "fresh"])
    sp["steps"] = r.randint(4, 8)
    return sp


def draw_opt(r):
    name = r.choice(["SGD", "SGD", "Adam", "AdamW", "NAdam", "RAdam", "Adamax", "Adagrad", "Adadelta", "RMSprop",
                     "Rprop", "ASGD"])
    kw: dict = {}
    flag = r.choice(["foreach_t", "foreach_f", "none", "none", "fused"])
    if name == "SGD":
        kw["lr"] = r.choice([0.01, 0.1])
        kw["momentum"] = r.choice([0.0, 0.9])
        kw["nesterov"] = kw["momentum"] > 0 and r.random() < 0.5
        if not kw["nesterov"] and r.random() < 0.3:
            kw["dampening"] = 0.1
    elif name in ("Adam", "AdamW"):
        kw["lr"] = r.choice([1e-3, 1e-2])
        kw["betas"] = r.choice([(0.9, 0.999), (0.8, 0.9)])
        kw["amsgrad"] = r.random() < 0.4
        kw["eps"] = r.choice([1e-8, 1e-3])
        if name == "Adam" and r.random() < 0.2:
            kw["decoupled_weight_decay"] = True
    elif name == "NAdam":
        kw["lr"] = r.choice([2e-3, 1e-2])
        kw["momentum_decay"] = r.choice([4e-3, 0.1])
        kw["decoupled_weight_decay"] = r.random() < 0.4
    elif name == "RAdam":
        kw["lr"] = r.choice([1e-3, 1e-2])
        kw["decoupled_weight_decay"] = r.random() < 0.4
    elif name == "Adamax":
        kw["lr"] = 2e-3
    elif name == "Adagrad":
        kw["lr"] = 0.01
        kw["lr_decay"] = r.choice([0.0, 0.1])
        kw["initial_accumulator_value"] = r.choice([0.0, 0.1])
    elif name == "Adadelta":
        kw["lr"] = r.choice([1.0, 0.5])
        kw["rho"] = r.choice([0.9, 0.5])
    elif name == "RMSprop":
        kw["lr"] = 0.01
        kw["alpha"] = r.choice([0.99, 0.9])
        kw["centered"] = r.random() < 0.5
        kw["momentum"] = r.choice([0.0, 0.5])
    elif name == "Rprop":
        kw["lr"] = 0.01
        kw["etas"] = r.choice([(0.5, 1.2), (0.3, 1.5)])
        kw["step_sizes"] = r.choice([(1e-6, 50), (1e-3, 0.1)])
    elif name == "ASGD":
        kw["lr"] = 0.01
        kw["lambd"] = r.choice([1e-4, 1e-2])
        kw["t0"] = r.choice([1.0, 3.0, 1e6])
    if name not in ("Rprop",) and r.random() < 0.5:
        kw["weight_decay"] = r.choice([0.01, 0.1])
    if name not in ("Rprop", "LBFGS") and r.random() < 0.2:
        kw["maximize"] = True
    if name == "Rprop" and r.random() < 0.2:
        kw["maximize"] = True
    if flag == "foreach_t" and name != "ASGD":  # ASGD's foreach eta is float32 kernel arithmetic (known)
        kw["foreach"] = True
    elif flag == "foreach_f":
        kw["foreach"] = False
    elif flag == "fused" and name in ("SGD", "Adam", "AdamW", "Adagrad"):
        kw["fused"] = True
    elif flag == "differentiable":
        kw["differentiable"] = True
    return (name, kw)


def draw_group_opts(r, name):
    g = {"lr": r.choice([0.005, 0.02])}
    if r.random() < 0.5 and name != "Rprop":
        g["weight_decay"] = 0.05
    if name == "SGD" and r.random() < 0.5:
        g["momentum"] = 0.5
    if name in ("Adam", "AdamW") and r.random() < 0.5:
        g["amsgrad"] = not False
    if name in ("Adam", "AdamW", "NAdam", "RAdam", "Adamax") and r.random() < 0.3:
        g["betas"] = (0.5, 0.6)
    return g


def draw_one_sched(r, opt, depth=0, allow_plateau=True):
    name = r.choice(["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR", "MultiplicativeLR",
                     "LinearLR", "ConstantLR", "PolynomialLR", "CyclicLR", "OneCycleLR",
                     "CosineAnnealingWarmRestarts"] + (["ReduceLROnPlateau"] if allow_plateau else [])
                    + (["SequentialLR", "ChainedScheduler"] if depth == 0 else []))
    kw: dict = {}
    if name == "StepLR":
        kw = {"step_size": r.choice([1, 2]), "gamma": r.choice([0.5, 0.9])}
    elif name == "MultiStepLR":
        kw = {"milestones": r.choice([[1, 3], [2, 2, 4]]), "gamma": 0.5}
    elif name == "ExponentialLR":
        kw = {"gamma": r.choice([0.9, 0.7])}
    elif name == "CosineAnnealingLR":
        kw = {"T_max": r.choice([2, 3, 5]), "eta_min": r.choice([0.0, 1e-4])}
    elif name == "LambdaLR":
        kw = {"lr_lambda": r.choice(list(LAMBDAS))}
    elif name == "MultiplicativeLR":
        kw = {"lr_lambda": r.choice(list(MULT))}
    elif name == "LinearLR":
        kw = {"start_factor": r.choice([0.25, 0.5]), "end_factor": r.choice([1.0, 0.8]),
              "total_iters": r.choice([2, 4])}
    elif name == "ConstantLR":
        kw = {"factor": r.choice([0.5, 0.25]), "total_iters": r.choice([1, 3])}
    elif name == "PolynomialLR":
        kw = {"total_iters": r.choice([3, 5]), "power": r.choice([1.0, 2.0, 0.5])}
    elif name == "CyclicLR":
        kw = {"base_lr": 1e-3, "max_lr": 1e-2, "step_size_up": r.choice([1, 2]),
              "mode": r.choice(["triangular", "triangular2", "exp_range"]), "gamma": 0.9,
              "cycle_momentum": opt[0] in ("SGD",) and opt[1].get("momentum", 0) > 0 and r.random() < 0.5}
    elif name == "OneCycleLR":
        kw = {"max_lr": r.choice([0.01, 0.05]), "total_steps": 40, "anneal_strategy": r.choice(["cos", "linear"]),
              "three_phase": r.random() < 0.3,
              "cycle_momentum": (opt[0] in ("Adam", "AdamW", "NAdam", "RAdam", "Adamax") or
                                 (opt[0] == "SGD" and opt[1].get("momentum", 0) > 0)) and r.random() < 0.6}
    elif name == "CosineAnnealingWarmRestarts":
        kw = {"T_0": r.choice([1, 2, 3]), "T_mult": r.choice([1, 2]), "eta_min": 1e-4}
    elif name == "ReduceLROnPlateau":
        kw = {"mode": r.choice(["min", "max"]), "factor": 0.5, "patience": r.choice([0, 1]),
              "threshold": r.choice([1e-4, 0.5]), "threshold_mode": r.choice(["rel", "abs"]),
              "cooldown": r.choice([0, 1]), "min_lr": r.choice([0.0, 1e-3])}
    elif name == "SequentialLR":
        kw = {"schedulers": [draw_one_sched(r, opt, depth + 1, False), draw_one_sched(r, opt, depth + 1, False)],
              "milestones": [r.choice([1, 2, 3])]}
    elif name == "ChainedScheduler":
        kw = {"schedulers": [draw_one_sched(r, opt, depth + 1, False), draw_one_sched(r, opt, depth + 1, False)]}
    return (name, kw)


def draw_sched(r, opt):
    if r.random() < 0.2:
        return None
    return draw_one_sched(r, opt)


# ------------------------------------------------------------------ building
def make_layer(lib, desc):
    nn = lib.nn
    name, *args = desc
    kw = args[-1] if args and isinstance(args[-1], dict) else {}
    pos = args[:-1] if args and isinstance(args[-1], dict) else args
    kw = {k: v for k, v in kw.items() if not (k == "max_norm" and v is None)}
    return getattr(nn, name)(*pos, **kw)


def make_net(lib, sp, ckpt_steps=()):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([make_layer(lib, d) for d in sp["layers"]])
            self.plan = sp["plan"]
            self.register_buffer("scale", lib.ones(1) * 1.5)
            self.head = None
            self.ckpt_steps = set(ckpt_steps)

        def step_fn(self, i, x):
            kind, li, kw = self.plan[i]
            if kind == "mod":
                return self.layers[li](x)
            if kind == "rnn":
                return self.layers[li](x)[0]
            if kind == "res":
                return x + self.layers[li](x)
            if kind == "shared":
                return self.layers[li](F.tanh(self.layers[li](x)))
            if kind == "T":
                return x.transpose(1, 2)
            if kind == "flat":
                return x.flatten(1)
            if kind == "meanT":
                return x.mean(1)
            if kind == "buf":
                return x * self.scale
            if kind == "act":
                return getattr(F, kw["name"])(x)
            raise AssertionError(kind)

        def forward(self, x):
            for i in range(len(self.plan)):
                if i in self.ckpt_steps:
                    x = lib.utils.checkpoint.checkpoint(lambda t, i=i: self.step_fn(i, t), x, use_reentrant=False) \
                        if lib.__name__ == "torch" else lib.checkpoint.checkpoint(
                            lambda t, i=i: self.step_fn(i, t), x, use_reentrant=False)
                else:
                    x = self.step_fn(i, x)
            return self.head(x)

    return Net()


def out_dim(sp):
    if sp["loss"] == "ce_tied":
        return sp["vocab"]
    return sp["out"]


def build_model(lib, sp, ckpt_steps=()):
    net = make_net(lib, sp, ckpt_steps)
    dt = getattr(lib, sp["dtype"])
    net.to(dt)
    # width before the head
    x0 = make_inputs(lib, sp, np.random.default_rng(0), 1)[0][0]
    with lib.no_grad():
        was = net.training
        net.eval()
        h = x0
        for i in range(len(net.plan)):
            h = net.step_fn(i, h)
        net.train(was)
    width = h.shape[-1]
    if sp["loss"] == "ce_tied":
        emb = net.layers[sp["emb_idx"]]
        if width != emb.weight.shape[1]:
            sp["loss"] = "ce"
            net.head = lib.nn.Linear(width, sp["out"]).to(dt)
        else:
            net.head = lib.nn.Linear(width, sp["vocab"], bias=False).to(dt)
            net.head.weight = emb.weight
    else:
        net.head = lib.nn.Linear(width, out_dim(sp)).to(dt)
    if sp["frozen"]:
        names = [n for n, _ in net.named_parameters()]
        r = random.Random(sp["seed"] + 7)
        for n, p in net.named_parameters():
            if r.random() < 0.3 and n != names[-1]:
                p.requires_grad_(False)
    return net


def make_inputs(lib, sp, rng, n):
    dt = getattr(lib, sp["dtype"])
    out = []
    for _ in range(n):
        if sp["input"] == "tok":
            x = lib.tensor(rng.integers(0, sp["vocab"], sp["in_shape"]))
        else:
            x = lib.tensor(rng.standard_normal(sp["in_shape"])).to(dt)
        out.append((x, make_target(lib, sp, rng)))
    return out


def make_target(lib, sp, rng):
    dt = getattr(lib, sp["dtype"])
    B, k = sp["B"], out_dim(sp)
    L = sp["loss"]
    if L in ("ce", "ce_ls", "nll", "ce_tied"):
        return lib.tensor(rng.integers(0, k, (B,)))
    if L == "bce_logits":
        return lib.tensor(rng.integers(0, 2, (B, k)).astype(float)).to(dt)
    if L == "kl":
        p = rng.random((B, k)) + 0.1
        return lib.tensor(p / p.sum(1, keepdims=True)).to(dt)
    return lib.tensor(rng.standard_normal((B, k))).to(dt)


def loss_fn(lib, sp, out, y):
    F = lib.nn.functional
    L = sp["loss"]
    if L == "mse":
        return F.mse_loss(out, y)
    if L == "l1":
        return F.l1_loss(out, y)
    if L == "smooth_l1":
        return F.smooth_l1_loss(out, y, beta=0.5)
    if L == "huber":
        return F.huber_loss(out, y, delta=0.7)
    if L in ("ce", "ce_tied"):
        return F.cross_entropy(out, y)
    if L == "ce_ls":
        return F.cross_entropy(out, y, label_smoothing=0.1)
    if L == "nll":
        return F.nll_loss(F.log_softmax(out, 1), y)
    if L == "bce_logits":
        return F.binary_cross_entropy_with_logits(out, y)
    if L == "kl":
        return F.kl_div(F.log_softmax(out, 1), y, reduction="batchmean")
    raise AssertionError(L)


def param_split(net, sp):
    ps = [p for _, p in net.named_parameters()]
    held = []
    if sp["add_group_at"] is not None and len(ps) > 1:
        held = ps[-1:]
        ps = ps[:-1]
    if sp["groups"] == 2 and len(ps) > 1:
        h = len(ps) // 2
        groups = [{"params": ps[:h]}, dict({"params": ps[h:]}, **sp["group_opts"])]
    else:
        groups = [{"params": ps}]
    return groups, held


def build_opt(lib, sp, groups):
    name, kw = sp["opt"]
    return getattr(lib.optim, name)(groups, **copy.deepcopy(kw))


def build_sched(lib, desc, opt):
    if desc is None:
        return None
    name, kw = desc
    kw = dict(kw)
    S = lib.optim.lr_scheduler
    if name in ("SequentialLR", "ChainedScheduler"):
        kw["schedulers"] = [build_sched(lib, d, opt) for d in kw["schedulers"]]
        if name == "ChainedScheduler":
            return S.ChainedScheduler(kw["schedulers"], optimizer=opt)
        return S.SequentialLR(opt, **kw)
    if name == "LambdaLR":
        kw["lr_lambda"] = LAMBDAS[kw["lr_lambda"]]
    if name == "MultiplicativeLR":
        kw["lr_lambda"] = MULT[kw["lr_lambda"]]
    return getattr(S, name)(opt, **kw)


def build(lib, sp, weights=None, ckpt_steps=()):
    net = build_model(lib, sp, ckpt_steps)
    if weights is not None:
        load_weights(lib, net, weights)
    groups, held = param_split(net, sp)
    opt = build_opt(lib, sp, groups)
    sched = build_sched(lib, sp["sched"], opt)
    scaler = None
    if sp["scaler"]:
        scaler = lib.amp.GradScaler("cpu", **sp["scaler"])
    return {"net": net, "opt": opt, "sched": sched, "scaler": scaler, "held": held}


def weights_of(net):
    return {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}


def load_weights(lib, net, w):
    sd = net.state_dict()
    for k in sd:
        with lib.no_grad():
            sd[k].copy_(lib.tensor(w[k]))


# ------------------------------------------------------------------ training
def save_load(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    if lib.__name__ == "torch":
        return lib.load(buf, weights_only=False)
    return lib.load(buf)


def train_step(lib, sp, P, batches, it, record):
    net, opt, sched, scaler = P["net"], P["opt"], P["sched"], P["scaler"]
    if sp["add_group_at"] == it and P["held"]:
        opt.add_param_group({"params": P["held"], "lr": 0.03})
        P["added"] = True
    opt.zero_grad(set_to_none=sp["set_to_none"])
    for p in P["held"]:
        if not P.get("added"):
            p.grad = None  # not yet the optimizer's: its zero_grad leaves it, and grads are no training state
    total = 0.0
    for x, y in batches:
        out = net(x)
        loss = loss_fn(lib, sp, out, y) / len(batches)
        total += float(loss.detach())
        (scaler.scale(loss) if scaler else loss).backward()
    if scaler:
        scaler.unscale_(opt)
    if sp["clip"]:
        ps = [p for p in net.parameters()]
        if sp["clip"][0] == "norm":
            n = lib.nn.utils.clip_grad_norm_(ps, sp["clip"][1], norm_type=sp["clip"][2])
            record["clipnorm"] = float(n)
        else:
            lib.nn.utils.clip_grad_value_(ps, sp["clip"][1])
    if scaler:
        scaler.step(opt)
        scaler.update()
        record["scale"] = float(scaler.get_scale())
    else:
        opt.step()
    if sched is not None:
        if type(sched).__name__ == "ReduceLROnPlateau":
            sched.step(total)
        else:
            sched.step()
    record["loss"] = total
    return total


def reload(lib, sp, P, kind):
    """PyTorch's state_dict round trip of model, optimizer, scheduler, scaler."""
    sd = save_load(lib, {"net": P["net"].state_dict(), "opt": P["opt"].state_dict(),
                         "sched": P["sched"].state_dict() if P["sched"] is not None else None,
                         "scaler": P["scaler"].state_dict() if P["scaler"] else None})
    if kind == "fresh":
        Q = build(lib, sp)
        if P.get("added"):
            Q["opt"].add_param_group({"params": Q["held"], "lr": 0.03})
            Q["added"] = True
        P = Q
    P["net"].load_state_dict(sd["net"])
    P["opt"].load_state_dict(sd["opt"])
    if P["sched"] is not None:
        P["sched"].load_state_dict(sd["sched"])
    if P["scaler"]:
        P["scaler"].load_state_dict(sd["scaler"])
    return P


def snapshot(lib, P):
    """Everything compared per step, as numpy."""
    out = {}
    for n, p in P["net"].named_parameters():
        out["p." + n] = p.detach().numpy().copy()
    for n, b in P["net"].named_buffers():
        out["b." + n] = b.detach().numpy().copy()
    names = {id(p): n for n, p in P["net"].named_parameters()}
    order = [names.get(id(p), "?") for g in P["opt"].param_groups for p in g["params"]]
    out["_noise"] = np.array([0.0])
    for n, p in P["net"].named_parameters():
        if p.grad is not None:
            gmax = float(np.abs(p.grad.detach().numpy()).max()) if p.grad.numel() else 0.0
            out["G." + n] = np.array(gmax)
    out["_order"] = order
    sd = P["opt"].state_dict()
    for i, st in sd["state"].items():
        for k, v in st.items():
            if hasattr(v, "detach"):
                out[f"s.{i}.{k}"] = v.detach().numpy().copy()
            elif isinstance(v, (int, float)):
                out[f"s.{i}.{k}"] = np.array(v, dtype=float)
    for gi, g in enumerate(P["opt"].param_groups):
        lr = g["lr"]
        out[f"lr.{gi}"] = np.array(float(lr))
        for key in ("momentum", "betas"):
            if key in g:
                out[f"g.{gi}.{key}"] = np.array(g[key], dtype=float)
    return out


def run(lib, sp, weights, data, ckpt_steps=()):
    """The program ``sp`` trained from ``weights`` over ``data`` (``to_lib``'s): each step's
    ``(record, snapshot)``, and the final objects."""
    return _train(lib, sp, build(lib, sp, weights, ckpt_steps), data, 0, sp["steps"])


def make_data(sp):
    """Each step's micro-batches as NumPy arrays (``to_lib`` makes them tensors of either library)."""
    rng = np.random.default_rng(sp["seed"] + 1000)
    data = []
    for _ in range(sp["steps"]):
        mb = []
        for _ in range(sp["accum"]):
            # numpy data, converted per lib
            if sp["input"] == "tok":
                x = rng.integers(0, sp["vocab"], sp["in_shape"])
            else:
                x = rng.standard_normal(sp["in_shape"])
            mb.append((x, target_np(sp, rng)))
        data.append(mb)
    return data


def target_np(sp, rng):
    B, k = sp["B"], out_dim(sp)
    L = sp["loss"]
    if L in ("ce", "ce_ls", "nll", "ce_tied"):
        return rng.integers(0, k, (B,))
    if L == "bce_logits":
        return rng.integers(0, 2, (B, k)).astype(float)
    if L == "kl":
        p = rng.random((B, k)) + 0.1
        return p / p.sum(1, keepdims=True)
    return rng.standard_normal((B, k))


def to_lib(lib, sp, data):
    dt = getattr(lib, sp["dtype"])
    out = []
    for mb in data:
        m = []
        for x, y in mb:
            xt = lib.tensor(x) if x.dtype.kind == "i" else lib.tensor(x).to(dt)
            yt = lib.tensor(y) if y.dtype.kind == "i" else lib.tensor(y).to(dt)
            m.append((xt, yt))
        out.append(m)
    return out


# ------------------------------------------------------------------ mg's own oracles
def _same(a: dict, b: dict) -> str | None:
    """The first entry of two ``snapshot``s that differs in a bit, or None."""
    if a.keys() != b.keys():
        return f"keys {sorted(set(a) ^ set(b))}"
    for k in a:
        if k != "_order" and (a[k].dtype != b[k].dtype or a[k].tobytes() != b[k].tobytes()):
            return k
    return None


def _train(lib, sp, P, data, start, stop):
    out = []
    for it in range(start, stop):
        if sp["reload_at"] == it:
            P = reload(lib, sp, P, sp["reload_kind"])
        rec: dict = {}
        train_step(lib, sp, P, data[it], it, rec)
        out.append((rec, snapshot(lib, P)))
    return out, P


def _start(lib, sp, seed):
    lib.manual_seed(seed)
    weights = weights_of(build(lib, sp)["net"])
    return weights, to_lib(lib, sp, make_data(sp))


def _fresh(lib, sp, weights, seed, ckpt=()):
    lib.manual_seed(seed)
    return build(lib, sp, weights, ckpt)


def first_difference(a, b) -> tuple | None:
    """``(step, entry)`` where two runs' per-step records first differ in a bit, or None."""
    for step, ((ra, sa), (rb, sb)) in enumerate(zip(a, b)):
        d = _same(sa, sb)
        if d or ra != rb:
            return step, d or "record"
    return None if len(a) == len(b) else (min(len(a), len(b)), "length")


def checkpointed_and_plain(lib, seed: int):
    """The program of ``seed`` (dropout on) trained plain and with a random set of its layers'
    steps inside ``lib.checkpoint.checkpoint``: both runs' per-step records."""
    sp = draw(seed, torch_safe=False)
    weights, data = _start(lib, sp, seed)
    r = random.Random(seed + 5)
    n = len(sp["plan"])
    ckpt = sorted(r.sample(range(n), r.randint(1, n)))
    return [_train(lib, sp, _fresh(lib, sp, weights, seed, c), data, 0, sp["steps"])[0] for c in ((), ckpt)]


def resumed_and_unbroken(lib, seed: int):
    """The program of ``seed`` (dropout on) trained without a break, and trained to a random step,
    its executor (model, optimizer, scheduler, GradScaler) snapshotted to a file, restored into
    objects built from other weights, and trained on: the per-step records from that step on."""
    from minigrad_ckpt.snapshot import Snapshot

    sp = draw(seed, torch_safe=False)
    weights, data = _start(lib, sp, seed)
    steps = sp["steps"]
    k = random.Random(seed + 9).randint(1, steps - 1)
    want, _ = _train(lib, sp, _fresh(lib, sp, weights, seed), data, 0, steps)
    _, P = _train(lib, sp, _fresh(lib, sp, weights, seed), data, 0, k)
    with tempfile.TemporaryDirectory() as tmp:
        path = Snapshot.from_executor(_executor(lib, P), k).save(Path(tmp) / "s.mgsnap")
        Q = _fresh(lib, sp, None, seed + 12345)  # other weights: nothing carried over by accident
        if P.get("added"):
            Q["opt"].add_param_group({"params": Q["held"], "lr": 0.03})
            Q["added"] = True
        Snapshot.load(path).restore_into(_executor(lib, Q))
    rest, _ = _train(lib, sp, Q, data, k, steps)
    return want[k:], rest


def _executor(lib, P):
    ex = lib.Executor(P["net"], P["opt"], P["sched"])
    if P["scaler"]:
        ex.register_state("scaler", P["scaler"])
    return ex
