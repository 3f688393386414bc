"""PyTorch's process-wide settings that training scripts set at the top --
``torch.use_deterministic_algorithms(True)``, ``torch.set_float32_matmul_precision("high")``,
``torch.set_num_threads(4)`` -- so that they run after the rename.

None of them changes a result here: every op of the engine is deterministic already (the
same inputs give the same bits, run after run), matrix products are full float32/float64
(no TF32 or bfloat16 passes), and the CPU's thread count is NumPy's BLAS's, set by its
environment variables (``OMP_NUM_THREADS``) before the process starts.  Each setting keeps
what is written and reads it back, as PyTorch's.
"""

from __future__ import annotations

import os
import warnings

from .user_frame import stacklevel_outside_the_engine

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads", "set_warn_always", "is_warn_always_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode"]

_state: dict[str, object] = {"deterministic": False, "warn_only": False, "matmul_precision": "highest",
                             "num_threads": None, "num_interop_threads": None, "warn_always": False}
#: the warnings PyTorch gives once a process (its TORCH_WARN_ONCE) that have been given
_warned_once: set[str] = set()


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record PyTorch's determinism switch (the engine is deterministic either way)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms: mode must be a bool, got {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """What :func:`use_deterministic_algorithms` last set (False to start)."""
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The ``warn_only`` that :func:`use_deterministic_algorithms` last set."""
    return bool(_state["warn_only"])


def set_float32_matmul_precision(precision: str) -> None:
    """Record ``"highest"``, ``"high"`` or ``"medium"``; products stay full precision here.  Another
    value is ignored with a warning, as PyTorch's."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """What :func:`set_float32_matmul_precision` last set (``"highest"`` to start)."""
    return str(_state["matmul_precision"])


def _record_count(setter: str, key: str, n: int) -> None:
    """Keep a positive thread count ``n`` under ``key``, refusing anything else in PyTorch's words."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError(f"{setter} expects a positive integer, got {n!r}")
    _state[key] = n


def set_num_threads(n: int) -> None:
    """Record PyTorch's intra-op thread count (NumPy's BLAS keeps the count it started with)."""
    _record_count("set_num_threads", "num_threads", n)


def get_num_threads() -> int:
    """The count last set, else ``OMP_NUM_THREADS`` or the CPU count (PyTorch's default)."""
    if _state["num_threads"] is not None:
        return int(_state["num_threads"])  # type: ignore[arg-type]
    env = os.environ.get("OMP_NUM_THREADS", "")
    return int(env) if env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)


def set_num_interop_threads(n: int) -> None:
    """Record PyTorch's inter-op thread count (the engine runs one op at a time either way)."""
    _record_count("set_num_interop_threads", "num_interop_threads", n)


def get_num_interop_threads() -> int:
    """The count last set, else the CPU count (PyTorch's default)."""
    count = _state["num_interop_threads"]
    return int(count) if count is not None else (os.cpu_count() or 1)  # type: ignore[arg-type]


def set_warn_always(b: bool) -> None:
    """PyTorch's switch for the warnings it gives once a process (a deprecated function's, such as
    ``mg.nuclear_norm``'s): ``True`` gives them at every call, as ``torch.set_warn_always``."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")  # PyTorch's words
    _state["warn_always"] = b


def is_warn_always_enabled() -> bool:
    """Whether :func:`set_warn_always` turned every-call warnings on."""
    return bool(_state["warn_always"])


def warn_once(key: str) -> bool:
    """Whether a once-a-process warning under ``key`` is due now: the first time, or every time
    while :func:`set_warn_always` is on."""
    if _state["warn_always"] or key not in _warned_once:
        _warned_once.add(key)
        return True
    return False


#: PyTorch's names of the determinism modes: ``use_deterministic_algorithms``'s two switches as one number
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """``torch.set_deterministic_debug_mode``: ``"default"``/0 turns determinism off, ``"warn"``/1
    on with ``warn_only``, ``"error"``/2 on -- :func:`use_deterministic_algorithms` by number."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):  # (a bool is an int there too: True is 1, "warn", as torch 2.13's)
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (determinism off), 1 (on, warning only) or 2 (on), as :func:`set_deterministic_debug_mode` sets it."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2
