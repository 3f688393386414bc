"""Regenerate ``tests/data/ported_reference.npz``: the PyTorch runs of the programs in
``examples/ported/`` (pytorch/examples ``mnist``, ``time_sequence_prediction``,
``regression``, and micrograd's moons demo run on ``torch`` tensors; and the programs
``RUN_AS_TORCH`` lists, run from their ported source with the rename undone).

    python tests/data/make_ported_reference.py        # needs torch; the tests do not

Each program runs here as the original, on the data ``examples/ported/local_data.py``
makes, at the small sizes ``tests/test_ported_examples.py`` replays.  Stored per program:
the initial weights (``<prog>|init|<name>``; the MNIST net's come from ``ported_init.py``;
the random draws for ``regression``), the
losses (``<prog>|losses``) and the final weights (``<prog>|final|<name>``).  Dropout is
switched off in the MNIST net on both sides (``p = 0``): two engines' random masks differ.

The ``RUN_AS_TORCH`` programs (``vae``, ``word_language_model``, ``dcgan``, ``reinforce``,
``triplet``, ``transformer_classifier``, ``nanogpt``, ``fast_neural_style``, ``super_resolution``,
``siamese_network``, ``gat``, ``gcn``, ``mnist_rnn``, ``mnist_forward_forward``, ``actor_critic``,
``language_translation``) are read from ``examples/ported/`` and run as torch
programs after the reverse rename (``mg.`` -> ``torch.``, ``minigrad_ckpt`` -> ``torch``), so
the two sides cannot drift apart.  Each ``main(argv, init)`` calls ``init(key, model)`` on its
freshly built models: here it records their weights (``<run>|init|<key>|<name>``).  The random
draws the program makes (``torch.randn``, ``randn_like``, ``multinomial``, ``randint``,
``randperm``) are recorded in order (``<run>|draw|<i>``, their function names in
``<run>|draw_fns``) for the test to replay; stored too: ``main``'s returned history
(``<run>|history``) and the final weights (``<run>|final|<key>|<name>``).
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import sys
import types
from itertools import count
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.dataset
from torch.optim.lr_scheduler import StepLR

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[1] / "examples" / "ported"))
sys.path.insert(0, str(HERE))
from local_data import make_moons, sine_waves, synthetic_digits  # noqa: E402
from ported_init import reference_weights  # noqa: E402

OUT = HERE / "ported_reference.npz"
ARRAYS: dict[str, np.ndarray] = {}

MNIST_TRAIN, MNIST_TEST, MNIST_EPOCHS = 128, 64, 2
SEQ_WAVES, SEQ_LENGTH, SEQ_FUTURE, SEQ_STEPS = 8, 40, 10, 2
REGRESSION_BATCHES = 200
MOONS_STEPS = 3


def store_state(prog: str, when: str, module: nn.Module) -> None:
    for name, value in module.state_dict().items():
        ARRAYS[f"{prog}|{when}|{name}"] = value.detach().numpy().copy()


# ------------------------------------------------------------------ mnist
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.0)
        self.dropout2 = nn.Dropout(0.0)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.dropout1(x), 1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def mnist_arrays(n: int, train: bool) -> tuple[torch.Tensor, torch.Tensor]:
    images, labels = synthetic_digits(n, seed=0 if train else 1)
    x = images[:, None].astype(np.float32) / np.float32(255.0)
    x = (x - np.float32(0.1307)) / np.float32(0.3081)
    return torch.from_numpy(x), torch.from_numpy(labels)


def mnist() -> None:
    model = Net()
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    model.load_state_dict({k: torch.from_numpy(v) for k, v in reference_weights(shapes, seed=1).items()})
    x, y = mnist_arrays(MNIST_TRAIN, True)
    xt, yt = mnist_arrays(MNIST_TEST, False)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    losses, test_losses = [], []
    for _ in range(MNIST_EPOCHS):
        model.train()
        for i in range(0, MNIST_TRAIN, 64):
            optimizer.zero_grad()
            loss = F.nll_loss(model(x[i:i + 64]), y[i:i + 64])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            test_losses.append(F.nll_loss(model(xt), yt, reduction="sum").item() / MNIST_TEST)
        scheduler.step()
    ARRAYS["mnist|losses"] = np.array(losses)
    ARRAYS["mnist|test_losses"] = np.array(test_losses)
    for name in ("conv1.weight", "conv2.bias", "fc2.weight", "fc2.bias"):
        ARRAYS[f"mnist|final|{name}"] = model.state_dict()[name].numpy().copy()


# ---------------------------------------------------- time sequence prediction
class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)
        self.dummy_param = nn.Parameter(torch.empty(0))

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


def time_sequence() -> None:
    torch.manual_seed(0)
    data = torch.from_numpy(sine_waves(SEQ_WAVES, SEQ_LENGTH))
    input, target = data[3:, :-1], data[3:, 1:]
    test_input, test_target = data[:3, :-1], data[:3, 1:]
    seq = Sequence().double()
    store_state("sequence", "init", seq)
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    losses, test_losses = [], []
    for _ in range(SEQ_STEPS):
        def closure():
            optimizer.zero_grad()
            loss = criterion(seq(input), target)
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            pred = seq(test_input, future=SEQ_FUTURE)
            test_losses.append(criterion(pred[:, :-SEQ_FUTURE], test_target).item())
    ARRAYS["sequence|losses"] = np.array(losses)
    ARRAYS["sequence|test_losses"] = np.array(test_losses)
    store_state("sequence", "final", seq)


# -------------------------------------------------------------------- regression
def regression() -> None:
    torch.manual_seed(0)
    draws = []

    def randn(*shape):
        t = torch.randn(*shape)
        draws.append(t.numpy().copy())
        return t

    W_target = randn(4, 1) * 5
    b_target = randn(1) * 5
    fc = nn.Linear(4, 1)
    store_state("regression", "init", fc)
    losses = []
    for batch_idx in count(1):
        x = randn(32).unsqueeze(1)
        x = torch.cat([x ** i for i in range(1, 5)], 1)
        y = x.mm(W_target) + b_target.item()
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(x), y)
        losses.append(output.item())
        output.backward()
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)
        if losses[-1] < 1e-3 or batch_idx == REGRESSION_BATCHES:
            break
    for i, d in enumerate(draws):
        ARRAYS[f"regression|draw|{i}"] = d
    ARRAYS["regression|losses"] = np.array(losses)
    store_state("regression", "final", fc)


# ------------------------------------------------------------------ micrograd moons
def moons() -> None:
    def Value(x):
        return torch.tensor(x, dtype=torch.double, requires_grad=True)

    np.random.seed(1337)
    random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1
    sizes = [2, 16, 16, 1]
    layers = []
    for i in range(3):  # micrograd's MLP: per neuron nin weights from random.uniform, then a bias of 0
        neurons = [([Value(random.uniform(-1, 1)) for _ in range(sizes[i])], Value(0)) for _ in range(sizes[i + 1])]
        layers.append(neurons)
    params = [p for layer in layers for w, b in layer for p in w + [b]]

    def model(x):
        for li, layer in enumerate(layers):
            out = [sum((wi * xi for wi, xi in zip(w, x)), b) for w, b in layer]
            out = [o.relu() for o in out] if li != len(layers) - 1 else out
            x = out
        return x[0]

    losses = []
    for k in range(MOONS_STEPS):
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        data_loss = sum((1 + -yi * si).relu() for yi, si in zip(y, scores)) * (1.0 / len(scores))
        total = data_loss + 1e-4 * sum(p * p for p in params)
        for p in params:
            p.grad = None
        total.backward()
        lr = 1.0 - 0.9 * k / 100
        for p in params:
            p.data -= lr * p.grad
        losses.append(total.item())
    ARRAYS["moons|losses"] = np.array(losses)
    ARRAYS["moons|final"] = np.array([p.item() for p in params])


# ------------------------------------------------------------------ optimizers alone
def optimizer_problem():
    rng = np.random.default_rng(7)
    n = rng.standard_normal
    return n((16, 4)), n((16, 1)), n((1, 4)), n(1)


OPTIMIZER_CASES = {
    "adadelta": (lambda ps: optim.Adadelta(ps, lr=1.0, weight_decay=0.1), 6),
    "adadelta_rho": (lambda ps: optim.Adadelta(ps, lr=0.5, rho=0.5, eps=1e-4), 6),
    "lbfgs": (lambda ps: optim.LBFGS(ps, lr=0.5, history_size=3, max_iter=5), 3),
    "lbfgs_wolfe": (lambda ps: optim.LBFGS(ps, lr=1.0, history_size=3, max_iter=6,
                                           line_search_fn="strong_wolfe"), 3),
}


def optimizers() -> None:
    a, b, w0, b0 = optimizer_problem()
    for name, (make, steps) in OPTIMIZER_CASES.items():
        lin = nn.Linear(4, 1).double()
        lin.load_state_dict({"weight": torch.from_numpy(w0.copy()), "bias": torch.from_numpy(b0.copy())})
        opt = make(lin.parameters())
        x, y = torch.from_numpy(a), torch.from_numpy(b)
        for i in range(steps):
            def closure(opt=opt, lin=lin, x=x, y=y):
                opt.zero_grad()
                loss = ((torch.tanh(lin(x)) - y) ** 2).mean()
                loss.backward()
                return loss
            opt.step(closure)
            params = [lin.weight.detach().numpy().ravel(), lin.bias.detach().numpy()]
            ARRAYS[f"optim|{name}|{i}"] = np.concatenate(params)


# ------------------------------------------------ programs run from their ported source
RUN_AS_TORCH = {  # run name: (program in examples/ported, argv)
    "vae": ("vae", []),
    "wlm_lstm": ("word_language_model", ["--dropout", "0"]),
    "wlm_gru_tied_f64": ("word_language_model", ["--dropout", "0", "--model", "GRU", "--tied", "--double"]),
    "dcgan": ("dcgan", []),
    "reinforce": ("reinforce", []),
    "triplet": ("triplet", []),
    "transformer_classifier": ("transformer_classifier", []),
    "nanogpt": ("nanogpt", []),
    "nanogpt_slow_nobias_f64": ("nanogpt", ["--slow-attention", "--no-bias", "--double"]),
    "fast_neural_style": ("fast_neural_style", []),
    "super_resolution": ("super_resolution", []),
    "siamese_network": ("siamese_network", []),
    "gat": ("gat", []),
    "gat_concat": ("gat", ["--concat-heads"]),
    "gcn_bias": ("gcn", ["--include-bias"]),
    "mnist_rnn": ("mnist_rnn", []),
    "mnist_forward_forward": ("mnist_forward_forward", []),
    "actor_critic": ("actor_critic", []),
    "language_translation": ("language_translation", []),
}
RECORDED_DRAWS = ("randn", "randn_like", "multinomial", "randint", "randperm", "normal")
#: Tensor methods that draw in place (``x.new_empty(shape).bernoulli_(keep)``: timm's DropPath), recorded
#: as ``"Tensor.<name>"``; the test writes torch's values into the tensor instead
RECORDED_TENSOR_DRAWS = ("bernoulli_",)


def as_torch_program(name: str) -> types.ModuleType:
    """``examples/ported/<name>.py`` with the rename undone, as a module; a program it imports from
    (``from gat import test`` in ``gcn.py``) is itself read with the rename undone."""
    ported = HERE.parents[1] / "examples" / "ported"
    src = (ported / f"{name}.py").read_text()
    src = src.replace("import minigrad_ckpt as mg", "import torch").replace("minigrad_ckpt", "torch")

    def sibling(match: re.Match) -> str:
        other = match.group(1)
        if not (ported / f"{other}.py").exists():
            return match.group(0)
        return f"from {as_torch_program(other).__name__} import"

    src = re.sub(r"^from (\w+) import", sibling, src, flags=re.M)
    module = types.ModuleType(f"torch_{name}")
    sys.modules[module.__name__] = module  # where dataclasses look up the module of a class
    exec(compile(re.sub(r"\bmg\.", "torch.", src), f"{name}.py", "exec"), module.__dict__)
    return module


def run_as_torch(run: str, program: str, argv: list[str]) -> None:
    module = as_torch_program(program)
    draws: list[tuple[str, np.ndarray]] = []
    originals = {fn: getattr(torch, fn) for fn in RECORDED_DRAWS}

    methods = {fn: getattr(torch.Tensor, fn) for fn in RECORDED_TENSOR_DRAWS}

    def recording(fn, original, label):
        def draw(*args, **kwargs):
            out = original(*args, **kwargs)
            draws.append((label, out.detach().numpy().copy()))
            return out
        return draw

    def init(key, model):
        store_state(run, f"init|{key}", model)

    for fn in RECORDED_DRAWS:
        setattr(torch, fn, recording(fn, originals[fn], fn))
    for fn, original in methods.items():
        setattr(torch.Tensor, fn, recording(fn, original, f"Tensor.{fn}"))
    split_randperm = torch.utils.data.dataset.randperm  # random_split's (imported by name there)
    torch.utils.data.dataset.randperm = torch.randperm
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            history, models = module.main(argv, init=init)
    finally:
        for fn, original in originals.items():
            setattr(torch, fn, original)
        for fn, original in methods.items():
            setattr(torch.Tensor, fn, original)
        torch.utils.data.dataset.randperm = split_randperm
    ARRAYS[f"{run}|history"] = np.array(history, dtype=np.float64)
    ARRAYS[f"{run}|draw_fns"] = np.array([fn for fn, _ in draws] or [""])
    for i, (_, value) in enumerate(draws):
        ARRAYS[f"{run}|draw|{i}"] = value
    keys = [k[len(run) + 6:].split("|")[0] for k in ARRAYS if k.startswith(f"{run}|init|")]
    models = models if isinstance(models, tuple) else (models,)
    for key, model in zip(dict.fromkeys(keys), models):
        store_state(run, f"final|{key}", model)


def record_runs(runs: dict[str, tuple[str, list[str]]], filename: str) -> None:
    """Run each of ``runs`` (run name: (program, argv)) as above and write the arrays to ``filename``
    beside this file: the fixtures of the ported programs that have their own test file."""
    torch.set_num_threads(1)
    for run, (program, argv) in runs.items():
        torch.manual_seed(0)
        run_as_torch(run, program, argv)
    out = HERE / filename
    np.savez_compressed(out, **ARRAYS)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(ARRAYS)} arrays)")


if __name__ == "__main__":
    torch.set_num_threads(1)
    mnist()
    time_sequence()
    regression()
    moons()
    optimizers()
    for run, (program, argv) in RUN_AS_TORCH.items():
        torch.manual_seed(0)
        run_as_torch(run, program, argv)
    np.savez_compressed(OUT, **ARRAYS)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(ARRAYS)} arrays)")
