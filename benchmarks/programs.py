"""Real small programs, each written once in this engine's idiom and once in PyTorch's.

Four programs of ``pytorch/examples`` and micrograd, rewritten step for step
(same layers, same arithmetic, same weights and batches in both engines):

6. ``mnist``: pytorch/examples ``mnist/main.py``'s ``Net`` -- Conv2d(1, 32, 3)
   -> ReLU -> Conv2d(32, 64, 3) -> ReLU -> max_pool2d(2) -> Dropout(0.25) ->
   flatten -> Linear(9216, 128) -> ReLU -> Dropout(0.5) -> Linear(128, 10) ->
   log_softmax, ``nll_loss``, batch 64 of 28x28, float32.  The example trains
   with Adadelta, which this engine does not have: both engines take a plain
   SGD step (the update is ~1% of the step).
7. ``lstm_seq``: pytorch/examples ``time_sequence_prediction``: two
   ``LSTMCell``s (1 -> 51 -> 51 hidden) and Linear(51, 1) over 97 sine waves,
   float64, MSE loss.  The example hands a closure to LBFGS; one step here is
   one closure evaluation (forward over the sequence, backward) and a plain
   SGD update.  The example's 999 time steps take seconds per step in either
   engine, so the benchmark runs the first ``SEQ_STEPS`` of them (the cost
   per time step is the same).
8. ``regression``: pytorch/examples ``regression``: polynomial features of
   a batch of 32 (no gradient), Linear(4, 1), ``smooth_l1_loss``, the manual
   update ``p -= 0.1 * p.grad``: tiny tensors, so per-op overhead is everything.
9. ``moons``: micrograd's ``demo.ipynb`` as tensors: MLP 2-16-16-1 (ReLU) on
   100 two-moons points, the SVM max-margin loss ``relu(1 - y * score).mean()``
   plus ``1e-4 * sum(p * p)``, one SGD step.
10. ``gpt``: a character GPT as nanoGPT and karpathy's ng-video-lecture write it: token and
   position embeddings, two pre-norm blocks (LayerNorm, causal ``scaled_dot_product_attention``
   over 4 heads, an MLP of ``GELU()`` between Linear(256, 1024) and Linear(1024, 256)), a final
   LayerNorm and head over 65 characters, ``cross_entropy``, AdamW; 8 sequences of 128, float32.
   GELU over the MLP's activations is where the engine spent most beyond PyTorch.

There is no hand-written NumPy floor for these: the reference engine is
PyTorch (``"floor": "torch"``).  Where torch is not installed the harness
times this engine alone and prints no ratio.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SEQ_STEPS = 100  # of the example's 999 time steps
HIDDEN = 51


def _uniform(rng: np.random.Generator, shape: Any, fan_in: int, dtype: str) -> np.ndarray:
    b = 1 / np.sqrt(fan_in)
    return rng.uniform(-b, b, shape).astype(dtype)


def _load(params: list[Any], values: list[np.ndarray], torch: Any = None) -> None:
    """Copy the shared initial values into one engine's parameters, in order."""
    if len(params) != len(values):
        raise ValueError(f"{len(params)} parameters for {len(values)} values")
    for p, v in zip(params, values):
        if torch is None:
            p.data = v.copy()
        else:
            with torch.no_grad():
                p.copy_(torch.from_numpy(v))


# ------------------------------------------------------------------ MNIST Net
def mnist_setup(batch: int = 64, seed: int = 6, dropout: bool = True) -> tuple:
    rng = np.random.default_rng(seed)
    u = lambda shape, fan_in: _uniform(rng, shape, fan_in, "float32")  # noqa: E731
    params = [u((32, 1, 3, 3), 9), u(32, 9), u((64, 32, 3, 3), 288), u(64, 288),
              u((128, 9216), 9216), u(128, 9216), u((10, 128), 128), u(10, 128)]
    x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    return params, x, rng.integers(0, 10, batch), dropout


def mnist_minigrad(params, x, y, dropout, lr=0.01):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn
    from minigrad_ckpt.nn import functional as F

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25 if dropout else 0.0)
            self.dropout2 = nn.Dropout(0.5 if dropout else 0.0)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.relu(self.conv2(F.relu(self.conv1(x))))
            x = self.dropout1(F.max_pool2d(x, 2))
            x = self.dropout2(F.relu(self.fc1(mg.flatten(x, 1))))
            return F.log_softmax(self.fc2(x), dim=1)

    model = Net()
    _load(list(model.parameters()), params)
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    xt, yt = mg.tensor(x), mg.tensor(y)

    def step():
        opt.zero_grad()
        loss = F.nll_loss(model(xt), yt)
        loss.backward()
        grads = [model.conv1.weight.grad.numpy(), model.conv2.weight.grad.numpy(), model.fc1.weight.grad.numpy()]
        opt.step()
        return loss.item(), grads
    return step


def mnist_torch(params, x, y, dropout, lr=0.01):
    try:
        import torch
    except ImportError:
        return None
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25 if dropout else 0.0)
            self.dropout2 = nn.Dropout(0.5 if dropout else 0.0)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.relu(self.conv2(F.relu(self.conv1(x))))
            x = self.dropout1(F.max_pool2d(x, 2))
            x = self.dropout2(F.relu(self.fc1(torch.flatten(x, 1))))
            return F.log_softmax(self.fc2(x), dim=1)

    model = Net()
    _load(list(model.parameters()), params, torch)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = F.nll_loss(model(xt), yt)
        loss.backward()
        grads = [m.weight.grad.numpy().copy() for m in (model.conv1, model.conv2, model.fc1)]
        opt.step()
        return loss.item(), grads
    return step


# ------------------------------------------------------------------ time_sequence_prediction
def lstm_seq_setup(steps: int = SEQ_STEPS, seed: int = 7) -> tuple:
    """The example's data (``generate_sine_wave.py``: 100 waves of period 2*pi*20, random
    phases; rows 3.. for training) and the two cells' and the linear layer's weights."""
    rng = np.random.default_rng(seed)
    t = np.arange(steps + 1) + rng.integers(-80, 80, 100)[:, None]
    data = np.sin(t / 20.0)
    u = lambda shape: _uniform(rng, shape, HIDDEN, "float64")  # noqa: E731
    params = [u((4 * HIDDEN, 1)), u((4 * HIDDEN, HIDDEN)), u(4 * HIDDEN), u(4 * HIDDEN),
              u((4 * HIDDEN, HIDDEN)), u((4 * HIDDEN, HIDDEN)), u(4 * HIDDEN), u(4 * HIDDEN),
              u((1, HIDDEN)), u(1)]
    return params, data[3:, :-1], data[3:, 1:]


def lstm_seq_minigrad(params, inp, target, lr=0.1):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    class Sequence(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, HIDDEN)
            self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
            self.linear = nn.Linear(HIDDEN, 1)

        def forward(self, x):
            h = c = h2 = c2 = mg.zeros((x.shape[0], HIDDEN), dtype="float64")
            outputs = []
            for x_t in mg.split(x, x.shape[1], axis=1):
                h, c = self.lstm1(x_t, (h, c))
                h2, c2 = self.lstm2(h, (h2, c2))
                outputs.append(self.linear(h2))
            return mg.cat(outputs, dim=1)

    seq = Sequence().double()
    _load(list(seq.parameters()), params)
    opt = mg.optim.SGD(seq.parameters(), lr=lr)
    xt, yt = mg.tensor(inp), mg.tensor(target)
    mse = nn.functional.mse_loss

    def step():
        opt.zero_grad()
        loss = mse(seq(xt), yt)
        loss.backward()
        grads = [seq.lstm1.weight_hh.grad.numpy(), seq.lstm2.weight_ih.grad.numpy(), seq.linear.weight.grad.numpy()]
        opt.step()
        return loss.item(), grads
    return step


def lstm_seq_torch(params, inp, target, lr=0.1):
    try:
        import torch
    except ImportError:
        return None
    nn = torch.nn

    class Sequence(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, HIDDEN)
            self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
            self.linear = nn.Linear(HIDDEN, 1)

        def forward(self, x):
            h = c = h2 = c2 = torch.zeros(x.size(0), HIDDEN, dtype=torch.double)
            outputs = []
            for x_t in x.split(1, dim=1):
                h, c = self.lstm1(x_t, (h, c))
                h2, c2 = self.lstm2(h, (h2, c2))
                outputs.append(self.linear(h2))
            return torch.cat(outputs, dim=1)

    seq = Sequence().double()
    _load(list(seq.parameters()), params, torch)
    opt = torch.optim.SGD(seq.parameters(), lr=lr)
    xt, yt = torch.from_numpy(inp), torch.from_numpy(target)
    mse = nn.functional.mse_loss

    def step():
        opt.zero_grad()
        loss = mse(seq(xt), yt)
        loss.backward()
        grads = [p.grad.numpy().copy() for p in (seq.lstm1.weight_hh, seq.lstm2.weight_ih, seq.linear.weight)]
        opt.step()
        return loss.item(), grads
    return step


# ------------------------------------------------------------------ regression
def regression_setup(batch: int = 32, seed: int = 8) -> tuple:
    rng = np.random.default_rng(seed)
    w_target = (rng.standard_normal((4, 1)) * 5).astype(np.float32)
    b_target = float(rng.standard_normal() * 5)
    params = [_uniform(rng, (1, 4), 4, "float32"), _uniform(rng, 1, 4, "float32")]
    return params, rng.standard_normal(batch).astype(np.float32), w_target, b_target


def regression_minigrad(params, random, w_target, b_target):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    fc = nn.Linear(4, 1)
    _load(list(fc.parameters()), params)
    r, w_t = mg.tensor(random), mg.tensor(w_target)
    smooth_l1 = nn.functional.smooth_l1_loss

    def step():
        x = mg.unsqueeze(r, 1)
        x = mg.cat([x ** i for i in range(1, 5)], 1)
        y = x @ w_t + b_target
        fc.zero_grad()
        output = smooth_l1(fc(x), y)
        loss = output.item()
        output.backward()
        with mg.no_grad():
            for p in fc.parameters():
                p.add_(-0.1 * p.grad)
        return loss, [fc.weight.grad.numpy().copy()]
    return step


def regression_torch(params, random, w_target, b_target):
    try:
        import torch
    except ImportError:
        return None
    fc = torch.nn.Linear(4, 1)
    _load(list(fc.parameters()), params, torch)
    r, w_t = torch.from_numpy(random), torch.from_numpy(w_target)
    smooth_l1 = torch.nn.functional.smooth_l1_loss

    def step():
        x = r.unsqueeze(1)
        x = torch.cat([x ** i for i in range(1, 5)], 1)
        y = x.mm(w_t) + b_target
        fc.zero_grad()
        output = smooth_l1(fc(x), y)
        loss = output.item()
        output.backward()
        with torch.no_grad():
            for p in fc.parameters():
                p.add_(-0.1 * p.grad)
        return loss, [fc.weight.grad.numpy().copy()]
    return step


# ------------------------------------------------------------------ micrograd's moons
def moons_setup(n: int = 100, seed: int = 9) -> tuple:
    """scikit-learn's ``make_moons(100, noise=0.1)`` by hand, labels -1/+1, and the MLP's weights."""
    rng = np.random.default_rng(seed)
    a = np.linspace(0, np.pi, n // 2)
    x = np.concatenate([np.stack([np.cos(a), np.sin(a)], 1), np.stack([1 - np.cos(a), 0.5 - np.sin(a)], 1)])
    x = (x + rng.normal(0, 0.1, x.shape)).astype(np.float32)
    y = np.concatenate([-np.ones(n // 2), np.ones(n // 2)]).astype(np.float32)[:, None]
    u = lambda shape, fan_in: _uniform(rng, shape, fan_in, "float32")  # noqa: E731
    return [u((16, 2), 2), u(16, 2), u((16, 16), 16), u(16, 16), u((1, 16), 16), u(1, 16)], x, y


def moons_minigrad(params, x, y, lr=0.5):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
    _load(list(model.parameters()), params)
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    xt, yt = mg.tensor(x), mg.tensor(y)

    def step():
        data_loss = nn.functional.relu(1 - yt * model(xt)).mean()
        loss = data_loss + 1e-4 * sum((p * p).sum() for p in model.parameters())
        opt.zero_grad()
        loss.backward()
        grads = [model[i].weight.grad.numpy() for i in (0, 2, 4)]
        opt.step()
        return loss.item(), grads
    return step


def moons_torch(params, x, y, lr=0.5):
    try:
        import torch
    except ImportError:
        return None
    nn = torch.nn
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
    _load(list(model.parameters()), params, torch)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        data_loss = torch.relu(1 - yt * model(xt)).mean()
        loss = data_loss + 1e-4 * sum((p * p).sum() for p in model.parameters())
        opt.zero_grad()
        loss.backward()
        grads = [model[i].weight.grad.numpy().copy() for i in (0, 2, 4)]
        opt.step()
        return loss.item(), grads
    return step


# ------------------------------------------------------------------ a character GPT
GPT = dict(batch=8, block=128, width=256, heads=4, layers=2, vocab=65)


def gpt_setup(seed: int = 10) -> tuple:
    """The weights (in the models' parameter order), a batch of token ids and its next-token targets."""
    rng = np.random.default_rng(seed)
    d, v, t = GPT["width"], GPT["vocab"], GPT["block"]
    u = lambda shape, fan_in: _uniform(rng, shape, fan_in, "float32")  # noqa: E731
    params = [rng.standard_normal((v, d)).astype(np.float32), rng.standard_normal((t, d)).astype(np.float32)]
    for _ in range(GPT["layers"]):
        params += [np.ones(d, np.float32), np.zeros(d, np.float32), u((3 * d, d), d), u(3 * d, d),
                   u((d, d), d), u(d, d), np.ones(d, np.float32), np.zeros(d, np.float32),
                   u((4 * d, d), d), u(4 * d, d), u((d, 4 * d), 4 * d), u(d, 4 * d)]
    params += [np.ones(d, np.float32), np.zeros(d, np.float32), u((v, d), d)]
    ids = rng.integers(0, v, (GPT["batch"], t + 1))
    return params, ids[:, :-1], ids[:, 1:]


def _gpt_model(lib: Any, nn: Any, F: Any) -> Any:
    """The model, written once for both engines (the same spellings in each)."""
    b, t, d, h = GPT["batch"], GPT["block"], GPT["width"], GPT["heads"]

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.attn, self.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            q, k, v = self.attn(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, d))
            return x + self.mlp(self.ln2(x))

    class GPTModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(GPT["vocab"], d), nn.Embedding(t, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(GPT["layers"])])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, GPT["vocab"], bias=False)

        def forward(self, ids, targets):
            x = self.blocks(self.tok(ids) + self.pos(lib.arange(t)))
            logits = self.head(self.ln(x))
            return F.cross_entropy(logits.view(-1, GPT["vocab"]), targets.reshape(-1))

    return GPTModel()


def _gpt_step(lib: Any, model: Any, ids: Any, targets: Any, copy: bool) -> Any:
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = model(ids, targets)
        loss.backward()
        grads = [model.blocks[0].mlp[0].weight.grad.numpy(), model.tok.weight.grad.numpy()]
        opt.step()
        return loss.item(), [g.copy() for g in grads] if copy else grads
    return step


def gpt_minigrad(params, ids, targets):
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn
    from minigrad_ckpt.nn import functional as F

    model = _gpt_model(mg, nn, F)
    _load(list(model.parameters()), params)
    return _gpt_step(mg, model, mg.tensor(ids), mg.tensor(targets), copy=False)


def gpt_torch(params, ids, targets):
    try:
        import torch
    except ImportError:
        return None
    model = _gpt_model(torch, torch.nn, torch.nn.functional)
    _load(list(model.parameters()), params, torch)
    return _gpt_step(torch, model, torch.from_numpy(ids), torch.from_numpy(targets), copy=True)


def _program(setup: Any, mine: Any, theirs: Any, **extra: Any) -> dict[str, Any]:
    return {"setup": setup, "floor": "torch", "engines": {"minigrad_ckpt": mine, "torch": theirs},
            "unit": "ms/step", "scale": 1e3, **extra}


BENCHMARKS: dict[str, dict[str, Any]] = {
    # Dropout draws differently in each engine: the first-step check runs without it.
    "mnist": _program(mnist_setup, mnist_minigrad, mnist_torch, check_setup=lambda: mnist_setup(dropout=False)),
    "lstm_seq": _program(lstm_seq_setup, lstm_seq_minigrad, lstm_seq_torch),
    "regression": _program(regression_setup, regression_minigrad, regression_torch),
    "moons": _program(moons_setup, moons_minigrad, moons_torch),
    "gpt": _program(gpt_setup, gpt_minigrad, gpt_torch),
}
