"""Which kernels NumPy's OpenBLAS runs, and choosing them before NumPy loads it.

OpenBLAS built with ``DYNAMIC_ARCH`` (NumPy's wheels) picks its kernels when it is
loaded, from the CPU's identity.  On the AMD EPYC (AVX-512) machine these benchmarks
were run on, the OpenBLAS 0.3.31 in NumPy 2's wheel picks ``Haswell`` (AVX2), and
``OPENBLAS_CORETYPE=SkylakeX`` -- set before NumPy is imported -- gives it the
AVX-512 kernels: the MNIST example's step took 62.6 ms with the one and 46.3 ms with
the other, one thread, float32 (torch's oneDNN convolutions use AVX-512 on their
own).  ``python -m benchmarks --blas-core SkylakeX`` runs every engine that way;
the header of every run says which kernels ran (:func:`openblas_core`).

Only a core the CPU can execute may be named (SkylakeX needs AVX-512 F, CD, BW, DQ
and VL); OpenBLAS falls back to its own choice for a name it does not know.
"""

from __future__ import annotations

import ctypes
import os
import sys

_CORENAME_SYMBOLS = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                     "openblas_get_corename")


def choose_core(core: str) -> None:
    """Ask OpenBLAS for ``core``'s kernels (``OPENBLAS_CORETYPE``): only before NumPy is imported,
    and inherited by the processes the benchmarks start (peak memory, data parallelism)."""
    if "numpy" in sys.modules:
        raise RuntimeError("--blas-core must be chosen before NumPy is imported (it is read when OpenBLAS loads)")
    os.environ["OPENBLAS_CORETYPE"] = core


def openblas_core() -> str | None:
    """The kernels the OpenBLAS NumPy loaded runs (``"Haswell"``, ``"SkylakeX"``, ...); None where
    NumPy uses another BLAS or the library cannot be found (Linux: the process's mapped files)."""
    import numpy  # noqa: F401  (loads OpenBLAS)

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}
    except OSError:
        return None
    for path in sorted(paths):
        lib = ctypes.CDLL(path)
        for name in _CORENAME_SYMBOLS:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return None
