"""``with mg.device(...):`` -- PyTorch's ``torch.device`` as a context manager (``with
torch.device("cuda"): model = Net()``): within the block the device is the default one, where
factory functions and a module's parameters are made; the previous default comes back after, also
when the block raises; nested blocks (the same device object too) and other threads behave as in
torch 2.13.  It was a TypeError here ('Device' object does not support the context manager
protocol)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.fixture(autouse=True)
def _default_device_back_to_cpu():
    yield
    mg.set_default_device("cpu")


@pytest.mark.parametrize("name", ["strict", "strict-f32", "cpu"])
def test_factories_and_modules_follow_the_block(name):
    with mg.device(name) as entered:
        assert entered is mg.device(name)  # torch's __enter__ gives back the device
        assert mg.get_default_device() == name
        made = [mg.zeros(2), mg.ones(2, 3), mg.empty(2), mg.arange(3), mg.randn(2), mg.tensor([1.0]),
                mg.full((2,), 3.0), mg.eye(2), mg.nn.Linear(2, 2).weight, mg.nn.Conv2d(1, 2, 3).bias]
        assert [str(t.device) for t in made] == [str(mg.device(name))] * len(made)
        assert mg.zeros(2, device="cpu").device == "cpu"  # an explicit device wins
        assert mg.from_numpy(np.ones(2, np.float32)).device == "cpu"  # NumPy's memory stays where it is
    assert mg.get_default_device() == "cpu" and mg.zeros(1).device == "cpu"


def test_nested_blocks_restore_in_order_and_the_same_device_may_enter_again():
    strict = mg.device("strict")
    with strict:
        with mg.device("cpu"):
            assert mg.zeros(1).device == "cpu"
        assert mg.zeros(1).device == "strict"
        with strict:
            assert mg.zeros(1).device == "strict"
        assert mg.zeros(1).device == "strict"
    assert mg.zeros(1).device == "cpu"


def test_the_default_set_before_comes_back_and_a_raising_block_restores_it():
    mg.set_default_device("strict")
    with mg.device("cpu"):
        assert mg.zeros(1).device == "cpu"
    assert mg.zeros(1).device == "strict"
    mg.set_default_device("cpu")
    with pytest.raises(ValueError):
        with mg.device("strict"):
            raise ValueError
    assert mg.get_default_device() == "cpu"


def test_another_thread_keeps_its_own_default():
    seen = []
    with mg.device("strict"):
        worker = threading.Thread(target=lambda: seen.append(str(mg.zeros(1).device)))
        worker.start()
        worker.join()
    assert seen == ["cpu"]


@pytest.mark.parametrize("name, dtype", [("strict", mg.float64), ("strict-f32", mg.float32)])
def test_a_model_built_in_the_block_trains_as_on_the_cpu(name, dtype):
    """A model made inside the block, stepped there (inside a checkpoint too), gives the CPU's gradients."""
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal((4, 3)), rng.standard_normal((2, 3))

    def grads(device):
        with mg.device(device):
            model = mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.Tanh()).to(dtype)
            with mg.no_grad():
                model[0].weight.copy_(mg.tensor(w_np, dtype=dtype))
                model[0].bias.zero_()
            x = mg.tensor(x_np, dtype=dtype)
            out = mg.checkpoint.checkpoint(model, x) + model(x)
            (out ** 2).sum().backward()
            assert model[0].weight.grad.device == device
            return model[0].weight.grad.to("cpu").numpy()

    np.testing.assert_array_equal(grads(name), grads("cpu"))


@pytest.mark.parametrize("name", ["strict", "meta"])
def test_set_default_device_none_puts_the_cpu_back(name):
    # the changing_default_device recipe's global form; torch 2.13: set_default_device(None) resets the
    # default to the CPU.  It was read as "the current default" and changed nothing: every tensor after
    # stayed on the device set before
    mg.set_default_device(name)
    assert mg.zeros(1).device == name
    mg.set_default_device(None)
    assert mg.get_default_device() == "cpu" and mg.zeros(1).device == "cpu"
    assert mg.nn.Linear(2, 2).weight.device == "cpu"
    mg.set_default_device(None)  # and again, with nothing set
    assert mg.get_default_device() == "cpu"
