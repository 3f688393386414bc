"""Truncated backpropagation through time as the NYU Deep Learning course's echo notebook
(Atcold/NYU-DLSP20, 09-echo_data.ipynb) writes it: one stream cut into chunks, an ``nn.RNN``
with ``nonlinearity='relu'`` and ``batch_first=True`` whose final hidden state is carried into the
next chunk after ``hidden.detach_()``, ``BCEWithLogitsLoss`` and ``RMSprop``. Each backward must
stop at the chunk's start (the carried state, detached in place, is a constant), and the steps give
torch 2.13's numbers, on the CPU and on the strict float32 stand-in device."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict-f32")

# torch 2.13, the same program from the same weights and chunks (two epochs of three chunks)
TORCH_LOSSES = [0.6957489848136902, 0.6991530656814575, 0.7668090462684631,
                0.6840075254440308, 0.6928183436393738, 0.6925724148750305]
TORCH_WEIGHT_HH = [[-0.2147664874792099, -0.08357959240674973, -0.06241278722882271, 0.20807711780071259],
                   [0.43713390827178955, -0.1059848740696907, 0.2917250394821167, -0.05879971385002136],
                   [0.06804455816745758, 0.4255966246128082, -0.42896392941474915, -0.41287070512771606],
                   [-0.4152277708053589, 0.4342755377292633, 0.27815675735473633, 0.4710519313812256]]
TORCH_LAST_HIDDEN = [0.0, 0.3993142247200012, 0.0, 1.1279531717300415,
                     0.00788205862045288, 0.40626245737075806, 0.0, 1.1286394596099854]


def _weights() -> dict[str, np.ndarray]:
    r = np.random.RandomState(0)
    return {"rnn.weight_ih_l0": r.uniform(-.5, .5, (4, 1)), "rnn.weight_hh_l0": r.uniform(-.5, .5, (4, 4)),
            "rnn.bias_ih_l0": r.uniform(-.5, .5, 4), "rnn.bias_hh_l0": r.uniform(-.5, .5, 4),
            "linear.weight": r.uniform(-.5, .5, (1, 4)), "linear.bias": r.uniform(-.5, .5, 1)}


def _chunks() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The notebook's EchoData, small: a 0/1 stream and itself delayed by three steps, cut in three."""
    x = np.random.RandomState(1).randint(0, 2, (2, 30))
    y = np.roll(x, 3, axis=1)
    y[:, :3] = 0
    return np.split(x[..., None], 3, axis=1), np.split(y[..., None], 3, axis=1)


class SimpleRNN(mg.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = mg.nn.RNN(1, 4, nonlinearity="relu", batch_first=True)
        self.linear = mg.nn.Linear(4, 1)

    def forward(self, x, hidden):
        x, hidden = self.rnn(x, hidden)
        return self.linear(x), hidden


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_echo_training_with_hidden_detached_in_place_matches_pytorch(device):
    model = SimpleRNN()
    model.load_state_dict({k: mg.tensor(v, dtype=mg.float32) for k, v in _weights().items()})
    model.to(device)
    optimizer = mg.optim.RMSprop(model.parameters(), lr=0.01)
    criterion = mg.nn.BCEWithLogitsLoss()
    xs, ys = _chunks()
    losses = []
    for _ in range(2):
        hidden = None  # a fresh state each epoch
        for x, y in zip(xs, ys):
            data = mg.from_numpy(x).float().to(device)
            target = mg.from_numpy(y).float().to(device)
            optimizer.zero_grad()
            if hidden is not None:
                hidden.detach_()
                assert hidden.grad_fn is None and not hidden.requires_grad
            logits, hidden = model(data, hidden)
            loss = criterion(logits, target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    np.testing.assert_allclose(losses, TORCH_LOSSES, rtol=1e-5)
    np.testing.assert_allclose(model.rnn.weight_hh_l0.detach().cpu().numpy(), TORCH_WEIGHT_HH, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hidden.detach().cpu().numpy().ravel(), TORCH_LAST_HIDDEN, rtol=1e-5, atol=1e-6)
