"""The autocast state PyTorch's code asks about: per thread, for each device type, whether
autocast is on and the dtype it names; whether its cast cache is on; how deeply autocast blocks
nest.  ``torch.is_autocast_enabled('cpu')``, ``torch.get_autocast_dtype('cuda')``,
``torch.set_autocast_enabled(...)`` and friends read and write it; ``mg.amp.autocast`` sets it on
entering and puts it back on leaving.

The state is a *setting*, and nothing here changes how an op computes: ops run in their inputs'
dtype (see :mod:`minigrad_ckpt.amp`).  ``get_autocast_dtype('cpu')`` answers PyTorch's default,
``mg.bfloat16`` -- the dtype PyTorch would compute in -- which here is a name only: casting to it
is a TypeError that names float32, so a script that computes in the answer is refused, never
silently run at another precision.  The cast cache caches nothing (there are no casts), so
clearing it does nothing.

As PyTorch's, the state is thread-local: a new thread starts with autocast off and the default
dtypes, whatever the thread that started it had set.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from .backend import BFLOAT16, DtypeNotOffered, as_dtype
from .user_frame import stacklevel_outside_the_engine

__all__ = ["is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
           "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled",
           "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "set_autocast_gpu_dtype"]

#: the device types a device string may start with (PyTorch's list, in its order, for its error)
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
                "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")

#: the device types PyTorch keeps an autocast state for, with their default dtypes (torch 2.13)
_DEFAULT_DTYPES: dict[str, Any] = {
    "cpu": BFLOAT16, "cuda": as_dtype("float16"), "mps": as_dtype("float16"), "xla": BFLOAT16,
    "xpu": as_dtype("float16"), "hpu": BFLOAT16, "ipu": as_dtype("float16"), "mtia": as_dtype("float16"),
    "maia": BFLOAT16, "privateuseone": as_dtype("float16"),
}


class _State(threading.local):
    """One thread's autocast state (a new thread starts from the defaults, as PyTorch's).  The two
    dicts are never changed in place -- a setter puts a new one -- so :func:`capture`, which every
    custom Function call runs, takes them as they are, without a copy."""

    def __init__(self) -> None:
        self.enabled: dict[str, bool] = {}
        self.dtype: dict[str, Any] = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0


_state = _State()


def device_type_of(device: Any, function: str = "is_autocast_enabled") -> str:
    """The device type a device string names (``"cuda:0"`` -> ``"cuda"``), with PyTorch's errors:
    a TypeError for a non-string, a RuntimeError for a name that is no device type."""
    if not isinstance(device, str):
        raise TypeError(f"{function}(): argument 'device_type' (position 1) must be str, not {type(device).__name__}")
    kind = device.split(":")[0]
    if kind not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: "
                           f"{device}")
    return kind


def _autocast_type(device: Any, function: str) -> str:
    kind = device_type_of(device, function)
    if kind not in _DEFAULT_DTYPES:  # a device type PyTorch keeps no autocast state for (meta, hip, ...)
        raise RuntimeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    return kind


def _check_bool(value: Any, function: str, position: int) -> bool:
    if not isinstance(value, bool):  # (PyTorch's binding takes a bool, not 1 or a string)
        raise TypeError(f"{function}(): argument 'enabled' (position {position}) must be bool, "
                        f"not {type(value).__name__}")
    return value


def autocast_dtype_of(dtype: Any, function: str = "set_autocast_dtype") -> Any:
    """``dtype`` as the state holds it: a dtype (or its name), bfloat16 kept as the name it is here."""
    if isinstance(dtype, DtypeNotOffered):
        return dtype
    if isinstance(dtype, str) and dtype == "bfloat16":
        return BFLOAT16
    try:
        return as_dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{function}(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}") from exc


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """PyTorch's ``torch.is_autocast_enabled(device_type)``: whether autocast is on for that device
    type in this thread (no argument: ``"cuda"``, PyTorch's older meaning)."""
    return _state.enabled.get(_autocast_type(device_type, "is_autocast_enabled"), False)


def set_autocast_enabled(device_type: Any, enabled: Any = None) -> None:
    """PyTorch's ``torch.set_autocast_enabled(device_type, enabled)`` (or ``(enabled)`` for cuda):
    switch autocast's state for this thread -- a setting only, see the module docstring."""
    if enabled is None:  # the one-argument overload: set_autocast_enabled(True) is cuda's
        device_type, enabled = "cuda", _check_bool(device_type, "set_autocast_enabled", 1)
    kind = _autocast_type(device_type, "set_autocast_enabled")
    _state.enabled = {**_state.enabled, kind: _check_bool(enabled, "set_autocast_enabled", 2)}


def get_autocast_dtype(device_type: str) -> Any:
    """PyTorch's ``torch.get_autocast_dtype(device_type)``: the dtype autocast names for that device
    type in this thread (``mg.bfloat16`` for ``"cpu"`` and ``float16`` for ``"cuda"`` by default,
    PyTorch's; ops still run in their inputs' dtype)."""
    return _state.dtype[_autocast_type(device_type, "get_autocast_dtype")]


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """PyTorch's ``torch.set_autocast_dtype(device_type, dtype)``."""
    kind = _autocast_type(device_type, "set_autocast_dtype")
    _state.dtype = {**_state.dtype, kind: autocast_dtype_of(dtype)}


def is_autocast_cache_enabled() -> bool:
    """PyTorch's ``torch.is_autocast_cache_enabled()`` (on by default; there is nothing to cache here)."""
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """PyTorch's ``torch.set_autocast_cache_enabled(enabled)`` (a setting: nothing is cached here)."""
    _state.cache_enabled = _check_bool(enabled, "set_autocast_cache_enabled", 1)


def clear_autocast_cache() -> None:
    """PyTorch's ``torch.clear_autocast_cache()``: autocast casts nothing here, so the cache is empty."""


def autocast_increment_nesting() -> int:
    """PyTorch's counter of autocast blocks entered in this thread; returns the new depth."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    """Returns the new depth (it may go below zero, as PyTorch's)."""
    _state.nesting -= 1
    return _state.nesting


# PyTorch's older per-device spellings, each with its DeprecationWarning
def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                  stacklevel=stacklevel_outside_the_engine())


def is_autocast_cpu_enabled() -> bool:
    """PyTorch's deprecated ``torch.is_autocast_cpu_enabled()``: ``is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """PyTorch's deprecated ``torch.set_autocast_cpu_enabled``: ``set_autocast_enabled("cpu", enabled)``."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> Any:
    """PyTorch's deprecated ``torch.get_autocast_cpu_dtype()``: ``get_autocast_dtype("cpu")``."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """PyTorch's deprecated ``torch.set_autocast_cpu_dtype``: ``set_autocast_dtype("cpu", dtype)``."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> Any:
    """PyTorch's deprecated ``torch.get_autocast_gpu_dtype()``: ``get_autocast_dtype("cuda")``."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype: Any) -> None:
    """PyTorch's deprecated ``torch.set_autocast_gpu_dtype``: ``set_autocast_dtype("cuda", dtype)``."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


# ------------------------------------------------------------------ whole-state capture
def capture() -> tuple:
    """This thread's autocast state as a value (what a checkpoint replay runs a forward again under):
    the dicts themselves, which no setter changes in place (see :class:`_State`)."""
    return _state.enabled, _state.dtype, _state.cache_enabled


@contextlib.contextmanager
def restored(snapshot: tuple) -> Iterator[None]:
    """Run a block under ``snapshot`` (from :func:`capture`), and put this thread's state back after,
    exceptions included -- PyTorch's checkpoint recomputes under the forward pass's autocast state."""
    before = capture()
    _state.enabled, _state.dtype, _state.cache_enabled = snapshot
    try:
        yield
    finally:
        _state.enabled, _state.dtype, _state.cache_enabled = before
