"""The CNN and the transposed-weight chain, each written once per engine.

4. ``cnn`` / ``cnn64``: 8x8 images, batch 64: Conv2d(1,16,3,p=1) -> ReLU ->
   MaxPool2d(2) -> Conv2d(16,32,3,p=1) -> ReLU -> flatten -> Linear(512,10),
   cross-entropy, one Adam step; float32 (``cnn``) and float64 (``cnn64``).
   The floor is hand-written NumPy im2col: each convolution one GEMM over the
   columns of the whole batch, kept channel-major (C, N, H, W) throughout so no
   layout change is needed between layers; col2im by one strided add per
   kernel offset.
5. ``tchain``: 64 x ``h = tanh(h @ W.T)``, width 256, batch 64, float32, loss
   ``(h*h).mean()``, forward and backward (no update): the gradient of each
   ``W`` arrives through a transpose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ADAM = {"lr": 1e-3, "b1": 0.9, "b2": 0.999, "eps": 1e-8}


# ------------------------------------------------------------------ CNN
def cnn_setup(dtype: str = "float32", batch: int = 64, seed: int = 3) -> tuple:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)

    def u(shape, fan_in):
        b = 1 / np.sqrt(fan_in)
        return rng.uniform(-b, b, shape).astype(dt)

    params = [u((16, 1, 3, 3), 9), u(16, 9), u((32, 16, 3, 3), 144), u(32, 144), u((10, 512), 512), u(10, 512)]
    x = rng.standard_normal((batch, 1, 8, 8)).astype(dt)
    y = rng.integers(0, 10, batch)
    return params, x, y


def _cols(a: np.ndarray, k: int = 3, p: int = 1) -> np.ndarray:
    """(C, N, H, W) -> (C*k*k, N*H*W) columns of a stride-1 'same' convolution."""
    c, n, h, w = a.shape
    ap = np.pad(a, ((0, 0), (0, 0), (p, p), (p, p)))
    s = ap.strides
    win = np.lib.stride_tricks.as_strided(ap, (c, k, k, n, h, w), (s[0], s[2], s[3], s[1], s[2], s[3]))
    return win.reshape(c * k * k, n * h * w)


def _col2im(cols: np.ndarray, shape: tuple, k: int = 3, p: int = 1) -> np.ndarray:
    c, n, h, w = shape
    cols = cols.reshape(c, k, k, n, h, w)
    out = np.zeros((c, n, h + 2 * p, w + 2 * p), dtype=cols.dtype)
    for i in range(k):
        for j in range(k):
            out[:, :, i:i + h, j:j + w] += cols[:, i, j]
    return out[:, :, p:p + h, p:p + w]


def cnn_numpy(params, x, y):
    ps = [p.copy() for p in params]
    ms = [np.zeros_like(p) for p in ps]
    vs = [np.zeros_like(p) for p in ps]
    t = [0]
    n = x.shape[0]
    xc = np.ascontiguousarray(x.transpose(1, 0, 2, 3))  # (1, N, 8, 8): channel-major, once
    dt = x.dtype.type

    def step():
        w1, b1, w2, b2, w3, b3 = ps
        cols1 = _cols(xc)                                            # (9, N*64)
        z1 = (w1.reshape(16, -1) @ cols1).reshape(16, n, 8, 8) + b1[:, None, None, None]
        a1 = np.maximum(z1, 0)
        win = a1.reshape(16, n, 4, 2, 4, 2).transpose(0, 1, 2, 4, 3, 5).reshape(16, n, 4, 4, 4)
        arg = win.argmax(axis=-1)
        p1 = np.take_along_axis(win, arg[..., None], axis=-1)[..., 0]  # (16, N, 4, 4)
        cols2 = _cols(p1)                                            # (144, N*16)
        z2 = (w2.reshape(32, -1) @ cols2).reshape(32, n, 4, 4) + b2[:, None, None, None]
        a2 = np.maximum(z2, 0)
        f = a2.transpose(1, 0, 2, 3).reshape(n, 512)
        z3 = f @ w3.T + b3
        m = z3.max(axis=1, keepdims=True)
        e = np.exp(z3 - m)
        s = e.sum(axis=1, keepdims=True)
        loss = -(z3 - m - np.log(s))[np.arange(n), y].mean()
        g3 = e / s
        g3[np.arange(n), y] -= 1
        g3 *= dt(1.0 / n)
        gw3, gb3 = g3.T @ f, g3.sum(0)
        gz2 = (g3 @ w3).reshape(n, 32, 4, 4).transpose(1, 0, 2, 3) * (z2 > 0)
        gz2m = gz2.reshape(32, -1)
        gw2, gb2 = (gz2m @ cols2.T).reshape(w2.shape), gz2m.sum(1)
        gp1 = _col2im(w2.reshape(32, -1).T @ gz2m, p1.shape)
        onehot = (np.arange(4) == arg[..., None]) * gp1[..., None]   # route to the first maximum
        ga1 = onehot.reshape(16, n, 4, 4, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(16, n, 8, 8)
        gz1m = (ga1 * (z1 > 0)).reshape(16, -1)
        gw1, gb1 = (gz1m @ cols1.T).reshape(w1.shape), gz1m.sum(1)
        grads = [gw1, gb1, gw2, gb2, gw3, gb3]
        t[0] += 1
        c1, c2 = 1 - ADAM["b1"] ** t[0], 1 - ADAM["b2"] ** t[0]
        for p, g, m_, v_ in zip(ps, grads, ms, vs):
            m_ *= dt(ADAM["b1"])
            m_ += dt(1 - ADAM["b1"]) * g
            v_ *= dt(ADAM["b2"])
            v_ += dt(1 - ADAM["b2"]) * g * g
            p -= dt(ADAM["lr"] / c1) * m_ / (np.sqrt(v_ / dt(c2)) + dt(ADAM["eps"]))
        return float(loss), [gw1, gw2, gw3]
    return step


def cnn_minigrad(params, x, y):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(512, 10))
    dtype = str(x.dtype)
    model.to(dtype)
    for p, v in zip(model.parameters(), params):
        p.data = v.copy()
    opt = mg.optim.Adam(model.parameters(), lr=ADAM["lr"], betas=(ADAM["b1"], ADAM["b2"]), eps=ADAM["eps"])
    xt, yt = mg.tensor(x), mg.tensor(y)
    ce = nn.functional.cross_entropy
    conv1, conv2, lin = model[0], model[3], model[6]

    def step():
        loss = ce(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        grads = [conv1.weight.grad.numpy(), conv2.weight.grad.numpy(), lin.weight.grad.numpy()]
        opt.step()
        return loss.item(), grads
    return step


def cnn_torch(params, x, y):
    try:
        import torch
    except ImportError:
        return None
    dt = torch.float32 if x.dtype == np.float32 else torch.float64
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(512, 10)).to(dt)
    with torch.no_grad():
        for p, v in zip(model.parameters(), params):
            p.copy_(torch.from_numpy(v))
    opt = torch.optim.Adam(model.parameters(), lr=ADAM["lr"], betas=(ADAM["b1"], ADAM["b2"]), eps=ADAM["eps"])
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        loss = torch.nn.functional.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        grads = [model[i].weight.grad.numpy().copy() for i in (0, 3, 6)]
        opt.step()
        return loss.item(), grads
    return step


# ------------------------------------------------------------------ the transposed-weight chain
def tchain_setup(depth: int = 64, width: int = 256, batch: int = 64, seed: int = 4) -> tuple:
    rng = np.random.default_rng(seed)
    ws = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32) for _ in range(depth)]
    return ws, rng.standard_normal((batch, width)).astype(np.float32)


def tchain_numpy(ws, x):
    def step():
        hs = [x]
        h = x
        for w in ws:
            h = np.tanh(h @ w.T)
            hs.append(h)
        loss = float((h * h).mean())
        g = h * np.float32(2.0 / h.size)
        grads = [None] * len(ws)
        for i in reversed(range(len(ws))):
            g = g * (1 - hs[i + 1] * hs[i + 1])
            grads[i] = g.T @ hs[i]
            g = g @ ws[i]
        return loss, grads[:3]
    return step


def tchain_minigrad(ws, x):
    import minigrad_ckpt as mg

    params = [mg.tensor(w.copy(), requires_grad=True) for w in ws]
    xt = mg.tensor(x)
    tanh = mg.tanh

    def step():
        for p in params:
            p.grad = None
        h = xt
        for w in params:
            h = tanh(h @ w.T)
        loss = (h * h).mean()
        loss.backward()
        return loss.item(), [p.grad.numpy() for p in params[:3]]
    return step


def tchain_torch(ws, x):
    try:
        import torch
    except ImportError:
        return None
    params = [torch.tensor(w.copy(), requires_grad=True) for w in ws]
    xt = torch.from_numpy(x)

    def step():
        for p in params:
            p.grad = None
        h = xt
        for w in params:
            h = torch.tanh(h @ w.T)
        loss = (h * h).mean()
        loss.backward()
        return loss.item(), [p.grad.numpy().copy() for p in params[:3]]
    return step


BENCHMARKS: dict[str, dict[str, Any]] = {
    "cnn": {
        "setup": lambda: cnn_setup("float32"),
        "engines": {"numpy (by hand)": cnn_numpy, "minigrad_ckpt": cnn_minigrad, "torch": cnn_torch},
        "unit": "ms/step", "scale": 1e3,
    },
    "cnn64": {
        "setup": lambda: cnn_setup("float64"),
        "engines": {"numpy (by hand)": cnn_numpy, "minigrad_ckpt": cnn_minigrad, "torch": cnn_torch},
        "unit": "ms/step", "scale": 1e3,
    },
    "tchain": {
        "setup": tchain_setup,
        "engines": {"numpy (by hand)": tchain_numpy, "minigrad_ckpt": tchain_minigrad, "torch": tchain_torch},
        "unit": "ms/step", "scale": 1e3,
    },
}


# ------------------------------------------------------------------ examples/cnn_shapes.py's model
def shapes_setup(batch: int = 32, seed: int = 5, dropout: float = 0.1) -> tuple:
    """ShapeNet's weights (PyTorch's default init, drawn once by torch or NumPy), a batch of
    16x16 images and labels; ``dropout`` as in the example (0 for a comparable first step)."""
    rng = np.random.default_rng(seed)

    def u(shape, fan_in):
        b = 1 / np.sqrt(fan_in)
        return rng.uniform(-b, b, shape).astype(np.float32)

    params = [u((8, 1, 3, 3), 9), u(8, 9), np.ones(8, np.float32), np.zeros(8, np.float32),
              u((16, 8, 3, 3), 72), u(16, 72), u((3, 256), 256), u(3, 256)]
    x = rng.standard_normal((batch, 1, 16, 16)).astype(np.float32)
    y = rng.integers(0, 3, batch)
    return params, x, y, dropout


def shapes_minigrad(params, x, y, dropout):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
        nn.Flatten(), nn.Dropout(dropout), nn.Linear(256, 3))
    for p, v in zip(model.parameters(), params):
        p.data = v.copy()
    opt = mg.optim.AdamW(model.parameters(), lr=3e-3)
    xt, yt = mg.tensor(x), mg.tensor(y)
    ce = nn.functional.cross_entropy

    def step():
        loss = ce(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        grads = [model[0].weight.grad.numpy(), model[4].weight.grad.numpy(), model[9].weight.grad.numpy()]
        opt.step()
        return loss.item(), grads
    return step


def shapes_torch(params, x, y, dropout):
    try:
        import torch
    except ImportError:
        return None
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
        nn.Flatten(), nn.Dropout(dropout), nn.Linear(256, 3))
    with torch.no_grad():
        for p, v in zip(model.parameters(), params):
            p.copy_(torch.from_numpy(v))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        loss = torch.nn.functional.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        grads = [model[i].weight.grad.numpy().copy() for i in (0, 4, 9)]
        opt.step()
        return loss.item(), grads
    return step


BENCHMARKS["cnn_shapes"] = {
    # No hand-written floor: the reference is PyTorch.  The example's Dropout(0.1) draws
    # differently in each engine, so the first-step check runs once with dropout 0
    # (``check_setup``) and the timed steps use the example's 0.1.
    "setup": shapes_setup,
    "check_setup": lambda: shapes_setup(dropout=0.0),
    "floor": "torch",
    "engines": {"minigrad_ckpt": shapes_minigrad, "torch": shapes_torch},
    "unit": "ms/step", "scale": 1e3,
}
