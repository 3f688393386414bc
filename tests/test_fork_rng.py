"""``mg.random.fork_rng()``, PyTorch's ``torch.random.fork_rng``: draws inside the block leave the
engine's generator where it was, so a loop with an evaluation (or a sampled preview) inside the
block resumes and continues exactly as one without it.  (It did not exist: AttributeError.)"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_draws_inside_the_block_do_not_move_the_generator(device):
    mg.manual_seed(3)
    mg.rand(2, device=device)
    before = mg.get_rng_state()
    with mg.random.fork_rng():
        inside = mg.rand(4, device=device)
        nn.functional.dropout(mg.ones(8, device=device), 0.5)
    assert mg.get_rng_state() == before
    after = mg.rand(3, device=device).tolist()
    mg.manual_seed(3)
    mg.rand(2, device=device)
    assert mg.rand(4, device=device).tolist() == inside.tolist()  # the block drew the same numbers
    mg.set_rng_state(before)
    assert mg.rand(3, device=device).tolist() == after


def test_an_exception_restores_and_enabled_false_forks_nothing():
    mg.manual_seed(0)
    before = mg.get_rng_state()
    with pytest.raises(RuntimeError), mg.random.fork_rng(devices=[0], device_type="cuda"):
        mg.randn(5)
        raise RuntimeError("eval failed")
    assert mg.get_rng_state() == before
    with mg.random.fork_rng(enabled=False):
        mg.randn(5)
    assert mg.get_rng_state() != before
    own = mg.Generator().manual_seed(1)
    with mg.random.fork_rng():
        mg.rand(1, generator=own)  # a generator of one's own is not forked, as in PyTorch
    assert own.get_state()["counter"] == 1


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_training_with_a_forked_evaluation_matches_training_without_it(dtype):
    def run(evaluate):
        mg.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1)).to(dtype)
        opt = mg.optim.SGD(net.parameters(), lr=0.1)
        x = mg.randn(6, 4, dtype=dtype)
        for _ in range(3):
            loss = checkpoint(net, x, use_reentrant=False).sum()  # dropout replayed from its stored key
            if evaluate:
                with mg.random.fork_rng():
                    net(x).sum()  # an evaluation pass with dropout on: draws, forked
            opt.zero_grad()
            loss.backward()
            opt.step()
        return [p.numpy().tobytes() for p in net.parameters()]

    assert run(True) == run(False)


def test_a_tensor_as_rng_state_is_a_value_error():
    with pytest.raises(ValueError, match="not an RNG state"):
        mg.set_rng_state(mg.tensor([1, 2, 3], dtype=mg.uint8))  # PyTorch's ByteTensor form
