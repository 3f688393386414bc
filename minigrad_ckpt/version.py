"""``mg.version``: PyTorch's ``torch.version`` -- which engine this is and which GPU toolkit it runs on.

Scripts print these at start-up (``print(f"CUDA version: {torch.version.cuda}")``) or branch on
``torch.version.cuda is not None`` / ``torch.version.hip is not None`` to learn the GPU platform.
PyTorch's ``cuda`` is the toolkit it was built with, ``None`` in a CPU build; here the GPU path is
CuPy's, so ``cuda`` is the CUDA runtime CuPy runs on (``"12.4"``), or ``None`` where CuPy is not
installed or sees no GPU -- the CPU build's answer.  ``hip`` and ``rocm`` are ``None``: the engine has no
ROCm path; ``xpu`` is ``None`` (no Intel GPU path) and ``debug`` is ``False``, as a release build's.
PyTorch's ``git_version`` (the commit it was built from) is not offered.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"  # the package's one constant (``mg.__version__`` is this; pyproject.toml's names it too)

__all__ = ["__version__", "cuda", "debug", "hip", "rocm", "xpu"]  # noqa: F822 (cuda: the module __getattr__'s)

debug = False
hip: str | None = None
rocm: str | None = None
xpu: str | None = None


def _cuda_runtime_version() -> str | None:
    """CuPy's CUDA runtime as PyTorch writes its toolkit, ``"major.minor"`` (12040 -> ``"12.4"``)."""
    from .backend import _cupy  # (here, not at the top: the package reads __version__ from this module first)

    cupy = _cupy()
    if cupy is None:
        return None
    try:
        number = int(cupy.cuda.runtime.runtimeGetVersion())
    except Exception:
        return None
    return f"{number // 1000}.{number % 1000 // 10}"


def __getattr__(name: str) -> Any:
    """``cuda`` is asked of CuPy when first read, not at ``import minigrad_ckpt`` (which never starts CuPy)."""
    if name == "cuda":
        value = _cuda_runtime_version()
        globals()["cuda"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
