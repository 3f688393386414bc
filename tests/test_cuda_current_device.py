"""``mg.cuda.set_device`` and the device names that follow it, as PyTorch's: ``"cuda"``, ``x.cuda()``,
``model.cuda()`` mean the current GPU, an int is a CUDA ordinal (``model.to(rank)``), and
``mg.cuda.device(i)`` makes GPU ``i`` current inside a block.

No GPU is on the test machines, so two stand-in GPUs are made here: the device type ``"cuda"``
registered with NumPy arrays, ``device_count`` 2 and a CuPy stand-in that records ``Device(i).use()``
(the real path runs in ``tests/gpu/``)."""

from __future__ import annotations

import types

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import backend


@pytest.fixture
def two_gpus(monkeypatch):
    used = []
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Device=lambda i: types.SimpleNamespace(use=lambda: used.append(i))))

    def factory(index):
        if not 0 <= index < 2:
            raise ValueError(f"device 'cuda:{index}' does not exist: 2 CUDA device(s) are visible")
        return backend.Device.made("cuda", index, backend.numpy_namespace)

    monkeypatch.setitem(backend._extra_device_factories, "cuda", factory)
    monkeypatch.setattr(mg.cuda, "cuda_device_count", lambda: 2)
    monkeypatch.setattr(mg.cuda, "_cupy", lambda: fake_cupy)
    monkeypatch.setattr(backend, "_current_index", {})
    monkeypatch.setattr(backend, "_devices", {k: v for k, v in backend._devices.items() if "cuda" not in k})
    yield used


def test_the_current_gpu_is_what_cuda_means(two_gpus):
    assert mg.cuda.current_device() == 0 and str(mg.device("cuda")) == "cuda:0"
    mg.cuda.set_device(1)
    assert two_gpus == [1] and mg.cuda.current_device() == 1
    assert mg.device("cuda") is mg.device("cuda:1") and str(mg.ones(2).cuda().device) == "cuda:1"
    model = mg.nn.Linear(2, 2).cuda()
    assert {str(p.device) for p in model.parameters()} == {"cuda:1"}
    assert str(mg.ones(2, device="cuda").device) == "cuda:1"
    assert str(mg.ones(2).cuda(0).device) == "cuda:0"  # an explicit index still wins


def test_an_int_is_a_cuda_ordinal_as_in_pytorch(two_gpus):
    assert str(mg.ones(2).to(1).device) == "cuda:1"
    model = mg.nn.Linear(2, 2).to(1)  # the DDP tutorial's model.to(rank)
    assert {str(p.device) for p in model.parameters()} == {"cuda:1"}
    assert mg.device(0) is mg.device("cuda:0")
    with pytest.raises(ValueError, match="does not exist"):
        mg.cuda.set_device(2)
    assert mg.cuda.current_device() == 0  # a refused set_device changes nothing


def test_the_device_context_restores_the_previous_gpu(two_gpus):
    with mg.cuda.device(1):
        assert mg.cuda.current_device() == 1 and str(mg.zeros(1, device="cuda").device) == "cuda:1"
    assert mg.cuda.current_device() == 0
    with mg.cuda.device(None):  # PyTorch's no-op form
        assert mg.cuda.current_device() == 0


def test_without_a_gpu_the_queries_say_so():
    assert not mg.cuda.is_available()
    for call in (mg.cuda.current_device, lambda: mg.cuda.set_device(0), mg.cuda.get_device_name):
        with pytest.raises(RuntimeError, match="no CUDA GPU"):
            call()
    mg.cuda.empty_cache()  # nothing to give back: not an error, as PyTorch's
    # the memory counters answer 0, as PyTorch's where CUDA is not there: a script that logs them runs on a CPU
    assert [f() for f in (mg.cuda.memory_allocated, mg.cuda.memory_reserved, mg.cuda.max_memory_allocated,
                          mg.cuda.max_memory_reserved)] == [0, 0, 0, 0]
    assert mg.cuda.memory_stats() == {}
    with pytest.raises(RuntimeError, match="needs CuPy"):
        mg.ones(2).to(0)
