"""The three engine benchmarks, each written once per engine, side by side.

Engines: hand-written NumPy (the floor: forward and backward derived by
hand), minigrad_ckpt, and -- when installed -- PyTorch (CPU), MyGrad and HIPS
autograd.  Every engine's first step is checked against the NumPy floor
before anything is timed.

1. ``per_op``: a 200-op chain (``y*1.0001``, ``y+0.001``, ``tanh``) on 8
   float64 numbers, forward and backward: the cost of bookkeeping per op.
2. ``mlp``: 784-256-256-10 ReLU MLP, softmax cross-entropy, batch 128,
   float32, one SGD step.
3. ``deep``: 64 x (Linear(256, 256) + tanh), batch 64, float32, one SGD step:
   time, and the extra peak memory of a step (tracemalloc) beside the floor's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

DEPTH_CHAIN = 200


# ------------------------------------------------------------------ per-op
def per_op_numpy(a: np.ndarray) -> Callable[[], np.ndarray]:
    def step() -> np.ndarray:
        ys = []
        y = a
        for i in range(DEPTH_CHAIN):
            k = i % 3
            ys.append(y)
            if k == 0:
                y = y * 1.0001
            elif k == 1:
                y = y + 0.001
            else:
                y = np.tanh(y)
        g = np.ones_like(y)
        for i in reversed(range(DEPTH_CHAIN)):
            k = i % 3
            if k == 0:
                g = g * 1.0001
            elif k == 2:
                t = np.tanh(ys[i])
                g = g * (1 - t * t)
        return g
    return step


def per_op_minigrad(a: np.ndarray) -> Callable[[], np.ndarray]:
    import minigrad_ckpt as mg

    x = mg.tensor(a, requires_grad=True)
    tanh = mg.tanh

    def step() -> np.ndarray:
        x.grad = None
        y = x
        for i in range(DEPTH_CHAIN):
            k = i % 3
            if k == 0:
                y = y * 1.0001
            elif k == 1:
                y = y + 0.001
            else:
                y = tanh(y)
        y.sum().backward()
        return x.grad.numpy()
    return step


def per_op_torch(a: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import torch
    except ImportError:
        return None
    x = torch.tensor(a, requires_grad=True)

    def step() -> np.ndarray:
        x.grad = None
        y = x
        for i in range(DEPTH_CHAIN):
            k = i % 3
            if k == 0:
                y = y * 1.0001
            elif k == 1:
                y = y + 0.001
            else:
                y = torch.tanh(y)
        y.sum().backward()
        return x.grad.numpy()
    return step


def per_op_mygrad(a: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import mygrad
    except ImportError:
        return None
    x = mygrad.tensor(a)

    def step() -> np.ndarray:
        y = x
        for i in range(DEPTH_CHAIN):
            k = i % 3
            if k == 0:
                y = y * 1.0001
            elif k == 1:
                y = y + 0.001
            else:
                y = mygrad.tanh(y)
        mygrad.sum(y).backward()
        return np.asarray(x.grad)
    return step


def per_op_autograd(a: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None

    def f(x: Any) -> Any:
        y = x
        for i in range(DEPTH_CHAIN):
            k = i % 3
            if k == 0:
                y = y * 1.0001
            elif k == 1:
                y = y + 0.001
            else:
                y = anp.tanh(y)
        return anp.sum(y)

    g = autograd.grad(f)
    return lambda: g(a)


# ------------------------------------------------------------------ MLP / deep chain
def init_layers(sizes: list[int], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        b = 1 / np.sqrt(i)
        out.append((rng.uniform(-b, b, (o, i)).astype(np.float32), rng.uniform(-b, b, o).astype(np.float32)))
    return out


def mlp_data(batch: int = 128, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((batch, 784)).astype(np.float32), rng.integers(0, 10, batch)


def mlp_numpy(layers, x, y, lr=0.01):
    ws = [w.copy() for w, _ in layers]
    bs = [b.copy() for _, b in layers]
    n = x.shape[0]

    def step():
        h0 = x
        z1 = h0 @ ws[0].T + bs[0]
        h1 = np.maximum(z1, 0)
        z2 = h1 @ ws[1].T + bs[1]
        h2 = np.maximum(z2, 0)
        z3 = h2 @ ws[2].T + bs[2]
        m = z3.max(axis=1, keepdims=True)
        e = np.exp(z3 - m)
        s = e.sum(axis=1, keepdims=True)
        logp = z3 - m - np.log(s)
        loss = -logp[np.arange(n), y].mean()
        g3 = e / s
        g3[np.arange(n), y] -= 1
        g3 *= np.float32(1.0 / n)
        gw3, gb3 = g3.T @ h2, g3.sum(0)
        g2 = (g3 @ ws[2]) * (z2 > 0)
        gw2, gb2 = g2.T @ h1, g2.sum(0)
        g1 = (g2 @ ws[1]) * (z1 > 0)
        gw1, gb1 = g1.T @ h0, g1.sum(0)
        for p, g in zip(ws + bs, [gw1, gw2, gw3, gb1, gb2, gb3]):
            p -= lr * g
        return loss, [gw1, gw2, gw3]
    return step


def mlp_minigrad(layers, x, y, lr=0.01):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    for lin, (w, b) in zip([model[0], model[2], model[4]], layers):
        lin.weight.data = w.copy()
        lin.bias.data = b.copy()
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    xt, yt = mg.tensor(x), mg.tensor(y)
    ce = nn.functional.cross_entropy

    def step():
        loss = ce(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        grads = [model[i].weight.grad.numpy() for i in (0, 2, 4)]
        opt.step()
        return loss.item(), grads
    return step


def mlp_torch(layers, x, y, lr=0.01):
    try:
        import torch
    except ImportError:
        return None
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10))
    with torch.no_grad():
        for lin, (w, b) in zip([model[0], model[2], model[4]], layers):
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        loss = torch.nn.functional.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        grads = [model[i].weight.grad.numpy().copy() for i in (0, 2, 4)]
        opt.step()
        return loss.item(), grads
    return step


def mlp_mygrad(layers, x, y, lr=0.01):
    try:
        import mygrad
        from mygrad.nnet.losses import softmax_crossentropy
    except ImportError:
        return None
    ws = [mygrad.tensor(w.copy()) for w, _ in layers]
    bs = [mygrad.tensor(b.copy()) for _, b in layers]

    def step():
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = mygrad.matmul(h, w.T) + b
            if i < 2:
                h = mygrad.maximum(h, 0)
        loss = softmax_crossentropy(h, y)
        loss.backward()
        grads = [np.asarray(w.grad).copy() for w in ws]
        for p in ws + bs:
            p.data -= lr * p.grad
        return float(loss.item()), grads
    return step


def mlp_autograd(layers, x, y, lr=0.01):
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    params = [(w.copy(), b.copy()) for w, b in layers]
    n = x.shape[0]

    def loss_fn(ps):
        h = x
        for i, (w, b) in enumerate(ps):
            h = anp.dot(h, w.T) + b
            if i < 2:
                h = anp.maximum(h, 0)
        m = anp.max(h, axis=1, keepdims=True)
        logp = h - m - anp.log(anp.sum(anp.exp(h - m), axis=1, keepdims=True))
        return -anp.sum(logp[anp.arange(n), y]) * np.float32(1.0 / n)

    vg = autograd.value_and_grad(loss_fn)

    def step():
        loss, g = vg(params)
        grads = [gw for gw, _ in g]
        for i, ((w, b), (gw, gb)) in enumerate(zip(params, g)):
            params[i] = (w - lr * gw, b - lr * gb)
        return float(loss), grads
    return step


def deep_numpy(layers, x, lr=0.01):
    ws = [w.copy() for w, _ in layers]
    bs = [b.copy() for _, b in layers]

    def step():
        hs = [x]
        h = x
        for w, b in zip(ws, bs):
            h = np.tanh(h @ w.T + b)
            hs.append(h)
        g = np.ones_like(h)
        loss = float(h.sum())
        grads = []
        for i in reversed(range(len(ws))):
            g = g * (1 - hs[i + 1] * hs[i + 1])
            gw, gb = g.T @ hs[i], g.sum(0)
            g = g @ ws[i]
            grads.append(gw)
            ws[i] -= lr * gw
            bs[i] -= lr * gb
        return loss, grads[::-1][:3]
    return step


def deep_minigrad(layers, x, lr=0.01):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    model = nn.Sequential(*[nn.Sequential(nn.Linear(256, 256), nn.Tanh()) for _ in layers])
    for blk, (w, b) in zip(model, layers):
        blk[0].weight.data = w.copy()
        blk[0].bias.data = b.copy()
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    xt = mg.tensor(x)

    def step():
        out = model(xt).sum()
        opt.zero_grad()
        out.backward()
        grads = [model[i][0].weight.grad.numpy() for i in range(3)]
        opt.step()
        return out.item(), grads
    return step


def deep_torch(layers, x, lr=0.01):
    try:
        import torch
    except ImportError:
        return None
    mods = []
    for w, b in layers:
        lin = torch.nn.Linear(256, 256)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        mods += [lin, torch.nn.Tanh()]
    model = torch.nn.Sequential(*mods)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xt = torch.from_numpy(x)

    def step():
        out = model(xt).sum()
        opt.zero_grad()
        out.backward()
        grads = [model[2 * i].weight.grad.numpy().copy() for i in range(3)]
        opt.step()
        return out.item(), grads
    return step


def deep_mygrad(layers, x, lr=0.01):
    try:
        import mygrad
    except ImportError:
        return None
    ws = [mygrad.tensor(w.copy()) for w, _ in layers]
    bs = [mygrad.tensor(b.copy()) for _, b in layers]

    def step():
        h = x
        for w, b in zip(ws, bs):
            h = mygrad.tanh(mygrad.matmul(h, w.T) + b)
        out = mygrad.sum(h)
        out.backward()
        grads = [np.asarray(w.grad).copy() for w in ws[:3]]
        for p in ws + bs:
            p.data -= lr * p.grad
        return float(out.item()), grads
    return step


def deep_autograd(layers, x, lr=0.01):
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    params = [(w.copy(), b.copy()) for w, b in layers]

    def f(ps):
        h = x
        for w, b in ps:
            h = anp.tanh(anp.dot(h, w.T) + b)
        return anp.sum(h)

    vg = autograd.value_and_grad(f)

    def step():
        loss, g = vg(params)
        grads = [gw for gw, _ in g[:3]]
        for i, ((w, b), (gw, gb)) in enumerate(zip(params, g)):
            params[i] = (w - lr * gw, b - lr * gb)
        return float(loss), grads
    return step


BENCHMARKS = {
    "per_op": {
        "setup": lambda: (np.random.default_rng(0).standard_normal(8),),
        "engines": {"numpy (by hand)": per_op_numpy, "minigrad_ckpt": per_op_minigrad, "torch": per_op_torch,
                    "mygrad": per_op_mygrad, "autograd": per_op_autograd},
        "unit": "us/op", "scale": 1e6 / DEPTH_CHAIN,
    },
    "mlp": {
        "setup": lambda: (init_layers([784, 256, 256, 10]), *mlp_data()),
        "engines": {"numpy (by hand)": mlp_numpy, "minigrad_ckpt": mlp_minigrad, "torch": mlp_torch,
                    "mygrad": mlp_mygrad, "autograd": mlp_autograd},
        "unit": "ms/step", "scale": 1e3,
    },
    "deep": {
        "setup": lambda: (init_layers([256] * 65), np.random.default_rng(2).standard_normal((64, 256))
                          .astype(np.float32)),
        "engines": {"numpy (by hand)": deep_numpy, "minigrad_ckpt": deep_minigrad, "torch": deep_torch,
                    "mygrad": deep_mygrad, "autograd": deep_autograd},
        "unit": "ms/step", "scale": 1e3,
    },
}


# The CNN and the transposed-weight chain live in engines_cnn.py (same shape: setup, one builder per engine).
from benchmarks.engines_cnn import BENCHMARKS as _CNN_BENCHMARKS  # noqa: E402

BENCHMARKS.update(_CNN_BENCHMARKS)

# The real programs (pytorch/examples, micrograd) live in programs.py, against PyTorch.
from benchmarks.programs import BENCHMARKS as _PROGRAMS  # noqa: E402

BENCHMARKS.update(_PROGRAMS)
