"""``mg.cuda``: is a GPU usable, how many, which one is current, wait for one, its memory.

``set_device(i)`` makes GPU ``i`` the one ``"cuda"``, ``x.cuda()`` and ``model.cuda()`` mean in
this process, as PyTorch's (a data-parallel script calls ``mg.cuda.set_device(local_rank)``).
The queries work without CuPy installed (they report no GPU); what needs a GPU says so.
"""

from __future__ import annotations

import collections
from typing import Any

from .. import backend as _backend
from .. import random as _random
from ..backend import _cupy, cuda_device_count, current_device_index, get_device, set_current_device_index

__all__ = ["is_available", "device_count", "synchronize", "memory_used_bytes", "amp", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "get_rng_state_all",
           "set_rng_state", "set_rng_state_all", "set_device", "current_device", "device",
           "get_device_name", "memory_allocated", "memory_reserved", "empty_cache", "is_bf16_supported",
           "max_memory_allocated", "max_memory_reserved", "reset_peak_memory_stats", "memory_stats"]


def is_available() -> bool:
    """True if CuPy is installed and sees at least one CUDA GPU."""
    return cuda_device_count() > 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: the engine has no bfloat16 (NumPy and CuPy lack the dtype), on any GPU.  Scripts
    that ask before choosing their training dtype (nanoGPT) then choose float16 or float32."""
    return False


def device_count() -> int:
    """The number of visible CUDA GPUs (0 without CuPy or a GPU)."""
    return cuda_device_count()


def synchronize(device: Any = None) -> None:
    """Wait until queued GPU work on ``device`` (default: the current GPU) has finished."""
    _gpu(device).xp.synchronize()


def _gpu(device: Any) -> Any:
    """The CUDA device ``device`` names (an index, ``"cuda:1"``, a Device; ``None``: the current one)."""
    if not is_available():
        raise RuntimeError("no CUDA GPU: CuPy is not installed or sees no device (mg.cuda.is_available())")
    dev = get_device("cuda" if device is None else device)
    if dev.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {dev}")
    return dev


def set_device(device: Any) -> None:
    """Make ``device`` (an index or ``"cuda:i"``) this process's current GPU: the one ``"cuda"``,
    ``x.cuda()`` and ``model.cuda()`` mean, and CuPy's current device."""
    index = _gpu(device).index
    _cupy().cuda.Device(index).use()
    set_current_device_index("cuda", index)


def current_device() -> int:
    """The index of the current GPU (0 unless :func:`set_device` changed it)."""
    _gpu(None)
    return current_device_index("cuda")


class device:  # noqa: N801 (PyTorch's name: torch.cuda.device)
    """``with mg.cuda.device(1): ...``: GPU 1 is the current one inside the block, as before after."""

    def __init__(self, device: Any) -> None:
        self.index = None if device is None else _gpu(device).index

    def __enter__(self) -> device:
        self.previous = current_device_index("cuda")
        if self.index is not None:
            set_device(self.index)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.index is not None:
            set_device(self.previous)


def get_device_name(device: Any = None) -> str:
    """The GPU's name, as the CUDA runtime reports it."""
    index = _gpu(device).index
    name = _cupy().cuda.runtime.getDeviceProperties(index)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def _pool(device: Any) -> Any:
    index = _gpu(device).index
    cupy = _cupy()
    with cupy.cuda.Device(index):
        return cupy.get_default_memory_pool()


def memory_used_bytes(device: Any = None) -> int:
    """Bytes in use in CuPy's default memory pool (the GPU cross-check for the memory ledger)."""
    return int(_pool(device).used_bytes())


def memory_allocated(device: Any = None) -> int:
    """PyTorch's name for :func:`memory_used_bytes`: the bytes tensors hold on the GPU; 0 without a
    GPU, as PyTorch's answer where CUDA is not there (a script that logs it runs on a CPU too)."""
    return memory_used_bytes(device) if is_available() else 0


def memory_reserved(device: Any = None) -> int:
    """The bytes CuPy's pool holds from the GPU: in use, or kept for reuse; 0 without a GPU, as PyTorch's."""
    return int(_pool(device).total_bytes()) if is_available() else 0


def _peaks(device: Any) -> dict[str, int]:
    """The peaks of ``device`` (see ``backend.gpu_peak_bytes``), never below what is in use now (bytes the
    pool took before the engine made its first CUDA device are counted from then)."""
    pool = _pool(device)
    peaks = _backend.gpu_peak_bytes.setdefault(_gpu(device).index, {"allocated": 0, "reserved": 0})
    peaks["allocated"] = max(peaks["allocated"], int(pool.used_bytes()))
    peaks["reserved"] = max(peaks["reserved"], int(pool.total_bytes()))
    return peaks


def max_memory_allocated(device: Any = None) -> int:
    """The most bytes tensors have held on the GPU since the start (or the last
    :func:`reset_peak_memory_stats`); 0 without a GPU, as PyTorch's CPU build answers."""
    return _peaks(device)["allocated"] if is_available() else 0


def max_memory_reserved(device: Any = None) -> int:
    """The most bytes CuPy's pool has held from the GPU since the start (or the last reset); 0 without a GPU."""
    return _peaks(device)["reserved"] if is_available() else 0


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start the peaks again from what is in use now (PyTorch's CPU build has no such call either:
    without a GPU this says so)."""
    pool = _pool(device)
    _backend.gpu_peak_bytes[_gpu(device).index] = {"allocated": int(pool.used_bytes()),
                                                    "reserved": int(pool.total_bytes())}


def memory_stats(device: Any = None) -> dict[str, int]:
    """PyTorch's allocator statistics that CuPy's pool can answer -- ``allocated_bytes.all.{current,peak}``
    and ``reserved_bytes.all.{current,peak}`` -- sorted by name as PyTorch's; empty without a GPU, as
    PyTorch's CPU build answers (its other counters, per pool and per block, have no counterpart here)."""
    if not is_available():
        return collections.OrderedDict()
    peaks = _peaks(device)
    return collections.OrderedDict(sorted({
        "allocated_bytes.all.current": memory_allocated(device), "allocated_bytes.all.peak": peaks["allocated"],
        "reserved_bytes.all.current": memory_reserved(device), "reserved_bytes.all.peak": peaks["reserved"],
    }.items()))


def empty_cache() -> None:
    """Give the GPU the blocks CuPy's pool keeps for reuse (nothing without a GPU)."""
    if is_available():
        _cupy().get_default_memory_pool().free_all_blocks()


# The seeds.  Every device draws from the engine's one generator (a value is a pure function
# of its key, so a GPU draws what the CPU would), which ``mg.manual_seed`` seeds; PyTorch's CUDA
# generators are separate.  So these seed it when a GPU is there to draw from it, and are
# silently ignored without one, as PyTorch's are ("safe to call if CUDA is not available").
def manual_seed(seed: int) -> None:
    """Seed the generator GPU draws come from (the engine's one: ``mg.manual_seed``); without a GPU,
    nothing (PyTorch's ``torch.cuda.manual_seed``)."""
    if is_available():
        _random.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """:func:`manual_seed` for every GPU: they share the one generator."""
    manual_seed(seed)


def seed() -> None:
    """Reseed the generator GPU draws come from non-deterministically (``mg.seed``); without a GPU,
    nothing."""
    if is_available():
        _random.seed()


def seed_all() -> None:
    """:func:`seed` for every GPU."""
    seed()


def initial_seed() -> int:
    """The seed of the generator GPU draws come from (``mg.initial_seed``)."""
    return _random.initial_seed()


def get_rng_state(device: Any = "cuda") -> dict[str, int]:
    """The state of the generator GPU draws come from -- the engine's one, ``mg.get_rng_state()``
    (PyTorch's ``torch.cuda.get_rng_state``); like PyTorch's, an error without a GPU."""
    del device  # (every GPU draws from the one generator)
    if not is_available():
        raise RuntimeError("mg.cuda.get_rng_state: no CUDA GPU (mg.cuda.is_available() is False)")
    return _random.get_rng_state()


def get_rng_state_all() -> list[dict[str, int]]:
    """One state per GPU, as PyTorch's (``[]`` without a GPU): the one generator's, for each."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: dict[str, int], device: Any = "cuda") -> None:
    """Restore a state from :func:`get_rng_state` -- into the engine's one generator, which the CPU
    draws from too (restore the CPU's and the GPUs' states taken at one point, as a checkpoint
    does); without a GPU, nothing, as PyTorch's (which would apply it when CUDA starts)."""
    del device
    if is_available():
        _random.set_rng_state(new_state)


def set_rng_state_all(new_states: Any) -> None:
    """:func:`set_rng_state` for each GPU's state in ``new_states`` (from :func:`get_rng_state_all`)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


from . import amp  # noqa: E402  (PyTorch's torch.cuda.amp; it reads is_available above)
