"""nn.parallel.scatter / gather / scatter_kwargs, PyTorch's helpers of single-process data
parallelism, as d2l's multiple-GPU chapter calls them (nn.parallel.scatter(data, devices)).
The engine had none of them: an AttributeError where PyTorch answers, or on a machine without a
GPU refuses the CPU with its ValueError. The strict stand-in device is a non-CPU device here."""
import collections
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" device)
from minigrad_ckpt import nn


def test_scatter_to_the_cpu_is_pytorchs_value_error():
    data = mg.arange(20).reshape(4, 5)
    with pytest.raises(ValueError, match="Expected a non cpu device, but got: cpu"):
        nn.parallel.scatter(data, [mg.device("cpu"), mg.device("cpu")])


def test_gather_of_cpu_tensors_is_pytorchs_assertion_error():
    with pytest.raises(AssertionError, match="Gather function not implemented for CPU tensors"):
        nn.parallel.gather([mg.ones(2), mg.ones(2)], "cpu")


def test_scatter_cuts_chunk_sizes_and_moves_each_piece():
    data = mg.arange(20).reshape(5, 4)
    pieces = nn.parallel.scatter(data, ["strict", "strict"])
    assert isinstance(pieces, tuple) and [tuple(p.shape) for p in pieces] == [(3, 4), (2, 4)]
    assert all(p.device.type == "strict" for p in pieces)
    back = nn.parallel.gather(pieces, "cpu")
    assert back.device.type == "cpu" and back.tolist() == np.arange(20).reshape(5, 4).tolist()
    cols = nn.parallel.scatter(data, ["strict"] * 3, dim=1)
    assert [tuple(p.shape) for p in cols] == [(5, 2), (5, 2)]  # chunk's sizes: fewer pieces than devices


def test_containers_are_scattered_per_device_and_gathered_back():
    x, y = mg.arange(8.0).reshape(4, 2), mg.arange(4)
    Pair = collections.namedtuple("Pair", "a b")
    per_device = nn.parallel.scatter((x, [y], {"k": x}, Pair(x, 7), "tag"), ["strict", "strict"])
    assert len(per_device) == 2
    first = per_device[0]
    assert first[0].shape == (2, 2) and first[1][0].tolist() == [0, 1] and first[2]["k"].shape == (2, 2)
    assert isinstance(first[3], Pair) and first[3].b == 7 and first[4] == "tag"
    args, kwargs = nn.parallel.scatter_kwargs((x,), {"y": y}, ["strict", "strict"])
    assert len(args) == len(kwargs) == 2 and kwargs[1]["y"].tolist() == [2, 3]
    outs = [{"out": d[0] * 2, "n": Pair(d[0], None)} for d in per_device]
    got = nn.parallel.gather(outs, "cpu")
    assert got["out"].tolist() == (x * 2).tolist() and got["n"].b is None


def test_gradients_flow_back_through_scatter_and_gather():
    w = mg.tensor(np.linspace(-1, 1, 12).reshape(6, 2), requires_grad=True)
    pieces = nn.parallel.scatter(w, ["strict", "strict"])
    (nn.parallel.gather([p ** 2 for p in pieces], "cpu") * mg.arange(1.0, 13.0).reshape(6, 2)).sum().backward()
    assert np.allclose(w.grad.numpy(), 2 * w.detach().numpy() * np.arange(1.0, 13.0).reshape(6, 2))


def test_gathering_scalars_returns_a_vector_with_pytorchs_warning():
    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        got = nn.parallel.gather([mg.tensor(1.0, device="strict"), mg.tensor(2.0, device="strict")], "cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert got.tolist() == [1.0, 2.0]
