"""PyTorch's ``torch.cuda.get_rng_state[_all]`` / ``set_rng_state[_all]``, which a resume checkpoint
saves beside ``torch.get_rng_state()`` (they did not exist: AttributeError).  Every device draws from
the engine's one generator, so they read and restore it; without a GPU they answer as PyTorch's
does on a CPU-only machine: ``get_rng_state_all() == []``, ``set_rng_state_all([])`` does nothing,
``get_rng_state()`` raises."""

from __future__ import annotations

import io

import pytest

import minigrad_ckpt as mg


def test_without_a_gpu_as_pytorch_on_a_cpu_only_machine(monkeypatch):
    monkeypatch.setattr(mg.cuda, "is_available", lambda: False)
    monkeypatch.setattr(mg.cuda, "device_count", lambda: 0)
    mg.manual_seed(5)
    before = mg.get_rng_state()
    assert mg.cuda.get_rng_state_all() == []
    mg.cuda.set_rng_state_all([])
    mg.cuda.set_rng_state({"seed": 1, "counter": 2})
    assert mg.get_rng_state() == before
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        mg.cuda.get_rng_state()


@pytest.mark.msgpack
def test_a_checkpoint_of_cpu_and_gpu_states_resumes_the_same_draws(monkeypatch):
    monkeypatch.setattr(mg.cuda, "is_available", lambda: True)  # the GPU branch, on any machine
    monkeypatch.setattr(mg.cuda, "device_count", lambda: 2)
    mg.manual_seed(3)
    mg.rand(4)
    buf = io.BytesIO()
    mg.save({"cpu": mg.get_rng_state(), "cuda": mg.cuda.get_rng_state_all(), "one": mg.cuda.get_rng_state(0)}, buf)
    want = mg.rand(5).tolist()
    mg.manual_seed(99)
    buf.seek(0)
    ck = mg.load(buf)
    assert len(ck["cuda"]) == 2 and ck["one"] == ck["cpu"]
    mg.set_rng_state(ck["cpu"])
    mg.cuda.set_rng_state_all(ck["cuda"])
    assert mg.rand(5).tolist() == want
