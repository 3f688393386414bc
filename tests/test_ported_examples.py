"""The programs in ``examples/ported/`` -- PyTorch programs after a mechanical rename -- give
PyTorch's numbers: the losses and weights ``tests/data/make_ported_reference.py`` recorded
by running the originals with torch (offline; torch is not needed here).

Both sides start from the same weights (the fixture's, or ``ported_init.py``'s) and see the
same data; where a program draws random numbers (``regression``, ``vae``, ``dcgan``,
``reinforce``, ``gat``'s ``randperm``, ``mnist_forward_forward``'s ``randint``, ...), the draws
torch made are replayed.  float64 programs agree to 1e-10, float32 ones to float32 round-off.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

HERE = Path(__file__).parent
PORTED = HERE.parent / "examples" / "ported"
REF = np.load(HERE / "data" / "ported_reference.npz")
sys.path.insert(0, str(PORTED))
sys.path.insert(0, str(HERE / "data"))
from ported_init import reference_weights  # noqa: E402
from ported_replay import load_program as _load  # noqa: E402
from ported_replay import run_and_compare  # noqa: E402


def _weights(prog: str, when: str) -> dict[str, np.ndarray]:
    prefix = f"{prog}|{when}|"
    return {k[len(prefix):]: REF[k] for k in REF.files if k.startswith(prefix)}


def test_micrograd_moons_matches_pytorch_in_float64():
    moons = _load("micrograd_moons")
    with contextlib.redirect_stdout(io.StringIO()):
        history = moons.main(["--steps", "3"])
    np.testing.assert_allclose(history, REF["moons|losses"], rtol=1e-12)


def test_time_sequence_prediction_matches_pytorch_lbfgs_in_float64():
    seq = _load("time_sequence_prediction")
    init = _weights("sequence", "init")

    built = seq.Sequence.__init__

    def start_from_torchs_weights(self):  # the original builds its model inside main()
        built(self)
        self.load_state_dict(init)

    seq.Sequence.__init__ = start_from_torchs_weights
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        seq.main(["--steps", "2", "--device", "cpu", "--waves", "8", "--length", "40", "--future", "10"])
    lines = out.getvalue().splitlines()
    losses = [float(ln.split()[1]) for ln in lines if ln.startswith("loss:")]
    tests = [float(ln.split()[2]) for ln in lines if ln.startswith("test loss:")]
    np.testing.assert_allclose(losses, REF["sequence|losses"], rtol=1e-10)
    np.testing.assert_allclose(tests, REF["sequence|test_losses"], rtol=1e-10)


def test_regression_matches_pytorch_in_float32(monkeypatch):
    draws = iter([REF[f"regression|draw|{i}"] for i in range(sum(k.startswith("regression|draw|") for k in REF.files))])
    monkeypatch.setattr(mg, "randn", lambda *shape: mg.tensor(next(draws)))
    reg = _load("regression")
    reg.fc.load_state_dict(_weights("regression", "init"))
    with contextlib.redirect_stdout(io.StringIO()) as out:
        loss, batches = reg.main(max_batches=len(REF["regression|losses"]))
    assert batches == len(REF["regression|losses"]) and "Learned function" in out.getvalue()
    assert loss == pytest.approx(REF["regression|losses"][-1], rel=1e-4)
    for k, v in _weights("regression", "final").items():
        np.testing.assert_allclose(reg.fc.state_dict()[k].numpy(), v, rtol=1e-4, atol=1e-5)


def test_mnist_net_with_adadelta_and_steplr_matches_pytorch_in_float32():
    mnist = _load("mnist")
    import local_data

    model = mnist.Net()
    model.dropout1.p = model.dropout2.p = 0.0  # the masks of two engines' generators differ
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    model.load_state_dict(reference_weights(shapes, seed=1))
    transform = local_data.transforms.Compose([local_data.transforms.ToTensor(),
                                               local_data.transforms.Normalize((0.1307,), (0.3081,))])
    train_set = local_data.datasets.MNIST("../data", train=True, transform=transform, size=128)
    test_set = local_data.datasets.MNIST("../data", train=False, transform=transform, size=64)
    train_loader = mg.utils.data.DataLoader(train_set, batch_size=64)
    test_loader = mg.utils.data.DataLoader(test_set, batch_size=1000)
    optimizer = mg.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = mg.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)

    class Args:
        log_interval, dry_run = 1, False

    test_losses = []
    with contextlib.redirect_stdout(io.StringIO()) as out:
        for epoch in (1, 2):
            mnist.train(Args, model, mg.device("cpu"), train_loader, optimizer, epoch)
            test_losses.append(mnist.test(model, mg.device("cpu"), test_loader))
            scheduler.step()
    printed = [float(ln.rsplit("Loss: ", 1)[1]) for ln in out.getvalue().splitlines() if "Loss: " in ln]
    np.testing.assert_allclose(printed, REF["mnist|losses"], atol=2e-6)       # printed with 6 decimals
    np.testing.assert_allclose(test_losses, REF["mnist|test_losses"], rtol=1e-4)
    state = model.state_dict()
    for k, v in _weights("mnist", "final").items():
        np.testing.assert_allclose(state[k].numpy(), v, rtol=1e-3, atol=1e-5, err_msg=k)


# ------------------------------------------- programs whose torch run is their own source
# tests/data/make_ported_reference.py ran each of these from examples/ported/ with the rename
# undone; here the ported program runs from the same starting weights and replays torch's draws.
# run name: (program, argv, float64?, weights excused from the comparison)
RUNS = {
    "vae": ("vae", [], False, {}),
    "wlm_lstm": ("word_language_model", ["--dropout", "0"], False, {}),
    "wlm_gru_tied_f64": ("word_language_model", ["--dropout", "0", "--model", "GRU", "--tied", "--double"],
                         True, {}),
    "dcgan": ("dcgan", [], False, {}),
    "reinforce": ("reinforce", [], False, {}),
    "triplet": ("triplet", [], True, {}),
    # The key projection's bias has no effect on softmax attention (it adds q . b_k to every score of
    # a row), so its true gradient is 0 and AdamW's steps follow each engine's round-off noise.
    "transformer_classifier": ("transformer_classifier", [], False,
                               {"in_proj_bias": slice(16, 32)}),
    "nanogpt": ("nanogpt", [], False, {}),
    "nanogpt_slow_nobias_f64": ("nanogpt", ["--slow-attention", "--no-bias", "--double"], True, {}),
    # A convolution's bias just before an InstanceNorm (and a residual block's last bias, which reaches
    # only such convolutions) has no effect on the output: a true gradient of 0, Adam's steps on noise.
    "fast_neural_style": ("fast_neural_style", [], False,
                          {name: slice(None) for name in ("conv1.conv2d.bias", "conv2.conv2d.bias", "in2.bias",
                                                          "conv3.conv2d.bias", "deconv1.conv2d.bias",
                                                          "deconv2.conv2d.bias")}),
    "super_resolution": ("super_resolution", [], False, {}),
    "siamese_network": ("siamese_network", [], False, {}),
    "gat": ("gat", [], False, {}),
    "gat_concat": ("gat", ["--concat-heads"], False, {}),
    "gcn_bias": ("gcn", ["--include-bias"], False, {}),
    "mnist_rnn": ("mnist_rnn", [], False, {}),
    "mnist_forward_forward": ("mnist_forward_forward", [], False, {}),
    "actor_critic": ("actor_critic", [], False, {}),
    "language_translation": ("language_translation", [], False, {"in_proj_bias": slice(16, 32)}),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_program_run_as_torch_matches_pytorch(monkeypatch, run):
    program, argv, float64, excused = RUNS[run]
    run_and_compare(monkeypatch, REF, run, program, argv, float64, excused)


@pytest.mark.parametrize("name", ["mnist", "time_sequence_prediction", "regression", "micrograd_moons",
                                  *sorted({program for program, *_ in RUNS.values()})])
def test_each_port_has_its_notes_of_every_changed_line(name):
    notes = (PORTED / "README.md").read_text()
    assert f"`{name}.py`" in notes


def test_polynomial_custom_function_matches_pytorch_in_float32():
    """The tutorial's LegendrePolynomial3 (an ``autograd.Function``) fitted to sin(x) by 2000 steps
    of gradient descent from its fixed start.  torch's numbers (2.13, CPU), made offline by running
    this very source with ``import minigrad_ckpt as mg`` -> ``import torch as mg``: the losses it
    prints (every 100 steps) and the final a, b, c, d."""
    torch_losses = [float.fromhex(h) for h in (
        "0x1.a3eaacp+7", "0x1.215204p+7", "0x1.92cf5cp+6", "0x1.1c240ap+6", "0x1.97d3fep+5", "0x1.2b399ep+5",
        "0x1.c34f54p+4", "0x1.5f922ap+4", "0x1.1bee80p+4", "0x1.dc17acp+3", "0x1.9dd106p+3", "0x1.738ca4p+3",
        "0x1.56db32p+3", "0x1.43601cp+3", "0x1.3625bap+3", "0x1.2d29fep+3", "0x1.271058p+3", "0x1.22ebd0p+3",
        "0x1.201b8ap+3", "0x1.1e3250p+3")]
    torch_abcd = [float.fromhex(h) for h in ("-0x1.7108e2p-31", "-0x1.1ab102p+1", "-0x1.750708p-32", "0x1.059e26p-2")]
    poly = _load("polynomial_custom_function")
    with contextlib.redirect_stdout(io.StringIO()) as out:
        losses, abcd = poly.main()
    assert out.getvalue().splitlines()[-1].startswith("Result: y = ")
    np.testing.assert_allclose(losses, torch_losses, rtol=1e-5)  # float32 sums in another order
    np.testing.assert_allclose(abcd, torch_abcd, rtol=1e-6, atol=1e-8)  # a and c are 0 up to round-off
