"""PyTorch's peak-memory queries ``mg.cuda.max_memory_allocated``, ``max_memory_reserved``,
``reset_peak_memory_stats`` and ``memory_stats`` (an AttributeError before).

Without a GPU they answer as torch 2.13's CPU build: ``torch.cuda.max_memory_allocated()`` and
``max_memory_reserved()`` are 0 (for any device argument), ``torch.cuda.memory_stats()`` is an empty
``OrderedDict``; ``torch.cuda.reset_peak_memory_stats()`` fails there (an AttributeError from
``torch._C``), here the engine's "no CUDA GPU".  On a GPU the peaks are recorded at each allocation
of CuPy's pool (``backend.track_gpu_peaks``), checked here with a stand-in pool and in tests/gpu.
"""
from __future__ import annotations

import collections
import types

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import backend


@pytest.mark.parametrize("device", [None, 0, "cuda:0", "cuda"])
def test_without_a_gpu_peaks_are_torch_cpu_builds_answers(device):
    assert not mg.cuda.is_available()
    assert mg.cuda.max_memory_allocated(device) == 0 and mg.cuda.max_memory_reserved(device) == 0
    stats = mg.cuda.memory_stats(device)
    assert stats == {} and isinstance(stats, collections.OrderedDict)
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        mg.cuda.reset_peak_memory_stats(device)


class _Pool:
    """CuPy's default pool as the tracker sees it: malloc, and the bytes in use and held."""

    def __init__(self):
        self.used, self.total = 0, 0

    def malloc(self, size):
        self.used += size
        self.total = max(self.total, self.used)
        return types.SimpleNamespace(device_id=0, size=size)

    def free(self, memory):
        self.used -= memory.size

    def used_bytes(self):
        return self.used

    def total_bytes(self):
        return self.total


def test_the_allocator_records_the_peak_of_bytes_in_use(monkeypatch):
    pool, installed = _Pool(), []
    cupy = types.SimpleNamespace(get_default_memory_pool=lambda: pool,
                                 cuda=types.SimpleNamespace(set_allocator=installed.append))
    monkeypatch.setattr(backend, "_peak_tracking", [False])
    monkeypatch.setattr(backend, "gpu_peak_bytes", {})
    backend.track_gpu_peaks(cupy)
    backend.track_gpu_peaks(cupy)  # once per process
    (malloc,) = installed
    a = malloc(100)
    b = malloc(50)
    pool.free(a)
    malloc(30)
    pool.free(b)
    assert pool.used == 30 and backend.gpu_peak_bytes[0] == {"allocated": 150, "reserved": 150}
