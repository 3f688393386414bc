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

Why OpenBLAS chooses AVX2 there: that CPU is an AMD Zen 5 (family 1Ah), and the
runtime detection of OpenBLAS 0.3.31 has no entry for that family
(OpenMathLib/OpenBLAS#6029, fixed upstream by #6033 in September 2026, after the
0.3.31 that NumPy 2.4's wheels bundle), so it falls back to the Haswell kernels.
:func:`unused_avx512` says when a run is in that situation; the run's header
prints it, with the flag that changes it.
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


_AVX512_FOR_SKYLAKEX = ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")
_AVX2_CORES = ("Haswell", "Zen")


def unused_avx512(core: str | None, cpu_flags: set[str] | None = None) -> bool:
    """Whether OpenBLAS runs its AVX2 kernels (``core``, as :func:`openblas_core` reads it) on a
    CPU whose flags (Linux's ``/proc/cpuinfo`` unless given) include everything its AVX-512
    ``SkylakeX`` kernels need: ``--blas-core SkylakeX`` would run those."""
    if core not in _AVX2_CORES:
        return False
    flags = _cpu_flags() if cpu_flags is None else cpu_flags
    return all(f in flags for f in _AVX512_FOR_SKYLAKEX)


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as info:
            return next((set(line.split(":", 1)[1].split()) for line in info if line.startswith("flags")), set())
    except OSError:
        return set()


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
